/*
 * db_webhooks.h: the webhook outbox (table webhook_events): events written
 * with each transaction status change, the delivery log the integrator
 * reads, and the claims and results of xborder-worker's deliveries.
 */
#ifndef XBORDER_DB_WEBHOOKS_H
#define XBORDER_DB_WEBHOOKS_H

#include <stddef.h>
#include <stdint.h>

struct db;
struct db_shard;
struct txn;

/* A webhook event to queue: its row of webhook_events. */
struct wh_new_event {
	char		 id[37];
	const char	*platform_id;
	const char	*transaction_id;
	char		 type[41];
	char		*payload;	/* the event's JSON text; the caller's */
};

/*
 * Queues the n events ev (n at most TXN_BATCH_MAX) in one statement, in the
 * caller's database transaction: PENDING, or FAILED when the platform has
 * no webhook endpoint.  The lifecycle (txn_lifecycle.c) makes them, one
 * for every creation and status change of a transaction.
 */
int db_wh_events_add(struct db *db, const struct wh_new_event *ev, size_t n);

/* One row of the delivery log. */
struct wh_event {
	char	 id[37];
	char	 platform_id[37];
	char	 transaction_id[37];
	char	 type[41];
	char	 status[16];
	int64_t	 attempts;
	int64_t	 last_status;		/* -1: none */
	char	 last_attempt_at[25];	/* "" when none */
	char	 next_attempt_at[25];	/* "" when none */
	char	 created_at[25];
};

/*
 * The delivery log's filters (decisions.md section 11): each NULL for
 * any.  transaction_id is a raw uuid; start and end bound created_at
 * inclusively, as "YYYY-MM-DD HH:MM:SS.mmm" (valid_datetime_param).
 */
struct wh_filter {
	const char	*status, *type, *transaction_id, *start, *end;
};

/* The delivery log, newest first, one statement text per combination of filters. */
int db_wh_list(struct db *db, const char *platform, const struct wh_filter *f,
    int64_t limit, int64_t offset, struct wh_event **out, size_t *n, int64_t *total);

/*
 * For xborderctl explain-lists: how many combinations of the delivery
 * log's filters there are, and the EXPLAIN of the statement of
 * combination mask (bits in the order of struct wh_filter) with a sample
 * value of each filter: its count (count 1) or its page.  out: caller frees.
 */
struct db_rows;
unsigned db_wh_list_combinations(void);
int db_wh_list_explain(struct db *db, const char *platform, unsigned mask, int count,
    struct db_rows *out);

/* One attempt of the delivery log (webhook_attempts). */
struct wh_attempt {
	char	 at[25];		/* when it started */
	int64_t	 response_status;	/* -1: no HTTP response */
	int	 error;			/* enum wh_reason (wh_http.h); 0: answered */
	int64_t	 duration_ms;
	int	 manual;
};

#define WH_ATTEMPTS_KEPT 20	/* attempts of an event kept and shown */

/*
 * One event of platform's delivery log with its body and its last
 * WH_ATTEMPTS_KEPT attempts, newest first, read together (no attempt is
 * recorded between the two reads).  DB_OK with *payload (the exact body
 * every attempt sends) and *attempts (*n of them; NULL when none) for the
 * caller to free, DB_NOT_FOUND, or a failure.
 */
int db_wh_view(struct db *db, const char *platform, const char *id, struct wh_event *e,
    char **payload, struct wh_attempt **attempts, size_t *n);

/*
 * Queues one of platform's events for an attempt now (PENDING, next
 * attempt now, and the attempt marked manual) and reads it back: DB_OK, DB_NOT_FOUND, or DB_CONFLICT when
 * the platform has no webhook endpoint.
 */
int db_wh_retry(struct db *db, const char *platform, const char *id, struct wh_event *out);

/* A claimed delivery: everything an attempt needs. */
struct wh_claim {
	char	 id[37];
	char	 platform_id[37];
	char	*url;		/* the endpoint now; owned */
	char	*payload;	/* owned */
	int64_t	 attempts;	/* made before this one */
	int	 manual;	/* this attempt was asked for by a retry request */
};

/* How many deliveries of a platform a worker has in flight. */
struct wh_inflight {
	char	 platform_id[37];
	int	 n;
};

/*
 * Claims up to max due events of shard (db.h; FOR UPDATE SKIP LOCKED), oldest due first,
 * taking no more of a platform than brings its count in busy (nbusy
 * entries, the caller's deliveries in flight) to per_platform, so that one
 * platform's slow endpoint cannot take every slot.  Each claimed event's
 * next attempt moves lease_s seconds ahead: if the worker dies, it comes
 * back then.  A due event whose platform has no endpoint any more is
 * marked FAILED instead.  *n receives how many were claimed into out.
 */
int db_wh_claim(struct db *db, const struct db_shard *shard, int max, int per_platform,
    int lease_s,
    const struct wh_inflight *busy, size_t nbusy, struct wh_claim *out, size_t *n);

void wh_claim_free(struct wh_claim *c);

/* What one attempt of a claimed event did. */
struct wh_outcome {
	long	 status;	/* HTTP status; 0 when no response came */
	int	 error;		/* enum wh_reason (wh_http.h) when status is 0 */
	int64_t	 duration_ms;
	int	 manual;	/* the claim's */
};

/*
 * Records an attempt's outcome on event id, with its row of the attempt
 * log, in one database transaction: status 200 or 409 delivers it; any
 * other (0 for no response) schedules the next attempt retry_s seconds
 * from now, or marks it FAILED when that is past its creation plus
 * window_s; a retry requested since the claim keeps it PENDING for the
 * attempt it asked for.  lastAttemptAt and lastResponseStatus follow the
 * attempt that started last.  Nothing is recorded for an event purged
 * meanwhile.
 */
int db_wh_result(struct db *db, const char *id, const struct wh_outcome *o,
    int64_t retry_s, int64_t window_s);

/*
 * Takes platform's POST /webhooks/test lease (30 s) for holder, a random
 * id of this call, unless another call holds it: *got 1 when taken.  DB_OK
 * or a failure.
 */
int db_wh_test_lease(struct db *db, const char *platform, const char *holder, int *got);

/* Gives back the lease holder took (nothing when it ran out and was taken since). */
int db_wh_test_release(struct db *db, const char *platform, const char *holder);

#endif
