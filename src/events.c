/*
 * events.c: the JSON bodies of webhook events.  A transaction's event
 * carries the Transaction exactly as GET /transactions/{id} shows it at
 * that moment, so a receiver never has to read it back.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "xborder/events.h"
#include "xborder/ids.h"
#include "xborder/jtext.h"
#include "xborder/json_txn.h"
#include "xborder/txn.h"
#include "xborder/util.h"

void
event_type(const struct txn *t, char type[41])
{
	snprintf(type, 41, "%s_PAYMENT.%s", t->type, t->status);
}

static char *
body(const char *id, const char *type, const char *timestamp, json_object *data)
{
	json_object *o = json_object_new_object();
	char *s;

	json_object_object_add(o, "id", json_prefixed("Webhook", id));
	json_object_object_add(o, "type", json_object_new_string(type));
	json_object_object_add(o, "timestamp", json_object_new_string(timestamp));
	json_object_object_add(o, "data", data);
	s = xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return s;
}

char *
event_txn_body(const struct txn *t, const char *id)
{
	char type[41];

	event_type(t, type);
	return body(id, type, t->updated_at, json_transaction(t));
}

char *
event_test_body(const char *id)
{
	char ts[25];

	ids_now_timestamp(ts);
	return body(id, "TEST", ts, json_object_new_object());
}
