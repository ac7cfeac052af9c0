#!/usr/bin/env bash
# 61-external-accounts.t - POST /customers/external-accounts, GET
# /customers/external-accounts (list), GET and DELETE
# /customers/external-accounts/{accountId}: the masked ExternalAccount shape
# (the full numbers never come back), validation, EXTERNAL_ACCOUNT_EXISTS,
# paging walked to the end, 410 GONE once the owner is deleted, view-only
# permissions and isolation between platforms.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
no_plan

EXT_KEYS='id status customerId currency accountInfo platformAccountId createdAt updatedAt'
INFO_KEYS='accountType accountCategory bankName accountNumberLast4 routingNumberLast4'
EXT_RE="^ExternalAccount:${UUID4_RE#^}"
TAG=$(uniq_name t61)

# Every response body of this suite is kept, to prove that no full account
# or routing number ever comes back.
SEEN=$_API_TMP/seen-bodies
: >"$SEEN"
eval "$(declare -f api | sed '1s/^api /_t61_lib_api /')"
api() {
    _t61_lib_api "$@"
    printf '%s\n' "$BODY" >>"$SEEN"
}

# jstr STRING: STRING as a JSON string.
jstr() {
    jq -Rn --arg s "$1" '$s'
}

# rand_alnum N: N random digits and letters (the first one a letter, so
# that the value never occurs by chance in a timestamp or a uuid).
rand_alnum() {
    local s
    s=$(tr -dc 'A-Za-z0-9' </dev/urandom | head -c $(($1 - 1)))
    printf 'Q%s' "$s"
}

# rand_digits N: N random decimal digits.
rand_digits() {
    tr -dc '0-9' </dev/urandom | head -c "$1"
}

# ext_shape WHAT: the full shape of an ExternalAccount in $BODY.
ext_shape() {
    local what=$1
    has_keys "$BODY" "$EXT_KEYS" "$what: exact ExternalAccount keys"
    like "$(jr .id)" "$EXT_RE" "$what: id is ExternalAccount:<uuid4>"
    jis .status '"ACTIVE"' "$what: status ACTIVE"
    like "$(jr .customerId)" "^Customer:${UUID4_RE#^}" "$what: customerId is Customer:<uuid4>"
    like "$(jr .currency)" '^[A-Z]{3}$' "$what: currency is an ISO 4217 code"
    has_keys "$(j .accountInfo)" "$INFO_KEYS" "$what: exact accountInfo keys (no full numbers)"
    jok '.accountInfo.accountType == "CHECKING" or .accountInfo.accountType == "SAVINGS"' "$what: accountType CHECKING or SAVINGS"
    jok '.accountInfo.accountCategory == "PERSONAL" or .accountInfo.accountCategory == "BUSINESS"' "$what: accountCategory PERSONAL or BUSINESS"
    jok '(.accountInfo.bankName | type) == "string" and (.accountInfo.bankName | length) >= 1' "$what: bankName is a non-empty string"
    like "$(jr .accountInfo.accountNumberLast4)" '^[0-9A-Za-z]{4}$' "$what: accountNumberLast4 is four characters"
    like "$(jr .accountInfo.routingNumberLast4)" '^[0-9A-Za-z]{4}$' "$what: routingNumberLast4 is four characters"
    jok '(.platformAccountId | type) == "string" and (.platformAccountId | length) >= 1' "$what: platformAccountId is a non-empty string"
    like "$(jr .createdAt)" "$TS_RE" "$what: createdAt is UTC with milliseconds"
    like "$(jr .updatedAt)" "$TS_RE" "$what: updatedAt is UTC with milliseconds"
    ok "$(jr '.createdAt <= .updatedAt')" "$what: createdAt <= updatedAt"
}

# mk_customer [api options] PCID: a fresh INDIVIDUAL customer; sets CUST.
mk_customer() {
    local opts=()
    while [[ ${1:-} == --* ]]; do opts+=("$1" "$2" "$3"); shift 3; done
    api "${opts[@]}" POST /customers "{\"platformCustomerId\":$(jstr "$1"),\"customerType\":\"INDIVIDUAL\",\"fullName\":\"Ext Owner\"}"
    is_status 201 "POST /customers $1: 201"
    CUST=$(jr .id)
}

# ext_body CUSTOMER CURRENCY PLATFORM_ACCOUNT_ID ACCOUNT_NUMBER ROUTING [INFO_OVERRIDES_JSON]
ext_body() {
    local over=${6:-'{}'}
    jq -cn --arg c "$1" --arg cur "$2" --arg p "$3" --arg a "$4" --arg r "$5" --argjson o "$over" \
        '{customerId: $c, currency: $cur, platformAccountId: $p,
          accountInfo: ({accountType: "CHECKING", accountCategory: "PERSONAL", bankName: "First Test Bank",
                         accountNumber: $a, routingNumber: $r} + $o)}'
}

NUMBERS=()   # every full account and routing number sent in this run

# mk_ext [api options] CUSTOMER CURRENCY [INFO_OVERRIDES_JSON]: POST an
# external account with fresh random numbers, asserts 201.  Sets EXT,
# EBODY, EACCT, EROUT.
mk_ext() {
    local opts=() over
    while [[ ${1:-} == --* ]]; do opts+=("$1" "$2" "$3"); shift 3; done
    over=${3:-'{}'}
    EACCT=$(rand_alnum 16) EROUT=$(rand_alnum 9)
    NUMBERS+=("$EACCT" "$EROUT")
    api "${opts[@]}" POST /customers/external-accounts "$(ext_body "$1" "$2" "$TAG-acct-$RANDOM" "$EACCT" "$EROUT" "$over")"
    is_status 201 "POST /customers/external-accounts ($2): 201"
    EXT=$(jr .id)
    EBODY=$BODY
}

# walk WHAT PATH LIMIT PAGESIZE WANT_IDS_JSON: pages until hasMore is false,
# checking each page's rows, hasMore, nextCursor ("" at the end) and
# totalCount, then the ids of all pages together.
walk() { walk_pages "$@" '""'; }

newest_first() {
    jq -c 'sort_by([.createdAt, .id]) | reverse | map(.id)' <<<"$1"
}

# --- POST /customers/external-accounts ----------------------------------------------
mk_customer "$TAG-owner"
owner=$CUST
acct1=$(rand_digits 12)
rout1=$(rand_digits 9)
NUMBERS+=("$acct1" "$rout1")
api POST /customers/external-accounts "$(ext_body "$owner" USD "$TAG-pa1" "$acct1" "$rout1" \
    '{"accountType":"SAVINGS","accountCategory":"BUSINESS","bankName":"Banco de Prueba"}')"
is_status 201 "POST /customers/external-accounts: 201"
ext_shape "POST /customers/external-accounts"
e1=$(jr .id) e1_body=$BODY
jis '{customerId, currency, platformAccountId}' \
    "{\"customerId\":\"$owner\",\"currency\":\"USD\",\"platformAccountId\":\"$TAG-pa1\"}" "POST: customerId, currency, platformAccountId as sent"
jis .accountInfo "{\"accountType\":\"SAVINGS\",\"accountCategory\":\"BUSINESS\",\"bankName\":\"Banco de Prueba\",\"accountNumberLast4\":\"${acct1: -4}\",\"routingNumberLast4\":\"${rout1: -4}\"}" \
    "POST: accountInfo masked to the last four characters"
jis '.createdAt == .updatedAt' true "POST: createdAt == updatedAt"

# Boundaries that are accepted, and letters kept as sent.
a4=$(rand_alnum 4) r4=$(rand_alnum 4)
NUMBERS+=("$a4" "$r4")
api POST /customers/external-accounts "$(ext_body "$owner" EUR "p" "$a4" "$r4")"
is_status 201 "4-character account and routing numbers, 1-character platformAccountId: 201"
jis '.accountInfo | {accountNumberLast4, routingNumberLast4}' "{\"accountNumberLast4\":\"$a4\",\"routingNumberLast4\":\"$r4\"}" \
    "4-character numbers: last4 is the whole (case kept)"
a34=$(rand_alnum 34) r11=$(rand_alnum 11)
NUMBERS+=("$a34" "$r11")
pa128=$(printf 'a%.0s' {1..128})
bank140=$(printf 'b%.0s' {1..140})
api POST /customers/external-accounts "$(ext_body "$owner" MXN "$pa128" "$a34" "$r11" "{\"bankName\":\"$bank140\"}")"
is_status 201 "34-character account, 11-character routing, 128-character platformAccountId, 140-character bankName: 201"
ext_shape "POST with the longest values"
jis '{platformAccountId, bank: .accountInfo.bankName, a: .accountInfo.accountNumberLast4, r: .accountInfo.routingNumberLast4}' \
    "{\"platformAccountId\":\"$pa128\",\"bank\":\"$bank140\",\"a\":\"${a34: -4}\",\"r\":\"${r11: -4}\"}" "longest values kept, numbers masked"
bank140u=$(printf 'ñ%.0s' {1..140})
mk_ext "$owner" USD "{\"bankName\":\"$bank140u\"}"
jis .accountInfo.bankName "\"$bank140u\"" "bankName of 140 two-byte characters accepted"

# --- conflicts --------------------------------------------------------------------------
api POST /customers/external-accounts "$(ext_body "$owner" USD "$TAG-pa1-again" "$acct1" "$rout1")"
is_error 409 EXTERNAL_ACCOUNT_EXISTS "the same number and routing for the same customer and currency"
api POST /customers/external-accounts "$(ext_body "$owner" USD "$TAG-pa1-again" "$acct1" "$rout1" '{"accountType":"CHECKING","bankName":"Other Name"}')"
is_error 409 EXTERNAL_ACCOUNT_EXISTS "the same numbers with another bankName and accountType"
api POST /customers/external-accounts "$(ext_body "$owner" EUR "$TAG-pa1-eur" "$acct1" "$rout1")"
is_status 201 "the same numbers in another currency: 201"
r_other=$(rand_digits 9)
NUMBERS+=("$r_other")
api POST /customers/external-accounts "$(ext_body "$owner" USD "$TAG-pa1-rout" "$acct1" "$r_other")"
is_status 201 "the same account number with another routing number: 201"
mk_customer "$TAG-owner2"
owner2=$CUST
api POST /customers/external-accounts "$(ext_body "$owner2" USD "$TAG-pa1-o2" "$acct1" "$rout1")"
is_status 201 "the same numbers for another customer: 201"

# --- validation ---------------------------------------------------------------------------
# bad_ext BODY FIELD WHAT: 400 naming FIELD.
bad_ext() {
    api POST /customers/external-accounts "$1"
    is_error 400 INVALID_REQUEST "POST external-accounts $3"
    has_details "$2" "POST external-accounts $3: details.$2"
}
GOOD=$(ext_body "$owner" USD "$TAG-bad" "$(rand_digits 12)" "$(rand_digits 9)")
for f in customerId currency platformAccountId accountInfo; do
    bad_ext "$(jq -c --arg f "$f" 'del(.[$f])' <<<"$GOOD")" "$f" "without $f"
done
for f in accountType accountCategory bankName accountNumber routingNumber; do
    bad_ext "$(jq -c --arg f "$f" 'del(.accountInfo[$f])' <<<"$GOOD")" "accountInfo.$f" "without accountInfo.$f"
done
# set FILTER VALUE_JSON FIELD WHAT
bad_set() {
    bad_ext "$(jq -c --argjson v "$2" "$1 = \$v" <<<"$GOOD")" "$3" "$4"
}
bad_set .customerId '"abc"' customerId "with customerId abc"
bad_set .customerId "\"${owner#Customer:}\"" customerId "with a raw uuid customerId"
bad_set .customerId "\"ExternalAccount:${owner#Customer:}\"" customerId "with an ExternalAccount: customerId"
bad_set .customerId '5' customerId "with a numeric customerId"
bad_set .currency '"usd"' currency "with currency usd"
bad_set .currency '"US"' currency "with currency US"
bad_set .currency '"USDX"' currency "with currency USDX"
bad_set .currency '""' currency "with an empty currency"
bad_set .currency 'null' currency "with a null currency"
bad_set .platformAccountId '""' platformAccountId "with an empty platformAccountId"
bad_set .platformAccountId "\"${pa128}x\"" platformAccountId "with a platformAccountId of 129 characters"
bad_set .platformAccountId '12' platformAccountId "with a numeric platformAccountId"
bad_set .accountInfo '"x"' accountInfo "with a string accountInfo"
bad_set .accountInfo 'null' accountInfo "with a null accountInfo"
bad_set .accountInfo.accountType '"checking"' accountInfo.accountType "with accountType checking"
bad_set .accountInfo.accountType '"CURRENT"' accountInfo.accountType "with accountType CURRENT"
jok '.details["accountInfo.accountType"] | test("CHECKING") and test("SAVINGS")' "bad accountType: the rule lists CHECKING and SAVINGS"
bad_set .accountInfo.accountCategory '"CORPORATE"' accountInfo.accountCategory "with accountCategory CORPORATE"
jok '.details["accountInfo.accountCategory"] | test("PERSONAL") and test("BUSINESS")' "bad accountCategory: the rule lists PERSONAL and BUSINESS"
bad_set .accountInfo.bankName '""' accountInfo.bankName "with an empty bankName"
bad_set .accountInfo.bankName "\"${bank140}x\"" accountInfo.bankName "with a bankName of 141 characters"
for a in 123 "$(rand_digits 35)" '1234-5678' '1234 5678' '12345678é' ''; do
    bad_set .accountInfo.accountNumber "$(jstr "$a")" accountInfo.accountNumber "with accountNumber '$a'"
done
bad_set .accountInfo.accountNumber '123456789' accountInfo.accountNumber "with a numeric accountNumber"
for r in 123 "$(rand_digits 12)" '0210-0002' ''; do
    bad_set .accountInfo.routingNumber "$(jstr "$r")" accountInfo.routingNumber "with routingNumber '$r'"
done
bad_set .status '"ACTIVE"' status "with status (extra property)"
bad_set .id "\"ExternalAccount:$(uuid4)\"" id "with id (extra property)"
bad_set .accountInfo.iban '"DE89370400440532013000"' accountInfo.iban "with accountInfo.iban (extra nested property)"
bad_set .accountInfo.accountNumberLast4 '"1234"' accountInfo.accountNumberLast4 "with accountInfo.accountNumberLast4"
api POST /customers/external-accounts '[]'
is_error 400 INVALID_REQUEST "POST external-accounts with an array body"
api POST /customers/external-accounts '{"customerId":'
is_error 400 INVALID_REQUEST "POST external-accounts with malformed JSON"
api --ctype text/plain POST /customers/external-accounts "$GOOD"
is_error 415 UNSUPPORTED_MEDIA_TYPE "POST external-accounts as text/plain"

api POST /customers/external-accounts "$(jq -c --arg c "Customer:$(uuid4)" '.customerId = $c' <<<"$GOOD")"
is_error 404 CUSTOMER_NOT_FOUND "POST external-accounts for an unknown customer"

api GET "/customers/external-accounts?customerId=$owner&limit=100"
jok --arg p "$TAG-bad" 'all(.data[]; .platformAccountId != $p)' "no refused POST created an account"

# --- GET /customers/external-accounts/{accountId} ---------------------------------------------
api GET "/customers/external-accounts/$e1"
is_status 200 "GET external-accounts/{id}: 200"
ext_shape "GET external-accounts/{id}"
jis . "$e1_body" "GET external-accounts/{id}: same as created"
raw=${e1#ExternalAccount:}
for bad in abc 'ExternalAccount:' 'ExternalAccount:abc' "$raw" "Customer:$raw" "InternalAccount:$raw" \
    "externalaccount:$raw" "ExternalAccount:${raw}0" "ExternalAccount:$(tr -d - <<<"$raw")"; do
    api GET "/customers/external-accounts/$bad"
    is_error 400 INVALID_REQUEST "GET external-accounts/$bad"
    has_details accountId "GET external-accounts/$bad: details.accountId"
done
api GET "/customers/external-accounts/ExternalAccount:$(uuid4)"
is_error 404 NOT_FOUND "GET external-accounts/<unknown uuid>"

# --- GET /customers/external-accounts (list) -------------------------------------------------
mk_customer "$TAG-pager"
pager=$CUST
all='[]'
curs=(USD EUR MXN)
for i in $(seq 0 12); do
    mk_ext "$pager" "${curs[i % 3]}"
    all=$(jq -c --argjson e "$EBODY" '. + [$e]' <<<"$all")
done
want=$(newest_first "$all")
walk "customerId filter, default limit" "/customers/external-accounts?customerId=$pager" '' 10 "$want"
walk "customerId filter, limit=4" "/customers/external-accounts?customerId=$pager" 4 4 "$want"
walk "customerId filter, limit=13" "/customers/external-accounts?customerId=$pager" 13 13 "$want"
walk "customerId filter, limit=100" "/customers/external-accounts?customerId=$pager" 100 100 "$want"
for cur in USD EUR MXN; do
    walk "customerId + currency=$cur, limit=2" "/customers/external-accounts?customerId=$pager&currency=$cur" 2 2 \
        "$(newest_first "$(jq -c --arg c "$cur" 'map(select(.currency == $c))' <<<"$all")")"
done
api GET "/customers/external-accounts?customerId=$pager&limit=100"
jis .data "$(jq -c 'sort_by([.createdAt, .id]) | reverse' <<<"$all")" "list rows are the full masked ExternalAccount objects"
api GET "/customers/external-accounts?customerId=$pager&currency=JPY"
jis . '{"data":[],"hasMore":false,"nextCursor":"","totalCount":0}' "currency=JPY (well-formed, unused): empty, nextCursor \"\""
for c in 13 14 500; do
    api GET "/customers/external-accounts?customerId=$pager&cursor=$c"
    is_status 200 "GET external-accounts?cursor=$c: 200"
    jis . '{"data":[],"hasMore":false,"nextCursor":"","totalCount":13}' "cursor=$c (at or past the end): empty page"
done
api GET "/customers/external-accounts?customerId=$pager&limit=5&cursor=11"
jis '[.data[].id]' "$(jq -c '.[11:]' <<<"$want")" "limit=5&cursor=11: the last two"
jis '{hasMore, nextCursor, totalCount}' '{"hasMore":false,"nextCursor":"","totalCount":13}' "limit=5&cursor=11: the end"

api GET /customers/external-accounts
is_status 200 "GET external-accounts (no filter): 200"
has_keys "$BODY" 'data hasMore nextCursor totalCount' "GET external-accounts: list envelope keys"
jok '(.data | length) <= 10' "no filter: at most 10 rows by default"
jok 'all(.data[]; (keys | sort) == ("accountInfo createdAt currency customerId id platformAccountId status updatedAt" | split(" "))
     and (.accountInfo | keys | sort) == ("accountCategory accountNumberLast4 accountType bankName routingNumberLast4" | split(" ")))' \
    "no filter: every item has exactly the masked ExternalAccount keys"
jok '[.data[] | [.createdAt, .id]] as $a | $a == ($a | sort | reverse)' "no filter: newest first"
jok '.totalCount >= 13 + 7' "no filter: totalCount counts this run's accounts at least"

for q in customerId=abc "customerId=${owner#Customer:}" 'customerId=' "customerId=$owner&customerId=$owner"; do
    api GET "/customers/external-accounts?$q"
    is_error 400 INVALID_REQUEST "GET external-accounts?$q"
    has_details customerId "GET external-accounts?$q: details.customerId"
done
for q in currency=usd currency=US currency=USDD 'currency=' 'currency=USD&currency=EUR'; do
    api GET "/customers/external-accounts?$q"
    is_error 400 INVALID_REQUEST "GET external-accounts?$q"
    has_details currency "GET external-accounts?$q: details.currency"
done
for q in limit=0 limit=101 limit=abc 'limit=' limit=-1 limit=2.5 'limit=3&limit=3' limit=99999999999999999999; do
    api GET "/customers/external-accounts?$q"
    is_error 400 INVALID_REQUEST "GET external-accounts?$q"
    has_details limit "GET external-accounts?$q: details.limit"
done
for q in cursor=abc 'cursor=' cursor=-1 cursor=1.0 cursor=1e3 'cursor=2&cursor=2' cursor=99999999999999999999; do
    api GET "/customers/external-accounts?$q"
    is_error 400 INVALID_REQUEST "GET external-accounts?$q"
    has_details cursor "GET external-accounts?$q: details.cursor"
done

# --- DELETE /customers/external-accounts/{accountId}?customerId= ---------------------------------
mk_ext "$owner" EUR
del=$EXT del_acct=$EACCT del_rout=$EROUT
api DELETE "/customers/external-accounts/$del"
is_error 400 INVALID_REQUEST "DELETE without customerId"
has_details customerId "DELETE without customerId: details.customerId"
api DELETE "/customers/external-accounts/$del?customerId="
is_error 400 INVALID_REQUEST "DELETE with an empty customerId"
has_details customerId "DELETE with an empty customerId: details.customerId"
api DELETE "/customers/external-accounts/$del?customerId=abc"
is_error 400 INVALID_REQUEST "DELETE with customerId abc"
has_details customerId "DELETE with customerId abc: details.customerId"
api DELETE "/customers/external-accounts/$del?customerId=$owner&customerId=$owner"
is_error 400 INVALID_REQUEST "DELETE with customerId twice"
api DELETE "/customers/external-accounts/ExternalAccount:abc?customerId=$owner"
is_error 400 INVALID_REQUEST "DELETE ExternalAccount:abc"
has_details accountId "DELETE ExternalAccount:abc: details.accountId"
api DELETE "/customers/external-accounts/${del#ExternalAccount:}?customerId=$owner"
is_error 400 INVALID_REQUEST "DELETE by raw uuid"
has_details accountId "DELETE by raw uuid: details.accountId"
api DELETE "/customers/external-accounts/$del?customerId=$owner2"
is_error 404 NOT_FOUND "DELETE with another (live) customer's id"
api DELETE "/customers/external-accounts/$del?customerId=Customer:$(uuid4)"
is_error 404 NOT_FOUND "DELETE with an unknown customer's id"
api DELETE "/customers/external-accounts/ExternalAccount:$(uuid4)?customerId=$owner"
is_error 404 NOT_FOUND "DELETE an unknown account"
api GET "/customers/external-accounts/$del"
is_status 200 "the refused DELETEs left the account"

api DELETE "/customers/external-accounts/$del?customerId=$owner"
is_status 200 "DELETE external-accounts/{id}?customerId=: 200"
jis . "{\"deleted\":true,\"accountId\":\"$del\"}" "DELETE: exactly {deleted: true, accountId}"
api DELETE "/customers/external-accounts/$del?customerId=$owner"
is_error 404 NOT_FOUND "DELETE an already deleted account"
api GET "/customers/external-accounts/$del"
is_error 404 NOT_FOUND "GET a deleted account"
api GET "/customers/external-accounts?customerId=$owner&limit=100"
jok --arg d "$del" 'all(.data[]; .id != $d)' "the deleted account left the list"
api POST /customers/external-accounts "$(ext_body "$owner" EUR "$TAG-readd" "$del_acct" "$del_rout")"
is_status 201 "the deleted account's numbers can be attached again: 201"
isnt "$(jr .id)" "$del" "re-attached: a new account id"

# --- the owner deleted: 410 GONE -----------------------------------------------------------------
mk_customer "$TAG-leaver"
leaver=$CUST
mk_ext "$leaver" USD
l1=$EXT
mk_ext "$leaver" MXN
l2=$EXT
api DELETE "/customers/$leaver"
is_status 200 "DELETE the owning customer: 200"
api GET "/customers/external-accounts/$l1"
is_error 410 GONE "GET an account whose owner is deleted"
api DELETE "/customers/external-accounts/$l1?customerId=$leaver"
is_error 410 GONE "DELETE an account whose owner is deleted"
api DELETE "/customers/external-accounts/$l2?customerId=$leaver"
is_error 410 GONE "DELETE the owner's second account"
api POST /customers/external-accounts "$(ext_body "$leaver" EUR "$TAG-late" "$(rand_digits 10)" "$(rand_digits 9)")"
is_error 410 GONE "POST an account for a deleted customer"
api GET "/customers/external-accounts?customerId=$leaver"
jok '.data == [] and .totalCount == 0' "a deleted customer's accounts are not listed"

# --- permissions: a view-only token -----------------------------------------------------------------
create_token "$(uniq_name t61-view)" '["view"]'
v_tok=$TOK_ID v_id=$TOK_CLIENT_ID v_secret=$TOK_SECRET
at_exit "use_root; api --nocheck DELETE /tokens/$v_tok"
api --as "$v_id" "$v_secret" GET "/customers/external-accounts?customerId=$owner"
is_status 200 "view token: GET external-accounts 200"
api --as "$v_id" "$v_secret" GET "/customers/external-accounts/$e1"
is_status 200 "view token: GET external-accounts/{id} 200"
jis . "$e1_body" "view token: the same account"
api --as "$v_id" "$v_secret" POST /customers/external-accounts "$(ext_body "$owner" USD "$TAG-view" "$(rand_digits 10)" "$(rand_digits 9)")"
is_error 403 FORBIDDEN "view token: POST external-accounts"
jis .details.requiredAccessLevel '"manage"' "view token: POST: details.requiredAccessLevel manage"
api --as "$v_id" "$v_secret" DELETE "/customers/external-accounts/$e1?customerId=$owner"
is_error 403 FORBIDDEN "view token: DELETE external-accounts/{id}"
jis .details.requiredAccessLevel '"manage"' "view token: DELETE: details.requiredAccessLevel manage"
api GET "/customers/external-accounts/$e1"
jis . "$e1_body" "view token: nothing deleted"

api --noauth GET /customers/external-accounts
is_error 401 UNAUTHORIZED "no credentials: GET external-accounts"
api --noauth GET "/customers/external-accounts/$e1"
is_error 401 UNAUTHORIZED "no credentials: GET external-accounts/{id}"
api --noauth POST /customers/external-accounts "$GOOD"
is_error 401 UNAUTHORIZED "no credentials: POST external-accounts"
api --noauth DELETE "/customers/external-accounts/$e1?customerId=$owner"
is_error 401 UNAUTHORIZED "no credentials: DELETE external-accounts/{id}"

# --- isolation: a second platform ---------------------------------------------------------------------
if new_platform t61; then
    pass "second platform created with xborderctl"
    use_creds "$NP_CLIENT_ID" "$NP_SECRET"
    api GET /customers/external-accounts
    jis . '{"data":[],"hasMore":false,"nextCursor":"","totalCount":0}' "fresh platform: no external accounts, nextCursor \"\""

    mk_customer "$TAG-p2owner"
    p_owner=$CUST
    mk_ext "$p_owner" USD
    p_ext=$EXT p_body=$EBODY
    # The main platform's numbers are free here.
    api POST /customers/external-accounts "$(ext_body "$p_owner" USD "$TAG-p2dup" "$acct1" "$rout1")"
    is_status 201 "other platform: the main platform's numbers for its own customer: 201"
    p_ext2=$(jr .id)

    api GET "/customers/external-accounts/$e1"
    is_error 404 NOT_FOUND "other platform: GET a main-platform account"
    api GET "/customers/external-accounts/$l1"
    is_error 404 NOT_FOUND "other platform: GET a main-platform account whose owner is deleted (404, not 410)"
    api DELETE "/customers/external-accounts/$e1?customerId=$owner"
    is_error 404 NOT_FOUND "other platform: DELETE a main-platform account with its owner's id"
    api DELETE "/customers/external-accounts/$e1?customerId=$p_owner"
    is_error 404 NOT_FOUND "other platform: DELETE a main-platform account with its own customer's id"
    api DELETE "/customers/external-accounts/$l1?customerId=$leaver"
    is_error 404 NOT_FOUND "other platform: DELETE a main-platform account of a deleted owner (404, not 410)"
    api POST /customers/external-accounts "$(ext_body "$owner" USD "$TAG-hijack" "$(rand_digits 10)" "$(rand_digits 9)")"
    is_error 404 CUSTOMER_NOT_FOUND "other platform: POST an account for a main-platform customer"
    api POST /customers/external-accounts "$(ext_body "$leaver" USD "$TAG-hijack" "$(rand_digits 10)" "$(rand_digits 9)")"
    is_error 404 CUSTOMER_NOT_FOUND "other platform: POST an account for a deleted main-platform customer (404, not 410)"
    api GET "/customers/external-accounts?customerId=$owner"
    jok '.data == [] and .totalCount == 0 and .nextCursor == ""' "other platform: filtering on a main-platform customer shows nothing"
    walk "other platform: its own accounts only" /customers/external-accounts 1 1 \
        "$(jq -nc --arg a "$p_ext2" --arg b "$p_ext" '[$a, $b]')"

    use_root
    api GET "/customers/external-accounts/$e1"
    jis . "$e1_body" "main platform: its account untouched"
    api GET "/customers/external-accounts/$p_ext"
    is_error 404 NOT_FOUND "main platform: GET the other platform's account"
    api DELETE "/customers/external-accounts/$p_ext?customerId=$p_owner"
    is_error 404 NOT_FOUND "main platform: DELETE the other platform's account"
    api GET "/customers/external-accounts?customerId=$p_owner"
    jok '.data == [] and .totalCount == 0' "main platform: filtering on the other platform's customer shows nothing"
    seen=()
    cursor=0
    while :; do
        api --nocheck GET "/customers/external-accounts?limit=100&cursor=$cursor"
        [[ $STATUS == 200 ]] || break
        mapfile -t -O "${#seen[@]}" seen < <(jr '.data[].id')
        [[ $(jr .hasMore) == true ]] || break
        cursor=$(jr .nextCursor)
    done
    joined=" ${seen[*]} "
    ok "$([[ $joined == *" $e1 "* && $joined != *" $p_ext "* && $joined != *" $p_ext2 "* && $joined != *" $del "* ]] && echo 1)" \
        "main platform's full list has its accounts, none of the other platform's, no deleted one"
    api --as "$NP_CLIENT_ID" "$NP_SECRET" GET "/customers/external-accounts/$p_ext"
    jis . "$p_body" "other platform: its account untouched"
else
    fail "second platform created with xborderctl"
fi
use_root

# --- the full numbers never came back -----------------------------------------------------------------
leaks=()
for n in "${NUMBERS[@]}"; do
    # A 4-character number is its own last four: it comes back by design.
    ((${#n} > 4)) || continue
    grep -qF -- "$n" "$SEEN" && leaks+=("$n")
done
is "${leaks[*]}" "" "no response body of this suite contains a full account or routing number (${#NUMBERS[@]} numbers, $(wc -l <"$SEEN") bodies)"

done_testing
