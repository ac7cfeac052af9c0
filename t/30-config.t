#!/usr/bin/env bash
# 30-config.t - GET /config and PATCH /config: shape, defaults, every
# writable field and its validation, isolation between platforms.
# The main platform's configuration is restored at the end.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
no_plan

CONFIG_KEYS='id umaDomain ppvDomain webhookEndpoint quoteFeePolicy supportedCurrencies createdAt updatedAt'

# config_shape WHAT: the full shape of a PlatformConfig in $BODY.
config_shape() {
    local what=$1
    has_keys "$BODY" "$CONFIG_KEYS" "$what: exact PlatformConfig keys (no platform identity)"
    like "$(jr .id)" "^PlatformConfig:${UUID4_RE#^}" "$what: id is PlatformConfig:<uuid4>"
    jok '(.umaDomain | type) == "string" and (.umaDomain | length) > 0' "$what: umaDomain is a string"
    jok '(.ppvDomain | type) == "string" and (.ppvDomain | length) > 0' "$what: ppvDomain is a string"
    jok '.webhookEndpoint == null or (.webhookEndpoint | type) == "string"' "$what: webhookEndpoint string or null"
    jok '(.quoteFeePolicy | type) == "object" and (.quoteFeePolicy | keys) == ["receiverServiceFeeBps","senderServiceFeeBps"]
         and all(.quoteFeePolicy[]; type == "number" and . == floor and . >= 0 and . <= 10000)' \
        "$what: quoteFeePolicy has exactly the two bps integers"
    jok '(.supportedCurrencies | type) == "array" and all(.supportedCurrencies[];
            (keys == ["currencyCode","enabledTransactionTypes","maxAmount","minAmount","requiredCounterpartyFields"])
            and (.currencyCode | test("^[A-Z]{3}$"))
            and (.minAmount | type) == "number" and (.maxAmount | type) == "number"
            and all(.enabledTransactionTypes[]; . == "OUTGOING" or . == "INCOMING")
            and all(.requiredCounterpartyFields[]; keys == ["mandatory","profile"]
                    and (.mandatory | type) == "boolean" and (.profile | type) == "string"))' \
        "$what: supportedCurrencies entries have exactly the five fields"
    like "$(jr .createdAt)" "$TS_RE" "$what: createdAt is UTC with milliseconds"
    like "$(jr .updatedAt)" "$TS_RE" "$what: updatedAt is UTC with milliseconds"
}

DEFAULT_CURRENCIES='[
 {"currencyCode":"EUR","minAmount":1,"maxAmount":100000000000,"enabledTransactionTypes":["OUTGOING","INCOMING"],"requiredCounterpartyFields":[{"profile":"FULL_NAME","mandatory":true}]},
 {"currencyCode":"MXN","minAmount":1,"maxAmount":100000000000,"enabledTransactionTypes":["OUTGOING","INCOMING"],"requiredCounterpartyFields":[{"profile":"FULL_NAME","mandatory":true}]},
 {"currencyCode":"USD","minAmount":1,"maxAmount":100000000000,"enabledTransactionTypes":["OUTGOING","INCOMING"],"requiredCounterpartyFields":[{"profile":"FULL_NAME","mandatory":true}]}]'

# --- GET /config on the main platform ---------------------------------------------
api GET /config
is_status 200 "GET /config: 200"
config_shape "GET /config"
orig=$BODY
orig_id=$(jr .id)

restored=0
restore() {
    ((restored)) && return 0
    api --nocheck PATCH /config "$(j '{webhookEndpoint, quoteFeePolicy, supportedCurrencies}' "$orig")"
    [[ $STATUS == 200 ]] || echo "restoring the main platform's config failed: $STATUS $BODY" >&2
}
at_exit 'use_root; restore'

# --- a fresh platform: the defaults --------------------------------------------------
p_ok=0
if new_platform t30; then
    pass "second platform created with xborderctl"
    p_ok=1 p_id=$NP_CLIENT_ID p_secret=$NP_SECRET p_domain=$NP_DOMAIN
    api --as "$p_id" "$p_secret" GET /config
    is_status 200 "fresh platform: GET /config 200"
    config_shape "fresh platform"
    p_orig=$BODY
    jis .ppvDomain "\"$p_domain\"" "fresh platform: ppvDomain as given to platform-create"
    jis .umaDomain "\"$p_domain\"" "fresh platform: umaDomain defaults to the ppvDomain"
    jis .webhookEndpoint null "fresh platform: webhookEndpoint null"
    jis .quoteFeePolicy '{"senderServiceFeeBps":0,"receiverServiceFeeBps":0}' "fresh platform: fees 0/0"
    jis '.supportedCurrencies | sort_by(.currencyCode)' "$DEFAULT_CURRENCIES" \
        "fresh platform: default currencies USD, EUR, MXN"
    isnt "$(jr .id)" "$orig_id" "fresh platform: its own config id"
else
    fail "second platform created with xborderctl"
fi

uma="uma-$(uniq_name t30).test"
if new_platform t30uma --uma-domain "$uma"; then
    api --as "$NP_CLIENT_ID" "$NP_SECRET" GET /config
    is_status 200 "platform made with --uma-domain: GET /config 200"
    jis '{umaDomain, ppvDomain}' "{\"umaDomain\":\"$uma\",\"ppvDomain\":\"$NP_DOMAIN\"}" \
        "platform made with --uma-domain: umaDomain and ppvDomain as given"
else
    fail "platform created with xborderctl --uma-domain"
fi

# --- webhookEndpoint ------------------------------------------------------------------
api GET /config
before=$BODY
sleep 0.01
url='https://example.com/xb/hook?x=1'
api PATCH /config "{\"webhookEndpoint\":\"$url\"}"
is_status 200 "PATCH webhookEndpoint https: 200"
config_shape "PATCH /config response"
jis .webhookEndpoint "\"$url\"" "PATCH webhookEndpoint: set"
jis 'del(.webhookEndpoint, .updatedAt)' "$(j 'del(.webhookEndpoint, .updatedAt)' "$before")" \
    "PATCH webhookEndpoint: nothing else changed"
ok "$(jq -rn --argjson a "$before" --argjson b "$BODY" '$b.updatedAt > $a.updatedAt')" "PATCH webhookEndpoint: updatedAt advanced"
jis .createdAt "$(j .createdAt "$before")" "PATCH webhookEndpoint: createdAt unchanged"
api GET /config
jis .webhookEndpoint "\"$url\"" "GET /config: webhookEndpoint reads back"

# Each worker keeps configurations by platform and version, and the token's
# row carries its platform's version: a change must reach the tokens made
# before it, in every worker that served one of them, and a token made
# after it.
create_token "$(uniq_name t30-other)" '["view"]'
o_id=$TOK_CLIENT_ID o_secret=$TOK_SECRET
for i in $(seq 16); do api --nocheck --as "$o_id" "$o_secret" GET /config; done
jis .webhookEndpoint "\"$url\"" "another token of the platform: the same webhookEndpoint"
url2="https://example.com/xb/hook-$RANDOM"
api PATCH /config "{\"webhookEndpoint\":\"$url2\"}"
is_status 200 "PATCH webhookEndpoint again: 200"
seen=""
for i in $(seq 16); do api --nocheck --as "$o_id" "$o_secret" GET /config; seen+="$(jr .webhookEndpoint) "; done
is "$seen" "$(printf "$url2 %.0s" $(seq 16))" \
    "the token made before the change reads the new webhookEndpoint, 16 times of 16"
create_token "$(uniq_name t30-after)" '["view"]'
api --as "$TOK_CLIENT_ID" "$TOK_SECRET" GET /config
jis .webhookEndpoint "\"$url2\"" "a token made after the change reads it too"
api PATCH /config "{\"webhookEndpoint\":\"$url\"}"
is_status 200 "webhookEndpoint back to $url"

api PATCH /config '{"webhookEndpoint":"http://127.0.0.1:9/hook"}'
is_status 200 "PATCH webhookEndpoint http to loopback: 200 (checked at delivery)"
jis .webhookEndpoint '"http://127.0.0.1:9/hook"' "webhookEndpoint http set"

api PATCH /config '{"webhookEndpoint":null}'
is_status 200 "PATCH webhookEndpoint null: 200"
jis .webhookEndpoint null "webhookEndpoint cleared"
api GET /config
jis .webhookEndpoint null "GET /config: webhookEndpoint null after clearing"

long="https://example.com/$(head -c $((2048 - 20)) /dev/zero | tr '\0' a)"
api PATCH /config "{\"webhookEndpoint\":\"$long\"}"
is_status 200 "PATCH webhookEndpoint of 2048 characters: 200"
jis '.webhookEndpoint | length' 2048 "webhookEndpoint of 2048 characters stored whole"

for good in 'https://[::1]:8443/hook' 'https://example.com:8443/a/b?c=d&e=f#frag'; do
    api PATCH /config "{\"webhookEndpoint\":\"$good\"}"
    is_status 200 "PATCH webhookEndpoint $good: 200"
    jis .webhookEndpoint "\"$good\"" "webhookEndpoint $good stored as given"
done

api PATCH /config "{\"webhookEndpoint\":\"$url\"}"
is_status 200 "PATCH webhookEndpoint back to $url"

for bad in '"ftp://example.com/hook"' '"/relative/hook"' '"hook"' '"example.com/hook"' \
    '"https://user:pw@example.com/hook"' '"https://user@example.com/hook"' '"https://"' \
    '""' '"javascript:alert(1)"' '"mailto:ops@example.com"' "\"${long}a\"" \
    '"https://example.com:99999/hook"' '"https://exa mple.com/hook"' '"https://example.com/ho\nok"' \
    123 true '{"url":"https://example.com/"}' '["https://example.com/"]'; do
    api PATCH /config "{\"webhookEndpoint\":$bad}"
    is_error 400 INVALID_REQUEST "PATCH webhookEndpoint ${bad:0:60}"
    has_details webhookEndpoint "PATCH webhookEndpoint ${bad:0:60}: details.webhookEndpoint"
done
api GET /config
jis .webhookEndpoint "\"$url\"" "webhookEndpoint unchanged by the rejected PATCHes"

# --- quoteFeePolicy ------------------------------------------------------------------
api PATCH /config '{"quoteFeePolicy":{"senderServiceFeeBps":100,"receiverServiceFeeBps":250}}'
is_status 200 "PATCH quoteFeePolicy: 200"
jis .quoteFeePolicy '{"senderServiceFeeBps":100,"receiverServiceFeeBps":250}' "quoteFeePolicy set"
jis .webhookEndpoint "\"$url\"" "PATCH quoteFeePolicy: webhookEndpoint untouched"

for pol in '{"senderServiceFeeBps":0,"receiverServiceFeeBps":0}' '{"senderServiceFeeBps":10000,"receiverServiceFeeBps":10000}' \
    '{"receiverServiceFeeBps":7,"senderServiceFeeBps":3}'; do
    api PATCH /config "{\"quoteFeePolicy\":$pol}"
    is_status 200 "PATCH quoteFeePolicy $pol: 200"
    jis .quoteFeePolicy "$pol" "quoteFeePolicy $pol stored"
done

S=quoteFeePolicy.senderServiceFeeBps R=quoteFeePolicy.receiverServiceFeeBps
while IFS='|' read -r pol key; do
    api PATCH /config "{\"quoteFeePolicy\":$pol}"
    is_error 400 INVALID_REQUEST "PATCH quoteFeePolicy $pol"
    has_details "$key" "PATCH quoteFeePolicy $pol: details.$key"
done <<EOF
{"senderServiceFeeBps":10001,"receiverServiceFeeBps":0}|$S
{"senderServiceFeeBps":-1,"receiverServiceFeeBps":0}|$S
{"senderServiceFeeBps":0,"receiverServiceFeeBps":10001}|$R
{"senderServiceFeeBps":0,"receiverServiceFeeBps":-1}|$R
{"senderServiceFeeBps":0}|$R
{"receiverServiceFeeBps":0}|$S
{"senderServiceFeeBps":1.5,"receiverServiceFeeBps":0}|$S
{"senderServiceFeeBps":"100","receiverServiceFeeBps":0}|$S
{"senderServiceFeeBps":null,"receiverServiceFeeBps":0}|$S
{"senderServiceFeeBps":0,"receiverServiceFeeBps":true}|$R
{"senderServiceFeeBps":99999999999999999999,"receiverServiceFeeBps":0}|$S
{"senderServiceFeeBps":0,"receiverServiceFeeBps":0,"platformFeeBps":5}|quoteFeePolicy.platformFeeBps
null|quoteFeePolicy
[]|quoteFeePolicy
100|quoteFeePolicy
EOF
api GET /config
jis .quoteFeePolicy '{"receiverServiceFeeBps":7,"senderServiceFeeBps":3}' "quoteFeePolicy unchanged by the rejected PATCHes"

# --- supportedCurrencies ----------------------------------------------------------------
CUR='[
 {"currencyCode":"USD","minAmount":100,"maxAmount":5000000,"enabledTransactionTypes":["OUTGOING"],"requiredCounterpartyFields":[]},
 {"currencyCode":"JPY","minAmount":1,"maxAmount":1000000000,"enabledTransactionTypes":["INCOMING","OUTGOING"],
  "requiredCounterpartyFields":[{"profile":"BIRTH_DATE","mandatory":false},{"profile":"NATIONALITY","mandatory":true}]},
 {"currencyCode":"KWD","minAmount":5,"maxAmount":5,"enabledTransactionTypes":["INCOMING"],
  "requiredCounterpartyFields":[{"profile":"FULL_NAME","mandatory":true},{"profile":"BIRTH_DATE","mandatory":true}]},
 {"currencyCode":"GBP","minAmount":1,"maxAmount":100000000000,"enabledTransactionTypes":["OUTGOING","INCOMING"],
  "requiredCounterpartyFields":[{"profile":"FULL_NAME","mandatory":false}]}]'
api PATCH /config "{\"supportedCurrencies\":$CUR}"
is_status 200 "PATCH supportedCurrencies: 200"
jis .supportedCurrencies "$CUR" "PATCH supportedCurrencies: the response has exactly the list sent"
api GET /config
jis .supportedCurrencies "$CUR" "GET /config: supportedCurrencies round trip exactly"
jis .quoteFeePolicy '{"receiverServiceFeeBps":7,"senderServiceFeeBps":3}' "PATCH supportedCurrencies: quoteFeePolicy untouched"

CUR2='[{"currencyCode":"EUR","minAmount":1,"maxAmount":10,"enabledTransactionTypes":["OUTGOING","INCOMING"],"requiredCounterpartyFields":[]}]'
api PATCH /config "{\"supportedCurrencies\":$CUR2}"
is_status 200 "PATCH supportedCurrencies to one entry: 200"
jis .supportedCurrencies "$CUR2" "supportedCurrencies replaced, not merged"

api PATCH /config "{\"supportedCurrencies\":$CUR}"
is_status 200 "PATCH supportedCurrencies back: 200"
jis .supportedCurrencies "$CUR" "supportedCurrencies back to four entries"

GOOD='{"currencyCode":"USD","minAmount":1,"maxAmount":1000,"enabledTransactionTypes":["OUTGOING"],"requiredCounterpartyFields":[]}'
# bad_entry ENTRY_JQ_EXPR KEY_PREFIX WHAT: [GOOD, <entry>] is a 400 with a
# details key starting with "supportedCurrencies[1]." + KEY_PREFIX.
bad_entry() {
    local entry
    entry=$(jq -c "$1" <<<"$GOOD")
    api PATCH /config "{\"supportedCurrencies\":[$GOOD,$entry]}"
    is_error 400 INVALID_REQUEST "PATCH supportedCurrencies: $3"
    jok --arg p "supportedCurrencies[1].$2" '.details | keys | any(startswith($p))' \
        "PATCH supportedCurrencies: $3: details names supportedCurrencies[1].$2"
}
for f in currencyCode minAmount maxAmount enabledTransactionTypes requiredCounterpartyFields; do
    bad_entry "del(.$f)" "$f" "entry without $f"
done
bad_entry '.currencyCode = "XXQ"' currencyCode "unknown currency XXQ"
bad_entry '.currencyCode = "usd"' currencyCode "lower-case currency code"
bad_entry '.currencyCode = "US"' currencyCode "two-letter currency code"
bad_entry '.currencyCode = "USDX"' currencyCode "four-letter currency code"
bad_entry '.currencyCode = 840' currencyCode "numeric currency code"
bad_entry '.currencyCode = null' currencyCode "null currency code"
bad_entry '.minAmount = "1"' minAmount "minAmount as a string"
bad_entry '.minAmount = 1.5' minAmount "minAmount not an integer"
bad_entry '.minAmount = -1' minAmount "negative minAmount"
bad_entry '.maxAmount = null' maxAmount "null maxAmount"
bad_entry '.maxAmount = 99999999999999999999' maxAmount "maxAmount past 64 bits"
bad_entry '.minAmount = 1001' '' "minAmount > maxAmount"
bad_entry '.enabledTransactionTypes = ["SIDEWAYS"]' enabledTransactionTypes "unknown transaction type"
jok '[.details | to_entries[] | select(.key | startswith("supportedCurrencies[1].enabledTransactionTypes")) | .value]
     | any(test("OUTGOING") and test("INCOMING"))' "unknown transaction type: the rule lists OUTGOING and INCOMING"
bad_entry '.enabledTransactionTypes = ["outgoing"]' enabledTransactionTypes "lower-case transaction type"
bad_entry '.enabledTransactionTypes = "OUTGOING"' enabledTransactionTypes "enabledTransactionTypes not an array"
bad_entry '.requiredCounterpartyFields = [{"profile":"PASSPORT","mandatory":true}]' requiredCounterpartyFields "unknown profile"
jok '[.details | to_entries[] | select(.key | startswith("supportedCurrencies[1].requiredCounterpartyFields")) | .value]
     | any(test("FULL_NAME") and test("BIRTH_DATE") and test("NATIONALITY"))' \
    "unknown profile: the rule lists FULL_NAME, BIRTH_DATE, NATIONALITY"
bad_entry '.requiredCounterpartyFields = [{"profile":"FULL_NAME","mandatory":"yes"}]' requiredCounterpartyFields "mandatory not a boolean"
bad_entry '.requiredCounterpartyFields = [{"profile":"FULL_NAME","mandatory":1}]' requiredCounterpartyFields "mandatory as a number"
bad_entry '.requiredCounterpartyFields = [{"profile":"FULL_NAME"}]' requiredCounterpartyFields "field without mandatory"
bad_entry '.requiredCounterpartyFields = [{"mandatory":true}]' requiredCounterpartyFields "field without profile"
bad_entry '.requiredCounterpartyFields = [{"profile":"FULL_NAME","mandatory":true,"x":1}]' requiredCounterpartyFields "field with an extra key"
bad_entry '.requiredCounterpartyFields = ["FULL_NAME"]' requiredCounterpartyFields "field not an object"
bad_entry '.requiredCounterpartyFields = {}' requiredCounterpartyFields "requiredCounterpartyFields not an array"
bad_entry '.decimals = 2' decimals "entry with an extra property"

for bad in '"USD"' '{}' 'null' '[1]' '["USD"]'; do
    api PATCH /config "{\"supportedCurrencies\":$bad}"
    is_error 400 INVALID_REQUEST "PATCH supportedCurrencies $bad"
    jok '.details | keys | any(startswith("supportedCurrencies"))' "PATCH supportedCurrencies $bad: details names it"
done

api GET /config
jis .supportedCurrencies "$CUR" "supportedCurrencies unchanged by the rejected PATCHes"

# --- a PATCH is all or nothing ----------------------------------------------------------------
api PATCH /config '{"webhookEndpoint":"https://example.com/atomic","quoteFeePolicy":{"senderServiceFeeBps":10001,"receiverServiceFeeBps":0}}'
is_error 400 INVALID_REQUEST "PATCH good webhookEndpoint + bad quoteFeePolicy"
api PATCH /config "{\"webhookEndpoint\":\"https://example.com/atomic\",\"supportedCurrencies\":[$(jq -c '.currencyCode="XXQ"' <<<"$GOOD")]}"
is_error 400 INVALID_REQUEST "PATCH good webhookEndpoint + bad supportedCurrencies"
api GET /config
jis .webhookEndpoint "\"$url\"" "nothing applied from the rejected PATCHes"

# --- {} and read-only fields ---------------------------------------------------------------------
api GET /config
cur=$BODY
api PATCH /config '{}'
is_status 200 "PATCH /config {}: 200"
jis . "$cur" "PATCH /config {}: config unchanged"

for f in '"umaDomain":"evil.test"' '"ppvDomain":"evil.test"' "\"id\":\"$orig_id\"" \
    '"createdAt":"2020-01-01T00:00:00.000Z"' '"updatedAt":"2020-01-01T00:00:00.000Z"' \
    "\"platformId\":\"Platform:$XB_PLATFORM_ID\""; do
    key=${f%%\":*}
    key=${key#\"}
    api PATCH /config "{$f}"
    is_error 400 INVALID_REQUEST "PATCH /config $key (not writable)"
    has_details "$key" "PATCH /config $key: details.$key"
done
api GET /config
jis . "$cur" "config unchanged by the read-only fields"

# --- permissions -------------------------------------------------------------------------------
create_token "$(uniq_name t30-view)" '["view"]'
v=$TOK_ID v_id=$TOK_CLIENT_ID v_secret=$TOK_SECRET
api --as "$v_id" "$v_secret" GET /config
is_status 200 "view token: GET /config 200"
jis . "$cur" "view token: the same config"
api --as "$v_id" "$v_secret" PATCH /config '{"webhookEndpoint":null}'
is_error 403 FORBIDDEN "view token: PATCH /config"
jis .details.requiredAccessLevel '"manage"' "view token: PATCH /config: details.requiredAccessLevel manage"
api DELETE "/tokens/$v"
is_status 200 "clean up: revoke the view token"

# --- isolation -----------------------------------------------------------------------------------
if ((p_ok)); then
    api --as "$p_id" "$p_secret" GET /config
    jis . "$p_orig" "other platform: config untouched by the main platform's PATCHes"
    api --as "$p_id" "$p_secret" PATCH /config '{"webhookEndpoint":"https://other.example/hook","quoteFeePolicy":{"senderServiceFeeBps":1,"receiverServiceFeeBps":2}}'
    is_status 200 "other platform: PATCH its own config"
    jis .id "$(j .id "$p_orig")" "other platform: its own config id"
    api GET /config
    jis . "$cur" "main platform: config untouched by the other platform's PATCH"
else
    skip "no second platform" 7
fi

# --- restore --------------------------------------------------------------------------------------
api PATCH /config "$(j '{webhookEndpoint, quoteFeePolicy, supportedCurrencies}' "$orig")"
is_status 200 "restore the main platform's config"
api GET /config
jis 'del(.updatedAt)' "$(j 'del(.updatedAt)' "$orig")" "main platform's config restored"
[[ $STATUS == 200 ]] && restored=1

done_testing
