#!/usr/bin/env bash
# 87-faults-under-load.t - faults while transfers run (issue 13, "Faults
# under load").  A fresh platform, 4 customers funded, each with an
# external account that completes (...001); 4 clients (t/lib/concurrency-
# client, run on chunks of a few requests, each chunk timed) send POST
# /transfer-out and /transfer-in, every request under its own
# Idempotency-Key.  Four phases, each a bounded load:
#   1. SIGKILL of FastCGI workers (children of the master in
#      run/xborder-fcgi.pid): three times while the rows every transfer
#      locks are held, so that the workers are caught in the middle of a
#      request, three times at random; the master replaces them.  With a
#      build with fault injection also one worker dying right after its
#      commit, one answer lost after the commit, one worker dying right
#      before its commit (X-Xborder-Fault);
#   2. a MariaDB restart (scripts/dev db stop; db start): requests in the
#      gap get 503 SERVICE_UNAVAILABLE, the workers reconnect by
#      themselves; the gap, seen by a probe (GET /config every 0.1 s) and
#      by the transfers, is reported and bounded;
#   3. SIGKILL of xborder-worker while transactions are PENDING (twice),
#      started again with scripts/dev worker start; nothing settles while
#      it is dead, everything settles afterwards;
#   4. SIGKILL of mariadbd itself, with durable commits
#      (innodb_flush_log_at_trx_commit = 1), started again with crash
#      recovery: every acknowledged commit survives.
# After each phase: every unanswered request (000, 5xx, 409
# IDEMPOTENCY_KEY_IN_USE) is retried with its key and body until it is
# answered (IN_USE while a dead attempt's 30 s lease holds): it replays
# the first result or applies once; every 201 names its own transaction,
# the transfer asked for, which GET /transactions/{id} shows with a
# coherent status; every tenth 201 sent again replays it; once settled,
# the platform lists exactly the transactions answered, all COMPLETED; no
# idempotency key of the platform is RUNNING, every key is DONE with the
# 201 its client got, and every transaction is the stored 201 of exactly
# one key (SQL); balances are funded + completed ins - completed/pending
# outs; xborderctl ledger-check is clean.  Whatever it stops or kills is
# started again at exit.  Notes the counts: requests per phase, faults,
# retries, rows checked, the database gap.
#
# Environment: XB_FL_CLIENTS (4), XB_FL_CHUNK (12 requests a chunk),
# XB_FL_PLAN (500: requests planned per client and phase, an upper bound),
# XB_FL_SEED; XB_FL_KEEP=DIR keeps the work files (plans, answers) in DIR/fl.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"

DEV=${XB_ROOT:-$XB_REPO}/scripts/dev
RUNDIR=${XB_DEV_DIR:?}/run
FCGI_PIDFILE=$RUNDIR/xborder-fcgi.pid
WORKER_PIDFILE=$RUNDIR/xborder-worker.pid
SOCK=$RUNDIR/mysqld.sock
[[ -x $DEV ]] || plan skip_all "no executable $DEV"
command -v mariadb >/dev/null || plan skip_all "no mariadb client"
[[ -s $FCGI_PIDFILE && -s $WORKER_PIDFILE && -S $SOCK ]] ||
    plan skip_all "the stack in $XB_DEV_DIR runs no fcgi master, worker or MariaDB socket"
no_plan

CLIENT=$(dirname "${BASH_SOURCE[0]}")/lib/concurrency-client
CLIENTS=${XB_FL_CLIENTS:-4}
CHUNK=${XB_FL_CHUNK:-12}
PLAN_MAX=${XB_FL_PLAN:-500}
SEED=${XB_FL_SEED:-$((RANDOM * 32768 + RANDOM))}
LEASE=30                    # the idempotency claim's lease (db_transactions.c)
NCUST=4
FUNDED_EACH=50000000
RUN=$(uniq_name t87)
W=$_API_TMP/fl
mkdir -p "$W"
T_START=$SECONDS
note "seed $SEED ($CLIENTS clients, $CHUNK requests a chunk); XB_FL_SEED=$SEED reproduces the plans"

# --- the stack: whatever is stopped or killed is started again at exit --------------------
DEVLOG=$_API_TMP/dev.log
# dev ARGS...: scripts/dev, its output kept away from the TAP stream.
dev() {
    if "$DEV" "$@" >"$DEVLOG" 2>&1; then
        return 0
    fi
    diag "scripts/dev $* failed:"
    diag "$(tail -n 20 "$DEVLOG")"
    return 1
}
DRIVERS=()
restore_stack() {
    local p
    if [[ -n ${XB_FL_KEEP:-} ]]; then
        mkdir -p "$XB_FL_KEEP" && cp -r "$W" "$XB_FL_KEEP/" && diag "work files kept in $XB_FL_KEEP/fl"
    fi
    [[ -n $W ]] && touch "$W"/*/stop 2>/dev/null
    for p in "${DRIVERS[@]}"; do
        kill "$p" 2>/dev/null
    done
    # Each start is a no-op when the part runs.
    dev db start
    dev fcgi start
    dev worker start
}
at_exit restore_stack

master() { cat "$FCGI_PIDFILE" 2>/dev/null; }
fcgi_workers() { pgrep -P "$(master)" | sort -n | tr '\n' ' '; }
worker_pid() { cat "$WORKER_PIDFILE" 2>/dev/null; }

# gone PID: the process has exited (a zombie not yet reaped counts).
gone() {
    local st
    st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 0
    [[ -z $st || $st == Z ]]
}

# sql STATEMENTS: runs them in the stack's database, tab-separated rows.
sql() {
    mariadb --no-defaults --socket="$SOCK" --user="$(id -un)" --batch --skip-column-names \
        xborder -e "$1"
}

# since T0: seconds (1 decimal) since the epoch time T0.
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# --- a fresh platform, four funded customers ----------------------------------------------
new_platform t87 || BAIL_OUT "platform-create failed"
pass "fresh platform created with xborderctl"
P=(--as "$NP_CLIENT_ID" "$NP_SECRET")
P_ID=$NP_CLIENT_ID P_SECRET=$NP_SECRET
PLAT=$NP_ID

CUST=() INT=() EXT=() FUNDED=()
for ((c = 0; c < NCUST; c++)); do
    api "${P[@]}" POST /customers "{\"platformCustomerId\":\"$RUN-$c\",\"customerType\":\"INDIVIDUAL\",\"fullName\":\"Faulted $c\"}"
    is_status 201 "customer $c: 201"
    CUST[c]=$(jr .id)
    api "${P[@]}" GET "/customers/internal-accounts?customerId=${CUST[c]}&currency=USD"
    INT[c]=$(jr '.data[0].id')
    like "${INT[c]}" '^InternalAccount:' "customer $c: its USD internal account"
    api "${P[@]}" POST /customers/external-accounts "{\"customerId\":\"${CUST[c]}\",\"currency\":\"USD\",\"platformAccountId\":\"$RUN-$c\",
        \"accountInfo\":{\"accountType\":\"CHECKING\",\"accountCategory\":\"PERSONAL\",\"bankName\":\"Bank $c\",
        \"accountNumber\":\"0087${c}0000001\",\"routingNumber\":\"021000021\"}}"
    is_status 201 "customer $c: external account ...001 (completes)"
    EXT[c]=$(jr .id)
    FUNDED[c]=$FUNDED_EACH
    api "${P[@]}" POST "/sandbox/internal-accounts/${INT[c]}/fund" "{\"amountMinor\":${FUNDED[c]}}"
    is_status 200 "customer $c: funded with ${FUNDED[c]}"
done
is "$(sql "SELECT COUNT(*) FROM customers WHERE platform_id = '$PLAT'")" "$NCUST" \
    "SQL on $SOCK sees the platform's $NCUST customers"
custs_json=$(printf '%s\n' "${CUST[@]}" | jq -R . | jq -s -c .)

# --- plans and the load -----------------------------------------------------------------
# make_plans DIR PHASE: DIR/plan.C for each client (SEQ POST PATH KEY BODY)
# and DIR/meta (SEQ KEY KIND CUST AMOUNT PATH BODY), PLAN_MAX requests a
# client, each with its own key.
make_plans() {
    local dir=$1 ph=$2 c i seq cust kind amount path body key
    RANDOM=$((SEED + ph))
    mkdir -p "$dir"
    : >"$dir/meta"
    for ((c = 0; c < CLIENTS; c++)); do
        : >"$dir/plan.$c"
        for ((i = 0; i < PLAN_MAX; i++)); do
            seq=$((ph * 1000000 + c * 100000 + i))
            cust=$((RANDOM % NCUST))
            amount=$((1 + RANDOM % 5000))
            if ((RANDOM % 100 < 45)); then
                kind=in path=/transfer-in
                body="{\"source\":{\"accountId\":\"${EXT[cust]}\"},\"destination\":{\"accountId\":\"${INT[cust]}\"},\"amount\":{\"currencyCode\":\"USD\",\"amountMinor\":\"$amount\"}}"
            else
                kind=out path=/transfer-out
                body="{\"source\":{\"accountId\":\"${INT[cust]}\"},\"destination\":{\"accountId\":\"${EXT[cust]}\"},\"amount\":{\"currencyCode\":\"USD\",\"amountMinor\":\"$amount\"}}"
            fi
            key="$RUN-p$ph-c$c-$i"
            printf '%s\tPOST\t%s\t%s\t%s\n' "$seq" "$path" "$key" "$body" >>"$dir/plan.$c"
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$seq" "$key" "$kind" "$cust" "$amount" "$path" "$body" >>"$dir/meta"
        done
    done
}

# fault_shot DIR PHASE N FAULT: one transfer-out under its own key with
# the fault point FAULT armed (X-Xborder-Fault, a build with fault
# injection), sent by curl alongside the load; recorded as client "f" of
# the phase (meta, sent.f, out.f), so that it is checked and retried like
# the others.
fault_shot() {
    local dir=$1 ph=$2 n=$3 fault=$4 cust amount body key seq t0 t1 code rep
    cust=$((RANDOM % NCUST)) amount=$((1 + RANDOM % 5000))
    body="{\"source\":{\"accountId\":\"${INT[cust]}\"},\"destination\":{\"accountId\":\"${EXT[cust]}\"},\"amount\":{\"currencyCode\":\"USD\",\"amountMinor\":\"$amount\"}}"
    key="$RUN-p$ph-f$n-$fault"
    seq=$((ph * 1000000 + 900000 + n))
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$seq" "$key" out "$cust" "$amount" /transfer-out "$body" >>"$dir/meta"
    printf '%s\tPOST\t%s\t%s\t%s\n' "$seq" /transfer-out "$key" "$body" >>"$dir/sent.f"
    t0=$(date +%s.%N)
    code=$(curl -sk --max-time 30 -u "$P_ID:$P_SECRET" -H 'Content-Type: application/json' -H 'Expect:' \
        -H "Idempotency-Key: $key" -H "X-Xborder-Fault: $fault" -D "$dir/f.headers" -o "$dir/f.body" \
        -w '%{http_code}' --data-binary "$body" "$XB_BASE_URL/transfer-out")
    t1=$(date +%s.%N)
    rep=$(tr -d '\r' <"$dir/f.headers" | awk -F': *' 'tolower($1) == "idempotent-replayed" { v = $2 } END { print (v == "" ? "-" : v) }')
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$t0" "$t1" "$seq" "$code" "$rep" "$(tr '\t\n' '  ' <"$dir/f.body")" >>"$dir/out.f"
    FAULT_SEQ[$fault]=$seq
}
declare -A FAULT_SEQ=()
bdir=${XB_CTL%%/src/xborderctl*}
FAULTS_BUILT=0
grep -qs '^#define XB_FAULT_INJECTION 1' "$bdir/config.h" && FAULTS_BUILT=1

# drive DIR C: sends DIR/plan.C, CHUNK requests a concurrency-client run,
# until the plan is done or DIR/stop exists; appends T0 T1 SEQ STATUS
# REPLAYED BODY to DIR/out.C (T0, T1: the chunk's start and end, epoch
# seconds) and every request sent to DIR/sent.C.  After a chunk with an
# answer other than 201 it waits 0.2 s, as a client backing off would.
drive() {
    local dir=$1 c=$2 t0 t1 f
    : >"$dir/out.$c"
    : >"$dir/sent.$c"
    mkdir -p "$dir/chunks.$c"
    split -l "$CHUNK" -d -a 4 "$dir/plan.$c" "$dir/chunks.$c/"
    for f in "$dir/chunks.$c"/*; do
        [[ -e $dir/stop ]] && break
        cat "$f" >>"$dir/sent.$c"
        t0=$(date +%s.%N)
        XB_CLIENT_ID=$P_ID XB_CLIENT_SECRET=$P_SECRET "$CLIENT" "$f" "$dir/cout.$c" 2>>"$dir/err.$c"
        t1=$(date +%s.%N)
        awk -v a="$t0" -v b="$t1" 'BEGIN { OFS = "\t" } { print a, b, $0 } $2 != 201 { bad = 1 } END { exit !bad }' \
            "$dir/cout.$c" >>"$dir/out.$c" && sleep 0.2
    done
}

# load_start DIR [CHUNK]: starts one driver a client.
load_start() {
    local dir=$1 c CHUNK=${2:-$CHUNK}
    rm -f "$dir/stop"
    DRIVERS=()
    for ((c = 0; c < CLIENTS; c++)); do
        drive "$dir" "$c" &
        DRIVERS+=($!)
    done
    LOAD_T0=$(date +%s.%N)
}

# load_stop DIR: stops the drivers after their current chunk; builds
# DIR/all.json, one object a request sent: the plan's side and the answer.
load_stop() {
    local dir=$1 p c
    touch "$dir/stop"
    for p in "${DRIVERS[@]}"; do wait "$p"; done
    DRIVERS=()
    LOAD_SECS=$(since "$LOAD_T0")
    for ((c = 0; c < CLIENTS; c++)); do
        if [[ -s $dir/err.$c ]]; then
            note "client $c: $(sort "$dir/err.$c" | uniq -c | sort -rn | head -5)"
        fi
    done
    cat "$dir"/sent.* >"$dir/sent"
    cat "$dir"/out.* >"$dir/out"
    jq -R -c 'split("\t") | {t0: (.[0] | tonumber), t1: (.[1] | tonumber), seq: .[2],
        status: (.[3] | tonumber), replayed: (.[4] == "true"), body: (.[5] | try fromjson catch null)}' \
        "$dir/out" >"$dir/out.json"
    jq -R -c 'split("\t") | {seq: .[0], key: .[1], kind: .[2], cust: (.[3] | tonumber), amount: .[4],
        path: .[5], req: .[6]}' "$dir/meta" >"$dir/meta.json"
    # Only the requests that were sent.
    cut -f1 "$dir/sent" | jq -R . | jq -s -c 'map({key: ., value: true}) | from_entries' >"$dir/sent.json"
    jq -s -c --slurpfile sent "$dir/sent.json" '[.[] | select($sent[0][.seq])] | group_by(.seq) | map(add)' \
        "$dir/meta.json" "$dir/out.json" >"$dir/all.json"
}

# answers_ok DIR WHAT: every request sent got a result line, and every
# answer is 201 or 503 SERVICE_UNAVAILABLE in the JSON envelope.  Sets
# N_SENT, N_201, N_503, N_OTHER.
answers_ok() {
    local dir=$1 what=$2
    N_SENT=$(wc -l <"$dir/sent")
    is "$(wc -l <"$dir/out")" "$N_SENT" "$what: every request sent ($N_SENT) got a result line"
    N_201=$(jq '[.[] | select(.status == 201)] | length' "$dir/all.json")
    N_503=$(jq '[.[] | select(.status == 503)] | length' "$dir/all.json")
    N_OTHER=$(jq '[.[] | select(.status != 201 and .status != 503)] | length' "$dir/all.json")
    is "$(jq -c '[.[] | select(.status != 201 and (.status != 503 or .body.code != "SERVICE_UNAVAILABLE"
            or (.body.message | type) != "string")) | {seq, status, body}] | .[:3]' "$dir/all.json")" '[]' \
        "$what: every answer is 201 or 503 SERVICE_UNAVAILABLE in the JSON envelope"
    jok 'all(.[] | select(.status == 201); .replayed == false)' "$what: no first request is a replay" \
        "$(jq -c '[.[] | select(.status == 201) | {seq, replayed}]' "$dir/all.json")"
}

# --- retries, checks ----------------------------------------------------------------------
# retry_unanswered DIR WHAT: sends every request of DIR/all.json answered
# 000, 5xx or 409 IDEMPOTENCY_KEY_IN_USE again, same key and body, round
# after round while some are still IN_USE (or 5xx), at most LEASE + 20 s.
# Writes DIR/final.json: the requests with their final answer (the
# retry's when retried, with retried: true).  Sets N_RETRIED, N_RETRY_SENT,
# N_ROUNDS, RETRY_SECS.
retry_unanswered() {
    local dir=$1 what=$2 deadline t0=$SECONDS
    deadline=$((SECONDS + LEASE + 20))
    jq -c '.[] | select(.status == 0 or .status >= 500 or (.status == 409 and .body.code == "IDEMPOTENCY_KEY_IN_USE"))' \
        "$dir/all.json" >"$dir/todo.json"
    N_RETRIED=$(wc -l <"$dir/todo.json")
    N_RETRY_SENT=0 N_ROUNDS=0
    : >"$dir/retried.json"
    while [[ -s $dir/todo.json ]]; do
        jq -r '[.seq, "POST", .path, .key, .req] | @tsv' "$dir/todo.json" >"$dir/retry.plan"
        XB_CLIENT_ID=$P_ID XB_CLIENT_SECRET=$P_SECRET "$CLIENT" "$dir/retry.plan" "$dir/retry.out" 2>>"$dir/retry.err"
        N_ROUNDS=$((N_ROUNDS + 1))
        N_RETRY_SENT=$((N_RETRY_SENT + $(wc -l <"$dir/retry.plan")))
        jq -R -c 'split("\t") | {seq: .[0], status: (.[1] | tonumber), replayed: (.[2] == "true"),
            body: (.[3] | try fromjson catch null)}' "$dir/retry.out" >"$dir/retry.json"
        # Answered: kept.  Still IN_USE, 5xx or no answer: once more.
        jq -s -c --slurpfile ans "$dir/retry.json" '($ans | map({key: .seq, value: .}) | from_entries) as $a
            | .[] | . as $r | $a[$r.seq] as $x
            | if $x == null then $r else $r + {status: $x.status, replayed: $x.replayed, body: $x.body} end' \
            "$dir/todo.json" >"$dir/todo.next"
        if ((SECONDS >= deadline)); then
            cat "$dir/todo.next" >>"$dir/retried.json"
            break
        fi
        jq -c 'select(.status != 0 and .status < 500 and (.status != 409 or .body.code != "IDEMPOTENCY_KEY_IN_USE"))' \
            "$dir/todo.next" >>"$dir/retried.json"
        jq -c 'select(.status == 0 or .status >= 500 or (.status == 409 and .body.code == "IDEMPOTENCY_KEY_IN_USE"))' \
            "$dir/todo.next" >"$dir/todo.json"
        [[ -s $dir/todo.json ]] && sleep 1
    done
    RETRY_SECS=$((SECONDS - t0))
    jq -s -c '.[1] as $r | ($r | map({key: .seq, value: (. + {retried: true})}) | from_entries) as $m
        | .[0] | map($m[.seq] // (. + {retried: false}))' "$dir/all.json" <(jq -s -c . "$dir/retried.json") >"$dir/final.json"
    is "$(jq -c '[.[] | select(.retried and .status != 201) | {seq, status, body}] | .[:3]' "$dir/final.json")" '[]' \
        "$what: every one of the $N_RETRIED unanswered requests, retried with its key, is answered 201 (in $N_ROUNDS rounds, $RETRY_SECS s)"
    N_REPLAYED=$(jq '[.[] | select(.retried and .status == 201 and .replayed)] | length' "$dir/final.json")
    N_APPLIED=$(jq '[.[] | select(.retried and .status == 201 and (.replayed | not))] | length' "$dir/final.json")
}

# check_final DIR WHAT: the 201s of the phase (first answers and retries):
# each names a transaction of its own, the transfer asked for; GET
# /transactions/{id} of each shows it with a coherent status; every tenth
# one sent again replays the same transaction.  Appends the phase's
# transactions to $W/made.json lines.  Sets N_GOT, N_RESENT.
check_final() {
    local dir=$1 what=$2 c n
    n=$(jq length "$dir/final.json")
    is "$(jq '[.[] | select(.status == 201)] | length' "$dir/final.json")" "$n" "$what: all $n requests are answered 201 in the end"
    is "$(jq '[.[] | select(.status == 201) | .body.transactionId] | unique | length' "$dir/final.json")" "$n" \
        "$what: $n keys, $n distinct transactions (no key without one, none shared)"
    jok 'all(.[] | select(.status == 201); (.body.transactionId | test("^Transaction:"))
            and .body.type == (if .kind == "in" then "INCOMING" else "OUTGOING" end)
            and (.body.receivedAmount // .body.sentAmount).amountMinor == .amount)' \
        "$what: every 201 is the transfer asked for (type, amount)" \
        "$(jq -c '[.[] | select(.status == 201) | {kind, amount, body}] | .[:3]' "$dir/final.json")"
    jq -c '.[] | select(.status == 201) | {id: .body.transactionId, kind, cust, amount, key}' "$dir/final.json" >>"$W/made.json"

    # GET each transaction, CLIENTS connections in parallel.
    jq -r '.[] | select(.status == 201) | [.seq, "GET", "/transactions/" + .body.transactionId, "-", "-"] | @tsv' \
        "$dir/final.json" >"$dir/get.plan"
    split -n "l/$CLIENTS" -d -a 2 "$dir/get.plan" "$dir/get.plan."
    local pids=()
    for f in "$dir"/get.plan.[0-9][0-9]; do
        XB_CLIENT_ID=$P_ID XB_CLIENT_SECRET=$P_SECRET "$CLIENT" "$f" "$f.out" 2>>"$dir/get.err" &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    cat "$dir"/get.plan.[0-9][0-9].out | jq -R -c 'split("\t") | {seq: .[0], gstatus: (.[1] | tonumber),
        got: (.[3] | try fromjson catch null)}' >"$dir/got.json"
    N_GOT=$(wc -l <"$dir/got.json")
    is "$N_GOT" "$n" "$what: GET /transactions/{id} of each of the $n transactions answered"
    bad=$(jq -s -c --argjson custs "$custs_json" '.[0] as $f | (.[1:] | map({key: .seq, value: .}) | from_entries) as $g
        | [$f[] | select(.status == 201) | . as $r | $g[$r.seq] as $x
           | select($x == null or $x.gstatus != 200 or $x.got.transactionId != $r.body.transactionId
                    or ($x.got.status | IN("PENDING", "PROCESSING", "COMPLETED") | not)
                    or $x.got.customerId != $custs[$r.cust]
                    or ($x.got.receivedAmount // $x.got.sentAmount).amountMinor != $r.amount)
           | {seq: $r.seq, id: $r.body.transactionId, got: $x}] | .[:3]' "$dir/final.json" "$dir/got.json")
    is "$bad" '[]' "$what: each is there: its id, customer and amount, status PENDING, PROCESSING or COMPLETED"

    # Every tenth 201 again, with its key: the same transaction, replayed.
    jq -r '[.[] | select(.status == 201)] | to_entries[] | select(.key % 10 == 0) | .value
        | [.seq, "POST", .path, .key, .req] | @tsv' "$dir/final.json" >"$dir/again.plan"
    XB_CLIENT_ID=$P_ID XB_CLIENT_SECRET=$P_SECRET "$CLIENT" "$dir/again.plan" "$dir/again.out" 2>>"$dir/again.err"
    N_RESENT=$(wc -l <"$dir/again.plan")
    bad=$(jq -R -c 'split("\t") | {seq: .[0], status: (.[1] | tonumber), replayed: .[2], body: (.[3] | try fromjson catch null)}' \
        "$dir/again.out" | jq -s -c --slurpfile f "$dir/final.json" '($f[0] | map({key: .seq, value: .}) | from_entries) as $m
        | [.[] | select(.status != 201 or .replayed != "true" or .body != $m[.seq].body) | {seq, status, replayed}] | .[:3]')
    is "$(wc -l <"$dir/again.out") $bad" "$N_RESENT []" \
        "$what: $N_RESENT of the 201s sent again with their keys: 201, Idempotent-Replayed, the first body"
}

# count_status IN|NOT_IN STATUSES: the platform's transactions whose status
# is (not) among STATUSES (SQL list).
count_status() {
    sql "SELECT COUNT(*) FROM transactions WHERE platform_id = '$PLAT' AND status ${1/_/ } ($2)"
}

unsettled() { count_status IN "'PENDING', 'PROCESSING'"; }

# wait_settled SECONDS: until no transaction of the platform is PENDING or
# PROCESSING.  Sets SETTLE_SECS.
wait_settled() {
    local t0=$SECONDS
    wait_for '[[ $(unsettled) == 0 ]]' "$1"
    local rc=$?
    SETTLE_SECS=$((SECONDS - t0))
    return $rc
}

# walk_all: every transaction of the platform, through all pages, into
# $W/listed.json.
walk_all() {
    transactions_all "$W/listed.json" "${P[@]}"
}

# check_store WHAT: after settlement, over everything made so far: the
# listing, the idempotency keys (SQL), the balances, ledger-check.
# Adds to ROWS_CHECKED.
ROWS_CHECKED=0
check_store() {
    local what=$1 made n c
    jq -s -c . "$W/made.json" >"$W/made.all.json"
    made=$W/made.all.json
    n=$(jq length "$made")
    local settled=0
    wait_settled 60 && settled=1
    ok "$settled" "$what: every transaction settled (within $SETTLE_SECS s)"
    walk_all
    is "$(jq length "$W/listed.json")" "$n" "$what: the platform lists $n transactions, as many as were answered 201"
    is "$(jq -r '[.[].transactionId] | sort | join(" ")' "$W/listed.json")" "$(jq -r '[.[].id] | sort | join(" ")' "$made")" \
        "$what: the listed transactions are exactly those the 201s named"
    jok 'all(.[]; .status == "COMPLETED" and (.settledAt | type) == "string")' \
        "$what: every transaction COMPLETED (...001 accounts), settledAt set" \
        "$(jq -c '[.[] | select(.status != "COMPLETED") | {transactionId, status}] | .[:3]' "$W/listed.json")"

    # The idempotency keys of the platform, in the database.
    local running keys done201 txids keyids
    running=$(sql "SELECT COUNT(*) FROM idempotency_keys WHERE platform_id = '$PLAT' AND state = 'RUNNING'")
    is "$running" 0 "$what: no idempotency key of the platform is left RUNNING"
    if [[ $running != 0 ]]; then
        diag "$(sql "SELECT idem_key, claim_id, lease_until, created_at FROM idempotency_keys
            WHERE platform_id = '$PLAT' AND state = 'RUNNING' LIMIT 5")"
    fi
    keys=$(sql "SELECT COUNT(*) FROM idempotency_keys WHERE platform_id = '$PLAT'")
    done201=$(sql "SELECT COUNT(*) FROM idempotency_keys WHERE platform_id = '$PLAT' AND state = 'DONE' AND response_status = 201")
    is "$keys $done201" "$n $n" "$what: the platform has $n idempotency keys (one a key sent), all DONE with a 201"
    txids=$(sql "SELECT CONCAT('Transaction:', id) FROM transactions WHERE platform_id = '$PLAT' ORDER BY 1" | tr '\n' ' ')
    keyids=$(sql "SELECT JSON_VALUE(response_body, '$.transactionId') FROM idempotency_keys
        WHERE platform_id = '$PLAT' AND state = 'DONE' AND response_status = 201 ORDER BY 1" | tr '\n' ' ')
    is "$(wc -w <<<"$txids")" "$n" "$what: the database holds $n transactions of the platform"
    is "$keyids" "$txids" "$what: every transaction is the stored 201 of exactly one key, every key's 201 a transaction (none forgotten)"
    is "$(sql "SELECT idem_key, JSON_VALUE(response_body, '$.transactionId') FROM idempotency_keys
            WHERE platform_id = '$PLAT' AND state = 'DONE' ORDER BY 1" | tr '\t' ' ')" \
        "$(jq -r 'sort_by(.key)[] | "\(.key) \(.id)"' "$made")" \
        "$what: each key's stored 201 names the transaction its client was given"
    ROWS_CHECKED=$((ROWS_CHECKED + $(jq length "$W/listed.json") + keys + n))

    # Balances.
    api --nocheck "${P[@]}" GET "/customers/internal-accounts?currency=USD&limit=100"
    is "$STATUS" 200 "$what: GET the internal accounts"
    local accounts=$BODY bal sums in_sum out_sum
    for ((c = 0; c < NCUST; c++)); do
        bal=$(jq -r --arg a "${INT[c]}" '.data[] | select(.id == $a) | .balance.amountMinor' <<<"$accounts")
        sums=$(jq -r --arg cu "${CUST[c]}" '[.[] | select(.customerId == $cu)]
            | "\(map(select(.type == "INCOMING" and .status == "COMPLETED") | .receivedAmount.amountMinor | tonumber) | add // 0) \(map(select(.type == "OUTGOING" and (.status == "COMPLETED" or .status == "PENDING" or .status == "PROCESSING")) | .sentAmount.amountMinor | tonumber) | add // 0)"' \
            "$W/listed.json")
        read -r in_sum out_sum <<<"$sums"
        is "$bal" "$((FUNDED[c] + in_sum - out_sum))" \
            "$what: customer $c: balance = funded ${FUNDED[c]} + completed in $in_sum - completed/pending out $out_sum"
    done
    local out
    out=$(xbctl ledger-check 2>&1)
    is "$?" 0 "$what: xborderctl ledger-check exits 0"
    like "$out" 'ledger ok' "$what: xborderctl ledger-check: ledger ok"
}

: >"$W/made.json"
SUMMARY=()

# === phase 1: SIGKILL of FastCGI workers while transfers run ==============================
D1=$W/p1
make_plans "$D1" 1
# replaced_all: none of $victims is a worker any more, and there are
# $nworkers workers again.
replaced_all() {
    local w v
    w=" $(fcgi_workers) "
    for v in $victims; do
        [[ $w == *" $v "* ]] && return 1
    done
    (($(wc -w <<<"$w") == nworkers))
}
m=$(master)
like "$m" '^[0-9]+$' "phase 1: the stack records the fcgi master's pid"
before=$(fcgi_workers)
nworkers=$(wc -w <<<"$before")
ok "$((nworkers > 0))" "phase 1: the master has $nworkers workers ($before)"
# hold_rows SECONDS: in the background, holds the row locks of the four
# customers and their internal accounts for SECONDS (every transfer takes
# one of them), so that the workers serving transfers are caught waiting,
# in the middle of their request.
hold_rows() {
    local ids='' c
    for ((c = 0; c < NCUST; c++)); do
        ids+="${ids:+,}'${CUST[c]#Customer:}'"
    done
    local accts=''
    for ((c = 0; c < NCUST; c++)); do
        accts+="${accts:+,}'${INT[c]#InternalAccount:}'"
    done
    sql "START TRANSACTION; SELECT COUNT(*) FROM customers WHERE id IN ($ids) FOR UPDATE;
        SELECT COUNT(*) FROM internal_accounts WHERE id IN ($accts) FOR UPDATE; DO SLEEP($1); COMMIT;" >/dev/null &
    HOLDER=$!
}
lock_waits() { sql "SELECT COUNT(*) FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT'"; }

# kill_workers N: SIGKILLs N random workers of the master, waits until the
# master has replaced them.
KILLS1=0 replaced=1
kill_workers() {
    local ws i r=$RANDOM
    read -r -a ws <<<"$(fcgi_workers)"
    victims=
    for ((i = 0; i < $1 && i < ${#ws[@]}; i++)); do
        victims+="${ws[(r + i) % ${#ws[@]}]} "
    done
    kill -KILL $victims
    KILLS1=$((KILLS1 + $(wc -w <<<"$victims")))
    wait_for replaced_all 15 || replaced=0
}

load_start "$D1"
sleep 1.5
# With fault injection, first (so that the lease of the claim left by
# kill-before-commit runs out during the phase): a worker dies right
# after its commit, an answer is lost after the commit (503), a worker
# dies right before its commit.
if ((FAULTS_BUILT)); then
    fault_shot "$D1" 1 1 kill-after-commit
    fault_shot "$D1" 1 2 lose-commit
    fault_shot "$D1" 1 3 kill-before-commit
fi
# Three times: the row locks held, the workers caught waiting on them (in
# the middle of their request, the Idempotency-Key claimed), one or two
# of them killed.
WAITING=()
for k in 1 2 3; do
    hold_rows 4
    wait_for '(($(lock_waits) >= 2))' 3
    WAITING+=("$(lock_waits)")
    kill_workers $((k == 2 ? 2 : 1))
    wait "$HOLDER"
    sleep 0.5
done
# Three times: a worker killed at a random moment.
for k in 1 2 3; do
    kill_workers 1
    sleep 0.7
done
sleep 1
load_stop "$D1"
ok "$replaced" "phase 1: after each of the $KILLS1 SIGKILLs the master had $nworkers workers again"
is "$(master)" "$m" "phase 1: the master itself stays"
answers_ok "$D1" "phase 1"
P1_SENT=$N_SENT P1_503=$N_503
note "phase 1: $N_SENT requests in $LOAD_SECS s by $CLIENTS clients, $KILLS1 fcgi workers SIGKILLed (3 times while ${WAITING[*]} requests waited on held row locks, 3 times at random): $N_201 x 201, $N_503 x 503, $N_OTHER other"
ok "$((N_503 > 0))" "phase 1: the killed workers' requests were answered 503 ($N_503)"
retry_unanswered "$D1" "phase 1"
P1_RETRY="$N_RETRIED unanswered, $N_RETRY_SENT retries in $N_ROUNDS rounds ($RETRY_SECS s): $N_REPLAYED replayed the first result, $N_APPLIED applied once"
note "phase 1 retries: $P1_RETRY"
if ((FAULTS_BUILT)); then
    fs() { jq -r --arg s "${FAULT_SEQ[$1]}" '.[] | select(.seq == $s) | "\(.status) \(.retried) \(.replayed)"' "$D1/final.json"; }
    fs0() { jq -r --arg s "${FAULT_SEQ[$1]}" '.[] | select(.seq == $s) | "\(.status) \(.body.code)"' "$D1/all.json"; }
    is "$(fs0 kill-after-commit) / $(fs kill-after-commit)" "503 SERVICE_UNAVAILABLE / 201 true true" \
        "phase 1: a worker that died right after its commit: 503, the retry replays the committed 201"
    is "$(fs0 lose-commit) / $(fs lose-commit)" "503 SERVICE_UNAVAILABLE / 201 true true" \
        "phase 1: an answer lost after the commit: 503, the retry replays the committed 201"
    is "$(fs0 kill-before-commit) / $(fs kill-before-commit)" "503 SERVICE_UNAVAILABLE / 201 true false" \
        "phase 1: a worker that died right before its commit: 503, the retry (after the lease) applies it once"
    KILLS1F=3
else
    note "phase 1: the stack's build ($bdir) has no fault injection: no kill-after-commit, lose-commit, kill-before-commit shots"
    KILLS1F=0
fi
check_final "$D1" "phase 1"
P1_ROWS=$N_GOT
check_store "phase 1"
SUMMARY+=("phase 1 (SIGKILL fcgi workers): $P1_SENT requests, $KILLS1 workers killed (${WAITING[*]} requests waiting on held row locks at the first three kills), $KILLS1F fault-point shots, $P1_503 x 503; $P1_RETRY")

# === phase 2: MariaDB restart while transfers run ===========================================
D2=$W/p2
make_plans "$D2" 2
# probe DIR: GET /config every 0.1 s until DIR/stop exists, one line an
# answer to DIR/probe: T0 T1 STATUS.
probe() {
    local dir=$1 t0 code
    : >"$dir/probe"
    while [[ ! -e $dir/stop ]]; do
        t0=$(date +%s.%N)
        code=$(curl -sk -o /dev/null -w '%{http_code}' --max-time 10 -u "$P_ID:$P_SECRET" "$XB_BASE_URL/config")
        printf '%s\t%s\t%s\n' "$t0" "$(date +%s.%N)" "$code" >>"$dir/probe"
        sleep 0.1
    done
}
load_start "$D2" 4
probe "$D2" &
DRIVERS+=($!)
sleep 2
T_STOP0=$(date +%s.%N)
cmd_ok "phase 2: scripts/dev db stop while transfers run" dev db stop
T_STOP1=$(date +%s.%N)
sleep 2
cmd_ok "phase 2: scripts/dev db start" dev db start
T_START1=$(date +%s.%N)
# The load goes on until a transfer is answered 201 after the restart (at
# most 20 s), then 3 s more.
# seen_201_after DIR T: a transfer of the phase in DIR was answered 201 after T.
seen_201_after() { awk -F'\t' -v s="$2" '$2 > s && $4 == 201 { f = 1 } END { exit !f }' "$1"/out.[0-9]*; }
wait_for 'seen_201_after "$D2" "$T_START1"' 20
sleep 3
load_stop "$D2"
answers_ok "$D2" "phase 2"
P2_SENT=$N_SENT P2_503=$N_503
ok "$((N_503 > 0))" "phase 2: requests in the gap were answered 503 SERVICE_UNAVAILABLE ($N_503)"
# The gap, in seconds from the moment the database was told to stop:
# seen by the probe (GET /config every 0.1 s), its first and last answer
# other than 200, the longest time between two 200s and the first 200
# after the database was back; and seen by the transfers (answers timed by
# the end of their chunk): first and last 503, the longest time between
# two 201s, the first 201 after the database was back.
jq -R -c 'split("\t") | {t1: (.[1] | tonumber), ok: (.[2] == "200")}' "$D2/probe" >"$D2/probe.json"
jq -c '.[] | {t1, ok: (.status == 201)}' "$D2/all.json" >"$D2/xfer.json"
gap_of() {
    jq -s -r --argjson s0 "$T_STOP0" --argjson s1 "$T_START1" '
        (map(select(.ok | not) | .t1)) as $bad | (map(select(.ok) | .t1) | sort) as $good
        | [($bad | min // $s0) - $s0, ($bad | max // $s0) - $s0,
           ([range(1; $good | length) | $good[.] - $good[. - 1]] | max // 0),
           (([$good[] | select(. >= $s1)] | min // ($s1 + 999)) - $s1), ($bad | length), length]
        | map(. * 10 | round / 10) | @tsv' "$1"
}
read -r pr_first pr_last pr_no200 pr_back pr_bad pr_n <<<"$(gap_of "$D2/probe.json")"
read -r tr_first tr_last tr_no201 tr_back tr_bad tr_n <<<"$(gap_of "$D2/xfer.json")"
pr_gap=$(awk -v a="$pr_first" -v b="$pr_last" 'BEGIN { printf "%.1f", b - a }')
down_secs=$(awk -v a="$T_STOP0" -v b="$T_START1" 'BEGIN { printf "%.1f", b - a }')
stop_secs=$(awk -v a="$T_STOP0" -v b="$T_STOP1" 'BEGIN { printf "%.1f", b - a }')
P2_GAP="db stop issued at 0 s (took $stop_secs s), db start returned at $down_secs s; probe ($pr_n GET /config): $pr_bad non-200 from $pr_first s to $pr_last s (gap $pr_gap s), longest without a 200 $pr_no200 s, first 200 $pr_back s after db start returned; transfers ($tr_n answers): $tr_bad x 503 from $tr_first s to $tr_last s, longest without a 201 $tr_no201 s, first 201 $tr_back s after db start returned (chunk resolution)"
note "phase 2: $N_SENT requests in $LOAD_SECS s: $N_201 x 201, $N_503 x 503, $N_OTHER other"
note "phase 2 gap: $P2_GAP"
ok "$((pr_bad > 0))" "phase 2: the probe saw the database down ($pr_bad answers other than 200)"
ok "$(awk -v g="$pr_gap" -v n="$pr_no200" 'BEGIN { exit !(g < 30 && n < 30) }' && echo 1)" \
    "phase 2: the gap is bounded: non-200 answers within $pr_gap s, no 200 for at most $pr_no200 s (< 30 s)"
ok "$(awk -v g="$tr_no201" 'BEGIN { exit !(g < 30) }' && echo 1)" "phase 2: no 201 for at most $tr_no201 s (< 30 s)"
ok "$(awk -v a="$pr_back" -v b="$tr_back" 'BEGIN { exit !(a >= -5 && a < 10 && b >= -5 && b < 15) }' && echo 1)" \
    "phase 2: answered 200 again $pr_back s and transfers 201 again $tr_back s after db start returned (workers reconnect by themselves)"
statuses=()
for ((i = 0; i < 2 * nworkers; i++)); do
    api --nocheck "${P[@]}" GET /config '' --max-time 10
    statuses+=("$STATUS")
done
is "$(tr ' ' '\n' <<<"${statuses[*]}" | sort -u | tr '\n' ' ')" "200 " \
    "phase 2: $((2 * nworkers)) GET /config afterwards, 200 each (every worker reconnected)"
retry_unanswered "$D2" "phase 2"
P2_RETRY="$N_RETRIED unanswered, $N_RETRY_SENT retries in $N_ROUNDS rounds ($RETRY_SECS s): $N_REPLAYED replayed the first result, $N_APPLIED applied once"
note "phase 2 retries: $P2_RETRY"
check_final "$D2" "phase 2"
P2_ROWS=$N_GOT
check_store "phase 2"
SUMMARY+=("phase 2 (MariaDB restart): $P2_SENT requests, $P2_503 x 503; $P2_GAP; $P2_RETRY")

# === phase 3: SIGKILL of xborder-worker mid-settlement ======================================
D3=$W/p3
make_plans "$D3" 3
load_start "$D3"
sleep 1
KILLS3=0 dead_ok=1 pending_ok=1 restart_ok=1 max_pending=0
for k in 1 2; do
    wp=$(worker_pid)
    # Mid-settlement: some transactions are PENDING.
    wait_for '(($(count_status IN "'"'PENDING'"'") > 0))' 10 || pending_ok=0
    kill -KILL "$wp"
    KILLS3=$((KILLS3 + 1))
    wait_for "gone $wp" 5 || dead_ok=0
    # While it is dead nothing settles; transactions pile up PENDING.
    sleep 0.3
    done0=$(count_status NOT_IN "'PENDING'")
    sleep 2
    done1=$(count_status NOT_IN "'PENDING'")
    pend=$(count_status IN "'PENDING'")
    ((pend > max_pending)) && max_pending=$pend
    [[ $done0 == "$done1" ]] || dead_ok=0
    dev worker start || restart_ok=0
    [[ $(worker_pid) != "$wp" ]] && ! gone "$(worker_pid)" || restart_ok=0
    sleep 1.5
done
load_stop "$D3"
ok "$pending_ok" "phase 3: transactions were PENDING (settling) at each of the $KILLS3 SIGKILLs of xborder-worker"
ok "$dead_ok" "phase 3: each time the worker was gone and nothing settled while it was dead (up to $max_pending PENDING)"
ok "$restart_ok" "phase 3: scripts/dev worker start started a new worker each time"
answers_ok "$D3" "phase 3"
P3_SENT=$N_SENT
note "phase 3: $N_SENT requests in $LOAD_SECS s, $KILLS3 SIGKILLs of xborder-worker (up to $max_pending transactions PENDING): $N_201 x 201, $N_503 x 503, $N_OTHER other"
retry_unanswered "$D3" "phase 3"
P3_RETRY="$N_RETRIED unanswered, $N_RETRY_SENT retries"
check_final "$D3" "phase 3"
P3_ROWS=$N_GOT
check_store "phase 3"
SUMMARY+=("phase 3 (SIGKILL xborder-worker): $P3_SENT requests, $KILLS3 worker kills, up to $max_pending PENDING while dead; settled $SETTLE_SECS s after the load; $P3_RETRY")

# === phase 4: SIGKILL of mariadbd while transfers run, with durable commits ===============
# Not a clean stop: the server dies in the middle of whatever it does, with
# innodb_flush_log_at_trx_commit = 1 (what a production server keeps), and
# starts again with crash recovery.  Every commit it acknowledged survives:
# each 201 is there once, each unanswered request replays or applies once
# with its key, ledger-check (every invariant) is clean.
D4=$W/p4
make_plans "$D4" 4
DB_PIDFILE=$RUNDIR/mysqld.pid
sql "SET GLOBAL innodb_flush_log_at_trx_commit = 1"
is "$(sql "SELECT @@GLOBAL.innodb_flush_log_at_trx_commit")" 1 "phase 4: durable commits (innodb_flush_log_at_trx_commit = 1)"
load_start "$D4" 4
sleep 2
dbpid=$(cat "$DB_PIDFILE" 2>/dev/null)
like "$dbpid" '^[0-9]+$' "phase 4: the stack records mariadbd's pid"
T_KILL=$(date +%s.%N)
kill -KILL "$dbpid"
wait_for "gone $dbpid" 10
ok "$(gone "$dbpid" && echo 1)" "phase 4: mariadbd SIGKILLed while transfers run"
sleep 1
cmd_ok "phase 4: scripts/dev db start (crash recovery)" dev db start
T_BACK=$(date +%s.%N)
wait_for 'seen_201_after "$D4" "$T_BACK"' 30
ok "$(seen_201_after "$D4" "$T_BACK" && echo 1)" "phase 4: transfers answered 201 again after the restart"
sleep 2
load_stop "$D4"
answers_ok "$D4" "phase 4"
P4_SENT=$N_SENT P4_503=$N_503
ok "$((N_503 > 0 || N_OTHER > 0))" "phase 4: requests in the gap went unanswered or 503 ($N_503 x 503, $N_OTHER other)"
note "phase 4: $N_SENT requests in $LOAD_SECS s, mariadbd SIGKILLed $(since "$T_KILL") s before this line: $N_201 x 201, $N_503 x 503, $N_OTHER other"
retry_unanswered "$D4" "phase 4"
P4_RETRY="$N_RETRIED unanswered, $N_RETRY_SENT retries in $N_ROUNDS rounds ($RETRY_SECS s): $N_REPLAYED replayed the first result, $N_APPLIED applied once"
note "phase 4 retries: $P4_RETRY"
check_final "$D4" "phase 4"
P4_ROWS=$N_GOT
check_store "phase 4"
SUMMARY+=("phase 4 (SIGKILL mariadbd, durable commits): $P4_SENT requests, $P4_503 x 503; $P4_RETRY")

# --- the summary ---------------------------------------------------------------------------
total=$(jq -s length "$W/made.json")
note "faults under load, in $((SECONDS - T_START)) s: $((P1_SENT + P2_SENT + P3_SENT + P4_SENT)) transfer requests, $total transactions," \
    "$((KILLS1 + KILLS1F + 1 + KILLS3 + 1)) faults ($KILLS1 fcgi workers SIGKILLed, $KILLS1F fault points, 1 MariaDB restart, $KILLS3 xborder-worker SIGKILLs, 1 mariadbd SIGKILL);" \
    "$((P1_ROWS + P2_ROWS + P3_ROWS + P4_ROWS)) transactions fetched one by one, $ROWS_CHECKED rows checked in the listing and the database"
for s in "${SUMMARY[@]}"; do note "$s"; done

done_testing
