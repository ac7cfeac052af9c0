# t/lib/money.sh - fixtures shared by the money suites (70, 71, 72):
# customers, internal and external accounts, funding, transfer bodies,
# waiting for settlement and the exact shape of both Transaction variants.
# Sourced after api.sh.

[[ -n ${_MONEY_SH_LOADED:-} ]] && return 0
_MONEY_SH_LOADED=1

OUT_KEYS='transactionId quoteId type status customerId platformCustomerId createdAt updatedAt settledAt source destination sentAmount'
IN_KEYS='transactionId quoteId type status customerId platformCustomerId createdAt updatedAt settledAt destination receivedAmount'
TX_STATUSES='["CREATED","PENDING","PROCESSING","COMPLETED","REJECTED","FAILED","REFUNDED","EXPIRED"]'

# json_str S: S as a JSON string.
json_str() { jq -Rn --arg s "$1" '$s'; }

# mk_customer WHAT [api options]: POST /customers (2 tests).  Sets CUST,
# CUST_PCID, CUST_PPV.
mk_customer() {
    local what=$1
    shift
    CUST_PCID=$(uniq_name "$what")
    api "$@" POST /customers "{\"platformCustomerId\":\"$CUST_PCID\",\"customerType\":\"INDIVIDUAL\",\"fullName\":\"Test $what\"}"
    is_status 201 "POST /customers ($what): 201"
    CUST=$(jr .id) CUST_PPV=$(jr .ppvAddress)
}

# int_account CUSTOMER [CURRENCY] [api options]: the customer's internal
# account (1 test).  Sets INT.
int_account() {
    local cust=$1 cur=${2:-USD}
    shift $(($# < 2 ? $# : 2))
    api "$@" GET "/customers/internal-accounts?customerId=$cust&currency=$cur"
    INT=$(jr '.data[0].id')
    ACCT_CUST[$INT]=$cust
    like "$INT" "^InternalAccount:${UUID4_RE#^}" "internal $cur account of $cust"
}

# mk_ext CUSTOMER ACCOUNT_NUMBER [CURRENCY] [api options]: POST
# /customers/external-accounts (1 test).  Sets EXT.
mk_ext() {
    local cust=$1 num=$2 cur=${3:-USD}
    shift $(($# < 3 ? $# : 3))
    api "$@" POST /customers/external-accounts "{\"customerId\":\"$cust\",\"currency\":\"$cur\",\"platformAccountId\":\"$(uniq_name pa)\",
        \"accountInfo\":{\"accountType\":\"CHECKING\",\"accountCategory\":\"PERSONAL\",\"bankName\":\"Test Bank\",
        \"accountNumber\":\"$num\",\"routingNumber\":\"021000021\"}}"
    is_status 201 "external account ...${num: -4} ($cur) of $cust: 201"
    EXT=$(jr .id)
}

# fund ACCOUNT AMOUNT [api options]: sandbox funding (1 test).
fund() {
    local acct=$1 n=$2
    shift $(($# < 2 ? $# : 2))
    api "$@" POST "/sandbox/internal-accounts/$acct/fund" "{\"amountMinor\":$n}"
    is_status 200 "fund $acct with $n: 200"
}

# balance_of ACCOUNT [api options]: sets BAL to the account's balance
# (amountMinor; empty when it cannot be read), from the customer's list of
# internal accounts (int_account recorded whose it is).  No test; keeps
# STATUS and BODY.
declare -A ACCT_CUST=()
balance_of() {
    local acct=$1
    shift
    local save_s=$STATUS save_b=$BODY save_h=$HEADERS
    api --nocheck "$@" GET "/customers/internal-accounts?customerId=${ACCT_CUST[$acct]:-none}&limit=100"
    BAL=$(jq -r --arg a "$acct" '.data[] | select(.id == $a) | .balance.amountMinor' <<<"$BODY" 2>/dev/null)
    STATUS=$save_s BODY=$save_b HEADERS=$save_h
}

# money CURRENCY AMOUNT: a MoneyAmount JSON object.
money() { printf '{"currencyCode":"%s","amountMinor":"%s"}' "$1" "$2"; }

# xfer_body SRC DST AMOUNT [CURRENCY]: a transfer body.
xfer_body() {
    printf '{"source":{"accountId":"%s"},"destination":{"accountId":"%s"},"amount":%s}' \
        "$1" "$2" "$(money "${4:-USD}" "$3")"
}

# wait_status TXID STATES_REGEX [SECONDS] [api options]: polls GET
# /transactions/TXID (uncounted) until its status matches; BODY is the last
# answer, SEEN the statuses seen in order.  Returns non-zero on timeout.
wait_status() {
    local id=$1 re=$2 secs=${3:-10}
    shift $(($# < 3 ? $# : 3))
    local deadline=$((SECONDS + secs)) st
    SEEN=()
    while :; do
        api --nocheck "$@" GET "/transactions/$id"
        st=$(jr .status)
        [[ ${#SEEN[@]} -gt 0 && ${SEEN[-1]} == "$st" ]] || SEEN+=("$st")
        [[ $STATUS == 200 && $st =~ ^($re)$ ]] && return 0
        ((SECONDS >= deadline)) && return 1
        sleep 0.1
    done
}

# settles TXID STATES_REGEX NAME [api options]: wait_status, as one test.
settles() {
    local id=$1 re=$2 name=$3
    shift 3
    if wait_status "$id" "$re" 10 "$@"; then
        pass "$name"
    else
        fail "$name"
        diag "    last answer: $STATUS $(_tap_show "$BODY")"
        return 1
    fi
}

# tx_shape WHAT KIND: the full shape of a Transaction of KIND (in|out) in $BODY.
tx_shape() {
    local what=$1 kind=$2
    if [[ $kind == out ]]; then
        has_keys "$BODY" "$OUT_KEYS" "$what: exactly the outgoing variant's keys"
        jis .type '"OUTGOING"' "$what: type OUTGOING"
        jok '(.source | type) == "object" and (.source | keys) == ["accountId","sourceType"]
             and .source.sourceType == "INTERNAL_ACCOUNT"' "$what: source {accountId, sourceType INTERNAL_ACCOUNT}"
        jok '(.sentAmount | keys) == ["amountMinor","currencyCode"] and (.sentAmount.amountMinor | test("^[0-9]+$"))
             and (.sentAmount.currencyCode | test("^[A-Z]{3}$"))' "$what: sentAmount is a MoneyAmount"
        jok '.destination.destinationType == "EXTERNAL_ACCOUNT"' "$what: destinationType EXTERNAL_ACCOUNT"
    else
        has_keys "$BODY" "$IN_KEYS" "$what: exactly the incoming variant's keys"
        jis .type '"INCOMING"' "$what: type INCOMING"
        jok '(.receivedAmount | keys) == ["amountMinor","currencyCode"] and (.receivedAmount.amountMinor | test("^[0-9]+$"))
             and (.receivedAmount.currencyCode | test("^[A-Z]{3}$"))' "$what: receivedAmount is a MoneyAmount"
        jok '.destination.destinationType == "PPV_ADDRESS"' "$what: destinationType PPV_ADDRESS"
    fi
    like "$(jr .transactionId)" "^Transaction:${UUID4_RE#^}" "$what: transactionId is Transaction:<uuid4>"
    jis .quoteId null "$what: quoteId null"
    jok --arg s "$TX_STATUSES" '.status as $st | ($s | fromjson | index($st)) != null' "$what: status is one of the 8"
    jok '(.destination | type) == "object" and (.destination | keys) == ["accountId","destinationType"]' \
        "$what: destination {accountId, destinationType}"
    like "$(jr .createdAt)" "$TS_RE" "$what: createdAt UTC with milliseconds"
    like "$(jr .updatedAt)" "$TS_RE" "$what: updatedAt UTC with milliseconds"
    jok '.createdAt <= .updatedAt' "$what: createdAt <= updatedAt"
    if [[ $(jr .status) == COMPLETED || $(jr .status) == REFUNDED ]]; then
        like "$(jr .settledAt)" "$TS_RE" "$what: settled, settledAt is a timestamp"
        jok '.settledAt >= .createdAt and .settledAt <= .updatedAt' "$what: createdAt <= settledAt <= updatedAt"
    else
        jis .settledAt null "$what: $(jr .status), settledAt null"
    fi
}


# --- quotes (t/90-*.t .. t/92-*.t) ---------------------------------------------------------
# Key sets of the quote resources, bodies of POST /quotes, the full shape of
# a Quote, of a summary row and of a quote's transaction, the platforms'
# own (fee) accounts, and the platform settings that price a quote.

QUOTE_ROW_KEYS='quoteId transactionId createdAt expiresAt lockedCurrencySide lockedCurrencyAmount sendingAmount receivingAmount feesTotal status'
QUOTE_KEYS="$QUOTE_ROW_KEYS customerId source destination exchangeRate executedAt"
QUOTE_TX_KEYS="$OUT_KEYS fees exchangeRate"
QUOTE_RE="^Quote:${UUID4_RE#^}"
# jq definitions for the filters below: ts (a timestamp of the API's form),
# ms (a timestamp in epoch milliseconds), amount (a MoneyAmount), uuid.
QJQ='def ts: type == "string" and test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$");
def ms: (.[0:19] + "Z" | fromdate) * 1000 + (.[20:23] | tonumber);
def amount: type == "object" and keys == ["amountMinor","currencyCode"]
    and (.amountMinor | type == "string" and test("^(0|[1-9][0-9]*)$"))
    and (.currencyCode | type == "string" and test("^[A-Z]{3}$"));
def uuid: "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}";
def id(kind): type == "string" and test("^" + kind + ":" + uuid + "$");'

# ppv_quote SOURCE PPV CURRENCY SIDE AMOUNT [COUNTERPARTY_JSON]: a POST
# /quotes body paying a PPV address.
ppv_quote() {
    local cp=
    [[ -n ${6:-} ]] && cp=",\"senderCounterpartyInfo\":$6"
    printf '{"source":{"accountId":"%s"},"destination":{"destinationType":"PPV_ADDRESS","ppvAddress":"%s","currencyCode":"%s"},"lockedCurrencySide":"%s","lockedCurrencyAmount":"%s"%s}' \
        "$1" "$2" "$3" "$4" "$5" "$cp"
}

# ext_quote SOURCE EXTERNAL_ACCOUNT SIDE AMOUNT [COUNTERPARTY_JSON]: a POST
# /quotes body paying an external account.
ext_quote() {
    local cp=
    [[ -n ${5:-} ]] && cp=",\"senderCounterpartyInfo\":$5"
    printf '{"source":{"accountId":"%s"},"destination":{"destinationType":"EXTERNAL_ACCOUNT","accountId":"%s"},"lockedCurrencySide":"%s","lockedCurrencyAmount":"%s"%s}' \
        "$1" "$2" "$3" "$4" "$cp"
}

# quote_shape WHAT: the full shape of a Quote in $BODY (10 tests).
quote_shape() {
    local what=$1
    has_keys "$BODY" "$QUOTE_KEYS" "$what: exactly the Quote's keys"
    jok "$QJQ"' (.quoteId | id("Quote")) and (.transactionId | id("Transaction")) and (.customerId | id("Customer"))' \
        "$what: quoteId, transactionId, customerId are Quote:, Transaction:, Customer:<uuid4>"
    jok "$QJQ"' (.createdAt | ts) and (.expiresAt | ts) and (.expiresAt | ms) > (.createdAt | ms)
         and (.executedAt == null or ((.executedAt | ts) and (.executedAt | ms) >= (.createdAt | ms)))' \
        "$what: createdAt < expiresAt, executedAt null or a timestamp, UTC with milliseconds"
    jok '(.lockedCurrencySide == "SENDING" or .lockedCurrencySide == "RECEIVING")
         and (.lockedCurrencyAmount | type == "string" and test("^[1-9][0-9]*$"))
         and .lockedCurrencyAmount == (if .lockedCurrencySide == "SENDING" then .sendingAmount else .receivingAmount end).amountMinor' \
        "$what: lockedCurrencySide SENDING|RECEIVING, lockedCurrencyAmount the locked side's amount"
    jok "$QJQ"' (.sendingAmount | amount) and (.receivingAmount | amount) and (.feesTotal | amount)
         and .feesTotal.currencyCode == .sendingAmount.currencyCode' \
        "$what: sendingAmount, receivingAmount, feesTotal are MoneyAmounts, feesTotal in the sending currency"
    jok '.status == "QUOTE_READY" or .status == "BLOCKED" or .status == "EXPIRED"' "$what: status QUOTE_READY|BLOCKED|EXPIRED"
    jok "$QJQ"' .source | type == "object" and keys == ["accountId","sourceType"]
         and .sourceType == "INTERNAL_ACCOUNT" and (.accountId | id("InternalAccount"))' \
        "$what: source {accountId InternalAccount:<uuid4>, sourceType INTERNAL_ACCOUNT}"
    jok "$QJQ"' . as $q | .destination | type == "object" and
         if .destinationType == "PPV_ADDRESS" then keys == ["currencyCode","destinationType","ppvAddress"]
             and (.ppvAddress | type == "string" and test("^[^$@]+@[^@]+$"))
             and .currencyCode == $q.receivingAmount.currencyCode
         elif .destinationType == "EXTERNAL_ACCOUNT" then keys == ["accountId","destinationType"] and (.accountId | id("ExternalAccount"))
         else false end' \
        "$what: destination {PPV_ADDRESS, ppvAddress without \$, currencyCode = receiving} or {EXTERNAL_ACCOUNT, accountId}"
    like "$(jr .exchangeRate)" '^[0-9]+\.[0-9]{8}$' "$what: exchangeRate a decimal string with exactly 8 decimals"
    jok '(.sendingAmount.amountMinor | tonumber) > (.feesTotal.amountMinor | tonumber)' "$what: sendingAmount exceeds feesTotal"
}

# quote_rows WHAT: every row of the list in $BODY is exactly a summary row
# (1 test).
quote_rows() {
    jok "$QJQ"' (.data | type) == "array" and all(.data[]; keys == ["createdAt","expiresAt","feesTotal","lockedCurrencyAmount",
            "lockedCurrencySide","quoteId","receivingAmount","sendingAmount","status","transactionId"]
         and (.quoteId | id("Quote")) and (.transactionId | id("Transaction")) and (.createdAt | ts) and (.expiresAt | ts)
         and (.sendingAmount | amount) and (.receivingAmount | amount) and (.feesTotal | amount)
         and (.status == "QUOTE_READY" or .status == "BLOCKED" or .status == "EXPIRED"))' \
        "$1: every row has exactly the summary row's keys, in their forms"
}

# quote_tx_shape WHAT: the full shape of a quote's (OUTGOING) Transaction in
# $BODY (6 tests).
quote_tx_shape() {
    local what=$1
    has_keys "$BODY" "$QUOTE_TX_KEYS" "$what: exactly the outgoing variant's keys with fees and exchangeRate"
    jok "$QJQ"' .type == "OUTGOING" and (.quoteId | id("Quote")) and (.transactionId | id("Transaction"))
         and (.customerId | id("Customer")) and (.platformCustomerId | type) == "string"' \
        "$what: OUTGOING with quoteId Quote:<uuid4>, transactionId, customerId, platformCustomerId"
    jok "$QJQ"' (.source | keys) == ["accountId","sourceType"] and .source.sourceType == "INTERNAL_ACCOUNT"
         and (.source.accountId | id("InternalAccount"))
         and (.destination | keys) == ["accountId","destinationType"]
         and (.destination.destinationType == "PPV_ADDRESS" or .destination.destinationType == "EXTERNAL_ACCOUNT")
         and (.destination.accountId | type) == "string"' \
        "$what: source {accountId, INTERNAL_ACCOUNT}, destination {accountId, PPV_ADDRESS|EXTERNAL_ACCOUNT}"
    jok "$QJQ"' (.sentAmount | amount) and (.fees | amount) and .fees.currencyCode == .sentAmount.currencyCode
         and (.exchangeRate | type == "string" and test("^[0-9]+\\.[0-9]{8}$"))' \
        "$what: sentAmount and fees MoneyAmounts in one currency, exchangeRate with 8 decimals"
    jok "$QJQ"' (.createdAt | ts) and (.updatedAt | ts) and (.createdAt | ms) <= (.updatedAt | ms)' \
        "$what: createdAt <= updatedAt, UTC with milliseconds"
    if [[ $(jr .status) == COMPLETED || $(jr .status) == REFUNDED ]]; then
        jok "$QJQ"' (.settledAt | ts) and (.settledAt | ms) >= (.createdAt | ms) and (.settledAt | ms) <= (.updatedAt | ms)' \
            "$what: $(jr .status), createdAt <= settledAt <= updatedAt"
    else
        jis .settledAt null "$what: $(jr .status), settledAt null"
    fi
}

# quote_tx_of QUOTE_JSON: the fields a quote's transaction takes from its
# quote, as JSON (for jis '{quoteId, transactionId, customerId, source,
# sentAmount, fees, exchangeRate}').
quote_tx_of() {
    jq -c '{quoteId, transactionId, customerId, source, sentAmount: .sendingAmount, fees: .feesTotal, exchangeRate}' <<<"$1"
}
QUOTE_TX_FIELDS='{quoteId, transactionId, customerId, source, sentAmount, fees, exchangeRate}'

# fee_balance CURRENCY [api options]: sets FEE to the balance of the
# platform's own internal account in CURRENCY (GET /platform/internal-
# accounts; 0 when it has none yet, "several" when it has more than one).
# No test; keeps STATUS, BODY and HEADERS.
fee_balance() {
    local cur=$1
    shift
    local save_s=$STATUS save_b=$BODY save_h=$HEADERS
    api --nocheck "$@" GET "/platform/internal-accounts?currency=$cur&limit=100"
    if [[ $STATUS == 200 ]]; then
        FEE=$(jq -r --arg c "$cur" '[.data[] | select(.currency == $c)] |
            if length == 0 then 0 elif length == 1 then .[0].balance.amountMinor else "several" end' <<<"$BODY")
    else
        FEE="(HTTP $STATUS)"
    fi
    STATUS=$save_s BODY=$save_b HEADERS=$save_h
}

# set_profile SPREAD_BPS LOCK_SECONDS [api options]: PATCH the platform's
# lightning execution profile (1 test).
set_profile() {
    local sp=$1 lock=$2
    shift 2
    api --nocheck "$@" PATCH /sandbox/lightning-execution-profile "{\"btcFiatSpreadBps\":$sp,\"lockPriceDurationSeconds\":$lock}"
    is "$STATUS $(j .)" "200 {\"btcFiatSpreadBps\":$sp,\"lockPriceDurationSeconds\":$lock}" \
        "profile set: btcFiatSpreadBps $sp, lockPriceDurationSeconds $lock"
}

# set_fees SENDER_BPS RECEIVER_BPS [api options]: PATCH the platform's
# quoteFeePolicy (1 test).
set_fees() {
    local s=$1 r=$2
    shift 2
    api --nocheck "$@" PATCH /config "{\"quoteFeePolicy\":{\"senderServiceFeeBps\":$s,\"receiverServiceFeeBps\":$r}}"
    is "$STATUS $(j .quoteFeePolicy)" "200 {\"receiverServiceFeeBps\":$r,\"senderServiceFeeBps\":$s}" \
        "quoteFeePolicy set: senderServiceFeeBps $s, receiverServiceFeeBps $r"
}

# cur_entry CODE MIN MAX TYPES [PROFILE[=false]...]: a supportedCurrencies
# entry (TYPES: in, out or both; FULL_NAME is always required, the other
# profiles named are mandatory unless written PROFILE=false).
cur_entry() {
    local code=$1 min=$2 max=$3 types=$4 rf='{"profile":"FULL_NAME","mandatory":true}' p
    shift 4
    for p in "$@"; do
        if [[ $p == *=false ]]; then
            rf+=",{\"profile\":\"${p%=false}\",\"mandatory\":false}"
        else
            rf+=",{\"profile\":\"$p\",\"mandatory\":true}"
        fi
    done
    case $types in
        in) types='["INCOMING"]' ;;
        out) types='["OUTGOING"]' ;;
        *) types='["OUTGOING","INCOMING"]' ;;
    esac
    printf '{"currencyCode":"%s","minAmount":%s,"maxAmount":%s,"enabledTransactionTypes":%s,"requiredCounterpartyFields":[%s]}' \
        "$code" "$min" "$max" "$types" "$rf"
}

# set_currencies ENTRIES_JSON_ARRAY [api options]: PATCH the platform's
# supportedCurrencies (1 test).
set_currencies() {
    local cur=$1
    shift
    api --nocheck "$@" PATCH /config "{\"supportedCurrencies\":$cur}"
    is "$STATUS $(j '[.supportedCurrencies[].currencyCode] | sort | join(",")')" \
        "200 $(jq -c '[.[].currencyCode] | sort | join(",")' <<<"$cur")" "supportedCurrencies set"
}

# fx_prices CUR=PRICE...: sets reference prices with xborderctl fx-set; at
# exit the currencies set or unset get back what they had before: their
# price, or none (xborderctl fx-unset) (1 test).
fx_prices() {
    local kv ok=1
    _fx_save
    for kv in "$@"; do
        xbctl fx-set "${kv%%=*}" "${kv#*=}" >/dev/null || ok=0
        _FX_SET+="${kv%%=*} "
    done
    ok "$ok" "xborderctl fx-set $*"
}

# fx_unset CUR...: removes reference prices with xborderctl fx-unset, each
# of which must have one; restored at exit as fx_prices does (1 test).
fx_unset() {
    local c ok=1
    _fx_save
    for c in "$@"; do
        xbctl fx-unset "$c" >/dev/null || ok=0
        _FX_SET+="$c "
    done
    ok "$ok" "xborderctl fx-unset $*"
}

_fx_save() {
    if [[ -z ${_FX_SAVED+x} ]]; then
        _FX_LISTED=0
        _FX_SAVED=$(xbctl fx-list 2>/dev/null) && _FX_LISTED=1
        _FX_SET=" "
        at_exit '_fx_restore'
    fi
}
_fx_restore() {
    local cur price rest had=" "
    while IFS=$'\t' read -r cur price rest; do
        [[ -n $cur ]] && had+="$cur "
        if [[ $_FX_SET == *" $cur "* && $price =~ ^[0-9]+$ ]]; then
            xbctl fx-set "$cur" "$price" >/dev/null || return 1
        fi
    done <<<"$_FX_SAVED"
    # Unset only what the saved list shows had no price.
    ((_FX_LISTED)) || return 0
    for cur in $_FX_SET; do
        if [[ $had != *" $cur "* ]]; then
            xbctl fx-unset "$cur" >/dev/null 2>&1
        fi
    done
    return 0
}
