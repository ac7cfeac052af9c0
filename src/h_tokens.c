/*
 * h_tokens.c: API credentials.  POST /tokens makes a self-service token
 * and shows its secret once; GET reads tokens without secrets; DELETE
 * revokes (the operator-issued root token is not revocable).  A token id
 * in the path may be "Token:<uuid>" or the raw uuid (the clientId).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "xborder/auth_secret.h"
#include "xborder/db.h"
#include "xborder/db_tokens.h"
#include "xborder/handlers.h"
#include "xborder/ids.h"
#include "xborder/request.h"
#include "xborder/resp.h"
#include "xborder/valid.h"

static const char *const permission_values[] = { "view", "manage", NULL };

static const struct vfield create_fields[] = {
	{ "name", VK_STRING, VF_REQUIRED, 1, 128, NULL, NULL, NULL },
	{ "permissions", VK_ENUM_ARRAY, VF_REQUIRED, 1, 0, permission_values, NULL, NULL },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

/* The Token resource; secret is added only by POST /tokens. */
static json_object *
token_json(const struct token *t, const char *secret)
{
	json_object *o = json_object_new_object(), *perms = json_object_new_array();

	if (t->view)
		json_object_array_add(perms, json_object_new_string("view"));
	if (t->manage)
		json_object_array_add(perms, json_object_new_string("manage"));
	json_object_object_add(o, "id", json_prefixed("Token", t->id));
	json_object_object_add(o, "name", json_object_new_string(t->name));
	json_object_object_add(o, "permissions", perms);
	json_object_object_add(o, "accessLevel",
	    json_object_new_string(t->manage ? "management" : "view_only"));
	json_object_object_add(o, "issuerType", json_object_new_string(
	    t->operator_issued ? "operator_issued" : "platform_self_service"));
	json_object_object_add(o, "status",
	    json_object_new_string(t->revoked_at[0] ? "REVOKED" : "ACTIVE"));
	json_object_object_add(o, "revocable",
	    json_object_new_boolean(!t->operator_issued));
	json_object_object_add(o, "clientId", json_object_new_string(t->id));
	if (secret != NULL)
		json_object_object_add(o, "clientSecret", json_object_new_string(secret));
	json_object_object_add(o, "createdAt", json_object_new_string(t->created_at));
	json_object_object_add(o, "updatedAt", json_object_new_string(t->updated_at));
	json_object_object_add(o, "revokedAt",
	    json_str_or_null(t->revoked_at[0] ? t->revoked_at : NULL));
	return o;
}

int
h_tokens_create(struct req *req)
{
	json_object *perms;
	char id[UUID_LEN + 1], secret[AUTH_SECRET_LEN + 1], *hash = NULL;
	const char *name;
	int view = 0, manage = 0, rc;
	struct token t;
	struct db *db;

	if (body_valid_or_reply(req, create_fields) < 0)
		return -1;
	name = json_object_get_string(json_object_object_get(req->json, "name"));
	perms = json_object_object_get(req->json, "permissions");
	/* Duplicates fold: the set is what counts. */
	for (size_t i = 0; i < json_object_array_length(perms); i++) {
		const char *p = json_object_get_string(json_object_array_get_idx(perms, i));

		view |= strcmp(p, "view") == 0;
		manage |= strcmp(p, "manage") == 0;
	}
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	if (auth_new_secret(req->conf, secret, &hash) < 0)
		return resp_error(req, 500, "INTERNAL_ERROR",
		    "The credentials could not be created.", NULL);
	ids_uuid4(id);
	rc = db_token_insert(db, req->platform_id, id, name, view, manage, 0, hash, &t);
	free(hash);
	if (rc != DB_OK) {
		OPENSSL_cleanse(secret, sizeof(secret));
		return req_db_fail(req, rc);
	}
	resp_json(req, 201, token_json(&t, secret));
	OPENSSL_cleanse(secret, sizeof(secret));
	token_free(&t);
	return 0;
}

int
h_tokens_list(struct req *req)
{
	int64_t limit, cursor, total;
	struct token *list;
	size_t n;
	json_object *data;
	struct db *db;
	int rc;

	if (list_params_or_reply(req, 20, 100, &limit, &cursor) < 0)
		return -1;
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	if ((rc = db_token_list(db, req->platform_id, limit, cursor, &list, &n,
	    &total)) != DB_OK)
		return req_db_fail(req, rc);
	data = json_object_new_array_ext((int)n);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(data, token_json(&list[i], NULL));
	token_list_free(list, n);
	resp_json(req, 200, list_envelope(data, cursor, total, LIST_END_NULL));
	return 0;
}

/*
 * Parses the tokenId path parameter and reads that token of the caller's
 * platform.  Answers 400, 404 or 5xx itself; returns 0 with *t filled.
 */
static int
token_or_reply(struct req *req, struct db **dbp, struct token *t, char id[UUID_LEN + 1])
{
	int rc;

	if (ids_parse(req_param(req, 0), "Token", 1, id) < 0)
		return resp_invalid(req, "tokenId", "must be Token:<uuid> or a raw token id");
	if ((*dbp = req_db_or_reply(req)) == NULL)
		return -1;
	rc = db_token_get(*dbp, req->platform_id, id, t);
	if (rc == DB_NOT_FOUND)
		return resp_error(req, 404, "TOKEN_NOT_FOUND", "No such token.", NULL);
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	return 0;
}

int
h_tokens_get(struct req *req)
{
	char id[UUID_LEN + 1];
	struct token t;
	struct db *db;

	if (token_or_reply(req, &db, &t, id) < 0)
		return -1;
	resp_json(req, 200, token_json(&t, NULL));
	token_free(&t);
	return 0;
}

int
h_tokens_revoke(struct req *req)
{
	char id[UUID_LEN + 1];
	struct token t;
	struct db *db;
	int rc;

	if (token_or_reply(req, &db, &t, id) < 0)
		return -1;
	if (t.operator_issued) {
		token_free(&t);
		return resp_error(req, 409, "TOKEN_NOT_REVOCABLE",
		    "The operator-issued root token cannot be revoked.", NULL);
	}
	token_free(&t);
	rc = db_token_revoke(db, req->platform_id, id, &t);
	if (rc == DB_NOT_FOUND)
		return resp_error(req, 404, "TOKEN_NOT_FOUND", "No such token.", NULL);
	if (rc != DB_OK)
		return req_db_fail(req, rc);
	resp_json(req, 200, token_json(&t, NULL));
	token_free(&t);
	return 0;
}
