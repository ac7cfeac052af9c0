/*
 * h_sandbox_txn.c: the state helpers of the sandbox (decisions.md section
 * 14), POST /sandbox/transactions/{transactionId}/complete, /fail,
 * /return and /expire: they take no body, honour X-Platform-Id and answer
 * 200 with the Transaction as GET /transactions/{transactionId} then shows
 * it.  The move itself is sandbox_ops.c's.
 */
#include "config.h"

#include "xborder/db.h"
#include "xborder/handlers.h"
#include "xborder/json_txn.h"
#include "xborder/request.h"
#include "xborder/resp.h"
#include "xborder/sandbox_ops.h"
#include "xborder/txn.h"

/*
 * 409 INVALID_TRANSITION: details.status, the transaction's status, and
 * details.allowedFrom, the statuses from which helper h moves a
 * transaction of class c ([] when none).  Returns -1.
 */
static int
invalid_transition_reply(struct req *req, enum sandbox_helper h, enum txn_class c,
    const char *status)
{
	const char *from[SBX_FROM_MAX + 1];
	json_object *d = json_object_new_object(), *a = json_object_new_array();

	sandbox_allowed_from(h, c, from);
	for (int i = 0; from[i] != NULL; i++)
		json_object_array_add(a, json_object_new_string(from[i]));
	json_object_object_add(d, "status", json_object_new_string(status));
	json_object_object_add(d, "allowedFrom", a);
	return resp_error(req, 409, "INVALID_TRANSITION",
	    "This helper does not move the transaction from its status; see details.", d);
}

/*
 * One helper: 200 with the Transaction, 400 (transactionId; a credit past
 * the balance limit), 404 TRANSACTION_NOT_FOUND, 409 INVALID_TRANSITION,
 * 410 GONE (a return to a deleted customer), 500/503.
 */
static int
helper(struct req *req, enum sandbox_helper h)
{
	char id[37], status[16];
	enum txn_class c;
	struct txn t;
	struct db *db;
	int rc;

	if (transaction_id_or_reply(req, id) < 0)
		return -1;
	if (id[0] == '\0')
		return transaction_not_found_reply(req);
	if ((db = req_db_or_reply(req)) == NULL)
		return -1;
	switch ((rc = sandbox_move(db, req->platform_id, id, h, &t, status, &c))) {
	case DB_OK:
		resp_json(req, 200, json_transaction(&t));
		txn_free(&t);
		return 0;
	case DB_NOT_FOUND:
		return transaction_not_found_reply(req);
	case DB_CONFLICT:
		return invalid_transition_reply(req, h, c, status);
	case DB_GONE:
		return customer_fail_reply(req, rc);
	case DB_LIMIT:
		return balance_limit_reply(req, "amount");
	default:
		return req_db_fail(req, rc);
	}
}

int
h_sandbox_txn_complete(struct req *req)
{
	return helper(req, SBX_COMPLETE);
}

int
h_sandbox_txn_fail(struct req *req)
{
	return helper(req, SBX_FAIL);
}

int
h_sandbox_txn_return(struct req *req)
{
	return helper(req, SBX_RETURN);
}

int
h_sandbox_txn_expire(struct req *req)
{
	return helper(req, SBX_EXPIRE);
}
