#!/usr/bin/env bash
# 68-model.t - the randomized model test: t/lib/model.mjs generates a
# seeded sequence of operations over three platforms of its own (customers
# and duplicates, external accounts ending 001/002/003/005 and invalid ones,
# funding, transfers in and out with every sandbox outcome and over the
# balance, quotes both locked sides to PPV addresses of the same and the
# other platforms and to external accounts, their execution, expiry by the
# sandbox helper, blocked quotes, review cases approved, rejected and
# expired, the sandbox helpers where they move a transaction and where
# they must refuse, deletions of customers and external accounts, requests
# that must fail), keeps a model of every balance and status computed from
# the contract's formulas alone (payments-api-2026-04-08.md, decisions.md
# sections 6 to 10 and 14), and compares after every step and at the end.
# Then xborderctl ledger-check must be clean.
#
# XB_MODEL_OPS (default 9000: the suite takes about 2 minutes on 2 cores
# against a fresh stack) and XB_MODEL_SEED (default random) choose the run;
# the seed is printed first and replays the same operations (the run notes
# a digest of its sequence of operations: the same seed and count give the
# same digest).  The model's output is kept in log/model-SEED.out.
#
# Not covered: expiry by time (locks of 50 to 60 minutes, review window 7
# days; expiry is by the sandbox helper), idempotency keys, webhooks,
# tokens, customer updates and PPV re-issue, currency changes, lists and
# paging, receiver lookups and indicative rates, the helpers racing the
# background settlement (they are used on 003 accounts, or once a
# transaction reached its final status), the helpers on payouts of deleted
# customers, and the OpenAPI check of these responses (they do not go
# through api()).
#
# Reference prices (set here, restored at exit): USD 10000000, EUR 9213377,
# JPY 15304219 (0 decimals), KWD 30712345 (3 decimals).
# P0: spread 30, lock 3600, fees 100/40.  P1: spread 20, lock 3000, fees
# 70/50.  P2: spread 10, lock 3300, fees 25/90, JPY with BIRTH_DATE mandatory.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$(dirname "${BASH_SOURCE[0]}")/lib/money.sh"
no_plan

command -v node >/dev/null || plan skip_all "no node"
OPS=${XB_MODEL_OPS:-9000}
SEED=${XB_MODEL_SEED:-$(( (RANDOM << 15 | RANDOM) + 1 ))}
note "model seed $SEED, $OPS operations (replay: XB_MODEL_SEED=$SEED XB_MODEL_OPS=$OPS scripts/dev test t/68-model.t)"
diag "model seed $SEED, $OPS operations"

fx_prices USD=10000000 EUR=9213377 JPY=15304219 KWD=30712345

WIDE=100000000000
KWD_MAX=50000000
SPREADS=(30 20 10) LOCKS=(3600 3000 3300) FEES_S=(100 70 25) FEES_R=(40 50 90)
PLATS='[]'
for i in 0 1 2; do
    new_platform "t68p$i" || BAIL_OUT "platform-create failed"
    pass "platform P$i created with xborderctl"
    C=(--as "$NP_CLIENT_ID" "$NP_SECRET")
    set_profile "${SPREADS[i]}" "${LOCKS[i]}" "${C[@]}"
    set_fees "${FEES_S[i]}" "${FEES_R[i]}" "${C[@]}"
    jpy=$(cur_entry JPY 1 $WIDE both)
    mand='[]'
    if ((i == 2)); then
        jpy=$(cur_entry JPY 1 $WIDE both BIRTH_DATE)
        mand='["BIRTH_DATE"]'
    fi
    set_currencies "[$(cur_entry USD 1 $WIDE both),$(cur_entry EUR 1 $WIDE both),$jpy,$(cur_entry KWD 1 $KWD_MAX both)]" "${C[@]}"
    PLATS=$(jq -c --arg id "$NP_ID" --arg cid "$NP_CLIENT_ID" --arg sec "$NP_SECRET" \
        --argjson sp "${SPREADS[i]}" --argjson lock "${LOCKS[i]}" --argjson fs "${FEES_S[i]}" --argjson fr "${FEES_R[i]}" \
        --argjson wide $WIDE --argjson kmax $KWD_MAX --argjson mand "$mand" \
        '. + [{id: $id, clientId: $cid, secret: $sec, spread: $sp, lock: $lock, feeS: $fs, feeR: $fr,
               currencies: {USD: {min: 1, max: $wide, exp: 2}, EUR: {min: 1, max: $wide, exp: 2},
                            JPY: {min: 1, max: $wide, exp: 0, mandatory: $mand}, KWD: {min: 1, max: $kmax, exp: 3}}}]' <<<"$PLATS")
done

PLAN=$_API_TMP/model-plan.json
jq -n --arg base "$XB_BASE_URL" --argjson p "$PLATS" --arg run "$(uniq_name m68)" \
    '{base: $base, platforms: $p, prices: {USD: 10000000, EUR: 9213377, JPY: 15304219, KWD: 30712345}, run: $run}' >"$PLAN"

OUT=$XB_DEV_DIR/log/model-$SEED.out
rc=0
start=$SECONDS
XB_MODEL_PLAN=$PLAN XB_MODEL_SEED=$SEED XB_MODEL_OPS=$OPS \
    timeout $((300 + OPS / 20)) node "$_API_LIB_DIR/model.mjs" >"$OUT" 2>"$_API_TMP/model.err" || rc=$?
n=0
while IFS='|' read -r res name why; do
    case $res in
    ok) pass "model: $name"; n=$((n + 1)) ;;
    'not ok') fail "model: $name"; diag "$why"; n=$((n + 1)) ;;
    note) note "$name" ;;
    esac
done <"$OUT"
is "$rc" 0 "model run ended normally (seed $SEED, $((SECONDS - start)) s)" || diag "$(tail -n 20 "$_API_TMP/model.err")"
is "$n" 7 "model run reported its seven kinds of checks (output kept in log/model-$SEED.out)"

lc_out=$(xbctl ledger-check 2>&1)
lc_rc=$?
is "$lc_rc" 0 "xborderctl ledger-check exits 0 after the model run" || diag "$lc_out"
like "$lc_out" '(^|'$'\n'')ledger ok' "ledger-check: ledger ok" || diag "$lc_out"

done_testing
