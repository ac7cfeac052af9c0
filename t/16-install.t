#!/usr/bin/env bash
# 16-install.t - doc/install.md's "Install on a server", run line by line.
#
# The command lines of that section (its indented lines) run in order, in
# this shell (later ones use the variables of earlier ones), with every
# path under /etc/, /usr/local/ and /var/lib/xborder moved to a temporary
# root $T.  What a machine without a second host, a system user or a
# systemd of its own cannot do is done by stand-ins, shell functions named
# after the commands:
#   apt-get           checks that the packages are installed (the stack's
#                     build used them) instead of installing them
#   autoreconf, ./configure
#                     the stack's build tree is configured already;
#                     ./configure's directory options are kept for make
#   make              the stack's build is made already; `make install`
#                     installs it into $T with those directories (DESTDIR),
#                     then moves
#                     the paths of the installed example configuration and
#                     nginx site into $T and the site to a free port
#   useradd           skipped: the test makes no system user; install -o/-g
#                     and runuser -u drop the user, everything runs as the
#                     test's user
#   mariadb           the client of a private MariaDB (own datadir and
#                     socket in $T, no TCP), started when the test starts,
#                     as `scripts/dev` starts the stack's
#   systemctl         enable --now runs the installed units' ExecStartPre=
#                     and ExecStart= (paths moved to $T): xborder-fcgi
#                     behind systemd-socket-activate on the .socket unit's
#                     ListenStream=, xborder-worker; reload nginx starts
#                     nginx on the installed site
#   nginx -t          nginx -t on $T/etc/nginx/nginx.conf, a stand-in for
#                     Debian's, which includes sites-enabled/*
#   curl              the same request to the test's port
# Everything else (install, sed, openssl, ln, xborderctl, xborder-fcgi -t)
# is the real command on the installed files.  Afterwards: the service's
# database user may only read and write rows (CREATE, ALTER, DROP are
# refused; migrate needs the administrative user's file) and the service
# runs with it, reads and writes.  Every process the test
# starts runs in a process group of its own and is stopped by its id at
# exit, even on failure.
. "$(dirname "${BASH_SOURCE[0]}")/lib/install.sh"
no_plan

T=$INSTALL_TMP/root
mkdir -p "$T"
README=$XB_ROOT/doc/install.md

# --- doc/install.md's command lines -----------------------------------------------------
# readme_steps: the indented lines of the section, continuation lines
# joined, comments and blank lines left out.
readme_steps() {
    awk '
        /^Install on a server$/ { getline; if ($0 ~ /^-+$/) insec = 1; next }
        insec && /^-+$/ { exit }
        insec && /^[^ ]/ { prev = $0; next }
        insec && /^    / {
            line = substr($0, 5)
            if (cont != "") { line = cont " " line; cont = "" }
            if (line ~ /\\$/) { cont = substr(line, 1, length(line) - 1); next }
            if (line !~ /^#/ && line != "") print line
        }
    ' "$README"
}
mapfile -t STEPS < <(readme_steps)
ok "$((${#STEPS[@]} >= 20))" "doc/install.md: \"Install on a server\" has ${#STEPS[@]} command lines"

# localize CMD: CMD with its paths under /etc/, /usr/local/ and
# /var/lib/xborder moved into $T (at the start of a word, of a quoted
# string or of a redirection; --sysconfdir=/etc and the like stay).
localize() {
    sed -E -e "s#(^|[[:space:]\"'>])(/etc/|/usr/local/|/var/lib/xborder)#\\1$T\\2#g" <<<"$1"
}

# --- processes ----------------------------------------------------------------------
PIDS=()
# spawn LOG CMD...: CMD in the background in a session (and process group)
# of its own, without our descriptors (prove reads our stdout), output to
# LOG; its pid in SPAWNED and PIDS.
spawn() {
    local log=$1
    shift
    (
        for fd in "/proc/$BASHPID/fd"/*; do
            fd=${fd##*/}
            if [[ $fd =~ ^[0-9]+$ ]] && ((fd > 2)); then
                eval "exec $fd>&-" 2>/dev/null || true
            fi
        done
        exec setsid "$@" </dev/null >>"$log" 2>&1
    ) &
    SPAWNED=$!
    PIDS+=("$SPAWNED")
}

# stop_all: SIGTERM to each process group the test started, by its id, last
# started first; SIGKILL to what is left after 10 s.
stop_all() {
    local i pid n
    for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
        pid=${PIDS[i]}
        kill -TERM -- "-$pid" 2>/dev/null || continue
        for ((n = 0; n < 100; n++)); do
            kill -0 -- "-$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL -- "-$pid" 2>/dev/null || true
    done
    PIDS=()
}
at_exit stop_all

# free_port: a TCP port of 127.0.0.1 nobody listens on, below the range
# of ephemeral ports (32768-), where an outgoing connection could hold it.
free_port() {
    local p i
    for ((i = 0; i < 50; i++)); do
        p=$((12000 + RANDOM % 20000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p"
            return 0
        fi
    done
    return 1
}
PORT=$(free_port) || BAIL_OUT "no free port"

# --- what Debian's packages would provide -------------------------------------------
# The private MariaDB, started now: mariadb-install-db takes a few seconds
# that the first steps need not wait for.
DB_SOCK=$T/run/mysqld/mysqld.sock
mkdir -p "$T/run/mysqld" "$T/var/lib/mysql" "$T/var/log" "$T/tmp"
db_user_opt=
[[ $(id -u) -ne 0 ]] || db_user_opt=--user=root
db_sock_user=
[[ $(id -u) -eq 0 ]] || db_sock_user=--auth-root-socket-user=$(id -un)
# shellcheck disable=SC2016 # the script's own positional parameters
spawn "$T/var/log/mysqld.log" bash -c 'mariadb-install-db --no-defaults $1 --datadir="$2" \
    --auth-root-authentication-method=socket $4 --skip-test-db >"$3.install" 2>&1 &&
    exec mariadbd --no-defaults $1 --datadir="$2" --socket="$5" --skip-networking \
        --pid-file="$6" --log-error="$3" --tmpdir="$7" \
        --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
        --innodb-buffer-pool-size=64M --innodb-log-file-size=16M' \
    db "$db_user_opt" "$T/var/lib/mysql" "$T/var/log/mysqld.log" "$db_sock_user" \
    "$DB_SOCK" "$T/run/mysqld/mysqld.pid" "$T/tmp"
DB_PID=$SPAWNED

# db_wait: until the private MariaDB answers (60 s at most).
db_wait() {
    local i
    for ((i = 0; i < 600; i++)); do
        mariadb-admin --no-defaults --socket="$DB_SOCK" --user="$(id -un)" \
            --connect-timeout=2 ping >/dev/null 2>&1 && return 0
        kill -0 "$DB_PID" 2>/dev/null || break
        sleep 0.1
    done
    diag "the private MariaDB did not start:"
    diag "$(tail -n 15 "$T/var/log/mysqld.log.install" "$T/var/log/mysqld.log" 2>/dev/null)"
    return 1
}

# nginx's directories and a stand-in for Debian's /etc/nginx/nginx.conf.
mkdir -p "$T/etc/nginx/sites-available" "$T/etc/nginx/sites-enabled" \
    "$T/var/log/nginx" "$T/var/lib/nginx"
{
    [[ $(id -u) -ne 0 ]] || echo 'user root root;'
    cat <<EOF
worker_processes 1;
pid $T/run/nginx.pid;
error_log $T/var/log/nginx/error.log;
events {
    worker_connections 64;
}
http {
    access_log $T/var/log/nginx/access.log;
    client_body_temp_path $T/var/lib/nginx/body;
    fastcgi_temp_path $T/var/lib/nginx/fastcgi;
    proxy_temp_path $T/var/lib/nginx/proxy;
    scgi_temp_path $T/var/lib/nginx/scgi;
    uwsgi_temp_path $T/var/lib/nginx/uwsgi;
    include $T/etc/nginx/sites-enabled/*;
}
EOF
} >"$T/etc/nginx/nginx.conf"
NGINX=("$(type -P nginx)" -p "$T/var/lib/nginx/" -c "$T/etc/nginx/nginx.conf" -e "$T/var/log/nginx/error.log")

# --- the stand-ins --------------------------------------------------------------------
apt-get() {
    local p pkgs=() installed missing=()
    [[ $1 == install ]] || return 0
    shift
    for p in "$@"; do
        [[ $p == -* ]] && continue
        # Any flavour of Debian's nginx (scripts/dev may have nginx-light).
        if [[ $p == nginx ]]; then
            command -v nginx >/dev/null || missing+=("$p")
        else
            pkgs+=("$p")
        fi
    done
    installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${pkgs[@]}" 2>/dev/null |
        sed -n 's/^\([^ :]*\).* installed$/\1/p')
    for p in "${pkgs[@]}"; do
        grep -qxF -- "$p" <<<"$installed" || missing+=("$p")
    done
    [[ ${#missing[@]} -eq 0 ]] || echo "not installed: ${missing[*]}"
    [[ ${#missing[@]} -eq 0 ]]
}

autoreconf() { :; }

MAKE_DIRS=()
./configure() {
    local a name
    for a in "$@"; do
        case $a in
        --prefix=* | --exec-prefix=* | --sbindir=* | --sysconfdir=* | --localstatedir=* | --datarootdir=*)
            name=${a%%=*}
            name=${name#--}
            MAKE_DIRS+=("${name//-/_}=${a#*=}")
            ;;
        *) echo "./configure: the test does not know $a" && return 1 ;;
        esac
    done
}

make() {
    local a
    for a in "$@"; do
        if [[ $a == install ]]; then
            install_tree "$T" ${MAKE_DIRS[@]+"${MAKE_DIRS[@]}"} || return 1
            PATH=$T$DIR_sbindir:$PATH
            localize_install
            return
        fi
    done
    # The build: the stack's is made (and `make install` would make what
    # is not).
    :
}

# localize_install: the installed example configuration and nginx site with
# their paths in $T; the site on 127.0.0.1:$PORT.  The programs' built-in
# schema_dir and openapi_file point outside $T: the example sets them.
localize_install() {
    local conf=$T$DIR_sysconfdir/xborder/xborder.conf.example
    local site=$T$DIR_pkgdatadir/nginx/xborder-site.conf
    sed -i -E -e "s#^([a-z_]+ = (unix:)?)/#\\1$T/#" "$conf"
    printf '%s\n' "# 16-install.t: the programs' data in the temporary root" \
        "schema_dir = $T$DIR_pkgdatadir/schema" "openapi_file = $T$DIR_pkgdatadir/openapi.json" \
        "workers = 2" >>"$conf"
    sed -i -E -e "s#(/run/|/etc/ssl/|/var/log/)#$T\\1#g" \
        -e "s#alias $DIR_pkgdatadir/#alias $T$DIR_pkgdatadir/#" \
        -e "s#^([[:space:]]*)listen 443 #\\1listen 127.0.0.1:$PORT #" \
        -e '/listen \[::\]:443 /d' "$site"
}

useradd() { echo "skipped: useradd $* (no system user in a test)"; }

install() {
    local args=()
    while [[ $# -gt 0 ]]; do
        case $1 in
        -o | -g) shift 2 ;;
        *)
            args+=("$1")
            shift
            ;;
        esac
    done
    command install "${args[@]}"
}

runuser() {
    [[ $1 == -u ]] && shift 2
    [[ $1 == -- ]] && shift
    "$@"
}

mariadb() {
    db_wait || return 1
    command mariadb --no-defaults --socket="$DB_SOCK" --user="$(id -un)" "$@"
}

# unit_cmd UNIT KEY: the unit's KEY= command line with its paths in $T.
unit_cmd() {
    localize "$(unit_values "$T$DIR_systemdsystemunitdir/$1" "$2")"
}

# unit_dirs UNIT: makes the directories systemd makes for the unit
# (RuntimeDirectory= under /run, LogsDirectory= under /var/log), in $T.
unit_dirs() {
    local f=$T$DIR_systemdsystemunitdir/$1 d
    for d in $(unit_values "$f" RuntimeDirectory); do mkdir -p "$T/run/$d"; done
    for d in $(unit_values "$f" LogsDirectory); do mkdir -p "$T/var/log/$d"; done
}

LISTEN=
FCGI_PID=
WORKER_PID=
start_unit() {
    local pre cmd
    case $1 in
    *.socket)
        LISTEN=$T$(unit_values "$T$DIR_systemdsystemunitdir/$1" ListenStream)
        [[ $LISTEN == "$T"/* ]] || return 1
        mkdir -p "${LISTEN%/*}"
        ;;
    xborder-fcgi.service)
        [[ -n $LISTEN ]] || { echo "xborder-fcgi.service before its socket" && return 1; }
        unit_dirs "$1"
        pre=$(unit_cmd "$1" ExecStartPre)
        cmd=$(unit_cmd "$1" ExecStart)
        [[ -n $cmd ]] || return 1
        if [[ -n $pre ]]; then
            # shellcheck disable=SC2086 # a unit's command line, split as systemd would
            $pre || return 1
        fi
        # shellcheck disable=SC2086
        spawn "$T/var/log/xborder-fcgi.log" systemd-socket-activate -l "$LISTEN" $cmd
        FCGI_PID=$SPAWNED
        wait_for "[[ -S $LISTEN ]]" 10
        ;;
    xborder-worker.service)
        unit_dirs "$1"
        cmd=$(unit_cmd "$1" ExecStart)
        [[ -n $cmd ]] || return 1
        # shellcheck disable=SC2086
        spawn "$T/var/log/xborder-worker.log" $cmd
        WORKER_PID=$SPAWNED
        sleep 0.3
        kill -0 "$WORKER_PID"
        ;;
    *)
        echo "systemctl: the test does not know $1"
        return 1
        ;;
    esac
}

NGINX_PID=
systemctl() {
    local u
    case $1 in
    daemon-reload) ;;
    enable)
        shift
        [[ $1 == --now ]] && shift
        for u in "$@"; do start_unit "$u" || return 1; done
        ;;
    reload | restart | start)
        [[ $2 == nginx ]] || return 1
        if [[ -n $NGINX_PID ]]; then
            kill -HUP "$NGINX_PID"
        else
            spawn "$T/var/log/nginx/error.log" "${NGINX[@]}" -g 'daemon off;'
            NGINX_PID=$SPAWNED
            wait_for "(exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null" 10
        fi
        ;;
    *) return 1 ;;
    esac
}

nginx() {
    [[ $* == -t ]] || return 1
    "${NGINX[@]}" -t
}

# Each answer is kept in $INSTALL_TMP/curl.N, N from 1.
NCURL=0
curl() {
    local a args=() rc=0
    for a in "$@"; do
        a=${a//api.example.com:443:/api.example.com:$PORT:}
        a=${a//https:\/\/api.example.com\//https://api.example.com:$PORT/}
        args+=("$a")
    done
    NCURL=$((NCURL + 1))
    command curl --max-time 10 "${args[@]}" >"$INSTALL_TMP/curl.$NCURL" || rc=$?
    cat -- "$INSTALL_TMP/curl.$NCURL"
    return $rc
}

# wait_for CONDITION SECONDS: polls until CONDITION (a command) succeeds.
wait_for() {
    local deadline=$((SECONDS + $2))
    until eval "$1"; do
        ((SECONDS >= deadline)) && return 1
        sleep 0.1
    done
}

# --- the steps ------------------------------------------------------------------------
ran=0
for step in "${STEPS[@]}"; do
    cmd=$(localize "$step")
    if eval "$cmd" >"$INSTALL_TMP/step.out" 2>&1; then
        pass "doc/install.md: $step"
        ran=$((ran + 1))
    else
        fail "doc/install.md: $step"
        diag "ran as: $cmd"
        diag "$(tail -n 20 "$INSTALL_TMP/step.out")"
        for f in "$T"/var/log/xborder-*.log "$T"/var/log/nginx/error.log; do
            [[ -s $f ]] && diag "--- $f" && diag "$(tail -n 10 "$f")"
        done
        break
    fi
done
is "$ran" "${#STEPS[@]}" "every command line of doc/install.md's install ran"

# --- what the steps made ------------------------------------------------------------------
is "$(jq -r .status "$INSTALL_TMP/curl.1" 2>/dev/null)" ok "the first curl: GET /healthz answered status ok"
like "$(jq -r .platformId <<<"${PLATFORM:-}" 2>/dev/null)" \
    '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' "platform-create printed the platform's id"
is "$(jq -r .ppvDomain "$INSTALL_TMP/curl.2" 2>/dev/null)" acme.example.com \
    "the second curl: GET /config with its credentials answered the platform's configuration"
exe=
[[ -z $FCGI_PID ]] || exe=$(readlink "/proc/$FCGI_PID/exe" 2>/dev/null)
is "$exe" "$T$DIR_sbindir/xborder-fcgi" "the API was answered by the installed xborder-fcgi, socket-activated"
exe=
[[ -z $WORKER_PID ]] || exe=$(readlink "/proc/$WORKER_PID/exe" 2>/dev/null)
is "$exe" "$T$DIR_sbindir/xborder-worker" "the installed xborder-worker runs"
key=$(sed -n 's/^webhook_signing_key = //p' "$T$DIR_sysconfdir/xborder/xborder.conf")
ok "$([[ $key == "$T"/var/lib/xborder/* && -s $key ]] && echo 1)" "webhook-keygen wrote the signing key in /var/lib/xborder"

# --- the database users -------------------------------------------------------------
ETC=$T$DIR_sysconfdir/xborder
# as_db USER PASSWORD SQL: SQL in the database as USER (the password in
# the environment, not on the command line).
as_db() {
    MYSQL_PWD=$2 command mariadb --no-defaults --socket="$DB_SOCK" --user="$1" --batch \
        --skip-column-names xborder -e "$3" 2>&1
}
ok "$([[ -n ${DBPW:-} && -n ${DBADMINPW:-} && $DBPW != "$DBADMINPW" ]] && echo 1)" \
    "the steps made two database passwords (DBPW, DBADMINPW)"
is "$(as_db xborder "${DBPW:-}" "SHOW GRANTS FOR CURRENT_USER()" | grep -v '^GRANT USAGE ON \*\.\* ')" \
    'GRANT SELECT, INSERT, UPDATE, DELETE ON `xborder`.* TO `xborder`@`localhost`' \
    "the service's database user: SELECT, INSERT, UPDATE, DELETE on xborder, nothing more"
for sql in "CREATE TABLE t16_probe (id INT PRIMARY KEY)" "ALTER TABLE tokens ADD COLUMN t16_probe INT" \
    "DROP TABLE tokens" "CREATE INDEX t16_probe ON tokens (name)"; do
    like "$(as_db xborder "${DBPW:-}" "$sql")" "ERROR 1142 .*command denied to user 'xborder'" \
        "the service's database user is refused: $sql"
done
is "$(as_db xborder_admin "${DBADMINPW:-}" "SELECT COUNT(*) FROM schema_migrations")" \
    "$(find "$XB_ROOT/schema" -name '[0-9][0-9][0-9]_*.sql' | wc -l)" \
    "every migration was applied, by the administrative user"
is "$(grep -c '^[[:space:]]*db_admin' "$ETC/xborder.conf")" 0 \
    "xborder.conf, which the services read, holds no administrative credentials"
is "$(stat -c %a "$ETC/xborder-admin.conf" 2>/dev/null)" 600 "xborder-admin.conf is 0600"
if out=$(xborderctl -c "$ETC/xborder.conf" migrate 2>&1); then rc=0; else rc=$?; fi
ok "$((rc != 0))" "migrate with xborder.conf alone fails: the service's user may not change the schema"
like "$out" "command denied" "... refused by the database"
if out=$(xborderctl -c "$ETC/xborder.conf" -c "$ETC/xborder-admin.conf" migrate 2>&1); then rc=0; else rc=$?; fi
is "$rc $out" "0 up to date" "migrate with both files, as doc/install.md does: up to date"

# The service, as the service's user: it writes (a token) and reads it back.
creds="$(jq -r .clientId <<<"${PLATFORM:-}" 2>/dev/null):$(jq -r .clientSecret <<<"${PLATFORM:-}" 2>/dev/null)"
code=$(command curl -sk --max-time 10 -o "$INSTALL_TMP/token.json" -w '%{http_code}' \
    --resolve "api.example.com:$PORT:127.0.0.1" -u "$creds" -H 'Content-Type: application/json' \
    -d '{"name":"t16-write","permissions":["view"]}' "https://api.example.com:$PORT/tokens")
is "$code" 201 "POST /tokens through the installed stack: 201 (the service's user inserts)"
tid=$(jq -r .id "$INSTALL_TMP/token.json" 2>/dev/null)
code=$(command curl -sk --max-time 10 -o /dev/null -w '%{http_code}' \
    --resolve "api.example.com:$PORT:127.0.0.1" -u "$creds" "https://api.example.com:$PORT/tokens/$tid")
is "$code" 200 "GET /tokens/$tid: 200"
is "$(mariadb --batch --skip-column-names -e "SELECT DISTINCT user FROM information_schema.processlist
        WHERE db = 'xborder' AND user LIKE 'xborder%' ORDER BY user")" xborder \
    "the running services are connected as the service's user only"

# The sandbox console, served by the installed site from the installed
# files, with its headers.
hdrs=$(command curl -sk --max-time 10 -D - -o "$INSTALL_TMP/console.html" \
    --resolve "api.example.com:$PORT:127.0.0.1" "https://api.example.com:$PORT/console/" | tr -d '\r')
like "$hdrs" '^HTTP/[0-9.]+ 200' "GET /console/ through the installed site: 200"
cmd_ok "... the installed index.html" cmp -s "$INSTALL_TMP/console.html" "$XB_ROOT/web/console/index.html"
like "$hdrs" "content-security-policy: default-src 'self'; frame-ancestors 'none'" "... with its Content-Security-Policy"
like "$hdrs" 'referrer-policy: no-referrer' "... Referrer-Policy: no-referrer"
like "$hdrs" 'x-content-type-options: nosniff' "... X-Content-Type-Options: nosniff"
hdrs=$(command curl -sk --max-time 10 -D - -o /dev/null \
    --resolve "api.example.com:$PORT:127.0.0.1" "https://api.example.com:$PORT/console/js/main.js" | tr -d '\r')
like "$hdrs" 'content-type: text/javascript' "GET /console/js/main.js: a JavaScript module"
hdrs=$(command curl -sk --max-time 10 -D - -o /dev/null \
    --resolve "api.example.com:$PORT:127.0.0.1" "https://api.example.com:$PORT/console" | tr -d '\r')
like "$hdrs" '^HTTP/[0-9.]+ 301' "GET /console through the installed site: 301"
like "$hdrs" $'(^|\n)location: /console/(\n|$)' "... to /console/"

stop_all
done_testing
