#!/usr/bin/env bash
# 02-dev-access.t - who can reach the running stack's secrets and sockets:
#  - the env file (the root token's secret), xborder.conf (the database
#    password, the fingerprint key) and xborder-admin.conf (the
#    administrative database user) are the stack user's alone (0600);
#  - the MariaDB socket is the stack user's alone (0600: mariadbd makes it
#    0777), the FastCGI socket owner and group only (0660), and nginx's
#    workers, which must reach it, run as its owner or in its group;
#  - the service's database user may read and write rows and nothing else:
#    its grants are SELECT, INSERT, UPDATE, DELETE on the database, and
#    CREATE, ALTER and DROP are refused; migrations ran as the
#    administrative user of xborder-admin.conf.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
no_plan

DEV=${XB_DEV_DIR:?}
CONF=${XB_CONF:-$DEV/xborder.conf}
SOCK=$DEV/run/mysqld.sock
FCGI=$DEV/run/fcgi.sock

# mode PATH: octal permission bits (stat -c %a), or "missing".
mode() { stat -c %a -- "$1" 2>/dev/null || echo missing; }

# conf_val FILE KEY: the last value of KEY in FILE.
conf_val() {
    sed -n "s/^[[:space:]]*$2[[:space:]]*=[[:space:]]*//p" "$1" | tail -n 1 | sed 's/[[:space:]]*$//'
}

# --- files --------------------------------------------------------------------------
is "$(mode "$XB_ENV")" 600 "the env file (root secret) is 0600"
is "$(mode "$CONF")" 600 "xborder.conf (database password, fingerprint key) is 0600"
is "$(mode "$DEV/xborder-admin.conf")" 600 "xborder-admin.conf (administrative database user) is 0600"
me=$(id -u)
for f in "$XB_ENV" "$CONF" "$DEV/xborder-admin.conf"; do
    is "$(stat -c %u -- "$f" 2>/dev/null)" "$me" "${f##*/} belongs to the stack's user"
done

# --- sockets ------------------------------------------------------------------------
ok "$([[ -S $SOCK ]] && echo 1)" "the MariaDB socket is there"
is "$(mode "$SOCK")" 600 "the MariaDB socket is 0600 (everything that connects runs as the stack's user)"
ok "$([[ -S $FCGI ]] && echo 1)" "the FastCGI socket is there"
is "$(mode "$FCGI")" 660 "the FastCGI socket is 0660 (owner and group: nginx's workers)"
is "$(conf_val "$CONF" socket_mode)" 0660 "xborder.conf says socket_mode = 0660"

# nginx's workers are the children of its master; each must be the
# socket's owner or in its group (root passes anyway, told so).
sock_uid=$(stat -c %u -- "$FCGI") sock_gid=$(stat -c %g -- "$FCGI")
master=$(cat "$DEV/run/nginx.pid" 2>/dev/null)
workers=$(pgrep -P "$master" 2>/dev/null | paste -sd' ')
ok "$([[ -n $workers ]] && echo 1)" "nginx has workers (${workers:-none})"
reach=1
for w in $workers; do
    uid=$(awk '/^Uid:/ { print $3 }' "/proc/$w/status")   # effective
    groups=" $(awk '/^Gid:/ { print $3 }' "/proc/$w/status") $(awk '/^Groups:/ { $1 = ""; print }' "/proc/$w/status") "
    if [[ $uid != 0 && $uid != "$sock_uid" && $groups != *" $sock_gid "* ]]; then
        reach=0
        diag "nginx worker $w: uid $uid, groups$groups; socket $sock_uid:$sock_gid"
    fi
done
ok "$reach" "every nginx worker is the FastCGI socket's owner or in its group"
api --noauth GET /healthz
is_status 200 "GET /healthz through nginx and the 0660 socket: 200"

# --- the service's database user --------------------------------------------------------
db_user=$(conf_val "$CONF" db_user) db_name=$(conf_val "$CONF" db_name)
db_user=${db_user:-xborder} db_name=${db_name:-xborder}
# as_service SQL: runs SQL as the service's database user (db_user's
# password from xborder.conf, in the environment, not on the command line).
as_service() {
    MYSQL_PWD=$(conf_val "$CONF" db_password) mariadb --no-defaults --socket="$SOCK" \
        --user="$db_user" --batch --skip-column-names "$db_name" -e "$1" 2>&1
}
grants=$(as_service "SHOW GRANTS FOR CURRENT_USER()" | grep -v '^GRANT USAGE ON \*\.\* ')
is "$grants" "GRANT SELECT, INSERT, UPDATE, DELETE ON \`$db_name\`.* TO \`$db_user\`@\`localhost\`" \
    "the service's database user has SELECT, INSERT, UPDATE, DELETE on $db_name, nothing more"
is "$(as_service "SELECT COUNT(*) > 0 FROM schema_migrations")" 1 "it reads rows"
for sql in "CREATE TABLE t02_probe (id INT PRIMARY KEY)" "ALTER TABLE tokens ADD COLUMN t02_probe INT" \
    "DROP TABLE schema_migrations" "CREATE INDEX t02_probe ON tokens (name)" "TRUNCATE TABLE jobs"; do
    like "$(as_service "$sql")" "ERROR 1142 .*command denied to user '$db_user'" "refused to the service's user: $sql"
done
is "$(as_service "SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()
    AND column_name = 't02_probe'")" 0 "... and nothing of them happened"

admin=$(conf_val "$DEV/xborder-admin.conf" db_admin_user)
ok "$([[ -n $admin && $admin != "$db_user" ]] && echo 1)" \
    "xborder-admin.conf names an administrative user of its own ($admin)"
if out=$(xbctl migrate 2>&1); then rc=0; else rc=$?; fi
isnt "$rc" 0 "xborderctl migrate with xborder.conf alone (the service's user) fails"
like "$out" "command denied" "... refused by the database"
if out=$(xbctl -c "$DEV/xborder-admin.conf" migrate 2>&1); then rc=0; else rc=$?; fi
is "$rc $out" "0 up to date" "xborderctl migrate with xborder-admin.conf as a second -c: up to date"

done_testing
