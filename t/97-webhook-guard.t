#!/usr/bin/env bash
# 97-webhook-guard.t - the SSRF guard of webhook deliveries.  The dev and
# check stacks run with webhook_allow_private = yes; this suite turns the
# guard on for its duration ($XB_CONF copied, webhook_allow_private = no,
# xborder-fcgi and xborder-worker restarted with scripts/dev) and at exit,
# even after a failure, puts the original configuration back and restarts
# both again.  With the guard on, endpoints on loopback (127.0.0.1,
# localhost, [::1], an IPv4-mapped ::ffff:127.0.0.1, 127.1.2.3) are refused
# by POST /webhooks/test (400 WEBHOOK_DELIVERY_FAILED "blocked address")
# and by the worker (never received; the log shows the attempts, no
# response status, PENDING), while the receiver, the same one, is reached
# again once the guard is off.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/webhooks.sh"

[[ -w ${XB_CONF:-} ]] || plan skip_all "XB_CONF ($XB_CONF) is not a writable file"
[[ -x $DEV ]] || plan skip_all "no executable $DEV"
no_plan

SIM=/sandbox/incoming-payments/simulate
CONF_SAVED=$WH_DIR/xborder.conf.orig
guard_on=0

# restart_api: restarts xborder-fcgi and xborder-worker and waits for the API.
restart_api() {
    local ok=1
    dev fcgi stop || ok=0
    dev fcgi start || ok=0
    dev worker stop || ok=0
    dev worker start || ok=0
    wait_api 30 || { diag "the API did not answer within 30 s"; ok=0; }
    ((ok))
}

restore_conf() {
    ((guard_on)) || return 0
    if cat "$CONF_SAVED" >"$XB_CONF" && restart_api; then
        guard_on=0
    else
        diag "could not restore $XB_CONF from $CONF_SAVED (kept there)"
        return 1
    fi
}

cp -p "$XB_CONF" "$CONF_SAVED" || BAIL_OUT "cannot copy $XB_CONF"
wh_start
note "receiver on $WH_URL"
wh_platform t97
use_creds "$NP_CLIENT_ID" "$NP_SECRET"
mk_customer t97
CUST97=$CUST

# The receiver is reachable while the guard is off (as the stack runs).
wh_endpoint "$WH_URL/t97/before"
api POST /webhooks/test
is "$STATUS $(j '[.url, .responseStatus]')" "200 [\"$WH_URL/t97/before\",200]" "guard off: POST /webhooks/test reaches the receiver on 127.0.0.1"
is "$(wh_count /t97/before)" 1 "guard off: the receiver got the TEST event"

# --- the guard on --------------------------------------------------------------------------
at_exit restore_conf
guard_on=1
{
    grep -v -E '^[[:space:]]*webhook_allow_private[[:space:]]*=' "$CONF_SAVED"
    echo 'webhook_allow_private = no'
} >"$XB_CONF"
if ! cmd_ok "xborder-fcgi and xborder-worker restarted with webhook_allow_private = no" restart_api; then
    BAIL_OUT "the stack did not come back with the guard on"
fi

n_blocked=0
for url in "http://127.0.0.1:$WH_PORT/t97/g/1" "http://localhost:$WH_PORT/t97/g/2" "http://[::1]:$WH_PORT/t97/g/3" \
    "http://[::ffff:127.0.0.1]:$WH_PORT/t97/g/4" "http://127.1.2.3:$WH_PORT/t97/g/5" "http://0.0.0.0:$WH_PORT/t97/g/6"; do
    wh_endpoint "$url"
    t0=$SECONDS
    api POST /webhooks/test
    is_error 400 WEBHOOK_DELIVERY_FAILED "guard on: POST /webhooks/test to $url"
    jis .details.reason '"blocked address"' "guard on: $url: details.reason \"blocked address\""
    ok "$((SECONDS - t0 <= 3))" "guard on: $url refused at once"
    n_blocked=$((n_blocked + 1))
done
sleep 0.5
is "$(wh_count /t97/g)" 0 "guard on: the receiver got none of the $n_blocked TEST events"

# A business event to a blocked endpoint: attempted, never received, PENDING.
wh_endpoint "http://localhost:$WH_PORT/t97/ev"
api POST "$SIM" "{\"receiverCustomerId\":\"$CUST97\",\"scenario\":\"sender_kyc_not_approved\",\"amountMinor\":1000,\"currencyCode\":\"USD\"}"
is_status 201 "guard on: a review case (one event): 201"
tx=$(jr .transactionId)
wh_deliveries
ev=$(jq -r --arg t "$tx" 'first(.[] | select(.transactionId == $t)) | .id // empty' <<<"$WH_ITEMS")
like "$ev" "$WH_ID_RE" "guard on: the event is in the delivery log"
if wh_wait_item "$ev" '.attempts >= 1' 10; then pass "guard on: the worker attempted the event"; else fail "guard on: the worker attempted the event"; fi
jok "$QJQ"' .attempts >= 1 and .lastResponseStatus == null and .status == "PENDING" and (.lastAttemptAt | ts) and (.nextAttemptAt | ts)' \
    "guard on: attempts >= 1, lastResponseStatus null, PENDING with a next attempt" "$WH_ITEM"
note "guard on: the event's log item: $WH_ITEM"
is "$(wh_count /t97/ev)" 0 "guard on: the receiver never got the event"

# --- the guard off again ---------------------------------------------------------------------
if cmd_ok "configuration restored, xborder-fcgi and xborder-worker restarted" restore_conf; then
    cmp -s "$CONF_SAVED" "$XB_CONF"
    is "$?" 0 "$XB_CONF is the original again"
    wh_endpoint "$WH_URL/t97/after"
    api POST /webhooks/test
    is "$STATUS $(j .responseStatus)" "200 200" "guard off again: POST /webhooks/test reaches the receiver"
    api POST "/webhooks/deliveries/$ev/retry"
    is_status 200 "guard off again: retry the blocked event: 200"
    if wh_wait_event "$ev" 10 /t97/after; then pass "guard off again: the event is delivered"; else fail "guard off again: the event is delivered"; fi
    wh_check_sigs "guard off again" "$(wh_reqs /t97/after)"
fi

note "checked $n_blocked blocked TEST events and 1 blocked business event; $(wh_count) requests reached the receiver (all while the guard was off)"
done_testing
