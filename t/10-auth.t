#!/usr/bin/env bash
# 10-auth.t - Basic authentication (401), throttling of repeated failures
# (429), permissions (403), and a 401 that takes as long for an unknown or
# revoked clientId as for a wrong secret (no timing oracle).
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
no_plan

# A token of our own for the wrong-secret cases, so the root token never
# collects failures (they would throttle it for the other suites).
create_token "$(uniq_name t10-a)" '["view"]'
a_id=$TOK_CLIENT_ID a_secret=$TOK_SECRET

api --as "$a_id" "$a_secret" GET /config
is_status 200 "token A works"

# --- 401 for every kind of bad credentials -------------------------------
bodies=()
# unauth_case DESCRIPTION API_OPTIONS...: GET /config must be a 401.
unauth_case() {
    local what=$1
    shift
    api "$@" GET /config
    is_error 401 UNAUTHORIZED "GET /config, $what"
    is_header WWW-Authenticate 'Basic realm="xborder"' "GET /config, $what: WWW-Authenticate"
    jis .details '{}' "GET /config, $what: empty details"
    bodies+=("$(jq -cS . <<<"$BODY" 2>/dev/null)")
}

unauth_case "no Authorization header" --noauth
unauth_case "Bearer scheme" --authz "Bearer $(b64 "$a_id:$a_secret")"
unauth_case "Digest scheme" --authz 'Digest username="x", realm="xborder"'
unauth_case "Basic without credentials" --authz 'Basic'
unauth_case "Basic with an empty value" --authz 'Basic '
unauth_case "bad base64" --authz 'Basic !!!not*base64###'
unauth_case "base64 without a colon" --authz "Basic $(b64 "$a_id$a_secret")"
unauth_case "empty user and password" --authz "Basic $(b64 ':')"
unauth_case "empty password" --authz "Basic $(b64 "$a_id:")"
unauth_case "unknown clientId" --as "$(uuid4)" "$a_secret"
unauth_case "clientId that is not a UUID" --as admin admin
unauth_case "Token:<id> as user name" --as "Token:$a_id" "$a_secret"
unauth_case "wrong secret" --as "$a_id" "${a_secret%?}x"
unauth_case "secret with an extra character" --as "$a_id" "${a_secret}A"

same=1
for b in "${bodies[@]}"; do
    [[ $b == "${bodies[0]}" ]] || same=0
done
ok "$same" "the 401 body is identical in every case"
((same)) || diag "bodies: $(printf '%s\n' "${bodies[@]}")"

for req in "GET /tokens" "POST /tokens" "GET /sandbox/lightning-execution-profile" \
    "PATCH /sandbox/lightning-execution-profile" "PATCH /config" "DELETE /tokens/Token:$a_id"; do
    api --noauth ${req%% *} "${req#* }" "$([[ $req == P* ]] && echo '{}')"
    is_error 401 UNAUTHORIZED "$req without credentials"
    is_header WWW-Authenticate 'Basic realm="xborder"' "$req without credentials: WWW-Authenticate"
done

api --as "$a_id" "$a_secret" GET /config
is_status 200 "token A still works after one wrong secret"

# --- throttling ------------------------------------------------------------
create_token "$(uniq_name t10-throttled)" '["view"]'
b_id=$TOK_CLIENT_ID b_secret=$TOK_SECRET
create_token "$(uniq_name t10-bystander)" '["view"]'
c_id=$TOK_CLIENT_ID c_secret=$TOK_SECRET

statuses=()
for i in 1 2 3 4 5 6 7 8 9 10; do
    api --as "$b_id" "wrong-secret-$i" GET /config
    statuses+=("$STATUS")
done
is "${statuses[*]}" "401 401 401 401 401 401 401 401 401 401" "10 wrong secrets: 401 each"

api --as "$b_id" "$b_secret" GET /config
is_error 429 RATE_LIMITED "11th attempt, with the right secret"
like "$(header Retry-After)" '^[1-9][0-9]*$' "429 carries Retry-After in seconds"
ra=$(header Retry-After)
ok "$([[ $ra =~ ^[0-9]+$ ]] && ((ra <= 60)) && echo 1)" "Retry-After is at most 60"

api --as "$b_id" "wrong-again" GET /config
is_error 429 RATE_LIMITED "12th attempt, wrong secret"

api --as "$b_id" "$b_secret" GET /nope
is_error 404 NOT_FOUND "throttled token, unknown path: 404 (routing first)"
api --as "$b_id" "$b_secret" PUT /config '{}'
is_error 405 METHOD_NOT_ALLOWED "throttled token, PUT /config: 405 (routing first)"

api --as "$c_id" "$c_secret" GET /config
is_status 200 "another token is not throttled"
api GET /config
is_status 200 "the root token is not throttled"
api --as "$(uuid4)" "$b_secret" GET /config
is_error 401 UNAUTHORIZED "unknown clientId is still 401, not 429"

# A secret the workers have proven (kept in their credential caches) is
# throttled as well: a cached hit must still see the failures counted
# against the token from this address, or an attacker's right guess would
# answer 200 while every wrong one answers 429.
create_token "$(uniq_name t10-proven)" '["view"]'
d_id=$TOK_CLIENT_ID d_secret=$TOK_SECRET
codes=""
for i in $(seq 16); do api --as "$d_id" "$d_secret" GET /config; codes+="$STATUS "; done
is "$codes" "$(printf '200 %.0s' $(seq 16))" "a new token's right secret, 16 times: 200 (proven in the workers)"
for i in $(seq 10); do api --as "$d_id" "wrong-$i" GET /config; done
codes=""
for i in $(seq 16); do api --as "$d_id" "$d_secret" GET /config; codes+="$STATUS "; done
is "$codes" "$(printf '429 %.0s' $(seq 16))" "after 10 wrong secrets, the proven right secret is 429 in every worker"

# --- the configured argon2 costs make every new token's hash -----------------
conf_num() {
    local v
    v=$(sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*\([0-9]*\).*/\1/p" "$XB_CONF" | tail -n 1)
    echo "${v:-$2}"
}
a_t=$(conf_num argon2_t 2) a_m=$(conf_num argon2_m 19456) a_p=$(conf_num argon2_p 1)
create_token "$(uniq_name t10-costs)" '["view"]'
stored=$(mariadb --no-defaults --socket="$XB_DEV_DIR/run/mysqld.sock" --user="$(id -un)" \
    --batch --skip-column-names xborder -e "SELECT secret_hash FROM tokens WHERE id = '$TOK_CLIENT_ID'")
like "$stored" "^\\\$argon2id\\\$v=19\\\$m=$a_m,t=$a_t,p=$a_p\\\$" \
    "a new token's secret is an argon2id hash with the configured costs (m=$a_m,t=$a_t,p=$a_p)"

# --- throttling under parallel attempts, across every worker -----------------
# 40 wrong secrets at once, 10 connections at a time, spread over all the
# FastCGI workers: each attempt is counted before its argon2 run, in one
# statement, so exactly 10 are verified (401) and the other 30 are 429
# without any hashing, however the workers interleave.
create_token "$(uniq_name t10-parallel)" '["view"]'
p_id=$TOK_CLIENT_ID p_secret=$TOK_SECRET
: >"$_API_TMP/par.cfg"
for i in $(seq 40); do
    ((i == 1)) || echo next >>"$_API_TMP/par.cfg"
    printf 'url = "%s/config"\nuser = "%s:wrong-%s"\ninsecure\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n' \
        "$XB_BASE_URL" "$p_id" "$i" >>"$_API_TMP/par.cfg"
done
curl -s --no-progress-meter --parallel --parallel-max 10 --config "$_API_TMP/par.cfg" \
    >"$_API_TMP/par.out" 2>/dev/null
n401=$(grep -c '^401$' "$_API_TMP/par.out" || true)
n429=$(grep -c '^429$' "$_API_TMP/par.out" || true)
is "$n401 $n429" "10 30" "40 parallel wrong secrets: exactly 10 verified (401), 30 refused unhashed (429)"
api --as "$p_id" "$p_secret" GET /config
is_error 429 RATE_LIMITED "then the right secret is 429 too, until the window passes"

# --- timing: a failure does not tell whether the clientId exists -------------
# A wrong secret for a live clientId costs an argon2id run; an unknown or
# revoked clientId must cost about as much, or the time of a 401 tells
# which clientIds exist.  Medians of curl's time_total over 15 requests of
# each kind, interleaved; throwaway tokens take at most 8 failures each,
# below the throttle (10 in 60 s).
live=() revoked=()
for i in 1 2; do
    create_token "$(uniq_name t10-timing-live)" '["view"]'
    live+=("$TOK_CLIENT_ID")
    create_token "$(uniq_name t10-timing-revoked)" '["view"]'
    revoked+=("$TOK_CLIENT_ID")
    api DELETE "/tokens/Token:$TOK_CLIENT_ID"
    is_status 200 "revoke a token for the timing test"
done
# time_401 ID SECRET FILE: one GET /config; appends time_total to FILE
# when the answer is 401, else a marker that fails the comparison.
time_401() {
    local out
    out=$(curl -sk -o /dev/null -w '%{http_code} %{time_total}' --max-time 5 \
        -H "Authorization: Basic $(b64 "$1:$2")" "$XB_BASE_URL/config") || out="000 0"
    if [[ ${out%% *} == 401 ]]; then echo "${out#* }" >>"$3"; else echo "status ${out%% *}" >>"$3"; fi
}
# median FILE: the median of the numbers in FILE, in milliseconds.
median() {
    sort -g "$1" | awk '{v[NR] = $1} END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m * 1000}'
}
: >"$_API_TMP/t-wrong"; : >"$_API_TMP/t-unknown"; : >"$_API_TMP/t-revoked"
started=$SECONDS
for ((i = 0; i < 15; i++)); do
    time_401 "${live[i / 8]}" "wrong-secret-$i" "$_API_TMP/t-wrong"
    time_401 "$(uuid4)" "wrong-secret-$i" "$_API_TMP/t-unknown"
    time_401 "${revoked[i / 8]}" "wrong-secret-$i" "$_API_TMP/t-revoked"
done
ok "$(! grep -q status "$_API_TMP"/t-* && echo 1)" "timing: all 45 attempts answered 401"
ok "$((SECONDS - started < 30))" "timing: the 45 attempts took under 30 s, no hang ($((SECONDS - started)) s)"
m_wrong=$(median "$_API_TMP/t-wrong")
m_unknown=$(median "$_API_TMP/t-unknown")
m_revoked=$(median "$_API_TMP/t-revoked")
diag "median time of a 401: wrong secret $m_wrong ms, unknown clientId $m_unknown ms, revoked $m_revoked ms"
ok "$(awk -v a="$m_unknown" -v w="$m_wrong" 'BEGIN {print (a >= 0.5 * w)}')" \
    "timing: an unknown clientId costs at least half a wrong secret ($m_unknown vs $m_wrong ms)"
ok "$(awk -v a="$m_revoked" -v w="$m_wrong" 'BEGIN {print (a >= 0.5 * w)}')" \
    "timing: a revoked clientId costs at least half a wrong secret ($m_revoked vs $m_wrong ms)"

# --- permissions -------------------------------------------------------------
create_token "$(uniq_name t10-view)" '["view"]'
v_id=$TOK_CLIENT_ID v_secret=$TOK_SECRET
jis .accessLevel '"view_only"' "view token: accessLevel view_only"
create_token "$(uniq_name t10-manage)" '["manage"]'
m_id=$TOK_CLIENT_ID m_secret=$TOK_SECRET m_tok=$TOK_ID
jis .accessLevel '"management"' "manage token: accessLevel management"

for p in /config /tokens "/tokens/Token:$v_id" "/tokens/$m_tok" /sandbox/lightning-execution-profile; do
    api --as "$v_id" "$v_secret" GET "$p"
    is_status 200 "view token: GET $p"
done
for p in /config /tokens "/tokens/Token:$m_id" /sandbox/lightning-execution-profile; do
    api --as "$m_id" "$m_secret" GET "$p"
    is_status 200 "manage-only token: GET $p"
done

# forbidden DESCRIPTION METHOD PATH [BODY] [api options...]: 403 manage required.
forbidden() {
    local what=$1 method=$2 path=$3 body=${4:-}
    shift 4 2>/dev/null || shift $#
    api --as "$v_id" "$v_secret" "$@" "$method" "$path" "$body"
    is_error 403 FORBIDDEN "view token: $what"
    jis .details.requiredAccessLevel '"manage"' "view token: $what: details.requiredAccessLevel manage"
}

forbidden "POST /tokens" POST /tokens "{\"name\":\"$(uniq_name t10-no)\",\"permissions\":[\"view\"]}"
forbidden "POST /tokens with an invalid body (403 before 400)" POST /tokens '{"foo":1}'
forbidden "POST /tokens with text/plain (403 before 415)" POST /tokens '{}' --ctype text/plain
forbidden "PATCH /config" PATCH /config '{}'
{ printf '{'; head -c 100000 /dev/zero | tr '\0' ' '; printf '}'; } >"$_API_TMP/100k"
api --as "$v_id" "$v_secret" --file "$_API_TMP/100k" PATCH /config
is_error 403 FORBIDDEN "view token: PATCH /config with a 100 kB body (403 before 413)"
forbidden "PATCH /config with malformed JSON (403 before 400)" PATCH /config '{"a":'
forbidden "DELETE /tokens/{unknown} (403 before 404)" DELETE "/tokens/Token:$(uuid4)"
forbidden "DELETE the root token (403 before 409)" DELETE "/tokens/Token:$XB_CLIENT_ID"
forbidden "PATCH /config with a change" PATCH /config '{"webhookEndpoint":"https://example.com/forbidden"}'
forbidden "DELETE /tokens/x (403 before 400)" DELETE /tokens/x
forbidden "DELETE /tokens/{manage token}" DELETE "/tokens/$m_tok"
forbidden "DELETE /tokens/{itself}" DELETE "/tokens/Token:$v_id"
forbidden "PATCH /sandbox/lightning-execution-profile" PATCH /sandbox/lightning-execution-profile '{}'
forbidden "PATCH /sandbox/lightning-execution-profile with a change" PATCH /sandbox/lightning-execution-profile '{"btcFiatSpreadBps":1}'

api GET "/tokens/$m_tok"
jis .status '"ACTIVE"' "manage token still ACTIVE after the view token's DELETE"
api GET /config
jok '.webhookEndpoint != "https://example.com/forbidden"' "config not changed by the view token"

# The manage-only token can write.
create_token "$(uniq_name t10-by-manage)" '["view"]' --as "$m_id" "$m_secret"
if [[ $TOK_ID == Token:* ]]; then
    api --as "$m_id" "$m_secret" DELETE "/tokens/$TOK_ID"
    is_status 200 "manage-only token: DELETE /tokens/{id}"
fi

# Clean up: revoke the tokens made here (the throttled one is revoked with root).
for t in "$a_id" "$b_id" "$c_id" "$v_id" "$m_id" "${live[@]}"; do
    [[ $t =~ $UUID4_RE ]] || continue
    api DELETE "/tokens/Token:$t"
    is_status 200 "clean up: revoke Token:$t"
done

done_testing
