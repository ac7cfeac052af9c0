/*
 * body.c: the JSON body stage of every operation that takes a body.  The
 * input is a request body.  As http_body_or_reply() does, the harness
 * parses it strictly (http_parse_json) and checks its text
 * (http_json_text_check); an object is then validated against the field
 * table of every such operation (valid_object with the handlers' own
 * tables, fuzz/tables.h).
 *
 * Invariants, besides ASan and UBSan finding nothing:
 *  - valid_utf8 and valid_text agree with an independent RFC 3629 oracle
 *    on the raw input, and the text check refuses a parsed body exactly
 *    when one of its keys or strings fails that oracle;
 *  - valid_object reports a field in details exactly when it counts one,
 *    and every key and rule it writes is valid text (details go back to
 *    the client in the response);
 *  - a body a table accepts, serialized again by json-c, parses and is
 *    accepted again (what the service stores and echoes stays valid).
 */
#include "config.h"

#include <json-c/json.h>

#include "xborder/http.h"
#include "xborder/valid.h"

#include "fuzz.h"
#include "tables.h"

static const struct fuzz_table *const lists[] = {
	fuzz_tables_config, fuzz_tables_customers, fuzz_tables_external,
	fuzz_tables_internal, fuzz_tables_profile, fuzz_tables_quotes,
	fuzz_tables_review, fuzz_tables_tokens, fuzz_tables_transfers,
};

/* 1 when some key or string of o fails the oracle. */
static int
ref_bad_text(json_object *o)
{
	size_t n;

	switch (json_object_get_type(o)) {
	case json_type_string:
		return !fuzz_ref_text((const unsigned char *)json_object_get_string(o),
		    (size_t)json_object_get_string_len(o), 0);
	case json_type_array:
		n = json_object_array_length(o);
		for (size_t i = 0; i < n; i++)
			if (ref_bad_text(json_object_array_get_idx(o, i)))
				return 1;
		return 0;
	case json_type_object: {
		json_object_object_foreach(o, key, val) {
			if (!fuzz_ref_text((const unsigned char *)key, strlen(key), 1) ||
			    ref_bad_text(val))
				return 1;
		}
		return 0;
	}
	default:
		return 0;
	}
}

/* The text check as http_body_or_reply() runs it; 0 when the text is fine. */
static int
text_check(json_object *o)
{
	char path[256];
	const char *rule = NULL;
	int rc;

	memset(path, 'x', sizeof(path));
	rc = http_json_text_check(o, path, sizeof(path), &rule);
	FUZZ_ASSERT(rc == 0 || rc == -1);
	FUZZ_ASSERT(memchr(path, '\0', sizeof(path)) != NULL);
	if (rc < 0) {
		FUZZ_ASSERT(path[0] != '\0');
		FUZZ_ASSERT(rule != NULL);
	}
	return rc;
}

/* valid_object with the invariants on its details; returns its count. */
static int
validate(json_object *o, const struct vfield *fields)
{
	json_object *details = json_object_new_object();
	int bad, count;

	bad = valid_object(o, fields, "", details);
	count = json_object_object_length(details);
	FUZZ_ASSERT(bad >= 0);
	FUZZ_ASSERT((bad == 0) == (count == 0));
	FUZZ_ASSERT(count <= bad);
	{
		json_object_object_foreach(details, key, val) {
			FUZZ_ASSERT(valid_text(key, strlen(key), 1));
			FUZZ_ASSERT(json_object_is_type(val, json_type_string));
			FUZZ_ASSERT(valid_text(json_object_get_string(val),
			    (size_t)json_object_get_string_len(val), 0));
		}
	}
	json_object_put(details);
	return bad;
}

/* A body fields accepted, serialized and parsed again, is accepted again. */
static void
round_trip(json_object *o, const struct vfield *fields)
{
	const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	json_object *again;

	FUZZ_ASSERT(text != NULL);
	again = http_parse_json(text, strlen(text));
	FUZZ_ASSERT(again != NULL);
	FUZZ_ASSERT(json_object_is_type(again, json_type_object));
	FUZZ_ASSERT(text_check(again) == 0);
	FUZZ_ASSERT(validate(again, fields) == 0);
	json_object_put(again);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	json_object *o;
	int text_bad;

	FUZZ_ASSERT(valid_utf8(buf, size) == fuzz_ref_utf8(data, size));
	FUZZ_ASSERT(valid_text(buf, size, 0) == fuzz_ref_text(data, size, 0));
	FUZZ_ASSERT(valid_text(buf, size, 1) == fuzz_ref_text(data, size, 1));

	if (size > HTTP_MAX_BODY)
		return 0;	/* the service answers 413 first */
	o = http_parse_json(buf, size);
	if (o == NULL)
		return 0;
	text_bad = text_check(o) < 0;
	FUZZ_ASSERT(text_bad == ref_bad_text(o));
	if (!text_bad && json_object_is_type(o, json_type_object)) {
		for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++)
			for (const struct fuzz_table *t = lists[l]; t->op != NULL; t++)
				if (validate(o, t->fields) == 0)
					round_trip(o, t->fields);
	}
	json_object_put(o);
	return 0;
}
