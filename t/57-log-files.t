#!/usr/bin/env bash
# 57-log-files.t - log_file, SIGUSR1 and the shipped logrotate snippet, with
# a second xborder-fcgi master and an xborder-worker of this test's own
# (their own socket, counters and log file; the stack's database):
#  - every line they write is logfmt with ts, level, prog, pid and msg;
#  - logrotate, with the shipped snippet (its path and its postrotate
#    command pointed at this test's processes), renames the file and
#    SIGUSR1 makes the master and each of its workers, and xborder-worker,
#    write to a fresh file: the workers' exit lines and the worker's stop
#    line land in the new file, nothing after the signal in the old one.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
no_plan

BIN=$(dirname "${XB_CTL%% *}")
T=$_API_TMP/logs
mkdir -p "$T"
LOG=$T/xborder.log
FCGI_PID= WORKER_PID=
at_exit 'for p in $FCGI_PID $WORKER_PID; do kill -TERM $p 2>/dev/null; done; sleep 0.5; for p in $FCGI_PID $WORKER_PID; do kill -KILL $p 2>/dev/null; done'

# logfmt_ok FILE: 1 when every line of FILE is logfmt with the fixed fields.
logfmt_ok() {
    perl -ne '
        chomp;
        my $l = $_; my %f;
        while ($l =~ s/^([a-z_]+)=("(?:[^"\\]|\\.)*"|[^ "=]+)( |$)//) { $f{$1} = $2 }
        if ($l ne "" || grep { !exists $f{$_} } qw(ts level prog pid msg)) { $bad++; print STDERR "bad: $_\n" }
        END { print $bad ? 0 : 1 }' "$1"
}

sed -e "s|^listen = .*|listen = unix:$T/fcgi.sock|" \
    -e "s|^stats_file = .*|stats_file = $T/stats|" \
    -e "s|^log_level = .*|log_level = debug|" \
    -e "s|^workers = .*|workers = 2|" "$XB_CONF" >"$T/xborder.conf"
echo "log_file = $LOG" >>"$T/xborder.conf"

"$BIN/xborder-fcgi" -c "$T/xborder.conf" 2>"$T/fcgi.stderr" &
FCGI_PID=$!
ok "$(wait_for '[[ $(pgrep -P '"$FCGI_PID"' | wc -l) -eq 2 ]] && grep -q "listening on" "$LOG" 2>/dev/null' 15 && echo 1)" \
    "xborder-fcgi with log_file: listening, 2 workers"
"$BIN/xborder-worker" -c "$T/xborder.conf" 2>"$T/worker.stderr" &
WORKER_PID=$!
ok "$(wait_for 'grep -q "prog=xborder-worker.*started" "$LOG" 2>/dev/null' 15 && echo 1)" \
    "xborder-worker with the same log_file: started"
workers=$(pgrep -P "$FCGI_PID" | sort -n | tr '\n' ' ')
like "$(grep -m1 'listening on' "$LOG")" \
    "^ts=20[0-9-]+T[0-9:.]+Z level=info prog=xborder-fcgi pid=$FCGI_PID msg=\"xborder-fcgi " \
    "the master's first line: ts, level, prog, pid, msg"
is "$(logfmt_ok "$LOG")" 1 "every line so far is logfmt with ts, level, prog, pid and msg"
is "$(wc -c <"$T/fcgi.stderr")" 0 "nothing on xborder-fcgi's stderr"

# --- logrotate with the shipped snippet ----------------------------------------------------
SNIPPET=$XB_REPO/logrotate/xborder
ok "$([[ -r $SNIPPET ]] && echo 1)" "the logrotate snippet ships (logrotate/xborder)"
cmd_ok "logrotate -d accepts the shipped snippet" bash -c 'logrotate -d -s "$1" "$2" 2>/dev/null' _ "$T/lr.state.d" "$SNIPPET"
# This test's path, and its processes in place of the systemd units.
perl -pe 's{^/var/log/xborder/\*\.log}{'"$T"'/*.log};
          s{^(\s*)systemctl kill .*$}{$1kill -USR1 '"$FCGI_PID $WORKER_PID"'}' "$SNIPPET" >"$T/logrotate.conf"
like "$(grep -c "kill -USR1 $FCGI_PID $WORKER_PID" "$T/logrotate.conf")" '^1$' "the rendered snippet signals this test's processes"
old_size=$(wc -c <"$LOG")
cmd_ok "logrotate -f rotates the log" logrotate -f -s "$T/lr.state" "$T/logrotate.conf"
ok "$([[ -s $LOG.1 ]] && echo 1)" "the old lines are in xborder.log.1 ($old_size bytes)"
ok "$(wait_for 'grep -q "log file reopened" "$LOG" 2>/dev/null' 10 && echo 1)" \
    "after SIGUSR1 the master writes to a fresh xborder.log"

# The workers' and xborder-worker's last lines (debug and info) must land there too.
kill -TERM "$WORKER_PID"
ok "$(wait_for '! kill -0 '"$WORKER_PID"' 2>/dev/null' 20 && echo 1)" "xborder-worker stops on SIGTERM"
WORKER_PID=
kill -TERM "$FCGI_PID"
ok "$(wait_for '! kill -0 '"$FCGI_PID"' 2>/dev/null' 40 && echo 1)" "xborder-fcgi stops on SIGTERM"
FCGI_PID=
for w in $workers; do
    like "$(grep "pid=$w " "$LOG" | tail -n 1)" 'msg="worker exits after' \
        "worker $w wrote its exit line to the new file"
done
like "$(grep 'prog=xborder-worker' "$LOG" | tail -n 1)" 'msg="xborder-worker stopped after' \
    "xborder-worker wrote its stop line to the new file"
like "$(tail -n 1 "$LOG")" 'prog=xborder-fcgi .*msg=stopped' "the master's last line is in the new file"
is "$(grep -c 'reopened\|exits after\|stopped' "$LOG.1")" 0 "nothing after the signal went to the old file"
is "$(logfmt_ok "$LOG")" 1 "every line of the new file is logfmt with the fixed fields"
is "$(logfmt_ok "$LOG.1")" 1 "... and of the old one"

done_testing
