#!/usr/bin/env bash
# 55-fcgi-signals.t - the prefork master under signals, on the real stack:
#  - SIGHUP rolls the workers (every worker pid is replaced) while requests
#    keep being answered, one whose worker had accepted it but not yet read
#    it included;
#  - a worker killed with SIGKILL is replaced and service goes on;
#  - SIGTERM lets an in-flight request finish (it is held on a database row
#    lock for a few seconds) before the master exits; then the stack's fcgi
#    is started again.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
no_plan

DEV=${XB_ROOT:-$XB_REPO}/scripts/dev
PIDFILE=${XB_DEV_DIR:?}/run/xborder-fcgi.pid
SOCK=$XB_DEV_DIR/run/mysqld.sock
restart_needed=0
at_exit 'if ((restart_needed)); then "$DEV" fcgi start >/dev/null 2>&1; fi'

master() { cat "$PIDFILE" 2>/dev/null; }
workers() { pgrep -P "$(master)" | sort | tr '\n' ' '; }

# hammer N: N sequential GET /config; prints how many were not 200.
hammer() {
    local bad=0 i code
    for ((i = 0; i < $1; i++)); do
        code=$(curl -sk -o /dev/null -w '%{http_code}' --max-time 10 \
            -u "$XB_CLIENT_ID:$XB_CLIENT_SECRET" "$XB_BASE_URL/config")
        [[ $code == 200 ]] || bad=$((bad + 1))
    done
    echo "$bad"
}

m=$(master)
like "$m" '^[0-9]+$' "the stack records the master's pid"
before=$(workers)
ok "$([[ -n $before ]] && echo 1)" "the master has workers: $before"

# --- SIGHUP: roll the workers, no request lost ---------------------------------------
hammer 200 >"$_API_TMP/hup.bad" &
load=$!
sleep 0.3
kill -HUP "$m"
wait_for '[[ -n $(workers) ]] && ! grep -qwF -f <(tr " " "\n" <<<"$before" | grep .) <<<"$(workers)"' 15
after=$(workers)
wait "$load"
is "$(<"$_API_TMP/hup.bad")" 0 "200 requests during SIGHUP: every one answered 200"
ok "$([[ -n $after ]] && ! grep -qwF -f <(tr ' ' '\n' <<<"$before" | grep .) <<<"$after" && echo 1)" \
    "SIGHUP replaced every worker ($before -> $after)"
is "$(master)" "$m" "the master itself stays"

# --- SIGHUP while a worker waits for a connection's first bytes --------------------------
# libfcgi's accept waits up to 2 s for a new connection's first bytes and
# drops the connection when a signal interrupts that wait: a worker rolled
# (SIGTERM) in that moment lost the request, which nginx answered 502 (once
# in a check run of the 200 requests above).  Here the moment is made: a
# connection straight to the FastCGI socket stays silent until a worker
# waits on it (in poll, x86-64 system call 7), the master is sent SIGHUP,
# then the request goes: it is answered.
FCGI_SOCK=$(sed -n 's/^listen *= *unix://p' "$XB_CONF" | tail -n 1)
FCGI_SOCK=${FCGI_SOCK:-$XB_DEV_DIR/run/fcgi.sock}
in_first_bytes_wait() {
    local w
    for w in $(workers); do
        [[ $(cut -d' ' -f1 "/proc/$w/syscall" 2>/dev/null) == 7 ]] && return 0
    done
    return 1
}
"$_API_LIB_DIR/fcgi-idle-client" "$FCGI_SOCK" 1500 /healthz >"$_API_TMP/idle.out" 2>&1 &
idle=$!
wait_for in_first_bytes_wait 5 || diag "no worker was seen waiting for the connection's first bytes"
before=$(workers)
kill -HUP "$m"
wait "$idle"
is "$(tail -n 1 "$_API_TMP/idle.out")" "Status: 200 OK" \
    "a connection silent while SIGHUP rolls the worker that accepted it: answered (200)"
wait_for '[[ -n $(workers) ]] && ! grep -qwF -f <(tr " " "\n" <<<"$before" | grep .) <<<"$(workers)"' 15
ok "$([[ -n $(workers) ]] && ! grep -qwF -f <(tr ' ' '\n' <<<"$before" | grep .) <<<"$(workers)" && echo 1)" \
    "... and the roll replaced every worker"

# --- SIGKILL of one worker: replaced -----------------------------------------------------
victim=$(workers | awk '{print $1}')
n=$(wc -w <<<"$(workers)")
kill -KILL "$victim"
wait_for '! grep -qw "$victim" <<<"$(workers)" && (( $(wc -w <<<"$(workers)") == n ))' 15
ok "$(! grep -qw "$victim" <<<"$(workers)" && echo 1)" "worker $victim killed: gone"
is "$(wc -w <<<"$(workers)")" "$n" "and replaced: $n workers again"
is "$(hammer 20)" 0 "20 requests after the kill: all 200"

# --- SIGTERM: the in-flight request finishes ---------------------------------------------
mk_customer signals
int_account "$CUST"
mk_ext "$CUST" 000777888001
fund "$INT" 5000
raw=${INT#InternalAccount:}
mariadb --no-defaults --socket="$SOCK" --user="$(id -un)" xborder -e \
    "START TRANSACTION; SELECT balance FROM internal_accounts WHERE id = '$raw' FOR UPDATE; DO SLEEP(4); COMMIT;" \
    >/dev/null 2>&1 &
holder=$!
sleep 0.5
curl -sk -o "$_API_TMP/inflight.body" -w '%{http_code}' --max-time 30 \
    -u "$XB_CLIENT_ID:$XB_CLIENT_SECRET" -H 'Content-Type: application/json' \
    --data-binary "$(xfer_body "$INT" "$EXT" 1200)" "$XB_BASE_URL/transfer-out" >"$_API_TMP/inflight.code" &
inflight=$!
sleep 1
restart_needed=1
kill -TERM "$m"
wait "$inflight"
wait "$holder"
is "$(<"$_API_TMP/inflight.code")" 201 "a request in flight when SIGTERM came still gets its answer (201)"
jis '.sentAmount.amountMinor' '"1200"' "and it is the transfer" "$(<"$_API_TMP/inflight.body")"
wait_for '! kill -0 '"$m"' 2>/dev/null' 35
ok "$(! kill -0 "$m" 2>/dev/null && echo 1)" "the master exits after its workers"
api --nocheck GET /config
is "$STATUS" 503 "with the fcgi stopped, nginx answers 503"
"$DEV" fcgi start >/dev/null 2>&1
restart_needed=0
wait_for '[[ $(curl -sk -o /dev/null -w "%{http_code}" -u "$XB_CLIENT_ID:$XB_CLIENT_SECRET" "$XB_BASE_URL/config") == 200 ]]' 20
api GET /config
is_status 200 "fcgi started again: 200"
balance_of "$INT"
is "$BAL" 3800 "the transfer moved its money once: 5000 - 1200"

done_testing
