#!/usr/bin/env bash
# 86-webhook-test-limits.t - POST /webhooks/test cannot hold the service
# (decisions.md section 11): one platform runs one test at a time, a pool
# runs at most a quarter of its workers' worth (rounded up), anything more
# is 429 RATE_LIMITED with Retry-After: 10, and another platform's request
# is answered at once while a slow endpoint keeps a test waiting.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/webhooks.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/stack.sh"
no_plan

WORKERS=$(awk -F' *= *' '$1 == "workers" { print $2 }' "$XB_CONF")
[[ $WORKERS =~ ^[0-9]+$ ]] || WORKERS=4
QUARTER=$(((WORKERS + 3) / 4))
SLOW_MS=3000

wh_start
wh_set /t86/slow "{\"delayMs\":$SLOW_MS}"
wh_platform t86b
B=("${WH_P[@]}") B_CRED=("${NP_CLIENT_ID}:${NP_SECRET}")
wh_endpoint "$WH_URL/t86/slow" "${B[@]}"
wh_platform t86c
C=("${WH_P[@]}")
wh_endpoint "$WH_URL/t86/c" "${C[@]}"
wh_platform t86a
A=("${WH_P[@]}")

# bg_test N: POST /webhooks/test as B in the background; status and
# headers into $WH_DIR/bg.N.{code,headers}.
bg_test() {
    curl -sk -X POST -u "${B_CRED[0]}" -o "$WH_DIR/bg.$1.body" -D "$WH_DIR/bg.$1.headers" \
        -w '%{http_code}' --max-time 30 "$XB_BASE_URL/webhooks/test" >"$WH_DIR/bg.$1.code" 2>/dev/null &
    BG+=($!)
}

# --- one platform, four tests at once -------------------------------------------------
BG=()
for i in 1 2 3 4; do bg_test "$i"; done
if wh_wait_count /t86/slow 1 10; then pass "B's test reached its slow endpoint"; else fail "B's test reached its slow endpoint"; fi

# While it waits: another platform is served at once (no worker is stuck
# but the one calling the endpoint).
t=$(curl -sk -o /dev/null -w '%{http_code} %{time_total}' -u "${A[1]}:${A[2]}" "$XB_BASE_URL/config")
is "${t% *}" 200 "A's GET /config while B's test waits: 200"
ok "$(awk -v s="${t#* }" 'BEGIN { exit !(s < 1.0) }' && echo 1)" \
    "A's GET /config answered at once (${t#* } s), not after B's ${SLOW_MS} ms endpoint"

if ((QUARTER == 1)); then
    api "${C[@]}" POST /webhooks/test
    is_error 429 RATE_LIMITED "C's test while B's runs: the pool's one place is taken (workers $WORKERS)"
    is "$(header Retry-After)" 10 "C's 429: Retry-After 10"
    is "$(wh_count /t86/c)" 0 "C's endpoint was not called"
fi

wait "${BG[@]}"
codes=$(for i in 1 2 3 4; do echo "$(<"$WH_DIR/bg.$i.code")"; done | sort | tr '\n' ' ')
is "$codes" "200 429 429 429 " "B's four concurrent tests: one 200, three 429"
for i in 1 2 3 4; do
    if [[ $(<"$WH_DIR/bg.$i.code") == 429 ]]; then
        BODY=$(<"$WH_DIR/bg.$i.body") STATUS=429 REQ="B's concurrent test $i"
        is_error 429 RATE_LIMITED "B's concurrent test $i: 429 in the envelope"
        like "$(tr -d '\r' <"$WH_DIR/bg.$i.headers")" $'(^|\n)[Rr]etry-[Aa]fter: 10(\n|$)' "B's concurrent test $i: Retry-After 10"
    else
        jis '{responseStatus}' '{"responseStatus":200}' "B's test that ran: the endpoint's 200" "$(<"$WH_DIR/bg.$i.body")"
    fi
done
is "$(wh_count /t86/slow)" 1 "B's endpoint was called once"

# --- places come back -------------------------------------------------------------------
api "${C[@]}" POST /webhooks/test
is_status 200 "after B's test: C's test runs"
wh_set /t86/slow '{}'
api "${B[@]}" POST /webhooks/test
is_status 200 "B's next test runs (its lease was given back)"
jis .responseStatus 200 "B's next test: the endpoint's 200"

# The platform's lease alone, seen from every pool (the database): held by
# a test elsewhere, B is 429 while C runs; run out, it is taken over.
B_PID=$(sql "SELECT platform_id FROM tokens WHERE id = '${B[1]}'")
sql "INSERT INTO webhook_test_leases VALUES ('$B_PID', '$(uuid4)', UTC_TIMESTAMP(3) + INTERVAL 20 SECOND)"
api "${B[@]}" POST /webhooks/test
is_error 429 RATE_LIMITED "B's lease held by a test elsewhere: 429"
is "$(header Retry-After)" 10 "B's 429: Retry-After 10"
api "${C[@]}" POST /webhooks/test
is_status 200 "meanwhile C's test runs"
sql "UPDATE webhook_test_leases SET until = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND WHERE platform_id = '$B_PID'"
api "${B[@]}" POST /webhooks/test
is_status 200 "a lease that ran out (its holder died) is taken over"
is "$(sql "SELECT COUNT(*) FROM webhook_test_leases WHERE platform_id = '$B_PID'")" 0 "and given back after the test"

# A test whose endpoint cannot be reached gives its places back too.
port=$(wh_closed_port)
wh_endpoint "http://127.0.0.1:$port/t86" "${B[@]}"
for i in 1 2; do
    api "${B[@]}" POST /webhooks/test
    is_error 400 WEBHOOK_DELIVERY_FAILED "B's test to a closed port ($i): 400, not 429"
done

# A body is refused before anything else: no place is taken.
api "${B[@]}" POST /webhooks/test '{"x":1}'
is_error 400 INVALID_REQUEST "B's test with a body: 400"
has_details body "B's test with a body: details names body"

done_testing
