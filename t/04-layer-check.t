#!/usr/bin/env bash
# 04-layer-check.t - scripts/layer-check holds the include graph to the
# layer table (scripts/layers.txt, DESIGN.md "Layers"), on scratch trees:
#  - a clean tiny tree passes, modules keyed by path (fcgi/main and
#    worker/main are two), a local "deliver.h" is worker/deliver;
#  - an include from layer 1 to a layer-4 header fails naming both files,
#    and so does one in a header (its includes count);
#  - two files of one layer including each other are a cycle, named;
#  - a file of no layer fails, named;
#  - a copy of the real tree with src/money.c including xborder/req.h fails
#    naming src/money.c (the real tree itself is not asserted here).
# Needs no stack: only tap.sh, not api.sh.
. "$(dirname "${BASH_SOURCE[0]}")/lib/tap.sh"
no_plan

XB_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LC=$XB_REPO/scripts/layer-check
TMP=$(mktemp -d "${TMPDIR:-/tmp}/xb-t04.XXXXXX")
at_exit 'rm -rf "$TMP"'

# put FILE LINE...: writes the lines to FILE under the scratch tree $T.
put() {
    local f=$T/$1
    shift
    mkdir -p "$(dirname "$f")"
    printf '%s\n' "$@" >"$f"
}

# tiny DIR: a clean tree of every layer, in DIR (sets T).
tiny() {
    T=$TMP/$1
    put scripts/layers.txt '# a tiny table' \
        '1 pure: money util' '2 store: db db_*' '3 lifecycle: settle' \
        '4 handlers: h_* handlers' '5 pipeline: req  # trailing comment' \
        '6 programs: fcgi/main worker/main worker/deliver'
    put src/money.c '#include "config.h"' '#include <stdio.h>' \
        '#include "xborder/money.h"' '#include "xborder/util.h"'
    put include/xborder/money.h '#include <stdint.h>'
    put src/util.c '#include "xborder/util.h"'
    put include/xborder/util.h ''
    put src/db.c '#include "xborder/db.h"' '#include "xborder/money.h"'
    put include/xborder/db.h '#include "xborder/util.h"'
    put src/db_things.c '#include "xborder/db_things.h"' '#include "xborder/db.h"'
    put include/xborder/db_things.h ''
    put src/settle.c '#include "xborder/settle.h"' '#include "xborder/db_things.h"'
    put include/xborder/settle.h ''
    put include/xborder/handlers.h '#include "xborder/db.h"'
    put src/h_things.c '#include "xborder/handlers.h"' '#include "xborder/settle.h"'
    put include/xborder/h_things.h ''
    put src/req.c '#include "xborder/req.h"' '#include "xborder/h_things.h"'
    put include/xborder/req.h '#include "xborder/handlers.h"'
    put src/fcgi/main.c '#include "config.h"' '#include "xborder/req.h"'
    put src/worker/main.c '#include "deliver.h"' '#include "xborder/settle.h"'
    put src/worker/deliver.c '#include "deliver.h"' '#include "xborder/db.h"'
    put src/worker/deliver.h '#include <stddef.h>'
}

# check DIR [ARGS]: runs the script on DIR; OUT (stdout and stderr), RC.
check() {
    if OUT=$("$LC" "$@" 2>&1); then RC=0; else RC=$?; fi
}

# has_line REGEX NAME: a line of OUT matches the extended REGEX.
has_line() {
    if grep -qE -e "$1" <<<"$OUT"; then pass "$2"; else
        fail "$2"
        diag "no line of the output matches '$1':" "$OUT"
    fi
}

tiny clean
check "$T"
is "$RC" 0 "a clean tiny tree: exit 0"
is "$OUT" "layer-check: 11 modules, 14 includes, no upward include, no cycle" \
    "... one summary line (fcgi/main and worker/main two modules)"

tiny up
printf '#include "xborder/handlers.h"\n' >>"$T/src/money.c"
check "$T"
is "$RC" 1 "layer 1 (src/money.c) including a layer-4 header: exit 1"
has_line '^src/money\.c:5: includes xborder/handlers\.h: layer 1 pure -> layer 4 handlers$' \
    "... one line naming src/money.c:5, xborder/handlers.h and both layers"

tiny header
printf '#include "xborder/req.h"\n' >>"$T/include/xborder/util.h"
check "$T"
is "$RC" 1 "a layer-1 header including a layer-5 header: exit 1"
has_line '^include/xborder/util\.h:2: includes xborder/req\.h: layer 1 pure -> layer 5 pipeline$' \
    "... the header's line named"

tiny cycle
put src/db_a.c '#include "xborder/db_a.h"' '#include "xborder/db_b.h"'
put include/xborder/db_a.h ''
put src/db_b.c '#include "xborder/db.h"' '#include "xborder/db_a.h"'
put include/xborder/db_b.h ''
check "$T"
is "$RC" 1 "db_a and db_b (both layer 2) including each other: exit 1"
has_line '^cycle of 2 modules: db_a db_b$' "... the cycle's modules"
has_line '^  files: src/db_a\.c include/xborder/db_a\.h src/db_b\.c include/xborder/db_b\.h$' \
    "... their files"
has_line '^  chain: db_a -> db_b -> db_a: src/db_a\.c:2 includes xborder/db_b\.h; src/db_b\.c:2 includes xborder/db_a\.h$' \
    "... the chain of includes that closes it"
unlike "$OUT" 'layer [0-9] [a-z]+ -> ' "... and no upward include"

tiny orphan
put src/orphan.c '#include "xborder/util.h"'
put include/xborder/lonely.h ''
check "$T"
is "$RC" 1 "a .c and a header in no layer: exit 1"
has_line '^src/orphan\.c: module orphan is in no layer' "... src/orphan.c named"
has_line '^include/xborder/lonely\.h: module lonely is in no layer' "... include/xborder/lonely.h named"

tiny missing
printf '#include "xborder/nosuch.h"\n' >>"$T/src/db.c"
check "$T"
is "$RC" 1 "an include of a header that is not there: exit 1"
has_line '^src/db\.c:3: includes xborder/nosuch\.h: no such header$' "... named"

tiny usage
check "$T" extra
is "$RC" 2 "two arguments: exit 2"
rm "$T/scripts/layers.txt"
check "$T"
is "$RC" 2 "no table: exit 2"
put scripts/layers.txt '1 pure money'
check "$T"
is "$RC" 2 "a table line without a colon: exit 2"
like "$OUT" 'layers\.txt:1: ' "... the line named"

tiny default
cp "$LC" "$T/scripts/"
if OUT=$("$T/scripts/layer-check" 2>&1); then RC=0; else RC=$?; fi
is "$RC" 0 "without ROOT: the tree holding the script"
like "$OUT" '^layer-check: 11 modules' "... its summary"

# The real tree, with one planted violation.
T=$TMP/real
mkdir -p "$T/scripts"
cp -r "$XB_REPO/src" "$XB_REPO/include" "$T/"
cp "$XB_REPO/scripts/layers.txt" "$T/scripts/"
printf '#include "xborder/req.h"\n' >>"$T/src/money.c"
n=$(wc -l <"$T/src/money.c")
check "$T"
is "$RC" 1 "a copy of the real tree, src/money.c including xborder/req.h: exit 1"
has_line "^src/money\\.c:$n: includes xborder/req\\.h: layer 1 pure -> layer 5 pipeline\$" \
    "... src/money.c:$n named"

done_testing
