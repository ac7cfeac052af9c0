/*
 * events.h: the bodies a webhook carries.  Rendered once, when the event
 * is made; every delivery attempt sends the same bytes.
 */
#ifndef XBORDER_EVENTS_H
#define XBORDER_EVENTS_H

struct txn;

/* "OUTGOING_PAYMENT.<STATUS>" or "INCOMING_PAYMENT.<STATUS>" of t. */
void event_type(const struct txn *t, char type[41]);

/*
 * The event of t as it is now: {"id": "Webhook:<id>", "type",
 * "timestamp": t's updatedAt, "data": the Transaction}.  Owned by the caller.
 */
char *event_txn_body(const struct txn *t, const char *id);

/* The connectivity check: {"id": "Webhook:<id>", "type": "TEST", "timestamp": now, "data": {}}. */
char *event_test_body(const char *id);

#endif
