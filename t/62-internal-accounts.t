#!/usr/bin/env bash
# 62-internal-accounts.t - GET /customers/internal-accounts, GET
# /platform/internal-accounts, POST /sandbox/internal-accounts/{accountId}/fund:
# one account per customer per supported currency (also when a currency
# is added), the InternalAccount shape, exact balances, funding validation
# and X-Platform-Id, 410 for a deleted customer's account,
# CURRENCY_NOT_ENABLED, paging walked to the end, view-only permissions and
# isolation.  Configuration changes happen on fresh platforms only.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
no_plan

INT_KEYS='id customerId currency balance createdAt updatedAt'
INT_RE="^InternalAccount:${UUID4_RE#^}"
TAG=$(uniq_name t62)

jstr() {
    jq -Rn --arg s "$1" '$s'
}

# int_shape WHAT [JSON]: the full shape of an InternalAccount (default $BODY).
int_shape() {
    local what=$1 b=${2-$BODY}
    has_keys "$b" "$INT_KEYS" "$what: exact InternalAccount keys"
    like "$(jr .id "$b")" "$INT_RE" "$what: id is InternalAccount:<uuid4>"
    jok '.customerId == null or (.customerId | test("^Customer:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"))' \
        "$what: customerId is Customer:<uuid4> or null" "$b"
    like "$(jr .currency "$b")" '^[A-Z]{3}$' "$what: currency is an ISO 4217 code"
    has_keys "$(j .balance "$b")" 'amountMinor currencyCode' "$what: balance is a MoneyAmount (exact keys)"
    jok '.balance.currencyCode == .currency' "$what: balance.currencyCode is the account's currency" "$b"
    jok '(.balance.amountMinor | type) == "string" and (.balance.amountMinor | test("^(0|[1-9][0-9]*)$"))' \
        "$what: balance.amountMinor is a string of digits" "$b"
    like "$(jr .createdAt "$b")" "$TS_RE" "$what: createdAt is UTC with milliseconds"
    like "$(jr .updatedAt "$b")" "$TS_RE" "$what: updatedAt is UTC with milliseconds"
    ok "$(jr '.createdAt <= .updatedAt' "$b")" "$what: createdAt <= updatedAt"
}

# mk_customer [api options] PCID: a fresh customer; sets CUST and CBODY.
mk_customer() {
    local opts=()
    while [[ ${1:-} == --* ]]; do opts+=("$1" "$2" "$3"); shift 3; done
    api "${opts[@]}" POST /customers "{\"platformCustomerId\":$(jstr "$1"),\"customerType\":\"ENTITY\",\"fullName\":\"Int Owner\"}"
    is_status 201 "POST /customers $1: 201"
    CUST=$(jr .id)
    CBODY=$BODY
}

# acct_of CUSTOMER CURRENCY: the id of the customer's account (no assertion).
acct_of() {
    api --nocheck GET "/customers/internal-accounts?customerId=$1&currency=$2"
    jr '.data[0].id // empty'
}

# fund [api options] ACCOUNT AMOUNT_JSON: POST .../fund.
fund() {
    local opts=()
    while [[ ${1:-} == --* ]]; do
        case $1 in
            --as) opts+=("$1" "$2" "$3"); shift 3 ;;
            *) opts+=("$1"); shift ;;
        esac
    done
    api "${opts[@]}" POST "/sandbox/internal-accounts/$1/fund" "{\"amountMinor\":$2}" "${@:3}"
}

# walk WHAT PATH LIMIT PAGESIZE WANT_IDS_JSON: pages until hasMore is false,
# checking rows, hasMore, nextCursor (null at the end) and totalCount.
walk() { walk_pages "$@" null; }

newest_first() {
    jq -c 'sort_by([.createdAt, .id]) | reverse | map(.id)' <<<"$1"
}

# --- accounts made with the customer -------------------------------------------------
mk_customer "$TAG-a"
ca=$CUST
api GET "/customers/internal-accounts?customerId=$ca"
is_status 200 "GET /customers/internal-accounts?customerId=: 200"
has_keys "$BODY" 'data hasMore nextCursor totalCount' "internal-accounts: list envelope keys"
jis '[.data[].currency] | sort' '["EUR","MXN","USD"]' "a new customer has one account per supported currency: USD, EUR, MXN"
jis '{totalCount, hasMore, nextCursor}' '{"totalCount":3,"hasMore":false,"nextCursor":null}' "three accounts, one page, nextCursor null"
for i in 0 1 2; do
    int_shape "new customer's account $i" "$(j ".data[$i]")"
done
jok --arg c "$ca" 'all(.data[]; .customerId == $c and .balance.amountMinor == "0")' "every new account: this customer's, balance \"0\""
jok '[.data[].id] | unique | length == 3' "three distinct account ids"
jok '[.data[] | [.createdAt, .id]] as $a | $a == ($a | sort | reverse)' "ordered createdAt desc, id desc"
accts_a=$(j .data)
usd=$(jq -r '.[] | select(.currency == "USD") | .id' <<<"$accts_a")
eur=$(jq -r '.[] | select(.currency == "EUR") | .id' <<<"$accts_a")
mxn=$(jq -r '.[] | select(.currency == "MXN") | .id' <<<"$accts_a")
usd_body=$(jq -c '.[] | select(.currency == "USD")' <<<"$accts_a")

api GET "/customers/internal-accounts?customerId=$ca&currency=EUR"
jis '[.data[].id]' "[\"$eur\"]" "currency=EUR: only the EUR account"
jis .totalCount 1 "currency=EUR: totalCount 1"
api GET "/customers/internal-accounts?customerId=$ca&currency=JPY"
jis . '{"data":[],"hasMore":false,"nextCursor":null,"totalCount":0}' "currency=JPY (well-formed, unused): empty"

# --- funding ---------------------------------------------------------------------------
sleep 0.01
fund "$usd" 250000
is_status 200 "fund USD 250000: 200"
int_shape "fund response"
jis .id "\"$usd\"" "fund: the same account"
jis .balance '{"currencyCode":"USD","amountMinor":"250000"}' "fund: balance 250000"
jis '{customerId, currency, createdAt}' "$(j '{customerId, currency, createdAt}' "$usd_body")" "fund: customerId, currency, createdAt unchanged"
ok "$(jq -r --arg u "$(jr .updatedAt "$usd_body")" '.updatedAt > $u' <<<"$BODY")" "fund: updatedAt advanced"
fund "$usd" 1
jis .balance.amountMinor '"250001"' "fund 1 more: 250001"
fund "$usd" 100000000000
jis .balance.amountMinor '"100000250001"' "fund the maximum 100000000000: 100000250001"
fund "$usd" 100000000000
jis .balance.amountMinor '"200000250001"' "fund the maximum again: balances accumulate past one funding's maximum"
fund "$eur" 99
jis .balance '{"currencyCode":"EUR","amountMinor":"99"}' "fund EUR 99: its own balance"
fund "$usd" 7 -H "X-Platform-Id: $XB_PLATFORM_ID"
is_status 200 "fund with X-Platform-Id = the credentials' platform: 200"
jis .balance.amountMinor '"200000250008"' "fund with X-Platform-Id: 200000250008"
api GET "/customers/internal-accounts?customerId=$ca"
jis '[.data[] | {(.currency): .balance.amountMinor}] | add' '{"USD":"200000250008","EUR":"99","MXN":"0"}' \
    "readback: USD 200000250008, EUR 99, MXN 0"
acct_after=$BODY

# Concurrent fundings of one account add up exactly.
for i in $(seq 1 8); do
    curl -sk -o /dev/null -u "$XB_CLIENT_ID:$XB_CLIENT_SECRET" -H 'Content-Type: application/json' \
        -X POST -d '{"amountMinor":1000}' "$XB_BASE_URL/sandbox/internal-accounts/$mxn/fund" &
done
wait
api GET "/customers/internal-accounts?customerId=$ca&currency=MXN"
jis '.data[0].balance.amountMinor' '"8000"' "8 concurrent fundings of 1000: MXN balance 8000"

# Idempotency-Key: a replayed funding moves money once.
key=$(uniq_name t62-fund)
fund "$eur" 1000 -H "Idempotency-Key: $key"
is_status 200 "fund EUR 1000 with an Idempotency-Key: 200"
jis .balance.amountMinor '"1099"' "fund with an Idempotency-Key: 1099"
first=$BODY
fund "$eur" 1000 -H "Idempotency-Key: $key"
is_status 200 "the same funding replayed with the same key: 200"
jis . "$first" "replay: the first answer, unchanged"
is_header Idempotent-Replayed true "replay: Idempotent-Replayed: true"
fund "$eur" 2000 -H "Idempotency-Key: $key"
is_error 409 IDEMPOTENCY_KEY_REUSED "the same key with another amount"
api GET "/customers/internal-accounts?customerId=$ca&currency=EUR"
jis '.data[0].balance.amountMinor' '"1099"' "the replay and the reused key moved nothing more (1099)"
acct_after=$(jq -c '(.data[] | select(.currency == "EUR") | .balance.amountMinor) |= "1099"' <<<"$acct_after")

# --- funding validation -----------------------------------------------------------------------
for a in 0 -1 100000000001 1.5 '"100"' null true '[]' '{}' 99999999999999999999; do
    fund "$usd" "$a"
    is_error 400 INVALID_REQUEST "fund amountMinor $a"
    has_details amountMinor "fund amountMinor $a: details.amountMinor"
done
api POST "/sandbox/internal-accounts/$usd/fund" '{}'
is_error 400 INVALID_REQUEST "fund without amountMinor"
has_details amountMinor "fund without amountMinor: details.amountMinor"
api POST "/sandbox/internal-accounts/$usd/fund" '{"amountMinor":5,"currency":"USD"}'
is_error 400 INVALID_REQUEST "fund with an extra property"
has_details currency "fund with an extra property: details.currency"
api POST "/sandbox/internal-accounts/$usd/fund" '[5]'
is_error 400 INVALID_REQUEST "fund with an array body"
api --ctype text/plain POST "/sandbox/internal-accounts/$usd/fund" '{"amountMinor":5}'
is_error 415 UNSUPPORTED_MEDIA_TYPE "fund as text/plain"
raw=${usd#InternalAccount:}
for bad in abc 'InternalAccount:' 'InternalAccount:abc' "$raw" "ExternalAccount:$raw" "Customer:$raw" "InternalAccount:${raw}0"; do
    fund "$bad" 5
    is_error 400 INVALID_REQUEST "fund /sandbox/internal-accounts/$bad"
    has_details accountId "fund $bad: details.accountId"
done
fund "InternalAccount:$(uuid4)" 5
is_error 404 ACCOUNT_NOT_FOUND "fund an unknown account"
for h in abc "$(uuid4 | tr -d -)" '6ba7b810-9dad-11d1-80b4-00c04fd430c8' "${XB_PLATFORM_ID}x" "Platform:$XB_PLATFORM_ID"; do
    fund "$usd" 5 -H "X-Platform-Id: $h"
    is_error 400 INVALID_REQUEST "fund with X-Platform-Id '$h'"
    has_details X-Platform-Id "fund with X-Platform-Id '$h': details[X-Platform-Id]"
done
fund "$usd" 5 -H "X-Platform-Id: $(uuid4)"
is_error 403 FORBIDDEN "fund with X-Platform-Id of another (unknown) platform"
api GET "/customers/internal-accounts?customerId=$ca"
jis '[.data[] | {(.currency): .balance.amountMinor}] | add' \
    "$(jq -c '[.data[] | {(.currency): .balance.amountMinor}] | add' <<<"$acct_after" | jq -c '.MXN = "8000"')" \
    "refused fundings moved nothing"

# --- a deleted customer's accounts ------------------------------------------------------------
mk_customer "$TAG-gone"
cg=$CUST
g_usd=$(acct_of "$cg" USD)
like "$g_usd" "$INT_RE" "the customer to be deleted has a USD account"
api DELETE "/customers/$cg"
is_status 200 "DELETE the customer (no balance): 200"
fund "$g_usd" 5
is_error 410 GONE "fund a deleted customer's account"
api GET "/customers/$ca"
is_status 200 "the funded customer is still live"
api DELETE "/customers/$ca"
is_error 409 CUSTOMER_HAS_BALANCE "DELETE a customer with money in an account"

# --- GET /customers/internal-accounts validation --------------------------------------------------
for q in customerId=abc "customerId=${ca#Customer:}" "customerId=InternalAccount:${raw}" 'customerId=' "customerId=$ca&customerId=$ca"; do
    api GET "/customers/internal-accounts?$q"
    is_error 400 INVALID_REQUEST "GET /customers/internal-accounts?$q"
    has_details customerId "GET /customers/internal-accounts?$q: details.customerId"
done
for q in currency=usd currency=US currency=USDX 'currency=' currency=U1D 'currency=USD&currency=USD'; do
    api GET "/customers/internal-accounts?$q"
    is_error 400 INVALID_REQUEST "GET /customers/internal-accounts?$q"
    has_details currency "GET /customers/internal-accounts?$q: details.currency"
done
for path in /customers/internal-accounts /platform/internal-accounts; do
    for q in limit=0 limit=101 limit=x 'limit=' limit=-3 'limit=1&limit=1' limit=99999999999999999999; do
        api GET "$path?$q"
        is_error 400 INVALID_REQUEST "GET $path?$q"
        has_details limit "GET $path?$q: details.limit"
    done
    for q in cursor=x 'cursor=' cursor=-1 cursor=0.5 'cursor=0&cursor=0' cursor=99999999999999999999; do
        api GET "$path?$q"
        is_error 400 INVALID_REQUEST "GET $path?$q"
        has_details cursor "GET $path?$q: details.cursor"
    done
done
for q in currency=eur 'currency=' currency=EURO 'currency=EUR&currency=EUR'; do
    api GET "/platform/internal-accounts?$q"
    is_error 400 INVALID_REQUEST "GET /platform/internal-accounts?$q"
    has_details currency "GET /platform/internal-accounts?$q: details.currency"
done

api GET /platform/internal-accounts
is_status 200 "GET /platform/internal-accounts: 200"
has_keys "$BODY" 'data hasMore nextCursor totalCount' "platform internal accounts: list envelope keys"
jok 'all(.data[]; .customerId == null)' "platform internal accounts: every row platform-owned (customerId null)"
jok --arg c "$ca" 'all(.data[]; .id != $c)' "platform internal accounts: no customer account"
api GET /customers/internal-accounts?limit=100
is_status 200 "GET /customers/internal-accounts (no filter): 200"
jok 'all(.data[]; .customerId != null)' "customer internal accounts: no platform-owned row"
jok '[.data[] | [.createdAt, .id]] as $a | $a == ($a | sort | reverse)' "customer internal accounts: newest first"

# --- permissions --------------------------------------------------------------------------------
create_token "$(uniq_name t62-view)" '["view"]'
v_tok=$TOK_ID v_id=$TOK_CLIENT_ID v_secret=$TOK_SECRET
at_exit "use_root; api --nocheck DELETE /tokens/$v_tok"
api --as "$v_id" "$v_secret" GET "/customers/internal-accounts?customerId=$ca"
is_status 200 "view token: GET /customers/internal-accounts 200"
api --as "$v_id" "$v_secret" GET /platform/internal-accounts
is_status 200 "view token: GET /platform/internal-accounts 200"
fund --as "$v_id" "$v_secret" "$eur" 5
is_error 403 FORBIDDEN "view token: fund"
jis .details.requiredAccessLevel '"manage"' "view token: fund: details.requiredAccessLevel manage"
api GET "/customers/internal-accounts?customerId=$ca&currency=EUR"
jis '.data[0].balance.amountMinor' '"1099"' "view token: nothing funded"
api --noauth GET /customers/internal-accounts
is_error 401 UNAUTHORIZED "no credentials: GET /customers/internal-accounts"
api --noauth GET /platform/internal-accounts
is_error 401 UNAUTHORIZED "no credentials: GET /platform/internal-accounts"
api --noauth POST "/sandbox/internal-accounts/$eur/fund" '{"amountMinor":5}'
is_error 401 UNAUTHORIZED "no credentials: fund"

# --- a fresh platform: exact paging, currencies added and removed, isolation ------------------------
if new_platform t62; then
    pass "second platform created with xborderctl"
    p_plat=$NP_ID p_id=$NP_CLIENT_ID p_secret=$NP_SECRET
    use_creds "$p_id" "$p_secret"
    api GET /platform/internal-accounts
    jis . '{"data":[],"hasMore":false,"nextCursor":null,"totalCount":0}' "fresh platform: no platform-owned accounts yet"
    api GET /customers/internal-accounts
    jis . '{"data":[],"hasMore":false,"nextCursor":null,"totalCount":0}' "fresh platform: no customer accounts"

    custs=()
    for i in $(seq 1 8); do
        mk_customer "$TAG-pg-$i"
        custs+=("$CUST")
    done
    api GET /customers/internal-accounts?limit=100
    all=$(j .data)
    jis '.data | length' 24 "fresh platform: 8 customers x 3 currencies = 24 accounts"
    for i in 0 5 23; do
        int_shape "fresh platform: listed account $i" "$(jq -c ".[$i]" <<<"$all")"
    done
    jok --arg c "$(printf '%s\n' "${custs[@]}" | jq -R . | jq -sc .)" \
        '(map(.customerId) | unique) == ($c | fromjson | sort) and all(group_by(.customerId)[]; (map(.currency) | sort) == ["EUR","MXN","USD"])' \
        "fresh platform: each customer has exactly USD, EUR, MXN" "$all"
    want=$(newest_first "$all")
    walk "fresh platform, default limit" /customers/internal-accounts '' 20 "$want"
    walk "fresh platform, limit=7" /customers/internal-accounts 7 7 "$want"
    walk "fresh platform, limit=24" /customers/internal-accounts 24 24 "$want"
    walk "fresh platform, currency=MXN, limit=3" /customers/internal-accounts?currency=MXN 3 3 \
        "$(newest_first "$(jq -c 'map(select(.currency == "MXN"))' <<<"$all")")"
    walk "fresh platform, customerId filter, limit=2" "/customers/internal-accounts?customerId=${custs[3]}" 2 2 \
        "$(newest_first "$(jq -c --arg c "${custs[3]}" 'map(select(.customerId == $c))' <<<"$all")")"
    for c in 24 30; do
        api GET "/customers/internal-accounts?cursor=$c"
        jis . '{"data":[],"hasMore":false,"nextCursor":null,"totalCount":24}' "fresh platform: cursor=$c (at or past the end): empty page"
    done

    # A customer deleted before a currency is added gets no account in it.
    api DELETE "/customers/${custs[7]}"
    is_status 200 "fresh platform: DELETE one customer"
    p_usd=$(jq -r --arg c "${custs[0]}" '.[] | select(.customerId == $c and .currency == "USD") | .id' <<<"$all")
    p_mxn=$(jq -r --arg c "${custs[0]}" '.[] | select(.customerId == $c and .currency == "MXN") | .id' <<<"$all")
    fund "$p_mxn" 4242
    jis .balance.amountMinor '"4242"' "fresh platform: fund MXN 4242"
    fund "$p_usd" 10 -H "X-Platform-Id: $p_plat"
    is_status 200 "fresh platform: fund with its own X-Platform-Id: 200"
    fund "$p_usd" 10 -H "X-Platform-Id: $XB_PLATFORM_ID"
    is_error 403 FORBIDDEN "fresh platform: fund with the main platform's X-Platform-Id"

    api GET /config
    p_conf=$BODY
    entry() { # CODE: a supported-currency entry
        jq -cn --arg c "$1" '{currencyCode: $c, minAmount: 1, maxAmount: 100000000000,
            enabledTransactionTypes: ["OUTGOING","INCOMING"], requiredCounterpartyFields: [{profile: "FULL_NAME", mandatory: true}]}'
    }
    # Remove MXN: its accounts stay readable, funding it is refused.
    api PATCH /config "{\"supportedCurrencies\":[$(entry USD),$(entry EUR)]}"
    is_status 200 "fresh platform: PATCH /config without MXN: 200"
    fund "$p_mxn" 5
    is_error 400 CURRENCY_NOT_ENABLED "fund an account whose currency was removed"
    api GET "/customers/internal-accounts?customerId=${custs[0]}&currency=MXN"
    jis '[.data[] | {id, amountMinor: .balance.amountMinor}]' "[{\"id\":\"$p_mxn\",\"amountMinor\":\"4242\"}]" \
        "removed currency: the account and its balance stay readable"
    mk_customer "$TAG-no-mxn"
    api GET "/customers/internal-accounts?customerId=$CUST"
    jis '[.data[].currency] | sort' '["EUR","USD"]' "a customer made without MXN supported: USD and EUR only"
    no_mxn=$CUST

    # Add MXN back and GBP: existing accounts reused, new ones for every live customer.
    api PATCH /config "{\"supportedCurrencies\":[$(entry USD),$(entry EUR),$(entry MXN),$(entry GBP)]}"
    is_status 200 "fresh platform: PATCH /config with MXN back and GBP added: 200"
    api GET "/customers/internal-accounts?customerId=${custs[0]}&currency=MXN"
    jis '[.data[] | {id, amountMinor: .balance.amountMinor}]' "[{\"id\":\"$p_mxn\",\"amountMinor\":\"4242\"}]" \
        "MXN added back: the same account with its balance"
    fund "$p_mxn" 8
    jis .balance.amountMinor '"4250"' "MXN added back: funding works again (4250)"
    api GET "/customers/internal-accounts?currency=GBP&limit=100"
    jis '[.data[].customerId] | sort' \
        "$(printf '%s\n' "${custs[@]:0:7}" "$no_mxn" | jq -R . | jq -sc 'sort')" \
        "GBP added: one GBP account for every live customer, none for the deleted one"
    jok 'all(.data[]; .balance == {"currencyCode":"GBP","amountMinor":"0"})' "GBP accounts start at 0"
    int_shape "a GBP account" "$(j '.data[0]')"
    api GET "/customers/internal-accounts?customerId=$no_mxn"
    jis '[.data[].currency] | sort' '["EUR","GBP","MXN","USD"]' "the customer made without MXN now has MXN and GBP too"
    api GET "/customers/internal-accounts?customerId=${custs[1]}&currency=GBP"
    gbp=$(jr '.data[0].id')
    fund "$gbp" 123
    jis .balance '{"currencyCode":"GBP","amountMinor":"123"}' "fund the new GBP account: 123"
    api GET /platform/internal-accounts
    jis .data '[]' "customer accounts never appear among the platform's own accounts"
    api PATCH /config "$(j '{supportedCurrencies}' "$p_conf")"
    is_status 200 "fresh platform: configuration restored"

    # Isolation: the main platform's accounts do not exist here.
    fund "$usd" 5
    is_error 404 ACCOUNT_NOT_FOUND "other platform: fund a main-platform account"
    fund "$g_usd" 5
    is_error 404 ACCOUNT_NOT_FOUND "other platform: fund a deleted main-platform customer's account (404, not 410)"
    api GET "/customers/internal-accounts?customerId=$ca"
    jok '.data == [] and .totalCount == 0' "other platform: filtering on a main-platform customer shows nothing"
    api GET "/customers/internal-accounts?limit=100"
    jok --arg u "$usd" 'all(.data[]; .id != $u)' "other platform: its list does not show the main platform's accounts"
    use_root
    fund "$p_usd" 5
    is_error 404 ACCOUNT_NOT_FOUND "main platform: fund the other platform's account"
    fund "$p_usd" 5 -H "X-Platform-Id: $p_plat"
    is_error 403 FORBIDDEN "main platform: fund with the other platform's X-Platform-Id"
    api GET "/customers/internal-accounts?customerId=${custs[0]}"
    jok '.data == [] and .totalCount == 0' "main platform: filtering on the other platform's customer shows nothing"
    api --as "$p_id" "$p_secret" GET "/customers/internal-accounts?customerId=${custs[0]}&currency=USD"
    jis '.data[0].balance.amountMinor' '"10"' "other platform: its USD balance untouched (10)"
else
    fail "second platform created with xborderctl"
fi
use_root
api GET "/customers/internal-accounts?customerId=$ca"
jis '[.data[] | {(.currency): .balance.amountMinor}] | add' '{"USD":"200000250008","EUR":"1099","MXN":"8000"}' \
    "main platform: balances as funded, nothing else moved them"

done_testing
