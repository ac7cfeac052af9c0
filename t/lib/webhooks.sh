# t/lib/webhooks.sh - helpers for the webhook suites (t/94..t/97).
# shellcheck shell=bash
# Sourced after api.sh (and money.sh where transactions are made).
#
#   wh_start                 starts t/lib/webhook-receiver.mjs (stopped at
#                            exit); sets WH_PORT, WH_URL (http://127.0.0.1:PORT),
#                            WH_LOG (its request log, one JSON line a request)
#   wh_stop                  stops it (by pid)
#   wh_set PATH [JSON]       sets what requests under PATH get: JSON fields
#                            codes, hang, dedupe, body, bodyB64, delayMs, location (see
#                            the receiver); no JSON = 200 "ok"
#   wh_reqs [PATH]           the recorded requests (under PATH: exactly PATH
#                            or PATH/...), as a JSON array, oldest first
#   wh_count [PATH]          how many
#   wh_wait_count PATH N SECS   polls until N requests arrived under PATH
#   wh_wait_event ID SECS [PATH] polls until a request whose body's id is ID
#   wh_wait_events PATH IDS_JSON SECS  until every id of IDS_JSON arrived
#   wh_reqs_of ID [PATH]     the requests carrying event ID
#   wh_wait_more ID N SECS [PATH]  polls until more than N requests carried ID
#   wh_key [api options]     GET /webhooks/signing-key (no test): the
#                            caller's platform's key (each platform has its
#                            own); sets WH_KEY_ID, WH_KEY_PEM and the file
#                            WH_KEY_FILE
#   wh_key_save NAME [api options]  wh_key, then the PEM kept in
#                            $WH_DIR/key-NAME.pem (WH_KEY_SAVED) for later
#                            checks of that platform's deliveries
#   wh_verify REQ_JSON [PEM_FILE]   0 when the request's X-Xborder-Signature
#                            verifies (openssl pkeyutl -verify -rawin over
#                            "<t>.<exact body bytes>") with PEM_FILE (default:
#                            WH_KEY_FILE, fetched by wh_key when there is none
#                            yet); WH_VERIFY_ERR says why not
#   wh_sig_t REQ_JSON        the t of a request's signature header
#   wh_endpoint URL|null [api options]  PATCH /config webhookEndpoint (1 test)
#   wh_retry_settings        WH_BASE, WH_MAX, WH_WINDOW from $XB_CONF
#                            (defaults 30, 3600, 259200)
#   wh_platform PREFIX       a platform of its own (new_platform); sets
#                            WH_P=(--as ID SECRET), WH_P_ID, WH_P_DOMAIN
#   wh_deliveries [api options]  every delivery-log item of the platform (all
#                            pages, limit 100, uncounted) as a JSON array in WH_ITEMS
#   wh_item ID [api options] the delivery-log item of event ID in WH_ITEM ('' if none)
#   wh_wait_item ID JQ_COND SECS [api options]  polls wh_item until JQ_COND holds
#   wh_wait_delivered SECS [api options]  polls wh_deliveries until every item
#                            is DELIVERED (WH_ITEMS: the last read)
#   dev ARGS...              scripts/dev quietly (diag on failure)
#   wait_api SECS            polls GET /config until it answers 200
#   wh_check_sigs WHAT REQS [PEM_FILE]  every request of REQS (an array) is
#                            signed right, under PEM_FILE (default: as
#                            wh_verify) (1 test)
#   wh_schema_ok WHAT SCHEMA ARRAY  every element validates against an OpenAPI schema (1 test)
#   wh_closed_port           prints a local port that refuses connections
#   wjok [--arg N V | --argjson N JSON]... FILTER NAME [JSON]   jok with --argjson

[[ -n ${_WEBHOOKS_SH_LOADED:-} ]] && return 0
_WEBHOOKS_SH_LOADED=1

_WH_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WH_DIR=$_API_TMP/wh
mkdir -p "$WH_DIR"
WH_PID=
WH_PORT=
WH_URL=
WH_LOG=$WH_DIR/requests.jsonl
DEV=${XB_ROOT:-$XB_REPO}/scripts/dev
EVENT_TYPES='["OUTGOING_PAYMENT.CREATED","OUTGOING_PAYMENT.PENDING","OUTGOING_PAYMENT.PROCESSING","OUTGOING_PAYMENT.COMPLETED","OUTGOING_PAYMENT.REJECTED","OUTGOING_PAYMENT.FAILED","OUTGOING_PAYMENT.REFUNDED","OUTGOING_PAYMENT.EXPIRED","INCOMING_PAYMENT.CREATED","INCOMING_PAYMENT.PENDING","INCOMING_PAYMENT.PROCESSING","INCOMING_PAYMENT.COMPLETED","INCOMING_PAYMENT.REJECTED","INCOMING_PAYMENT.FAILED","INCOMING_PAYMENT.REFUNDED","INCOMING_PAYMENT.EXPIRED"]'
WH_ID_RE='^Webhook:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'

# dev ARGS...: runs scripts/dev quietly (its output would break the TAP stream).
dev() {
    if "$DEV" "$@" >"$WH_DIR/dev.log" 2>&1; then return 0; fi
    diag "scripts/dev $* failed: $(tail -n 10 "$WH_DIR/dev.log")"
    return 1
}

# wait_api SECS: polls GET /config (uncounted) until it answers 200.
wait_api() {
    local deadline=$((SECONDS + $1))
    while ((SECONDS < deadline)); do
        api --nocheck GET /config '' --max-time 5
        [[ $STATUS == 200 ]] && return 0
        sleep 0.2
    done
    return 1
}

wh_start() {
    local i port=
    [[ -n $WH_PID ]] && return 0
    command -v node >/dev/null || BAIL_OUT "no node: the webhook receiver needs it"
    rm -f "$WH_DIR/port"
    : >"$WH_LOG"
    node "$_WH_LIB_DIR/webhook-receiver.mjs" --port-file "$WH_DIR/port" --log "$WH_LOG" --parent-pid "$$" \
        </dev/null >"$WH_DIR/receiver.out" 2>&1 &
    WH_PID=$!
    disown "$WH_PID" 2>/dev/null
    at_exit wh_stop
    for ((i = 0; i < 200; i++)); do
        if [[ -s $WH_DIR/port ]]; then
            read -r port <"$WH_DIR/port"
            break
        fi
        kill -0 "$WH_PID" 2>/dev/null || break
        sleep 0.05
    done
    [[ $port =~ ^[0-9]+$ ]] || BAIL_OUT "the webhook receiver did not start: $(tail -n 5 "$WH_DIR/receiver.out")"
    WH_PORT=$port
    WH_URL=http://127.0.0.1:$port
}

wh_stop() {
    local i
    [[ -n $WH_PID ]] || return 0
    kill -TERM "$WH_PID" 2>/dev/null
    for ((i = 0; i < 40; i++)); do
        kill -0 "$WH_PID" 2>/dev/null || break
        sleep 0.05
    done
    kill -0 "$WH_PID" 2>/dev/null && kill -KILL "$WH_PID" 2>/dev/null
    WH_PID=
    return 0
}

# wh_set PATH [JSON]: the receiver's behaviour for requests under PATH.
wh_set() {
    local path=$1 js=${2:-'{}'} body out
    body=$(jq -c --arg p "$path" '. + {path: $p}' <<<"$js") || BAIL_OUT "wh_set: bad JSON $js"
    out=$(curl -sS --max-time 5 -H 'Content-Type: application/json' --data-binary "$body" "$WH_URL/_control" 2>&1)
    [[ $(jq -r .ok <<<"$out" 2>/dev/null) == true ]] || BAIL_OUT "wh_set $path $js: $out"
}

# wh_reqs [PATH]: recorded requests (under PATH) as a JSON array.
wh_reqs() {
    jq -cs --arg p "${1:-}" '[.[] | select($p == "" or .path == $p or (.path | startswith($p + "/")))]' "$WH_LOG" 2>/dev/null || echo '[]'
}

wh_count() { jq length <<<"$(wh_reqs "${1:-}")"; }

# wh_reqs_of ID [PATH]: the requests whose body's id is ID.
wh_reqs_of() {
    jq -c --arg id "$1" '[.[] | select((.body | try fromjson catch null | .id?) == $id)]' <<<"$(wh_reqs "${2:-}")"
}

# wh_wait_count PATH N SECS: 0 once at least N requests arrived under PATH.
wh_wait_count() {
    local deadline=$((SECONDS + $3))
    while :; do
        (($(wh_count "$1") >= $2)) && return 0
        ((SECONDS >= deadline)) && return 1
        sleep 0.2
    done
}

# wh_wait_event ID SECS [PATH]: 0 once a request carrying event ID arrived.
wh_wait_event() {
    local deadline=$((SECONDS + $2))
    while :; do
        [[ $(jq length <<<"$(wh_reqs_of "$1" "${3:-}")") -gt 0 ]] && return 0
        ((SECONDS >= deadline)) && return 1
        sleep 0.2
    done
}

# wh_wait_events PATH IDS_JSON SECS: 0 once every event id of IDS_JSON arrived under PATH.
wh_wait_events() {
    local deadline=$((SECONDS + $3)) missing
    while :; do
        missing=$(jq -n --argjson want "$2" --argjson got "$(wh_reqs "$1")" \
            '$want - [$got[] | .body | try fromjson catch null | .id?] | length')
        ((missing == 0)) && return 0
        ((SECONDS >= deadline)) && return 1
        sleep 0.2
    done
}

# wh_key [api options]: GET /webhooks/signing-key (uncounted).
wh_key() {
    api --nocheck "$@" GET /webhooks/signing-key
    WH_KEY_ID='' WH_KEY_PEM=''
    WH_KEY_FILE=$WH_DIR/signing-key.pem
    if [[ $STATUS == 200 ]]; then
        WH_KEY_ID=$(jr .keyId)
        WH_KEY_PEM=$(jr .publicKeyPem)
        jq -j .publicKeyPem <<<"$BODY" >"$WH_KEY_FILE"
        return 0
    fi
    : >"$WH_KEY_FILE"
    return 1
}

# wh_key_save NAME [api options]: the platform's key, kept in
# $WH_DIR/key-NAME.pem (WH_KEY_SAVED); non-zero when GET failed.
wh_key_save() {
    local name=$1
    shift
    WH_KEY_SAVED=$WH_DIR/key-$name.pem
    wh_key "$@" || return 1
    cp "$WH_KEY_FILE" "$WH_KEY_SAVED"
}

# wh_sig_t REQ_JSON: t of the request's X-Xborder-Signature.
wh_sig_t() {
    jq -r '.headers["x-xborder-signature"] // "" | capture("^t=(?<t>[0-9]+),ed25519=") .t' <<<"$1" 2>/dev/null
}

# wh_verify REQ_JSON [PEM_FILE]: 0 when the signature header verifies.
wh_verify() {
    local req=$1 pem=${2:-${WH_KEY_FILE:-}} hdr b64 t sig d=$WH_DIR/verify out
    local save_s=$STATUS save_b=$BODY save_h=$HEADERS
    WH_VERIFY_ERR=
    if [[ -z $pem || ! -s $pem ]]; then
        # The signing key, once.
        wh_key
        STATUS=$save_s BODY=$save_b HEADERS=$save_h
        pem=$WH_KEY_FILE
    fi
    mkdir -p "$d"
    { IFS= read -r hdr; IFS= read -r b64; } < <(jq -r '(.headers["x-xborder-signature"] // ""), .bodyB64' <<<"$req")
    if [[ ! $hdr =~ ^t=([0-9]+),ed25519=([A-Za-z0-9+/]+={0,2})$ ]]; then
        WH_VERIFY_ERR="X-Xborder-Signature is '$hdr'"
        return 1
    fi
    t=${BASH_REMATCH[1]} sig=${BASH_REMATCH[2]}
    { printf '%s.' "$t"; base64 -d <<<"$b64"; } >"$d/signed.bin"
    if ! base64 -d <<<"$sig" >"$d/sig.bin" 2>/dev/null || (($(stat -c %s "$d/sig.bin") != 64)); then
        WH_VERIFY_ERR="the signature is not 64 bytes of base64: $sig"
        return 1
    fi
    out=$(openssl pkeyutl -verify -pubin -inkey "$pem" -rawin -in "$d/signed.bin" -sigfile "$d/sig.bin" 2>&1)
    if [[ $out == *"Signature Verified Successfully"* ]]; then
        return 0
    fi
    WH_VERIFY_ERR="openssl: $out"
    return 1
}

# wh_endpoint URL|null [api options]: PATCH /config webhookEndpoint (1 test
# plus api's own checks).
wh_endpoint() {
    local url=$1 v
    shift
    if [[ $url == null ]]; then v=null; else v=$(jq -Rn --arg u "$url" '$u'); fi
    api "$@" PATCH /config "{\"webhookEndpoint\":$v}"
    is "$STATUS $(j .webhookEndpoint)" "200 $v" "webhookEndpoint set to $url"
}

# wh_retry_settings: WH_BASE, WH_MAX, WH_WINDOW from the stack's xborder.conf.
wh_retry_settings() {
    local k v
    WH_BASE=30 WH_MAX=3600 WH_WINDOW=259200
    [[ -r ${XB_CONF:-} ]] || return 0
    for k in base max window; do
        v=$(sed -nE "s/^[[:space:]]*webhook_retry_${k}[[:space:]]*=[[:space:]]*([0-9]+)[[:space:]]*(#.*)?$/\1/p" "$XB_CONF" | tail -n 1)
        [[ -n $v ]] || continue
        case $k in
            base) WH_BASE=$v ;;
            max) WH_MAX=$v ;;
            window) WH_WINDOW=$v ;;
        esac
    done
}

# wh_platform PREFIX: a platform of its own.
wh_platform() {
    new_platform "$1" || BAIL_OUT "platform-create failed"
    WH_P=(--as "$NP_CLIENT_ID" "$NP_SECRET")
    WH_P_ID=$NP_ID WH_P_DOMAIN=$NP_DOMAIN
}

# wh_deliveries [api options]: every item of the delivery log (uncounted).
wh_deliveries() {
    local cursor='' q all='[]' n=0
    WH_ITEMS='[]'
    while :; do
        q="/webhooks/deliveries?limit=100"
        [[ -n $cursor ]] && q+="&cursor=$cursor"
        api --nocheck "$@" GET "$q"
        [[ $STATUS == 200 ]] || return 1
        all=$(jq -c --argjson a "$all" '$a + .data' <<<"$BODY")
        [[ $(jr .hasMore) == true ]] || break
        cursor=$(jr .nextCursor)
        ((++n < 50)) || return 1
    done
    WH_ITEMS=$all
}

# wh_item ID [api options]: WH_ITEM, the delivery-log item of event ID.
wh_item() {
    local id=$1
    shift
    WH_ITEM=
    wh_deliveries "$@" || return 1
    WH_ITEM=$(jq -c --arg id "$id" 'first(.[] | select(.id == $id)) // empty' <<<"$WH_ITEMS")
    [[ -n $WH_ITEM ]]
}

# wh_wait_item ID JQ_COND SECS [api options]: polls until the item satisfies JQ_COND.
wh_wait_item() {
    local id=$1 cond=$2 deadline=$((SECONDS + $3))
    shift 3
    while :; do
        if wh_item "$id" "$@" && jq -e "$cond" <<<"$WH_ITEM" >/dev/null 2>&1; then
            return 0
        fi
        ((SECONDS >= deadline)) && return 1
        sleep 0.2
    done
}

# wh_wait_delivered SECS [api options]: polls the delivery log until every
# item is DELIVERED; WH_ITEMS is the last read.  The receiver logs a request
# before it answers, and the worker records the answer after it, so an
# event the receiver has is DELIVERED in the log a moment later.
wh_wait_delivered() {
    local deadline=$((SECONDS + $1))
    shift
    while :; do
        wh_deliveries "$@" && [[ $(jq -c '[.[].status] | unique' <<<"$WH_ITEMS") == '["DELIVERED"]' ]] && return 0
        ((SECONDS >= deadline)) && return 1
        sleep 0.3
    done
}

# wh_check_sigs WHAT REQS_JSON [PEM_FILE]: every request of the array has
# a valid signature, under PEM_FILE if given (1 test).
wh_check_sigs() {
    local what=$1 n=0 bad=0 r pem=${3:-}
    while IFS= read -r r; do
        n=$((n + 1))
        if ! wh_verify "$r" ${pem:+"$pem"}; then
            bad=$((bad + 1))
            diag "    request $n ($(jq -r .path <<<"$r")): $WH_VERIFY_ERR"
        fi
    done < <(jq -c '.[]' <<<"$2")
    if ((n > 0 && bad == 0)); then
        pass "$what: all $n signatures verify"
    else
        fail "$what: all $n signatures verify ($bad bad)"
    fi
}

# wh_closed_port: prints a local TCP port that refuses connections.
wh_closed_port() {
    local p i rc
    for ((i = 0; i < 50; i++)); do
        p=$((20000 + RANDOM % 40000))
        curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$p/" 2>/dev/null
        rc=$?
        if ((rc == 7)); then
            printf '%s' "$p"
            return 0
        fi
    done
    return 1
}

# wh_schema_ok WHAT SCHEMA JSON_ARRAY: every element of JSON_ARRAY validates
# against components.schemas.SCHEMA of openapi/openapi.json (ajv, through
# webhook-receiver.mjs --validate) (1 test; skipped when ajv is missing).
wh_schema_ok() {
    local what=$1 schema=$2 arr=$3 out rc n
    n=$(jq length <<<"$arr")
    out=$(jq -c '.[]' <<<"$arr" | node "$_WH_LIB_DIR/webhook-receiver.mjs" --validate "$schema" 2>&1)
    rc=$?
    if ((rc == 2)); then
        skip "$what: cannot validate against $schema: $out"
    elif ((rc == 0 && n > 0)); then
        pass "$what: all $n validate against the OpenAPI schema $schema"
    else
        fail "$what: all $n validate against the OpenAPI schema $schema"
        diag "$(grep -v '^ok ' <<<"$out" | head -n 10)"
    fi
}

# wh_wait_more ID N SECS [PATH]: 0 once more than N requests carried event ID.
wh_wait_more() {
    local deadline=$((SECONDS + $3))
    while :; do
        (($(jq length <<<"$(wh_reqs_of "$1" "${4:-}")") > $2)) && return 0
        ((SECONDS >= deadline)) && return 1
        sleep 0.2
    done
}

# wjok [--arg NAME VALUE | --argjson NAME JSON]... FILTER NAME [JSON]: jok
# (api.sh) that also takes --argjson.
wjok() {
    local args=()
    while [[ ${1:-} == --arg || ${1:-} == --argjson ]]; do
        args+=("$1" "$2" "$3")
        shift 3
    done
    if jq -e "${args[@]}" "$1" <<<"${3-$BODY}" >/dev/null 2>&1; then
        pass "$2"
    else
        fail "$2"
        diag "    jq: $1"
        diag "    on: $(_tap_show "${3-$BODY}")"
        return 1
    fi
}
