#!/usr/bin/env bash
# 08-bench-report.t - bench/run judges a run round by round: each round of
# each scenario against that round's floor (not the medians), transfer-out
# against bench/payout-bound, and the goals of bench/README, each held only
# when it held in every round.  Fed a --json document with chosen numbers
# through `bench/run --table` (which runs nothing):
#  - a ratio exactly at its limit holds (at least 0.85, at least 0.6, at
#    least 0.75, at most 2 s, at most 1.05), one just under misses, naming
#    the round; p99 must be under 2 x the floor's: exactly 2 misses;
#  - a round is compared with its own floor: the same rate passes against
#    a slow round's floor and misses against a fast one's; a scenario run
#    in turns with a floor of its own is compared with that one instead;
#  - a round with no floor misses; a scenario that did not run has no goal;
#  - a ledger-check with problems misses;
#  - the header says how large InnoDB's buffer pool and redo log are;
#  - a document that is not JSON is refused, non-zero.
# Needs no stack: only tap.sh and jq.
. "$(dirname "${BASH_SOURCE[0]}")/lib/tap.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/jq.sh"
no_plan

XB_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUN=$XB_REPO/bench/run
TMP=$(mktemp -d "${TMPDIR:-/tmp}/xb-t08.XXXXXX")
at_exit 'rm -rf "$TMP"'

# doc FILE SCENARIOS-JSON [LEDGER-CLEAN] [RSS-RATIO]: a --json document of
# three rounds with the scenarios given as [[name, title, [[rps, p99_ms,
# drain_ms, floor_rps, floor_p99_ms]...]]...] (the last two: the floor run
# in turns with it, if any), bench/payout-bound at 1,000 payouts/s.
doc() {
    jq -n --argjson sc "$2" --argjson clean "${3:-true}" --argjson rss "${4:-1.01}" '
        {date: "2026-11-28 00:00 UTC",
         machine: {nproc: 2, cpu: "test", kernel: "test"},
         settings: {workers: 4, floor_workers: 4, connections: 32, threads: 2,
            duration_s: 10, rounds: 3, rows: 100000, transactions: 100000,
            deep_cursor: 50000, innodb_flush_log_at_trx_commit: 1,
            database_mib: 100, innodb_buffer_pool_mib: 256, innodb_log_file_mib: 64},
         rss: {after_1k: {requests: 1000, workers: [], max_kib: 100, sum_kib: 400},
            after_100k: {requests: 100000, workers: [], max_kib: 101, sum_kib: 404},
            ratio_max: $rss, ratio_sum: 1.01},
         ledger_check: {clean: $clean, output: (if $clean then "" else "check x: 1 problem" end)},
         payout_bound_rps: 1000,
         scenarios: [$sc[] | {scenario: .[0], title: .[1],
            rps: (.[2] | map(.[0]) | add / length), p50_ms: 1, p99_ms: 2, errors: 0,
            backlog: 0, drain_ms: 0, settled_rps: 1,
            ratio_to_floor: null, per_request: {},
            by_round: [.[2] | to_entries[] | {round: (.key + 1), rps: .value[0],
                p99_ms: .value[1], drain_ms: (.value[2] // 0), backlog: 0}
                + (if .value[3] == null then {} else {floor_rps: .value[3],
                    floor_p99_ms: .value[4]} end)]}]}' >"$1"
}

# goal FILE TEXT: the goal line of bench/run --table FILE that names TEXT.
goal() {
    "$RUN" --table "$1" | grep -E '^  (held|MISSED) |^goals held' | grep -F -- "$2" |
        head -n 1 | sed 's/  */ /g; s/^ //'
}

# The floor: 10,000 req/s in round 1, 20,000 in round 2, 10,000 in round
# 3; p99 4 ms each round.
FLOOR='["floor", "floor (PK select)", [[10000, 4], [20000, 4], [10000, 4]]]'
doc "$TMP/a.json" "[$FLOOR,
    [\"config\", \"GET /config\", [[8500, 7.9], [17000, 8], [8600, 1]]],
    [\"txn-get\", \"GET /transactions/{id}\", [[8499, 1], [20000, 1], [9000, 1]]],
    [\"list\", \"GET /transactions?limit=20\", [[6000, 1], [12000, 1], [6000, 1]]],
    [\"list-type\", \"  ... &type=OUTGOING\", [[6000, 1], [6000, 1], [7000, 1]]],
    [\"transfer-out\", \"POST /transfer-out\", [[750, 50, 2000], [749, 50, 100], [900, 50, 2001]]]]"

out=$("$RUN" --table "$TMP/a.json")
like "$out" 'innodb_buffer_pool_size 256 MiB, innodb_log_file_size 64 MiB' \
    "the header says how large InnoDB's buffer pool and redo log are"
like "$out" 'by round, each against that round.s floor \(10000, 20000, 10000 req/s\)' \
    "the floor of each round is printed"
is "$(goal "$TMP/a.json" 'GET /config >= 0.85')" \
    "held GET /config >= 0.85 x the floor 0.85 0.85 0.86" \
    "0.85 x the floor holds: 8,500 against 10,000, 17,000 against 20,000"
is "$(goal "$TMP/a.json" 'GET /config p99')" \
    "MISSED GET /config p99 < 2 x the floor's 1.98 2.00 0.25 (round 2)" \
    "p99 exactly 2 x the floor's misses; 1.98 x holds"
is "$(goal "$TMP/a.json" 'GET /transactions/{id} >= 0.85')" \
    "MISSED GET /transactions/{id} >= 0.85 x the floor 0.85 1.00 0.90 (round 1)" \
    "8,499 against 10,000 misses (0.8499), though printed 0.85"
is "$(goal "$TMP/a.json" 'GET /transactions?limit=20 >=')" \
    "held GET /transactions?limit=20 >= 0.6 x the floor 0.60 0.60 0.60" \
    "a list page at exactly 0.6 x holds"
is "$(goal "$TMP/a.json" '&type=OUTGOING')" \
    "MISSED GET /transactions?limit=20&type=OUTGOING >= 0.6 x the floor 0.60 0.30 0.70 (round 2)" \
    "6,000 req/s holds against a 10,000 floor and misses against a 20,000 one; the title is the whole request"
is "$(goal "$TMP/a.json" 'bench/payout-bound')" \
    "MISSED POST /transfer-out >= 0.75 x bench/payout-bound 0.75 0.75 0.90 (round 2)" \
    "transfer-out against payout-bound's 1,000/s: 750 holds, 749 misses"
is "$(goal "$TMP/a.json" 'settlements due')" \
    "MISSED POST /transfer-out: settlements due at the stop done within 2 s 2.00 0.10 2.00 (round 3)" \
    "settlement done in 2,000 ms holds, in 2,001 misses"
is "$(goal "$TMP/a.json" 'worker RSS')" \
    "held worker RSS after the run <= 1.05 x after the warm-up 1.01" "RSS x 1.01 holds"
is "$(goal "$TMP/a.json" 'ledger-check clean')" "held xborderctl ledger-check clean 1.00" \
    "a clean ledger holds"
is "$(goal "$TMP/a.json" 'goals held:')" "goals held: 5 of 10" "ten goals, five held"
unlike "$out" 'list-status|customerId' "scenarios that did not run have no goal"
is "$(grep -cE '^  (held|MISSED) ' <<<"$out")" 10 "one line per goal"

# A round with no floor misses; a ledger with problems and RSS over 1.05 x miss.
doc "$TMP/b.json" '[["floor", "floor (PK select)", [[10000, 4], [10000, 4]]],
    ["config", "GET /config", [[9000, 4], [9000, 4], [9000, 4]]]]' false 1.051
is "$(goal "$TMP/b.json" 'GET /config >= 0.85')" \
    "MISSED GET /config >= 0.85 x the floor 0.90 0.90 n/a (round 3)" \
    "round 3 had no floor: it misses"
is "$(goal "$TMP/b.json" 'worker RSS')" \
    "MISSED worker RSS after the run <= 1.05 x after the warm-up 1.05 (round 1)" \
    "RSS x 1.051 misses"
is "$(goal "$TMP/b.json" 'ledger-check clean')" \
    "MISSED xborderctl ledger-check clean 0.00 (round 1)" "a ledger with problems misses"
unlike "$("$RUN" --table "$TMP/b.json")" 'transfer-out' "no transfer-out, no payout goal"

# A scenario with a floor of its own (run in turns with it) is judged
# against that one, not the round's: 8,500 req/s holds against its own
# 10,000 in the round whose floor was 20,000, and misses against its own
# 20,000 in a round whose floor was 10,000; its p99 against its own too.
doc "$TMP/d.json" "[$FLOOR,
    [\"config\", \"GET /config\", [[8500, 4, 0, 20000, 1], [8500, 4, 0, 10000, 4], [8500, 4]]],
    [\"list\", \"GET /transactions?limit=20\", [[6000, 1, 0, 10000, 1], [6000, 1], [6000, 1]]]]"
is "$(goal "$TMP/d.json" 'GET /config >= 0.85')" \
    "MISSED GET /config >= 0.85 x the floor 0.43 0.85 0.85 (round 1)" \
    "its own floor: 8,500 misses against 20,000 (round 1, the round's 10,000), holds against 10,000 (round 2, the round's 20,000)"
is "$(goal "$TMP/d.json" 'GET /config p99')" \
    "MISSED GET /config p99 < 2 x the floor's 4.00 1.00 1.00 (round 1)" \
    "... and its p99 against its own floor's"
is "$(goal "$TMP/d.json" 'GET /transactions?limit=20 >=')" \
    "MISSED GET /transactions?limit=20 >= 0.6 x the floor 0.60 0.30 0.60 (round 2)" \
    "a round without a floor of its own is judged against the round's (20,000 in round 2)"
like "$("$RUN" --table "$TMP/d.json")" 'GET /config: the floor run in turns with it \(20000, 10000, -' \
    "the table prints each round's own floor"

# JSON: the same judgement, by round.
is "$("$RUN" --table "$TMP/a.json" --json |
    jq -c '[.scenarios[] | select(.scenario == "list-type") | .by_round[].ratio_to_floor]')" \
    "[0.6,0.3,0.7]" "--json: by_round's ratio_to_floor is each round's own"
is "$("$RUN" --table "$TMP/a.json" --json | jq -c '[.goals[] | select(.held | not) | .failed_rounds]')" \
    "[[2],[1],[2],[2],[3]]" "--json: the goals missed, with their rounds"

echo 'not json' >"$TMP/c.json"
"$RUN" --table "$TMP/c.json" >/dev/null 2>&1
isnt "$?" 0 "a document that is not JSON is refused"

done_testing
