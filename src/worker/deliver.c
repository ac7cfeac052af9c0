/*
 * deliver.c: webhook delivery for xborder-worker.  Due events are claimed
 * from the outbox in small batches (SKIP LOCKED, with a lease), each one is
 * signed afresh and POSTed through a libcurl multi handle, and its outcome
 * is recorded when the call ends, with a row of the event's attempt log
 * (what it got, how long it took, whether a retry request asked for it).
 * Nothing here holds a database transaction open during a call: a worker
 * killed mid-call leaves its claims to their leases, and the events are
 * sent again (at least once).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "xborder/conf.h"
#include "xborder/db.h"
#include "xborder/db_webhooks.h"
#include "xborder/util.h"
#include "xborder/wh_http.h"
#include "xborder/wh_keys.h"
#include "xborder/wh_sign.h"
#include "deliver.h"

#define SLOTS 32		/* deliveries in flight, in all */
#define PER_PLATFORM 4		/* of one platform */
#define LEASE_S 15		/* > the 10 s call timeout */
#define CLAIM_EVERY_MS 200

struct slot {
	int		 used;
	struct wh_claim	 claim;
	struct wh_call	 call;
	char		 sig[WH_SIG_HEADER_MAX];
	int64_t		 started;
};

struct deliveries {
	const struct conf	*conf;
	CURLM			*multi;
	struct slot		 slot[SLOTS];
	int			 used;
	int64_t			 last_claim;
};

struct deliveries *
deliver_new(const struct conf *conf)
{
	struct deliveries *d = xcalloc(1, sizeof(*d));

	curl_global_init(CURL_GLOBAL_DEFAULT);
	d->conf = conf;
	if ((d->multi = curl_multi_init()) == NULL) {
		log_msg(LOG_LVL_ERROR, NULL, "curl_multi_init failed");
		exit(1);
	}
	return d;
}

static void
slot_release(struct deliveries *d, struct slot *s)
{
	if (s->call.curl != NULL)
		curl_multi_remove_handle(d->multi, s->call.curl);
	wh_call_free(&s->call);
	wh_claim_free(&s->claim);
	memset(s, 0, sizeof(*s));
	d->used--;
}

/* The pause after the n-th failed attempt: base doubling, at most max. */
static int64_t
retry_after(const struct conf *c, int64_t n)
{
	int64_t s = c->webhook_retry_base;

	for (int64_t i = 1; i < n && s < c->webhook_retry_max; i++)
		s *= 2;
	return s < c->webhook_retry_max ? s : c->webhook_retry_max;
}

/* Records the outcome of s's call (with its row of the attempt log) and frees the slot. */
static void
record(struct deliveries *d, struct db *db, struct slot *s)
{
	int64_t n = s->claim.attempts + 1;
	int ok = s->call.status == 200 || s->call.status == 409, rc;
	struct wh_outcome o = { 0, 0, 0, 0 };
	struct logline l;

	/* Not the endpoint's URL: it may carry a token of the integrator's. */
	log_begin(&l, ok ? LOG_LVL_INFO : LOG_LVL_WARN, "delivery");
	log_str(&l, "job", "webhook");
	log_str(&l, "event_id", s->claim.id);
	log_str(&l, "platform_id", s->claim.platform_id);
	log_int(&l, "attempt", n);
	log_str(&l, "outcome", ok ? "delivered" : "not_delivered");
	log_int(&l, "http_status", s->call.status);
	if (s->call.status <= 0)
		log_str(&l, "error", s->call.reason);
	o.duration_ms = now_ms() - s->started;
	log_int(&l, "dur_us", o.duration_ms * 1000);
	log_end(&l);
	o.status = s->call.status;
	o.error = s->call.status > 0 ? WH_ANSWERED : wh_reason_code(s->call.reason);
	o.manual = s->claim.manual;
	rc = db_wh_result(db, s->claim.id, &o, retry_after(d->conf, n),
	    d->conf->webhook_retry_window);
	if (rc != DB_OK)	/* its lease brings it back: sent again, at least once */
		log_msg(LOG_LVL_WARN, NULL, "webhook %s: outcome not recorded (%d)",
		    s->claim.id, rc);
	slot_release(d, s);
}

static void
collect(struct deliveries *d, struct db *db)
{
	CURLMsg *m;
	int left, running;

	curl_multi_perform(d->multi, &running);
	while ((m = curl_multi_info_read(d->multi, &left)) != NULL) {
		struct slot *s = NULL;

		if (m->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&s);
		if (s == NULL)
			continue;
		wh_call_finish(&s->call, (int)m->data.result);
		record(d, db, s);
	}
}

static struct slot *
free_slot(struct deliveries *d)
{
	for (size_t i = 0; i < SLOTS; i++)
		if (!d->slot[i].used)
			return &d->slot[i];
	return NULL;
}

/* Signs and starts the call of a claimed event in slot s. */
static void
start(struct deliveries *d, struct db *db, struct slot *s, struct wh_claim *c)
{
	char err[256] = "";
	int rc;

	memset(s, 0, sizeof(*s));
	s->used = 1;
	d->used++;
	s->claim = *c;
	memset(c, 0, sizeof(*c));
	s->started = now_ms();
	/* The platform's own key, current at this attempt (wh_keys.c). */
	if ((rc = wh_keys_sign(db, d->conf->webhook_signing_key, s->claim.platform_id,
	    (int64_t)time(NULL), s->claim.payload, strlen(s->claim.payload), s->sig,
	    sizeof(s->sig), err, sizeof(err))) != DB_OK) {
		/* Never sent unsigned: its lease brings it back once a key exists. */
		log_msg(LOG_LVL_ERROR, NULL, "webhook %s not sent: signing key: %s (%d)",
		    s->claim.id, err, rc);
		slot_release(d, s);
		return;
	}
	s->call.url = s->claim.url;
	s->call.body = s->claim.payload;
	s->call.body_len = strlen(s->claim.payload);
	s->call.signature = s->sig;
	s->call.allow_private = d->conf->webhook_allow_private;
	if (wh_call_prepare(&s->call) < 0) {
		/* Nothing can be sent to this URL: the attempt failed at once. */
		s->call.status = 0;
		record(d, db, s);
		return;
	}
	curl_easy_setopt(s->call.curl, CURLOPT_PRIVATE, (char *)s);
	curl_multi_add_handle(d->multi, s->call.curl);
}

static void
claim(struct deliveries *d, struct db *db)
{
	struct wh_inflight busy[SLOTS];
	struct wh_claim got[SLOTS];
	const struct db_shard shard = { d->conf->worker_shard, d->conf->worker_shards };
	size_t nbusy = 0, n = 0;
	int rc;

	for (size_t i = 0; i < SLOTS; i++) {
		size_t k;

		if (!d->slot[i].used)
			continue;
		for (k = 0; k < nbusy; k++)
			if (strcmp(busy[k].platform_id, d->slot[i].claim.platform_id) == 0)
				break;
		if (k == nbusy) {
			memcpy(busy[k].platform_id, d->slot[i].claim.platform_id,
			    sizeof(busy[k].platform_id));
			busy[k].n = 0;
			nbusy++;
		}
		busy[k].n++;
	}
	rc = db_wh_claim(db, &shard, SLOTS - d->used, PER_PLATFORM, LEASE_S, busy, nbusy, got, &n);
	if (rc != DB_OK) {
		log_msg(LOG_LVL_WARN, NULL, "webhook claim failed: %d", rc);
		return;
	}
	for (size_t i = 0; i < n; i++)
		start(d, db, free_slot(d), &got[i]);
}

int
deliver_pump(struct deliveries *d, struct db *db, int want)
{
	collect(d, db);
	if (want && d->used < SLOTS && now_ms() - d->last_claim >= CLAIM_EVERY_MS) {
		d->last_claim = now_ms();
		claim(d, db);
		if (d->used > 0) {
			int running;

			curl_multi_perform(d->multi, &running);
		}
	}
	return d->used;
}

void
deliver_wait(struct deliveries *d, int ms)
{
	curl_multi_poll(d->multi, NULL, 0, ms, NULL);
}

void
deliver_free(struct deliveries *d)
{
	for (size_t i = 0; i < SLOTS; i++)
		if (d->slot[i].used)
			slot_release(d, &d->slot[i]);
	curl_multi_cleanup(d->multi);
	free(d);
}
