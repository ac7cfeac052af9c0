/*
 * json_txn.h: the Transaction resource as JSON (json_txn.c), used by the
 * handlers that answer with one and by the events that carry one.
 */
#ifndef XBORDER_JSON_TXN_H
#define XBORDER_JSON_TXN_H

#include <json-c/json.h>

struct txn;

/* The Transaction resource, outgoing or incoming variant (a new object). */
json_object *json_transaction(const struct txn *t);

/*
 * Adds the review fields of a case in the lane (a PENDING transaction with
 * a review scenario) to the Transaction object o; nothing otherwise.
 */
void json_review_fields(json_object *o, const struct txn *t);

/* 1 when a review case of scenario can only be rejected, else 0. */
int txn_review_reject_only(const char *scenario);

/* The counterparty fields a counterparty_info_incomplete case asks for (NULL-ended). */
extern const char *const txn_review_required_fields[];

#endif
