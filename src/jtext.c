/*
 * jtext.c: JSON written straight into text (jtext.h).  The escaping is
 * json-c's with JSON_C_TO_STRING_NOSLASHESCAPE: '"' and '\\', \b \f \n \r
 * \t by name, every other byte below 0x20 as \u00xx (lower-case hex), the
 * rest as it is; t/unit/test_jtext.c holds it to json-c byte for byte.
 */
#include "config.h"

#include <string.h>

#include "xborder/jtext.h"
#include "xborder/util.h"

static void
room(struct jtext *j, size_t n)
{
	if (j->len + n + 1 <= j->cap)
		return;
	while (j->len + n + 1 > j->cap)
		j->cap = j->cap ? j->cap * 2 : 1024;
	j->s = xrealloc(j->s, j->cap);
}

static void
put(struct jtext *j, const char *s, size_t n)
{
	room(j, n);
	memcpy(j->s + j->len, s, n);
	j->len += n;
	j->s[j->len] = '\0';
}

/* Before a value: the comma after the one before, in an array. */
static void
sep(struct jtext *j)
{
	if (j->comma)
		put(j, ",", 1);
	j->comma = 1;
}

void
jt_init(struct jtext *j)
{
	memset(j, 0, sizeof(*j));
	room(j, 0);
	j->s[0] = '\0';
}

char *
jt_take(struct jtext *j, size_t *len)
{
	char *s = j->s;

	if (len != NULL)
		*len = j->len;
	memset(j, 0, sizeof(*j));
	return s;
}

void
jt_open(struct jtext *j, char c)
{
	sep(j);
	put(j, &c, 1);
	j->comma = 0;
}

void
jt_close(struct jtext *j, char c)
{
	put(j, &c, 1);
	j->comma = 1;
}

void
jt_key(struct jtext *j, const char *key)
{
	sep(j);
	put(j, "\"", 1);
	put(j, key, strlen(key));
	put(j, "\":", 2);
	j->comma = 0;
}

/* s (n bytes) escaped, without the quotes. */
static void
escaped(struct jtext *j, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t from = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char e[6];
		size_t en = 2;

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		e[0] = '\\';
		switch (c) {
		case '"': e[1] = '"'; break;
		case '\\': e[1] = '\\'; break;
		case '\b': e[1] = 'b'; break;
		case '\f': e[1] = 'f'; break;
		case '\n': e[1] = 'n'; break;
		case '\r': e[1] = 'r'; break;
		case '\t': e[1] = 't'; break;
		default:
			memcpy(e + 1, "u00", 3);
			e[4] = hex[c >> 4];
			e[5] = hex[c & 15];
			en = 6;
		}
		put(j, s + from, i - from);
		put(j, e, en);
		from = i + 1;
	}
	put(j, s + from, n - from);
}

void
jt_str(struct jtext *j, const char *s)
{
	sep(j);
	put(j, "\"", 1);
	escaped(j, s, strlen(s));
	put(j, "\"", 1);
}

void
jt_str_or_null(struct jtext *j, const char *s)
{
	if (s != NULL)
		jt_str(j, s);
	else
		jt_null(j);
}

void
prefixed_lengths(const char *kind, const char *id, size_t *kl, size_t *il)
{
	*kl = strlen(kind);
	*il = strlen(id);
	if (*kl > 64)
		*kl = 64;	/* kinds are a word, ids 36 characters */
	if (*kl + 1 + *il > 127)
		*il = 126 - *kl;	/* at most 127, as it always was */
}

void
jt_prefixed(struct jtext *j, const char *kind, const char *id)
{
	size_t kl, il;

	prefixed_lengths(kind, id, &kl, &il);
	sep(j);
	put(j, "\"", 1);
	escaped(j, kind, kl);
	put(j, ":", 1);
	escaped(j, id, il);
	put(j, "\"", 1);
}

void
jt_prefixed_or_null(struct jtext *j, const char *kind, const char *id)
{
	if (id != NULL && id[0] != '\0')
		jt_prefixed(j, kind, id);
	else
		jt_null(j);
}

void
jt_null(struct jtext *j)
{
	sep(j);
	put(j, "null", 4);
}

void
jt_bool(struct jtext *j, int v)
{
	sep(j);
	if (v)
		put(j, "true", 4);
	else
		put(j, "false", 5);
}

char *
i64_digits(int64_t v, char *end)
{
	uint64_t m = v < 0 ? -(uint64_t)v : (uint64_t)v;
	char *p = end;

	do
		*--p = (char)('0' + m % 10);
	while ((m /= 10) != 0);
	if (v < 0)
		*--p = '-';
	return p;
}

void
jt_i64_str(struct jtext *j, int64_t v)
{
	char buf[24], *p = i64_digits(v, buf + sizeof(buf));

	sep(j);
	put(j, "\"", 1);
	put(j, p, (size_t)(buf + sizeof(buf) - p));
	put(j, "\"", 1);
}

void
jt_members(struct jtext *j, const char *object_text)
{
	size_t n = strlen(object_text);

	if (n <= 2 || object_text[0] != '{' || object_text[n - 1] != '}')
		return;	/* no members */
	sep(j);
	put(j, object_text + 1, n - 2);
}

json_object *
json_text(char *text)
{
	json_object *o = json_object_new_object();

	json_object_set_serializer(o, json_object_userdata_to_json_string, text,
	    json_object_free_userdata);
	return o;
}

json_object *
json_as_text(json_object *o)
{
	char *text = xstrdup(json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));

	json_object_put(o);
	return json_text(text);
}

void
json_put(json_object *o, const char *key, json_object *v)
{
	json_object_object_add_ex(o, key, v,
	    JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_KEY_IS_CONSTANT);
}

json_object *
json_str_or_null(const char *s)
{
	return s != NULL ? json_object_new_string(s) : NULL;
}

/* "Kind:id", put together without printf: a list page makes a hundred. */
json_object *
json_prefixed(const char *kind, const char *id)
{
	size_t kl, il;
	char buf[128];

	prefixed_lengths(kind, id, &kl, &il);
	memcpy(buf, kind, kl);
	buf[kl] = ':';
	memcpy(buf + kl + 1, id, il);
	return json_object_new_string_len(buf, (int)(kl + 1 + il));
}

void
jt_money(struct jtext *j, const char *currency, int64_t amount)
{
	jt_open(j, '{');
	jt_key(j, "currencyCode");
	jt_str(j, currency);
	jt_key(j, "amountMinor");
	jt_i64_str(j, amount);
	jt_close(j, '}');
}

json_object *
json_money(const char *currency, int64_t amount)
{
	struct jtext j;

	jt_init(&j);
	jt_money(&j, currency, amount);
	return json_text(jt_take(&j, NULL));
}
