#!/usr/bin/env bash
# 11-auth-isolation.t - credentials that have not proven their secret read
# nothing but the token, and failures lock out one client address, not the
# clientId (decisions.md section 2).
#
#  - With a wrong secret, a revoked token or a throttled clientId, every
#    request sends the same statements whatever it asks for: an existing or
#    a random customerId, a deep cursor, an existing or a random transaction
#    id (the workers' log line of each request, db_statements), so a former
#    token holder learns nothing of the platform's data from a refusal.
#  - A token revoked after its secret was proven: each worker may read once
#    more with the proof it holds, then drops it.
#  - Ten wrong secrets for a clientId from one address give 429 from that
#    address only: the owner, from another address, is served.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
no_plan

FLOG=$XB_DEV_DIR/log/xborder-fcgi.log
[[ -r $FLOG ]] || BAIL_OUT "no xborder-fcgi log at $FLOG"
WORKERS=$(awk -F' *= *' '$1 == "workers" { print $2 }' "$XB_CONF")
[[ $WORKERS =~ ^[0-9]+$ ]] || WORKERS=4

# stmts_of: sets ST to db_statements of the last call's request, from its
# line in the workers' log (written just after the answer: waited for, 5 s).
stmts_of() {
    local rid line=
    header_to rid X-Request-Id
    ST=
    [[ -n $rid ]] || return 1
    wait_for 'line=$(grep -F "request_id=$rid " "$FLOG" | grep -m1 -F "msg=request ")' 5 || return 1
    ST=$(sed -n 's/.* db_statements=\([0-9]*\).*/\1/p' <<<"$line")
}

new_platform t11 || BAIL_OUT "platform-create failed"
A=(--as "$NP_CLIENT_ID" "$NP_SECRET")
A_ID=$NP_CLIENT_ID A_SECRET=$NP_SECRET

mk_customer t11 "${A[@]}"
C1=$CUST
int_account "$C1" USD "${A[@]}"
mk_ext "$C1" 000111222333 USD "${A[@]}"
api "${A[@]}" POST /transfer-in "$(xfer_body "$EXT" "$INT" 1500)"
is_status 201 "a transfer-in, so the platform has a transaction"
TX1=$(jr .transactionId)

# The root secret proven on every worker: before the fix, a wrong secret
# for it read the list page in the platform these workers had seen.
for ((i = 0; i < 4 * WORKERS; i++)); do api --nocheck "${A[@]}" GET /config; done

QUERIES=(
    "/transactions?customerId=$C1&limit=1"
    "/transactions?customerId=Customer:$(uuid4)&limit=1"
    "/transactions?cursor=100000&limit=1"
    "/transactions?platformCustomerId=$CUST_PCID"
    "/transactions/$TX1"
    "/transactions/Transaction:$(uuid4)"
    "/config"
)

# refused_alike WHAT STATUS CODE ROUNDS [api args]: every query of QUERIES,
# ROUNDS times over, is refused with STATUS CODE and sends as many
# statements as GET /config does with the same credentials.  (Fewer than
# ten failures from one address, unless the clientId is throttled already.)
refused_alike() {
    local what=$1 want=$2 code=$3 rounds=$4 q base= seen=() round
    shift 4
    for ((round = 1; round <= rounds; round++)); do
        for q in "${QUERIES[@]}"; do
            api "$@" GET "$q" '' "${VIA[@]}"
            [[ $round == 1 ]] && is_error "$want" "$code" "$what: GET ${q:0:50} refused"
            stmts_of
            seen+=("${ST:-?}")
        done
    done
    base=${seen[$((${#QUERIES[@]} - 1))]}
    like "$base" '^[0-9]+$' "$what: the log line gives db_statements ($base for GET /config)"
    is "$(printf '%s\n' "${seen[@]}" | sort -u | tr '\n' ' ')" "$base " \
        "$what: every query sends the same statements (${seen[*]})"
}

# Each case from an address of its own (curl --interface), so its failures
# lock out nothing the rest of the file uses.
VIA=(--interface 127.0.0.4)
refused_alike "wrong secret for a proven clientId" 401 UNAUTHORIZED 1 --as "$A_ID" "$(b64 wrong-secret)"

create_token t11-unused '["view"]' "${A[@]}"
U_ID=$TOK_CLIENT_ID U_SECRET=$TOK_SECRET
api "${A[@]}" DELETE "/tokens/$TOK_ID"
is_status 200 "a token revoked before any use"
VIA=(--interface 127.0.0.5)
refused_alike "revoked token, never used" 401 UNAUTHORIZED 1 --as "$U_ID" "$U_SECRET"

# Throttled from this address: ten failures counted, then 429 for any query.
# (A secret a worker has proven may read with its token even then: its
# holder is the owner.  This one was never used, so no worker has.)
create_token t11-throttled '["view"]' "${A[@]}"
T_ID=$TOK_CLIENT_ID T_SECRET=$TOK_SECRET
for i in $(seq 1 10); do api --nocheck --as "$T_ID" "wrong-$i" GET /config; done
api --as "$T_ID" "wrong-11" GET /config
is_error 429 RATE_LIMITED "10 failures from 127.0.0.1: the 11th attempt is 429"
VIA=()
refused_alike "throttled clientId, right secret" 429 RATE_LIMITED 2 --as "$T_ID" "$T_SECRET"
refused_alike "throttled clientId, wrong secret" 429 RATE_LIMITED 2 --as "$T_ID" wrong

# --- a proof ends with its token -------------------------------------------------
create_token t11-later '["view"]' "${A[@]}"
R_ID=$TOK_CLIENT_ID R_SECRET=$TOK_SECRET R_TOK=$TOK_ID
for ((i = 0; i < 4 * WORKERS; i++)); do
    api --nocheck --as "$R_ID" "$R_SECRET" GET "/transactions?customerId=$C1&limit=1"
done
is "$STATUS" 200 "a token used on every worker"
api "${A[@]}" DELETE "/tokens/$R_TOK"
is_status 200 "then revoked"
api --as "$R_ID" "$R_SECRET" GET /config
is_error 401 UNAUTHORIZED "revoked: 401 at once"
stmts_of
base=$ST
odd=0
# (At most nine failures from this address: no throttle meddles.)
for ((i = 0; i < 8; i++)); do
    q=${QUERIES[$((i % 3))]}
    api --nocheck --as "$R_ID" "$R_SECRET" GET "$q"
    [[ $STATUS == 401 ]] || { fail "revoked token: GET $q is $STATUS"; continue; }
    stmts_of
    [[ $ST == "$base" ]] || odd=$((odd + 1))
done
ok "$((odd <= WORKERS))" "revoked after use: at most one read per worker with the old proof ($odd of 8)"

# --- failures lock out one address -------------------------------------------------
for i in $(seq 1 10); do
    api --nocheck --as "$A_ID" "bad-$i" GET /config '' --interface 127.0.0.2
    [[ $STATUS == 401 ]] || fail "wrong secret $i from 127.0.0.2: $STATUS"
done
api --as "$A_ID" "$A_SECRET" GET /config '' --interface 127.0.0.2
is_error 429 RATE_LIMITED "root clientId after 10 failures from 127.0.0.2: 429 there, right secret too"
like "$(header Retry-After)" '^[1-9][0-9]*$' "429 carries Retry-After"
api --as "$A_ID" "$A_SECRET" GET /config
is_status 200 "the same clientId from 127.0.0.1: served"
api --as "$A_ID" "bad-again" GET /config
is_error 401 UNAUTHORIZED "a wrong secret from 127.0.0.1 is 401, not 429"
api --as "$A_ID" "$A_SECRET" GET /config '' --interface 127.0.0.3
is_status 200 "and from a third address: served"
api --as "$T_ID" "$T_SECRET" GET /config '' --interface 127.0.0.2
is_status 200 "the token throttled from 127.0.0.1 is served from 127.0.0.2"

done_testing
