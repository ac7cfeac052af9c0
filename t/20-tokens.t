#!/usr/bin/env bash
# 20-tokens.t - POST /tokens, GET /tokens, GET /tokens/{id},
# DELETE /tokens/{id}; validation, paging, revocation and isolation.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
no_plan

TOKEN_KEYS='id name permissions accessLevel issuerType status revocable clientId createdAt updatedAt revokedAt'
made=()   # Token ids made on the main platform, revoked at the end

# token_shape WHAT [SECRET_EXPECTED]: the full shape of a Token in $BODY.
token_shape() {
    local what=$1 with_secret=${2:-0} keys=$TOKEN_KEYS
    ((with_secret)) && keys="$keys clientSecret"
    has_keys "$BODY" "$keys" "$what: exact Token keys"
    like "$(jr .id)" "^Token:${UUID4_RE#^}" "$what: id is Token:<uuid4>"
    is "$(jr .clientId)" "$(jr '.id | ltrimstr("Token:")')" "$what: clientId is the raw id"
    jok '(.name | type) == "string"' "$what: name is a string"
    jok '(.permissions | type) == "array" and (.permissions | length) > 0
         and all(.permissions[]; . == "view" or . == "manage")' "$what: permissions"
    jok '.accessLevel == (if (.permissions | index("manage")) then "management" else "view_only" end)' \
        "$what: accessLevel matches the permissions"
    jok '.issuerType == "operator_issued" or .issuerType == "platform_self_service"' "$what: issuerType"
    jok '(.revocable | type) == "boolean"' "$what: revocable is a boolean"
    like "$(jr .createdAt)" "$TS_RE" "$what: createdAt is UTC with milliseconds"
    like "$(jr .updatedAt)" "$TS_RE" "$what: updatedAt is UTC with milliseconds"
    if [[ $(jr .status) == REVOKED ]]; then
        like "$(jr .revokedAt)" "$TS_RE" "$what: revokedAt is a timestamp"
    else
        jis .revokedAt null "$what: revokedAt null"
    fi
    if ((with_secret)); then
        like "$(jr .clientSecret)" "$SECRET_RE" "$what: clientSecret is 43 base64url characters"
    fi
}

# --- POST /tokens ------------------------------------------------------------
name1=$(uniq_name t20-first)
create_token "$name1" '["view","manage"]'
t1=$TOK_ID t1_id=$TOK_CLIENT_ID t1_secret=$TOK_SECRET t1_body=$TOK_BODY
made+=("$t1")
token_shape "POST /tokens" 1
jis .name "\"$name1\"" "POST /tokens: name"
jis '.permissions | sort' '["manage","view"]' "POST /tokens: permissions"
jis .accessLevel '"management"' "POST /tokens: accessLevel management"
jis .issuerType '"platform_self_service"' "POST /tokens: issuerType platform_self_service"
jis .status '"ACTIVE"' "POST /tokens: status ACTIVE"
jis .revocable true "POST /tokens: revocable"
jis .revokedAt null "POST /tokens: revokedAt null"
ok "$(jr '.createdAt <= .updatedAt')" "POST /tokens: createdAt <= updatedAt"

api --as "$t1_id" "$t1_secret" GET /config
is_status 200 "the new credentials work: GET /config"
api --as "$t1_id" "$t1_secret" GET /tokens
is_status 200 "the new credentials work: GET /tokens"

create_token "$(uniq_name t20-views)" '["view","view"]'
made+=("$TOK_ID")
jis .permissions '["view"]' "duplicate permissions folded: [view, view]"
jis .accessLevel '"view_only"' "[view, view]: accessLevel view_only"

create_token "$(uniq_name t20-mix)" '["manage","view","manage","view"]'
made+=("$TOK_ID")
jis '.permissions | sort' '["manage","view"]' "duplicate permissions folded: [manage, view, manage, view]"

name128=$(printf 'n%.0s' {1..128})
create_token "$name128" '["view"]'
made+=("$TOK_ID")
jis .name "\"$name128\"" "name of 128 characters accepted"

name128u=$(printf 'é%.0s' {1..128})
create_token "$name128u" '["view"]'
made+=("$TOK_ID")
jis .name "\"$name128u\"" "name of 128 two-byte characters accepted (characters, not bytes)"

api POST /tokens '{"name":"nul\u0000byte","permissions":["view"]}'
if [[ $STATUS == 201 ]]; then
    made+=("$(jr .id)")
    jis .name '"nul\u0000byte"' "name with U+0000: stored whole"
else
    is_error 400 INVALID_REQUEST "name with U+0000: refused"
    has_details name "name with U+0000: details.name"
fi

name128e=$(printf '\xf0\x9f\x98\x80%.0s' {1..128})
create_token "$name128e" '["view"]'
made+=("$TOK_ID")
jis .name "\"$name128e\"" "name of 128 four-byte characters (emoji) accepted"

# --- POST /tokens validation ---------------------------------------------------
# bad_token BODY FIELD WHAT: POST /tokens gives 400 naming FIELD.
bad_token() {
    api POST /tokens "$1"
    is_error 400 INVALID_REQUEST "POST /tokens $3"
    has_details "$2" "POST /tokens $3: details.$2"
    if [[ $STATUS == 201 ]]; then made+=("$(jr .id)"); fi
}
bad_token '{"permissions":["view"]}' name "without name"
bad_token '{"name":"","permissions":["view"]}' name "with an empty name"
bad_token "{\"name\":\"${name128}x\",\"permissions\":[\"view\"]}" name "with a name of 129 characters"
bad_token '{"name":null,"permissions":["view"]}' name "with a null name"
bad_token '{"name":["x"],"permissions":["view"]}' name "with an array name"
bad_token '{"name":"x"}' permissions "without permissions"
bad_token '{"name":"x","permissions":[]}' permissions "with empty permissions"
bad_token '{"name":"x","permissions":"view"}' permissions "with permissions not an array"
bad_token '{"name":"x","permissions":null}' permissions "with null permissions"
bad_token '{"name":"x","permissions":[1]}' permissions "with a numeric permission"
bad_token '{"name":"x","permissions":["admin"]}' permissions "with an unsupported permission"
jok '.details.permissions | test("view") and test("manage")' "unsupported permission: details.permissions lists view and manage"
bad_token '{"name":"x","permissions":["view","VIEW"]}' permissions "with an upper-case permission"
bad_token '{"name":"x","permissions":["view"],"expiresAt":"2030-01-01T00:00:00.000Z"}' expiresAt "with an extra property"
bad_token '{"name":"x","permissions":["view"],"clientSecret":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}' clientSecret "with a clientSecret"
bad_token '{"name":"x","permissions":["view"],"issuerType":"operator_issued"}' issuerType "with an issuerType"

# --- GET /tokens/{tokenId} ------------------------------------------------------
api GET "/tokens/$t1"
is_status 200 "GET /tokens/Token:<id>: 200"
token_shape "GET /tokens/Token:<id>"
jis . "$(j 'del(.clientSecret)' "$t1_body")" "GET /tokens/Token:<id>: same as created, without clientSecret"

api GET "/tokens/$t1_id"
is_status 200 "GET /tokens/<raw id>: 200"
jis .id "\"$t1\"" "GET /tokens/<raw id>: same token"
has_keys "$BODY" "$TOKEN_KEYS" "GET /tokens/<raw id>: no clientSecret"

api GET "/tokens/Token:$XB_CLIENT_ID"
is_status 200 "GET the root token: 200"
token_shape "root token"
jis .issuerType '"operator_issued"' "root token: issuerType operator_issued"
jis .revocable false "root token: revocable false"
jis .permissions '["view","manage"]' "root token: permissions [view, manage]"
jis .accessLevel '"management"' "root token: accessLevel management"
jis .status '"ACTIVE"' "root token: status ACTIVE"

for bad in abc Token:abc "Token:" "Token:${t1_id}0" "Customer:$t1_id" "token:$t1_id" \
    "Token:$(tr -d - <<<"$t1_id")" "${t1_id:0:35}"; do
    api GET "/tokens/$bad"
    is_error 400 INVALID_REQUEST "GET /tokens/$bad"
    has_details tokenId "GET /tokens/$bad: details.tokenId"
done

unknown=$(uuid4)
api GET "/tokens/Token:$unknown"
is_error 404 TOKEN_NOT_FOUND "GET /tokens/Token:<unknown uuid>"
api GET "/tokens/$unknown"
is_error 404 TOKEN_NOT_FOUND "GET /tokens/<unknown raw uuid>"

# --- GET /tokens on a fresh platform: exact counts and order -------------------
if new_platform t20; then
    pass "second platform created with xborderctl"
    p_plat=$NP_ID p_id=$NP_CLIENT_ID p_secret=$NP_SECRET
    use_creds "$p_id" "$p_secret"

    api GET /tokens
    is_status 200 "fresh platform: GET /tokens 200"
    has_keys "$BODY" 'data hasMore nextCursor totalCount' "GET /tokens: list envelope keys"
    jis '.data | length' 1 "fresh platform: one token"
    jis .totalCount 1 "fresh platform: totalCount 1"
    jis .hasMore false "fresh platform: hasMore false"
    jis .nextCursor null "fresh platform: nextCursor null"
    BODY=$(j '.data[0]') token_shape "fresh platform: listed root token"
    jis '.data[0].id' "\"Token:$p_id\"" "listed root token: its id"
    jis '.data[0].issuerType' '"operator_issued"' "listed root token: operator_issued"
    jis '.data[0].revocable' false "listed root token: revocable false"
    jis '.data[0].permissions' '["view","manage"]' "listed root token: permissions [view, manage]"

    ids=()
    for n in 1 2 3; do
        sleep 0.05   # distinct createdAt milliseconds
        create_token "$(uniq_name "t20-p$n")" '["view"]'
        ids+=("$TOK_ID")
    done
    p_t1=${ids[0]} p_t2=${ids[1]} p_t3=${ids[2]}

    api GET /tokens
    is_status 200 "GET /tokens: 200"
    jis '[.data[].id]' "[\"$p_t3\",\"$p_t2\",\"$p_t1\",\"Token:$p_id\"]" "GET /tokens: newest first"
    jis .totalCount 4 "GET /tokens: totalCount 4"
    jis .hasMore false "GET /tokens: hasMore false"
    jis .nextCursor null "GET /tokens: nextCursor null"
    jok 'all(.data[]; has("clientSecret") | not)' "GET /tokens: no clientSecret in the list"
    jok 'all(.data[]; (keys | sort) == ("accessLevel clientId createdAt id issuerType name permissions revocable revokedAt status updatedAt" | split(" ")))' \
        "GET /tokens: every item has exactly the Token keys"
    jok '[.data[] | [.createdAt, .id]] as $a | $a == ($a | sort | reverse)' "GET /tokens: ordered by createdAt desc, id desc"

    api GET '/tokens?limit=2'
    is_status 200 "GET /tokens?limit=2: 200"
    jis '[.data[].id]' "[\"$p_t3\",\"$p_t2\"]" "limit=2: first page"
    jis .hasMore true "limit=2: hasMore true"
    jis .nextCursor '"2"' "limit=2: nextCursor \"2\""
    jis .totalCount 4 "limit=2: totalCount 4"

    api GET "/tokens?limit=2&cursor=$(jr .nextCursor)"
    is_status 200 "GET /tokens?limit=2&cursor=2: 200"
    jis '[.data[].id]' "[\"$p_t1\",\"Token:$p_id\"]" "cursor=2: second page"
    jis .hasMore false "cursor=2: hasMore false"
    jis .nextCursor null "cursor=2: nextCursor null"
    jis .totalCount 4 "cursor=2: totalCount 4"

    api GET '/tokens?limit=1&cursor=1'
    jis '[.data[].id]' "[\"$p_t2\"]" "limit=1&cursor=1: the second newest"
    jis .nextCursor '"2"' "limit=1&cursor=1: nextCursor \"2\""

    api GET '/tokens?limit=3&cursor=1'
    jis '[.data[].id]' "[\"$p_t2\",\"$p_t1\",\"Token:$p_id\"]" "limit=3&cursor=1: the rest"
    jis .hasMore false "limit=3&cursor=1: hasMore false"

    for c in 4 5 1000; do
        api GET "/tokens?cursor=$c"
        is_status 200 "GET /tokens?cursor=$c: 200"
        jis '{data, hasMore, nextCursor, totalCount}' '{"data":[],"hasMore":false,"nextCursor":null,"totalCount":4}' \
            "cursor=$c (at or past the end): empty page"
    done

    for q in limit=100 limit=1 'cursor=0' 'unknown=x&limit=20'; do
        api GET "/tokens?$q"
        is_status 200 "GET /tokens?$q: 200"
    done

    for q in limit=0 limit=101 limit=abc 'limit=' limit=-1 limit=1.5 'limit=1&limit=2' \
        limit=99999999999999999999 'limit=%201'; do
        api GET "/tokens?$q"
        is_error 400 INVALID_REQUEST "GET /tokens?$q"
        has_details limit "GET /tokens?$q: details.limit"
    done
    for q in cursor=abc 'cursor=' cursor=-1 cursor=1.0 'cursor=1&cursor=1' \
        cursor=99999999999999999999 cursor=0x10; do
        api GET "/tokens?$q"
        is_error 400 INVALID_REQUEST "GET /tokens?$q"
        has_details cursor "GET /tokens?$q: details.cursor"
    done

    # Percent-encoding: %00 or a broken escape never makes a parameter vanish.
    api GET '/tokens?limit=%31'
    jis '.data | length' 1 "GET /tokens?limit=%31 (percent-encoded 1): one row"
    for q in 'limit=2%00' 'limit=%00' 'limit=%002'; do
        api GET "/tokens?$q"
        is_error 400 INVALID_REQUEST "GET /tokens?$q"
        has_details limit "GET /tokens?$q: details.limit"
    done
    api GET '/tokens?cursor=1%00'
    is_error 400 INVALID_REQUEST "GET /tokens?cursor=1%00"
    has_details cursor "GET /tokens?cursor=1%00: details.cursor"
    for q in 'limit=2%2' 'limit=%zz' 'cursor=%g1'; do
        api GET "/tokens?$q"
        is_error 400 INVALID_REQUEST "GET /tokens?$q (broken percent-encoding)"
    done
    for q in 'limit=1&x=%00' 'x=%00&limit=1' 'limit=1&y=%zz'; do
        api GET "/tokens?$q"
        ok "$([[ $STATUS == 400 || ($STATUS == 200 && $(jr '.data | length') == 1) ]] && echo 1)" \
            "GET /tokens?$q: limit=1 not ignored (one row, or 400)"
        [[ $STATUS == 200 ]] && diag "    got $(jr '.data | length') rows"
    done

    # --- isolation ---------------------------------------------------------
    api GET "/tokens/$t1"
    is_error 404 TOKEN_NOT_FOUND "other platform: GET a main-platform token"
    api GET "/tokens/$t1_id"
    is_error 404 TOKEN_NOT_FOUND "other platform: GET a main-platform token by raw id"
    api GET "/tokens/Token:$XB_CLIENT_ID"
    is_error 404 TOKEN_NOT_FOUND "other platform: GET the main platform's root token"
    api DELETE "/tokens/$t1"
    is_error 404 TOKEN_NOT_FOUND "other platform: DELETE a main-platform token"
    api DELETE "/tokens/Token:$XB_CLIENT_ID"
    is_error 404 TOKEN_NOT_FOUND "other platform: DELETE the main platform's root token"
    api GET '/tokens?limit=100'
    jis '[.data[].id] | sort' "$(printf '%s\n' "$p_t1" "$p_t2" "$p_t3" "Token:$p_id" | jq -R . | jq -sc 'sort')" \
        "other platform: lists only its own tokens"

    use_root
    api GET "/tokens/$t1"
    jis .status '"ACTIVE"' "main-platform token still ACTIVE after the other platform's DELETE"
    api GET "/tokens/$p_t1"
    is_error 404 TOKEN_NOT_FOUND "main platform: GET the other platform's token"
    api DELETE "/tokens/$p_t1"
    is_error 404 TOKEN_NOT_FOUND "main platform: DELETE the other platform's token"
    api GET "/tokens/Token:$p_id"
    is_error 404 TOKEN_NOT_FOUND "main platform: GET the other platform's root token"
    all=()
    cursor=0
    while :; do
        api --nocheck GET "/tokens?limit=100&cursor=$cursor"
        [[ $STATUS == 200 ]] || break
        mapfile -t -O "${#all[@]}" all < <(jr '.data[].id')
        [[ $(jr .hasMore) == true ]] || break
        cursor=$(jr .nextCursor)
    done
    joined=" ${all[*]} "
    ok "$([[ $joined != *" $p_t1 "* && $joined != *" Token:$p_id "* && $joined == *" $t1 "* ]] && echo 1)" \
        "main platform's list has its tokens and none of the other platform's"
else
    fail "second platform created with xborderctl"
fi
use_root

# --- DELETE /tokens/{tokenId} -----------------------------------------------------
create_token "$(uniq_name t20-doomed)" '["view"]'
d=$TOK_ID d_id=$TOK_CLIENT_ID d_secret=$TOK_SECRET

# Warm every worker's credential cache with the token first.
statuses=()
for i in 1 2 3 4 5 6 7 8; do
    api --as "$d_id" "$d_secret" GET /config
    statuses+=("$STATUS")
done
is "${statuses[*]}" "200 200 200 200 200 200 200 200" "doomed token works on 8 consecutive requests"

api DELETE "/tokens/$d"
is_status 200 "DELETE /tokens/{id}: 200"
token_shape "DELETE /tokens/{id}"
jis .id "\"$d\"" "DELETE: the same token"
jis .status '"REVOKED"' "DELETE: status REVOKED"
like "$(jr .revokedAt)" "$TS_RE" "DELETE: revokedAt set"
jis .revocable true "DELETE: revocable still true"
ok "$(jr '.revokedAt >= .createdAt and .updatedAt >= .revokedAt')" "DELETE: createdAt <= revokedAt <= updatedAt"
revoked=$BODY

statuses=()
for i in 1 2 3 4 5 6 7 8; do
    api --as "$d_id" "$d_secret" GET /config
    statuses+=("$STATUS")
done
is "${statuses[*]}" "401 401 401 401 401 401 401 401" "revoked credentials: 401 on 8 consecutive requests"
api --as "$d_id" "$d_secret" GET /config
is_error 401 UNAUTHORIZED "revoked credentials: 9th attempt"
api --as "$d_id" "$d_secret" GET /config
is_error 401 UNAUTHORIZED "revoked credentials: 10th attempt"
api --as "$d_id" "$d_secret" GET /config
is_error 429 RATE_LIMITED "revoked credentials: 11th attempt throttled (revoked counts as a failure)"
like "$(header Retry-After)" '^[1-9][0-9]*$' "revoked credentials: 429 carries Retry-After"

api DELETE "/tokens/$d"
is_status 200 "DELETE again: 200"
jis . "$revoked" "DELETE again: token unchanged"

api DELETE "/tokens/$d_id"
is_status 200 "DELETE again by raw id: 200"
jis . "$revoked" "DELETE again by raw id: token unchanged"

api GET "/tokens/$d"
is_status 200 "GET revoked token: 200"
jis . "$revoked" "GET revoked token: as revoked"

create_token "$(uniq_name t20-raw-revoke)" '["manage"]'
api DELETE "/tokens/$TOK_CLIENT_ID"
is_status 200 "DELETE /tokens/<raw id>: 200"
jis .status '"REVOKED"' "DELETE /tokens/<raw id>: REVOKED"

api DELETE "/tokens/Token:$XB_CLIENT_ID"
is_error 409 TOKEN_NOT_REVOCABLE "DELETE the root token"
api DELETE "/tokens/$XB_CLIENT_ID"
is_error 409 TOKEN_NOT_REVOCABLE "DELETE the root token by raw id"
api GET /config
is_status 200 "root token still works"

api DELETE "/tokens/Token:$(uuid4)"
is_error 404 TOKEN_NOT_FOUND "DELETE unknown token"
api DELETE /tokens/abc
is_error 400 INVALID_REQUEST "DELETE /tokens/abc"
has_details tokenId "DELETE /tokens/abc: details.tokenId"

# A token can revoke itself; then it is refused.
create_token "$(uniq_name t20-self)" '["manage"]'
s_id=$TOK_CLIENT_ID s_secret=$TOK_SECRET
api --as "$s_id" "$s_secret" DELETE "/tokens/Token:$s_id"
is_status 200 "a token revokes itself: 200"
api --as "$s_id" "$s_secret" GET /tokens
is_error 401 UNAUTHORIZED "self-revoked token: refused"

# Clean up the tokens made on the main platform.
for t in "${made[@]}"; do
    [[ $t == Token:* ]] || continue
    api DELETE "/tokens/$t"
    is_status 200 "clean up: revoke $t"
done

done_testing
