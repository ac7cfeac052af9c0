#!/usr/bin/env bash
# 89-isolation.t - isolation between platforms, and the view-only token.
# Two fresh platforms A and B with parallel data: tokens (view, manage,
# the root), customers with PPV addresses (one with money, one without
# anything), a funded internal account, an external account, a transfer-in
# and a transfer-out (settled), the platform's own fee account, a quote
# executed (to a PPV address: its INCOMING transaction too) and one not,
# two review-lane cases (sandbox simulate, still PENDING), the delivery
# log (no webhookEndpoint: every event logged FAILED), the signing key.
#  - Every operation of openapi/openapi.json with an id in its path (read
#    at run time; a path with a {param} that this suite does not map to
#    one of A's ids fails): platform B calling it with A's id answers
#    exactly as with a missing id of the same form (a fresh uuid with the
#    same prefix): same status, code and body once the ids are replaced;
#    and with the code decisions.md names.  The PPV receiver lookup is
#    global by design (decisions.md section 9): B gets 200 with the same
#    answer A gets, with only the documented fields.
#  - Ids in bodies, query filters and X-Platform-Id: A's ids named by B
#    answer as missing ones (and X-Platform-Id of A: 403, as any other).
#  - B's lists and filters hold exactly B's rows, never A's.
#  - A view-only token of A on every non-GET operation (from openapi.json;
#    one without a body template here fails): 403 FORBIDDEN with
#    details.requiredAccessLevel "manage", with a valid body, a malformed
#    body, or unknown ids, and writes nothing.
#  - A's lists (and its config and profile) unchanged after B's attempts
#    and after the view token's.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
no_plan

OPENAPI=$XB_REPO/openapi/openapi.json
RUN=$(uniq_name t89)
run=${RUN,,}
FULL_CP='{"senderFullLegalName":"Ada Sender","senderCountryCode":"GB","senderDateOfBirthOrRegistrationId":"1970-01-01","purposeOfPayment":"family support"}'
SIM=/sandbox/incoming-payments/simulate
N_X=0    # B's requests naming A's data, compared with a missing id (or checked as global)
N_MISS=0 # B's reference requests with missing ids
N_LIST=0 # B's list, filter and lookup requests checked for A's rows
N_VIEW=0 # the view token's requests on A's writes

declare -A AID=() BID=() MISS=()
AA=() BB=() AV=() BV=()

# sjson RECEIVER SCENARIO AMOUNT CURRENCY: a simulate body.
sjson() { printf '{"receiverCustomerId":"%s","scenario":"%s","amountMinor":%s,"currencyCode":"%s"}' "$1" "$2" "$3" "$4"; }

# --- the two platforms -----------------------------------------------------------------

# setup P: platform P (A or B) and its data; fills PID (AID or BID) and
# the credentials PP (AA or BB) and PV (its view token: AV or BV).
setup() {
    local P=$1 p=${1,,}
    local -n ID=${P}ID CR=${P}${P} VT=${P}V
    new_platform "t89$p" || BAIL_OUT "platform-create failed"
    pass "platform $P created with xborderctl"
    CR=(--as "$NP_CLIENT_ID" "$NP_SECRET")
    ID[plat]=$NP_ID ID[domain]=$NP_DOMAIN
    set_profile 50 3600 "${CR[@]}" # quotes stay QUOTE_READY for the whole run
    set_fees 100 50 "${CR[@]}"     # fees: the platform's own USD account appears
    create_token "$RUN-$p-view" '["view"]' "${CR[@]}"
    ID[tok_v]=$TOK_ID
    VT=(--as "$TOK_CLIENT_ID" "$TOK_SECRET")
    create_token "$RUN-$p-manage" '["manage"]' "${CR[@]}"
    ID[tok_m]=$TOK_ID ID[tok_m_raw]=$TOK_CLIENT_ID
    api "${CR[@]}" GET "/tokens?limit=100"
    ID[tok_root]=$(jr '.data[] | select(.issuerType == "operator_issued") | .id')
    like "${ID[tok_root]}" "^Token:${UUID4_RE#^}" "$P: the root token's id"

    mk_customer "t89-$p-c1" "${CR[@]}"
    ID[c1]=$CUST ID[c1_pcid]=$CUST_PCID ID[ppv1]=$CUST_PPV
    mk_customer "t89-$p-c2" "${CR[@]}"
    ID[c2]=$CUST ID[ppv2]=$CUST_PPV
    api "${CR[@]}" POST /customers "{\"platformCustomerId\":\"$RUN-$p-c3\",\"customerType\":\"ENTITY\",\"fullName\":\"Empty $P Ltd\",\"kycStatus\":\"PENDING\",\"ppvName\":\"$run-$p-c3\"}"
    is_status 201 "$P: POST /customers c3 (ENTITY, PENDING, chosen ppvName): 201"
    ID[c3]=$(jr .id) ID[ppv3]=$(jr .ppvAddress)
    int_account "${ID[c1]}" USD "${CR[@]}"
    ID[int1]=$INT
    fund "${ID[int1]}" 1000000 "${CR[@]}"
    mk_ext "${ID[c1]}" 000111222001 USD "${CR[@]}"
    ID[ext1]=$EXT

    api "${CR[@]}" POST /transfer-in "$(xfer_body "${ID[ext1]}" "${ID[int1]}" 5000)"
    is_status 201 "$P: transfer-in 5000: 201"
    ID[tin]=$(jr .transactionId)
    api "${CR[@]}" POST /transfer-out "$(xfer_body "${ID[int1]}" "${ID[ext1]}" 3000)"
    is_status 201 "$P: transfer-out 3000: 201"
    ID[tout]=$(jr .transactionId)

    api "${CR[@]}" POST /quotes "$(ppv_quote "${ID[int1]}" "${ID[ppv2]}" EUR SENDING 10000)"
    is_status 201 "$P: quote q1 (c1 USD -> c2's address in EUR): 201"
    ID[q1]=$(jr .quoteId) ID[q1tx]=$(jr .transactionId)
    api "${CR[@]}" POST "/quotes/${ID[q1]}/execute"
    is "$STATUS $(jr .status)" "200 COMPLETED" "$P: execute q1: 200 COMPLETED"
    api "${CR[@]}" POST /quotes "$(ext_quote "${ID[int1]}" "${ID[ext1]}" SENDING 2000)"
    is_status 201 "$P: quote q2 (to c1's external account, not executed): 201"
    ID[q2]=$(jr .quoteId) ID[q2tx]=$(jr .transactionId)

    api "${CR[@]}" POST "$SIM" "$(sjson "${ID[c1]}" sanctions_hit 1000 USD)"
    is_status 201 "$P: simulate sanctions_hit: 201"
    ID[case1]=$(jr .transactionId)
    api "${CR[@]}" POST "$SIM" "$(sjson "${ID[c1]}" counterparty_info_incomplete 1500 USD)"
    is_status 201 "$P: simulate counterparty_info_incomplete: 201"
    ID[case2]=$(jr .transactionId)

    settles "${ID[tin]}" COMPLETED "$P: the transfer-in COMPLETED" "${CR[@]}"
    settles "${ID[tout]}" COMPLETED "$P: the transfer-out COMPLETED" "${CR[@]}"
    api "${CR[@]}" GET "/transactions?customerId=${ID[c2]}&type=INCOMING"
    ID[qin]=$(jr '.data[0].transactionId')
    is "$(jr .totalCount) ${ID[qin]%%:*}" "1 Transaction" "$P: q1's INCOMING transaction (c2's)"
    api "${CR[@]}" GET "/platform/internal-accounts?currency=USD"
    ID[pint]=$(jr '.data[0].id')
    is "$(jr .totalCount) $(jr '.data[0].customerId')" "1 null" "$P: its own USD (fee) account"
    api "${CR[@]}" GET "/webhooks/deliveries?limit=100"
    ID[wh]=$(jr '.data[0].id')
    jok '.totalCount > 0 and all(.data[]; .status == "FAILED" and .attempts == 0)' \
        "$P: its delivery log has events, all FAILED (no webhookEndpoint), attempts 0"
    api "${CR[@]}" GET /webhooks/signing-key
    is_status 200 "$P: GET /webhooks/signing-key 200"
    ID[key]=$BODY ID[keyId]=$(jr .keyId)
    api "${CR[@]}" GET /config
    ID[config]=$(jr .id)
}

setup A
setup B
note "setup done after ${SECONDS}s"

# --- ids, templates and the comparison ------------------------------------------------------
# Templates name A's data as @A:name@ and B's as @B:name@.  The "missing"
# form of a template replaces every @A:name@ by a fresh value of the same
# form (Kind:<new uuid4>, a new raw uuid4, an unused PPV address on A's
# domain, an unused platformCustomerId).

# bg_api KEY [api options] METHOD PATH [BODY] [curl args]: an uncounted
# api call (--nocheck) in the background, in a scratch directory of its own.
declare -A BG_PID=()
bg_api() {
    local key=$1
    shift
    mkdir -p "$_API_TMP/bg/$key"
    (
        _API_TMP=$_API_TMP/bg/$key
        api --nocheck "$@"
        printf '%s' "$STATUS" >"$_API_TMP/st"
        printf '%s' "$BODY" >"$_API_TMP/bd"
        printf '%s' "$REQ" >"$_API_TMP/rq"
    ) &
    BG_PID[$key]=$!
}

# bg_wait KEY: waits for bg_api KEY; sets STATUS, BODY and REQ from it.
bg_wait() {
    local d=$_API_TMP/bg/$1
    wait "${BG_PID[$1]}"
    STATUS='' BODY='' REQ=''
    IFS= read -r -d '' STATUS <"$d/st"
    IFS= read -r -d '' BODY <"$d/bd"
    IFS= read -r -d '' REQ <"$d/rq"
    rm -f "$d/st" "$d/bd" "$d/rq"
    return 0
}

# The helpers below set variables instead of printing (no subshells: forks
# are what costs time on a busy machine).

# fresh VAR VALUE: VAR = a value of VALUE's form that nothing uses.
fresh() {
    local -n _out=$1
    local v=$2 u
    read -r u </proc/sys/kernel/random/uuid
    if [[ $v =~ ^([A-Za-z]+):[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$ ]]; then
        _out="${BASH_REMATCH[1]}:$u"
    elif [[ $v =~ $UUID4_RE ]]; then
        _out=$u
    elif [[ $v == *@* ]]; then
        _out="$run-nobody-${u:0:8}@${v#*@}"
    else
        _out="$RUN-nobody-${u:0:8}"
    fi
}

# use TEMPLATE...: USED = the names of A's values the templates use, each
# with a fresh stand-in in MISS.
use() {
    local s="$*" n
    USED='' MISS=()
    while [[ $s =~ @A:([a-z0-9_]+)@ ]]; do
        n=${BASH_REMATCH[1]}
        [[ -n ${AID[$n]:-} ]] || BAIL_OUT "no A id '$n'"
        USED+=" $n"
        fresh "MISS[$n]" "${AID[$n]}"
        s=${s//"@A:$n@"/}
    done
}

# fill VAR TEMPLATE MODE: VAR = TEMPLATE with @B:x@ replaced by B's values
# and @A:x@ by A's (MODE a) or by MISS[x] (MODE m; see use).
fill() {
    local -n _f=$1
    local s=$2 mode=$3 n
    while [[ $s =~ @B:([a-z0-9_]+)@ ]]; do
        n=${BASH_REMATCH[1]}
        [[ -n ${BID[$n]:-} ]] || BAIL_OUT "no B id '$n'"
        s=${s//"@B:$n@"/"${BID[$n]}"}
    done
    while [[ $s =~ @A:([a-z0-9_]+)@ ]]; do
        n=${BASH_REMATCH[1]}
        if [[ $mode == a ]]; then
            s=${s//"@A:$n@"/"${AID[$n]}"}
        else
            [[ -n ${MISS[$n]:-} ]] || BAIL_OUT "no missing stand-in for '$n'"
            s=${s//"@A:$n@"/"${MISS[$n]}"}
        fi
    done
    _f=$s
}

# unid VAR TEXT: VAR = TEXT with A's values of USED and their stand-ins
# replaced by <name>.
unid() {
    local -n _u=$1
    local s=$2 n
    for n in $USED; do
        s=${s//"${AID[$n]}"/"<$n>"}
        s=${s//"${MISS[$n]}"/"<$n>"}
    done
    _u=$s
}

# xcheck WHAT METHOD PATH BODY EXPECT [HEADER]: B sends the request with
# A's ids and, alongside, with missing ones; both answers must be the same
# (status and body once the ids are replaced; JSON compared with sorted
# keys), and the first must be EXPECT ("STATUS CODE", or "STATUS *").
# PATH, BODY and HEADER are templates.  The answer with A's ids is left in
# XS and XB.  (2 tests + api's)
xcheck() {
    local what=$1 method=$2 path=$3 body=$4 expect=$5 hdr=${6:-}
    local pa ba ha pm bm hm sa ra sm rm na nm code
    use "$path" "$body" "$hdr"
    fill pa "$path" a; fill ba "$body" a; fill ha "$hdr" a
    fill pm "$path" m; fill bm "$body" m; fill hm "$hdr" m
    local -a xa=() xm=()
    [[ -n $ha ]] && xa=(-H "$ha")
    [[ -n $hm ]] && xm=(-H "$hm")
    bg_api miss "${BB[@]}" "$method" "$pm" "$bm" "${xm[@]}"
    api "${BB[@]}" "$method" "$pa" "$ba" "${xa[@]}"
    sa=$STATUS ra=$BODY
    N_X=$((N_X + 1))
    bg_wait miss
    sm=$STATUS rm=$BODY
    N_MISS=$((N_MISS + 1))
    unid na "$ra"
    unid nm "$rm"
    # One jq for both: the code of the first, then each body as sorted
    # compact JSON (a JSON string when it is not JSON).
    {
        IFS= read -r code
        IFS= read -r na
        IFS= read -r nm
    } < <(jq -cSn --arg a "$na" --arg m "$nm" --arg r "$ra" \
        '($r | try (fromjson | .code) catch null), ($a, $m | try fromjson catch .)' 2>/dev/null)
    code=${code//\"/}
    if ! is "$sa $na" "$sm $nm" "$what: B with A's${USED} answers as with missing ids"; then
        diag "    with A's ids: $method $pa${ba:+ $ba}${ha:+ [$ha]}"
        diag "    missing ids:  $method $pm${bm:+ $bm}${hm:+ [$hm]}"
    fi
    if [[ ${expect#* } == '*' ]]; then
        is "$sa" "${expect%% *}" "$what: HTTP ${expect%% *}" || diag "    body: $(_tap_show "$ra")"
    else
        is "$sa $code" "$expect" "$what: $expect" || diag "    body: $(_tap_show "$ra")"
    fi
    XS=$sa XB=$ra
}

# --- the tables --------------------------------------------------------------------------------
# Every path of openapi.json with a {param}: what answers a missing id
# ("STATUS CODE"), or GLOBAL, then A's values to try.
declare -A PMAP=(
    ['/tokens/{tokenId}']='404 TOKEN_NOT_FOUND|tok_m tok_m_raw tok_root'
    ['/customers/{customerId}']='404 CUSTOMER_NOT_FOUND|c1 c3'
    ['/customers/{customerId}/ppv-address']='404 CUSTOMER_NOT_FOUND|c3'
    ['/customers/external-accounts/{accountId}']='404 NOT_FOUND|ext1'
    ['/sandbox/internal-accounts/{accountId}/fund']='404 ACCOUNT_NOT_FOUND|int1 pint'
    ['/receiver/external-account/{accountId}']='404 NOT_FOUND|ext1'
    ['/receiver/ppv/{ppvAddress}']='GLOBAL|ppv1 ppv3'
    ['/quotes/{quoteId}']='404 QUOTE_NOT_FOUND|q1 q2'
    ['/quotes/{quoteId}/execute']='404 QUOTE_NOT_FOUND|q2 q1'
    ['/transactions/{transactionId}']='404 TRANSACTION_NOT_FOUND|tout q2tx qin case1'
    ['/transactions/{transactionId}/approve']='404 TRANSACTION_NOT_FOUND|case2 tin'
    ['/transactions/{transactionId}/reject']='404 TRANSACTION_NOT_FOUND|case1 q2tx'
    ['/webhooks/deliveries/{webhookId}']='404 NOT_FOUND|wh'
    ['/sandbox/transactions/{transactionId}/complete']='404 TRANSACTION_NOT_FOUND|tout tin'
    ['/sandbox/transactions/{transactionId}/fail']='404 TRANSACTION_NOT_FOUND|tin q2tx'
    ['/sandbox/transactions/{transactionId}/return']='404 TRANSACTION_NOT_FOUND|tout qin'
    ['/sandbox/transactions/{transactionId}/expire']='404 TRANSACTION_NOT_FOUND|case1 q2tx'
    ['/webhooks/deliveries/{webhookId}/retry']='404 NOT_FOUND|wh'
)
# The body of every operation other than GET (a valid one; '' = none) and
# query strings, as templates.
declare -A OPBODY=(
    ['POST /tokens']='{"name":"t89 not allowed","permissions":["view","manage"]}'
    ['DELETE /tokens/{tokenId}']=''
    ['PATCH /config']='{"quoteFeePolicy":{"senderServiceFeeBps":7,"receiverServiceFeeBps":7}}'
    ['PATCH /sandbox/lightning-execution-profile']='{"btcFiatSpreadBps":77}'
    ['POST /customers']="{\"platformCustomerId\":\"$RUN-not-allowed\",\"customerType\":\"INDIVIDUAL\",\"fullName\":\"Not Allowed\"}"
    ['PATCH /customers/{customerId}']='{"fullName":"Changed By Someone Else","kycStatus":"REJECTED"}'
    ['DELETE /customers/{customerId}']=''
    ['POST /customers/{customerId}/ppv-address']="{\"ppvName\":\"$run-taken\"}"
    ['POST /customers/external-accounts']='{"customerId":"@A:c1@","currency":"USD","platformAccountId":"t89-not-allowed","accountInfo":{"accountType":"CHECKING","accountCategory":"PERSONAL","bankName":"Other Bank","accountNumber":"000888999001","routingNumber":"021000021"}}'
    ['DELETE /customers/external-accounts/{accountId}']=''
    ['POST /sandbox/internal-accounts/{accountId}/fund']='{"amountMinor":1}'
    ["POST $SIM"]="$(sjson @A:c1@ counterparty_info_incomplete 100 USD)"
    ['POST /transfer-in']="$(xfer_body @A:ext1@ @A:int1@ 100)"
    ['POST /transfer-out']="$(xfer_body @A:int1@ @A:ext1@ 100)"
    ['POST /quotes']="$(ppv_quote @A:int1@ @A:ppv2@ EUR SENDING 1000)"
    ['POST /quotes/{quoteId}/execute']=''
    ['POST /transactions/{transactionId}/approve']="{\"counterpartyInfo\":$FULL_CP}"
    ['POST /transactions/{transactionId}/reject']='{"reason":"not yours"}'
    ['POST /sandbox/transactions/{transactionId}/complete']=''
    ['POST /sandbox/transactions/{transactionId}/fail']=''
    ['POST /sandbox/transactions/{transactionId}/return']=''
    ['POST /sandbox/transactions/{transactionId}/expire']=''
    ['POST /webhooks/signing-key/rotate']=''
    ['POST /webhooks/test']=''
    ['POST /webhooks/deliveries/{webhookId}/retry']=''
)
declare -A OPQUERY=(
    ['DELETE /customers/external-accounts/{accountId}']='?customerId=@A:c1@'
)

mapfile -t OPS < <(jq -r '.paths | to_entries[] | .key as $p | .value | keys[]
    | select(test("^(get|put|post|patch|delete)$")) | "\(ascii_upcase) \($p)"' "$OPENAPI")
ok "$((${#OPS[@]} > 30))" "openapi.json: ${#OPS[@]} operations read"
mapfile -t IDPATHS < <(printf '%s\n' "${OPS[@]}" | cut -d' ' -f2 | grep '{' | sort -u)
for p in "${IDPATHS[@]}"; do
    if [[ -n ${PMAP[$p]:-} ]]; then
        pass "path $p is mapped to A's ${PMAP[$p]#*|}"
    else
        fail "path $p is mapped to A's ids in t/89-isolation.t (a new path: add it to PMAP)"
    fi
    n=${p//[^\{]/}
    is "${#n}" 1 "path $p has one {param}"
done
for op in "${OPS[@]}"; do
    [[ $op == GET\ * ]] && continue
    if [[ -v OPBODY[$op] ]]; then
        pass "$op has a body template"
    else
        fail "$op has a body template in t/89-isolation.t (a new operation: add it to OPBODY)"
    fi
done

# tmpl PATH NAME: PATH with its {param} replaced by @A:NAME@.
tmpl() { local p=$1; printf '%s' "${p%%\{*}@A:$2@${p#*\}}"; }

# --- A's data, before -----------------------------------------------------------------------
A_LISTS=(/customers?limit=100 /customers/external-accounts?limit=100 /customers/internal-accounts?limit=100
    /platform/internal-accounts?limit=100 /transactions?limit=100 /quotes?limit=100 /tokens?limit=100
    /webhooks/deliveries?limit=100 /config /sandbox/lightning-execution-profile "/quotes/${AID[q2]}")

# snap_a: A's lists and a few single resources, read by A's root token
# (all at once, uncounted), as one JSON object keyed by path, in SNAP.
snap_a() {
    local p i s='' sep=''
    for i in "${!A_LISTS[@]}"; do
        bg_api "s$i" "${AA[@]}" GET "${A_LISTS[i]}"
    done
    for i in "${!A_LISTS[@]}"; do
        p=${A_LISTS[i]}
        bg_wait "s$i"
        [[ $STATUS == 200 ]] || diag "A: GET $p: $STATUS $BODY"
        s+="$sep\"$p\":{\"status\":$STATUS,\"body\":${BODY:-null}}"
        sep=,
    done
    SNAP=$(jq -cS . <<<"{$s}") || diag "A's snapshot is not JSON"
}

# same_snap WHAT BEFORE AFTER: every entry of the two snapshots equal (1 test each).
same_snap() {
    local p a b
    printf '%s' "$2" >"$_API_TMP/snap-before"
    printf '%s' "$3" >"$_API_TMP/snap-after"
    while IFS=$'\t' read -r p b a; do
        is "$a" "$b" "$1: A's GET $p unchanged"
    done < <(jq -rn --slurpfile x "$_API_TMP/snap-before" --slurpfile y "$_API_TMP/snap-after" \
        '$x[0] as $x | $y[0] as $y | ($x + $y) | keys[] as $k | [$k, ($x[$k] | tojson), ($y[$k] | tojson)] | @tsv')
}

snap_a
S0=$SNAP
A_CUSTS=$(jq -c '[.["/customers?limit=100"].body.data[].id]' <<<"$S0")
A_INTS=$(jq -c '[.["/customers/internal-accounts?limit=100"].body.data[].id, .["/platform/internal-accounts?limit=100"].body.data[].id]' <<<"$S0")
A_TXS=$(jq -c '[.["/transactions?limit=100"].body.data[].transactionId]' <<<"$S0")
A_WHS=$(jq -c '[.["/webhooks/deliveries?limit=100"].body.data[].id]' <<<"$S0")
jis '[.["/transactions?limit=100"].body.totalCount, .["/quotes?limit=100"].body.totalCount, .["/customers?limit=100"].body.totalCount, .["/tokens?limit=100"].body.totalCount]' \
    '[7,2,3,3]' "A: 7 transactions, 2 quotes, 3 customers, 3 tokens" "$S0"
jok --arg w "$(printf '%s\n' tin tout q1tx q2tx qin case1 case2 | while read -r k; do printf '%s ' "${AID[$k]}"; done)" \
    '[.["/transactions?limit=100"].body.data[].transactionId] | sort == ($w | split(" ") | map(select(length > 0)) | sort)' \
    "A's transactions are exactly the 7 made" "$S0"

# --- every operation with an id in its path, by B with A's ids --------------------------------
for op in "${OPS[@]}"; do
    method=${op%% *} path=${op#* }
    [[ $path == *\{* && -n ${PMAP[$path]:-} ]] || continue
    expect=${PMAP[$path]%%|*} names=${PMAP[$path]#*|}
    body=${OPBODY[$op]:-} query=${OPQUERY[$op]:-}
    for name in $names; do
        if [[ $expect == GLOBAL ]]; then
            # The PPV lookup is global by design: B sees what A sees, nothing more.
            fill pa "$(tmpl "$path" "$name")" a
            api "${AA[@]}" "$method" "$pa"
            own=$BODY
            api "${BB[@]}" "$method" "$pa"
            N_X=$((N_X + 1))
            is_status 200 "$op with A's $name (global by design): 200 to B"
            jis . "$own" "$op with A's $name: B gets exactly the answer A gets"
            has_keys "$BODY" 'ppvAddress supportedCurrencies requiredCounterpartyFields' "$op with A's $name: only the documented keys"
            jok '(.supportedCurrencies | all(keys == ["currencyCode","maxAmount","minAmount"]))
                 and (.requiredCounterpartyFields | all(keys == ["currencyCode","mandatory","profile"]))' \
                "$op with A's $name: list entries with only the documented keys"
            leak=
            for k in c1 c2 c3 c1_pcid plat int1 ext1; do
                [[ $BODY == *"${AID[$k]}"* || $BODY == *"${AID[$k]#*:}"* ]] && leak+=" $k"
            done
            [[ $BODY == *"Test t89-a"* || $BODY == *"Empty A"* ]] && leak+=" fullName"
            is "$leak" "" "$op with A's $name: names none of A's ids, its platform or the customer's name"
            fresh pm "${AID[$name]}"
            api "${BB[@]}" "$method" "${path%%\{*}$pm"
            is_error 404 RECEIVER_NOT_FOUND "$op with an unused name on A's domain"
            continue
        fi
        xcheck "$op" "$method" "$(tmpl "$path" "$name")$query" "$body" "$expect"
    done
done

note "ids in paths done after ${SECONDS}s"

# --- A's ids in B's bodies and in X-Platform-Id ---------------------------------------------------
xcheck "POST /transfer-in from A's external account to B's internal account" POST /transfer-in \
    "$(xfer_body @A:ext1@ @B:int1@ 100)" '404 NOT_FOUND'
xcheck "POST /transfer-in from B's external account to A's internal account" POST /transfer-in \
    "$(xfer_body @B:ext1@ @A:int1@ 100)" '404 ACCOUNT_NOT_FOUND'
xcheck "POST /transfer-in between A's accounts" POST /transfer-in "$(xfer_body @A:ext1@ @A:int1@ 100)" '404 *'
xcheck "POST /transfer-out from A's internal account to B's external account" POST /transfer-out \
    "$(xfer_body @A:int1@ @B:ext1@ 100)" '404 ACCOUNT_NOT_FOUND'
xcheck "POST /transfer-out from B's internal account to A's external account" POST /transfer-out \
    "$(xfer_body @B:int1@ @A:ext1@ 100)" '404 NOT_FOUND'
xcheck "POST /transfer-out between A's accounts" POST /transfer-out "$(xfer_body @A:int1@ @A:ext1@ 100)" '404 *'
xcheck "POST /quotes from A's internal account (to B's own receiver)" POST /quotes \
    "$(ppv_quote @A:int1@ @B:ppv2@ EUR SENDING 1000)" '404 ACCOUNT_NOT_FOUND'
xcheck "POST /quotes from A's platform-owned account" POST /quotes \
    "$(ppv_quote @A:pint@ @B:ppv2@ EUR SENDING 1000)" '404 ACCOUNT_NOT_FOUND'
xcheck "POST /quotes to A's external account" POST /quotes \
    "$(ext_quote @B:int1@ @A:ext1@ SENDING 1000)" '404 NOT_FOUND'
xcheck "POST /quotes from A's internal account to A's external account" POST /quotes \
    "$(ext_quote @A:int1@ @A:ext1@ SENDING 1000)" '404 *'
xcheck "POST /customers/external-accounts for A's customer" POST /customers/external-accounts \
    "${OPBODY['POST /customers/external-accounts']}" '404 CUSTOMER_NOT_FOUND'
xcheck "POST $SIM for A's customer" POST "$SIM" "$(sjson @A:c1@ sanctions_hit 100 USD)" '404 CUSTOMER_NOT_FOUND'
# X-Platform-Id of A: 403, as any other platform's (credentials never reach another platform).
xcheck "fund A's account with X-Platform-Id of A" POST '/sandbox/internal-accounts/@A:int1@/fund' '{"amountMinor":1}' \
    '403 FORBIDDEN' 'X-Platform-Id: @A:plat@'
xcheck "fund B's account with X-Platform-Id of A" POST '/sandbox/internal-accounts/@B:int1@/fund' '{"amountMinor":1}' \
    '403 FORBIDDEN' 'X-Platform-Id: @A:plat@'
xcheck "simulate for A's customer with X-Platform-Id of A" POST "$SIM" "$(sjson @A:c1@ sanctions_hit 100 USD)" \
    '403 FORBIDDEN' 'X-Platform-Id: @A:plat@'
xcheck "GET the execution profile with X-Platform-Id of A" GET /sandbox/lightning-execution-profile '' \
    '403 FORBIDDEN' 'X-Platform-Id: @A:plat@'
xcheck "PATCH the execution profile with X-Platform-Id of A" PATCH /sandbox/lightning-execution-profile '{"btcFiatSpreadBps":77}' \
    '403 FORBIDDEN' 'X-Platform-Id: @A:plat@'

note "ids in bodies done after ${SECONDS}s"

# --- B's lists, filters and lookups -------------------------------------------------------------
B_TXS=$(printf '%s\n' tin tout q1tx q2tx qin case1 case2 | while read -r k; do printf '%s\n' "${BID[$k]}"; done | jq -Rsc 'split("\n") | map(select(length > 0))')
B_CUSTS=$(jq -nc --arg a "${BID[c1]}" --arg b "${BID[c2]}" --arg c "${BID[c3]}" '[$a,$b,$c]')

# blist WHAT PATH KEY WANT_JSON: B's GET PATH (a list) holds exactly the rows
# whose KEY is in WANT_JSON (any order), totalCount as many (2 tests + api's).
blist() {
    api "${BB[@]}" GET "$2"
    N_LIST=$((N_LIST + 1))
    is_status 200 "B: GET $2: 200"
    jok --arg k "$3" --arg w "$4" '($w | fromjson | sort) as $w | ([.data[][$k]] | sort) == $w and .totalCount == ($w | length)' \
        "B: GET $2: exactly B's $1 ($(jq length <<<"$4")), totalCount as many"
}

# bwithin WHAT PATH KEY ALLOWED_JSON [FORBIDDEN_JSON]: every row of B's GET
# PATH has its KEY in ALLOWED_JSON and none in FORBIDDEN_JSON; totalCount
# = the rows (all on one page) (2 tests + api's).
bwithin() {
    api "${BB[@]}" GET "$2"
    N_LIST=$((N_LIST + 1))
    is_status 200 "B: GET $2: 200"
    jok --arg k "$3" --arg ok "$4" --arg no "${5:-[]}" '($ok | fromjson) as $ok | ($no | fromjson) as $no
        | .totalCount == (.data | length) and all(.data[]; .[$k] as $v | ($ok | index([$v])) != null and ($no | index([$v])) == null)' \
        "B: GET $2: only B's $1 (none of A's), totalCount = rows"
}

blist customers '/customers?limit=100' id "$B_CUSTS"
bwithin customers '/customers?customerType=ENTITY&kycStatus=PENDING' id "[\"${BID[c3]}\"]" "$A_CUSTS"
bwithin customers '/customers?customerType=INDIVIDUAL&kycStatus=APPROVED' id "$B_CUSTS" "$A_CUSTS"
xcheck "GET /customers?platformCustomerId=<A's>" GET '/customers?platformCustomerId=@A:c1_pcid@' '' '200 *'
jis '[.totalCount, .data]' '[0,[]]' "B: GET /customers?platformCustomerId=<A's>: no row" "$XB"
blist 'external accounts' '/customers/external-accounts?limit=100' id "[\"${BID[ext1]}\"]"
xcheck "GET /customers/external-accounts?customerId=<A's>" GET '/customers/external-accounts?customerId=@A:c1@' '' '200 *'
jis '[.totalCount, .data]' '[0,[]]' "B: GET /customers/external-accounts?customerId=<A's>: no row" "$XB"
api "${BB[@]}" GET '/customers/internal-accounts?limit=100'
N_LIST=$((N_LIST + 1))
jok --arg c "$B_CUSTS" --arg no "$A_INTS" '($c | fromjson) as $c | ($no | fromjson) as $no | .totalCount == 9 and (.data | length) == 9
    and all(.data[]; (.customerId as $x | $c | index([$x])) != null and (.id as $i | $no | index([$i])) == null)' \
    "B: GET /customers/internal-accounts: exactly B's 3 customers x 3 currencies, none of A's accounts"
xcheck "GET /customers/internal-accounts?customerId=<A's>" GET '/customers/internal-accounts?customerId=@A:c1@' '' '200 *'
jis '[.totalCount, .data]' '[0,[]]' "B: GET /customers/internal-accounts?customerId=<A's>: no row" "$XB"
blist 'own accounts' '/platform/internal-accounts?limit=100' id "[\"${BID[pint]}\"]"
blist 'own USD account' '/platform/internal-accounts?currency=USD' id "[\"${BID[pint]}\"]"
blist transactions '/transactions?limit=100' transactionId "$B_TXS"
xcheck "GET /transactions?customerId=<A's>" GET '/transactions?customerId=@A:c1@' '' '200 *'
jis '[.totalCount, .data]' '[0,[]]' "B: GET /transactions?customerId=<A's>: no row" "$XB"
xcheck "GET /transactions?platformCustomerId=<A's>" GET '/transactions?platformCustomerId=@A:c1_pcid@' '' '200 *'
jis '[.totalCount, .data]' '[0,[]]' "B: GET /transactions?platformCustomerId=<A's>: no row" "$XB"
xcheck "GET /transactions?customerId=<A's>&platformCustomerId=<A's>&type=INCOMING&status=PENDING" GET \
    '/transactions?customerId=@A:c1@&platformCustomerId=@A:c1_pcid@&type=INCOMING&status=PENDING' '' '200 *'
a_first=$(jq -r '[.["/transactions?limit=100"].body.data[].createdAt] | min' <<<"$S0")
a_last=$(jq -r '[.["/transactions?limit=100"].body.data[].createdAt] | max' <<<"$S0")
a_case=$(jq -r --arg t "${AID[case1]}" '.["/transactions?limit=100"].body.data[] | select(.transactionId == $t) | .createdAt' <<<"$S0")
for f in type=INCOMING type=OUTGOING status=PENDING status=COMPLETED status=CREATED \
    "startDate=$a_first&endDate=$a_last" "startDate=$a_case&endDate=$a_case" "startDate=${a_first:0:10}&type=INCOMING&status=PENDING"; do
    bwithin transactions "/transactions?limit=100&$f" transactionId "$B_TXS" "$A_TXS"
done
blist quotes '/quotes?limit=100' quoteId "[\"${BID[q1]}\",\"${BID[q2]}\"]"
blist quotes '/quotes?status=QUOTE_READY' quoteId "[\"${BID[q1]}\",\"${BID[q2]}\"]"
blist tokens '/tokens?limit=100' id "[\"${BID[tok_root]}\",\"${BID[tok_v]}\",\"${BID[tok_m]}\"]"
api "${BB[@]}" GET '/webhooks/deliveries?limit=100'
N_LIST=$((N_LIST + 1))
B_WHS=$(j '[.data[].id]')
jok --arg t "$B_TXS" --arg no "$A_WHS" '($t | fromjson) as $t | ($no | fromjson) as $no | .totalCount > 0 and .totalCount == (.data | length)
    and all(.data[]; (.transactionId as $x | $t | index([$x])) != null and (.id as $i | $no | index([$i])) == null)' \
    "B: GET /webhooks/deliveries: only events of B's transactions, none of A's events"
for f in status=FAILED type=INCOMING_PAYMENT.COMPLETED "status=FAILED&type=OUTGOING_PAYMENT.PENDING"; do
    bwithin 'delivery log items' "/webhooks/deliveries?limit=100&$f" id "$B_WHS" "$A_WHS"
done
api "${BB[@]}" GET "/webhooks/signing-key?keyId=${AID[keyId]}"
N_LIST=$((N_LIST + 1))
is_error 404 NOT_FOUND "B: GET /webhooks/signing-key?keyId=<A's key>: 404 (each platform has its own)"
api "${BB[@]}" GET /webhooks/signing-key
N_LIST=$((N_LIST + 1))
is_status 200 "B: GET /webhooks/signing-key: 200"
isnt "$(jr .keyId)" "${AID[keyId]}" "B: its signing key is not A's"
has_keys "$BODY" 'keyId algorithm publicKeyPem' "B: the signing key: only keyId, algorithm, publicKeyPem"
api "${BB[@]}" GET /config
N_LIST=$((N_LIST + 1))
is "$(jr .id) $(jr .ppvDomain)" "${BID[config]} ${BID[domain]}" "B: GET /config is B's own configuration"

# Last: B's DELETE naming A's external account with B's customer, and B's
# own account with A's customer (a leak here would delete B's account).
xcheck "DELETE A's external account with B's customerId" DELETE '/customers/external-accounts/@A:ext1@?customerId=@B:c1@' '' '404 NOT_FOUND'
xcheck "DELETE B's external account with A's customerId" DELETE '/customers/external-accounts/@B:ext1@?customerId=@A:c1@' '' '404 NOT_FOUND'
api "${BB[@]}" GET "/customers/external-accounts/${BID[ext1]}"
is "$STATUS $(jr .status)" "200 ACTIVE" "B's external account is still there"

snap_a
S1=$SNAP
same_snap "after B's attempts" "$S0" "$S1"

note "lists done after ${SECONDS}s"

# --- A's view-only token on every operation other than GET ----------------------------------------
# vis WHAT METHOD PATH BODY: the last answer is 403 FORBIDDEN with details
# {requiredAccessLevel: manage} (1 test).
vis() {
    N_VIEW=$((N_VIEW + 1))
    if ! is "$STATUS $(jq -c '[.code, .details]' <<<"$BODY" 2>/dev/null)" '403 ["FORBIDDEN",{"requiredAccessLevel":"manage"}]' "view token: $1: 403 FORBIDDEN, details.requiredAccessLevel manage"; then
        diag "    $2 $3${4:+ $4}"
    fi
}
for op in "${OPS[@]}"; do
    method=${op%% *} path=${op#* }
    [[ $method == GET ]] && continue
    [[ -v OPBODY[$op] ]] || continue
    if [[ $path == *\{* ]]; then
        names=${PMAP[$path]#*|}
        t="$(tmpl "$path" "${names%% *}")${OPQUERY[$op]:-}"
    else
        t=$path
    fi
    b=${OPBODY[$op]}
    use "$t" "$b"
    fill ta "$t" a; fill ba "$b" a; fill tm "$t" m; fill bm "$b" m
    # The variants run alongside the first (uncounted).
    bg_api v1 "${AV[@]}" "$method" "$ta" '{"name":'
    [[ -n $USED ]] && bg_api v3 "${AV[@]}" "$method" "$tm" "$bm"
    api "${AV[@]}" "$method" "$ta" "$ba"
    vis "$op with A's ids" "$method" "$ta" "$ba"
    bg_wait v1
    vis "$op with a malformed body" "$method" "$ta" '{"name":'
    if [[ -n $USED ]]; then
        bg_wait v3
        vis "$op with unknown ids ($tm)" "$method" "$tm" "$bm"
    fi
done

snap_a
S2=$SNAP
same_snap "after the view token's attempts" "$S1" "$S2"
jis '[.["/transactions?limit=100"].body.totalCount, .["/quotes?limit=100"].body.totalCount, .["/customers?limit=100"].body.totalCount, .["/tokens?limit=100"].body.totalCount, .["/customers/external-accounts?limit=100"].body.totalCount, .["/webhooks/deliveries?limit=100"].body.totalCount]' \
    "$(jq -c '[.["/transactions?limit=100"].body.totalCount, .["/quotes?limit=100"].body.totalCount, .["/customers?limit=100"].body.totalCount, .["/tokens?limit=100"].body.totalCount, .["/customers/external-accounts?limit=100"].body.totalCount, .["/webhooks/deliveries?limit=100"].body.totalCount]' <<<"$S0")" \
    "A's list totals (transactions, quotes, customers, tokens, external accounts, deliveries) as before everything" "$S2"

note "cross-platform requests checked: $N_X by B naming A's data (each compared with $N_MISS requests naming missing ids), $N_LIST of B's lists, filters and lookups; $N_VIEW requests by A's view-only token; ${SECONDS}s"
done_testing
