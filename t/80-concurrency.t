#!/usr/bin/env bash
# 80-concurrency.t - many clients at once.  8 clients (t/lib/concurrency-
# client, one keep-alive connection each) send 2,500+ transfers in and out
# across 4 customers of a fresh platform, whose external accounts cover
# every sandbox outcome (...001 completes, ...002 fails, ...005 is
# returned) and one of which holds little money, so that payouts race for
# it.  Some idempotency keys are fired by every client at the same moment,
# some are repeated later by one client.  Once everything has settled:
# xborderctl ledger-check passes, no balance is or ever was negative, every
# balance equals what was funded plus the completed transfers in minus the
# completed transfers out as the API lists them, every transaction settled
# as its account number says, and each idempotency key took effect once.
# Prints the number of transfers, the seconds they took and the number of
# database retries the servers logged.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
no_plan

CLIENT=$(dirname "${BASH_SOURCE[0]}")/lib/concurrency-client
CLIENTS=${XB_CC_CLIENTS:-8}
PER_CLIENT=${XB_CC_PER_CLIENT:-320}
SEED=${XB_CC_SEED:-$((RANDOM * 32768 + RANDOM))}
RUN=$(uniq_name t80)
NCUST=4
TIGHT=3                     # customer 3 holds little money
SHARED_EVERY=16             # every 16th position: one key for all clients
REPEAT_EVERY=41             # every 41st position: the client repeats its previous request
note "seed $SEED ($CLIENTS clients x $PER_CLIENT requests); XB_CC_SEED=$SEED reproduces the plan"

W=$_API_TMP/cc
mkdir -p "$W"

# retries_logged: "transaction retried" lines in the fcgi and worker logs.
retries_logged() {
    local f n=0 c
    for f in "$XB_DEV_DIR/log/xborder-fcgi.log" "$XB_DEV_DIR/log/xborder-worker.log"; do
        [[ -r $f ]] || continue
        c=$(grep -c 'transaction retried' "$f" || true)
        n=$((n + c))
    done
    echo "$n"
}

# --- a fresh platform, four customers, twelve external accounts -----------------------------------
new_platform t80 || BAIL_OUT "platform-create failed"
pass "fresh platform created with xborderctl"
P=(--as "$NP_CLIENT_ID" "$NP_SECRET")
P_ID=$NP_CLIENT_ID P_SECRET=$NP_SECRET

CUST=() INT=() EXT_OK=() EXT_FAIL=() EXT_RET=() FUNDED=()
for ((c = 0; c < NCUST; c++)); do
    api "${P[@]}" POST /customers "{\"platformCustomerId\":\"$RUN-$c\",\"customerType\":\"INDIVIDUAL\",\"fullName\":\"Concurrent $c\"}"
    is_status 201 "customer $c: 201"
    CUST[c]=$(jr .id)
    api "${P[@]}" GET "/customers/internal-accounts?customerId=${CUST[c]}&currency=USD"
    INT[c]=$(jr '.data[0].id')
    like "${INT[c]}" '^InternalAccount:' "customer $c: its USD internal account"
    for kind in 001 002 005; do
        api "${P[@]}" POST /customers/external-accounts "{\"customerId\":\"${CUST[c]}\",\"currency\":\"USD\",\"platformAccountId\":\"$RUN-$c-$kind\",
            \"accountInfo\":{\"accountType\":\"CHECKING\",\"accountCategory\":\"PERSONAL\",\"bankName\":\"Bank $c\",
            \"accountNumber\":\"0000${c}0000$kind\",\"routingNumber\":\"021000021\"}}"
        is_status 201 "customer $c: external account ...$kind"
        case $kind in
            001) EXT_OK[c]=$(jr .id) ;;
            002) EXT_FAIL[c]=$(jr .id) ;;
            005) EXT_RET[c]=$(jr .id) ;;
        esac
    done
    if ((c == TIGHT)); then FUNDED[c]=20000; else FUNDED[c]=3000000; fi
    api "${P[@]}" POST "/sandbox/internal-accounts/${INT[c]}/fund" "{\"amountMinor\":${FUNDED[c]}}"
    is_status 200 "customer $c: funded with ${FUNDED[c]}"
done

# --- the plan ---------------------------------------------------------------------------------
# gen_request: a random transfer.  Sets R_KIND (in|out), R_CUST, R_EXT
# (ok|fail|ret), R_AMOUNT, R_PATH, R_BODY.
gen_request() {
    local r ext
    R_CUST=$((RANDOM % NCUST))
    if ((RANDOM % 100 < 45)); then R_KIND=in; else R_KIND=out; fi
    r=$((RANDOM % 100))
    if ((r < 70)); then R_EXT=ok; elif ((r < 85)); then R_EXT=fail; else R_EXT=ret; fi
    R_AMOUNT=$((1 + RANDOM % 5000))
    case $R_EXT in
        ok) ext=${EXT_OK[R_CUST]} ;;
        fail) ext=${EXT_FAIL[R_CUST]} ;;
        ret) ext=${EXT_RET[R_CUST]} ;;
    esac
    if [[ $R_KIND == in ]]; then
        R_PATH=/transfer-in
        R_BODY="{\"source\":{\"accountId\":\"$ext\"},\"destination\":{\"accountId\":\"${INT[R_CUST]}\"},\"amount\":{\"currencyCode\":\"USD\",\"amountMinor\":\"$R_AMOUNT\"}}"
    else
        R_PATH=/transfer-out
        R_BODY="{\"source\":{\"accountId\":\"${INT[R_CUST]}\"},\"destination\":{\"accountId\":\"$ext\"},\"amount\":{\"currencyCode\":\"USD\",\"amountMinor\":\"$R_AMOUNT\"}}"
    fi
}

RANDOM=$SEED
# The shared requests first: the same for every client.
declare -A SHARED=()
for ((i = 0; i < PER_CLIENT; i++)); do
    if ((i % SHARED_EVERY == SHARED_EVERY / 2)); then
        gen_request
        SHARED[$i]="$RUN-shared-$i"$'\t'"$R_KIND"$'\t'"$R_CUST"$'\t'"$R_EXT"$'\t'"$R_AMOUNT"$'\t'"$R_PATH"$'\t'"$R_BODY"
    fi
done
# META: SEQ CLIENT KEY KIND CUST EXT AMOUNT, one line a request.
: >"$W/meta"
repeats=0
for ((c = 0; c < CLIENTS; c++)); do
    : >"$W/plan.$c"
    prev=
    for ((i = 0; i < PER_CLIENT; i++)); do
        seq=$((c * 100000 + i))
        if [[ -n ${SHARED[$i]:-} ]]; then
            IFS=$'\t' read -r key kind cust ext amount path body <<<"${SHARED[$i]}"
        elif ((i % REPEAT_EVERY == REPEAT_EVERY - 1)) && [[ -n $prev ]]; then
            IFS=$'\t' read -r key kind cust ext amount path body <<<"$prev"
            repeats=$((repeats + 1))
        else
            gen_request
            key="$RUN-c$c-$i" kind=$R_KIND cust=$R_CUST ext=$R_EXT amount=$R_AMOUNT path=$R_PATH body=$R_BODY
        fi
        prev="$key"$'\t'"$kind"$'\t'"$cust"$'\t'"$ext"$'\t'"$amount"$'\t'"$path"$'\t'"$body"
        printf '%s\tPOST\t%s\t%s\t%s\n' "$seq" "$path" "$key" "$body" >>"$W/plan.$c"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$seq" "$c" "$key" "$kind" "$cust" "$ext" "$amount" >>"$W/meta"
    done
done
requests=$(wc -l <"$W/meta")
keys=$(cut -f3 "$W/meta" | sort -u | wc -l)
shared_keys=${#SHARED[@]}
note "plan: $requests requests, $keys idempotency keys ($shared_keys fired by all $CLIENTS clients at once, $repeats repeated later by one client)"

# --- the run ---------------------------------------------------------------------------------
# A watcher reads the four balances over and over while the clients run.
watch_balances() {
    _API_TMP=$W/watch
    mkdir -p "$_API_TMP"
    while [[ ! -e $W/stop ]]; do
        api --nocheck "${P[@]}" GET "/customers/internal-accounts?currency=USD&limit=100"
        if [[ $STATUS == 200 ]]; then
            jq -r '.data[] | "\(.id)\t\(.balance.amountMinor)"' <<<"$BODY" >>"$W/watched"
        fi
        sleep 0.05
    done
}
: >"$W/watched"
watch_balances &
watcher=$!

retries0=$(retries_logged)
t0=$(date +%s.%N)
pids=()
for ((c = 0; c < CLIENTS; c++)); do
    XB_CLIENT_ID=$P_ID XB_CLIENT_SECRET=$P_SECRET "$CLIENT" "$W/plan.$c" "$W/out.$c" 2>"$W/err.$c" &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
t1=$(date +%s.%N)
touch "$W/stop"
wait "$watcher"
seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
for ((c = 0; c < CLIENTS; c++)); do
    [[ -s $W/err.$c ]] && diag "client $c: $(<"$W/err.$c")"
done

cat "$W"/out.* >"$W/out"
is "$(wc -l <"$W/out")" "$requests" "every request of the plan got a result line"

# One JSON object per request: the plan's side and the answer.
jq -R -c 'split("\t") | {seq: .[0], status: (.[1] | tonumber), replayed: (.[2] == "true"),
                         body: (.[3] | try fromjson catch null)}' "$W/out" >"$W/out.json"
jq -R -c 'split("\t") | {seq: .[0], client: .[1], key: .[2], kind: .[3], cust: (.[4] | tonumber),
                         ext: .[5], amount: .[6]}' "$W/meta" >"$W/meta.json"
jq -s -c 'group_by(.seq) | map(add)' "$W/meta.json" "$W/out.json" >"$W/all.json"
all=$W/all.json

is "$(jq 'map(select(.status == 0 or .status >= 500)) | length' "$all")" 0 "no request went unanswered or got a 5xx"
jok 'all(.[]; .status == 201 or .status == 409)' "every answer is 201 or 409" "$(jq -c '[.[] | {status}]' "$all")"
bad=$(jq -c '[.[] | select(.status == 409 and ((.body.code // "") as $c
        | ($c != "IDEMPOTENCY_KEY_IN_USE" and ($c != "INSUFFICIENT_FUNDS" or .kind != "out"))))] | .[:3]' "$all")
is "$bad" '[]' "every 409 is INSUFFICIENT_FUNDS on a transfer-out or IDEMPOTENCY_KEY_IN_USE"
jok 'all(.[] | select(.status == 201); .body.transactionId | test("^Transaction:"))' "every 201 names a transaction" \
    "$(jq -c '[.[] | select(.status == 201) | {body: {transactionId: .body.transactionId}}]' "$all")"
jok 'all(.[] | select(.status == 201);
        (.body.type == (if .kind == "in" then "INCOMING" else "OUTGOING" end))
        and ((.body.receivedAmount // .body.sentAmount).amountMinor == .amount)
        and (.body.sentAmount // .body.receivedAmount).currencyCode == "USD")' \
    "every 201 is the transfer that was asked for (type, amount)" "$(jq -c '[.[] | select(.status == 201)]' "$all")"

# --- each idempotency key took effect once --------------------------------------------------------
jq -c 'group_by(.key) | map({key: .[0].key, n: length,
        originals: (map(select(.replayed | not) | select(.body.code != "IDEMPOTENCY_KEY_IN_USE")) | length),
        in_use: (map(select(.body.code == "IDEMPOTENCY_KEY_IN_USE")) | length),
        answers: (map(select(.body.code != "IDEMPOTENCY_KEY_IN_USE") | [.status, .body]) | unique | length),
        txs: (map(select(.status == 201) | .body.transactionId) | unique)})' "$all" >"$W/keys.json"
is "$(jq 'map(select(.originals != 1)) | length' "$W/keys.json")" 0 \
    "every key: exactly one original answer, every other one replayed or IDEMPOTENCY_KEY_IN_USE"
jq -c 'map(select(.originals != 1)) | .[:3][]' "$W/keys.json" | while read -r l; do diag "    $l"; done
is "$(jq 'map(select(.answers != 1)) | length' "$W/keys.json")" 0 "every key: every replay has the first status and body"
is "$(jq 'map(select((.txs | length) > 1)) | length' "$W/keys.json")" 0 "every key: at most one transaction"
is "$(jq '[.[] | select(.n > 1)] | length' "$W/keys.json")" "$((shared_keys + repeats))" \
    "keys sent more than once: the shared ones and the repeated ones"
replays=$(jq '[.[] | select(.replayed)] | length' "$all")
in_use=$(jq '[.[] | select(.body.code == "IDEMPOTENCY_KEY_IN_USE")] | length' "$all")
insufficient=$(jq '[.[] | select(.body.code == "INSUFFICIENT_FUNDS" and (.replayed | not))] | length' "$all")
# transaction id -> what was asked
jq -c '[.[] | select(.status == 201)] | group_by(.body.transactionId) | map(.[0] | {id: .body.transactionId, kind, cust, ext, amount})' \
    "$all" >"$W/created.json"
transfers=$(jq length "$W/created.json")
ok "$((transfers >= 2000))" "at least 2,000 transfers made ($transfers)"

# --- wait until everything settled ------------------------------------------------------------------
# walk_all: every transaction of the platform, through all pages, into $W/listed.json.
walk_all() {
    transactions_all "$W/listed.json" "${P[@]}"
}
ret_exts=$(printf '%s\n' "${EXT_RET[@]}" | jq -R . | jq -s -c .)
t2=$SECONDS
settled=0
while ((SECONDS - t2 < 120)); do
    api --nocheck "${P[@]}" GET '/transactions?status=PENDING&limit=1'
    pending=$(jr .totalCount)
    api --nocheck "${P[@]}" GET '/transactions?status=PROCESSING&limit=1'
    pending=$((pending + $(jr .totalCount)))
    if ((pending == 0)) && walk_all; then
        # A payout to a ...005 account is COMPLETED before it is returned.
        unreturned=$(jq --argjson r "$ret_exts" '[.[] | select(.type == "OUTGOING" and .status == "COMPLETED"
                      and (.destination.accountId as $d | $r | index($d)))] | length' "$W/listed.json")
        if ((unreturned == 0)); then settled=1; break; fi
    fi
    sleep 0.5
done
settle_secs=$((SECONDS - t2))
ok "$settled" "every transaction reached its final state (within ${settle_secs} s of the last request)"
retries=$(($(retries_logged) - retries0))

# --- what the API lists --------------------------------------------------------------------------
listed=$W/listed.json
is "$(jq length "$listed")" "$transfers" "the platform lists exactly as many transactions as were made"
is "$(jq -r '[.[].transactionId] | sort | join(" ")' "$listed")" \
    "$(jq -r '[.[].id] | sort | join(" ")' "$W/created.json")" "the listed transactions are exactly those the answers named"
jok 'all(.[]; .status == "COMPLETED" or .status == "FAILED" or .status == "REFUNDED")' \
    "every transaction is COMPLETED, FAILED or REFUNDED" "$(jq -c '[.[] | {status}]' "$listed")"
custs=$(printf '%s\n' "${CUST[@]}" | jq -R . | jq -s -c .)
wrong=$(jq -c --slurpfile made "$W/created.json" --argjson custs "$custs" '
    ($made[0] | map({key: .id, value: .}) | from_entries) as $m
    | [.[] | . as $t | $m[$t.transactionId] as $w
       | (if $w.kind == "in" then (if $w.ext == "fail" then "FAILED" else "COMPLETED" end)
          else {"ok": "COMPLETED", "fail": "FAILED", "ret": "REFUNDED"}[$w.ext] end) as $want
       | select($t.status != $want
                or $t.customerId != $custs[$w.cust]
                or ((.receivedAmount // .sentAmount).amountMinor != $w.amount)
                or (($t.status == "FAILED") != ($t.settledAt == null)))
       | {id: $t.transactionId, status: $t.status, want: $want, settledAt: $t.settledAt}] | .[:5]' "$listed")
is "$wrong" '[]' "every transaction settled as its account number says, for its customer and amount, settledAt set unless FAILED"

# --- balances -------------------------------------------------------------------------------------
api "${P[@]}" GET "/customers/internal-accounts?currency=USD&limit=100"
is_status 200 "GET the internal accounts"
accounts=$BODY
for ((c = 0; c < NCUST; c++)); do
    bal=$(jq -r --arg a "${INT[c]}" '.data[] | select(.id == $a) | .balance.amountMinor' <<<"$accounts")
    sums=$(jq -r --arg cu "${CUST[c]}" '[.[] | select(.customerId == $cu and .status == "COMPLETED")]
        | "\(map(select(.type == "INCOMING") | .receivedAmount.amountMinor | tonumber) | add // 0) \(map(select(.type == "OUTGOING") | .sentAmount.amountMinor | tonumber) | add // 0)"' "$listed")
    read -r in_sum out_sum <<<"$sums"
    like "$bal" '^[0-9]+$' "customer $c: balance $bal is not negative"
    is "$bal" "$((FUNDED[c] + in_sum - out_sum))" \
        "customer $c: balance = funded ${FUNDED[c]} + completed in $in_sum - completed out $out_sum"
done
watched=$(wc -l <"$W/watched")
negatives=$(awk -F'\t' '$2 !~ /^[0-9]+$/' "$W/watched" | head -3)
is "$negatives" "" "no balance read during the run ($watched reads) was negative"

out=$(xbctl ledger-check 2>&1)
is "$?" 0 "xborderctl ledger-check exits 0"
like "$out" 'ledger ok' "xborderctl ledger-check: ledger ok"

diag "concurrency: $transfers transfers from $requests requests by $CLIENTS clients in $seconds s" \
    "($(awk -v n="$requests" -v s="$seconds" 'BEGIN { printf "%.0f", n / s }') requests/s);" \
    "$retries transaction retries logged; $replays replayed, $in_use IDEMPOTENCY_KEY_IN_USE," \
    "$insufficient INSUFFICIENT_FUNDS; settled ${settle_secs} s after the last request"

done_testing
