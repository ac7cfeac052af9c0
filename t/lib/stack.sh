# t/lib/stack.sh - the running stack's own parts, for suites that set a
# state up directly or stop a daemon for a moment.  Sourced after api.sh.
#
#   sql STATEMENTS        runs them in the stack's private MariaDB (its unix
#                         socket, as the OS user); prints rows tab-separated
#   dev ARGS...           scripts/dev quietly (a diag with its last lines on
#                         failure; non-zero then)
#   worker_stop           scripts/dev worker stop; started again at exit
#   worker_start          scripts/dev worker start
#   planted ID...         records ids of rows a suite breaks on purpose
#                         behind the ledger's back, which xborder-worker's
#                         invariant checks may then report (zz-invariants.t
#                         allows those, and only those)

[[ -n ${_STACK_SH_LOADED:-} ]] && return 0
_STACK_SH_LOADED=1

DEV=${XB_ROOT:-$XB_REPO}/scripts/dev
SOCK=${XB_DEV_DIR:?}/run/mysqld.sock

sql() {
    mariadb --no-defaults --socket="$SOCK" --user="$(id -un)" --batch --skip-column-names \
        xborder -e "$1"
}

dev() {
    if "$DEV" "$@" >"$_API_TMP/dev.log" 2>&1; then return 0; fi
    diag "scripts/dev $* failed: $(tail -n 5 "$_API_TMP/dev.log")"
    return 1
}

worker_stopped=0
planted() { printf '%s\n' "$@" >>"$XB_DEV_DIR/log/planted-faults"; }

worker_stop() { dev worker stop && worker_stopped=1; }
worker_start() { dev worker start && worker_stopped=0; }
at_exit 'if ((worker_stopped)); then dev worker start; fi'

# workers: the live FastCGI workers' counters (xborderctl status --json), as
# a JSON array of {slot, pid, requests, authCacheHits, status2xx, status4xx}.
workers() {
    xbctl status --json | jq -c '[.workers[] | select(.alive)
        | {slot, pid, requests, authCacheHits, status2xx, status4xx}]'
}

# uncovered BEFORE COUNTER: how many live workers have not moved COUNTER
# since BEFORE (a `workers` snapshot).
uncovered() {
    jq -n --argjson b "$1" --argjson a "$(workers)" --arg c "$2" \
        '[$a[] as $w | ($b[] | select(.slot == $w.slot)) as $o
          | select($w[$c] <= $o[$c])] | length'
}

# until_every_worker MAX CMD...: runs CMD (one request or more) again and
# again until every live worker has served one of them (its request counter
# moved), at most MAX times.  Which worker accepts a request is up to the
# kernel: a warm-up of a fixed count may miss one.  Non-zero when MAX runs
# left a worker unreached.
until_every_worker() {
    local max=$1 n before
    shift
    before=$(workers)
    for ((n = 0; n < max; n++)); do
        "$@"
        (($(uncovered "$before" requests) == 0)) && return 0
    done
    return 1
}
