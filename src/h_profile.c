/*
 * h_profile.c: the sandbox Lightning execution profile, one per platform:
 * btcFiatSpreadBps (0..10000) and lockPriceDurationSeconds (30..3600).
 * Both operations honour the X-Platform-Id header (checked by the
 * dispatcher before the handler runs).
 */
#include "config.h"

#include <stddef.h>

#include "xborder/db.h"
#include "xborder/db_platforms.h"
#include "xborder/handlers.h"
#include "xborder/request.h"
#include "xborder/resp.h"
#include "xborder/valid.h"

static const struct vfield patch_fields[] = {
	{ "btcFiatSpreadBps", VK_INT, 0, 0, 10000, NULL, NULL, NULL },
	{ "lockPriceDurationSeconds", VK_INT, 0, 30, 3600, NULL, NULL, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

static int
reply_profile(struct req *req, int rc, const struct profile *p)
{
	json_object *o;

	if (rc != DB_OK)
		return req_db_fail(req, rc == DB_NOT_FOUND ? DB_ERR : rc);
	o = json_object_new_object();
	json_object_object_add(o, "btcFiatSpreadBps", json_object_new_int64(p->spread_bps));
	json_object_object_add(o, "lockPriceDurationSeconds",
	    json_object_new_int64(p->lock_seconds));
	resp_json(req, 200, o);
	return 0;
}

int
h_profile_get(struct req *req)
{
	struct profile p;
	struct db *db;

	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	return reply_profile(req, db_profile_get(db, req->platform_id, &p), &p);
}

int
h_profile_patch(struct req *req)
{
	int64_t spread, lock;
	json_object *v;
	struct profile p;
	struct db *db;
	int has_spread, has_lock;

	if (body_valid_or_reply(req, patch_fields) < 0)
		return -1;
	if ((has_spread = json_object_object_get_ex(req->json, "btcFiatSpreadBps", &v)))
		spread = json_object_get_int64(v);
	if ((has_lock = json_object_object_get_ex(req->json, "lockPriceDurationSeconds", &v)))
		lock = json_object_get_int64(v);
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	return reply_profile(req, db_profile_update(db, req->platform_id,
	    has_spread ? &spread : NULL, has_lock ? &lock : NULL, &p), &p);
}
