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

