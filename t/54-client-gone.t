#!/usr/bin/env bash
# 54-client-gone.t - a request whose client went away while it waited for
# a worker is not run at all.  Every worker is held (the fault point
# pause-before-handler of a build configured with --enable-fault-injection,
# through the X-Xborder-Fault header), a POST /customers is sent and its
# client gives up before any worker is free; nginx then closes the
# request's FastCGI connection.  The worker that takes it next must see
# that and not create the customer (counted as client_gone by xborderctl
# stats); the requests held meanwhile are answered as usual.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"

needs_faults
no_plan

RUN=$(uniq_name t54)
WORKERS=$(awk -F' *= *' '$1 == "workers" { print $2 }' "$XB_CONF")
[[ $WORKERS =~ ^[0-9]+$ ]] || WORKERS=4
SOCK=$XB_DEV_DIR/run/mysqld.sock
sql() { mariadb --no-defaults --socket="$SOCK" --user="$(id -un)" xborder -N -e "$1"; }
gone_count() { xbctl stats | awk '$1 == "client_gone" { print $2 }'; }

gone0=$(gone_count)
FCGI_LOG=$XB_DEV_DIR/log/xborder-fcgi.log
log0=$(wc -l <"$FCGI_LOG")
like "$gone0" '^[0-9]+$' "xborderctl stats counts client_gone ($gone0)"

# Every worker holds a POST /tokens for FAULT_PAUSE_MS (2 s) after its
# Idempotency-Key is claimed: the claims say when all of them are held.
pids=()
for ((i = 1; i <= WORKERS; i++)); do
    curl -sk --max-time 30 -u "$XB_CLIENT_ID:$XB_CLIENT_SECRET" -H 'Content-Type: application/json' \
        -H "Idempotency-Key: $RUN-hold-$i" -H 'X-Xborder-Fault: pause-before-handler' \
        -o /dev/null -w '%{http_code}\n' -X POST "$XB_BASE_URL/tokens" \
        -d "{\"name\":\"$RUN-hold-$i\",\"permissions\":[\"view\"]}" >"$_API_TMP/hold-$i.out" &
    pids+=($!)
done
held=0
for ((i = 0; i < 60; i++)); do
    held=$(sql "SELECT COUNT(*) FROM idempotency_keys WHERE idem_key LIKE '$RUN-hold-%' AND state = 'RUNNING'")
    ((held == WORKERS)) && break
    sleep 0.05
done
is "$held" "$WORKERS" "all $WORKERS workers hold a paused request"

# The client of this one gives up after 0.5 s, while no worker is free.
pcid="$RUN-gone"
curl -sk --max-time 0.5 -u "$XB_CLIENT_ID:$XB_CLIENT_SECRET" -H 'Content-Type: application/json' \
    -o /dev/null -X POST "$XB_BASE_URL/customers" \
    -d "{\"platformCustomerId\":\"$pcid\",\"customerType\":\"INDIVIDUAL\",\"fullName\":\"Gone Client\"}"
is "$?" 28 "the abandoned POST /customers timed out on the client's side (curl exit 28)"

codes=""
for p in "${pids[@]}"; do wait "$p"; done
for ((i = 1; i <= WORKERS; i++)); do codes+="$(cat "$_API_TMP/hold-$i.out") "; done
is "$codes" "$(printf '201 %.0s' $(seq "$WORKERS"))" "the held requests are answered 201"

# The worker that takes the abandoned request next counts it, without
# running it (waited for, with a bound).
gone=$gone0
for ((i = 0; i < 100; i++)); do
    gone=$(gone_count)
    ((gone > gone0)) && break
    sleep 0.05
done
is "$((gone - gone0))" 1 "one request was not run: its client had gone (client_gone)"
is "$(sql "SELECT COUNT(*) FROM customers WHERE platform_customer_id = '$pcid'")" 0 \
    "the abandoned POST /customers created no customer"
is "$(tail -n +$((log0 + 1)) "$FCGI_LOG" | grep -c ' method=POST route=- status=499 code=CLIENT_CLOSED_REQUEST ')" 1 \
    "the worker logged it, once, with status 499"

# A request sent normally afterwards runs as ever.
api POST /customers "{\"platformCustomerId\":\"$RUN-after\",\"customerType\":\"INDIVIDUAL\",\"fullName\":\"After\"}"
is_status 201 "a POST /customers sent afterwards is answered 201"

done_testing
