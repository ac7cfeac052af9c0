#!/usr/bin/env bash
# 59-purge.t - xborder-worker's housekeeping deletes what has outlived its
# keeping, and keeps up however much there is:
#  - 21,500 idempotency records past their expiry (more than one purge
#    takes: 20 statements of 1,000), jobs done two days ago and webhook
#    events older than 30 days that are no longer pending, made old in SQL;
#  - beside them what must stay: a live record, a job done an hour ago and
#    one not yet due, a PENDING event older than 30 days and a FAILED one
#    29 days old;
#  - a worker started afresh purges at once; its first purge logs that
#    rows are left ("more to purge") and the next, a second later rather
#    than a minute, deletes the rest; what must stay stays.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
no_plan

DEV=${XB_ROOT:-$XB_REPO}/scripts/dev
SOCK=${XB_DEV_DIR:?}/run/mysqld.sock
WLOG=$XB_DEV_DIR/log/xborder-worker.log

sql() {
    mariadb --no-defaults --socket="$SOCK" --user="$(id -un)" --batch --skip-column-names \
        xborder -e "$1"
}

new_platform t59 || BAIL_OUT "platform-create failed"
P=$NP_ID
OLD=21500

# --- the rows, made old in SQL -------------------------------------------------

sql "SET SESSION max_recursive_iterations = $OLD;
     INSERT INTO idempotency_keys (platform_id, idem_key, request_hash, state, created_at,
       expires_at)
     WITH RECURSIVE s (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $OLD)
     SELECT '$P', CONCAT('old-', i), REPEAT('0', 64), 'DONE',
       UTC_TIMESTAMP(3) - INTERVAL 2 DAY, UTC_TIMESTAMP(3) - INTERVAL 1 DAY FROM s"
sql "INSERT INTO idempotency_keys (platform_id, idem_key, request_hash, state, created_at,
       expires_at)
     VALUES ('$P', 'live', REPEAT('0', 64), 'DONE', UTC_TIMESTAMP(3),
       UTC_TIMESTAMP(3) + INTERVAL 1 DAY)"
job() { # kind done_at run_at
    sql "INSERT INTO jobs (kind, ref_id, platform_id, run_at, attempts, done_at, created_at)
         VALUES ('$1', UUID(), '$P', $3, 1, $2, UTC_TIMESTAMP(3) - INTERVAL 3 DAY)"
}
for ((i = 0; i < 3; i++)); do
    job t59-old "UTC_TIMESTAMP(3) - INTERVAL 2 DAY" "UTC_TIMESTAMP(3) - INTERVAL 2 DAY"
done
job t59-recent "UTC_TIMESTAMP(3) - INTERVAL 1 HOUR" "UTC_TIMESTAMP(3) - INTERVAL 1 HOUR"
job t59-due-later NULL "UTC_TIMESTAMP(3) + INTERVAL 1 DAY"
event() { # status age_days
    sql "INSERT INTO webhook_events (id, platform_id, transaction_id, type, payload, status,
           next_attempt_at, created_at)
         VALUES (UUID(), '$P', UUID(), 't59.$1.$2', '{}', '$1',
           IF('$1' = 'PENDING', UTC_TIMESTAMP(3) + INTERVAL 1 DAY, NULL),
           UTC_TIMESTAMP(3) - INTERVAL $2 DAY)"
}
event FAILED 31
event DELIVERED 31
event DELIVERED 45
event PENDING 31
event FAILED 29

is "$(sql "SELECT COUNT(*) FROM idempotency_keys WHERE platform_id = '$P'")" "$((OLD + 1))" \
    "$OLD expired idempotency records and a live one"

# --- a worker started afresh purges at once, and again a second later ---------

lines0=$(wc -l <"$WLOG")
"$DEV" worker stop >/dev/null 2>&1
"$DEV" worker start >/dev/null 2>&1
ok "$(wait_for "[[ \$(sql \"SELECT COUNT(*) FROM idempotency_keys WHERE platform_id = '$P'\") == 1 ]]" 30 && echo 1)" \
    "every expired idempotency record of the platform is gone"
# The second purge deleted the last of them with its first statement; it
# logs its line after its statements on jobs and every platform's events.
wait_log "$WLOG" "$lines0" 'msg="purged ' 2 10 || diag "    no second purge line within 10 s"
purges=$(tail -n +"$((lines0 + 1))" "$WLOG" | grep 'msg="purged ')
like "$(head -n 1 <<<"$purges")" 'purged [0-9]+ expired idempotency keys, old jobs, old webhook events and closed authentication failure counts \(more to purge\)' \
    "the first purge stops at its bound and says rows are left"
ok "$(($(grep -c 'msg="purged ' <<<"$purges") >= 2))" "a second purge followed (not a minute later)"
is "$(sql "SELECT idem_key FROM idempotency_keys WHERE platform_id = '$P'")" live \
    "the live record stays"
ok "$(wait_for "[[ \$(sql \"SELECT COUNT(*) FROM webhook_events WHERE platform_id = '$P'\") == 2 ]]" 10 && echo 1)" \
    "the finished events older than 30 days are gone"
is "$(sql "SELECT GROUP_CONCAT(type ORDER BY type) FROM webhook_events WHERE platform_id = '$P'")" \
    "t59.FAILED.29,t59.PENDING.31" "the PENDING event and the 29-day-old one stay"
is "$(sql "SELECT GROUP_CONCAT(kind ORDER BY kind) FROM jobs WHERE platform_id = '$P'")" \
    "t59-due-later,t59-recent" "the jobs done two days ago are gone; the recent and the undue stay"

done_testing
