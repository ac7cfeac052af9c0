#!/usr/bin/env bash
# 12-auth-burst.t - a right secret is never throttled by its own checks in
# flight.  A worker counts a secret it has not proven before it runs
# argon2id, so that however many workers check one clientId from one
# address at once, at most 10 (AUTH_MAX_FAILURES) hashes run in a window.
# A pool of more workers than that, new (nothing proven), takes a burst of
# requests with the right secret: the checks beyond the 10 in flight wait
# for those to end, then run, and every request is 200; nothing is left
# counted against the token and nothing marks it throttled.  The bound on
# wrong secrets holds as before: of a burst of wrong secrets exactly 10 are
# hashed (401) and the rest refused (429), then the right secret is 429.
# Checks counted in flight that never end (a worker died in them) make a
# check wait about a second, then 429.
#
# The pool is a second xborder-fcgi master of this test's own (its own
# socket, counters and log; the stack's database), workers = 16, driven
# over FastCGI by t/lib/fcgi-idle-client: each client connects first (a
# worker takes the connection and waits), and all send after the same
# pause, so 16 workers check the secret at once.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
no_plan

BIN=$(dirname "${XB_CTL%% *}")
T=$_API_TMP/burst
mkdir -p "$T"
WORKERS=16
FCGI_PID=
at_exit 'if [[ -n $FCGI_PID ]]; then kill -TERM $FCGI_PID 2>/dev/null; sleep 0.5; kill -KILL $FCGI_PID 2>/dev/null; fi; true'

sed -e "s|^listen = .*|listen = unix:$T/fcgi.sock|" \
    -e "s|^stats_file = .*|stats_file = $T/stats|" \
    -e "s|^log_file = .*||" \
    -e "s|^workers = .*|workers = $WORKERS|" "$XB_CONF" >"$T/xborder.conf"
"$BIN/xborder-fcgi" -c "$T/xborder.conf" 2>"$T/fcgi.log" &
FCGI_PID=$!
ok "$(wait_for '[[ $(pgrep -P '"$FCGI_PID"' | wc -l) -eq '"$WORKERS"' && -S '"$T"'/fcgi.sock ]]' 20 && echo 1)" \
    "a pool of $WORKERS workers, more than the 10 checks a window allows in flight"

sql() {
    mariadb --no-defaults --socket="$XB_DEV_DIR/run/mysqld.sock" --user="$(id -un)" \
        --batch --skip-column-names xborder -e "$1"
}

# burst N ID SECRET: N clients at once, each connected before any sends;
# the Status codes, sorted and counted ("16 200" ...), on one line.
burst() {
    local n=$1 auth i
    auth="Basic $(printf '%s:%s' "$2" "$3" | base64 -w0)"
    for ((i = 1; i <= n; i++)); do
        "$_API_LIB_DIR/fcgi-idle-client" "$T/fcgi.sock" 1000 /config "$auth" >"$T/out.$i" 2>&1 &
    done
    wait
    for ((i = 1; i <= n; i++)); do
        sed -n 's/^Status: \([0-9]*\).*/\1/p; s/^no answer.*/none/p' "$T/out.$i"
    done | sort | uniq -c | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }'
}

# --- the right secret, 32 requests at once on a new pool ----------------------
create_token "$(uniq_name t12-burst)" '["view"]'
b_id=$TOK_CLIENT_ID b_secret=$TOK_SECRET
t0=$SECONDS
is "$(burst 32 "$b_id" "$b_secret")" "32 200" \
    "32 requests at once with the right secret, $WORKERS new workers: all 200, none throttled"
ok "$((SECONDS - t0 < 20))" "the burst is answered within 20 s ($((SECONDS - t0)) s)"
is "$(sql "SELECT COALESCE(SUM(failures), 0), COALESCE(SUM(pending), 0) FROM auth_failures WHERE token_id = '$b_id'")" \
    "$(printf '0\t0')" "nothing is left counted against the token, nothing in flight"
is "$(sql "SELECT COALESCE(failures_until > UTC_TIMESTAMP(3), 0) FROM tokens WHERE id = '$b_id'")" 0 \
    "the token is not marked throttled (its proven requests read nothing more)"
api --as "$b_id" "$b_secret" GET /config
is_status 200 "the same secret through nginx: 200"

# --- wrong secrets: the bound on hashes holds ---------------------------------
create_token "$(uniq_name t12-wrong)" '["view"]'
w_id=$TOK_CLIENT_ID w_secret=$TOK_SECRET
is "$(burst 32 "$w_id" "wrong-secret")" "10 401, 22 429" \
    "32 wrong secrets at once: exactly 10 hashed (401), 22 refused (429)"
is "$(sql "SELECT failures, pending FROM auth_failures WHERE token_id = '$w_id'")" "$(printf '10\t0')" \
    "10 failures counted, none in flight"
api --as "$w_id" "$w_secret" GET /config
is_error 429 RATE_LIMITED "then the right secret is 429 from that address"

# --- checks counted in flight that never end ---------------------------------
# A worker that died in its check leaves it counted in flight for the rest
# of the window: a check that finds the count full of those waits while
# their number stays the same for a second, then answers 429; it does not
# hang, and it does not run argon2 past the limit.
create_token "$(uniq_name t12-stuck)" '["view"]'
s_id=$TOK_CLIENT_ID s_secret=$TOK_SECRET
sql "INSERT INTO auth_failures (token_id, addr, failures, pending, since)
     VALUES ('$s_id', '127.0.0.1', 10, 10, UTC_TIMESTAMP(3))"
t0=$(date +%s%N)
api --as "$s_id" "$s_secret" GET /config
ms=$((($(date +%s%N) - t0) / 1000000))
is_error 429 RATE_LIMITED "10 checks counted in flight, none ending: the right secret is 429"
ok "$((ms >= 900 && ms < 4500))" "after waiting about a second for them to end ($ms ms)"
is "$(sql "SELECT failures, pending FROM auth_failures WHERE token_id = '$s_id'")" "$(printf '10\t10')" \
    "the count is as it was: nothing was hashed"

is "$(grep -c 'level=error' "$T/fcgi.log")" 0 "the pool logged no error"

done_testing
