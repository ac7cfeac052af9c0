# shellcheck shell=bash
# scripts/cluster.sh: the local MariaDB Galera cluster of scripts/dev, which
# sources this file (it runs nothing by itself).  `scripts/dev cluster ...`
# and `scripts/dev check --cluster` land here; the functions of scripts/dev
# (spawn, stop_comp, build, fcgi_start, worker_start, ctl_run, ...) do the
# work, pointed at one node's directory at a time with set_dev.
#
# One cluster lives in one state directory ($XB_CLUSTER_DIR, default
# <repo>/.dev-cluster, ignored by git), everything on loopback:
#
#   node1/  MariaDB Galera node 1 (bootstraps the cluster) and xborder-fcgi
#           pool 1, which talks to it
#   node2/  node 2 (joins by SST), pool 2 and xborder-worker 2
#   node3/  node 3 (joins by SST) and xborder-worker 3
#   nginx/  one nginx (TLS) with an upstream over pools 1 and 2
#   run/ log/  nginx's pid file and logs
#   env     like .dev/env, for t/lib/api.sh (XB_ENV), plus XB_CLUSTER_* keys
#
# Each nodeN/ is laid out as a scripts/dev state directory (xborder.conf,
# builddir, mysql/, run/, log/, tmp/), its xborder.conf pointing at node N's
# socket: `xborderctl -c nodeN/xborder.conf` talks to node N.
#
# Ports, from a base B ($XB_CLUSTER_PORT_BASE, 9110): node N listens for SQL
# on B+10(N-1) (127.0.0.1 only; xborder uses the socket), for Galera group
# communication on +1, incremental state transfer (IST) on +2 and snapshot
# state transfer (SST, rsync) on +3; nginx on B+30 ($XB_CLUSTER_PORT).
# `check --cluster` uses its own directory (.dev-check-cluster) and base
# (9150), so it never touches a cluster brought up by hand.

# Debian packages the cluster needs beyond the stack's: the Galera provider,
# rsync for SST (wsrep_sst_rsync), and ss (iproute2), which the SST script
# uses to see its rsync daemon listen.
CLUSTER_PACKAGES=(galera-4 rsync iproute2)
CL_NODES=3
GALERA_PROVIDER=/usr/lib/galera/libgalera_smm.so
# Failure detection for a LAN (Galera's defaults are for a WAN: a silent
# node is suspected after 5 s and evicted after 15 s, and every commit in
# the cluster waits meanwhile).  Each node sends a keepalive every 0.25 s
# and checks its peers as often; one silent for 1 s is suspected, and
# evicted when the others agree (or after 2 s regardless); a new view is
# installed within 2 s.  A shorter timeout evicts a slow node sooner: a
# node stalled longer than this (swapping, a long pause) leaves the
# cluster and must rejoin by IST.
CL_EVS="evs.keepalive_period=PT0.25S;evs.inactive_check_period=PT0.25S;evs.suspect_timeout=PT1S;evs.inactive_timeout=PT2S;evs.install_timeout=PT2S;evs.join_retrans_period=PT0.25S"

cluster_usage() {
    cat <<EOF
usage: $PROG cluster COMMAND

  up [--sanitizers]      install missing packages, build, start three MariaDB
                         Galera nodes (node 1 bootstraps, 2 and 3 join by
                         SST), apply the migrations once, start xborder-fcgi
                         pools on nodes 1 and 2, xborder-worker on nodes 2
                         and 3, nginx over both pools, create the sandbox
                         platform, write \$XB_CLUSTER_DIR/env
  down                   stop everything (by pid), the nodes last to first
  status                 every process, and each node's wsrep_cluster_size,
                         wsrep_local_state_comment, wsrep_cluster_status
                         (exit 3 when not all run or a node is not Synced)
  reset                  down, then delete the state directory
  kill N                 SIGKILL node N's mariadbd (a crash, for tests)
  start N                start node N again (it rejoins, by IST if it can)
  stop N                 stop node N cleanly
  worker stop|start N    stop or start only the xborder-worker of node N
                         (2 or 3)
  sql N [ARGS...]        the mariadb client as root on node N's socket
  env                    print the env file
  test [PROVE ARGS]      run prove (default: -r t/) against the cluster, with
                         XB_CLUSTER=1 (t/88-cluster.t kills and restarts
                         node 2)

environment: XB_CLUSTER_DIR (<repo>/.dev-cluster), XB_CLUSTER_PORT_BASE
             (9110: nodes on 9110-9133), XB_CLUSTER_PORT (base + 30: nginx)
EOF
}

# cl_set DIR BASE: the cluster in DIR, on ports from BASE.
cl_set() {
    CL_DIR=$1
    case $CL_DIR in /*) ;; *) CL_DIR=$PWD/$CL_DIR ;; esac
    CL_DIR=${CL_DIR%/}
    CL_BASE=$2
    if ! [[ $CL_BASE =~ ^[0-9]+$ ]] || ((CL_BASE < 1024 || CL_BASE > 65500)); then
        die "bad cluster port base: $CL_BASE"
    fi
    CL_PORT=${XB_CLUSTER_PORT:-$((CL_BASE + 30))}
    CL_ENVF=$CL_DIR/env
}

# cl_node N: the scripts/dev globals (DEV, RUN, LOG, CONF, MYSOCK, FCGISOCK)
# for node N, and its ports.
cl_node() {
    if ! [[ $1 =~ ^[1-9]$ ]] || (($1 > CL_NODES)); then
        die "no node $1 (1 to $CL_NODES)"
    fi
    set_dev "$CL_DIR/node$1"
    CL_SQL_PORT=$((CL_BASE + 10 * ($1 - 1)))
    CL_GCOMM_PORT=$((CL_SQL_PORT + 1))
    CL_IST_PORT=$((CL_SQL_PORT + 2))
    CL_SST_PORT=$((CL_SQL_PORT + 3))
}

# cl_front: the globals for the cluster's own directory (nginx, env file).
cl_front() {
    set_dev "$CL_DIR"
    CONF=$CL_DIR/node1/xborder.conf
    ENVF=$CL_ENVF
    PORT=$CL_PORT
}

# cl_address: the gcomm:// address of every node.
cl_address() {
    local n addr=
    for ((n = 1; n <= CL_NODES; n++)); do
        addr+="${addr:+,}127.0.0.1:$((CL_BASE + 10 * (n - 1) + 1))"
    done
    printf 'gcomm://%s\n' "$addr"
}

# cl_status_var N NAME: a global status value of node N ('' when it does
# not answer).
cl_status_var() {
    cl_node "$1"
    db_sql --connect-timeout=2 -N -B -e "SHOW GLOBAL STATUS LIKE '$2'" 2>/dev/null |
        awk '{print $2}' || true
}

# cl_synced N: node N answers and is Synced with the primary component.
cl_synced() {
    [ "$(cl_status_var "$1" wsrep_local_state_comment)" = Synced ] &&
        [ "$(cl_status_var "$1" wsrep_ready)" = ON ]
}

# cl_grastate N KEY: a value of node N's grastate.dat.
cl_grastate() {
    sed -n "s/^$2:[[:space:]]*//p" "$CL_DIR/node$1/mysql/grastate.dat" 2>/dev/null | head -n 1
}

# cl_recover N: prints the position (uuid:seqno) node N's InnoDB reached,
# from mariadbd --wsrep-recover: a node that was killed left seqno -1 in
# grastate.dat, and started with this position it rejoins by IST instead of
# a full SST.
cl_recover() {
    local n=$1 user_opt=() log pos
    cl_node "$n"
    [ "$(id -u)" -ne 0 ] || user_opt=(--user=root)
    log=$LOG/wsrep-recover.log
    rm -f -- "$log"
    timeout -k 10 120 mariadbd --no-defaults "${user_opt[@]}" --datadir="$DEV/mysql" \
        --socket="$RUN/recover.sock" --skip-networking --pid-file="$RUN/recover.pid" \
        --log-error="$log" --tmpdir="$DEV/tmp" --innodb-buffer-pool-size=64M \
        --innodb-log-file-size=64M --binlog-format=ROW \
        --wsrep-on=ON --wsrep-provider="$GALERA_PROVIDER" --wsrep-cluster-address="$(cl_address)" \
        --wsrep-sst-method=rsync --wsrep-recover >/dev/null 2>&1 || true
    pos=$(sed -n 's/.*WSREP: Recovered position: *\([0-9a-f-]*:-\{0,1\}[0-9]*\).*/\1/p' "$log" | tail -n 1)
    [[ $pos =~ ^[0-9a-f-]{36}:[0-9]+$ ]] || return 1
    printf '%s\n' "$pos"
}

# cl_node_start N [bootstrap]: starts node N's mariadbd unless it runs and
# waits (bounded) until it is Synced.  bootstrap: a new primary component
# (--wsrep-new-cluster), the datadir made first if there is none; otherwise
# the node joins the others and gets their state (SST the first time).
cl_node_start() {
    local n=$1 mode=${2:-join} user_opt=() extra=() pid i pos limit=600
    cl_node "$n"
    if running db; then
        cl_wait_synced "$n" 120
        return 0
    fi
    make_dirs
    mkdir -p "$DEV/mysql"
    [ "$(id -u)" -ne 0 ] || user_opt=(--user=root)
    if [ "$mode" = bootstrap ]; then
        if [ ! -f "$DEV/mysql.initialised" ]; then
            info "initialising MariaDB in $DEV/mysql"
            rm -rf -- "$DEV/mysql"
            mkdir -p "$DEV/mysql"
            local sock_user=()
            [ "$(id -u)" -eq 0 ] || sock_user=(--auth-root-socket-user="$(db_os_user)")
            if ! mariadb-install-db --no-defaults "${user_opt[@]}" --datadir="$DEV/mysql" \
                --auth-root-authentication-method=socket "${sock_user[@]}" \
                --skip-test-db >"$LOG/mysql-install.log" 2>&1; then
                show_log "$LOG/mysql-install.log" 30
                die "mariadb-install-db failed"
            fi
        fi
        extra+=(--wsrep-new-cluster)
    elif [ "$(id -u)" -eq 0 ]; then
        # In case the joiner needs an SST: wsrep_sst_rsync runs an rsync
        # daemon, which as root writes as "nobody" (rsyncd.conf's default
        # uid): let it write the datadir.  mariadbd, as root, reads and
        # writes whatever it owns.
        chown -R nobody:nogroup "$DEV/mysql"
    fi
    if [ "$(cl_grastate "$n" seqno)" = -1 ] && [ -d "$DEV/mysql/mysql" ]; then
        info "node $n: recovering its position (it did not stop cleanly)"
        if pos=$(cl_recover "$n"); then
            info "node $n: recovered position $pos"
            extra+=(--wsrep-start-position="$pos")
        else
            warn "node $n: no position recovered: it will need a full SST"
        fi
        cl_node "$n"
    fi
    rm -f -- "$MYSOCK" "$MYSOCK.lock"
    info "starting Galera node $n ($mode; SQL 127.0.0.1:$CL_SQL_PORT, group $CL_GCOMM_PORT)"
    # innodb_autoinc_lock_mode=2 and binlog_format=ROW are what Galera
    # requires; auto_increment_increment/offset are left to Galera
    # (wsrep_auto_increment_control, on by default), which spreads the
    # values each node hands out.  $CL_EVS: the group's failure detection,
    # tuned for a LAN (doc/cluster.md).
    spawn "$LOG/mysqld.log" mariadbd --no-defaults "${user_opt[@]}" \
        --datadir="$DEV/mysql" --socket="$MYSOCK" \
        --bind-address=127.0.0.1 --port="$CL_SQL_PORT" \
        --pid-file="$RUN/mysqld.pid" --log-error="$LOG/mysqld.log" --tmpdir="$DEV/tmp" \
        --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
        --innodb-buffer-pool-size=128M --innodb-flush-log-at-trx-commit=2 \
        --innodb-log-file-size=64M --max-connections=300 \
        --default-storage-engine=InnoDB --binlog-format=ROW --innodb-autoinc-lock-mode=2 \
        --wsrep-on=ON --wsrep-provider="$GALERA_PROVIDER" \
        --wsrep-cluster-name=xborder-dev --wsrep-cluster-address="$(cl_address)" \
        --wsrep-node-name="node$n" --wsrep-node-address="127.0.0.1:$CL_GCOMM_PORT" \
        --wsrep-node-incoming-address="127.0.0.1:$CL_SQL_PORT" \
        --wsrep-sst-method=rsync --wsrep-sst-receive-address="127.0.0.1:$CL_SST_PORT" \
        --wsrep-slave-threads=2 --wsrep-log-conflicts=ON \
        --wsrep-provider-options="gmcast.listen_addr=tcp://127.0.0.1:$CL_GCOMM_PORT;ist.recv_addr=127.0.0.1:$CL_IST_PORT;gcache.size=256M;$CL_EVS" \
        ${extra[@]+"${extra[@]}"}
    pid=$SPAWNED
    # Not this shell's job: a node killed on purpose is no news to it.
    disown "$pid" 2>/dev/null || true
    for ((i = 0; i < limit; i++)); do
        if ! proc_exists "$pid"; then
            show_log "$LOG/mysqld.log" 40
            die "node $n: mariadbd exited at start"
        fi
        if db_ping; then
            [ -s "$RUN/mysqld.pid" ] || echo "$pid" >"$RUN/mysqld.pid"
            db_private_socket
            break
        fi
        sleep 0.2
    done
    ((i < limit)) || {
        show_log "$LOG/mysqld.log" 40
        die "node $n: mariadbd did not answer within $((limit / 5))s (pid $pid)"
    }
    cl_wait_synced "$n" 120
}

# cl_wait_synced N SECONDS: waits until node N is Synced; dies when it is
# not within SECONDS.
cl_wait_synced() {
    local n=$1 deadline=$((SECONDS + $2))
    until cl_synced "$n"; do
        if ((SECONDS >= deadline)); then
            cl_node "$n"
            show_log "$LOG/mysqld.log" 40
            die "node $n is not Synced after $2s ($(cl_status_var "$n" wsrep_local_state_comment))"
        fi
        sleep 0.3
    done
    cl_node "$n"
}

# cl_bootstrap_node: the node to bootstrap from: node 1 when there is no
# data yet; else the node that stopped last (safe_to_bootstrap: 1 in its
# grastate.dat); else, after a crash of them all, the one whose recovered
# position is the furthest, marked safe to bootstrap.
cl_bootstrap_node() {
    local n best=0 best_seq=-2 pos seq
    if [ ! -f "$CL_DIR/node1/mysql.initialised" ]; then
        echo 1
        return 0
    fi
    for ((n = 1; n <= CL_NODES; n++)); do
        if [ "$(cl_grastate "$n" safe_to_bootstrap)" = 1 ]; then
            echo "$n"
            return 0
        fi
    done
    for ((n = 1; n <= CL_NODES; n++)); do
        [ -d "$CL_DIR/node$n/mysql/mysql" ] || continue
        seq=$(cl_grastate "$n" seqno)
        if [ "$seq" = -1 ] || [ -z "$seq" ]; then
            pos=$(cl_recover "$n") || continue
            seq=${pos##*:}
        fi
        if ((seq > best_seq)); then
            best=$n best_seq=$seq
        fi
    done
    ((best > 0)) || die "no node of $CL_DIR can bootstrap the cluster (cluster reset starts afresh)"
    warn "no node stopped cleanly: bootstrapping node $best (seqno $best_seq)"
    sed -i 's/^safe_to_bootstrap:.*/safe_to_bootstrap: 1/' "$CL_DIR/node$best/mysql/grastate.dat"
    echo "$best"
}

# cl_write_confs: every node's xborder.conf, with the same secrets (written
# once; later runs keep the password, fingerprint key and any edit of node
# 1's).  db_sync_wait = 1 makes every read causal across the nodes.
cl_write_confs() {
    local n pw fpk
    if [ -s "$CL_DIR/node1/xborder.conf" ]; then
        CONF=$CL_DIR/node1/xborder.conf
        pw=$(conf_get db_password '')
        fpk=$(conf_get fingerprint_key '')
    fi
    [ -n "${pw:-}" ] || pw=$(openssl rand -hex 24)
    [ -n "${fpk:-}" ] || fpk=$(openssl rand -hex 32)
    for ((n = 1; n <= CL_NODES; n++)); do
        cl_node "$n"
        make_dirs
        if [ -s "$CONF" ]; then
            conf_private_socket
            continue
        fi
        # The other nodes, in turn from the next one: node 2's pool and
        # worker move to node 3 while node 2 is out, node 1's to node 2.
        local others=() k
        for ((k = 1; k < CL_NODES; k++)); do
            others+=("$CL_DIR/node$(((n - 1 + k) % CL_NODES + 1))/run/mysqld.sock")
        done
        # The workers (on nodes 2 to N) share the platforms' jobs and
        # webhook events: node n's worker takes share n-2 of N-1.
        local shard="# (no worker runs on node 1)"
        ((n == 1)) || shard="worker_shard = $((n - 2))/$((CL_NODES - 1))"
        (
            umask 077
            cat >"$CONF.tmp" <<EOF
# xborder.conf of Galera node $n of the cluster in $CL_DIR
# (written once by scripts/dev cluster up; see xborder.conf(5)).
db_socket = $MYSOCK
db_user = xborder
db_password = $pw
db_name = xborder
# Causal reads: a read on this node sees what another node committed
# before it was sent (doc/cluster.md).
db_sync_wait = 1
# When this node is out (or not Synced), the pool and the worker serve
# through the others, tried in this order, and come back to it when it
# serves again (xborder.conf(5)).
db_nodes = $(IFS=,; echo "${others[*]}")
# The worker's share of the platforms' jobs and webhook events.
$shard
listen = unix:$FCGISOCK
socket_mode = 0660
workers = 3
max_requests = 10000
base_path =
log_level = info
webhook_allow_private = yes
schema_dir = $ROOT/schema
openapi_file = $ROOT/openapi/openapi.json
fingerprint_key = $fpk
webhook_signing_key = $CL_DIR/webhook-signing-key.pem
stats_file = $RUN/fcgi.stats
webhook_retry_base = 2
webhook_retry_max = 4
webhook_retry_window = 60
# A request whose node died while it ran holds its Idempotency-Key until
# this lease passes; then a retry runs it.  Short: the client of such a
# request waits this long; a request still running past it is safe (its
# commit checks the claim), only a retry meanwhile runs instead of it.
idempotency_lease = 2
EOF
        )
        mv -f -- "$CONF.tmp" "$CONF"
    done
}

# cl_nginx_start: renders nginx/cluster.conf.in and starts nginx (or reloads
# it when its config changed).
cl_nginx_start() {
    local conf pid i user_line=
    cl_front
    make_dirs
    ensure_cert
    ln -sfn -- "$ROOT/nginx/snippets" "$DEV/nginx/snippets"
    conf=$DEV/nginx/nginx.conf
    [ "$(id -u)" -ne 0 ] || user_line='user root root;'
    [[ $RATE =~ ^[1-9][0-9]*$ && $BURST =~ ^[0-9]+$ ]] || die "bad XB_RATE_LIMIT/XB_RATE_BURST"
    sed -e "s|@PORT@|$PORT|g" -e "s|@DEV@|$(sed_escape "$DEV")|g" \
        -e "s|@WEB@|$(sed_escape "$ROOT/web")|g" \
        -e "s|@FCGI_1@|$(sed_escape "$CL_DIR/node1/run/fcgi.sock")|g" \
        -e "s|@FCGI_2@|$(sed_escape "$CL_DIR/node2/run/fcgi.sock")|g" \
        -e "s|@RATE@|$RATE|g" -e "s|@BURST@|$BURST|g" -e "s|@USER_LINE@|$user_line|g" \
        "$ROOT/nginx/cluster.conf.in" >"$conf.new"
    if grep -q '@[A-Z_0-9]*@' "$conf.new"; then
        die "unreplaced placeholder in $conf.new: $(grep -m1 '@[A-Z_0-9]*@' "$conf.new")"
    fi
    if pid=$(running_pid nginx); then
        if cmp -s "$conf.new" "$conf"; then
            rm -f -- "$conf.new"
            return 0
        fi
        mv -f -- "$conf.new" "$conf"
        nginx_test
        info "reloading nginx (pid $pid): its config changed"
        kill -HUP "$pid"
        sleep 0.5
        return 0
    fi
    stop_comp nginx 10
    mv -f -- "$conf.new" "$conf"
    nginx_test
    info "starting nginx on https://127.0.0.1:$PORT"
    spawn "$LOG/nginx-error.log" nginx -p "$DEV/nginx/" -c "$conf" -e "$LOG/nginx-error.log"
    pid=$SPAWNED
    for ((i = 0; i < 100; i++)); do
        if ! proc_exists "$pid"; then
            show_log "$LOG/nginx-error.log" 20
            die "nginx exited at start"
        fi
        [ -s "$RUN/nginx.pid" ] && break
        sleep 0.1
    done
    [ -s "$RUN/nginx.pid" ] || echo "$pid" >"$RUN/nginx.pid"
}

# cl_env: the env file (ensure_platform's, plus the cluster's keys).
cl_env() {
    local n
    cl_front
    ensure_platform
    {
        echo "# The cluster: its directory, nodes and each node's config."
        env_line XB_CLUSTER_DIR "$CL_DIR"
        env_line XB_CLUSTER_NODES "$CL_NODES"
        env_line XB_CLUSTER_PORT_BASE "$CL_BASE"
        for ((n = 1; n <= CL_NODES; n++)); do
            env_line "XB_NODE${n}_CONF" "$CL_DIR/node$n/xborder.conf"
            env_line "XB_NODE${n}_SOCK" "$CL_DIR/node$n/run/mysqld.sock"
        done
        echo "export XB_CLUSTER_DIR XB_CLUSTER_NODES XB_CLUSTER_PORT_BASE$(for ((n = 1; n <= CL_NODES; n++)); do printf ' XB_NODE%s_CONF XB_NODE%s_SOCK' "$n" "$n"; done)"
    } >>"$ENVF"
}

# cl_up BUILDDIR [CONFIGURE ARGS]: builds and starts whatever is not running.
cl_up() {
    local bdir=$1 n first
    shift
    ensure_packages
    # shellcheck disable=SC2034 # ensure_packages reads PACKAGES
    local -a PACKAGES=("${CLUSTER_PACKAGES[@]}")
    ensure_packages
    [ -r "$GALERA_PROVIDER" ] || die "no Galera provider at $GALERA_PROVIDER (apt-get install galera-4)"
    build "$bdir" "$@"
    # Each node's processes, and the front (cl_front: xborderctl), use it.
    mkdir -p "$CL_DIR"
    echo "$bdir" >"$CL_DIR/builddir"
    for ((n = 1; n <= CL_NODES; n++)); do
        mkdir -p "$CL_DIR/node$n"
        echo "$bdir" >"$CL_DIR/node$n/builddir"
    done
    cl_write_confs

    # The nodes: one bootstraps (unless one runs already), the others join.
    first=
    for ((n = 1; n <= CL_NODES; n++)); do
        cl_node "$n"
        if running db; then
            first=$n
            break
        fi
    done
    if [ -z "$first" ]; then
        first=$(cl_bootstrap_node)
        cl_node_start "$first" bootstrap
        touch "$CL_DIR/node$first/mysql.initialised"
    fi
    for ((n = 1; n <= CL_NODES; n++)); do
        [ "$n" = "$first" ] || cl_node_start "$n" join
        touch "$CL_DIR/node$n/mysql.initialised"
    done

    # The database, its user and the schema: once, for the whole cluster
    # (users, grants and DDL are replicated to every node).
    cl_node 1
    db_setup
    info "xborderctl migrate (once, on node 1)"
    ctl_run migrate || die "xborderctl migrate failed"
    if [ ! -s "$CL_DIR/webhook-signing-key.pem" ]; then
        info "xborderctl webhook-keygen"
        ctl_run webhook-keygen >/dev/null || die "xborderctl webhook-keygen failed"
    fi
    seed_fx

    # Pools on nodes 1 and 2, workers on nodes 2 and 3.
    cl_node 1 && fcgi_start
    cl_node 2 && fcgi_start
    cl_node 2 && worker_start
    cl_node 3 && worker_start
    cl_nginx_start
    cl_env
    cl_front
    verify
    cl_status || true
    print_credentials
}

# cl_down: stops everything the cluster started, by pid; the nodes last to
# first, so that node 1 is the one safe to bootstrap from next time.
cl_down() {
    local n
    [ -d "$CL_DIR" ] || return 0
    cl_front
    stop_comp nginx 10
    for ((n = CL_NODES; n >= 1; n--)); do
        cl_node "$n"
        stop_comp worker 30
        stop_comp fcgi 30
    done
    for ((n = CL_NODES; n >= 1; n--)); do
        cl_node "$n"
        stop_comp db 120
        rm -f -- "$FCGISOCK"
    done
}

# cl_status: every process and node; non-zero when something is down.
cl_status() {
    local n c pid rc=0 state size prim
    for ((n = 1; n <= CL_NODES; n++)); do
        cl_node "$n"
        if pid=$(running_pid db); then
            state=$(cl_status_var "$n" wsrep_local_state_comment)
            size=$(cl_status_var "$n" wsrep_cluster_size)
            prim=$(cl_status_var "$n" wsrep_cluster_status)
            printf 'node%s   mariadbd running (pid %s)  wsrep_cluster_size=%s wsrep_local_state_comment=%s wsrep_cluster_status=%s\n' \
                "$n" "$pid" "${size:-?}" "${state:-?}" "${prim:-?}"
            [ "$state" = Synced ] || rc=3
        else
            printf 'node%s   mariadbd stopped\n' "$n"
            rc=3
        fi
        for c in fcgi worker; do
            case $n:$c in 1:fcgi | 2:fcgi | 2:worker | 3:worker) ;; *) continue ;; esac
            if pid=$(running_pid "$c"); then
                printf 'node%s   %-8s running (pid %s)\n' "$n" "$c" "$pid"
            else
                printf 'node%s   %-8s stopped\n' "$n" "$c"
                rc=3
            fi
        done
    done
    cl_front
    if pid=$(running_pid nginx); then
        printf 'nginx   running (pid %s)  https://127.0.0.1:%s\n' "$pid" "$PORT"
    else
        printf 'nginx   stopped\n'
        rc=3
    fi
    return $rc
}

# cl_kill N: SIGKILL to node N's mariadbd, by its recorded pid.
cl_kill() {
    local pid
    cl_node "$1"
    pid=$(running_pid db) || die "node $1 is not running"
    info "SIGKILL to node $1's mariadbd (pid $pid)"
    kill -KILL "$pid"
    for ((i = 0; i < 100; i++)); do
        pid_alive "$pid" mariadbd || break
        sleep 0.1
    done
    rm -f -- "$RUN/mysqld.pid"
}

cmd_cluster() {
    local sub=${1:-help} base
    [ $# -eq 0 ] || shift
    base=${XB_CLUSTER_PORT_BASE:-9110}
    cl_set "${XB_CLUSTER_DIR:-$ROOT/.dev-cluster}" "$base"
    case $sub in
    up)
        parse_build_opts "$@"
        [ ${#REST[@]} -eq 0 ] || die "cluster up: unknown argument: ${REST[0]}"
        # shellcheck disable=SC2153 # set by parse_build_opts
        cl_up "$BDIR" ${CONFIGURE_ARGS[@]+"${CONFIGURE_ARGS[@]}"}
        ;;
    down) cl_down ;;
    status) cl_status ;;
    reset)
        cl_down
        info "deleting $CL_DIR"
        rm -rf -- "$CL_DIR"
        ;;
    kill) cl_kill "${1:?usage: $PROG cluster kill N}" ;;
    start)
        cl_node "${1:?usage: $PROG cluster start N}"
        cl_node_start "$1" join
        # Its pool and worker, if they were stopped too.
        case $1 in 1 | 2) fcgi_start ;; esac
        case $1 in 2 | 3) worker_start ;; esac
        ;;
    stop)
        cl_node "${1:?usage: $PROG cluster stop N}"
        stop_comp db 120
        ;;
    worker)
        case ${1:-}:${2:-} in
        stop:2 | stop:3) cl_node "$2" && stop_comp worker 30 ;;
        start:2 | start:3) cl_node "$2" && worker_start ;;
        *) die "usage: $PROG cluster worker stop|start N (2 or 3)" ;;
        esac
        ;;
    sql)
        cl_node "${1:?usage: $PROG cluster sql N [ARGS]}"
        shift
        db_sql "$@"
        ;;
    env)
        [ -s "$CL_ENVF" ] || die "no $CL_ENVF (run $PROG cluster up)"
        cat -- "$CL_ENVF"
        ;;
    test)
        cl_front
        XB_CLUSTER=1 run_prove "$@"
        ;;
    help | -h | --help) cluster_usage ;;
    *)
        cluster_usage >&2
        exit 2
        ;;
    esac
}

CL_CHECK_TORN_DOWN=0
cl_check_teardown() {
    ((CL_CHECK_TORN_DOWN)) && return 0
    CL_CHECK_TORN_DOWN=1
    oas_stop >/dev/null 2>&1 || true
    info "tearing down the check cluster"
    cl_down || true
}

# cmd_check_cluster [--sanitizers] [PROVE ARGS]: a fresh cluster in
# <repo>/.dev-check-cluster (ports from $XB_CHECK_CLUSTER_PORT_BASE, 9150),
# prove of the cluster suite (default t/88-cluster.t) with XB_CLUSTER=1,
# teardown.  Only the cluster part: `check` without --cluster is the rest.
cmd_check_cluster() {
    local start=$SECONDS rc=0 elapsed
    parse_build_opts "$@"
    cl_set "$ROOT/.dev-check-cluster" "${XB_CHECK_CLUSTER_PORT_BASE:-9150}"
    unset XB_CLUSTER_PORT
    CL_PORT=$((CL_BASE + 30))
    cl_down
    rm -rf -- "$CL_DIR"
    trap cl_check_teardown EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    cl_up "$BDIR" ${CONFIGURE_ARGS[@]+"${CONFIGURE_ARGS[@]}"}
    cl_front
    [ ${#REST[@]} -gt 0 ] || REST=(t/88-cluster.t)
    info "prove ${REST[*]} (XB_CLUSTER=1)"
    XB_CLUSTER=1 XB_CLUSTER_PORT_BASE=$CL_BASE run_prove "${REST[@]}" || rc=1
    if ! cl_status >/dev/null; then
        echo "the cluster did not survive the tests:" >&2
        cl_status >&2 || true
        rc=1
    fi
    cl_check_teardown
    elapsed=$((SECONDS - start))
    if [ $rc -eq 0 ]; then
        printf 'check --cluster: PASS (%dm%02ds)\n' $((elapsed / 60)) $((elapsed % 60))
    else
        printf 'check --cluster: FAIL (%dm%02ds)\n' $((elapsed / 60)) $((elapsed % 60))
    fi
    return $rc
}
