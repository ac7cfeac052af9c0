#!/usr/bin/env bash
# zz-invariants.t - runs after the other suites: xborder-worker checked the
# ledger's invariants continuously under all of them (the check stack sets
# invariant_interval = 2), and found nothing broken but what a suite broke
# on purpose behind the ledger's back and recorded (t/lib/stack.sh's
# planted: t/67, t/76).  A false alarm of the recent checks under
# concurrent traffic fails here.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$_API_LIB_DIR/stack.sh"
no_plan

interval=$(sed -n 's/^invariant_interval *= *//p' "$XB_CONF" | tail -n 1)
[[ ${interval:-60} == 0 ]] && plan skip_all "invariant_interval = 0 in $XB_CONF"
LOG=$XB_DEV_DIR/log/xborder-worker.log
PLANTED=$XB_DEV_DIR/log/planted-faults

runs=$(sql "SELECT COUNT(*), IFNULL(SUM(examined), 0) FROM invariant_runs")
read -r nruns examined <<<"$runs"
ok "$((nruns > 0))" "xborder-worker ran its invariant checks ($nruns runs kept, $examined entries and events)"
diag "invariant checks: $nruns runs, $examined ledger entries and webhook events examined"

broken=$(grep -F 'msg="invariant broken"' "$LOG" 2>/dev/null | sed -n 's/.* id=\([^ ]*\) .*/\1/p' | sort -u)
unplanted=()
for id in $broken; do
    grep -qxF -- "$id" "$PLANTED" 2>/dev/null || unplanted+=("$id")
done
is "${unplanted[*]}" "" "every row the checks reported was broken on purpose by a suite ($(wc -w <<<"$broken") reported)" ||
    diag "$(grep -F 'msg="invariant broken"' "$LOG" | grep -F -- "${unplanted[0]}" | head -n 3)"

done_testing
