/*
 * jtext.h: JSON written straight into text, for the responses a list page
 * repeats (the Transaction): the same bytes json-c writes with
 * JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, which every
 * response and event body of the service is serialized with, without an
 * object and a few allocations per member.  Keys are constant words and
 * written as they are; values are escaped as json-c escapes them.
 */
#ifndef XBORDER_JTEXT_H
#define XBORDER_JTEXT_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

struct jtext {
	char	*s;
	size_t	 len, cap;
	int	 comma;		/* a value was written: the next one needs a comma */
};

void jt_init(struct jtext *j);
/* The text, terminated, for the caller to free; j is empty again. */
char *jt_take(struct jtext *j, size_t *len);

/* '{' or '[', and the matching '}' or ']'. */
void jt_open(struct jtext *j, char c);
void jt_close(struct jtext *j, char c);
/* An object's member name (a constant word: not escaped). */
void jt_key(struct jtext *j, const char *key);

void jt_str(struct jtext *j, const char *s);
void jt_str_or_null(struct jtext *j, const char *s);
/* "kind:id", cut as json_prefixed() cuts it. */
void jt_prefixed(struct jtext *j, const char *kind, const char *id);
/* The same, or null when id is NULL or "". */
void jt_prefixed_or_null(struct jtext *j, const char *kind, const char *id);
void jt_null(struct jtext *j);
void jt_bool(struct jtext *j, int v);
/* An int64 as a JSON string of its decimal digits ("-12"). */
void jt_i64_str(struct jtext *j, int64_t v);
/* The members of a JSON object's text ("{...}") as members of the open one. */
void jt_members(struct jtext *j, const char *object_text);

/*
 * A json-c value that serializes as text (taken, freed with the value):
 * for putting written JSON where a json_object goes.  Never add to it.
 */
json_object *json_text(char *text);
/*
 * o written once (o is put): the same bytes, as a json_text() value, for an
 * answer served again and again, which json-c would write afresh each time.
 */
json_object *json_as_text(json_object *o);

/* The decimal digits of v, ending at end (exclusive); returns their start. */
char *i64_digits(int64_t v, char *end);

/* How much of kind and id "kind:id" keeps: kind to 64, the whole to 127. */
void prefixed_lengths(const char *kind, const char *id, size_t *kl, size_t *il);
/*
 * Adds member key to o, which does not have it yet; key is a string
 * literal, which json-c keeps by pointer instead of copying it.
 */
void json_put(json_object *o, const char *key, json_object *v);

/* A string or JSON null when s is NULL. */
json_object *json_str_or_null(const char *s);

/* "Kind:<id>" as a new json string. */
json_object *json_prefixed(const char *kind, const char *id);
/*
 * A MoneyAmount object: {currencyCode, amountMinor (decimal string)},
 * written into j, or as a value that serializes as it (json_text()).
 */
void jt_money(struct jtext *j, const char *currency, int64_t amount);
json_object *json_money(const char *currency, int64_t amount);

#endif
