#!/usr/bin/env bash
# 32-console.t - the sandbox console (web/console/, served at /console/) in
# a real browser: Debian's chromium, headless, driven from node through
# puppeteer-core (tools/, npm ci --prefix tools), by the scenarios in
# t/lib/console/ (harness.mjs is what they share; each runs its own browser
# and ends by asserting that the page logged no console error and raised
# no dialog).  Here, with curl: the page's headers (Content-Security-Policy,
# Referrer-Policy, X-Content-Type-Options), /console redirected to
# /console/, no inline script, style or handler and no HTML parsed from
# strings in the files.
#  core.mjs       sign in by keyboard; create a customer and fund it; a
#                 transfer-out to an account ending in 003 (held PENDING)
#                 made with the form, completed with the button, and its
#                 event's payload; a retry; a review case approved after the
#                 first try shows the 400's missing fields; a customer named
#                 <img src=x onerror=alert(1)> stays text; the credentials in
#                 sessionStorage only (no URL, localStorage or cookie), sign
#                 out forgets them; the view token sees no action; 360 px; a
#                 wrong secret shows the 401 on the form; labels everywhere
#  customers.mjs  edit, re-issue the PPV address, external accounts added
#                 (an error next to its field) and deleted, transfer-out
#                 errors, every transaction filter, paging, deletion
#  platform.mjs   the webhook endpoint, fees, currencies and execution
#                 profile edited, each error next to its field, all restored
#  quotes.mjs     the indicative rate while typing, create, the status
#                 filter, execute, errors next to their fields
#  webhooks.mjs   the connectivity test (the receiver's answer as text, a
#                 refused connection), the signing key's rotation, the
#                 delivery log's filters
# On a platform of its own.  Screenshots under $XB_DEV_DIR/log/console/,
# <scenario>-NN-<step>.png.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
. "$_API_LIB_DIR/webhooks.sh"
no_plan

CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
SCENARIOS=("$_API_LIB_DIR"/console/*.mjs)
# lacking WHY: skips the suite, except under scripts/dev check (XB_CHECK=1),
# which installs all of it.
lacking() {
    [[ ${XB_CHECK:-0} == 1 ]] && BAIL_OUT "$1 under scripts/dev check"
    plan skip_all "$1"
}
[[ -x $CHROMIUM ]] || lacking "no $CHROMIUM (scripts/dev installs Debian's chromium)"
command -v node >/dev/null || lacking "no node (scripts/dev check installs it)"
[[ -d $XB_REPO/tools/node_modules/puppeteer-core ]] ||
    lacking "no tools/node_modules/puppeteer-core (npm ci --prefix tools)"

# The headers, as curl sees them.
api --noauth --nocheck GET /console/
is "$STATUS" 200 "GET /console/: 200"
like "$(header Content-Security-Policy)" "default-src 'self'; frame-ancestors 'none'" "GET /console/: the CSP"
is "$(header Referrer-Policy)" no-referrer "GET /console/: Referrer-Policy"
is "$(header X-Content-Type-Options)" nosniff "GET /console/: X-Content-Type-Options"
api --noauth --nocheck GET /console
is "$STATUS" 301 "GET /console: 301"
is "$(header Location)" /console/ "... to /console/"
api --noauth --nocheck GET /console/
unlike "$BODY" '<script>|<style|[[:space:]](style|on[a-z]+)=' "index.html: no inline script, style or handler"
for f in "$XB_REPO"/web/console/*.html "$XB_REPO"/web/console/js/*.js; do
    unlike "$(<"$f")" 'innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(' "${f#"$XB_REPO"/}: no HTML parsing of strings"
done

# A platform of its own, whose webhook endpoint refuses connections (a
# retry is then accepted, and fails in the background), and a view token.
new_platform console || BAIL_OUT "xborderctl platform-create failed"
use_creds "$NP_CLIENT_ID" "$NP_SECRET"
api PATCH /config '{"webhookEndpoint":"http://127.0.0.1:9/hooks"}'
is_status 200 "PATCH /config: a webhook endpoint"
create_token "$(uniq_name console-view)" '["view"]'

# A webhook receiver for the connectivity test (webhooks.mjs): under
# /console-test it answers 201 with a body that looks like HTML.
wh_start
wh_set /console-test '{"codes":[201],"body":"received <b>it</b>"}'

SHOTS=$XB_DEV_DIR/log/console
rm -rf -- "$SHOTS"
mkdir -p -- "$SHOTS"
# scenario FILE: runs one scenario, its lines as TAP.
scenario() {
    local file=$1 name out rc=0 n=0 res step why
    name=$(basename "$file" .mjs)
    out=$_API_TMP/$name.out
    XB_CLIENT_ID=$NP_CLIENT_ID XB_CLIENT_SECRET=$NP_SECRET CONSOLE_VIEW_ID=$TOK_CLIENT_ID CONSOLE_VIEW_SECRET=$TOK_SECRET CONSOLE_SHOTS=$SHOTS \
        CONSOLE_RUN=$(uniq_name r) CHROMIUM=$CHROMIUM CONSOLE_WH_URL=$WH_URL/console-test \
        timeout 300 node "$file" >"$out" 2>"$_API_TMP/$name.err" || rc=$?
    while IFS='|' read -r res step why; do
        case $res in
        ok) pass "$name: $step" ;;
        'not ok') fail "$name: $step"; diag "$why" ;;
        *) continue ;;
        esac
        n=$((n + 1))
    done <"$out"
    is "$rc" 0 "$name: the browser run ended normally" || diag "$(tail -n 20 "$_API_TMP/$name.err")"
    ok "$((n >= 5))" "$name: the browser run reported its steps ($n)"
}
for f in "${SCENARIOS[@]}"; do
    [[ ${f##*/} == harness.mjs ]] || scenario "$f"
done
shots=("$SHOTS"/*.png)
ok "$(( ${#shots[@]} >= 10 ))" "a screenshot per step under log/console/ (${#shots[@]})"

done_testing
