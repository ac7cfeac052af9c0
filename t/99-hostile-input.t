#!/usr/bin/env bash
# 99-hostile-input.t - hostile input over every operation of the API,
# generated at run time from openapi/openapi.json (t/lib/hostile-cases.mjs),
# so an operation added to the document is covered without a change here.
#
# Per operation, as applicable: Basic credentials with no colon, not base64,
# of 10 KB (401); a 20 KB header (nginx's 400); percent-encoding tricks in
# path ids (%2F, %00, .., %zz, %4, 300 characters, ...); header parameters
# (Idempotency-Key, X-Platform-Id) too long, not ASCII or empty; query parameters
# given twice, with a NUL or bytes that are not UTF-8 (400 naming them);
# wrong and missing Content-Types (415); malformed and truncated JSON;
# every body field (nested ones and array items too) given each wrong JSON
# type and left out when required; integers past 64 bits, negative, zero,
# fractional and exponent forms; amount strings in the same forms; NUL,
# invalid UTF-8, overlong forms and surrogates in values and keys; strings
# of 100 KB (the application's 413) and 1 MiB (nginx's 413); duplicated
# keys.  Duplicated JSON keys: the last one wins, everywhere (what the
# parser does): the last value is validated and the earlier ones are not
# looked at; a PATCH with a key given twice stores the last value.
#
# Every answer must be a 4xx (never a 5xx, never no answer) with
# Content-Type application/json, the standard headers and the error
# envelope {status, code, message, details} whose status is the HTTP
# status, and must match the OpenAPI description (the response validator
# of t/lib/oas.sh); most cases also expect their exact status, code and
# the field details names.  A case that would be valid is made invalid by
# an unknown property, so no case may write: then details must name only
# that property (which proves the rest was accepted).
#
# Afterwards: no FastCGI worker died (no "worker N died" in the fcgi log,
# the master the same process, its children the same set unless recycled
# after max_requests), and the test platform's rows, counted and
# fingerprinted in every table with a platform_id, are what they were.
#
# The bulk cases go out with one curl --parallel run (a config file of one
# transfer per case) and are checked by hostile-cases.mjs; each case is
# one TAP assertion.  A few cases that need more go through api().
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
no_plan

T0=$SECONDS
HC=$_API_LIB_DIR/hostile-cases.mjs
SOCK=${XB_DEV_DIR:?}/run/mysqld.sock
FCGI_LOG=$XB_DEV_DIR/log/xborder-fcgi.log
FCGI_PID_FILE=$XB_DEV_DIR/run/xborder-fcgi.pid
SENT=0

command -v node >/dev/null || plan skip_all "no node (scripts/dev check installs it)"

# sql STATEMENTS: runs them in the stack's database (as t/76 does).
sql() {
    mariadb --no-defaults --socket="$SOCK" --user="$(id -un)" --batch --skip-column-names \
        xborder -e "$1"
}

# --- the operation table covers every route -----------------------------------------
mapfile -t OPS < <(node "$HC" ops)
ok "$((${#OPS[@]} > 0))" "the operation table from openapi/openapi.json is not empty (${#OPS[@]} operations)"
mapfile -t ROUTES < <(grep -oE '\{ *M_[A-Z]+, *"[^"]+"' "$XB_REPO/src/routes.c" |
    sed -E 's/\{ *M_([A-Z]+), *"([^"]+)"/\1 \2/')
missing=()
for r in "${ROUTES[@]}"; do
    printf '%s\n' "${OPS[@]}" | grep -qxF "$r" || missing+=("$r")
done
ok "$((${#ROUTES[@]} > 30))" "src/routes.c read: ${#ROUTES[@]} routes"
is "${missing[*]}" "" "every route of src/routes.c is an operation of the table"

# --- the FastCGI workers before ------------------------------------------------------
died_count() { grep -c 'worker [0-9]* died' "$FCGI_LOG" 2>/dev/null || true; }
worker_pids() { pgrep -P "$1" | sort -n | paste -sd' '; }
MASTER=$(cat "$FCGI_PID_FILE" 2>/dev/null)
ok "$([[ $MASTER =~ ^[0-9]+$ ]] && kill -0 "$MASTER" 2>/dev/null && echo 1)" "the FastCGI master runs (pid $MASTER)"
DIED0=$(died_count)
PIDS0=$(worker_pids "$MASTER")
note "FastCGI master $MASTER, workers $PIDS0; 'worker N died' lines so far: $DIED0"

# --- a platform of its own with one of everything -------------------------------------
new_platform t99 || BAIL_OUT "platform-create failed"
pass "platform created with xborderctl"
use_creds "$NP_CLIENT_ID" "$NP_SECRET"
P=$NP_ID

# Quotes stay QUOTE_READY for the whole run.
set_profile 25 3600
mk_customer t99-a
A=$CUST
int_account "$A" USD
A_USD=$INT
mk_ext "$A" 000199199001 USD
A_EXT=$EXT
fund "$A_USD" 1000000
mk_customer t99-b
B_PPV=$CUST_PPV
create_token "$(uniq_name t99)" '["view"]'
TOKEN=$TOK_ID
# A PENDING incoming payment for approve and reject.
api POST /sandbox/incoming-payments/simulate \
    "{\"receiverCustomerId\":\"$A\",\"scenario\":\"sanctions_hit\",\"amountMinor\":1000,\"currencyCode\":\"USD\"}"
is_status 201 "a PENDING incoming payment to review: 201"
TX=$(jr .transactionId)
api POST /quotes "$(ppv_quote "$A_USD" "$B_PPV" USD SENDING 1000)"
is_status 201 "a quote paying B's PPV address: 201"
QUOTE=$(jr .quoteId)
[[ $QUOTE == Quote:* ]] || QUOTE="Quote:$(uuid4)"

FIX=$_API_TMP/fixtures.json
jq -n --arg c "$A" --arg x "$A_EXT" --arg i "$A_USD" --arg t "$TOKEN" --arg q "$QUOTE" \
    --arg w "Webhook:$(uuid4)" --arg tx "$TX" --arg ppv "$B_PPV" \
    '{Customer: $c, ExternalAccount: $x, InternalAccount: $i, Token: $t, Quote: $q, Webhook: $w,
      transactionId: $tx, ppvAddress: $ppv, receiverCustomerId: $c}' >"$FIX"
jok 'all(.[]; type == "string" and length > 3 and (test("^(Customer|Token|Quote|Webhook|ExternalAccount|InternalAccount|Transaction):") or test("@")))' \
    "the fixtures are ids: $(jq -c . "$FIX")" "$(cat "$FIX")"

# --- generate the cases ---------------------------------------------------------------
CASES=$_API_TMP/hostile
gen_out=$(node "$HC" gen --dir "$CASES" --base "$XB_BASE_URL" --fixtures "$FIX" \
    --authz "Basic $(b64 "$NP_CLIENT_ID:$NP_SECRET")" 2>&1)
ok "$([[ -s $CASES/cases.jsonl && -s $CASES/curl.cfg ]] && echo 1)" "cases generated: $gen_out"
NCASES=$(wc -l <"$CASES/cases.jsonl")
is "$(jq -r '.op' "$CASES/cases.jsonl" | sort -u | wc -l)" "${#OPS[@]}" "every operation has cases"

# --- the platform's rows before -------------------------------------------------------
# Every table with a platform_id (and the platform's own row): the count and
# a fingerprint (sum of CRC32 of every column) of the platform's rows.  The
# invariant checks' own checkpoints (count_checkpoint*) are left out: no
# request writes them, and xborder-worker moves them on its own schedule
# (invariant_lag after the fixtures' events), which can fall in this window.
ROWSQL=
while IFS=$'\t' read -r t cols; do
    [[ -n $t ]] || continue
    ROWSQL+="${ROWSQL:+ UNION ALL }SELECT '$t', COUNT(*), COALESCE(SUM(CRC32(CONCAT_WS('|', $cols))), 0) FROM \`$t\` WHERE platform_id = '$P'"
done < <(sql "SET SESSION group_concat_max_len = 65536;
    SELECT c.table_name, GROUP_CONCAT(CONCAT('\`', c.column_name, '\`') ORDER BY c.ordinal_position)
    FROM information_schema.columns c
    WHERE c.table_schema = DATABASE()
      AND c.table_name IN (SELECT table_name FROM information_schema.columns
                           WHERE table_schema = DATABASE() AND column_name = 'platform_id')
      AND c.table_name NOT LIKE 'count\\_checkpoint%'
    GROUP BY c.table_name ORDER BY c.table_name")
pcols=$(sql "SELECT GROUP_CONCAT(CONCAT('\`', column_name, '\`') ORDER BY ordinal_position)
    FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'platforms'")
ROWSQL+=" UNION ALL SELECT 'platforms', COUNT(*), COALESCE(SUM(CRC32(CONCAT_WS('|', $pcols))), 0) FROM platforms WHERE id = '$P'"
rows_snapshot() { sql "$ROWSQL" 2>&1; }
# Wait until the fixtures' own work (settlement, events) has come to rest.
ROWS0=$(rows_snapshot)
for ((i = 0; i < 20; i++)); do
    sleep 1
    r=$(rows_snapshot)
    [[ $r == "$ROWS0" ]] && break
    ROWS0=$r
done
ok "$(grep -c . <<<"$ROWS0" | awk '$1 > 5')" "the platform's rows read from $(grep -c . <<<"$ROWS0") tables"
note "rows before: $(awk '{printf "%s %s; ", $1, $2}' <<<"$ROWS0")"

# --- send them --------------------------------------------------------------------------
t1=$SECONDS
curl -s --parallel --parallel-max 6 --config "$CASES/curl.cfg" 2>"$CASES/curl.err"
cerr=$(tr '\r' '\n' <"$CASES/curl.err" | grep -o 'curl: ([0-9]*).*' | sort | uniq -c | head -5 | tr -s ' \n' ' ')
note "curl: $NCASES requests in $((SECONDS - t1)) s${cerr:+ (curl errors: $cerr)}"
SENT=$((SENT + NCASES))

# --- check them: one assertion per case ------------------------------------------------
. "$_API_LIB_DIR/oas.sh"
[[ -n ${_OAS_URL:-} ]] || diag "no OpenAPI validator: the answers are checked without it"
t1=$SECONDS
n_ok=0 n_bad=0
while IFS=$'\t' read -r verdict name why; do
    if [[ $verdict == ok ]]; then
        pass "$name"
        n_ok=$((n_ok + 1))
    else
        fail "$name"
        diag "    $why"
        n_bad=$((n_bad + 1))
    fi
done < <(node "$HC" check --dir "$CASES" ${_OAS_URL:+--oas "$_OAS_URL"})
is "$((n_ok + n_bad))" "$NCASES" "every case was checked ($n_ok answered as expected, $n_bad not; $((SECONDS - t1)) s)"

# --- cases that need more than one request ---------------------------------------------
# A 20 KB header.  Over HTTP/1.1 nginx answers its JSON 400.  Over HTTP/2
# nginx 1.22 closes the stream without any answer when a header passes
# large_client_header_buffers (no setting makes it answer 4xx there): no
# 5xx and no HTML either way, which is what this holds.
big_header="X-Hostile: $(printf "%$((20 * 1024))s" '' | tr ' ' h)"
api --nocheck GET /config '' -H "$big_header" --http1.1
SENT=$((SENT + 1))
is_error 400 INVALID_REQUEST "GET /config with a 20 KB header over HTTP/1.1: nginx's 400 in the envelope"
api --nocheck GET /config '' -H "$big_header"
SENT=$((SENT + 1))
if [[ $STATUS == 000 ]]; then
    pass "GET /config with a 20 KB header over HTTP/2: the stream is closed without an answer (nginx)"
else
    is_error 400 INVALID_REQUEST "GET /config with a 20 KB header over HTTP/2: the envelope"
fi

# 10 KB Basic credentials over HTTP/1.1 (nginx's header line limit is 8 KB).
api --nocheck --authz "Basic $(head -c 7500 /dev/urandom | base64 -w0)" GET /config '' --http1.1
SENT=$((SENT + 1))
is_error 400 INVALID_REQUEST "GET /config with 10 KB Basic credentials over HTTP/1.1: nginx's 400 in the envelope"

# A 1 MiB string over HTTP/2 (one stream on its connection): nginx's 413.
{ printf '{"name":"'; printf "%$((1024 * 1024))s" '' | tr ' ' s; printf '","permissions":["view"]}'; } >"$_API_TMP/1m"
api --file "$_API_TMP/1m" POST /tokens
SENT=$((SENT + 1))
is_error 413 PAYLOAD_TOO_LARGE "POST /tokens with a 1 MiB name over HTTP/2"

# --- nothing was written ---------------------------------------------------------------
ROWS1=$(rows_snapshot)
while read -r t n fp; do
    read -r _ n1 fp1 < <(awk -v t="$t" '$1 == t' <<<"$ROWS1")
    is "$n1 $fp1" "$n $fp" "table $t: the platform's $n rows unchanged (count and fingerprint)"
done <<<"$ROWS0"

# --- the workers did not die -------------------------------------------------------------
DIED1=$(died_count)
is "$DIED1" "$DIED0" "no 'worker N died' line in the fcgi log since the start"
is "$(cat "$FCGI_PID_FILE" 2>/dev/null)" "$MASTER" "the FastCGI master is the same process"
PIDS1=$(worker_pids "$MASTER")
MAXREQ=$(awk -F' *= *' '$1 == "max_requests" {print $2}' "${XB_CONF:-/dev/null}" 2>/dev/null)
gone=()
for p in $PIDS0; do
    [[ " $PIDS1 " == *" $p "* ]] && continue
    served=$(grep -c "^info \[$p\] " "$FCGI_LOG" 2>/dev/null)
    # Recycled: it served its max_requests (every request is logged).
    if [[ ${MAXREQ:-0} -gt 0 && ${served:-0} -ge $MAXREQ ]]; then
        note "worker $p was recycled after $served requests (max_requests $MAXREQ)"
    else
        gone+=("$p (served ${served:-?})")
    fi
done
is "${gone[*]}" "" "the workers are the same set (before: $PIDS0; after: $PIDS1), or only recycled by max_requests"

# --- duplicated keys: the last one is what is stored -------------------------------------
api PATCH "/customers/$A" '{"fullName":"First Name","fullName":"Last Name"}'
SENT=$((SENT + 1))
is_status 200 "PATCH /customers/{id} with fullName twice: 200"
jis .fullName '"Last Name"' "PATCH /customers/{id} with fullName twice: the last value is stored"
api GET "/customers/$A"
jis .fullName '"Last Name"' "GET /customers/{id}: fullName is the last value given"

note "sent $SENT hostile requests ($NCASES generated over ${#OPS[@]} operations) in $((SECONDS - T0)) s"
done_testing
