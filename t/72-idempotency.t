#!/usr/bin/env bash
# 72-idempotency.t - the Idempotency-Key header on POST: the first answer
# replayed (same status and body, Idempotent-Replayed: true) with no second
# effect on balances or transactions, 409 IDEMPOTENCY_KEY_REUSED for another
# body or path, 4xx answers kept, the key's own validation, keys scoped to
# the platform, the same key fired in parallel (one effect; the others
# replayed or 409 IDEMPOTENCY_KEY_IN_USE), and other POST operations.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
no_plan

RUN=$(uniq_name t72)

# --- helpers ------------------------------------------------------------------------

# tx_count CUSTOMER [api options]: sets TXN to the customer's number of
# transactions (uncounted; keeps STATUS, BODY, HEADERS).
tx_count() {
    local cust=$1
    shift
    local save_s=$STATUS save_b=$BODY save_h=$HEADERS
    api --nocheck "$@" GET "/transactions?customerId=$cust&limit=1"
    TXN=$(jr .totalCount)
    STATUS=$save_s BODY=$save_b HEADERS=$save_h
}

# first_ok WHAT: the last answer is an original, not a replay (1 test).
first_ok() {
    isnt "$(header Idempotent-Replayed)" true "$1: not marked Idempotent-Replayed"
}

# replay_of WHAT STATUS BODY: the last answer replays STATUS and BODY (3 tests).
replay_of() {
    is "$STATUS" "$2" "$1: the first status replayed ($2)"
    jis . "$3" "$1: the first body replayed"
    is_header Idempotent-Replayed true "$1: Idempotent-Replayed: true"
}

mk_customer t72-k
K=$CUST
int_account "$K" USD
K_INT=$INT
mk_ext "$K" 000121212001
K_OK=$EXT
mk_ext "$K" 000121212002
K_FAIL=$EXT
fund "$K_INT" 100000

# --- transfer-out: replayed, one effect ------------------------------------------------
key="$RUN-out-1"
body=$(xfer_body "$K_INT" "$K_OK" 500)
tx_count "$K"
n0=$TXN
api POST /transfer-out "$body" -H "Idempotency-Key: $key"
is_status 201 "transfer-out with a new key: 201"
first_ok "transfer-out with a new key"
out1=$BODY
tout=$(jr .transactionId)
balance_of "$K_INT"
is "$BAL" 99500 "transfer-out with a key: 500 left the balance"
for i in 1 2; do
    api POST /transfer-out "$body" -H "Idempotency-Key: $key"
    replay_of "transfer-out, same key and body (#$i)" 201 "$out1"
done
balance_of "$K_INT"
is "$BAL" 99500 "replays moved nothing more"
tx_count "$K"
is "$TXN" $((n0 + 1)) "replays made no transaction: one more in all"

settles "$tout" COMPLETED "the keyed transfer-out completes"
api POST /transfer-out "$body" -H "Idempotency-Key: $key"
replay_of "after settlement: the first answer (PENDING) replayed" 201 "$out1"
jis .status '"PENDING"' "after settlement: the replay still says PENDING, as the first answer did"

api POST /transfer-out "$(xfer_body "$K_INT" "$K_OK" 501)" -H "Idempotency-Key: $key"
is_error 409 IDEMPOTENCY_KEY_REUSED "same key, another amount"
api POST /transfer-out "$(xfer_body "$K_INT" "$K_FAIL" 500)" -H "Idempotency-Key: $key"
is_error 409 IDEMPOTENCY_KEY_REUSED "same key, another destination"
api POST /transfer-in "$body" -H "Idempotency-Key: $key"
is_error 409 IDEMPOTENCY_KEY_REUSED "same key and body, another path"
api POST /transfer-in "$(xfer_body "$K_OK" "$K_INT" 500)" -H "Idempotency-Key: $key"
is_error 409 IDEMPOTENCY_KEY_REUSED "same key, another path and body"
api POST /customers '{"platformCustomerId":"x","customerType":"INDIVIDUAL","fullName":"x"}' -H "Idempotency-Key: $key"
is_error 409 IDEMPOTENCY_KEY_REUSED "same key on POST /customers"
balance_of "$K_INT"
is "$BAL" 99500 "refused reuses moved nothing"
tx_count "$K"
is "$TXN" $((n0 + 1)) "refused reuses made no transaction"
api POST /transfer-out "$body" -H "idempotency-key: $key"
replay_of "header name in lower case: the same key" 201 "$out1"
api POST /transfer-out "$body" -H "Idempotency-Key: ${key^^}"
is_status 201 "the key in upper case is another key: 201"
first_ok "the key in upper case"
isnt "$(jr .transactionId)" "$tout" "the key in upper case: another transaction"

# Without a key, the same body makes a new transfer every time.
api POST /transfer-out "$body"
is_status 201 "no key: 201"
t_a=$(jr .transactionId)
api POST /transfer-out "$body"
is_status 201 "no key again: 201"
first_ok "no key again"
isnt "$(jr .transactionId)" "$t_a" "no key: two transfers"
balance_of "$K_INT"
is "$BAL" 98000 "three unreplayed transfer-outs of 500 after the first"

# --- transfer-in: credited once ----------------------------------------------------------
key="$RUN-in-1"
body=$(xfer_body "$K_OK" "$K_INT" 7000)
balance_of "$K_INT"
b0=$BAL
api POST /transfer-in "$body" -H "Idempotency-Key: $key"
is_status 201 "transfer-in with a new key: 201"
first_ok "transfer-in with a new key"
in1=$BODY
tin=$(jr .transactionId)
api POST /transfer-in "$body" -H "Idempotency-Key: $key"
replay_of "transfer-in, same key and body" 201 "$in1"
settles "$tin" COMPLETED "the keyed transfer-in completes"
api POST /transfer-in "$body" -H "Idempotency-Key: $key"
replay_of "transfer-in replayed after settlement" 201 "$in1"
sleep 1.2
balance_of "$K_INT"
is "$BAL" $((b0 + 7000)) "transfer-in credited exactly once"
api GET "/transactions?customerId=$K&type=INCOMING&limit=100"
jis '[.data[] | select(.receivedAmount.amountMinor == "7000")] | length' 1 "one incoming transaction of 7000"

# A failed transfer's first answer (201) is what is replayed.
key="$RUN-in-fail"
body=$(xfer_body "$K_FAIL" "$K_INT" 333)
api POST /transfer-in "$body" -H "Idempotency-Key: $key"
is_status 201 "transfer-in from ...002 with a key: 201"
f1=$BODY
settles "$(jr .transactionId)" FAILED "keyed transfer-in from ...002 fails"
api POST /transfer-in "$body" -H "Idempotency-Key: $key"
replay_of "failed transfer-in, same key" 201 "$f1"

# --- 4xx answers are kept ----------------------------------------------------------------
mk_customer t72-e
E=$CUST
int_account "$E" USD
E_INT=$INT
mk_ext "$E" 000343434001
E_OK=$EXT
key="$RUN-insufficient"
body=$(xfer_body "$E_INT" "$E_OK" 2500)
api POST /transfer-out "$body" -H "Idempotency-Key: $key"
is_error 409 INSUFFICIENT_FUNDS "empty account, keyed transfer-out"
first_ok "INSUFFICIENT_FUNDS"
ins1=$BODY
fund "$E_INT" 10000
api POST /transfer-out "$body" -H "Idempotency-Key: $key"
replay_of "funded since: the INSUFFICIENT_FUNDS answer replayed" 409 "$ins1"
jis .details.available "$(money USD 0)" "the replay still says available 0"
balance_of "$E_INT"
is "$BAL" 10000 "the replay moved nothing"
tx_count "$E"
is "$TXN" 0 "the replay made no transaction"
api POST /transfer-out "$body" -H "Idempotency-Key: $key-2"
is_status 201 "a new key: the transfer-out goes through"

key="$RUN-notfound"
body=$(xfer_body "$E_INT" "ExternalAccount:$(uuid4)" 100)
api POST /transfer-out "$body" -H "Idempotency-Key: $key"
is_error 404 NOT_FOUND "unknown external account, keyed"
nf1=$BODY
api POST /transfer-out "$body" -H "Idempotency-Key: $key"
replay_of "404 NOT_FOUND replayed" 404 "$nf1"

key="$RUN-invalid"
body="{\"source\":{\"accountId\":\"$E_INT\"},\"destination\":{\"accountId\":\"$E_OK\"},\"amount\":{\"currencyCode\":\"USD\",\"amountMinor\":\"0\"}}"
api POST /transfer-out "$body" -H "Idempotency-Key: $key"
is_error 400 INVALID_REQUEST "amount 0, keyed"
inv1=$BODY
api POST /transfer-out "$body" -H "Idempotency-Key: $key"
replay_of "400 INVALID_REQUEST replayed" 400 "$inv1"
api POST /transfer-out "$(xfer_body "$E_INT" "$E_OK" 100)" -H "Idempotency-Key: $key"
is_error 409 IDEMPOTENCY_KEY_REUSED "the key of a 400 with a corrected body: REUSED"

# --- the key's own form -----------------------------------------------------------------------
body=$(xfer_body "$E_INT" "$E_OK" 1)
bad_key() {
    tx_count "$E"
    local n=$TXN
    api POST /transfer-out "$body" -H "$1"
    is_error 400 INVALID_REQUEST "Idempotency-Key $2"
    has_details Idempotency-Key "Idempotency-Key $2: details names Idempotency-Key"
    tx_count "$E"
    is "$TXN" "$n" "Idempotency-Key $2: no transaction"
}
bad_key 'Idempotency-Key;' "empty"
bad_key "Idempotency-Key: $(printf 'k%.0s' {1..256})" "of 256 characters"
bad_key "Idempotency-Key: caf$(printf '\xc3\xa9')" "with a non-ASCII character"
bad_key "Idempotency-Key: a$(printf '\x01')b" "with a control character"
bad_key "Idempotency-Key: a$(printf '\x7f')b" "with DEL"
api POST /transfer-in "$(xfer_body "$E_OK" "$E_INT" 1)" -H "Idempotency-Key: $(printf 'k%.0s' {1..256})"
is_error 400 INVALID_REQUEST "transfer-in with an Idempotency-Key of 256 characters"
has_details Idempotency-Key "transfer-in, key of 256: details names Idempotency-Key"
k255="$RUN-$(printf 'k%.0s' {1..255})"
k255=${k255:0:255}
api POST /transfer-out "$body" -H "Idempotency-Key: $k255"
is_status 201 "Idempotency-Key of 255 characters: 201"
k255_body=$BODY
api POST /transfer-out "$body" -H "Idempotency-Key: $k255"
replay_of "Idempotency-Key of 255 characters" 201 "$k255_body"
kp="$RUN ~!@#\$%^&*()_+{}|:<>?[]\\;',./\`"
api POST /transfer-out "$body" -H "Idempotency-Key: $kp"
is_status 201 "Idempotency-Key with spaces and punctuation: 201"
kp_body=$BODY
api POST /transfer-out "$body" -H "Idempotency-Key: $kp"
replay_of "Idempotency-Key with spaces and punctuation" 201 "$kp_body"

# --- view-only: 403 whatever the key -------------------------------------------------------
create_token "$(uniq_name t72-view)" '["view"]'
v=(--as "$TOK_CLIENT_ID" "$TOK_SECRET")
v_tok=$TOK_ID
at_exit "use_root; api --nocheck DELETE /tokens/$v_tok"
api "${v[@]}" POST /transfer-out "$body" -H "Idempotency-Key: $RUN-view"
is_error 403 FORBIDDEN "view-only token with a key: 403"
api POST /transfer-out "$body" -H "Idempotency-Key: $RUN-view"
is_status 201 "the same key with manage access afterwards: 201 (the 403 was not kept)"
first_ok "the key after a 403"

# --- keys are per platform ---------------------------------------------------------------
if new_platform t72; then
    pass "second platform created with xborderctl"
    q=(--as "$NP_CLIENT_ID" "$NP_SECRET")
    mk_customer t72-q "${q[@]}"
    Qc=$CUST
    int_account "$Qc" USD "${q[@]}"
    Q_INT=$INT
    mk_ext "$Qc" 000565656001 USD "${q[@]}"
    Q_OK=$EXT
    fund "$Q_INT" 5000 "${q[@]}"
    key="$RUN-out-1"   # used on the main platform above
    api "${q[@]}" POST /transfer-out "$(xfer_body "$Q_INT" "$Q_OK" 500)" -H "Idempotency-Key: $key"
    is_status 201 "second platform, a key the first platform used: 201"
    first_ok "second platform, a key the first platform used"
    q1=$BODY
    api "${q[@]}" POST /transfer-out "$(xfer_body "$Q_INT" "$Q_OK" 500)" -H "Idempotency-Key: $key"
    replay_of "second platform: its own replay" 201 "$q1"
    # The main platform's request replayed there is unknown: 404, no leak.
    api "${q[@]}" POST /transfer-out "$(xfer_body "$K_INT" "$K_OK" 500)" -H "Idempotency-Key: $RUN-in-1"
    is_status 404 "second platform: the main platform's request under its key: 404, not the main platform's answer"
    api POST /transfer-out "$(xfer_body "$K_INT" "$K_OK" 500)" -H "Idempotency-Key: $RUN-out-1"
    replay_of "main platform: its key still replays its own answer" 201 "$out1"
else
    fail "second platform created with xborderctl"
fi

# --- other POST operations ----------------------------------------------------------------
key="$RUN-cust"
pcid=$(uniq_name t72-c)
cbody="{\"platformCustomerId\":\"$pcid\",\"customerType\":\"INDIVIDUAL\",\"fullName\":\"Keyed\"}"
api POST /customers "$cbody" -H "Idempotency-Key: $key"
is_status 201 "POST /customers with a key: 201"
c1=$BODY
api POST /customers "$cbody" -H "Idempotency-Key: $key"
replay_of "POST /customers replayed (not 409 CUSTOMER_ALREADY_EXISTS)" 201 "$c1"
api GET "/customers?platformCustomerId=$pcid"
jis .totalCount 1 "POST /customers replayed: one customer"
C2=$(jr .id "$c1")
int_account "$C2" USD
C2_INT=$INT

key="$RUN-fund"
api POST "/sandbox/internal-accounts/$C2_INT/fund" '{"amountMinor":1234}' -H "Idempotency-Key: $key"
is_status 200 "fund with a key: 200"
fund1=$BODY
api POST "/sandbox/internal-accounts/$C2_INT/fund" '{"amountMinor":1234}' -H "Idempotency-Key: $key"
replay_of "fund replayed" 200 "$fund1"
balance_of "$C2_INT"
is "$BAL" 1234 "fund replayed: funded once"
api POST "/sandbox/internal-accounts/$C2_INT/fund" '{"amountMinor":1235}' -H "Idempotency-Key: $key"
is_error 409 IDEMPOTENCY_KEY_REUSED "fund, same key, another amount"
balance_of "$C2_INT"
is "$BAL" 1234 "fund with a reused key: nothing more"

key="$RUN-ext"
ebody="{\"customerId\":\"$C2\",\"currency\":\"USD\",\"platformAccountId\":\"pa-$RUN\",\"accountInfo\":{\"accountType\":\"SAVINGS\",\"accountCategory\":\"PERSONAL\",\"bankName\":\"B\",\"accountNumber\":\"000787878001\",\"routingNumber\":\"021000021\"}}"
api POST /customers/external-accounts "$ebody" -H "Idempotency-Key: $key"
is_status 201 "POST /customers/external-accounts with a key: 201"
e1=$BODY
api POST /customers/external-accounts "$ebody" -H "Idempotency-Key: $key"
replay_of "external account replayed (not 409 EXTERNAL_ACCOUNT_EXISTS)" 201 "$e1"
api GET "/customers/external-accounts?customerId=$C2"
jis .totalCount 1 "external account replayed: one account"

# --- the same key fired in parallel ---------------------------------------------------------
# Each call runs in its own subshell with its own scratch directory; the
# results come back through files.
C2_EXT=$(jr .id "$e1")
par_dir=$_API_TMP/par
mkdir -p "$par_dir"
for round in 1 2 3; do
    key="$RUN-par-$round"
    body=$(xfer_body "$C2_INT" "$C2_EXT" $((10 + round)))
    tx_count "$C2"
    n0=$TXN
    balance_of "$C2_INT"
    b0=$BAL
    rm -f "$par_dir"/r.*
    for i in 1 2 3 4 5 6; do
        (
            _API_TMP=$par_dir/tmp.$i
            mkdir -p "$_API_TMP"
            api --nocheck POST /transfer-out "$body" -H "Idempotency-Key: $key"
            printf '%s\t%s\t%s\n' "$STATUS" "$(header Idempotent-Replayed)" "$BODY" >"$par_dir/r.$i"
        ) &
    done
    wait
    res=$(cat "$par_dir"/r.*)
    originals=$(awk -F'\t' '$1 == 201 && $2 != "true"' <<<"$res" | wc -l)
    replays=$(awk -F'\t' '$1 == 201 && $2 == "true"' <<<"$res" | wc -l)
    in_use=$(awk -F'\t' '$1 == 409 && $3 ~ /"code":"IDEMPOTENCY_KEY_IN_USE"/' <<<"$res" | wc -l)
    note "parallel round $round: $originals original, $replays replayed, $in_use IDEMPOTENCY_KEY_IN_USE"
    is "$originals" 1 "parallel round $round: exactly one original 201"
    is $((originals + replays + in_use)) 6 "parallel round $round: the others replayed or IDEMPOTENCY_KEY_IN_USE"
    is "$(awk -F'\t' '$1 == 201 {print $3}' <<<"$res" | jq -r .transactionId | sort -u | wc -l)" 1 \
        "parallel round $round: every 201 names the same transaction"
    tx_count "$C2"
    is "$TXN" $((n0 + 1)) "parallel round $round: one transaction made"
    balance_of "$C2_INT"
    is "$BAL" $((b0 - 10 - round)) "parallel round $round: the amount left once"
    api POST /transfer-out "$body" -H "Idempotency-Key: $key"
    is "$STATUS $(header Idempotent-Replayed)" "201 true" "parallel round $round: a later call is replayed"
done

# --- POST /tokens: the clientSecret is never kept --------------------------------
# The first answer carries the secret; a replay carries the same token
# without it (Secret-Omitted: clientSecret), and no table holds it.
key="$RUN-token"
tbody="{\"name\":\"$RUN-keyed\",\"permissions\":[\"view\"]}"
api POST /tokens "$tbody" -H "Idempotency-Key: $key"
is_status 201 "POST /tokens with a key: 201"
first_ok "POST /tokens with a key"
tok_first=$BODY
tok_secret=$(jr .clientSecret)
tok_client=$(jr .clientId)
like "$tok_secret" '^[A-Za-z0-9_-]{43}$' "POST /tokens with a key: the clientSecret, once"
api POST /tokens "$tbody" -H "Idempotency-Key: $key"
is_status 201 "POST /tokens replayed: 201"
is_header Idempotent-Replayed true "POST /tokens replayed: Idempotent-Replayed: true"
is_header Secret-Omitted clientSecret "POST /tokens replayed: Secret-Omitted: clientSecret"
jis 'has("clientSecret")' false "POST /tokens replayed: no clientSecret in the body"
jis . "$(jq -c 'del(.clientSecret)' <<<"$tok_first")" "POST /tokens replayed: otherwise the first body"
api --as "$tok_client" "$tok_secret" GET /config
is_status 200 "the secret of the keyed token works"
api GET "/tokens?limit=100"
is "$(jq --arg c "$tok_client" '[.data[] | select(.clientId == $c)] | length' <<<"$BODY")" 1 \
    "the replay made no second token"
dump=$(mariadb-dump --no-defaults --socket="$XB_DEV_DIR/run/mysqld.sock" --user="$(id -un)" \
    --skip-extended-insert xborder 2>&1)
ok "$(grep -c "INSERT INTO \`idempotency_keys\`.*$key" <<<"$dump")" \
    "the database dump has the token request's idempotency record"
ok "$(grep -c "INSERT INTO \`tokens\`.*$tok_client" <<<"$dump")" "the database dump has the token"
is "$(grep -cF -- "$tok_secret" <<<"$dump")" 0 "no table of the database holds the clientSecret"
use_root
api --nocheck DELETE "/tokens/Token:$tok_client"

out=$(xbctl ledger-check 2>&1)
is "$?" 0 "xborderctl ledger-check exits 0"
like "$out" 'ledger ok' "xborderctl ledger-check: ledger ok"

done_testing
