#!/usr/bin/env bash
# 00-http.t - the HTTP pipeline: routing (404/405), content types (415),
# body size (413), JSON parsing (400), order of checks, the standard
# response headers and GET /healthz.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
no_plan

# --- /healthz ------------------------------------------------------------
api --noauth GET /healthz
is_status 200 "GET /healthz without credentials: 200"
has_keys "$BODY" 'status database version' "GET /healthz: exactly status, database, version"
jis .status '"ok"' "GET /healthz: status ok"
jis .database '"ok"' "GET /healthz: database ok"
jok '(.version | type) == "string" and (.version | length) > 0' "GET /healthz: version is a non-empty string"
rid1=$(header X-Request-Id)

api --noauth GET /healthz
rid2=$(header X-Request-Id)
isnt "$rid2" "$rid1" "X-Request-Id differs between two requests"

# --- unknown paths: 404 NOT_FOUND ---------------------------------------
for p in /nope /platforms /platforms/x "/platforms/$XB_PLATFORM_ID" /internal/x /internal/ \
    /payments/x /payments /config/ /tokens/x/y /sandbox /sandbox/lightning-execution-profile/ \
    /healthz/ /CONFIG; do
    api GET "$p"
    is_error 404 NOT_FOUND "GET $p (authenticated)"
done
# nginx's internal error locations are not reachable from outside.
api GET /.xborder-error/503
is_error 404 NOT_FOUND "GET /.xborder-error/503 (an nginx-internal location)"
api POST /platforms '{}'
is_error 404 NOT_FOUND "POST /platforms"
api DELETE /internal/x
is_error 404 NOT_FOUND "DELETE /internal/x"

# Unknown path is answered before credentials are looked at.
api --noauth GET /nope
is_error 404 NOT_FOUND "GET /nope without credentials"
api --authz 'Basic Zm9vOmJhcg==' GET /platforms
is_error 404 NOT_FOUND "GET /platforms with bad credentials"

# --- 405 METHOD_NOT_ALLOWED with Allow --------------------------------------
# allow_has METHOD...: the Allow header of the last response lists them all.
allow_has() {
    local allow list m missing=()
    allow=$(header Allow)
    list=",$(tr -d ' ' <<<"${allow^^}"),"
    for m in "$@"; do
        [[ $list == *",$m,"* ]] || missing+=("$m")
    done
    is "${missing[*]}" "" "$REQ: Allow ($allow) lists $*"
}
# allow_lacks METHOD: the Allow header does not list METHOD.
allow_lacks() {
    local list
    list=",$(header Allow | tr -d ' ' | tr a-z A-Z),"
    unlike "$list" ",$1," "$REQ: Allow does not list $1"
}

api PUT /config '{}'
is_error 405 METHOD_NOT_ALLOWED "PUT /config"
allow_has GET PATCH
allow_lacks PUT

api DELETE /config
is_error 405 METHOD_NOT_ALLOWED "DELETE /config"
allow_has GET PATCH

api POST /config '{}'
is_error 405 METHOD_NOT_ALLOWED "POST /config"
allow_has GET PATCH

api PATCH /tokens '{}'
is_error 405 METHOD_NOT_ALLOWED "PATCH /tokens"
allow_has GET POST
allow_lacks PATCH

api PUT "/tokens/Token:$XB_CLIENT_ID" '{}'
is_error 405 METHOD_NOT_ALLOWED "PUT /tokens/{id}"
allow_has GET DELETE
allow_lacks PUT

api POST "/tokens/Token:$XB_CLIENT_ID" '{}'
is_error 405 METHOD_NOT_ALLOWED "POST /tokens/{id}"
allow_has GET DELETE

api POST /sandbox/lightning-execution-profile '{}'
is_error 405 METHOD_NOT_ALLOWED "POST /sandbox/lightning-execution-profile"
allow_has GET PATCH

api OPTIONS /config
is_error 405 METHOD_NOT_ALLOWED "OPTIONS /config"
allow_has GET PATCH

api --noauth POST /healthz '{}'
is_error 405 METHOD_NOT_ALLOWED "POST /healthz"
allow_has GET

# 405 comes before authentication.
api --noauth PUT /config '{}'
is_error 405 METHOD_NOT_ALLOWED "PUT /config without credentials"
allow_has GET PATCH

# --- authentication comes before the form of the request -----------------
api --noauth GET /config
is_error 401 UNAUTHORIZED "GET /config without credentials"
is_header WWW-Authenticate 'Basic realm="xborder"'

api --noauth --ctype text/plain PATCH /config '{}'
is_error 401 UNAUTHORIZED "PATCH /config text/plain without credentials (401 before 415)"

api --noauth PATCH /config '{"a":'
is_error 401 UNAUTHORIZED "PATCH /config malformed JSON without credentials (401 before 400)"

api --noauth POST /tokens '{"foo":1}'
is_error 401 UNAUTHORIZED "POST /tokens unknown property without credentials (401 before 400)"

# --- 415 UNSUPPORTED_MEDIA_TYPE ---------------------------------------------
api GET /config
is_status 200 "GET /config: 200"
config_before=$BODY

api --ctype text/plain PATCH /config '{}'
is_error 415 UNSUPPORTED_MEDIA_TYPE "PATCH /config text/plain"

api --ctype application/x-www-form-urlencoded PATCH /config '{}'
is_error 415 UNSUPPORTED_MEDIA_TYPE "PATCH /config form-urlencoded"

api --ctype application/json-patch+json PATCH /config '{}'
is_error 415 UNSUPPORTED_MEDIA_TYPE "PATCH /config application/json-patch+json"

api --ctype '' PATCH /config '{}'
is_error 415 UNSUPPORTED_MEDIA_TYPE "PATCH /config without Content-Type"

api --ctype text/plain POST /tokens '{"name":"x","permissions":["view"]}'
is_error 415 UNSUPPORTED_MEDIA_TYPE "POST /tokens text/plain"

api --ctype 'multipart/form-data; boundary=x' POST /tokens '{"name":"x","permissions":["view"]}'
is_error 415 UNSUPPORTED_MEDIA_TYPE "POST /tokens multipart/form-data"

api --ctype 'application/json; charset=utf-8' PATCH /config '{}'
is_status 200 "PATCH /config application/json; charset=utf-8: 200"
jis 'del(.updatedAt)' "$(j 'del(.updatedAt)' "$config_before")" "PATCH /config {} (charset): config unchanged"

api --ctype 'application/json;charset=UTF-8' PATCH /config '{}'
is_status 200 "PATCH /config application/json;charset=UTF-8: 200"

tname=$(uniq_name t00)
api --ctype 'application/json; charset=utf-8' POST /tokens "{\"name\":\"$tname\",\"permissions\":[\"view\"]}"
is_status 201 "POST /tokens application/json; charset=utf-8: 201"
tok_charset=$(jr .id)
if [[ $tok_charset == Token:* ]]; then
    api DELETE "/tokens/$tok_charset"
    is_status 200 "clean up: revoke the token just made"
fi

# --- 400 INVALID_REQUEST: malformed bodies -------------------------------
api PATCH /config '{"webhookEndpoint":'
is_error 400 INVALID_REQUEST "PATCH /config truncated JSON"

api PATCH /config '{webhookEndpoint: null}'
is_error 400 INVALID_REQUEST "PATCH /config unquoted key"

api PATCH /config '{"webhookEndpoint":null} x'
is_error 400 INVALID_REQUEST "PATCH /config trailing garbage"

api PATCH /config '{"webhookEndpoint":null,}'
is_error 400 INVALID_REQUEST "PATCH /config trailing comma"

printf '{"name":"bad \xff\xfe utf-8","permissions":["view"]}' >"$_API_TMP/badutf8"
api --file "$_API_TMP/badutf8" POST /tokens
is_error 400 INVALID_REQUEST "POST /tokens invalid UTF-8 in a string"
if [[ $STATUS == 201 ]]; then
    api DELETE "/tokens/$(jr .id)"
fi

: >"$_API_TMP/empty"
api --file "$_API_TMP/empty" PATCH /config
is_error 400 INVALID_REQUEST "PATCH /config empty body"

{ printf '{"webhookEndpoint":'; head -c 30000 /dev/zero | tr '\0' '['; head -c 30000 /dev/zero | tr '\0' ']'; printf '}'; } >"$_API_TMP/deep"
api --file "$_API_TMP/deep" PATCH /config
is_error 400 INVALID_REQUEST "PATCH /config nested 30000 arrays deep"

printf '{"webhookEndpoint":null}\0' >"$_API_TMP/nul"
api --file "$_API_TMP/nul" PATCH /config
is_error 400 INVALID_REQUEST "PATCH /config with a NUL byte after the JSON"

api PATCH /config '[]'
is_error 400 INVALID_REQUEST "PATCH /config top-level array"

api PATCH /config '[{"webhookEndpoint":null}]'
is_error 400 INVALID_REQUEST "PATCH /config top-level array of an object"

api PATCH /config '"x"'
is_error 400 INVALID_REQUEST "PATCH /config top-level string"

api PATCH /config 'null'
is_error 400 INVALID_REQUEST "PATCH /config top-level null"

api POST /tokens '42'
is_error 400 INVALID_REQUEST "POST /tokens top-level number"

api PATCH /config '{"colour":"blue"}'
is_error 400 INVALID_REQUEST "PATCH /config unknown property"
has_details colour

api POST /tokens '{"name":"x","permissions":["view"],"scope":"all"}'
is_error 400 INVALID_REQUEST "POST /tokens unknown property"
has_details scope

api PATCH /config '{"quoteFeePolicy":"cheap"}'
is_error 400 INVALID_REQUEST "PATCH /config quoteFeePolicy of the wrong type"
has_details quoteFeePolicy

api POST /tokens '{"name":5,"permissions":["view"]}'
is_error 400 INVALID_REQUEST "POST /tokens name of the wrong type"
has_details name

api PATCH /config '{"colour":"blue","quoteFeePolicy":7,"webhookEndpoint":"ftp://x/"}'
is_error 400 INVALID_REQUEST "PATCH /config three bad fields"
jok '.details | has("colour") and has("quoteFeePolicy") and has("webhookEndpoint")' \
    "PATCH /config three bad fields: details names each of them"

api POST /tokens '{}'
is_error 400 INVALID_REQUEST "POST /tokens {}"
jok '.details | has("name") and has("permissions")' "POST /tokens {}: details names name and permissions"

api PATCH /sandbox/lightning-execution-profile '{"btcFiatSpreadBps":"10"}'
is_error 400 INVALID_REQUEST "PATCH profile btcFiatSpreadBps of the wrong type"
has_details btcFiatSpreadBps

api GET /config
jis 'del(.updatedAt)' "$(j 'del(.updatedAt)' "$config_before")" "config unchanged after the rejected PATCHes"

# --- 413 PAYLOAD_TOO_LARGE ---------------------------------------------------
# pad_json FILE SIZE: writes '{}' padded with spaces to exactly SIZE bytes.
pad_json() {
    { printf '{'; head -c "$(($2 - 2))" /dev/zero | tr '\0' ' '; printf '}'; } >"$1"
}

pad_json "$_API_TMP/64k" 65536
api --file "$_API_TMP/64k" PATCH /config
is_status 200 "PATCH /config with a body of exactly 64 KiB: 200"

pad_json "$_API_TMP/64k1" 65537
api --file "$_API_TMP/64k1" PATCH /config
is_error 413 PAYLOAD_TOO_LARGE "PATCH /config with a body of 64 KiB + 1"

pad_json "$_API_TMP/100k" 100000
api --file "$_API_TMP/100k" POST /tokens
is_error 413 PAYLOAD_TOO_LARGE "POST /tokens with a 100 kB body"

api --noauth --file "$_API_TMP/100k" PATCH /config
is_error 401 UNAUTHORIZED "PATCH /config 100 kB without credentials (401 before 413)"

pad_json "$_API_TMP/2m" $((2 * 1024 * 1024))
api --file "$_API_TMP/2m" PATCH /config
is_error 413 PAYLOAD_TOO_LARGE "PATCH /config with a 2 MiB body (nginx)"

api --noauth --file "$_API_TMP/2m" PATCH /config
is_error 413 PAYLOAD_TOO_LARGE "PATCH /config 2 MiB without credentials (nginx)"

api GET /config
jis 'del(.updatedAt)' "$(j 'del(.updatedAt)' "$config_before")" "config unchanged after the oversized PATCHes"

# --- chunked request bodies (HTTP/1.1, no Content-Length) -------------------
api PATCH /config '{"colour":"blue"}' --http1.1 -H 'Transfer-Encoding: chunked'
is_error 400 INVALID_REQUEST "PATCH /config chunked, unknown property: the body reached the application"
has_details colour "PATCH /config chunked: details.colour"
api PATCH /config '{}' --http1.1 -H 'Transfer-Encoding: chunked'
is_status 200 "PATCH /config chunked {}: 200"
api --file "$_API_TMP/100k" PATCH /config --http1.1 -H 'Transfer-Encoding: chunked'
is_error 413 PAYLOAD_TOO_LARGE "PATCH /config chunked 100 kB"

# --- requests whose body the handler never reads ------------------------------
# A worker reads every request's input to its end and then closes the
# connection at once (no shutdown and wait for nginx to close first): the
# answer still arrives whole, never an nginx 502, for a body nobody reads.
pad_json "$_API_TMP/60k" 60000
elog=$XB_DEV_DIR/log/nginx-error.log
elines=$(wc -l <"$elog" 2>/dev/null || echo 0)
for i in 1 2 3 4 5 6 7 8; do
    api --file "$_API_TMP/60k" GET /config
    is_status 200 "GET /config with a 60 kB body it never reads ($i): 200"
    jok '(.id | startswith("PlatformConfig:")) and (.supportedCurrencies | length) > 0' \
        "GET /config with a 60 kB body ($i): the whole configuration"
    api --noauth --file "$_API_TMP/60k" POST /transfer-out
    is_error 401 UNAUTHORIZED "POST /transfer-out 60 kB without credentials ($i): 401"
    api --file "$_API_TMP/60k" POST /nope
    is_error 404 NOT_FOUND "POST /nope with a 60 kB body ($i): 404"
done
is "$(tail -n +$((elines + 1)) "$elog" 2>/dev/null | grep -c 'upstream\|reset by peer')" 0 \
    "nginx logged no upstream error for those requests"

# --- query strings ---------------------------------------------------------
api GET '/config?unknown=1&x'
is_status 200 "GET /config with unknown query parameters: 200"

done_testing
