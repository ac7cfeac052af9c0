#!/usr/bin/env bash
# 98-text-input.t - every JSON string and key of every body is checked once,
# at the parser: valid UTF-8 (RFC 3629: no overlong forms, no encoded or
# escaped UTF-16 surrogates, nothing past U+10FFFF, no truncated sequence),
# no NUL and no control characters (values may hold tab, CR and LF).
# Anything else is 400 INVALID_REQUEST naming the field (details.body for a
# key), and writes nothing.  Query parameters get the same check.  Cases
# over tokens, customers (create and PATCH), external accounts, config,
# transfers and quotes.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
no_plan

TAG=$(uniq_name t98)
SENT=0

# raw_case METHOD PATH FIELD WHAT PRINTF_FORMAT [ARGS...]: sends the bytes
# printf makes (a %b argument's escapes are made bytes) and expects 400 INVALID_REQUEST naming FIELD.
raw_case() {
    local method=$1 path=$2 field=$3 what=$4 fmt=$5
    shift 5
    # shellcheck disable=SC2059
    printf "$fmt" "$@" >"$_API_TMP/raw"
    api --file "$_API_TMP/raw" "$method" "$path"
    SENT=$((SENT + 1))
    is_error 400 INVALID_REQUEST "$what: 400"
    has_details "$field" "$what: details.$field"
}

# The byte sequences that are not text, with their names.
declare -a BAD_NAMES=(overlong-2 overlong-3 overlong-4 surrogate-utf8 past-10FFFF
    truncated lone-continuation bad-lead escaped-lone-high escaped-lone-low
    escaped-high-then-ascii nul-escape bell del)
declare -a BAD_BYTES=('\xc0\xaf' '\xe0\x80\xaf' '\xf0\x80\x80\xaf' '\xed\xa0\x80'
    '\xf4\x90\x80\x80' '\xe2\x82' '\x80' '\xff' '\\ud800' '\\udc00' '\\ud800\\u0041'
    '\\u0000' '\\u0007' '\\u007f')

api GET "/customers?limit=1"
before_customers=$(jr .totalCount)
api GET /tokens?limit=1
before_tokens=$(jr .totalCount)

for i in "${!BAD_NAMES[@]}"; do
    b=${BAD_BYTES[$i]} n=${BAD_NAMES[$i]}
    raw_case POST /tokens name "token name $n" '{"name":"x%by","permissions":["view"]}' "$b"
    raw_case POST /customers fullName "customer fullName $n" \
        '{"platformCustomerId":"%s-%s","customerType":"INDIVIDUAL","fullName":"a%bb"}' "$TAG" "$i" "$b"
    raw_case POST /customers platformCustomerId "customer platformCustomerId $n" \
        '{"platformCustomerId":"%s%b","customerType":"INDIVIDUAL","fullName":"ok"}' "$TAG" "$b"
done

api GET "/customers?limit=1"
is "$(jr .totalCount)" "$before_customers" "no customer was written by a refused request"
api GET /tokens?limit=1
is "$(jr .totalCount)" "$before_tokens" "no token was written by a refused request"

# Keys: not text, or a NUL (escaped, or an escaped lone surrogate).
raw_case POST /tokens body "key with an overlong form" '{"na\xc0\xafme":"x","permissions":["view"]}'
raw_case POST /tokens body "key with an escaped NUL" '{"na\\u0000me":"x","permissions":["view"]}'
raw_case POST /tokens body "key with an escaped lone surrogate" '{"\\udc00":"x","name":"n","permissions":["view"]}'
raw_case PATCH /config body "key with a tab" '{"web\\thookEndpoint":null}'

# Nested fields and array items are named by their path.
mk_customer t98
C=$CUST
raw_case PATCH "/customers/$C" fullName "PATCH fullName overlong" '{"fullName":"\xc0\xaf"}'
raw_case PATCH "/customers/$C" fullName "PATCH fullName encoded surrogate" '{"fullName":"\xed\xa0\x80"}'
api GET "/customers/$C"
jis .fullName '"Test t98"' "the customer's fullName is unchanged"
raw_case POST /customers/external-accounts accountInfo.bankName "accountInfo.bankName invalid" \
    '{"customerId":"%s","currency":"USD","platformAccountId":"pa-%s","accountInfo":{"accountType":"CHECKING","accountCategory":"PERSONAL","bankName":"B\xff","accountNumber":"000123456789","routingNumber":"021000021"}}' "$C" "$TAG"
raw_case POST /tokens 'permissions[1]' "an array item" '{"name":"n","permissions":["view","\xed\xbf\xbf"]}'
raw_case PATCH /config webhookEndpoint "webhookEndpoint with a NUL" '{"webhookEndpoint":"http://example.com/\\u0000"}'

# Text that is valid is kept exactly, escapes and supplementary planes included.
api POST /tokens "{\"name\":\"caf\\u00e9 \\ud83d\\ude00 tab\\tend\",\"permissions\":[\"view\"]}"
is_status 201 "valid escapes (a surrogate pair, a tab) accepted"
jis .name '"café 😀 tab\tend"' "the name reads back as sent"
api DELETE "/tokens/$(jr .id)"

# Query parameters: the same rule, naming the parameter.
for q in "platformCustomerId=%C0%AF" "platformCustomerId=%ED%A0%80" "platformCustomerId=a%01b" \
    "platformCustomerId=%FF"; do
    api GET "/transactions?$q"
    SENT=$((SENT + 1))
    is_error 400 INVALID_REQUEST "GET /transactions?$q: 400"
    has_details platformCustomerId "GET /transactions?$q: details.platformCustomerId"
done
api GET "/customers?platformCustomerId=caf%C3%A9"
is_status 200 "a percent-encoded valid UTF-8 query value is fine"

note "sent $SENT requests with text that is not"
done_testing
