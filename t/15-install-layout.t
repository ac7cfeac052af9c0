#!/usr/bin/env bash
# 15-install-layout.t - `make install` into a temporary root, with the
# doc/install.md's directories (sysconfdir /etc, localstatedir /var), lays out what
# the installed files name:
#  - every program an Exec*= line of a service runs, the configuration file
#    its -c names (as xborder.conf.example beside it) and the man pages of
#    Documentation=;
#  - the socket of xborder-fcgi.socket is the upstream of the nginx site and
#    the path-prefix example, and the default `listen` of the example
#    configuration; neither the unit (SocketMode=) nor the example
#    (socket_mode) lets anyone but its owner and group reach it;
#  - every snippet the sites (and the snippets) include is in nginx's
#    snippets/ directory;
#  - the man pages name the same configuration file and socket;
#  - every migration of schema/, the OpenAPI document and every man page
#    are installed;
#  - the example configuration shows every key of src/conf.c and passes
#    `xborder-fcgi -t` once a fingerprint key is set.
. "$(dirname "${BASH_SOURCE[0]}")/lib/install.sh"
no_plan

D=$INSTALL_TMP/root
cmd_ok "make install DESTDIR=<tmp> sysconfdir=/etc localstatedir=/var" \
    install_tree "$D" sysconfdir=/etc localstatedir=/var || BAIL_OUT "make install failed"
UNITS=$D$DIR_systemdsystemunitdir
CONF=$DIR_sysconfdir/xborder/xborder.conf
SNIPPETS=$D$DIR_nginxconfdir/snippets

# --- the units -------------------------------------------------------------------
for u in xborder-fcgi.service xborder-fcgi.socket xborder-worker.service; do
    ok "$([[ -f $UNITS/$u ]] && echo 1)" "$u installed in $DIR_systemdsystemunitdir"
done
for u in "$UNITS"/*.service; do
    n=${u##*/}
    nexec=0
    while IFS= read -r v; do
        p=$(exec_path "$v")
        [[ $p == /bin/kill ]] && continue
        nexec=$((nexec + 1))
        like "$p" "^$DIR_sbindir/" "$n: $p is in sbindir"
        ok "$([[ -x $D$p && -f $D$p ]] && echo 1)" "$n: $p is installed"
        like "$v" " -c $CONF( |\$)" "$n: runs with -c $CONF"
    done < <(unit_values "$u" ExecStart; unit_values "$u" ExecStartPre; unit_values "$u" ExecReload)
    ok "$((nexec > 0))" "$n: runs at least one installed program"
    for m in $(unit_values "$u" Documentation); do
        [[ $m =~ ^man:([a-z.-]+)\(([0-9])\)$ ]] || { fail "$n: Documentation $m is a man page"; continue; }
        ok "$([[ -f $D$DIR_mandir/man${BASH_REMATCH[2]}/${BASH_REMATCH[1]}.${BASH_REMATCH[2]} ]] && echo 1)" \
            "$n: $m is installed"
    done
done
ok "$([[ -f $D$CONF.example ]] && echo 1)" "the example configuration is $CONF.example"
ok "$([[ ! -e $D$CONF ]] && echo 1)" "make install writes no $CONF (the operator's)"

sock=$(unit_values "$UNITS/xborder-fcgi.socket" ListenStream)
like "$sock" '^/' "xborder-fcgi.socket listens on a unix socket ($sock)"
is "$(sed -n 's/^listen = unix://p' "$D$CONF.example")" "$sock" \
    "the example configuration listens on the socket of xborder-fcgi.socket"
# no_others MODE: 1 when the octal MODE gives others nothing.
no_others() { [[ $1 =~ ^0?[0-7]{3}$ ]] && (((8#$1 & 8#007) == 0)) && echo 1; }
smode=$(unit_values "$UNITS/xborder-fcgi.socket" SocketMode)
ok "$(no_others "$smode")" "xborder-fcgi.socket: SocketMode=$smode gives others nothing"
is "$(unit_values "$UNITS/xborder-fcgi.socket" SocketGroup)" www-data \
    "xborder-fcgi.socket: SocketGroup=www-data, the group nginx's workers run in"
cmode=$(sed -n 's/^socket_mode = //p' "$D$CONF.example")
ok "$(no_others "$cmode")" "the example configuration: socket_mode = $cmode gives others nothing"

# --- the nginx site and the path-prefix example -----------------------------------
# includes FILE: the relative snippets/ includes of an nginx file.
includes() {
    sed -n 's/^[[:space:]]*include[[:space:]]\{1,\}\(snippets\/[^;[:space:]]*\);.*/\1/p' "$1"
}
for site in xborder-site.conf xborder-prefix.conf.example; do
    f=$D$DIR_pkgdatadir/nginx/$site
    ok "$([[ -f $f ]] && echo 1)" "$site installed in $DIR_pkgdatadir/nginx" || continue
    is "$(sed -n 's/^[[:space:]]*server unix:\([^;]*\);.*/\1/p' "$f")" "$sock" \
        "$site: the upstream is the socket of xborder-fcgi.socket"
    n=0
    for inc in $(includes "$f"); do
        n=$((n + 1))
        ok "$([[ -f $D$DIR_nginxconfdir/$inc ]] && echo 1)" "$site: include $inc is installed in $DIR_nginxconfdir"
    done
    ok "$((n > 0))" "$site includes the snippets"
done
for f in "$SNIPPETS"/xborder-*.conf; do
    for inc in $(includes "$f"); do
        ok "$([[ -f $D$DIR_nginxconfdir/$inc ]] && echo 1)" "${f##*/}: include $inc is installed"
    done
done
for f in "$XB_ROOT"/nginx/snippets/*.conf; do
    cmd_ok "snippet ${f##*/} installed as in the tree" cmp -s "$f" "$SNIPPETS/${f##*/}"
done

# --- what the man pages name -------------------------------------------------------
for m in xborder-fcgi.8 xborder.conf.5; do
    ok "$(grep -q "^\.It Pa $CONF\$" "$XB_ROOT/man/$m" && echo 1)" "$m names $CONF in FILES"
done
ok "$(grep -q "^\.It Pa $sock\$" "$XB_ROOT/man/xborder-fcgi.8" && echo 1)" "xborder-fcgi.8 names the socket $sock"

# --- data, man pages ---------------------------------------------------------------
for f in "$XB_ROOT"/schema/*.sql; do
    cmd_ok "migration ${f##*/} installed" cmp -s "$f" "$D$DIR_pkgdatadir/schema/${f##*/}"
done
cmd_ok "openapi.json installed" cmp -s "$XB_ROOT/openapi/openapi.json" "$D$DIR_pkgdatadir/openapi.json"
for f in "$XB_ROOT"/man/*.[0-9]; do
    s=${f##*.}
    cmd_ok "man page ${f##*/} installed" cmp -s "$f" "$D$DIR_mandir/man$s/${f##*/}"
done

# --- the example configuration ------------------------------------------------------
keys=$(sed -n 's/^[[:space:]]*{ "\([a-z0-9_]*\)",.*/\1/p' "$XB_ROOT/src/conf.c")
ok "$([[ $(wc -w <<<"$keys") -ge 20 ]] && echo 1)" "src/conf.c's key table read ($(wc -w <<<"$keys") keys)"
missing=
for k in $keys; do
    grep -Eq "^(# )?$k =( |$)" "$D$CONF.example" || missing+=" $k"
done
is "$missing" "" "the example configuration shows every key of src/conf.c"
unlike "$(cat "$D$CONF.example")" '@[a-z]+@' "the example configuration has no placeholder left"
{
    cat "$D$CONF.example"
    echo "fingerprint_key = $(openssl rand -hex 32)"
} >"$INSTALL_TMP/xborder.conf"
out=$("$D$DIR_sbindir/xborder-fcgi" -t -c "$INSTALL_TMP/xborder.conf" 2>&1)
is "$?" 0 "the installed xborder-fcgi -t accepts the example with a fingerprint key${out:+: $out}"

done_testing
