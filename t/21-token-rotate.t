#!/usr/bin/env bash
# 21-token-rotate.t - `xborderctl token-rotate PLATFORM_ID`: the platform's
# root (operator-issued) token gets a new secret, printed once as the JSON
# object platform-create prints; the old secret fails on every FastCGI
# worker from the commit on, even on workers that had verified it and
# remembered it; the token's id and clientId stay; the platform's
# self-service tokens and other platforms are untouched; an unknown
# platform fails with a message and a non-zero exit.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/stack.sh"
no_plan

MIN_RUN=16      # requests per phase, at least
MAX_RUN=64      # ... and at most, while a worker has not been reached

# clear_failures TOKEN_ID: forgets the token's failed authentications.
# Ten failures from one address within a minute would turn the next
# attempt into 429 without any look at the secret (t/10-auth.t); clearing
# the count between batches keeps every attempt below a real check of the
# secret.
clear_failures() {
    sql "DELETE FROM auth_failures WHERE token_id = '$1'"
}

# run_until_every_worker WHAT ID SECRET STATUS COUNTER: GET /config with
# these credentials MIN_RUN times, then on until every live worker has
# moved COUNTER (at most MAX_RUN); every answer must be STATUS.  Sets
# RUN_STATUSES (the distinct statuses seen), RUN_N, RUN_LEFT (workers
# not reached).
run_until_every_worker() {
    local what=$1 id=$2 secret=$3 want=$4 counter=$5 before n=0 left=1
    local -A seen=()
    before=$(workers)
    while ((n < MAX_RUN)); do
        api --nocheck --as "$id" "$secret" GET /config
        seen[$STATUS]=1
        n=$((n + 1))
        # Below the failure throttle, whatever the counter was.
        ((want == 401 && n % 8 == 0)) && clear_failures "$id"
        if ((n >= MIN_RUN)); then
            left=$(uncovered "$before" "$counter")
            ((left == 0)) && break
        fi
    done
    RUN_STATUSES=$(printf '%s\n' "${!seen[@]}" | sort | paste -sd' ')
    RUN_N=$n RUN_LEFT=$left
    is "$RUN_STATUSES" "$want" "$what: $n requests in a row, every one $want"
    is "$RUN_LEFT" 0 "$what: every live worker answered at least one ($counter moved on each)"
}

nworkers=$(jq length <<<"$(workers)")
ok "$((nworkers >= 2))" "the stack runs more than one FastCGI worker ($nworkers)"

# --- a platform, its root token, a self-service token ---------------------------------
new_platform t21 || BAIL_OUT "platform-create failed"
pid=$NP_ID root_id=$NP_CLIENT_ID old_secret=$NP_SECRET
created=$(xbctl platform-create --name "$(uniq_name t21-shape)" --ppv-domain "$(uniq_name t21-shape).test")

api --as "$root_id" "$old_secret" GET /tokens
is_status 200 "GET /tokens with the new platform's root secret"
jis '[.data[] | select(.issuerType == "operator_issued") | .id]' "[\"Token:$root_id\"]" \
    "the platform has one operator-issued token, Token:<clientId>"
root_before=$(j '.data[] | select(.issuerType == "operator_issued")
    | {id, name, permissions, accessLevel, issuerType, status, revocable, clientId, createdAt}')

create_token "$(uniq_name t21-self)" '["view"]' --as "$root_id" "$old_secret"
self_id=$TOK_CLIENT_ID self_secret=$TOK_SECRET

# --- before: every worker has proven the root secret and remembers it ------------------
# A worker keeps a secret it verified (an HMAC bound to the stored hash);
# a cache hit on every worker shows each one holds it.
run_until_every_worker "root secret before the rotation" "$root_id" "$old_secret" 200 authCacheHits
pids_before=$(workers | jq -c '[.[] | .pid]')

# --- the rotation ----------------------------------------------------------------------
if out=$(xbctl token-rotate "$pid" 2>"$_API_TMP/rot.err"); then rc=0; else rc=$?; fi
is "$rc" 0 "token-rotate exits 0"
is "$(<"$_API_TMP/rot.err")" "" "token-rotate writes nothing to stderr"
is "$(wc -l <<<"$out")" 1 "token-rotate prints one line"
is "$(jq -c 'keys, map_values(type)' <<<"$out" 2>/dev/null)" \
    "$(jq -c 'keys, map_values(type)' <<<"$created")" \
    "token-rotate prints the JSON object platform-create prints (same keys, same types)"
has_keys "$out" 'platformId clientId clientSecret' "its keys: platformId, clientId, clientSecret"
is "$(jr .platformId "$out")" "$pid" "platformId is the platform's raw id"
is "$(jr .clientId "$out")" "$root_id" "clientId is the root token's, unchanged"
new_secret=$(jr .clientSecret "$out")
like "$new_secret" "$SECRET_RE" "clientSecret is 43 base64url characters"
isnt "$new_secret" "$old_secret" "clientSecret is a new secret"
stored=$(sql "SELECT secret_hash FROM tokens WHERE id = '$root_id'")
like "$stored" '^\$argon2id\$' "the stored secret is an argon2id hash"
unlike "$stored" "$new_secret" "the stored hash does not hold the secret"

# --- after: the old secret fails on every worker ---------------------------------------
run_until_every_worker "old root secret after the rotation" "$root_id" "$old_secret" 401 status4xx
is "$(workers | jq -c '[.[] | .pid]')" "$pids_before" \
    "the same worker processes answered before and after (none restarted, no cache lost)"
api --as "$root_id" "$old_secret" GET /config
is_error 401 UNAUTHORIZED "old root secret after the rotation"
is_header WWW-Authenticate 'Basic realm="xborder"' "old root secret: WWW-Authenticate"
clear_failures "$root_id"

# --- ... and the new one works on every worker ----------------------------------------
run_until_every_worker "new root secret" "$root_id" "$new_secret" 200 status2xx
api --as "$root_id" "$new_secret" GET /config
is_status 200 "GET /config with the new root secret"
api --as "$root_id" "$new_secret" POST /tokens '{"name":"t21-after","permissions":["view"]}'
is_status 201 "the new root secret still manages (POST /tokens)"

api --as "$root_id" "$new_secret" GET /tokens
is_status 200 "GET /tokens with the new root secret"
root_after=$(j '.data[] | select(.issuerType == "operator_issued")
    | {id, name, permissions, accessLevel, issuerType, status, revocable, clientId, createdAt}')
is "$root_after" "$root_before" "the root token is the same token: id, clientId, permissions, createdAt"
jis '.totalCount' 3 "no token was added or removed by the rotation (root, self-service, t21-after)"

# --- what the rotation does not touch -------------------------------------------------
api --as "$self_id" "$self_secret" GET /config
is_status 200 "the platform's self-service token still works"
api GET /config
is_status 200 "another platform's root token still works"

# --- Platform:<uuid> is accepted too; a second rotation retires the first secret ------
if out2=$(xbctl token-rotate "Platform:$pid" 2>"$_API_TMP/rot.err"); then rc=0; else rc=$?; fi
is "$rc" 0 "token-rotate Platform:<uuid> exits 0"
is "$(jr .clientId "$out2")" "$root_id" "second rotation: clientId unchanged"
newer=$(jr .clientSecret "$out2")
api --as "$root_id" "$new_secret" GET /config
is_error 401 UNAUTHORIZED "second rotation: the first rotation's secret fails"
api --as "$root_id" "$newer" GET /config
is_status 200 "second rotation: its secret works"
clear_failures "$root_id"

# --- unknown or malformed platforms -----------------------------------------------------
ghost=$(uuid4)
if xbctl token-rotate "$ghost" >"$_API_TMP/rot.out" 2>"$_API_TMP/rot.err"; then rc=0; else rc=$?; fi
is "$rc" 1 "token-rotate of an unknown platform exits 1"
is "$(<"$_API_TMP/rot.out")" "" "... and prints nothing on stdout"
like "$(<"$_API_TMP/rot.err")" "no platform $ghost" "... and says there is no such platform"
if xbctl token-rotate not-a-platform >"$_API_TMP/rot.out" 2>"$_API_TMP/rot.err"; then rc=0; else rc=$?; fi
is "$rc" 1 "token-rotate of something that is not a UUID exits 1"
like "$(<"$_API_TMP/rot.err")" "not a platform id" "... and says why"
if xbctl token-rotate >/dev/null 2>&1; then rc=0; else rc=$?; fi
is "$rc" 2 "token-rotate without a platform is a usage error (exit 2)"
api --as "$root_id" "$newer" GET /config
is_status 200 "failed rotations changed nothing"

done_testing
