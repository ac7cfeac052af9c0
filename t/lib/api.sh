# t/lib/api.sh - helpers for the API suites t/NN-*.t (TAP over curl + jq).
#
# Sources tap.sh and the dev stack's env file ($XB_ENV, default
# <repo>/.dev/env), which defines XB_BASE_URL, XB_CLIENT_ID,
# XB_CLIENT_SECRET, XB_PLATFORM_ID, XB_CONF, XB_ROOT, XB_DEV_DIR, XB_CTL.
#
# Every HTTP request of every suite goes through api() below (and only
# there through _api_curl): that single point checks the headers every
# response must carry and is where response validation belongs.
#
#   api [OPTIONS] METHOD PATH [BODY] [EXTRA CURL ARGS...]
#     BODY        request body ('' = none); sent as application/json
#     --as ID SECRET   use these Basic credentials for this call
#     --noauth         send no Authorization header
#     --authz VALUE    send "Authorization: VALUE" as is
#     --ctype VALUE    Content-Type of the body ('' = no Content-Type)
#     --file FILE      raw body bytes from FILE (then no BODY argument)
#     --nocheck        do not assert the standard response headers (polling)
#   After the call: $STATUS (HTTP status, 000 when no response), $BODY,
#   $HEADERS (last header block), `header NAME` (case-insensitive), $REQ.
#
# Default credentials: the platform's root token; `use_creds ID SECRET`
# and `use_root` change the default.

[[ -n ${_API_SH_LOADED:-} ]] && return 0
_API_SH_LOADED=1

_API_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap.sh
. "$_API_LIB_DIR/tap.sh"
# shellcheck source=jq.sh
. "$_API_LIB_DIR/jq.sh"

XB_REPO=$(cd "$_API_LIB_DIR/../.." && pwd)
XB_ENV=${XB_ENV:-$XB_REPO/.dev/env}

if [[ ! -r $XB_ENV ]]; then
    plan skip_all "no dev stack env file at $XB_ENV (run scripts/dev up)"
fi
set -a
# shellcheck disable=SC1090
. "$XB_ENV"
set +a
for _v in XB_BASE_URL XB_CLIENT_ID XB_CLIENT_SECRET XB_PLATFORM_ID; do
    [[ -n ${!_v:-} ]] || BAIL_OUT "$XB_ENV does not define $_v"
done
unset _v
XB_BASE_URL=${XB_BASE_URL%/}
export XB_DEV_DIR

API_VERSION=2026-04-08
UUID4_RE='^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
TS_RE='^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{3}Z$'
SECRET_RE='^[A-Za-z0-9_-]{43}$'

_API_TMP=$(mktemp -d "${TMPDIR:-/tmp}/xb-t.XXXXXX")
at_exit 'rm -rf "$_API_TMP"'

CRED_ID=$XB_CLIENT_ID
CRED_SECRET=$XB_CLIENT_SECRET

STATUS=
BODY=
HEADERS=
REQ=

# use_creds ID SECRET: default credentials for later calls.
use_creds() {
    CRED_ID=$1
    CRED_SECRET=$2
}

# use_root: back to the platform's root token.
use_root() {
    use_creds "$XB_CLIENT_ID" "$XB_CLIENT_SECRET"
}

# wait_for CONDITION-COMMAND SECONDS: polls (eval) until the command
# succeeds; non-zero when SECONDS pass first.
wait_for() {
    local deadline=$((SECONDS + $2))
    until eval "$1"; do
        ((SECONDS >= deadline)) && return 1
        sleep 0.1
    done
}

# wait_log FILE FROM REGEX N SECONDS: polls until at least N lines of FILE
# after its first FROM lines match the extended REGEX; non-zero when
# SECONDS pass first.  A process writes its log line after the commit a
# test can see (xborder-worker: a job's line after its batch commits, a
# purge's after its last statement), so a test that reads the log after
# seeing the state waits for the line too.
wait_log() {
    local file=$1 from=$2 re=$3 n=$4 deadline=$((SECONDS + $5)) got
    while :; do
        got=$(tail -n +"$((from + 1))" "$file" 2>/dev/null | grep -cE -e "$re")
        ((got >= n)) && return 0
        ((SECONDS >= deadline)) && return 1
        sleep 0.1
    done
}

# uuid4: a random lowercase UUIDv4.
uuid4() {
    cat /proc/sys/kernel/random/uuid
}

# uniq_name PREFIX: a name unique to this run.
uniq_name() {
    printf '%s-%s-%s%s' "$1" "$$" "$(date +%s)" "$RANDOM"
}

# b64 STRING: base64 of STRING without newlines.
b64() {
    printf '%s' "$1" | base64 -w0
}

# header_to VAR NAME: sets VAR to the value of a response header of the
# last call (all occurrences joined with ", "); empty when absent.  No
# subshell: the helpers below call it for every response.
header_to() {
    local -n _h_out=$1
    local want=${2,,} line name value n=0
    _h_out=
    while IFS= read -r line; do
        [[ $line == *:* ]] || continue
        name=${line%%:*}
        [[ ${name,,} == "$want" ]] || continue
        value=${line#*:}
        value=${value#"${value%%[![:space:]]*}"}
        value=${value%"${value##*[![:space:]]}"}
        if ((n++)); then _h_out+=", $value"; else _h_out=$value; fi
    done <<<"$HEADERS"
}

# header NAME: header_to, printed.
header() {
    local v
    header_to v "$1"
    printf '%s' "$v"
}

# _api_read VAR FILE: VAR gets FILE's contents without the trailing
# newlines, as $(<FILE) would, without a subshell.
_api_read() {
    local -n _r_out=$1
    _r_out=
    IFS= read -r -d '' _r_out <"$2" || true
    while [[ $_r_out == *$'\n' ]]; do _r_out=${_r_out%$'\n'}; done
}

# _api_curl: the one place that talks HTTP.  Arguments as for api().
# Sets STATUS, BODY, HEADERS, REQ and the check flag _API_CHECK.
_api_curl() {
    local auth=creds id=$CRED_ID secret=$CRED_SECRET authz= ctype=application/json
    local file= method path body=
    _API_CHECK=1
    while [[ ${1:-} == --* ]]; do
        case $1 in
            --as) id=$2 secret=$3; auth=creds; shift 3 ;;
            --noauth) auth=none; shift ;;
            --authz) authz=$2; auth=raw; shift 2 ;;
            --ctype) ctype=$2; shift 2 ;;
            --file) file=$2; shift 2 ;;
            --nocheck) _API_CHECK=0; shift ;;
            --) shift; break ;;
            *) BAIL_OUT "api: unknown option $1" ;;
        esac
    done
    method=$1 path=$2
    shift 2
    # With --file there is no BODY argument: the rest are curl arguments.
    if [[ -z $file ]] && (($#)); then
        body=$1
        shift
        if [[ $body == -* ]]; then
            BAIL_OUT "api $method $path: body '$body' looks like a curl option (give '' as BODY)"
        fi
    fi
    REQ="$method $path"

    local -a args=(-sS -k -g -X "$method" -o "$_API_TMP/body" -D "$_API_TMP/headers"
        -w '%{http_code}' --max-time 30 -H 'Expect:')
    case $auth in
        # curl writes "Authorization: Basic base64(id:secret)" itself.
        creds) args+=(--basic -u "$id:$secret") ;;
        raw) args+=(-H "Authorization: $authz") ;;
        none) ;;
    esac
    if [[ -n $file ]]; then
        args+=(--data-binary "@$file")
    elif [[ -n $body ]]; then
        printf '%s' "$body" >"$_API_TMP/req"
        args+=(--data-binary "@$_API_TMP/req")
    fi
    if [[ -n $file || -n $body ]]; then
        if [[ -n $ctype ]]; then
            args+=(-H "Content-Type: $ctype")
        else
            args+=(-H 'Content-Type:')
        fi
    elif [[ $ctype != application/json ]]; then
        # A content type was asked for explicitly without a body.
        args+=(-H "Content-Type: $ctype")
    fi

    : >"$_API_TMP/body"; : >"$_API_TMP/headers"    # no fork: an empty file is no answer
    STATUS=$(curl "${args[@]}" "$@" "$XB_BASE_URL$path" 2>"$_API_TMP/curl.err")
    [[ $STATUS =~ ^[0-9]{3}$ ]] || STATUS=000
    BODY=
    _api_read BODY "$_API_TMP/body"
    HEADERS=
    if [[ -s $_API_TMP/headers ]]; then
        # Keep only the last header block (after any 1xx interim answers),
        # without the CRs.
        local line
        while IFS= read -r line || [[ -n $line ]]; do
            line=${line//$'\r'/}
            [[ $line == HTTP/* ]] && HEADERS=
            HEADERS+=$line$'\n'
        done <"$_API_TMP/headers"
        while [[ $HEADERS == *$'\n' ]]; do HEADERS=${HEADERS%$'\n'}; done
    fi
}

# _api_check_common: one assertion on what every response must carry.
_api_check_common() {
    local problems=() v
    if [[ $STATUS == 000 ]]; then
        problems+=("no HTTP response: $(<"$_API_TMP/curl.err")")
    else
        header_to v Content-Type
        [[ $v =~ ^application/json[[:space:]]*(\;.*)?$ ]] || problems+=("Content-Type is '$v'")
        header_to v Cache-Control
        [[ $v == no-store ]] || problems+=("Cache-Control is '$v'")
        header_to v X-Request-Id
        [[ -n $v && $v != *,* ]] || problems+=("X-Request-Id is '$v'")
        header_to v X-Api-Version
        [[ $v == "$API_VERSION" ]] || problems+=("X-Api-Version is '$v'")
        # The validator parsed the body already (oas_ask); jq only when it
        # did not answer (a process per response costs about 25 ms here).
        case ${_OAS_OBJECT:-} in
        yes) ;;
        no) problems+=("body is not a JSON object") ;;
        *) jq -e 'type == "object"' <<<"$BODY" >/dev/null 2>&1 ||
            problems+=("body is not a JSON object") ;;
        esac
    fi
    if ((${#problems[@]} == 0)); then
        pass "$REQ: standard response headers, JSON object body"
    else
        fail "$REQ: standard response headers, JSON object body"
        local p
        for p in "${problems[@]}"; do diag "    $p"; done
        diag "    status $STATUS, body: $(_tap_show "$BODY")"
    fi
}

# api [OPTIONS] METHOD PATH [BODY] [CURL ARGS...]: see the top of the file.
# Unless --nocheck, counts one assertion (the standard response headers).
api() {
    _api_curl "$@"
    if ((_API_CHECK)); then
        # The response must match the OpenAPI description (t/lib/oas.sh);
        # asked first, since the validator also says whether the body is
        # a JSON object.
        . "$_API_LIB_DIR/oas.sh"
        oas_ask
        _api_check_common
        oas_check
    fi
}

# j FILTER [JSON]: compact jq output of FILTER on JSON (default $BODY),
# objects' keys sorted (as gojq always prints them, t/lib/jq.sh).
j() {
    jq -cS "$1" <<<"${2-$BODY}" 2>/dev/null
}

# jr FILTER [JSON]: raw jq output.
jr() {
    jq -r "$1" <<<"${2-$BODY}" 2>/dev/null
}

# jis FILTER EXPECTED_JSON NAME [JSON]: the FILTER's value equals the
# expected JSON value (key order does not matter).
jis() {
    local got want out
    # One jq for both sides (a process costs about 25 ms here): the
    # FILTER's values on each input, then the expected value, last.
    if out=$(jq -ncS --argjson want "$2" "(inputs | ($1)), \$want" <<<"${4-$BODY}" 2>/dev/null) &&
        [[ -n $out ]]; then
        want=${out##*$'\n'}
        got=
        [[ $out == *$'\n'* ]] && got=${out%$'\n'*}
    else
        got=$(jq -cS "$1" <<<"${4-$BODY}" 2>/dev/null)
        want=$(jq -cS . <<<"$2" 2>/dev/null) || want="(bad expected JSON: $2)"
    fi
    is "$got" "$want" "$3"
}

# jok [--arg NAME VALUE]... FILTER NAME [JSON]: the FILTER evaluates to true.
jok() {
    local args=()
    while [[ ${1:-} == --arg ]]; do
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

# is_status CODE NAME: HTTP status of the last call (shows the body when not).
is_status() {
    if ! is "$STATUS" "$1" "${2:-$REQ: HTTP $1}"; then
        diag "    body: $(_tap_show "$BODY")"
        return 1
    fi
}

# is_error STATUS CODE [NAME]: the last call answered the error envelope
# {status, code, message, details} with this status and code.  3 tests.
is_error() {
    local st=$1 code=$2 name=${3:-$REQ} out got envelope
    envelope="type == \"object\" and (keys == [\"code\",\"details\",\"message\",\"status\"])
         and .status == $st and (.code | type) == \"string\"
         and (.message | type) == \"string\" and (.message | length) > 0
         and (.details | type) == \"object\""
    is_status "$st" "$name: HTTP $st"
    # One jq for the code and the envelope; on anything unusual (a body
    # that is not one JSON value, a code over lines) the two of jr and jok.
    if out=$(jq -r "(.code), ($envelope)" <<<"$BODY" 2>/dev/null) &&
        [[ $out == *$'\n'* && ${out#*$'\n'} != *$'\n'* ]]; then
        got=${out%$'\n'*}
        is "$got" "$code" "$name: code $code"
        if [[ ${out##*$'\n'} == true ]]; then
            pass "$name: error envelope"
        else
            jok "$envelope" "$name: error envelope"
        fi
    else
        is "$(jr '.code' 2>/dev/null)" "$code" "$name: code $code"
        jok "$envelope" "$name: error envelope"
    fi
}

# has_details KEY [NAME]: details of the last error names KEY.
has_details() {
    local name=${2:-"$REQ: details names $1"}
    if jq -e --arg k "$1" '.details | type == "object" and has($k)' <<<"$BODY" >/dev/null 2>&1; then
        pass "$name"
    else
        fail "$name"
        diag "    details: $(j .details)"
        return 1
    fi
}

# has_keys JSON 'k1 k2 ...' NAME: JSON is an object with exactly these keys.
has_keys() {
    local got want
    got=$(jq -r 'if type == "object" then keys | join(" ") else "(not an object: \(type))" end' <<<"$1" 2>/dev/null)
    [[ -n $got ]] || got="(not JSON)"
    want=$(tr ' ' '\n' <<<"$2" | sed '/^$/d' | LC_ALL=C sort | paste -sd' ')
    # jq sorts keys by codepoint, same as LC_ALL=C sort.
    is "$got" "$want" "$3"
}

# is_header NAME VALUE [NAME]: the response header equals VALUE.
is_header() {
    is "$(header "$1")" "$2" "${3:-$REQ: header $1: $2}"
}

# needs_faults: skips the whole test unless the stack's build has fault
# injection (configure --enable-fault-injection; scripts/dev check always
# builds one), which the X-Xborder-Fault header and XB_FAULT drive.
needs_faults() {
    local bdir=${XB_CTL%%/src/xborderctl*}
    grep -qs '^#define XB_FAULT_INJECTION 1' "$bdir/config.h" ||
        plan skip_all "the stack's build ($bdir) has no fault injection (scripts/dev up --fault-injection)"
}

# xbctl ARGS...: runs xborderctl ($XB_CTL is a command line).
xbctl() {
    [[ -n ${XB_CTL:-} ]] || { diag "XB_CTL is not set"; return 1; }
    bash -c "$XB_CTL \"\$@\"" xbctl "$@"
}

# new_platform PREFIX [MORE platform-create ARGS]: creates a platform with
# xborderctl.  Sets NP_ID, NP_CLIENT_ID, NP_SECRET, NP_DOMAIN, NP_NAME.
# Returns non-zero on failure.
new_platform() {
    local out
    NP_NAME=$(uniq_name "${1:-t}")
    shift
    NP_DOMAIN="${NP_NAME,,}.test"
    NP_ID= NP_CLIENT_ID= NP_SECRET=
    if ! out=$(xbctl platform-create --name "$NP_NAME" --ppv-domain "$NP_DOMAIN" "$@" 2>"$_API_TMP/ctl.err"); then
        diag "platform-create failed: $(<"$_API_TMP/ctl.err")"
        return 1
    fi
    NP_ID=$(jr .platformId "$out")
    NP_CLIENT_ID=$(jr .clientId "$out")
    NP_SECRET=$(jr .clientSecret "$out")
    if [[ ! $NP_ID =~ $UUID4_RE || ! $NP_CLIENT_ID =~ $UUID4_RE || ! $NP_SECRET =~ $SECRET_RE ]]; then
        diag "platform-create printed: $out"
        return 1
    fi
}

# cache_slot ID [SLOTS]: the slot (of SLOTS, a power of two, 16 by default)
# a worker's per-platform cache gives ID: str_hash (util.c, djb2) modulo
# SLOTS.  Only the low bits matter, so bash's 64-bit wrapping does.
cache_slot() {
    local s=$1 h=5381 i c
    for ((i = 0; i < ${#s}; i++)); do
        printf -v c '%d' "'${s:i:1}"
        h=$((h * 33 + c))
    done
    echo $((h & (${2:-16} - 1)))
}

# create_token NAME PERMISSIONS_JSON [api options...]: POST /tokens, asserts 201
# (2 tests).  Sets TOK_ID, TOK_CLIENT_ID, TOK_SECRET, TOK_BODY.
create_token() {
    local name=$1 perms=$2
    shift 2
    api "$@" POST /tokens "{\"name\":$(jq -Rn --arg n "$name" '$n'),\"permissions\":$perms}"
    is_status 201 "POST /tokens ($name): HTTP 201"
    TOK_BODY=$BODY
    TOK_ID=$(jr .id)
    TOK_CLIENT_ID=$(jr .clientId)
    TOK_SECRET=$(jr .clientSecret)
}

# transactions_all OUT [API ARGS...]: every transaction the caller (API
# ARGS, e.g. --as ID SECRET) can list, through every page of
# GET /transactions?limit=100, as one JSON array into OUT; returns 1 (with
# a diag) on an answer that is not 200.
transactions_all() {
    local out=$1 cursor=0
    shift
    : >"$out.pages"
    while :; do
        api --nocheck "$@" GET "/transactions?limit=100&cursor=$cursor"
        [[ $STATUS == 200 ]] || { diag "GET /transactions?cursor=$cursor: $STATUS $BODY"; return 1; }
        jq -c '.data[]' <<<"$BODY" >>"$out.pages"
        cursor=$(jr .nextCursor)
        [[ $cursor == null ]] && break
    done
    jq -s -c . "$out.pages" >"$out"
}

# walk_pages WHAT PATH LIMIT PAGESIZE WANT_IDS_JSON [END [KEY]]: walks a
# list page by page (LIMIT '' = the default page size, which must be
# PAGESIZE) until hasMore is false, checking every page's row count,
# totalCount, hasMore and nextCursor (the next offset, END at the end:
# null, or '""' for external accounts), then that the rows' KEY (id; the
# quote list's rows are keyed by quoteId) over all pages are
# WANT_IDS_JSON, in that order.
walk_pages() {
    local what=$1 path=$2 limit=$3 size=$4 want=$5 end=${6:-null} key=${7:-id}
    local total got='[]' cursor= off=0 n q sep page=0
    total=$(jq length <<<"$want")
    while :; do
        q=$path
        sep='?'
        [[ $q == *\?* ]] && sep='&'
        [[ -n $limit ]] && { q+="${sep}limit=$limit"; sep='&'; }
        [[ -n $cursor ]] && q+="${sep}cursor=$cursor"
        api GET "$q"
        is_status 200 "$what page $page: 200" || break
        n=$((total - off < size ? total - off : size))
        jis '.data | length' "$n" "$what page $page: $n rows"
        jis .totalCount "$total" "$what page $page: totalCount $total"
        if ((off + n < total)); then
            jis .hasMore true "$what page $page: hasMore true"
            jis .nextCursor "\"$((off + n))\"" "$what page $page: nextCursor \"$((off + n))\""
        else
            jis .hasMore false "$what page $page: hasMore false"
            jis .nextCursor "$end" "$what page $page: nextCursor $end at the end"
        fi
        got=$(jq -c --argjson a "$got" --arg k "$key" '$a + [.data[][$k]]' <<<"$BODY")
        [[ $(jr .hasMore) == true ]] || break
        cursor=$(jr .nextCursor)
        off=$((off + n))
        page=$((page + 1))
        ((page < 40)) || { fail "$what: more than 40 pages"; break; }
    done
    jis . "$want" "$what: the pages together hold every row once, newest first" "$got"
}
