#!/usr/bin/env bash
# 63-receivers.t - GET /receiver/external-account/{accountId} (same-currency
# lookup) and GET /receiver/ppv/{ppvAddress} (cross-currency lookup): exact
# shapes, values from the receiving platform's configuration, every
# accepted address form (ppv and uma domains, a leading $, percent-encoded),
# receivers on any platform, re-issued and deleted addresses, errors,
# permissions and isolation of the external-account lookup.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
no_plan

TAG=$(uniq_name t63)
tag=${TAG,,}

jstr() {
    jq -Rn --arg s "$1" '$s'
}

# mk_customer [api options] PCID [PPVNAME]: sets CUST, CBODY.
mk_customer() {
    local opts=() extra=
    while [[ ${1:-} == --* ]]; do opts+=("$1" "$2" "$3"); shift 3; done
    [[ -n ${2:-} ]] && extra=",\"ppvName\":$(jstr "$2")"
    api "${opts[@]}" POST /customers "{\"platformCustomerId\":$(jstr "$1"),\"customerType\":\"INDIVIDUAL\",\"fullName\":\"Rita Receiver\"$extra}"
    is_status 201 "POST /customers $1: 201"
    CUST=$(jr .id)
    CBODY=$BODY
}

# mk_ext [api options] CUSTOMER CURRENCY: sets EXT.
mk_ext() {
    local opts=()
    while [[ ${1:-} == --* ]]; do opts+=("$1" "$2" "$3"); shift 3; done
    api "${opts[@]}" POST /customers/external-accounts "$(jq -cn --arg c "$1" --arg cur "$2" --arg p "$TAG-$RANDOM" \
        --arg a "$(tr -dc 0-9 </dev/urandom | head -c 12)" '{customerId: $c, currency: $cur, platformAccountId: $p,
        accountInfo: {accountType: "CHECKING", accountCategory: "PERSONAL", bankName: "Receiver Bank",
                      accountNumber: $a, routingNumber: "021000021"}}')"
    is_status 201 "POST /customers/external-accounts ($2): 201"
    EXT=$(jr .id)
}

# ppv_shape WHAT: exact keys of a PPV receiver in $BODY.
ppv_shape() {
    has_keys "$BODY" 'ppvAddress supportedCurrencies requiredCounterpartyFields' "$1: exact receiver keys"
    jok '(.supportedCurrencies | type) == "array" and all(.supportedCurrencies[];
            keys == ["currencyCode","maxAmount","minAmount"] and (.currencyCode | test("^[A-Z]{3}$"))
            and (.minAmount | type) == "number" and (.maxAmount | type) == "number")' \
        "$1: supportedCurrencies entries are exactly {currencyCode, minAmount, maxAmount}"
    jok '(.requiredCounterpartyFields | type) == "array" and all(.requiredCounterpartyFields[];
            keys == ["currencyCode","mandatory","profile"] and (.currencyCode | test("^[A-Z]{3}$"))
            and (.profile | type) == "string" and (.mandatory | type) == "boolean")' \
        "$1: requiredCounterpartyFields entries are exactly {currencyCode, profile, mandatory}"
}

api GET /config
MAIN_DOMAIN=$(jr .ppvDomain)
MAIN_UMA=$(jr .umaDomain)
main_conf=$BODY

# --- GET /receiver/external-account/{accountId} on the main platform ------------------------
mk_customer "$TAG-ext"
ce=$CUST
mk_ext "$ce" USD
e_usd=$EXT
mk_ext "$ce" MXN
e_mxn=$EXT
api GET "/receiver/external-account/$e_usd"
is_status 200 "GET /receiver/external-account/{id}: 200"
has_keys "$BODY" 'accountId customerId currency status minAmount maxAmount' "external-account receiver: exact keys"
want=$(jq -c --arg a "$e_usd" --arg c "$ce" '.supportedCurrencies[] | select(.currencyCode == "USD")
    | {accountId: $a, customerId: $c, currency: "USD", status: "ACTIVE", minAmount, maxAmount}' <<<"$main_conf")
jis . "$want" "external-account receiver: account, owner, currency, ACTIVE, min/max of the platform's USD entry"
api GET "/receiver/external-account/$e_mxn"
jis '{accountId, currency}' "{\"accountId\":\"$e_mxn\",\"currency\":\"MXN\"}" "external-account receiver: the MXN account"
jis '{minAmount, maxAmount}' "$(jq -c '.supportedCurrencies[] | select(.currencyCode == "MXN") | {minAmount, maxAmount}' <<<"$main_conf")" \
    "external-account receiver: min/max of the platform's MXN entry"

raw=${e_usd#ExternalAccount:}
for bad in abc 'ExternalAccount:abc' "$raw" "InternalAccount:$raw" "Customer:$raw"; do
    api GET "/receiver/external-account/$bad"
    is_error 400 INVALID_REQUEST "GET /receiver/external-account/$bad"
    has_details accountId "GET /receiver/external-account/$bad: details.accountId"
done
api GET "/receiver/external-account/ExternalAccount:$(uuid4)"
is_error 404 NOT_FOUND "GET /receiver/external-account/<unknown>"
api DELETE "/customers/external-accounts/$e_mxn?customerId=$ce"
is_status 200 "delete the MXN account"
api GET "/receiver/external-account/$e_mxn"
is_error 404 NOT_FOUND "GET /receiver/external-account/<deleted account>"

# --- GET /receiver/ppv on the main platform ---------------------------------------------------
mk_customer "$TAG-ppv" "$tag-rita"
cp=$CUST
addr="$tag-rita@$MAIN_DOMAIN"
api GET "/receiver/ppv/$addr"
is_status 200 "GET /receiver/ppv/name@ppvDomain: 200"
ppv_shape "main platform receiver"
jis .ppvAddress "$(jstr "$addr")" "receiver: ppvAddress canonical"
jis '.supportedCurrencies | sort_by(.currencyCode)' \
    "$(jq -c '[.supportedCurrencies[] | select(.enabledTransactionTypes | index("INCOMING")) | {currencyCode, minAmount, maxAmount}] | sort_by(.currencyCode)' <<<"$main_conf")" \
    "receiver: supportedCurrencies = the platform's INCOMING currencies with their min/max"
jis '.requiredCounterpartyFields | sort_by(.currencyCode, .profile)' \
    "$(jq -c '[.supportedCurrencies[] | select(.enabledTransactionTypes | index("INCOMING")) | .currencyCode as $c
        | .requiredCounterpartyFields[] | {currencyCode: $c, profile, mandatory}] | sort_by(.currencyCode, .profile)' <<<"$main_conf")" \
    "receiver: requiredCounterpartyFields = the platform's, per INCOMING currency"
main_recv=$BODY
for form in "\$$addr" "%24$tag-rita%40$MAIN_DOMAIN" "$tag-rita%40$MAIN_DOMAIN" "%24$addr"; do
    api GET "/receiver/ppv/$form"
    is_status 200 "GET /receiver/ppv/$form: 200"
    jis . "$main_recv" "GET /receiver/ppv/$form: the same receiver, canonical address"
done
api GET "/receiver/ppv/$tag-rita@$MAIN_UMA"
is_status 200 "GET /receiver/ppv/name@umaDomain: 200"
jis . "$main_recv" "name@umaDomain: the same receiver, canonical address"

api GET "/receiver/ppv/$tag-nobody@$MAIN_DOMAIN"
is_error 404 RECEIVER_NOT_FOUND "GET /receiver/ppv/<unknown name>@ppvDomain"
api GET "/receiver/ppv/$tag-rita@$tag-nowhere.test"
is_error 404 RECEIVER_NOT_FOUND "GET /receiver/ppv/name@<unknown domain>"
api GET "/receiver/ppv/\$$tag-nobody@$MAIN_UMA"
is_error 404 RECEIVER_NOT_FOUND "GET /receiver/ppv/\$<unknown>@umaDomain"
for bad in "$tag-rita" "%24$tag-rita" "$tag-rita.$MAIN_DOMAIN"; do
    api GET "/receiver/ppv/$bad"
    is_error 400 INVALID_REQUEST "GET /receiver/ppv/$bad (no @)"
    has_details ppvAddress "GET /receiver/ppv/$bad: details.ppvAddress"
done

# Re-issued address: the old one stops resolving at once, in every form.
api POST "/customers/$cp/ppv-address" "{\"ppvName\":\"$tag-rita2\"}"
is_status 200 "re-issue the address: 200"
for form in "$addr" "\$$addr" "$tag-rita@$MAIN_UMA"; do
    api GET "/receiver/ppv/$form"
    is_error 404 RECEIVER_NOT_FOUND "old address $form: 404 at once"
done
api GET "/receiver/ppv/\$$tag-rita2@$MAIN_UMA"
is_status 200 "new address as \$name@umaDomain: 200"
jis .ppvAddress "\"$tag-rita2@$MAIN_DOMAIN\"" "new address: canonical ppvAddress"

# A deleted customer is no receiver.
mk_customer "$TAG-gone" "$tag-gone"
api DELETE "/customers/$CUST"
is_status 200 "delete a customer"
api GET "/receiver/ppv/$tag-gone@$MAIN_DOMAIN"
is_error 404 RECEIVER_NOT_FOUND "the deleted customer's address: 404"
mk_customer "$TAG-ext-gone"
mk_ext "$CUST" EUR
e_gone=$EXT
api DELETE "/customers/$CUST"
is_status 200 "delete the owner of an external account"
api GET "/receiver/external-account/$e_gone"
ok "$([[ $STATUS == 404 || $STATUS == 410 ]] && echo 1)" "external-account receiver of a deleted owner: 404 or 410 (no receiver)"

# --- permissions ------------------------------------------------------------------------------
create_token "$(uniq_name t63-view)" '["view"]'
v_tok=$TOK_ID
at_exit "use_root; api --nocheck DELETE /tokens/$v_tok"
api --as "$TOK_CLIENT_ID" "$TOK_SECRET" GET "/receiver/ppv/$tag-rita2@$MAIN_DOMAIN"
is_status 200 "view token: GET /receiver/ppv 200"
api --as "$TOK_CLIENT_ID" "$TOK_SECRET" GET "/receiver/external-account/$e_usd"
is_status 200 "view token: GET /receiver/external-account 200"
api --noauth GET "/receiver/ppv/$tag-rita2@$MAIN_DOMAIN"
is_error 401 UNAUTHORIZED "no credentials: GET /receiver/ppv"
api --noauth GET "/receiver/external-account/$e_usd"
is_error 401 UNAUTHORIZED "no credentials: GET /receiver/external-account"
api POST "/receiver/ppv/$tag-rita2@$MAIN_DOMAIN" '{}'
is_error 405 METHOD_NOT_ALLOWED "POST /receiver/ppv/{addr}: 405"

# --- a second platform with its own uma domain and configuration ---------------------------------
p2_name=$(uniq_name t63)
p2_dom="${p2_name,,}.test"
p2_uma="${p2_name,,}.uma.test"
if out=$(xbctl platform-create --name "$p2_name" --ppv-domain "$p2_dom" --uma-domain "$p2_uma" 2>&1) \
    && [[ $(jr .platformId "$out") =~ $UUID4_RE ]]; then
    pass "second platform (with an uma domain) created with xborderctl"
    p_id=$(jr .clientId "$out") p_secret=$(jr .clientSecret "$out")
    use_creds "$p_id" "$p_secret"
    api GET /config
    jis '{ppvDomain, umaDomain}' "{\"ppvDomain\":\"$p2_dom\",\"umaDomain\":\"$p2_uma\"}" "second platform: its two domains"
    cur='[
      {"currencyCode":"USD","minAmount":150,"maxAmount":990000,"enabledTransactionTypes":["OUTGOING","INCOMING"],
       "requiredCounterpartyFields":[{"profile":"FULL_NAME","mandatory":true},{"profile":"BIRTH_DATE","mandatory":false}]},
      {"currencyCode":"EUR","minAmount":1,"maxAmount":5000,"enabledTransactionTypes":["OUTGOING"],
       "requiredCounterpartyFields":[{"profile":"NATIONALITY","mandatory":true}]},
      {"currencyCode":"GBP","minAmount":25,"maxAmount":777777,"enabledTransactionTypes":["INCOMING"],
       "requiredCounterpartyFields":[]},
      {"currencyCode":"JPY","minAmount":100,"maxAmount":100000000,"enabledTransactionTypes":["INCOMING"],
       "requiredCounterpartyFields":[{"profile":"NATIONALITY","mandatory":true},{"profile":"FULL_NAME","mandatory":false}]}]'
    api PATCH /config "{\"supportedCurrencies\":$(jq -c . <<<"$cur")}"
    is_status 200 "second platform: PATCH supportedCurrencies (USD both, EUR outgoing only, GBP and JPY incoming only)"

    # The same ppvName as on the main platform: a different receiver.
    mk_customer "$TAG-p2" "$tag-rita2"
    p_cust=$CUST
    p_addr="$tag-rita2@$p2_dom"
    jis .ppvAddress "$(jstr "$p_addr")" "second platform: the same ppvName on its own domain"
    want_sc='[{"currencyCode":"GBP","minAmount":25,"maxAmount":777777},{"currencyCode":"JPY","minAmount":100,"maxAmount":100000000},
              {"currencyCode":"USD","minAmount":150,"maxAmount":990000}]'
    want_rf='[{"currencyCode":"JPY","profile":"FULL_NAME","mandatory":false},{"currencyCode":"JPY","profile":"NATIONALITY","mandatory":true},
              {"currencyCode":"USD","profile":"BIRTH_DATE","mandatory":false},{"currencyCode":"USD","profile":"FULL_NAME","mandatory":true}]'
    for who in self main; do
        [[ $who == main ]] && use_root
        for form in "$p_addr" "\$$p_addr" "$tag-rita2@$p2_uma" "\$$tag-rita2@$p2_uma" "%24$tag-rita2%40$p2_uma"; do
            api GET "/receiver/ppv/$form"
            is_status 200 "[$who] GET /receiver/ppv/$form: 200"
            ppv_shape "[$who] $form"
            jis .ppvAddress "$(jstr "$p_addr")" "[$who] $form: canonical name@ppvDomain"
            jis '.supportedCurrencies | sort_by(.currencyCode)' "$want_sc" "[$who] $form: only INCOMING currencies, with their min/max"
            jis '.requiredCounterpartyFields | sort_by(.currencyCode, .profile)' "$want_rf" \
                "[$who] $form: counterparty fields of the INCOMING currencies only"
        done
    done
    # The main platform's receiver is still the main platform's.
    api GET "/receiver/ppv/$tag-rita2@$MAIN_DOMAIN"
    jis .ppvAddress "\"$tag-rita2@$MAIN_DOMAIN\"" "main platform's receiver with the same name: its own address"
    api GET "/receiver/ppv/$tag-rita2@$MAIN_UMA"
    jis .ppvAddress "\"$tag-rita2@$MAIN_DOMAIN\"" "main platform's receiver by its uma domain: its own address"

    # The second platform sees the main platform's receivers too.
    use_creds "$p_id" "$p_secret"
    api GET "/receiver/ppv/$tag-rita2@$MAIN_DOMAIN"
    is_status 200 "second platform: GET the main platform's receiver: 200"
    jis '.ppvAddress' "\"$tag-rita2@$MAIN_DOMAIN\"" "second platform: the main platform's receiver, canonical"
    jis '.supportedCurrencies | sort_by(.currencyCode)' \
        "$(jq -c '[.supportedCurrencies[] | select(.enabledTransactionTypes | index("INCOMING")) | {currencyCode, minAmount, maxAmount}] | sort_by(.currencyCode)' <<<"$main_conf")" \
        "second platform: the main platform's receiver carries the main platform's currencies"

    # No INCOMING currency at all: empty lists.
    api PATCH /config '{"supportedCurrencies":[{"currencyCode":"USD","minAmount":1,"maxAmount":10,"enabledTransactionTypes":["OUTGOING"],"requiredCounterpartyFields":[{"profile":"FULL_NAME","mandatory":true}]}]}'
    is_status 200 "second platform: only an OUTGOING currency"
    api GET "/receiver/ppv/$p_addr"
    jis . "{\"ppvAddress\":\"$p_addr\",\"supportedCurrencies\":[],\"requiredCounterpartyFields\":[]}" \
        "receiver on a platform without INCOMING currencies: both lists empty"

    # External-account receivers: min/max from the platform's entry; isolation.
    api PATCH /config "{\"supportedCurrencies\":$(jq -c . <<<"$cur")}"
    mk_ext "$p_cust" USD
    p_ext=$EXT
    api GET "/receiver/external-account/$p_ext"
    jis . "{\"accountId\":\"$p_ext\",\"customerId\":\"$p_cust\",\"currency\":\"USD\",\"status\":\"ACTIVE\",\"minAmount\":150,\"maxAmount\":990000}" \
        "second platform: external-account receiver with its USD min 150, max 990000"
    api GET "/receiver/external-account/$e_usd"
    is_error 404 NOT_FOUND "second platform: the main platform's external account is not found"
    use_root
    api GET "/receiver/external-account/$p_ext"
    is_error 404 NOT_FOUND "main platform: the second platform's external account is not found"
else
    fail "second platform (with an uma domain) created with xborderctl"
    diag "$out"
fi
use_root

done_testing
