#!/usr/bin/env bash
# 85-webhook-keys.t - every platform signs its webhooks with a key of its
# own (decisions 11), on two platforms of their own, A and B, against a
# local receiver (t/lib/webhook-receiver.mjs); signatures are checked with
# openssl pkeyutl -verify over "<t>.<body>":
#  - GET /webhooks/signing-key: A's and B's keys differ (keyId and PEM),
#    each stable; ?keyId= answers a platform's own key and is 404 NOT_FOUND
#    for the other platform's;
#  - an event the worker delivers to B verifies under B's key and not under
#    A's (B cannot replay its own signed events to A's receiver), and the
#    other way round; a TEST event likewise;
#  - POST /webhooks/signing-key/rotate: its answer (the new key,
#    previousKeyId, previousKeyExpiresAt 72 h ahead), GET answers the new
#    key, the next POST /webhooks/test and the next delivery verify under
#    the new key and not the old; the old key is served by ?keyId= to A
#    only; a second rotation retires the first key at once; the previous
#    key made old in SQL (past its expiresAt) is 404;
#  - the rotation's body rules (none or {}, else 400 details.body, nothing
#    rotated), 403 FORBIDDEN for a view token (before the body), 401;
#  - xborderctl: webhook-keygen refuses to replace the master without
#    --force; with --force every platform's next use gets a new key (the
#    replaced one readable by keyId), signing verifies under it;
#    webhook-key-list and webhook-key-drop per platform.
# This suite replaces the stack's master secret (webhook-keygen --force),
# as an operator would; every platform's key changes with it.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/webhooks.sh"
no_plan

SOCK=${XB_DEV_DIR:?}/run/mysqld.sock
SIM=/sandbox/incoming-payments/simulate
KEY=/webhooks/signing-key
ROT=/webhooks/signing-key/rotate
KEEP_S=$((72 * 3600))

sql() {
    mariadb --no-defaults --socket="$SOCK" --user="$(id -un)" --batch --skip-column-names \
        xborder -e "$1"
}

# now_ms: epoch milliseconds; ts_ms TS: an API timestamp in epoch ms.
now_ms() { date +%s%3N; }
ts_ms() { jq -rn --arg t "$1" "$QJQ"' $t | ms' 2>/dev/null; }

# getkey NAME [api options]: GET /webhooks/signing-key (200 asserted);
# the body in the variable NAME, its PEM in $WH_DIR/NAME.pem.
getkey() {
    local name=$1
    shift
    api "$@" GET "$KEY"
    is_status 200 "$name: GET $KEY 200"
    printf -v "$name" '%s' "$BODY"
    jq -j .publicKeyPem <<<"$BODY" >"$WH_DIR/$name.pem"
}

# pem_of NAME KEY_JSON: writes the key's PEM to $WH_DIR/NAME.pem.
pem_of() { jq -j .publicKeyPem <<<"$2" >"$WH_DIR/$1.pem"; }

# verifies WHAT REQ PEM_NAME: the request's signature verifies under it (1 test).
verifies() {
    if wh_verify "$2" "$WH_DIR/$3.pem"; then pass "$1"; else fail "$1"; diag "    $WH_VERIFY_ERR"; fi
}

# not_verifies WHAT REQ PEM_NAME: it does not (1 test); the signature
# itself is well-formed (so the failure is the key's).
not_verifies() {
    if wh_verify "$2" "$WH_DIR/$3.pem"; then
        fail "$1"
    elif [[ $WH_VERIFY_ERR == openssl:* ]]; then
        pass "$1"
    else
        fail "$1"
        diag "    $WH_VERIFY_ERR"
    fi
}

# event NAME [api options]: a review case for the platform's customer
# ${NAME}_CUST, so one INCOMING_PAYMENT.PENDING event; waits for its
# delivery under /t85/NAME and sets REQ_EV (the request as received).
event() {
    local name=$1 cust id tx
    cust=${1}_CUST
    shift
    api "$@" POST "$SIM" "{\"receiverCustomerId\":\"${!cust}\",\"scenario\":\"sender_kyc_not_approved\",\"amountMinor\":1000,\"currencyCode\":\"USD\"}"
    is_status 201 "$name: simulate a review case: 201"
    tx=$(jr .transactionId)
    REQ_EV=
    wh_deliveries "$@"
    id=$(jq -r --arg t "$tx" 'first(.[] | select(.transactionId == $t)) | .id // empty' <<<"$WH_ITEMS")
    if [[ $id =~ $WH_ID_RE ]] && wh_wait_event "$id" 15 "/t85/$name"; then
        pass "$name: the event $id is delivered"
        REQ_EV=$(jq -c '.[-1]' <<<"$(wh_reqs_of "$id" "/t85/$name")")
    else
        fail "$name: the event of $tx is delivered"
    fi
}

# test_call NAME [api options]: POST /webhooks/test (200 asserted); sets
# REQ_TEST, the TEST request the receiver got.
test_call() {
    local name=$1 n
    shift
    n=$(wh_count "/t85/$name")
    api "$@" POST /webhooks/test
    is_status 200 "$name: POST /webhooks/test 200"
    REQ_TEST=$(jq -c --argjson n "$n" '.[$n] // empty' <<<"$(wh_reqs "/t85/$name")")
    ok "$([[ -n $REQ_TEST ]] && echo 1)" "$name: the receiver got the TEST event"
}

wh_start
note "receiver on $WH_URL"
wh_platform t85a
A=("${WH_P[@]}") A_ID=$WH_P_ID
wh_platform t85b
B=("${WH_P[@]}") B_ID=$WH_P_ID
use_creds "${A[1]}" "${A[2]}"
wh_set /t85/a
wh_set /t85/b
wh_endpoint "$WH_URL/t85/a"
wh_endpoint "$WH_URL/t85/b" "${B[@]}"
mk_customer t85-a
a_CUST=$CUST
mk_customer t85-b "${B[@]}"
b_CUST=$CUST

# --- each platform its own key ------------------------------------------------------------
getkey KA
has_keys "$KA" 'keyId algorithm publicKeyPem' "A's key: exactly keyId, algorithm, publicKeyPem"
jis .algorithm '"ed25519"' "A's key: algorithm ed25519" "$KA"
getkey KB "${B[@]}"
KA_ID=$(jr .keyId "$KA") KB_ID=$(jr .keyId "$KB")
like "$KA_ID" '^[0-9a-f]{16}$' "A's keyId: 16 lowercase hex digits"
like "$KB_ID" '^[0-9a-f]{16}$' "B's keyId: 16 lowercase hex digits"
isnt "$KA_ID" "$KB_ID" "A and B have different keyIds"
isnt "$(jr .publicKeyPem "$KA")" "$(jr .publicKeyPem "$KB")" "A and B have different public keys"
like "$(openssl pkey -pubin -in "$WH_DIR/KB.pem" -noout -text 2>&1 | head -n 1)" 'ED25519 Public-Key' "B's publicKeyPem is an Ed25519 public key"
api GET "$KEY"
jis . "$KA" "A: GET $KEY again: the same key"
api "${B[@]}" GET "$KEY"
jis . "$KB" "B: GET $KEY again: the same key"
api GET "$KEY?keyId=$KA_ID"
is_status 200 "A: ?keyId=<A's>: 200"
jis . "$KA" "A: ?keyId=<A's>: A's key"
api "${B[@]}" GET "$KEY?keyId=$KA_ID"
is_error 404 NOT_FOUND "B: ?keyId=<A's key>"
api GET "$KEY?keyId=$KB_ID"
is_error 404 NOT_FOUND "A: ?keyId=<B's key>"
api GET "$KEY?keyId=${KA_ID^^}"
if [[ ${KA_ID^^} != "$KA_ID" ]]; then
    is_error 400 INVALID_REQUEST "A: ?keyId=<A's in upper case>"
    has_details keyId "A: a malformed keyId: details names keyId"
fi

# --- deliveries verify under their own platform's key only ---------------------------------
event b "${B[@]}"
verifies "B's event verifies under B's key" "$REQ_EV" KB
not_verifies "B's event does not verify under A's key (no replay to A's receiver)" "$REQ_EV" KA
event a
verifies "A's event verifies under A's key" "$REQ_EV" KA
not_verifies "A's event does not verify under B's key" "$REQ_EV" KB
test_call a
verifies "A's TEST event verifies under A's key" "$REQ_TEST" KA
not_verifies "A's TEST event does not verify under B's key" "$REQ_TEST" KB
test_call b "${B[@]}"
verifies "B's TEST event verifies under B's key" "$REQ_TEST" KB
not_verifies "B's TEST event does not verify under A's key" "$REQ_TEST" KA

# --- rotation --------------------------------------------------------------------------------
t0=$(now_ms)
api POST "$ROT"
t1=$(now_ms)
is_status 200 "A: POST $ROT (no body): 200"
R1=$BODY
has_keys "$R1" 'keyId algorithm publicKeyPem previousKeyId previousKeyExpiresAt' \
    "rotate: exactly keyId, algorithm, publicKeyPem, previousKeyId, previousKeyExpiresAt"
K1_ID=$(jr .keyId "$R1")
like "$K1_ID" '^[0-9a-f]{16}$' "rotate: keyId is 16 lowercase hex digits"
isnt "$K1_ID" "$KA_ID" "rotate: a new keyId"
isnt "$(jr .publicKeyPem "$R1")" "$(jr .publicKeyPem "$KA")" "rotate: a new public key"
jis '[.algorithm, .previousKeyId]' "[\"ed25519\",\"$KA_ID\"]" "rotate: algorithm ed25519, previousKeyId = A's key before" "$R1"
exp=$(jr .previousKeyExpiresAt "$R1")
like "$exp" "$TS_RE" "rotate: previousKeyExpiresAt is a UTC timestamp with milliseconds"
e=$(ts_ms "$exp")
ok "$([[ -n $e ]] && ((e >= t0 + KEEP_S * 1000 - 2000 && e <= t1 + KEEP_S * 1000 + 2000)) && echo 1)" \
    "rotate: previousKeyExpiresAt is 72 h after the rotation ($exp)"
want_id=$(jq -j .publicKeyPem <<<"$R1" | openssl pkey -pubin -outform DER 2>/dev/null | tail -c 32 |
    openssl dgst -sha256 -binary | head -c 8 | od -An -tx1 | tr -d ' \n')
is "$K1_ID" "$want_id" "rotate: keyId = hex of the first 8 bytes of SHA-256 over the new raw key"
getkey K1
jis . "$(jq -c '{keyId, algorithm, publicKeyPem}' <<<"$R1")" "A: GET $KEY after the rotation: the new key" "$K1"
api GET "$KEY?keyId=$KA_ID"
is_status 200 "A: ?keyId=<the previous key>: 200 (kept 72 h)"
jis . "$KA" "A: ?keyId=<the previous key>: the previous key as it was"
api "${B[@]}" GET "$KEY?keyId=$KA_ID"
is_error 404 NOT_FOUND "B: ?keyId=<A's previous key>"
api "${B[@]}" GET "$KEY?keyId=$K1_ID"
is_error 404 NOT_FOUND "B: ?keyId=<A's new key>"
api "${B[@]}" GET "$KEY"
jis . "$KB" "B: A's rotation leaves B's key as it was"
test_call a
verifies "after the rotation: the TEST event verifies under the new key" "$REQ_TEST" K1
not_verifies "after the rotation: the TEST event does not verify under the old key" "$REQ_TEST" KA
event a
verifies "after the rotation: the worker's delivery verifies under the new key" "$REQ_EV" K1
not_verifies "after the rotation: the worker's delivery does not verify under the old key" "$REQ_EV" KA
test_call b "${B[@]}"
verifies "after A's rotation: B's TEST event still verifies under B's key" "$REQ_TEST" KB

# --- a second rotation retires the first key at once ------------------------------------------
api POST "$ROT" '{}'
is_status 200 "A: POST $ROT with {}: 200"
R2=$BODY
K2_ID=$(jr .keyId "$R2")
jis .previousKeyId "\"$K1_ID\"" "second rotation: previousKeyId is the first rotation's key" "$R2"
isnt "$K2_ID" "$K1_ID" "second rotation: another new key"
api GET "$KEY?keyId=$KA_ID"
is_error 404 NOT_FOUND "A: ?keyId=<the key two rotations back>: retired at once"
api GET "$KEY?keyId=$K1_ID"
is_status 200 "A: ?keyId=<the previous key>: 200"
jis . "$K1" "A: ?keyId=<the previous key>: the first rotation's key"
getkey K2
jis .keyId "\"$K2_ID\"" "A: GET $KEY: the second rotation's key" "$K2"
test_call a
verifies "after the second rotation: the TEST event verifies under its key" "$REQ_TEST" K2
not_verifies "after the second rotation: not under the previous key" "$REQ_TEST" K1

# --- the previous key past its 72 h -----------------------------------------------------------
sql "UPDATE webhook_platform_keys SET expires_at = UTC_TIMESTAMP(3) - INTERVAL 1 SECOND
     WHERE platform_id = '$A_ID' AND key_id = '$K1_ID'"
is "$(sql "SELECT COUNT(*) FROM webhook_platform_keys WHERE platform_id = '$A_ID' AND key_id = '$K1_ID' AND expires_at < UTC_TIMESTAMP(3)")" 1 \
    "the previous key made 72 h old in SQL"
api GET "$KEY?keyId=$K1_ID"
is_error 404 NOT_FOUND "A: ?keyId=<the previous key past its expiry>"
api GET "$KEY?keyId=$K2_ID"
is_status 200 "A: ?keyId=<the current key>: 200"
jis . "$K2" "A: ?keyId=<the current key>: the current key"

# --- no private key in the database ----------------------------------------------------------
cols=$(sql "SELECT GROUP_CONCAT(column_name ORDER BY ordinal_position) FROM information_schema.columns
            WHERE table_schema = DATABASE() AND table_name = 'webhook_platform_keys'")
is "$cols" "platform_id,key_id,salt,master_id,public_key_pem,is_current,created_at,retired_at,expires_at" \
    "webhook_platform_keys holds ids, a salt and the public key only"
is "$(sql "SELECT COUNT(*) FROM webhook_platform_keys WHERE public_key_pem LIKE '%PRIVATE%'")" 0 \
    "no stored PEM is a private key"

# --- body rules and permissions ---------------------------------------------------------------
for b in '{"a":1}' '[]' '{' 'null' '{"keyId":"x"}'; do
    api POST "$ROT" "$b"
    is_error 400 INVALID_REQUEST "A: POST $ROT with body $b"
    has_details body "A: POST $ROT with body $b: details names body"
done
api GET "$KEY"
jis . "$K2" "refused bodies: the key is unchanged"
create_token "$(uniq_name t85-view)" '["view"]'
V=(--as "$TOK_CLIENT_ID" "$TOK_SECRET")
api "${V[@]}" POST "$ROT"
is_error 403 FORBIDDEN "view token: POST $ROT"
jis .details.requiredAccessLevel '"manage"' "view token: details.requiredAccessLevel manage"
api "${V[@]}" POST "$ROT" '{"a":1}'
is_error 403 FORBIDDEN "view token: POST $ROT with a body: 403 first"
api "${V[@]}" GET "$KEY"
is_status 200 "view token: GET $KEY 200"
jis . "$K2" "view token: the platform's current key, unchanged"
api --noauth POST "$ROT"
is_error 401 UNAUTHORIZED "POST $ROT without credentials"
api GET "$ROT"
is_error 405 METHOD_NOT_ALLOWED "GET $ROT"

# --- the master secret: xborderctl ---------------------------------------------------------------
master=$(sed -n 's/^[[:space:]]*webhook_signing_key[[:space:]]*=[[:space:]]*//p' "$XB_CONF" | tail -n 1)
sum0=$(sha256sum "$master" 2>/dev/null | cut -d' ' -f1)
out=$(xbctl webhook-keygen 2>&1)
rc=$?
is "$rc" 1 "webhook-keygen with a master in place: exit 1"
like "$out" 'already holds the master secret.*--force' "webhook-keygen: says why and names --force"
is "$(sha256sum "$master" | cut -d' ' -f1)" "$sum0" "webhook-keygen without --force: the file is unchanged"
api GET "$KEY"
jis . "$K2" "webhook-keygen without --force: A's key is unchanged"

out=$(xbctl webhook-key-list "$A_ID" 2>&1)
is "$?" 0 "webhook-key-list A: exit 0"
is "$(awk -F'\t' '$4 == "current" {print $1 " " $2}' <<<"$out")" "$A_ID $K2_ID" "webhook-key-list A: A's current key"
is "$(awk -F'\t' '{print $1}' <<<"$out" | sort -u)" "$A_ID" "webhook-key-list A: only A's keys"
out=$(xbctl webhook-key-list 2>&1)
ok "$(grep -q "^$B_ID	$KB_ID	.*	current	-	" <<<"$out" && echo 1)" "webhook-key-list: every platform's keys (B's current one)"

out=$(xbctl webhook-keygen --force 2>&1)
rc=$?
is "$rc" 0 "webhook-keygen --force: exit 0"
like "$out" '^[0-9a-f]{16}$' "webhook-keygen --force: prints the new master's id"
MASTER_ID=$out
isnt "$(sha256sum "$master" | cut -d' ' -f1)" "$sum0" "webhook-keygen --force: a new file"
# The file keeps the form every install's key file has (a PEM Ed25519
# private key): an install upgraded with migrate keeps its file as master.
mid=$(openssl pkey -in "$master" -pubout -outform DER 2>/dev/null | tail -c 32 |
    openssl dgst -sha256 -binary | head -c 8 | od -An -tx1 | tr -d ' \n')
is "$mid" "$MASTER_ID" "the master file is an Ed25519 PEM key whose key id is the master's id"
getkey K3
K3_ID=$(jr .keyId "$K3")
isnt "$K3_ID" "$K2_ID" "a new master: A's next use gets a new key"
api GET "$KEY?keyId=$K2_ID"
is_status 200 "a new master: A's key before it still readable by keyId"
jis . "$K2" "a new master: ?keyId=<A's key before>: that key"
test_call a
verifies "a new master: the TEST event verifies under A's new key" "$REQ_TEST" K3
is "$(xbctl webhook-key-list "$A_ID" | awk -F'\t' '$4 == "current" {print $2 " " $6}')" "$K3_ID $MASTER_ID" \
    "webhook-key-list: A's current key, derived from the new master"
not_verifies "a new master: not under A's key before" "$REQ_TEST" K2
event b "${B[@]}"
getkey KB2 "${B[@]}"
isnt "$(jr .keyId "$KB2")" "$KB_ID" "a new master: B's key changes too"
verifies "a new master: B's delivery verifies under B's new key" "$REQ_EV" KB2
not_verifies "a new master: not under B's key before" "$REQ_EV" KB
not_verifies "a new master: nor under A's new key" "$REQ_EV" K3

out=$(xbctl webhook-key-drop "$A_ID" "$K3_ID" 2>&1)
is "$?" 1 "webhook-key-drop of A's current key: exit 1"
out=$(xbctl webhook-key-drop "$B_ID" "$K2_ID" 2>&1)
is "$?" 1 "webhook-key-drop of A's key named under B: exit 1 (no such key of B)"
out=$(xbctl webhook-key-drop "$A_ID" "$K2_ID" 2>&1)
is "$? $out" "0 dropped $K2_ID" "webhook-key-drop of A's previous key: dropped"
api GET "$KEY?keyId=$K2_ID"
is_error 404 NOT_FOUND "A: ?keyId=<the dropped key>"

done_testing
