#!/usr/bin/env bash
# 50-db-unavailable.t - the service when MariaDB is down (503 from the
# application, no hang) and when xborder-fcgi is down (503 from nginx, in
# the JSON envelope).  Every such 503 advises a retry (x-should-retry:
# true with Retry-After), a POST without Idempotency-Key included: it was
# answered before it could act (t/79 has the 503s after a commit).  Stops
# parts of the dev stack with scripts/dev and always starts again what it
# stopped.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"

DEV=${XB_ROOT:-$XB_REPO}/scripts/dev
[[ -x $DEV ]] || plan skip_all "no executable $DEV"
no_plan

db_stopped=0
fcgi_stopped=0
DEVLOG=$_API_TMP/dev.log

# dev ARGS...: runs scripts/dev quietly (its output would break the TAP stream).
dev() {
    if "$DEV" "$@" >"$DEVLOG" 2>&1; then
        return 0
    fi
    diag "scripts/dev $* failed:"
    diag "$(tail -n 20 "$DEVLOG")"
    return 1
}

restart_all() {
    if ((fcgi_stopped)); then
        dev fcgi start && fcgi_stopped=0
    fi
    if ((db_stopped)); then
        dev db start && db_stopped=0
    fi
}
at_exit restart_all

# retry_true WHAT: the last answer advises a retry, with Retry-After (2 tests).
retry_true() {
    is "$(header x-should-retry)" true "$1: x-should-retry true"
    like "$(header Retry-After)" '^[1-9][0-9]*$' "$1: Retry-After in seconds"
}

# wait_ok PATH SECONDS: polls GET PATH (uncounted) until it answers 200.
wait_ok() {
    local deadline=$((SECONDS + $2))
    while ((SECONDS < deadline)); do
        api --nocheck GET "$1" '' --max-time 5
        [[ $STATUS == 200 ]] && return 0
        sleep 0.5
    done
    return 1
}

api GET /config
is_status 200 "before: GET /config 200"
config=$BODY
api --noauth GET /healthz
is_status 200 "before: GET /healthz 200"

# --- the database is down ---------------------------------------------------------------
if cmd_ok "scripts/dev db stop" dev db stop; then
    db_stopped=1

    t0=$SECONDS
    api GET /config '' --max-time 10
    is_error 503 SERVICE_UNAVAILABLE "database down: GET /config"
    retry_true "database down: GET /config"
    ok "$(((SECONDS - t0) < 10))" "database down: GET /config answers within 10 s"

    statuses=()
    for i in 1 2 3 4 5 6; do
        api GET /config '' --max-time 10
        statuses+=("$STATUS")
    done
    is "${statuses[*]}" "503 503 503 503 503 503" "database down: 6 more GET /config, 503 each (every worker)"

    api GET /tokens '' --max-time 10
    is_error 503 SERVICE_UNAVAILABLE "database down: GET /tokens"
    retry_true "database down: GET /tokens"

    api POST /tokens "{\"name\":\"$(uniq_name t50)\",\"permissions\":[\"view\"]}" --max-time 10
    is_error 503 SERVICE_UNAVAILABLE "database down: POST /tokens"
    retry_true "database down: POST /tokens without Idempotency-Key (refused at the credentials)"

    api PATCH /sandbox/lightning-execution-profile '{}' --max-time 10
    is_error 503 SERVICE_UNAVAILABLE "database down: PATCH /sandbox/lightning-execution-profile"
    retry_true "database down: PATCH /sandbox/lightning-execution-profile"

    api --noauth GET /healthz '' --max-time 10
    is_status 503 "database down: GET /healthz 503"
    has_keys "$BODY" 'status database version' "database down: GET /healthz keys status, database, version"
    jis .database '"unavailable"' "database down: GET /healthz database unavailable"
    retry_true "database down: GET /healthz"

    api --noauth GET /nope '' --max-time 10
    is_error 404 NOT_FOUND "database down: unknown path is still 404"
    is "$(header x-should-retry)" false "database down: the 404 says x-should-retry false"

    cmd_ok "scripts/dev db start" dev db start && db_stopped=0
    ok "$(wait_ok /config 30 && echo 1)" "database back: GET /config answers 200 again within 30 s"
    api GET /config
    is_status 200 "database back: GET /config 200"
    jis . "$config" "database back: the same config"
    api --noauth GET /healthz
    is_status 200 "database back: GET /healthz 200"
    jis .database '"ok"' "database back: GET /healthz database ok"
    for i in 1 2 3 4 5 6; do
        api --nocheck GET /config '' --max-time 10
        statuses[i - 1]=$STATUS
    done
    is "${statuses[*]}" "200 200 200 200 200 200" "database back: 6 more GET /config, 200 each (every worker reconnected)"
fi

# --- xborder-fcgi is down: nginx answers -------------------------------------------------------
if cmd_ok "scripts/dev fcgi stop" dev fcgi stop; then
    fcgi_stopped=1

    api GET /config '' --max-time 10
    is_error 503 SERVICE_UNAVAILABLE "fcgi down: GET /config (nginx, JSON envelope)"
    retry_true "fcgi down: GET /config"
    api --noauth GET /healthz '' --max-time 10
    is_error 503 SERVICE_UNAVAILABLE "fcgi down: GET /healthz"
    retry_true "fcgi down: GET /healthz"
    api POST /tokens '{"name":"x","permissions":["view"]}' --max-time 10
    is_error 503 SERVICE_UNAVAILABLE "fcgi down: POST /tokens"
    retry_true "fcgi down: POST /tokens without Idempotency-Key (nginx never reached the application)"
    api POST /tokens '{"name":"x","permissions":["view"]}' --max-time 10 -H "Idempotency-Key: $(uniq_name t50)"
    is_error 503 SERVICE_UNAVAILABLE "fcgi down: POST /tokens with Idempotency-Key"
    retry_true "fcgi down: POST /tokens with Idempotency-Key"
    api --noauth GET /nope '' --max-time 10
    is_error 503 SERVICE_UNAVAILABLE "fcgi down: GET /nope without credentials"
    retry_true "fcgi down: GET /nope"

    cmd_ok "scripts/dev fcgi start" dev fcgi start && fcgi_stopped=0
    ok "$(wait_ok /config 30 && echo 1)" "fcgi back: GET /config answers 200 again within 30 s"
    api GET /config
    is_status 200 "fcgi back: GET /config 200"
    api --noauth GET /healthz
    is_status 200 "fcgi back: GET /healthz 200"
fi

done_testing
