#!/usr/bin/env bash
# 60-customers.t - POST /customers, GET /customers, GET/PATCH/DELETE
# /customers/{customerId}, POST /customers/{customerId}/ppv-address:
# the Customer shape, validation, conflicts, deletion (410 afterwards,
# reuse of the freed identifiers, CUSTOMER_HAS_BALANCE), paging walked to
# the end on a fresh platform, view-only permissions, and isolation.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
no_plan

CUSTOMER_KEYS='id platformId platformCustomerId customerType fullName ppvAddress kycStatus createdAt updatedAt'
CUST_RE="^Customer:${UUID4_RE#^}"
PPVNAME_RE='[a-z0-9][a-z0-9._-]{0,63}'
TAG=$(uniq_name t60)        # prefix of every platformCustomerId and ppvName of this run

# re_escape STRING: STRING with the regex metacharacters escaped.
re_escape() {
    printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'
}

# jstr STRING: STRING as a JSON string.
jstr() {
    jq -Rn --arg s "$1" '$s'
}

# customer_shape WHAT PLATFORM_ID PPV_DOMAIN: the full shape of a Customer in $BODY.
customer_shape() {
    local what=$1 plat=$2 dom=$3
    has_keys "$BODY" "$CUSTOMER_KEYS" "$what: exact Customer keys"
    like "$(jr .id)" "$CUST_RE" "$what: id is Customer:<uuid4>"
    jis .platformId "\"Platform:$plat\"" "$what: platformId is Platform:<the platform's id>"
    jok '(.platformCustomerId | type) == "string" and (.platformCustomerId | length) >= 1' "$what: platformCustomerId is a non-empty string"
    jok '.customerType == "INDIVIDUAL" or .customerType == "ENTITY"' "$what: customerType INDIVIDUAL or ENTITY"
    jok '(.fullName | type) == "string" and (.fullName | length) >= 1' "$what: fullName is a non-empty string"
    like "$(jr .ppvAddress)" "^${PPVNAME_RE}@$(re_escape "$dom")\$" "$what: ppvAddress is <ppvName>@<ppvDomain>"
    jok '.kycStatus == "PENDING" or .kycStatus == "APPROVED" or .kycStatus == "REJECTED"' "$what: kycStatus in PENDING, APPROVED, REJECTED"
    like "$(jr .createdAt)" "$TS_RE" "$what: createdAt is UTC with milliseconds"
    like "$(jr .updatedAt)" "$TS_RE" "$what: updatedAt is UTC with milliseconds"
    ok "$(jr '.createdAt <= .updatedAt')" "$what: createdAt <= updatedAt"
}

# list_shape WHAT NULL_OR_EMPTY: the list envelope in $BODY.
list_shape() {
    has_keys "$BODY" 'data hasMore nextCursor totalCount' "$1: list envelope keys"
    jok '(.data | type) == "array" and (.hasMore | type) == "boolean"
         and (.totalCount | type) == "number" and .totalCount >= 0 and .totalCount == (.totalCount | floor)
         and (.nextCursor == null or (.nextCursor | type) == "string")' "$1: list envelope types"
}

# cust_body PCID TYPE NAME [EXTRA_JSON_FIELDS]: a POST /customers body.
cust_body() {
    local extra=${4:-'{}'}
    jq -cn --arg p "$1" --arg t "$2" --arg n "$3" --argjson x "$extra" \
        '{platformCustomerId: $p, customerType: $t, fullName: $n} + $x'
}

# mk_customer [api options] BODY: POST /customers, asserts 201 (1 test plus
# the header check).  Sets CUST (id) and CBODY (the whole answer).
mk_customer() {
    local opts=()
    while [[ ${1:-} == --* ]]; do
        case $1 in
            --as) opts+=("$1" "$2" "$3"); shift 3 ;;
            *) opts+=("$1"); shift ;;
        esac
    done
    api "${opts[@]}" POST /customers "$1"
    is_status 201 "POST /customers $(jr .platformCustomerId 2>/dev/null): 201" || true
    CUST=$(jr .id)
    CBODY=$BODY
}

# walk WHAT PATH LIMIT PAGESIZE WANT_IDS_JSON: walks PATH page by page
# (LIMIT '' = the default page size, which must be PAGESIZE) until hasMore
# is false, checking every page's size, hasMore, nextCursor and totalCount,
# then that the pages together are WANT_IDS_JSON in that order.
walk() { walk_pages "$@" null; }

# newest_first JSON_ARRAY_OF_CUSTOMERS: their ids ordered createdAt desc, id desc.
newest_first() {
    jq -c 'sort_by([.createdAt, .id]) | reverse | map(.id)' <<<"$1"
}

api GET /config
MAIN_DOMAIN=$(jr .ppvDomain)
ok "$MAIN_DOMAIN" "main platform: ppvDomain known"
PLAT=$XB_PLATFORM_ID

# --- POST /customers -------------------------------------------------------------
c1_pcid="$TAG-c1"
c1_ppv="${TAG,,}-ada"
mk_customer "$(cust_body "$c1_pcid" INDIVIDUAL 'Ada Obi' "{\"ppvName\":$(jstr "$c1_ppv")}")"
c1=$CUST c1_body=$CBODY
customer_shape "POST /customers" "$PLAT" "$MAIN_DOMAIN"
jis .platformCustomerId "$(jstr "$c1_pcid")" "POST /customers: platformCustomerId as sent"
jis .customerType '"INDIVIDUAL"' "POST /customers: customerType as sent"
jis .fullName '"Ada Obi"' "POST /customers: fullName as sent"
jis .ppvAddress "$(jstr "$c1_ppv@$MAIN_DOMAIN")" "POST /customers: ppvAddress is ppvName@ppvDomain"
jis .kycStatus '"APPROVED"' "POST /customers: kycStatus defaults to APPROVED"
jis '.createdAt == .updatedAt' true "POST /customers: createdAt == updatedAt"

mk_customer "$(cust_body "$TAG-c2" ENTITY 'Obi Holdings Ltd' '{"kycStatus":"PENDING"}')"
c2=$CUST c2_body=$CBODY
customer_shape "POST /customers ENTITY, no ppvName" "$PLAT" "$MAIN_DOMAIN"
jis .customerType '"ENTITY"' "ENTITY: customerType"
jis .kycStatus '"PENDING"' "kycStatus PENDING as sent"
c2_ppv=$(jr '.ppvAddress | split("@")[0]')

mk_customer "$(cust_body "$TAG-c3" INDIVIDUAL 'Rex Rejected' '{"kycStatus":"REJECTED"}')"
c3=$CUST
jis .kycStatus '"REJECTED"' "kycStatus REJECTED as sent"
c3_ppv=$(jr '.ppvAddress | split("@")[0]')
isnt "$c3_ppv" "$c2_ppv" "random ppvNames differ between customers"
isnt "$c2" "$c1" "customers get distinct ids"

mk_customer "$(cust_body "$TAG-c4" INDIVIDUAL 'Kay Approved' '{"kycStatus":"APPROVED"}')"
jis .kycStatus '"APPROVED"' "kycStatus APPROVED as sent"

# Boundaries that are accepted.
pcid128="$TAG-"$(printf 'p%.0s' $(seq $((128 - ${#TAG} - 1))))
name256=$(printf 'n%.0s' {1..256})
mk_customer "$(cust_body "$pcid128" INDIVIDUAL "$name256")"
jis .platformCustomerId "$(jstr "$pcid128")" "platformCustomerId of 128 characters accepted"
jis .fullName "\"$name256\"" "fullName of 256 characters accepted"
name256u=$(printf 'é%.0s' {1..256})
mk_customer "$(cust_body "$TAG-utf8" INDIVIDUAL "$name256u")"
jis .fullName "\"$name256u\"" "fullName of 256 two-byte characters accepted (characters, not bytes)"
ppv64="${TAG,,}"
ppv64="${ppv64}$(printf 'z%.0s' $(seq $((64 - ${#ppv64}))))"
mk_customer "$(cust_body "$TAG-p64" INDIVIDUAL 'Long Ppv' "{\"ppvName\":$(jstr "$ppv64")}")"
jis .ppvAddress "$(jstr "$ppv64@$MAIN_DOMAIN")" "ppvName of 64 characters accepted"
ppvdots="0${TAG,,}.a_b-c"
mk_customer "$(cust_body "$TAG-pdots" ENTITY 'Dots' "{\"ppvName\":$(jstr "$ppvdots")}")"
jis .ppvAddress "$(jstr "$ppvdots@$MAIN_DOMAIN")" "ppvName with a leading digit, '.', '_' and '-' accepted"

# --- POST /customers validation -------------------------------------------------------
# bad_customer BODY FIELD WHAT: POST /customers gives 400 naming FIELD.
bad_customer() {
    api POST /customers "$1"
    is_error 400 INVALID_REQUEST "POST /customers $3"
    has_details "$2" "POST /customers $3: details.$2"
}
B="$TAG-bad"
bad_customer '{"customerType":"INDIVIDUAL","fullName":"X"}' platformCustomerId "without platformCustomerId"
bad_customer '{"platformCustomerId":"","customerType":"INDIVIDUAL","fullName":"X"}' platformCustomerId "with an empty platformCustomerId"
bad_customer "$(cust_body "${pcid128}q" INDIVIDUAL X)" platformCustomerId "with a platformCustomerId of 129 characters"
bad_customer "{\"platformCustomerId\":7,\"customerType\":\"INDIVIDUAL\",\"fullName\":\"X\"}" platformCustomerId "with a numeric platformCustomerId"
bad_customer "{\"platformCustomerId\":null,\"customerType\":\"INDIVIDUAL\",\"fullName\":\"X\"}" platformCustomerId "with a null platformCustomerId"
bad_customer "{\"platformCustomerId\":\"$B\",\"fullName\":\"X\"}" customerType "without customerType"
bad_customer "$(cust_body "$B" individual X)" customerType "with customerType individual (lower case)"
bad_customer "$(cust_body "$B" BUSINESS X)" customerType "with customerType BUSINESS"
jok '.details.customerType | test("INDIVIDUAL") and test("ENTITY")' "bad customerType: details.customerType lists INDIVIDUAL and ENTITY"
bad_customer "{\"platformCustomerId\":\"$B\",\"customerType\":\"INDIVIDUAL\"}" fullName "without fullName"
bad_customer "$(cust_body "$B" INDIVIDUAL '')" fullName "with an empty fullName"
bad_customer "$(cust_body "$B" INDIVIDUAL "${name256}x")" fullName "with a fullName of 257 characters"
bad_customer "{\"platformCustomerId\":\"$B\",\"customerType\":\"INDIVIDUAL\",\"fullName\":[\"X\"]}" fullName "with an array fullName"
bad_customer "$(cust_body "$B" INDIVIDUAL X '{"kycStatus":"VERIFIED"}')" kycStatus "with kycStatus VERIFIED"
jok '.details.kycStatus | test("PENDING") and test("APPROVED") and test("REJECTED")' "bad kycStatus: details.kycStatus lists the three values"
bad_customer "$(cust_body "$B" INDIVIDUAL X '{"kycStatus":null}')" kycStatus "with a null kycStatus"
for p in '' 'Ada' '.ada' '-ada' '_ada' 'ada@x' 'ada smith' 'ad$a' "a$(printf 'b%.0s' {1..64})" 'ädä'; do
    bad_customer "$(cust_body "$B" INDIVIDUAL X "{\"ppvName\":$(jstr "$p")}")" ppvName "with ppvName '$p'"
done
bad_customer "$(cust_body "$B" INDIVIDUAL X '{"ppvName":5}')" ppvName "with a numeric ppvName"
bad_customer "$(cust_body "$B" INDIVIDUAL X '{"id":"Customer:00000000-0000-4000-8000-000000000000"}')" id "with an id (extra property)"
bad_customer "$(cust_body "$B" INDIVIDUAL X '{"ppvAddress":"x@y.test"}')" ppvAddress "with a ppvAddress (extra property)"
bad_customer "$(cust_body "$B" INDIVIDUAL X '{"platformId":"Platform:x"}')" platformId "with a platformId (extra property)"
api POST /customers '[]'
is_error 400 INVALID_REQUEST "POST /customers with an array body"
api POST /customers '{"platformCustomerId":'
is_error 400 INVALID_REQUEST "POST /customers with malformed JSON"
: >"$_API_TMP/empty"
api --file "$_API_TMP/empty" POST /customers
is_error 400 INVALID_REQUEST "POST /customers with an empty application/json body"
api --ctype text/plain POST /customers "$(cust_body "$B" INDIVIDUAL X)"
is_error 415 UNSUPPORTED_MEDIA_TYPE "POST /customers as text/plain"
api GET "/customers?platformCustomerId=$B"
jis .totalCount 0 "no refused POST created a customer"

# --- Idempotency-Key, methods ------------------------------------------------------------
key=$(uniq_name t60-key)
ibody=$(cust_body "$TAG-idem" INDIVIDUAL 'Idem Potent')
api POST /customers "$ibody" -H "Idempotency-Key: $key"
is_status 201 "POST /customers with an Idempotency-Key: 201"
ifirst=$BODY
api POST /customers "$ibody" -H "Idempotency-Key: $key"
is_status 201 "the same POST replayed with the same key: 201 (not CUSTOMER_ALREADY_EXISTS)"
jis . "$ifirst" "replay: the first answer, the same customer"
is_header Idempotent-Replayed true "replay: Idempotent-Replayed: true"
api POST /customers "$(cust_body "$TAG-idem-2" INDIVIDUAL 'Idem Potent')" -H "Idempotency-Key: $key"
is_error 409 IDEMPOTENCY_KEY_REUSED "the same key with another body"
api GET "/customers?platformCustomerId=$TAG-idem-2"
jis .totalCount 0 "the reused key created nothing"
api PUT /customers '{}'
is_error 405 METHOD_NOT_ALLOWED "PUT /customers"
like "$(header Allow)" 'GET' "PUT /customers: Allow names GET"
like "$(header Allow)" 'POST' "PUT /customers: Allow names POST"
api PUT "/customers/$c1" '{}'
is_error 405 METHOD_NOT_ALLOWED "PUT /customers/{id}"
api GET "/customers/$c1/ppv-address"
is_error 405 METHOD_NOT_ALLOWED "GET /customers/{id}/ppv-address"

# --- conflicts -------------------------------------------------------------------------
api POST /customers "$(cust_body "$c1_pcid" ENTITY 'Someone Else')"
is_error 409 CUSTOMER_ALREADY_EXISTS "POST /customers with a live customer's platformCustomerId"
api POST /customers "$(cust_body "$TAG-ppvdup" INDIVIDUAL 'Dup Ppv' "{\"ppvName\":$(jstr "$c1_ppv")}")"
is_error 409 PPV_ADDRESS_TAKEN "POST /customers with a taken ppvName"
api POST /customers "$(cust_body "$TAG-ppvdup2" INDIVIDUAL 'Dup Ppv' "{\"ppvName\":$(jstr "$c2_ppv")}")"
is_error 409 PPV_ADDRESS_TAKEN "POST /customers with a taken random ppvName"
api GET "/customers?platformCustomerId=$TAG-ppvdup"
jis .totalCount 0 "the conflicting POSTs created nothing"

# --- GET /customers/{customerId} --------------------------------------------------------
api GET "/customers/$c1"
is_status 200 "GET /customers/{id}: 200"
customer_shape "GET /customers/{id}" "$PLAT" "$MAIN_DOMAIN"
jis . "$c1_body" "GET /customers/{id}: same as created"

raw=${c1#Customer:}
for bad in abc 'Customer:' 'Customer:abc' "$raw" "Token:$raw" "customer:$raw" "Customer:${raw}0" \
    "Customer:${raw:0:35}" "Customer:$(tr -d - <<<"$raw")" "Customer:%20$raw"; do
    api GET "/customers/$bad"
    is_error 400 INVALID_REQUEST "GET /customers/$bad"
    has_details customerId "GET /customers/$bad: details.customerId"
done
api GET "/customers/Customer:$(uuid4)"
is_error 404 CUSTOMER_NOT_FOUND "GET /customers/Customer:<unknown uuid>"

# --- PATCH /customers/{customerId} -------------------------------------------------------
sleep 0.01
api PATCH "/customers/$c1" '{"fullName":"Ada B. Obi"}'
is_status 200 "PATCH fullName: 200"
customer_shape "PATCH /customers/{id}" "$PLAT" "$MAIN_DOMAIN"
jis .fullName '"Ada B. Obi"' "PATCH fullName: changed"
jis '{id, platformId, platformCustomerId, customerType, ppvAddress, kycStatus, createdAt}' \
    "$(j '{id, platformId, platformCustomerId, customerType, ppvAddress, kycStatus, createdAt}' "$c1_body")" \
    "PATCH fullName: every other field unchanged"
ok "$(jq -r --arg u "$(jr .updatedAt "$c1_body")" '.updatedAt > $u' <<<"$BODY")" "PATCH fullName: updatedAt advanced"
api GET "/customers/$c1"
jis .fullName '"Ada B. Obi"' "PATCH fullName: GET reads it back"

api PATCH "/customers/$c1" '{"customerType":"ENTITY","kycStatus":"REJECTED"}'
is_status 200 "PATCH customerType and kycStatus: 200"
jis '{customerType, kycStatus, fullName}' '{"customerType":"ENTITY","kycStatus":"REJECTED","fullName":"Ada B. Obi"}' \
    "PATCH customerType and kycStatus: both changed, fullName kept"
api PATCH "/customers/$c1" '{"kycStatus":"PENDING"}'
jis .kycStatus '"PENDING"' "PATCH kycStatus PENDING"
api PATCH "/customers/$c1" '{"kycStatus":"APPROVED","customerType":"INDIVIDUAL"}'
jis '{customerType, kycStatus}' '{"customerType":"INDIVIDUAL","kycStatus":"APPROVED"}' "PATCH back to INDIVIDUAL, APPROVED"

c1_pcid2="$TAG-c1-renamed"
api PATCH "/customers/$c1" "{\"platformCustomerId\":$(jstr "$c1_pcid2")}"
is_status 200 "PATCH platformCustomerId: 200"
jis .platformCustomerId "$(jstr "$c1_pcid2")" "PATCH platformCustomerId: changed"
api GET "/customers?platformCustomerId=$c1_pcid2"
jis '[.data[].id]' "[\"$c1\"]" "list filter finds the customer by its new platformCustomerId"
api GET "/customers?platformCustomerId=$c1_pcid"
jis .totalCount 0 "the old platformCustomerId no longer matches"
api PATCH "/customers/$c1" "{\"platformCustomerId\":$(jstr "$c1_pcid2")}"
is_status 200 "PATCH platformCustomerId to its own current value: 200"
api PATCH "/customers/$c1" "{\"platformCustomerId\":$(jstr "$TAG-c2")}"
is_error 409 CUSTOMER_ALREADY_EXISTS "PATCH platformCustomerId to another live customer's"
api GET "/customers/$c1"
jis .platformCustomerId "$(jstr "$c1_pcid2")" "refused PATCH left platformCustomerId unchanged"
c1_now=$BODY

# bad_patch BODY FIELD WHAT: PATCH gives 400 naming FIELD.
bad_patch() {
    api PATCH "/customers/$c1" "$1"
    is_error 400 INVALID_REQUEST "PATCH /customers/{id} $3"
    has_details "$2" "PATCH /customers/{id} $3: details.$2"
}
bad_patch '{"fullName":""}' fullName "with an empty fullName"
bad_patch "{\"fullName\":\"${name256}x\"}" fullName "with a fullName of 257 characters"
bad_patch '{"fullName":null}' fullName "with a null fullName"
bad_patch '{"customerType":"PERSON"}' customerType "with customerType PERSON"
bad_patch '{"kycStatus":"approved"}' kycStatus "with kycStatus approved"
bad_patch '{"platformCustomerId":""}' platformCustomerId "with an empty platformCustomerId"
bad_patch "{\"platformCustomerId\":\"${pcid128}q\"}" platformCustomerId "with a platformCustomerId of 129 characters"
bad_patch '{"ppvName":"newname"}' ppvName "with ppvName (not writable here)"
bad_patch '{"ppvAddress":"x@y.test"}' ppvAddress "with ppvAddress"
bad_patch '{"id":"Customer:00000000-0000-4000-8000-000000000000"}' id "with id"
bad_patch '{"createdAt":"2026-01-01T00:00:00.000Z"}' createdAt "with createdAt"
bad_patch '{"fullName":"Fine","kycStatus":"NOPE"}' kycStatus "with a good fullName and a bad kycStatus"
api PATCH "/customers/$c1" '"x"'
is_error 400 INVALID_REQUEST "PATCH /customers/{id} with a string body"
api GET "/customers/$c1"
jis . "$c1_now" "refused PATCHes changed nothing"

api PATCH "/customers/Customer:$(uuid4)" '{"fullName":"Nobody"}'
is_error 404 CUSTOMER_NOT_FOUND "PATCH /customers/Customer:<unknown uuid>"
api PATCH "/customers/$raw" '{"fullName":"Nobody"}'
is_error 400 INVALID_REQUEST "PATCH /customers/<raw uuid>"
has_details customerId "PATCH /customers/<raw uuid>: details.customerId"

# --- POST /customers/{customerId}/ppv-address --------------------------------------------------
old_addr=$(jr .ppvAddress "$c1_now")
api GET "/receiver/ppv/$old_addr"
is_status 200 "the current address resolves before re-issuance"
new_ppv="${TAG,,}-ada2"
sleep 0.01
api POST "/customers/$c1/ppv-address" "{\"ppvName\":$(jstr "$new_ppv")}"
is_status 200 "POST /customers/{id}/ppv-address: 200"
customer_shape "POST ppv-address" "$PLAT" "$MAIN_DOMAIN"
jis .ppvAddress "$(jstr "$new_ppv@$MAIN_DOMAIN")" "ppv-address: the new address"
jis 'del(.ppvAddress, .updatedAt)' "$(j 'del(.ppvAddress, .updatedAt)' "$c1_now")" "ppv-address: every other field unchanged"
ok "$(jq -r --arg u "$(jr .updatedAt "$c1_now")" '.updatedAt > $u' <<<"$BODY")" "ppv-address: updatedAt advanced"
api GET "/customers/$c1"
jis .ppvAddress "$(jstr "$new_ppv@$MAIN_DOMAIN")" "ppv-address: GET reads the new address back"
api GET "/receiver/ppv/$old_addr"
is_error 404 RECEIVER_NOT_FOUND "the old address stops resolving at once"
api GET "/receiver/ppv/$new_ppv@$MAIN_DOMAIN"
is_status 200 "the new address resolves"
jis .ppvAddress "$(jstr "$new_ppv@$MAIN_DOMAIN")" "the new address resolves to itself"
api GET "/customers/$c1"
c1_now=$BODY

api POST "/customers/$c1/ppv-address" "{\"ppvName\":$(jstr "$c2_ppv")}"
is_error 409 PPV_ADDRESS_TAKEN "ppv-address: another customer's ppvName"
for p in '' 'UPPER' '.dot' 'a@b' "a$(printf 'b%.0s' {1..64})"; do
    api POST "/customers/$c1/ppv-address" "{\"ppvName\":$(jstr "$p")}"
    is_error 400 INVALID_REQUEST "ppv-address with ppvName '$p'"
    has_details ppvName "ppv-address with ppvName '$p': details.ppvName"
done
api POST "/customers/$c1/ppv-address" '{}'
is_error 400 INVALID_REQUEST "ppv-address without ppvName"
has_details ppvName "ppv-address without ppvName: details.ppvName"
api POST "/customers/$c1/ppv-address" "{\"ppvName\":\"${TAG,,}-x\",\"ppvDomain\":\"evil.test\"}"
is_error 400 INVALID_REQUEST "ppv-address with an extra property"
has_details ppvDomain "ppv-address with an extra property: details.ppvDomain"
api GET "/customers/$c1"
jis . "$c1_now" "refused ppv-address calls changed nothing"
api POST "/customers/Customer:$(uuid4)/ppv-address" "{\"ppvName\":\"${TAG,,}-nobody\"}"
is_error 404 CUSTOMER_NOT_FOUND "ppv-address for an unknown customer"
api POST "/customers/abc/ppv-address" "{\"ppvName\":\"${TAG,,}-nobody\"}"
is_error 400 INVALID_REQUEST "ppv-address for customer id abc"
has_details customerId "ppv-address for customer id abc: details.customerId"

# --- DELETE /customers/{customerId} -----------------------------------------------------------
d_pcid="$TAG-doomed"
d_ppv="${TAG,,}-doomed"
mk_customer "$(cust_body "$d_pcid" INDIVIDUAL 'Doomed Dee' "{\"ppvName\":\"$d_ppv\"}")"
d=$CUST
api DELETE "/customers/$d"
is_status 200 "DELETE /customers/{id}: 200"
jis . "{\"deleted\":true,\"customerId\":\"$d\"}" "DELETE: exactly {deleted: true, customerId}"
api GET "/customers/$d"
is_error 410 GONE "GET a deleted customer"
api PATCH "/customers/$d" '{"fullName":"Back Again"}'
is_error 410 GONE "PATCH a deleted customer"
api POST "/customers/$d/ppv-address" "{\"ppvName\":\"${TAG,,}-ghost\"}"
is_error 410 GONE "ppv-address for a deleted customer"
api DELETE "/customers/$d"
is_error 410 GONE "DELETE a deleted customer again"
api GET "/customers?platformCustomerId=$d_pcid"
jis '{data, totalCount}' '{"data":[],"totalCount":0}' "the deleted customer left the list"
api GET "/receiver/ppv/$d_ppv@$MAIN_DOMAIN"
is_error 404 RECEIVER_NOT_FOUND "the deleted customer's address no longer resolves"

mk_customer "$(cust_body "$d_pcid" ENTITY 'Reborn Ltd' "{\"ppvName\":\"$d_ppv\"}")"
d2=$CUST
isnt "$d2" "$d" "a deleted customer's platformCustomerId and ppvName can be reused: a new customer"
jis .ppvAddress "\"$d_ppv@$MAIN_DOMAIN\"" "reused ppvName: the same address"
api GET "/customers?platformCustomerId=$d_pcid"
jis '[.data[].id]' "[\"$d2\"]" "the list has only the new customer for the reused platformCustomerId"
api GET "/customers/$d"
is_error 410 GONE "the deleted customer stays GONE after its identifiers are reused"

mk_customer "$(cust_body "$TAG-del-then-patch2" INDIVIDUAL 'Patch Target')"
api DELETE "/customers/$CUST"
is_status 200 "DELETE a second customer: 200"
api PATCH "/customers/$c1" "{\"platformCustomerId\":\"$TAG-del-then-patch2\"}"
is_status 200 "PATCH platformCustomerId to a deleted customer's: 200"
api PATCH "/customers/$c1" "{\"platformCustomerId\":$(jstr "$c1_pcid2")}"
is_status 200 "PATCH platformCustomerId back: 200"
c1_now=$BODY

api DELETE "/customers/Customer:$(uuid4)"
is_error 404 CUSTOMER_NOT_FOUND "DELETE an unknown customer"
api DELETE "/customers/Customer:abc"
is_error 400 INVALID_REQUEST "DELETE /customers/Customer:abc"
has_details customerId "DELETE /customers/Customer:abc: details.customerId"

# CUSTOMER_HAS_BALANCE while an internal account holds money.
mk_customer "$(cust_body "$TAG-rich" INDIVIDUAL 'Rich Roe')"
rich=$CUST
api GET "/customers/internal-accounts?customerId=$rich&currency=EUR"
rich_eur=$(jr '.data[0].id')
like "$rich_eur" '^InternalAccount:' "the customer has a EUR internal account"
api POST "/sandbox/internal-accounts/$rich_eur/fund" '{"amountMinor":1}'
is_status 200 "fund the EUR account with 1 minor unit"
api DELETE "/customers/$rich"
is_error 409 CUSTOMER_HAS_BALANCE "DELETE a customer whose account holds money"
api GET "/customers/$rich"
is_status 200 "the refused DELETE left the customer live"

# --- GET /customers on the main platform: filters and validation ------------------------------
api GET /customers
is_status 200 "GET /customers: 200"
list_shape "GET /customers"
jok 'all(.data[]; (keys | sort) == ("createdAt customerType fullName id kycStatus platformCustomerId platformId ppvAddress updatedAt" | split(" ")))' \
    "GET /customers: every item has exactly the Customer keys"
jok "all(.data[]; .platformId == \"Platform:$PLAT\")" "GET /customers: every item is the platform's"
jok '(.data | length) <= 20' "GET /customers: at most 20 rows by default"
jok '[.data[] | [.createdAt, .id]] as $a | $a == ($a | sort | reverse)' "GET /customers: newest first"
jok --arg d "$d" 'all(.data[]; .id != $d)' "GET /customers: the deleted customer is absent"

api GET "/customers?platformCustomerId=$TAG-c2"
is_status 200 "GET /customers?platformCustomerId=: 200"
jis . "{\"data\":[$c2_body],\"hasMore\":false,\"nextCursor\":null,\"totalCount\":1}" "filter platformCustomerId: exactly that customer"
api GET "/customers?platformCustomerId=$TAG-c2&customerType=ENTITY&kycStatus=PENDING"
jis '[.data[].id]' "[\"$c2\"]" "filters combine: platformCustomerId + ENTITY + PENDING"
api GET "/customers?platformCustomerId=$TAG-c2&kycStatus=APPROVED"
jis '{data, totalCount}' '{"data":[],"totalCount":0}' "filters combine: platformCustomerId + APPROVED matches nothing"
api GET "/customers?platformCustomerId=$TAG-nobody"
jis . '{"data":[],"hasMore":false,"nextCursor":null,"totalCount":0}' "filter on an unused platformCustomerId: empty"

for q in customerType=individual customerType=BUSINESS 'customerType=' 'customerType=ENTITY&customerType=ENTITY'; do
    api GET "/customers?$q"
    is_error 400 INVALID_REQUEST "GET /customers?$q"
    has_details customerType "GET /customers?$q: details.customerType"
done
api GET /customers?customerType=PERSON
jok '(.details.customerType // "") | test("INDIVIDUAL") and test("ENTITY")' "bad customerType filter: the rule lists INDIVIDUAL and ENTITY"
for q in kycStatus=approved kycStatus=VERIFIED 'kycStatus=' 'kycStatus=PENDING&kycStatus=APPROVED'; do
    api GET "/customers?$q"
    is_error 400 INVALID_REQUEST "GET /customers?$q"
    has_details kycStatus "GET /customers?$q: details.kycStatus"
done
api GET /customers?kycStatus=NOPE
jok '(.details.kycStatus // "") | test("PENDING") and test("APPROVED") and test("REJECTED")' "bad kycStatus filter: the rule lists the three values"
api GET "/customers?platformCustomerId=a&platformCustomerId=b"
is_error 400 INVALID_REQUEST "GET /customers with platformCustomerId twice"
has_details platformCustomerId "platformCustomerId twice: details.platformCustomerId"
for q in limit=0 limit=101 limit=abc 'limit=' limit=-1 limit=1.5 'limit=5&limit=5' limit=99999999999999999999; do
    api GET "/customers?$q"
    is_error 400 INVALID_REQUEST "GET /customers?$q"
    has_details limit "GET /customers?$q: details.limit"
done
for q in cursor=abc 'cursor=' cursor=-1 cursor=1.0 'cursor=0&cursor=0' cursor=99999999999999999999; do
    api GET "/customers?$q"
    is_error 400 INVALID_REQUEST "GET /customers?$q"
    has_details cursor "GET /customers?$q: details.cursor"
done
api GET '/customers?limit=100&unknownParam=1'
is_status 200 "GET /customers?limit=100 with an unknown parameter: 200"
jok '(.data | length) <= 100' "limit=100: at most 100 rows"

# --- permissions: a view-only token ----------------------------------------------------------
create_token "$(uniq_name t60-view)" '["view"]'
v_tok=$TOK_ID v_id=$TOK_CLIENT_ID v_secret=$TOK_SECRET
at_exit "use_root; api --nocheck DELETE /tokens/$v_tok"
api --as "$v_id" "$v_secret" GET /customers
is_status 200 "view token: GET /customers 200"
api --as "$v_id" "$v_secret" GET "/customers/$c1"
is_status 200 "view token: GET /customers/{id} 200"
jis . "$c1_now" "view token: the same customer"
# forbidden METHOD PATH BODY WHAT: the view token gets 403 manage.
forbidden() {
    api --as "$v_id" "$v_secret" "$1" "$2" "$3"
    is_error 403 FORBIDDEN "view token: $4"
    jis .details.requiredAccessLevel '"manage"' "view token: $4: details.requiredAccessLevel manage"
}
forbidden POST /customers "$(cust_body "$TAG-view" INDIVIDUAL 'View Only')" "POST /customers"
forbidden PATCH "/customers/$c1" '{"fullName":"Viewer Was Here"}' "PATCH /customers/{id}"
forbidden DELETE "/customers/$c3" '' "DELETE /customers/{id}"
forbidden POST "/customers/$c1/ppv-address" "{\"ppvName\":\"${TAG,,}-viewer\"}" "POST ppv-address"
forbidden POST /customers '{"nonsense":1}' "POST /customers with an invalid body (403 before 400)"
forbidden PATCH "/customers/Customer:$(uuid4)" '{"fullName":"x"}' "PATCH an unknown customer (403 before 404)"
api GET "/customers?platformCustomerId=$TAG-view"
jis .totalCount 0 "view token: nothing created"
api GET "/customers/$c1"
jis . "$c1_now" "view token: nothing changed"
api GET "/customers/$c3"
is_status 200 "view token: nothing deleted"

# --- authentication ---------------------------------------------------------------------------
for call in "GET /customers" "GET /customers/$c1" "PATCH /customers/$c1" "DELETE /customers/$c1" "POST /customers"; do
    # shellcheck disable=SC2086 # METHOD PATH, split on purpose
    api --noauth ${call} '{}'
    is_error 401 UNAUTHORIZED "no credentials: $call"
done
api --as "$XB_CLIENT_ID" wrong-secret-wrong-secret-wrong-secret-wrong GET /customers
is_error 401 UNAUTHORIZED "wrong secret: GET /customers"

# --- a fresh platform: exact paging and isolation ---------------------------------------------
if new_platform t60; then
    pass "second platform created with xborderctl"
    p_plat=$NP_ID p_dom=$NP_DOMAIN
    use_creds "$NP_CLIENT_ID" "$NP_SECRET"

    api GET /customers
    jis . '{"data":[],"hasMore":false,"nextCursor":null,"totalCount":0}' "fresh platform: no customers"

    # The same platformCustomerId and ppvName as on the main platform are free here.
    mk_customer "$(cust_body "$TAG-c2" INDIVIDUAL 'Other Platform Person' "{\"ppvName\":$(jstr "$c1_ppv")}")"
    customer_shape "second platform: POST /customers" "$p_plat" "$p_dom"
    jis .ppvAddress "$(jstr "$c1_ppv@$p_dom")" "second platform: ppvName used on the main platform is free here, on its own domain"
    all="[$CBODY]"
    # 24 customers in all: types and KYC statuses mixed.
    types=(INDIVIDUAL ENTITY)
    kycs=(APPROVED PENDING REJECTED)
    for i in $(seq 1 23); do
        mk_customer "$(cust_body "$TAG-pg-$i" "${types[i % 2]}" "Page Person $i" "{\"kycStatus\":\"${kycs[i % 3]}\"}")"
        all=$(jq -c --argjson c "$CBODY" '. + [$c]' <<<"$all")
    done
    want=$(newest_first "$all")
    walk "fresh platform, default limit" /customers '' 20 "$want"
    walk "fresh platform, limit=5" /customers 5 5 "$want"
    walk "fresh platform, limit=100" /customers 100 100 "$want"
    walk "fresh platform, limit=1" /customers 1 1 "$want"
    for ty in INDIVIDUAL ENTITY; do
        walk "fresh platform, customerType=$ty, limit=4" "/customers?customerType=$ty" 4 4 \
            "$(newest_first "$(jq -c --arg t "$ty" 'map(select(.customerType == $t))' <<<"$all")")"
    done
    for k in APPROVED PENDING REJECTED; do
        walk "fresh platform, kycStatus=$k, limit=3" "/customers?kycStatus=$k" 3 3 \
            "$(newest_first "$(jq -c --arg k "$k" 'map(select(.kycStatus == $k))' <<<"$all")")"
    done
    walk "fresh platform, ENTITY + PENDING" "/customers?customerType=ENTITY&kycStatus=PENDING" 2 2 \
        "$(newest_first "$(jq -c 'map(select(.customerType == "ENTITY" and .kycStatus == "PENDING"))' <<<"$all")")"

    api GET /customers?limit=20
    jis .data "$(jq -c 'sort_by([.createdAt, .id]) | reverse | .[0:20]' <<<"$all")" "fresh platform: listed rows are the full Customer objects"
    for c in 24 25 1000; do
        api GET "/customers?cursor=$c"
        is_status 200 "fresh platform: GET /customers?cursor=$c 200"
        jis . '{"data":[],"hasMore":false,"nextCursor":null,"totalCount":24}' "cursor=$c (at or past the end): empty page"
    done
    api GET '/customers?limit=3&cursor=22'
    jis '[.data[].id]' "$(jq -c '.[22:]' <<<"$want")" "limit=3&cursor=22: the last two"
    jis '{hasMore, nextCursor, totalCount}' '{"hasMore":false,"nextCursor":null,"totalCount":24}' "limit=3&cursor=22: the end"

    # A deleted customer leaves the list and totalCount.
    gone=$(jq -r '.[5]' <<<"$want")
    api DELETE "/customers/$gone"
    is_status 200 "fresh platform: DELETE one customer"
    walk "fresh platform after a delete, limit=7" /customers 7 7 "$(jq -c --arg g "$gone" 'map(select(. != $g))' <<<"$want")"

    # Isolation: the main platform's customers do not exist here.
    for id in "$c1" "$c2" "$d"; do
        api GET "/customers/$id"
        is_error 404 CUSTOMER_NOT_FOUND "other platform: GET a main-platform customer ($id)"
        api PATCH "/customers/$id" '{"fullName":"Hijack"}'
        is_error 404 CUSTOMER_NOT_FOUND "other platform: PATCH a main-platform customer ($id)"
        api POST "/customers/$id/ppv-address" "{\"ppvName\":\"${TAG,,}-hijack\"}"
        is_error 404 CUSTOMER_NOT_FOUND "other platform: ppv-address for a main-platform customer ($id)"
        api DELETE "/customers/$id"
        is_error 404 CUSTOMER_NOT_FOUND "other platform: DELETE a main-platform customer ($id)"
    done
    api GET "/customers?platformCustomerId=$c1_pcid2"
    jis '{data, totalCount}' '{"data":[],"totalCount":0}' "other platform: the main platform's platformCustomerId matches nothing here"
    api GET "/customers?platformCustomerId=$TAG-c2"
    jis '[.data[].platformId] | unique' "[\"Platform:$p_plat\"]" "other platform: its own customer with the shared platformCustomerId only"
    other_c=$(jr '.data[0].id')

    use_root
    api GET "/customers/$c1"
    jis . "$c1_now" "main platform: its customer untouched by the other platform"
    api GET "/customers/$other_c"
    is_error 404 CUSTOMER_NOT_FOUND "main platform: GET the other platform's customer"
    api PATCH "/customers/$other_c" '{"fullName":"Hijack"}'
    is_error 404 CUSTOMER_NOT_FOUND "main platform: PATCH the other platform's customer"
    api DELETE "/customers/$other_c"
    is_error 404 CUSTOMER_NOT_FOUND "main platform: DELETE the other platform's customer"
    api GET "/customers/$gone"
    is_error 404 CUSTOMER_NOT_FOUND "main platform: the other platform's deleted customer is 404, not 410"
    api GET "/customers?platformCustomerId=$TAG-c2"
    jis '[.data[].id]' "[\"$c2\"]" "main platform: its own customer with the shared platformCustomerId only"
    ids=()
    cursor=0
    while :; do
        api --nocheck GET "/customers?limit=100&cursor=$cursor"
        [[ $STATUS == 200 ]] || break
        mapfile -t -O "${#ids[@]}" ids < <(jr '.data[].id')
        [[ $(jr .hasMore) == true ]] || break
        cursor=$(jr .nextCursor)
    done
    joined=" ${ids[*]} "
    ok "$([[ $joined == *" $c1 "* && $joined != *" $other_c "* && $joined != *" $gone "* && $joined != *" $d "* ]] && echo 1)" \
        "main platform's full list has its customers, none of the other platform's, no deleted one"
else
    fail "second platform created with xborderctl"
fi
use_root

done_testing
