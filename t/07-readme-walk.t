#!/usr/bin/env bash
# 07-readme-walk.t - the README's "A walk through the API" and "Webhooks",
# pasted.  Their blocks (the indented lines) run in order in one bash, in
# the repository, against the stack under test: `. .dev/env` reads this
# stack's env file, the receiver listens on a free port and writes to a
# file of the test's, and nothing else is changed.  Each block must exit
# 0, and every error code an answer of the block carries must be named in
# the README's text just before the block (the walk shows some errors on
# purpose); the receiver must have got the events and the retried one
# twice.  The receiver is stopped by its pid by the walk's last block, or
# at exit.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
no_plan

README=$XB_REPO/README
T=$_API_TMP/walk
mkdir -p "$T"

# a free port for the receiver
port=
for p in $(seq 18899 18999); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
done
ok "$port" "a free port for the webhook receiver ($port)"

# blocks: the sections' blocks, each as "PROSE<US>BLOCK" records separated
# by NUL (the prose is the text between the previous block and this one).
extract() {
    awk '
        function flush() { if (blk != "") { printf "%s\037%s%c", prose, blk, 0; prose = ""; blk = "" } }
        /^(A walk through the API|Webhooks)$/ { getline; if ($0 ~ /^-+$/) insec = 1; next }
        insec && /^-+$/ { flush(); insec = 0; next }
        !insec { next }
        /^    / { blk = blk substr($0, 5) "\n"; next }
        /^$/ { next }
        { flush(); prose = prose " " $0 }
        END { flush() }
    ' "$README"
}
PROSE=()
BLOCKS=()
while IFS= read -r -d '' rec; do
    PROSE+=("${rec%%$'\037'*}")
    BLOCKS+=("${rec#*$'\037'}")
done < <(extract)
ok "$((${#BLOCKS[@]} >= 15))" "README: the walk and Webhooks have ${#BLOCKS[@]} blocks"

HOOKS=$T/hooks.log
: >"$HOOKS"
{
    echo 'cd "$XB_REPO" || exit 1'
    for i in "${!BLOCKS[@]}"; do
        b=${BLOCKS[$i]}
        b=${b//'. .dev/env'/'. "$XB_ENV"'}
        b=${b//127.0.0.1:8899/127.0.0.1:$port}
        b=${b//\/tmp\/xb-hooks.log/$HOOKS}
        printf '{\n%s} >%q 2>&1 </dev/null\necho $? >%q\n' "$b" "$T/out.$i" "$T/rc.$i"
    done
    echo 'echo "${RECEIVER:-}" >"$WALK_DIR/receiver.pid"'
} >"$T/walk.sh"

at_exit '[[ -s $T/receiver.pid ]] && kill "$(cat "$T/receiver.pid")" 2>/dev/null'
XB_REPO=$XB_REPO XB_ENV=$XB_ENV WALK_DIR=$T timeout 300 bash "$T/walk.sh" >"$T/walk.out" 2>&1
is "$?" 0 "the walk ran to its end"

for i in "${!BLOCKS[@]}"; do
    first=$(head -n 1 <<<"${BLOCKS[$i]}")
    rc=$(cat "$T/rc.$i" 2>/dev/null || echo missing)
    if ! is "$rc" 0 "block $((i + 1)) exits 0: $first"; then
        diag "$(head -c 2000 "$T/out.$i" 2>/dev/null)"
    fi
    # the error codes its answers carry (pretty or compact JSON)
    codes=$(grep -oE '"code": ?"[A-Z_]+"' "$T/out.$i" 2>/dev/null | sed -E 's/.*"([A-Z_]+)"$/\1/' | sort -u)
    unannounced=()
    for c in $codes; do
        [[ ${PROSE[$i]} == *"$c"* ]] || unannounced+=("$c")
    done
    is "${unannounced[*]}" "" "block $((i + 1)): no error answer but those the README names before it"
done

n=$(grep -c '"id": *"Webhook:' "$HOOKS")
ok "$((n >= 5))" "the receiver got the walk's events ($n)"
wh=$(grep -oE '"id": ?"Webhook:[0-9a-f-]+"' "$T/out.$((${#BLOCKS[@]} - 2))" 2>/dev/null | head -n 1 | grep -oE 'Webhook:[0-9a-f-]+')
ok "$wh" "the retry block answered with a Webhook id ($wh)"
[[ -n $wh ]] && ok "$(( $(grep -c "$wh" "$HOOKS") >= 2 ))" "... which the receiver got twice"

done_testing
