#!/usr/bin/env bash
# 88-cluster.t - the service on a three-node MariaDB Galera cluster, under
# load, through the loss of a node.  Runs only with XB_CLUSTER=1, against
# the cluster of `scripts/dev cluster up` (XB_ENV=.dev-cluster/env) or the
# one `scripts/dev check --cluster` makes; otherwise it skips at once.
#
# 8 clients (t/lib/cluster-client.mjs, one keep-alive connection each)
# send transfers through nginx, which spreads them over the two
# xborder-fcgi pools (pool 1 on node 1, pool 2 on node 2), for a bounded
# time.  In the middle, node 2 gets SIGKILL: pool 2 answers 503 (its node is
# gone) and the clients repeat those requests with their Idempotency-Key
# until they are decided; after a few seconds node 2 is started again and
# rejoins by IST.  A ninth client sends transfers of a second platform,
# whose webhooks go to t/lib/webhook-receiver.mjs.
#
# Then: every request was decided, each key took effect once and every 201
# names a transaction the platform lists exactly once; every transaction
# settled as its account number says, once (the ledger's settlement
# entries count one per transaction, the balances are what the API's
# transactions say); the three nodes hold the same ledger, balances,
# transactions, jobs and webhook events (checksums over whole tables) and
# xborderctl ledger-check passes on each; node 2 is back (cluster size 3,
# Synced, by IST); xborder-worker on nodes 2 and 3 both ran settlement jobs
# and delivered webhooks, no job was done twice, and every event was
# delivered as many times as its attempts say (plus, at most once more,
# the deliveries in flight on node 2's worker when its node died).
#
# Prints (diag) the throughput before, during and after the loss of the
# node, and the longest time a client waited for a decision.
#
# Environment: XB_CLUSTER=1 to run; XB_CL_CLIENTS (8), XB_CL_BEFORE (20 s
# of load before the kill), XB_CL_DOWN (8 s with node 2 dead),
# XB_CL_AFTER (20 s after it is back), XB_CL_SEED.
if [[ ${XB_CLUSTER:-0} != 1 ]]; then
    printf '1..0 # SKIP the Galera cluster suite runs with XB_CLUSTER=1 (scripts/dev check --cluster)\n'
    exit 0
fi
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/webhooks.sh"
no_plan

[[ -n ${XB_CLUSTER_DIR:-} && -n ${XB_NODE1_SOCK:-} ]] ||
    BAIL_OUT "$XB_ENV is not a cluster's env file (scripts/dev cluster up)"

CLIENT=$(dirname "${BASH_SOURCE[0]}")/lib/cluster-client.mjs
CLIENTS=${XB_CL_CLIENTS:-8}
BEFORE=${XB_CL_BEFORE:-20}
DOWN=${XB_CL_DOWN:-8}
AFTER=${XB_CL_AFTER:-20}
SEED=${XB_CL_SEED:-$((RANDOM * 32768 + RANDOM))}
KILL=2                      # the node that dies: pool 2 and worker 2 use it
RUN=$(uniq_name t88)
NCUST=4
note "seed $SEED; $CLIENTS clients; ${BEFORE}s, node $KILL dead ${DOWN}s, ${AFTER}s after it is back"

W=$_API_TMP/cl
mkdir -p "$W"

# The sandbox console, served by the cluster's nginx as by the others.
api --noauth --nocheck GET /console/
is "$STATUS" 200 "GET /console/ through the cluster's nginx: 200"
like "$(header Content-Security-Policy)" "default-src 'self'; frame-ancestors 'none'" "... with its Content-Security-Policy"
api --noauth --nocheck GET /console
is "$STATUS" 301 "GET /console: 301"
is "$(header Location)" /console/ "... to /console/"

# node_sql N ARGS...: the mariadb client as root on node N (causal reads).
node_sql() {
    local n=$1 v
    shift
    v=XB_NODE${n}_SOCK
    mariadb --no-defaults --socket="${!v}" --user=root --connect-timeout=5 -N -B \
        --init-command='SET SESSION wsrep_sync_wait = 1' xborder "$@"
}

# node_status N VAR: a global status value of node N.
node_status() {
    node_sql "$1" -e "SHOW GLOBAL STATUS LIKE '$2'" 2>/dev/null | awk '{print $2}'
}

# cluster ARGS...: scripts/dev cluster, output into $W/dev.log.
cluster() {
    echo "== scripts/dev cluster $*" >>"$W/dev.log"
    "$XB_ROOT/scripts/dev" cluster "$@" >>"$W/dev.log" 2>&1
}

now_ms() { date +%s%3N; }

for n in 1 2 3; do
    is "$(node_status "$n" wsrep_cluster_size) $(node_status "$n" wsrep_local_state_comment)" "3 Synced" \
        "node $n: in a cluster of 3, Synced"
done
# What Galera needs of the schema: InnoDB everywhere, a primary key on
# every table (row-based write sets name rows by it).
is "$(node_sql 1 -e "SELECT GROUP_CONCAT(t.table_name) FROM information_schema.tables t
        WHERE t.table_schema = 'xborder' AND (t.engine <> 'InnoDB' OR NOT EXISTS (
          SELECT 1 FROM information_schema.table_constraints c WHERE c.table_schema = t.table_schema
          AND c.table_name = t.table_name AND c.constraint_type = 'PRIMARY KEY'))")" NULL \
    "every table is InnoDB with a primary key"
is "$(node_sql 1 -e "SELECT COUNT(*) FROM schema_migrations")" "$(find "$XB_ROOT/schema" -name '[0-9]*.sql' | wc -l)" \
    "the migrations were applied (once, through node 1)"
# auto_increment steps are the cluster's (wsrep_auto_increment_control):
# each node hands out its own residue, so ids interleave and have gaps.
offsets=$(for n in 1 2 3; do node_sql "$n" -e 'SELECT CONCAT(@@auto_increment_increment, "/", @@auto_increment_offset)'; done | sort | tr '\n' ' ')
is "$offsets" "3/1 3/2 3/3 " "auto_increment_increment 3 on every node, a different offset each"

# --- two platforms: the load on one, the webhooks of the other -----------------------------------
# mk_platform VAR PREFIX: a platform with NCUST funded customers, each with
# external accounts ...001, ...002 and ...005; writes the client plan
# $W/VAR.plan and sets VAR_ID, VAR_CID, VAR_SECRET, VAR_INT[], VAR_CUST[],
# VAR_FUNDED[].
mk_platform() {
    local var=$1 prefix=$2 c kind cid secret json='[]' ext_ok ext_fail ext_ret int funded
    new_platform "$prefix" || BAIL_OUT "platform-create failed"
    cid=$NP_CLIENT_ID secret=$NP_SECRET
    local -a P=(--as "$cid" "$secret")
    for ((c = 0; c < NCUST; c++)); do
        api "${P[@]}" POST /customers "{\"platformCustomerId\":\"$RUN-$var-$c\",\"customerType\":\"INDIVIDUAL\",\"fullName\":\"Cluster $c\"}"
        [[ $STATUS == 201 ]] || BAIL_OUT "POST /customers: $STATUS $BODY"
        eval "${var}_CUST[c]=\$(jr .id)"
        api "${P[@]}" GET "/customers/internal-accounts?customerId=$(jr .id)&currency=USD"
        int=$(jr '.data[0].id')
        for kind in 001 002 005; do
            api "${P[@]}" POST /customers/external-accounts "{\"customerId\":\"$(eval "echo \${${var}_CUST[c]}")\",\"currency\":\"USD\",\"platformAccountId\":\"$RUN-$var-$c-$kind\",
                \"accountInfo\":{\"accountType\":\"CHECKING\",\"accountCategory\":\"PERSONAL\",\"bankName\":\"Bank $c\",
                \"accountNumber\":\"0000${c}0000$kind\",\"routingNumber\":\"021000021\"}}"
            [[ $STATUS == 201 ]] || BAIL_OUT "POST /customers/external-accounts: $STATUS $BODY"
            case $kind in
                001) ext_ok=$(jr .id) ;;
                002) ext_fail=$(jr .id) ;;
                005) ext_ret=$(jr .id) ;;
            esac
        done
        funded=$((c == NCUST - 1 ? 20000 : 5000000))
        api "${P[@]}" POST "/sandbox/internal-accounts/$int/fund" "{\"amountMinor\":$funded}"
        [[ $STATUS == 200 ]] || BAIL_OUT "fund: $STATUS $BODY"
        eval "${var}_INT[c]=\$int ${var}_FUNDED[c]=\$funded"
        json=$(jq -c --arg i "$int" --arg o "$ext_ok" --arg f "$ext_fail" --arg r "$ext_ret" \
            '. + [{int: $i, ok: $o, fail: $f, ret: $r}]' <<<"$json")
    done
    eval "${var}_ID=\$NP_ID ${var}_CID=\$cid ${var}_SECRET=\$secret"
    jq -n --arg b "$XB_BASE_URL" --arg i "$cid" --arg s "$secret" --arg r "$RUN-$var" \
        --argjson c "$json" '{base: $b, id: $i, secret: $s, run: $r, customers: $c}' >"$W/$var.plan"
    pass "$var: platform with $NCUST funded customers (the last one with little money)"
}
mk_platform L t88load
mk_platform H t88hooks

wh_start
api --as "$H_CID" "$H_SECRET" PATCH /config "{\"webhookEndpoint\":\"$WH_URL/hooks\"}"
is "$STATUS" 200 "H: its webhooks go to the receiver"

# --- the run ----------------------------------------------------------------------------------------
cat_pids=()
t_start=$(now_ms)
for ((c = 0; c < CLIENTS; c++)); do
    node "$CLIENT" --plan "$W/L.plan" --client "$c" --out "$W/out.$c" --stop "$W/stop" \
        --seed "$SEED" --max-seconds 600 2>"$W/err.$c" &
    cat_pids+=($!)
done
node "$CLIENT" --plan "$W/H.plan" --client 99 --out "$W/out.h" --stop "$W/stop" \
    --seed "$SEED" --max-seconds 600 --pause-ms 150 2>"$W/err.h" &
cat_pids+=($!)

sleep "$BEFORE"
t_kill=$(now_ms)
cluster kill "$KILL"
rc=$?
ok "$((rc == 0))" "node $KILL killed (SIGKILL)" || diag "$(tail -n 5 "$W/dev.log")"
ok "$(! node_sql "$KILL" -e 'SELECT 1' >/dev/null 2>&1 && echo 1 || echo 0)" "node $KILL is gone"
sleep "$DOWN"
t_restart=$(now_ms)
cluster start "$KILL"
rc=$?
ok "$((rc == 0))" "node $KILL started again, Synced" || diag "$(tail -n 20 "$W/dev.log")"
t_back=$(now_ms)
sleep "$AFTER"
touch "$W/stop"
for p in "${cat_pids[@]}"; do wait "$p"; done
t_stop=$(now_ms)
for f in "$W"/err.*; do
    [[ -s $f ]] && diag "${f##*/}: $(head -c 500 "$f")"
done

# The clients' records stay with the cluster's logs, for a look afterwards.
mkdir -p "$XB_DEV_DIR/log/t88"
cp "$W"/out.* "$XB_DEV_DIR/log/t88/" 2>/dev/null
printf 't_start=%s t_kill=%s t_restart=%s t_back=%s t_stop=%s\n' "$t_start" "$t_kill" "$t_restart" \
    "$t_back" "$t_stop" >"$XB_DEV_DIR/log/t88/times"
cat "$W"/out.[0-9]* >"$W/attempts.jsonl"
jq -s -c . "$W/attempts.jsonl" >"$W/attempts.json"
jq -c '[.[] | select(.final)]' "$W/attempts.json" >"$W/final.json"
requests=$(jq length "$W/final.json")
ok "$((requests >= 200))" "the clients made $requests requests"

# --- what the clients saw ------------------------------------------------------------------------------
is "$(jq '[.[] | select(.status == 0 or .status >= 500 or .code == "IDEMPOTENCY_KEY_IN_USE")] | length' "$W/final.json")" 0 \
    "every request was decided (none left with no answer, a 5xx or IDEMPOTENCY_KEY_IN_USE)"
bad=$(jq -c '[.[] | select(.status != 201 and (.status != 409 or .code != "INSUFFICIENT_FUNDS" or .kind != "out"))] | .[:3]' "$W/final.json")
is "$bad" '[]' "every decision is 201, or INSUFFICIENT_FUNDS on a transfer-out"
n500=$(jq '[.[] | select(.status == 500)] | length' "$W/attempts.json")
is "$n500" 0 "no attempt was answered 500"
bad=$(jq -c '[.[] | select(.status != 201 and .status != 409 and .status != 503 and .status != 502 and .status != 504 and .status != 0)] | .[:3]' "$W/attempts.json")
is "$bad" '[]' "every attempt was answered 201, 409 or 503 (502/504/none only while a node died)"
jok 'all(.[] | select(.status == 201); (.tx | test("^Transaction:"))
        and (.kind == "in" or .kind == "out"))' "every 201 names a transaction" "$(jq -c '[.[] | select(.status == 201)] | .[:3]' "$W/attempts.json")"

# Each key: every 201 it got names the same transaction, and the first
# answer that decided it is the one every later attempt replayed.
jq -c 'group_by(.key) | map({key: .[0].key, txs: (map(select(.status == 201) | .tx) | unique),
        originals: (map(select(.status == 201 and (.replayed | not))) | length)})' "$W/attempts.json" >"$W/keys.json"
is "$(jq '[.[] | select((.txs | length) > 1)] | length' "$W/keys.json")" 0 "every key: at most one transaction"
is "$(jq '[.[] | select(.originals > 1)] | length' "$W/keys.json")" 0 "every key: at most one original (not replayed) 201"
jq -c '[.[] | select(.status == 201)] | group_by(.tx) | map(.[0] | {id: .tx, kind, cust, ext, amount})' \
    "$W/final.json" >"$W/created.json"
transfers=$(jq length "$W/created.json")
is "$(jq '[.[] | .tx] | length' <(jq -c '[.[] | select(.status == 201)]' "$W/final.json"))" "$transfers" \
    "every 201 decision is a transaction of its own ($transfers)"

# --- throughput and the longest wait, by phase ----------------------------------------------------
# Decided requests per second before the kill, while node 2 was dead, while
# it rejoined (from its restart until it was Synced) and after; the
# longest time a client went without a decision.
read -r before dead rejoining after <<<"$(jq -r --argjson k "$t_kill" --argjson r "$t_restart" --argjson b "$t_back" \
    --argjson s "$t_start" --argjson e "$t_stop" '
    def rate(f; t): (map(select(.t1 >= f and .t1 < t)) | length) / ((t - f) / 1000);
    [rate($s; $k), rate($k; $r), rate($r; $b), rate($b; $e)] | map(. * 10 | round / 10) | @tsv' "$W/final.json")"
# A client's gaps: from its first request to its first decision, then
# from each decision to the next.
gap=$(jq -c --argjson k "$t_kill" --slurpfile a "$W/attempts.json" '
        ($a[0] | group_by(.c) | map({key: (.[0].c | tostring), value: (map(.t0) | min)}) | from_entries) as $first
        | group_by(.c) | map(sort_by(.t1) as $r
        | [range(0; $r | length) as $i | {c: $r[$i].c, to: $r[$i].t1,
           from: (if $i == 0 then $first[$r[0].c | tostring] else $r[$i - 1].t1 end)}]
        | map(. + {gap: (.to - .from)}) | max_by(.gap)) | max_by(.gap)
        | {c, gap_s: (.gap / 1000), from_kill_s: ((.from - $k) / 1000)}' "$W/final.json")
retried=$(jq '[.[] | select(.attempt > 1 and .final)] | length' "$W/attempts.json")
n503=$(jq '[.[] | select(.status == 503)] | length' "$W/attempts.json")
nconn=$(jq '[.[] | select(.status == 0 or .status == 502 or .status == 504)] | length' "$W/attempts.json")
inuse=$(jq '[.[] | select(.code == "IDEMPOTENCY_KEY_IN_USE")] | length' "$W/attempts.json")
down_s=$(((t_restart - t_kill) / 1000))
rejoin_s=$(awk -v a="$t_restart" -v b="$t_back" 'BEGIN { printf "%.1f", (b - a) / 1000 }')
diag "cluster: $requests decided requests by $CLIENTS + 1 clients, $transfers transfers; node $KILL dead ${down_s}s, rejoined (IST) ${rejoin_s}s after its restart"
diag "cluster: throughput (decided requests/s): before the loss $before, node $KILL dead $dead, rejoining $rejoining, after $after"
diag "cluster: longest gap a client saw: $(jq -r '"\(.gap_s) s (client \(.c), from \(.from_kill_s) s after the kill)"' <<<"$gap")"
diag "cluster: $retried requests repeated with their key: $n503 answers 503, $nconn without an answer (or 502/504), $inuse IDEMPOTENCY_KEY_IN_USE"
ok "$(jq '.gap_s < 60' <<<"$gap" | grep -q true && echo 1 || echo 0)" "no client waited 60 s or more for a decision"

# Both pools served requests (nginx's access log names the upstream).
pools=$(grep -o 'up=unix:[^ ]*' "$XB_DEV_DIR/log/nginx-access.log" | sort | uniq -c | awk '{print $2}' | grep -c 'node[12]/run/fcgi.sock$')
is "$pools" 2 "nginx spread the requests over both pools"

# --- the cluster is whole again ------------------------------------------------------------------------
for n in 1 2 3; do
    is "$(node_status "$n" wsrep_cluster_size) $(node_status "$n" wsrep_local_state_comment)" "3 Synced" \
        "node $n: in a cluster of 3 again, Synced"
done
log2=$XB_CLUSTER_DIR/node$KILL/log/mysqld.log
since=$(grep -n 'Starting MariaDB' "$log2" | tail -n 1 | cut -d: -f1)
tail -n +"${since:-1}" "$log2" >"$W/rejoin.log"
like "$(grep -c 'Receiving IST' "$W/rejoin.log")" '^[1-9]' "node $KILL caught up by IST"
is "$(grep -c 'rsync SST completed' "$W/rejoin.log")" 0 "node $KILL needed no full state transfer (SST)"

# --- everything settles --------------------------------------------------------------------------
# walk_all CID SECRET OUT: every transaction of a platform into OUT.
walk_all() {
    transactions_all "$3" --as "$1" "$2"
}
# settle_wait: waits (bounded) until neither platform has an unfinished
# transaction or job (a returned payout is refunded by a later job), then
# lists every transaction of each into $W/listed.{L,H}.json.
settle_wait() {
    local p pending left
    t2=$SECONDS
    while ((SECONDS - t2 < 180)); do
        left=$(node_sql 1 -e "SELECT COUNT(*) FROM jobs WHERE done_at IS NULL AND platform_id IN ('$L_ID', '$H_ID')")
        pending=$(node_sql 1 -e "SELECT COUNT(*) FROM transactions WHERE status IN ('PENDING', 'PROCESSING')
                                  AND platform_id IN ('$L_ID', '$H_ID')")
        if [[ $left == 0 && $pending == 0 ]]; then
            walk_all "$L_CID" "$L_SECRET" "$W/listed.L.json" && walk_all "$H_CID" "$H_SECRET" "$W/listed.H.json" &&
                return 0
        fi
        sleep 1
    done
    return 1
}
settle_wait
rc=$?
settle_secs=$((SECONDS - t2))
ok "$((rc == 0))" "every transaction reached its final state, every job is done (${settle_secs}s after the last request)" ||
    BAIL_OUT "nothing more to check before everything settled"

# --- every 201 is there once, settled as its account says -----------------------------------------
cat "$W"/out.h >"$W/attempts.h.jsonl"
jq -s -c '[.[] | select(.final and .status == 201)] | group_by(.tx) | map(.[0] | {id: .tx, kind, cust, ext, amount})' \
    "$W/attempts.h.jsonl" >"$W/created.H.json"
jq -s -c '.[0] + .[1]' "$W/created.json" "$W/created.H.json" >"$W/created.all.json"
for p in L H; do
    if [[ $p == L ]]; then made=$W/created.json; else made=$W/created.H.json; fi
    listed=$W/listed.$p.json
    is "$(jq -r '[.[].transactionId] | sort | join(" ")' "$listed")" "$(jq -r '[.[].id] | sort | join(" ")' "$made")" \
        "$p: the platform lists exactly the transactions the 201s named ($(jq length "$made")), each once"
    ids=$(eval "printf '%s\n' \"\${${p}_CUST[@]}\"" | jq -R . | jq -s -c .)
    wrong=$(jq -c --slurpfile made "$made" --argjson custs "$ids" '
        ($made[0] | map({key: .id, value: .}) | from_entries) as $m
        | [.[] | . as $t | $m[$t.transactionId] as $w
           | (if $w.kind == "in" then (if $w.ext == "fail" then "FAILED" else "COMPLETED" end)
              else {"ok": "COMPLETED", "fail": "FAILED", "ret": "REFUNDED"}[$w.ext] end) as $want
           | select($t.status != $want or $t.customerId != $custs[$w.cust]
                    or ((.receivedAmount // .sentAmount).amountMinor != ($w.amount | tostring)))
           | {id: $t.transactionId, status: $t.status, want: $want}] | .[:5]' "$listed")
    is "$wrong" '[]' "$p: every transaction settled as its account number says, for its customer and amount"
    api --as "$(eval "echo \$${p}_CID")" "$(eval "echo \$${p}_SECRET")" GET "/customers/internal-accounts?currency=USD&limit=100"
    accounts=$BODY
    bad=0
    for ((c = 0; c < NCUST; c++)); do
        cust=$(eval "echo \${${p}_CUST[c]}") int=$(eval "echo \${${p}_INT[c]}") funded=$(eval "echo \${${p}_FUNDED[c]}")
        bal=$(jq -r --arg a "$int" '.data[] | select(.id == $a) | .balance.amountMinor' <<<"$accounts")
        read -r in_sum out_sum <<<"$(jq -r --arg cu "$cust" '[.[] | select(.customerId == $cu and .status == "COMPLETED")]
            | "\(map(select(.type == "INCOMING") | .receivedAmount.amountMinor | tonumber) | add // 0) \(map(select(.type == "OUTGOING") | .sentAmount.amountMinor | tonumber) | add // 0)"' "$listed")"
        if [[ $bal != $((funded + in_sum - out_sum)) ]]; then
            diag "$p customer $c: balance $bal, want $funded + $in_sum - $out_sum"
            bad=1
        fi
    done
    is "$bad" 0 "$p: every balance = funded + completed in - completed out"
    # Settlement moved each transaction's money once, by memo: what a memo's
    # entries credit is the sum of its transactions' amounts (a batch's
    # completing payouts share one posting set, so payout_settled is not
    # two entries per payout, but its credits still sum to theirs).
    pid=$(eval "echo \$${p}_ID")
    want=$(jq -r '[.[] | {k: (if .type == "INCOMING" then (if .status == "COMPLETED" then "transfer_in_settled" else "transfer_in_failed" end)
                              elif .status == "COMPLETED" then "payout_settled" elif .status == "FAILED" then "payout_failed"
                              else "payout_returned" end), a: ((.receivedAmount // .sentAmount).amountMinor | tonumber)}]
                  + [.[] | {k: (if .type == "INCOMING" then "transfer_in" else "transfer_out" end),
                            a: ((.receivedAmount // .sentAmount).amountMinor | tonumber)}]
                  | group_by(.k) | map("\(.[0].k) \(map(.a) | add)") | join(",")' "$listed")
    got=$(node_sql 1 -e "SELECT memo, SUM(GREATEST(amount, 0)) FROM ledger_entries WHERE platform_id = '$pid'
            AND memo IN ('transfer_in', 'transfer_out', 'transfer_in_settled', 'transfer_in_failed',
                         'payout_settled', 'payout_failed', 'payout_returned')
            GROUP BY memo ORDER BY memo" | awk '{printf "%s%s %s", (NR > 1 ? "," : ""), $1, $2}')
    is "$got" "$want" "$p: the ledger moved each transfer's money once and each settlement's once (credits by memo)"
done

# --- the same data on every node ------------------------------------------------------------------------
# Checksums over whole tables, read by each node with causal reads.
SUMS="SELECT 'ledger_entries', COUNT(*), COALESCE(SUM(amount), 0),
        COALESCE(BIT_XOR(CRC32(CONCAT_WS('|', id, posting_id, platform_id, account_id, currency, amount, memo, created_at))), 0)
      FROM ledger_entries;
      SELECT 'internal_accounts', COUNT(*), COALESCE(SUM(balance), 0),
        COALESCE(BIT_XOR(CRC32(CONCAT_WS('|', id, platform_id, kind, currency, balance))), 0) FROM internal_accounts;
      SELECT 'transactions', COUNT(*), COALESCE(SUM(amount), 0),
        COALESCE(BIT_XOR(CRC32(CONCAT_WS('|', id, platform_id, kind, status, amount, settled_at))), 0) FROM transactions;
      SELECT 'jobs', COUNT(*), COALESCE(SUM(attempts), 0),
        COALESCE(BIT_XOR(CRC32(CONCAT_WS('|', id, kind, ref_id, done_at))), 0) FROM jobs;
      SELECT 'idempotency_keys', COUNT(*), COALESCE(SUM(response_status), 0),
        COALESCE(BIT_XOR(CRC32(CONCAT_WS('|', platform_id, idem_key, state, response_status))), 0) FROM idempotency_keys;
      SELECT 'schema_migrations', COUNT(*), 0, COALESCE(BIT_XOR(CRC32(name)), 0) FROM schema_migrations"
# no_pending_events: H has no webhook event left to deliver.
no_pending_events() {
    [[ $(node_sql 1 -e "SELECT COUNT(*) FROM webhook_events WHERE status = 'PENDING' AND platform_id = '$H_ID'") == 0 ]]
}
wait_for no_pending_events 120 || diag "webhook events still PENDING after 120 s"
for n in 1 2 3; do
    node_sql "$n" -e "$SUMS; SELECT 'webhook_events', COUNT(*), COALESCE(SUM(attempts), 0),
        COALESCE(BIT_XOR(CRC32(CONCAT_WS('|', id, status, attempts))), 0) FROM webhook_events" >"$W/sums.$n" 2>&1
done
like "$(head -n 1 "$W/sums.1")" '^ledger_entries	[1-9]' "node 1: the ledger's checksum ($(head -n 1 "$W/sums.1" | tr '\t' ' '))"
for n in 2 3; do
    if ! is "$(cat "$W/sums.$n")" "$(cat "$W/sums.1")" "node $n: ledger, balances, transactions, jobs, keys and events as on node 1"; then
        diag "$(diff "$W/sums.1" "$W/sums.$n")"
    fi
done
for n in 1 2 3; do
    v=XB_NODE${n}_CONF
    out=$("${XB_CTL%% -c *}" -c "${!v}" ledger-check 2>&1)
    rc=$?
    ok "$((rc == 0))" "node $n: xborderctl ledger-check exits 0" || diag "$out"
    like "$out" 'ledger ok' "node $n: xborderctl ledger-check: ledger ok"
done

# --- two workers, no job done twice ----------------------------------------------------------------------
# Both workers log one line per job run (msg=job ... job_id=N outcome=done),
# after the batch's commit that the settled states above already showed:
# waited for until both logs hold a done settlement line per transaction.
ntx=$(jq -s '.[0] + .[1] | length' "$W/listed.L.json" "$W/listed.H.json")
settled_lines() {
    cat "$XB_CLUSTER_DIR"/node[23]/log/xborder-worker.log | grep 'msg=job ' |
        grep -E "platform_id=($L_ID|$H_ID) " | grep 'outcome=done' | grep -c 'job=settle '
}
wait_for '(($(settled_lines) >= ntx))' 30 || diag "cluster: $(settled_lines) settlement lines for $ntx transactions after 30 s"
for n in 2 3; do
    grep -h 'msg=job ' "$XB_CLUSTER_DIR/node$n/log/xborder-worker.log" |
        grep -E "platform_id=($L_ID|$H_ID) " | sed "s/^/worker$n /" >>"$W/jobs.log"
done
done_by=$(awk '/outcome=done/ {print $1}' "$W/jobs.log" | sort | uniq -c | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1}')
like "$done_by" '^worker2 [1-9][0-9]*, worker3 [1-9]' "both workers settled transactions ($done_by jobs)"
twice=$(grep 'outcome=done' "$W/jobs.log" | grep -o 'job_id=[0-9]*' | sort | uniq -d | head -n 5 | tr '\n' ' ')
is "$twice" "" "no job was done twice (by job_id, over both workers' logs)"
# A claim that another node's worker overtook is caught when the job is
# marked done (the write checks the claim) and runs again: count them.
overtaken=$(cat "$XB_CLUSTER_DIR"/node[23]/log/xborder-worker.log | grep -c 'was done meanwhile by another worker\|was leased meanwhile by another worker' || true)
wretried=$(cat "$XB_CLUSTER_DIR"/node[23]/log/xborder-worker.log | grep -c 'transaction retried' || true)
diag "cluster: workers: $done_by jobs done; $wretried transactions retried on conflicts, $overtaken claims found overtaken at their last write"
njobs=$(grep 'outcome=done' "$W/jobs.log" | grep -c 'job=settle ')
is "$njobs" "$ntx" "one settlement job done per transaction"

# --- webhooks: delivered by both workers, each as many times as its attempts say ---------------------
node_sql 1 -e "SELECT CONCAT('Webhook:', id), attempts, status FROM webhook_events WHERE platform_id = '$H_ID'" >"$W/events.tsv"
nev=$(wc -l <"$W/events.tsv")
ok "$((nev > 0))" "H: $nev webhook events"
is "$(awk -F'\t' '$3 != "DELIVERED"' "$W/events.tsv" | head -n 3)" "" "H: every event DELIVERED"
jq -r 'select(.path | startswith("/hooks")) | .body | fromjson | .id' "$WH_LOG" >"$W/deliveries.txt"
# A worker that made a delivery but could not record it (its database node
# died meanwhile) says so; the lease then brings the event back, and it is
# delivered again: at least once, by design.
cat "$XB_CLUSTER_DIR"/node[23]/log/xborder-worker.log |
    sed -n 's/.*msg="webhook \([0-9a-f-]*\): outcome not recorded.*/Webhook:\1/p' >"$W/unrecorded.txt"
# An attempt recorded with no HTTP answer (http_status=0: a timeout, a
# refused or cut connection, such as a worker's node dying while it
# waited) may or may not have reached the receiver.
cat "$XB_CLUSTER_DIR"/node[23]/log/xborder-worker.log |
    sed -n 's/.*msg=delivery job=webhook event_id=\([0-9a-f-]*\) .*outcome=not_delivered http_status=0 .*/Webhook:\1/p' >"$W/noanswer.txt"
# event id, attempts, deliveries, deliveries not recorded, attempts with no answer
awk -F'\t' 'FILENAME ~ /deliveries/ { n[$1]++; next } FILENAME ~ /unrecorded/ { u[$1]++; next }
    FILENAME ~ /noanswer/ { z[$1]++; next }
    { printf "%s\t%s\t%d\t%d\t%d\n", $1, $2, n[$1], u[$1], z[$1] }' \
    "$W/deliveries.txt" "$W/unrecorded.txt" "$W/noanswer.txt" "$W/events.tsv" >"$W/compare.tsv"
again=$(awk -F'\t' '{ s += $4 } END { print s + 0 }' "$W/compare.tsv")
noanswer=$(awk -F'\t' '{ s += $5 } END { print s + 0 }' "$W/compare.tsv")
bad=$(awk -F'\t' '$3 > $2 + $4 || $3 < $2 + $4 - $5' "$W/compare.tsv" | head -n 3)
is "$bad" "" "H: every event was delivered as many times as its attempts, plus the deliveries a dying worker could not record ($again), less attempts that got no answer ($noanswer) and never arrived"
for n in 2 3; do
    c=$(grep 'msg=delivery' "$XB_CLUSTER_DIR/node$n/log/xborder-worker.log" | grep -c "platform_id=$H_ID " || true)
    ok "$((c > 0))" "worker $n delivered webhooks ($c deliveries)"
done

diag "cluster: settled ${settle_secs}s after the last request; $nev webhook events ($again delivered again after the node loss)"
done_testing
