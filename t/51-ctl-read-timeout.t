#!/usr/bin/env bash
# 51-ctl-read-timeout.t - xborderctl waits for MariaDB's answer as long as
# ctl_read_timeout says (xborder.conf(5); a day by default), not the 30 s
# of the services' connections: ledger-check and migrate read or rebuild
# whole tables, and on a large database one statement alone took 24 s.
# A statement held up by a table lock (LOCK TABLES ... WRITE in another
# session, for a few seconds):
#  - with ctl_read_timeout = 2, ledger-check gives up after about 2 s, with
#    the client's error and a non-zero exit, before the lock is let go;
#  - with the default, it waits for the lock and finishes: ledger ok.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$_API_LIB_DIR/stack.sh"
no_plan

HOLD=6
# hold_lock: schema_migrations (read by ledger-check's postings and
# quote-fees checks) locked for HOLD seconds by a session of its own, in
# the background; returns once the session holds it.
hold_lock() {
    sql "LOCK TABLES schema_migrations WRITE; DO SLEEP($HOLD); UNLOCK TABLES" &
    LOCKER=$!
    wait_for "[[ \$(sql \"SELECT COUNT(*) FROM information_schema.PROCESSLIST
        WHERE INFO = 'DO SLEEP($HOLD)'\") == 1 ]]" 10
}
at_exit 'kill "${LOCKER:-0}" 2>/dev/null || true'

SHORT=$_API_TMP/short-timeout.conf
printf 'ctl_read_timeout = 2\n' >"$SHORT"

# ms: milliseconds since the epoch.
ms() { echo $(($(date +%s%N) / 1000000)); }

hold_lock
ok "$((! $?))" "a session holds schema_migrations locked for $HOLD s"
t0=$(ms)
out=$(xbctl -c "$SHORT" ledger-check 2>&1)
rc=$? took=$(($(ms) - t0))
isnt "$rc" 0 "ledger-check with ctl_read_timeout = 2 under the lock: a non-zero exit"
like "$out" 'ledger-check: 2006: Server has gone away' \
    "... with the client's error" || diag "$out"
ok "$((took >= 1800 && took < HOLD * 1000))" "... after about 2 s, before the lock was let go ($took ms)"
wait "$LOCKER"

hold_lock
ok "$((! $?))" "the lock held again for $HOLD s"
t0=$(ms)
out=$(xbctl ledger-check 2>&1)
rc=$? took=$(($(ms) - t0))
is "$rc" 0 "ledger-check with the default ctl_read_timeout under the lock: exit 0" || diag "$out"
like "$out" '(^|'$'\n'')ledger ok$' "... ledger ok"
ok "$((took >= 2000))" "... having waited for the lock ($took ms)"
wait "$LOCKER"

# The key is xborderctl's: a value out of range is refused by name.
printf 'ctl_read_timeout = 0\n' >"$SHORT"
out=$(xbctl -c "$SHORT" ledger-check 2>&1)
rc=$?
isnt "$rc" 0 "ctl_read_timeout = 0: refused"
like "$out" 'ctl_read_timeout' "... naming the key" || diag "$out"
done_testing
