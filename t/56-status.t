#!/usr/bin/env bash
# 56-status.t - the operator's status: `xborderctl status` and GET /status.
#  - GET /status needs no credentials, answers loopback (this test runs on
#    127.0.0.1) with the document the OpenAPI validator checks, and matches
#    `xborderctl status --json`;
#  - known traffic moves the counters by exactly that much: requests,
#    answers by status class, argon2 verifications + credential-cache hits;
#  - a worker killed with SIGKILL shows as a death and a start in its slot,
#    with the new worker's pid;
#  - connections killed in MariaDB show as reconnects (dbConnects);
#  - with xborder-worker stopped, a payout's settlement job shows in the
#    job queue, and a platform's undelivered webhook events in the backlog
#    by platform; both drain once the worker runs again.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
no_plan

DEV=${XB_ROOT:-$XB_REPO}/scripts/dev
PIDFILE=${XB_DEV_DIR:?}/run/xborder-fcgi.pid
SOCK=$XB_DEV_DIR/run/mysqld.sock
worker_stopped=0
at_exit 'if ((worker_stopped)); then "$DEV" worker start >/dev/null 2>&1; fi'

# status: `xborderctl status --json` into ST (no HTTP request, so the
# counters are not moved by reading them).
status() { ST=$(xbctl status --json); }
# total NAME: a summed counter of ST.
total() { jq -r ".counters.$1" <<<"$ST"; }
# moved NAME: how much a summed counter grew since BEFORE.
moved() { echo $(($(jq -r ".counters.$1" <<<"$ST") - $(jq -r ".counters.$1" <<<"$BEFORE"))); }

# --- the document ------------------------------------------------------------------------
api --noauth GET /status
is_status 200 "GET /status without credentials, from loopback: 200"
has_keys "$BODY" 'time version database counters workers jobs webhooks invariants' \
    "GET /status: time, version, database, counters, workers, jobs, webhooks, invariants"
is "$(jr .database)" ok "database: ok"
workers=$(jq '[.workers[] | select(.alive)] | length' <<<"$BODY")
ok "$((workers >= 1))" "the live workers are listed ($workers)"
m=$(cat "$PIDFILE")
is "$(jq -r '[.workers[] | select(.alive) | .pid] | sort | map(tostring) | join(" ")' <<<"$BODY")" \
    "$(pgrep -P "$m" | sort -n | tr '\n' ' ' | sed 's/ $//')" \
    "the live workers' pids are the master's children"
is "$(jq '[.workers[] | .requests] | add' <<<"$BODY")" "$(jr .counters.requests)" \
    "counters.requests is the sum over the slots"

cmd_ok "xborderctl status (text)" xbctl status
out=$(xbctl status)
like "$out" $'(^|\n)counters: requests=[0-9]+ ' "xborderctl status prints the summed counters"
like "$out" $'(^|\n)worker: slot=[0-9]+ pid=[0-9]+ alive=true ' "... a line per worker"
like "$out" $'(^|\n)jobs: queued=[0-9]+ due=[0-9]+ ' "... the job queue"
like "$out" $'(^|\n)webhooks: pending=[0-9]+' "... the webhook backlog"
status
is "$(jq -r '.counters | keys | sort | join(" ")' <<<"$ST")" \
    "$(jq -r '.counters | keys | sort | join(" ")' <<<"$BODY")" \
    "xborderctl status --json has the counters GET /status has"

# --- known traffic, exact counts ------------------------------------------------------------
status
BEFORE=$ST
for ((i = 0; i < 7; i++)); do api --nocheck GET /config; done
for ((i = 0; i < 3; i++)); do api --nocheck --noauth GET "/no-such-route-$i"; done
api --as "$(uuid4)" "not-the-secret" GET /config
is_status 401 "an unknown client: 401"
api POST /customers '{"customerType":"INDIVIDUAL"}'
is_status 400 "a customer without a name: 400"
status
is "$(moved requests)" 12 "12 requests: requests moved by exactly 12"
is "$(moved status2xx)" 7 "7 answered 200: status2xx moved by 7"
is "$(moved status4xx)" 5 "3 x 404, 401, 400: status4xx moved by 5"
is "$(moved status5xx)" 0 "status5xx did not move"
is "$(moved status3xx)" 0 "status3xx did not move"
is "$(($(moved argon2Verifications) + $(moved authCacheHits)))" 9 \
    "9 requests with credentials: argon2 verifications + cache hits moved by 9"
is "$(moved workerDeaths)" 0 "no worker died"
api --noauth GET /status
is_status 200 "GET /status again"
is "$(jr .counters.requests)" "$(total requests)" \
    "GET /status shows what xborderctl saw (it counts itself once answered)"

# --- a worker killed: a death and a start in its slot -----------------------------------------
status
BEFORE=$ST
victim=$(pgrep -P "$m" | head -n 1)
slot=$(jq -r --argjson p "$victim" '.workers[] | select(.pid == $p) | .slot' <<<"$ST")
like "$slot" '^[0-9]+$' "the victim $victim has a slot ($slot)"
kill -KILL "$victim"
wait_for '[[ $(pgrep -P "$m" | wc -l) -ge '"$(pgrep -P "$m" | wc -l)"' ]] && ! kill -0 '"$victim"' 2>/dev/null && status && [[ $(jq -r ".workers[] | select(.slot == '"$slot"') | .alive" <<<"$ST") == true ]]' 15
is "$(moved workerDeaths)" 1 "SIGKILL of worker $victim: workerDeaths moved by 1"
is "$(moved workerStarts)" 1 "... and workerStarts by 1 (its replacement)"
newpid=$(jq -r ".workers[] | select(.slot == $slot) | .pid" <<<"$ST")
isnt "$newpid" "$victim" "slot $slot names the new worker ($newpid)"
ok "$(kill -0 "$newpid" 2>/dev/null && echo 1)" "... which runs"

# --- reconnects --------------------------------------------------------------------------------
status
BEFORE=$ST
ids=$(mariadb -S "$SOCK" -N -e "SELECT id FROM information_schema.processlist WHERE user = 'xborder' AND db IS NOT NULL" 2>/dev/null)
for id in $ids; do mariadb -S "$SOCK" -e "KILL CONNECTION $id" 2>/dev/null || true; done
ok "$([[ -n $ids ]] && echo 1)" "killed the service's MariaDB connections ($(wc -w <<<"$ids"))"
sleep 2.2    # past the idle check: every worker pings before its next request
bad=0
for ((i = 0; i < 20; i++)); do
    api --nocheck GET /config
    [[ $STATUS == 200 ]] || bad=$((bad + 1))
done
is "$bad" 0 "20 requests after the kill: every one 200"
status
ok "$(($(moved dbConnects) >= 1))" "dbConnects moved ($(moved dbConnects)): the workers reconnected"

# --- the job queue and the webhook backlog -----------------------------------------------------
"$DEV" worker stop >/dev/null 2>&1
worker_stopped=1
new_platform
P_ID=$NP_ID
use_creds "$NP_CLIENT_ID" "$NP_SECRET"
# An endpoint nobody listens on: its events stay pending while the worker is away.
api PATCH /config '{"webhookEndpoint":"http://127.0.0.1:9/hook"}'
is_status 200 "the new platform's webhook endpoint"
mk_customer status
int_account "$CUST"
A_INT=$INT
mk_ext "$CUST" 12345678901
fund "$A_INT" 5000
status
BEFORE=$ST
pend0=$(jq -r --arg p "$P_ID" '[.webhooks.platforms[] | select(.platformId == $p) | .pending] | add // 0' <<<"$ST")
q0=$(jq -r .jobs.queued <<<"$ST")
api POST /transfer-out "$(xfer_body "$A_INT" "$EXT" 1000)"
is_status 201 "a payout while xborder-worker is stopped: 201"
TX=$(jr .transactionId)
status
is "$(jq -r .jobs.queued <<<"$ST")" "$((q0 + 1))" "jobs.queued moved by 1 (its settlement)"
pend=$(jq -r --arg p "$P_ID" '[.webhooks.platforms[] | select(.platformId == $p) | .pending] | add // 0' <<<"$ST")
ok "$((pend > pend0))" "the platform's pending webhook events grew ($pend0 -> $pend)"
like "$(jq -r --arg p "$P_ID" '.webhooks.platforms[] | select(.platformId == $p) | .oldestCreatedAt' <<<"$ST")" \
    '^20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9:.]+Z$' "... with the time of its oldest"
ok "$(($(jq -r .webhooks.pending <<<"$ST") >= pend))" "webhooks.pending counts them"
# The endpoint off again: the worker fails what is left instead of retrying for minutes.
api PATCH /config '{"webhookEndpoint":null}'
is_status 200 "the endpoint removed"
"$DEV" worker start >/dev/null 2>&1
worker_stopped=0
settles "$TX" 'COMPLETED|FAILED' "the worker runs again: the payout settles"
wait_for 'status && (( $(jq -r .jobs.due <<<"$ST") == 0 ))' 15
is "$(jq -r .jobs.due <<<"$ST")" 0 "no job is left due"
use_root

done_testing
