#!/usr/bin/env bash
# 96-webhook-delivery.t - how xborder-worker delivers events, against a
# local receiver (t/lib/webhook-receiver.mjs), one platform of its own per
# case (events made with the review lane's simulate, one
# INCOMING_PAYMENT.PENDING each, or transfer-ins):
#  - an endpoint answering 500 then 200: two deliveries of a byte-identical
#    body, each signed with its own t, the second no sooner than
#    webhook_retry_base after the first, no third; logged DELIVERED,
#    attempts 2, lastResponseStatus 200;
#  - 500 forever: pauses doubling from webhook_retry_base up to
#    webhook_retry_max, then FAILED once the retry window has passed
#    (when webhook_retry_window <= 60 s; skipped otherwise);
#  - 409 ends the delivery (DELIVERED, attempts 1);
#  - the endpoint changed while an event waits for its retry: the retry goes
#    to the new URL;
#  - one platform's hanging endpoint (more events than it may have in
#    flight) does not delay another platform's event;
#  - xborder-worker killed with SIGKILL mid-delivery, restarted with
#    scripts/dev worker start: every event of 10 transfers is delivered,
#    and accepted exactly once by a receiver that dedupes on the event id.
# The retry timings come from $XB_CONF (webhook_retry_base/max/window); the
# cases that would wait on them are skipped when webhook_retry_base > 10.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/webhooks.sh"
no_plan

SIM=/sandbox/incoming-payments/simulate
WORKER_PID=${XB_DEV_DIR:?}/run/xborder-worker.pid
n_events=0 n_requests=0
worker_down=0
at_exit 'if ((worker_down)); then dev worker start || diag "could not start xborder-worker again"; fi'

wh_retry_settings
note "retry settings: base $WH_BASE s, max $WH_MAX s, window $WH_WINDOW s"
FAST=0
((WH_BASE <= 10)) && FAST=1
wh_start
note "receiver on $WH_URL"

# platform NAME PATH: a platform of its own whose endpoint is $WH_URL$PATH,
# with a customer to simulate incoming payments for.  Sets the array
# named NAME (the --as options) and ${NAME}_CUST; its signing key (each
# platform has its own) is kept in $WH_DIR/key-NAME.pem.
platform() {
    local name=$1 path=$2
    wh_platform "t96-$name"
    eval "$name=(\"\${WH_P[@]}\")"
    wh_key_save "$name" "${WH_P[@]}" || fail "$name: GET /webhooks/signing-key: $STATUS $BODY"
    wh_endpoint "$WH_URL$path" "${WH_P[@]}"
    mk_customer "t96-$name" "${WH_P[@]}"
    printf -v "${name}_CUST" '%s' "$CUST"
}

# event NAME: one review case on platform NAME, so one event; sets EV (its
# Webhook id, from the delivery log), EV_TX and EV_AT (epoch ms just before
# it was made).
event() {
    local -n opts=$1
    local cust=${1}_CUST
    EV_AT=$(date +%s%3N)
    api --nocheck "${opts[@]}" POST "$SIM" "{\"receiverCustomerId\":\"${!cust}\",\"scenario\":\"sender_kyc_not_approved\",\"amountMinor\":1000,\"currencyCode\":\"USD\"}"
    [[ $STATUS == 201 ]] || { fail "simulate on $1: $STATUS $BODY"; return 1; }
    EV_TX=$(jr .transactionId)
    wh_deliveries "${opts[@]}"
    EV=$(jq -r --arg t "$EV_TX" 'first(.[] | select(.transactionId == $t)) | .id // empty' <<<"$WH_ITEMS")
    [[ $EV =~ $WH_ID_RE ]] || { fail "the event of $EV_TX is in $1's delivery log"; return 1; }
}

# gaps REQS: the pauses between consecutive requests (ms) as a JSON array.
gaps() { jq -c '[.[].receivedAt] as $r | [range(1; $r | length) | $r[.] - $r[. - 1]]' <<<"$1"; }

# count_checked REQS: adds the requests and their distinct events to the totals.
count_checked() {
    n_requests=$((n_requests + $(jq length <<<"$1")))
    n_events=$((n_events + $(jq '[.[].body | fromjson | .id] | unique | length' <<<"$1")))
}

# --- start the timed cases together -------------------------------------------------------
if ((FAST)); then
    wh_set /t96/r '{"codes":[500,200]}'
    platform R /t96/r
    event R && R_EV=$EV
    wh_set /t96/f '{"codes":[500]}'
    platform F /t96/f
    event F && F_EV=$EV F_AT=$EV_AT
fi
wh_set /t96/c '{"codes":[409],"body":"already"}'
platform C /t96/c
event C && C_EV=$EV

# --- 409 ends it --------------------------------------------------------------------------
if wh_wait_event "$C_EV" 10 /t96/c; then pass "409 case: the event arrives"; else fail "409 case: the event arrives"; fi
wh_wait_item "$C_EV" '.status != "PENDING"' 10 "${C[@]}"
jis '{status, attempts, lastResponseStatus, nextAttemptAt}' '{"status":"DELIVERED","attempts":1,"lastResponseStatus":409,"nextAttemptAt":null}' \
    "409 case: DELIVERED, attempts 1, lastResponseStatus 409" "$WH_ITEM"

# --- 500 then 200 --------------------------------------------------------------------------
if ((FAST)); then
    if wh_wait_count /t96/r 2 $((WH_BASE + 15)); then pass "500 then 200: the event arrives twice"; else fail "500 then 200: the event arrives twice"; fi
    r=$(wh_reqs /t96/r)
    jis '[.[] | {id: (.body | fromjson | .id), answered}]' "[{\"id\":\"$R_EV\",\"answered\":500},{\"id\":\"$R_EV\",\"answered\":200}]" \
        "500 then 200: the same event, answered 500 then 200" "$r"
    jis '[.[].bodyB64] | unique | length' 1 "500 then 200: the body is byte-identical on both attempts" "$r"
    wh_check_sigs "500 then 200" "$r" "$WH_DIR/key-R.pem"
    t1=$(wh_sig_t "$(jq -c '.[0]' <<<"$r")") t2=$(wh_sig_t "$(jq -c '.[1]' <<<"$r")")
    ok "$([[ $t1 =~ ^[0-9]+$ && $t2 =~ ^[0-9]+$ ]] && ((t2 > t1)) && echo 1)" "500 then 200: each attempt signed with its own t ($t1, $t2)"
    g=$(jq '.[0]' <<<"$(gaps "$r")")
    ok "$([[ $g =~ ^[0-9]+$ ]] && ((g >= WH_BASE * 1000 - 100)) && echo 1)" \
        "500 then 200: the second attempt no sooner than webhook_retry_base ($WH_BASE s) after the first (${g} ms)"
    ok "$([[ $g =~ ^[0-9]+$ ]] && ((g <= WH_BASE * 1000 + 5000)) && echo 1)" \
        "500 then 200: and not much later (${g} ms <= base + 5 s)"
    wh_wait_item "$R_EV" '.status != "PENDING"' 10 "${R[@]}"
    jis '{status, attempts, lastResponseStatus, nextAttemptAt}' '{"status":"DELIVERED","attempts":2,"lastResponseStatus":200,"nextAttemptAt":null}' \
        "500 then 200: DELIVERED, attempts 2, lastResponseStatus 200" "$WH_ITEM"
    count_checked "$r"
else
    skip "webhook_retry_base $WH_BASE s is too long to wait for" 9
fi

# --- the endpoint changes while an event waits for its retry --------------------------------
if ((FAST)); then
    wh_set /t96/old '{"codes":[503]}'
    wh_set /t96/new '{"codes":[200]}'
    platform M /t96/old
    event M && M_EV=$EV
    if wh_wait_event "$M_EV" 10 /t96/old; then pass "endpoint change: the first attempt goes to the old URL"; else fail "endpoint change: the first attempt goes to the old URL"; fi
    wh_endpoint "$WH_URL/t96/new" "${M[@]}"
    if wh_wait_event "$M_EV" $((WH_BASE + 15)) /t96/new; then pass "endpoint change: the retry goes to the new URL"; else fail "endpoint change: the retry goes to the new URL"; fi
    is "$(wh_count /t96/old)" 1 "endpoint change: the old URL got the first attempt only"
    wh_wait_item "$M_EV" '.status != "PENDING"' 10 "${M[@]}"
    jis '{status, attempts, lastResponseStatus}' '{"status":"DELIVERED","attempts":2,"lastResponseStatus":200}' \
        "endpoint change: DELIVERED, attempts 2, lastResponseStatus 200" "$WH_ITEM"
    wh_check_sigs "endpoint change" "$(wh_reqs_of "$M_EV")" "$WH_DIR/key-M.pem"
    count_checked "$(wh_reqs_of "$M_EV")"
else
    skip "webhook_retry_base $WH_BASE s is too long to wait for" 6
fi

# --- one platform's hanging endpoint does not delay another's -------------------------------------
wh_set /t96/hang '{"hang":true}'
wh_set /t96/quick '{"codes":[200]}'
platform H /t96/hang
platform Q /t96/quick
for i in 1 2 3 4 5 6; do event H; done
if wh_wait_count /t96/hang 4 10; then pass "hang case: 4 of H's events in flight at its hanging endpoint"; else fail "hang case: 4 of H's events in flight at its hanging endpoint"; fi
sleep 0.5
event Q
q_ev=$EV q_at=$EV_AT
h_first=$(jq '.[0].receivedAt' <<<"$(wh_reqs /t96/hang)")
if ((q_at < h_first + 9000)); then
    wh_wait_event "$q_ev" 10 /t96/quick
    q_recv=$(jq '.[0].receivedAt // empty' <<<"$(wh_reqs_of "$q_ev" /t96/quick)")
    ok "$([[ -n $q_recv ]] && ((q_recv - q_at <= 3000)) && echo 1)" \
        "hang case: Q's event arrives within 3 s while H's hang ($([[ -n $q_recv ]] && echo "$((q_recv - q_at)) ms after it was made" || echo "not at all"))"
else
    skip "Q's event was made $((q_at - h_first)) ms after H's first attempt: too late to test (a slow machine)"
fi
# Until the first of H's attempts times out (10 s), no other of H's may start.
jis "[.[] | select(.receivedAt < $h_first + 9500)] | length" 4 "hang case: 4 of H's 6 events in flight at once, no more" "$(wh_reqs /t96/hang)"
wh_check_sigs "hang case" "$(wh_reqs /t96/hang)" "$WH_DIR/key-H.pem"
count_checked "$(wh_reqs /t96/quick)"
count_checked "$(wh_reqs /t96/hang)"
wh_set /t96/hang '{"codes":[200]}' # later attempts succeed

# --- 500 forever --------------------------------------------------------------------------
if ((FAST)); then
    # The third attempt comes base + 2 * base after the first.
    wh_wait_count /t96/f 3 $((WH_BASE * 3 + 15))
    r=$(wh_reqs /t96/f)
    g=$(gaps "$r")
    note "500 forever: $(jq length <<<"$r") attempts so far, pauses $g ms"
    ok "$(($(jq length <<<"$r") >= 3))" "500 forever: at least 3 attempts by now"
    want=$(jq -cn --argjson n "$(jq length <<<"$g")" --argjson b "$WH_BASE" --argjson m "$WH_MAX" \
        '[range(0; $n) | [$b * pow(2; .), $m] | min * 1000]')
    wjok --argjson w "$want" '. as $g | all(range(0; length); $g[.] >= $w[.] - 100 and $g[.] <= $w[.] + 5000)' \
        "500 forever: each pause is min(base * 2^(n-1), max) (want $want ms, 0.1 s early to 5 s late)" "$g"
    jis '[.[] | .body | fromjson | .id] | unique' "[\"$F_EV\"]" "500 forever: always the same event" "$r"
    jis '[.[].bodyB64] | unique | length' 1 "500 forever: the body is byte-identical on every attempt" "$r"
    if ((WH_WINDOW <= 60)); then
        left=$((F_AT + WH_WINDOW * 1000 + WH_MAX * 1000 + 3000 - $(date +%s%3N)))
        ((left < 1000)) && left=1000
        if wh_wait_item "$F_EV" '.status == "FAILED"' $(((left + 999) / 1000)) "${F[@]}"; then
            pass "500 forever: FAILED once the window ($WH_WINDOW s) has passed"
        else
            fail "500 forever: FAILED once the window ($WH_WINDOW s) has passed"
            diag "    item: $WH_ITEM"
        fi
        sleep 1
        r=$(wh_reqs /t96/f)
        jis '{status, lastResponseStatus, nextAttemptAt}' '{"status":"FAILED","lastResponseStatus":500,"nextAttemptAt":null}' \
            "500 forever, FAILED: lastResponseStatus 500, nextAttemptAt null" "$WH_ITEM"
        is "$(jq .attempts <<<"$WH_ITEM")" "$(jq length <<<"$r")" "500 forever, FAILED: attempts = the requests the endpoint got ($(jq length <<<"$r"))"
        created=$(jq -rn --arg t "$(jq -r .createdAt <<<"$WH_ITEM")" "$QJQ"' $t | ms')
        wjok --argjson c "$created" --argjson w "$WH_WINDOW" 'all(.[]; .receivedAt <= $c + $w * 1000 + 1000)' \
            "500 forever: no attempt started after createdAt + window" "$r"
        g=$(gaps "$r")
        want=$(jq -cn --argjson n "$(jq length <<<"$g")" --argjson b "$WH_BASE" --argjson m "$WH_MAX" \
            '[range(0; $n) | [$b * pow(2; .), $m] | min * 1000]')
        wjok --argjson w "$want" '. as $g | all(range(0; length); $g[.] >= $w[.] - 100)' \
            "500 forever: no pause shorter than min(base * 2^(n-1), max) (pauses $g ms)" "$g"
        wh_check_sigs "500 forever" "$r" "$WH_DIR/key-F.pem"
    else
        skip "webhook_retry_window $WH_WINDOW s is longer than 60 s" 6
    fi
    count_checked "$r"
else
    skip "webhook_retry_base $WH_BASE s is too long to wait for" 5
fi

# --- SIGKILL of xborder-worker mid-delivery ----------------------------------------------------
wh_set /t96/k '{"hang":true}'
platform K /t96/k
int_account "$K_CUST" USD "${K[@]}"
K_INT=$INT
mk_ext "$K_CUST" 000961961001 USD "${K[@]}"
K_EXT=$EXT
K_TXS=()
for i in $(seq 1 10); do
    api --nocheck "${K[@]}" POST /transfer-in "$(xfer_body "$K_EXT" "$K_INT" $((100 + i)))"
    [[ $STATUS == 201 ]] && K_TXS+=("$(jr .transactionId)")
done
is "${#K_TXS[@]}" 10 "SIGKILL case: 10 transfer-ins made"
if wh_wait_count /t96/k 4 10; then pass "SIGKILL case: deliveries in flight at the hanging endpoint"; else fail "SIGKILL case: deliveries in flight at the hanging endpoint"; fi
wpid=$(cat "$WORKER_PID" 2>/dev/null)
if [[ $wpid =~ ^[0-9]+$ ]] && [[ $(cat "/proc/$wpid/comm" 2>/dev/null) == xborder-worker* ]]; then
    kill -KILL "$wpid"
    worker_down=1
    for ((i = 0; i < 50; i++)); do
        [[ -d /proc/$wpid && $(awk '{print $3}' "/proc/$wpid/stat" 2>/dev/null) != Z ]] || break
        sleep 0.1
    done
    ok "$([[ ! -d /proc/$wpid || $(awk '{print $3}' "/proc/$wpid/stat" 2>/dev/null) == Z ]] && echo 1)" "xborder-worker (pid $wpid) killed with SIGKILL mid-delivery"
    in_flight=$(wh_count /t96/k)
    wh_set /t96/k '{"dedupe":true}'
    if cmd_ok "scripts/dev worker start" dev worker start; then
        worker_down=0
    fi
    # Every transfer settles; each gives PENDING and COMPLETED: 20 events.
    for tx in "${K_TXS[@]}"; do
        wait_status "$tx" 'COMPLETED|FAILED' 20 "${K[@]}" || diag "    $tx did not settle: $STATUS $BODY"
    done
    wh_deliveries "${K[@]}"
    k_ids=$(jq -c '[.[].id] | sort' <<<"$WH_ITEMS")
    is "$(jq length <<<"$k_ids")" 20 "SIGKILL case: 20 events in K's log (2 per transfer)"
    # The claims of the killed worker come back after their 15 s lease.
    if wh_wait_events /t96/k "$k_ids" 45; then pass "SIGKILL case: every event delivered"; else fail "SIGKILL case: every event delivered"; fi
    deadline=$((SECONDS + 20))
    until [[ $(jq -c --argjson w "$k_ids" '[.[] | select(.answered == 200) | .body | fromjson | .id] | sort == $w' <<<"$(wh_reqs /t96/k)") == true ]]; do
        ((SECONDS >= deadline)) && break
        sleep 0.2
    done
    r=$(wh_reqs /t96/k)
    jis '[.[] | select(.answered == 200) | .body | fromjson | .id] | sort' "$k_ids" \
        "SIGKILL case: each of the 20 events accepted (200) exactly once by the deduping receiver" "$r"
    wjok --argjson w "$k_ids" '[.[].body | fromjson | .id] - $w == []' "SIGKILL case: no other event arrived" "$r"
    note "SIGKILL case: $in_flight deliveries were in flight at the kill; $(jq '[.[] | select(.answered == 409)] | length' <<<"$r") redeliveries answered 409, $(jq length <<<"$r") requests in all"
    ok "$(($(jq '[.[] | select(.answered == "hang") | .body | fromjson | .id] | unique | length' <<<"$r") >= 1))" \
        "SIGKILL case: at least one event hung at the kill and was delivered again after it"
    wh_check_sigs "SIGKILL case" "$r" "$WH_DIR/key-K.pem"
    wh_wait_delivered 10 "${K[@]}"
    jis '[.[].status] | unique' '["DELIVERED"]' "SIGKILL case: K's log shows every event DELIVERED" "$WH_ITEMS"
    count_checked "$r"
else
    fail "xborder-worker's pid from $WORKER_PID ($wpid)"
fi

note "checked $n_events events in $n_requests deliveries"
done_testing
