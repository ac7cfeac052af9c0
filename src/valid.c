/*
 * valid.c: the field-table validator.  Bodies are closed: a key that the
 * table does not name is an error like any other.  The rule strings put in
 * `details` are short sentences; for enums they list the allowed values so
 * that an integrator can fix the request without reading the docs.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/money.h"
#include "xborder/util.h"
#include "xborder/valid.h"

static void
fail(json_object *details, const char *prefix, const char *name, const char *rule)
{
	char key[256];
	int n;

	n = snprintf(key, sizeof(key), "%s%s%s", prefix,
	    prefix[0] && name[0] != '\0' && name[0] != '[' ? "." : "", name);
	if (n >= (int)sizeof(key)) {
		/* Cut short: drop a last character that did not fit whole. */
		size_t len = sizeof(key) - 1, i = len - 1, need;
		unsigned char lead;

		while (i > 0 && ((unsigned char)key[i] & 0xc0) == 0x80)
			i--;
		lead = (unsigned char)key[i];
		need = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
		if (i + need > len)
			key[i] = '\0';
	}
	if (json_object_object_get_ex(details, key, NULL))
		return;
	json_object_object_add(details, key, json_object_new_string(rule));
}

int64_t
valid_utf8_len(const char *s, size_t n)
{
	int64_t count = 0;

	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			count++;
	return count;
}

int
valid_utf8(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	while (p < end) {
		unsigned c = *p++;
		unsigned cp, min;
		int more;

		if (c < 0x80)
			continue;
		if (c >= 0xc2 && c <= 0xdf)
			more = 1, cp = c & 0x1f, min = 0x80;
		else if (c >= 0xe0 && c <= 0xef)
			more = 2, cp = c & 0x0f, min = 0x800;
		else if (c >= 0xf0 && c <= 0xf4)
			more = 3, cp = c & 0x07, min = 0x10000;
		else
			return 0;	/* continuation byte, C0/C1 overlong lead, F5..FF */
		if (end - p < more)
			return 0;
		for (int i = 0; i < more; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return 0;
			cp = (cp << 6) | (p[i] & 0x3f);
		}
		p += more;
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
	}
	return 1;
}

int
valid_text(const char *s, size_t n, int key)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == 0x7f || (c < 0x20 && (key || (c != '\t' && c != '\n' && c != '\r'))))
			return 0;
	}
	return valid_utf8(s, n);
}

/* "must be one of: a, b, c" */
static void
enum_rule(const char *const *values, const char *lead, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%s", lead);

	for (size_t i = 0; values[i] != NULL && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", values[i]);
}

static int
in_enum(const char *const *values, const char *s)
{
	for (size_t i = 0; values[i] != NULL; i++)
		if (strcmp(values[i], s) == 0)
			return 1;
	return 0;
}

static int check_field(json_object *v, const struct vfield *f, const char *prefix,
    const char *name, json_object *details);

static int
check_string(json_object *v, const struct vfield *f, const char *prefix,
    const char *name, json_object *details)
{
	char rule[512];
	const char *s, *why;
	size_t n;
	int64_t chars;

	if (!json_object_is_type(v, json_type_string)) {
		fail(details, prefix, name, f->kind == VK_ENUM ? (enum_rule(f->values,
		    "must be one of: ", rule, sizeof(rule)), rule) : "must be a string");
		return 1;
	}
	s = json_object_get_string(v);
	n = (size_t)json_object_get_string_len(v);
	if (memchr(s, '\0', n) != NULL) {
		fail(details, prefix, name, "must not contain NUL characters");
		return 1;
	}
	if (f->kind == VK_ENUM) {
		if (!in_enum(f->values, s)) {
			enum_rule(f->values, "must be one of: ", rule, sizeof(rule));
			fail(details, prefix, name, rule);
			return 1;
		}
		return 0;
	}
	chars = valid_utf8_len(s, n);
	if (chars < f->min || chars > f->max) {
		snprintf(rule, sizeof(rule), "must be %lld to %lld characters",
		    (long long)f->min, (long long)f->max);
		fail(details, prefix, name, rule);
		return 1;
	}
	if (f->check != NULL && (why = f->check(s)) != NULL) {
		fail(details, prefix, name, why);
		return 1;
	}
	return 0;
}

static int
check_enum_array(json_object *v, const struct vfield *f, const char *prefix,
    const char *name, json_object *details)
{
	char rule[512];
	size_t n;

	if (!json_object_is_type(v, json_type_array)) {
		fail(details, prefix, name, "must be an array");
		return 1;
	}
	n = json_object_array_length(v);
	if ((int64_t)n < f->min) {
		snprintf(rule, sizeof(rule), "must have at least %lld item%s",
		    (long long)f->min, f->min == 1 ? "" : "s");
		fail(details, prefix, name, rule);
		return 1;
	}
	if (f->max > 0 && (int64_t)n > f->max) {
		snprintf(rule, sizeof(rule), "must have at most %lld items", (long long)f->max);
		fail(details, prefix, name, rule);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *it = json_object_array_get_idx(v, i);

		if (!json_object_is_type(it, json_type_string) ||
		    !in_enum(f->values, json_object_get_string(it))) {
			enum_rule(f->values, "items must be one of: ", rule, sizeof(rule));
			fail(details, prefix, name, rule);
			return 1;
		}
	}
	return 0;
}

static int
check_object_array(json_object *v, const struct vfield *f, const char *prefix,
    const char *name, json_object *details)
{
	char rule[128], sub[256];
	size_t n;
	int bad = 0;

	if (!json_object_is_type(v, json_type_array)) {
		fail(details, prefix, name, "must be an array");
		return 1;
	}
	n = json_object_array_length(v);
	if ((int64_t)n < f->min || (f->max > 0 && (int64_t)n > f->max)) {
		snprintf(rule, sizeof(rule), "must have %lld to %lld items",
		    (long long)f->min, (long long)f->max);
		fail(details, prefix, name, rule);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *it = json_object_array_get_idx(v, i);

		snprintf(sub, sizeof(sub), "%s%s%s[%zu]", prefix, prefix[0] ? "." : "",
		    name, i);
		if (!json_object_is_type(it, json_type_object)) {
			fail(details, sub, "", "must be an object");
			bad++;
			continue;
		}
		bad += valid_object(it, f->fields, sub, details);
	}
	return bad;
}

static int
check_field(json_object *v, const struct vfield *f, const char *prefix,
    const char *name, json_object *details)
{
	char rule[128], sub[256];

	if (v == NULL) {	/* JSON null */
		if (f->flags & VF_NULLABLE)
			return 0;
		fail(details, prefix, name, "must not be null");
		return 1;
	}
	switch (f->kind) {
	case VK_STRING:
	case VK_ENUM:
		return check_string(v, f, prefix, name, details);
	case VK_INT:
		if (!json_object_is_type(v, json_type_int) ||
		    json_object_get_int64(v) < f->min || json_object_get_int64(v) > f->max) {
			snprintf(rule, sizeof(rule), "must be an integer from %lld to %lld",
			    (long long)f->min, (long long)f->max);
			fail(details, prefix, name, rule);
			return 1;
		}
		return 0;
	case VK_BOOL:
		if (!json_object_is_type(v, json_type_boolean)) {
			fail(details, prefix, name, "must be a boolean");
			return 1;
		}
		return 0;
	case VK_ENUM_ARRAY:
		return check_enum_array(v, f, prefix, name, details);
	case VK_OBJECT:
		if (!json_object_is_type(v, json_type_object)) {
			fail(details, prefix, name, "must be an object");
			return 1;
		}
		snprintf(sub, sizeof(sub), "%s%s%s", prefix, prefix[0] ? "." : "", name);
		return valid_object(v, f->fields, sub, details);
	case VK_OBJECT_ARRAY:
		return check_object_array(v, f, prefix, name, details);
	}
	return 0;
}

int
valid_object(json_object *obj, const struct vfield *fields,
    const char *prefix, json_object *details)
{
	int bad = 0;

	json_object_object_foreach(obj, key, val) {
		const struct vfield *f = NULL;

		for (size_t i = 0; fields[i].name != NULL; i++)
			if (strcmp(fields[i].name, key) == 0)
				f = &fields[i];
		if (f == NULL) {
			fail(details, prefix, key, "is not an allowed property");
			bad++;
			continue;
		}
		bad += check_field(val, f, prefix, key, details);
	}
	for (size_t i = 0; fields[i].name != NULL; i++)
		if ((fields[i].flags & VF_REQUIRED) &&
		    !json_object_object_get_ex(obj, fields[i].name, NULL)) {
			fail(details, prefix, fields[i].name, "is required");
			bad++;
		}
	return bad;
}

int
valid_uint_param(const char *s, int64_t min, int64_t max, int64_t *out)
{
	int64_t v;

	if (s == NULL || strlen(s) > 19 || parse_i64_digits(s, &v) < 0)
		return -1;
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

const char *
valid_http_url(const char *s)
{
	const char *rest, *end, *at;
	size_t n = strlen(s);

	if (n > 2048)
		return "must be at most 2048 characters";
	if (strncasecmp(s, "https://", 8) == 0)
		rest = s + 8;
	else if (strncasecmp(s, "http://", 7) == 0)
		rest = s + 7;
	else
		return "must be an absolute http or https URL";
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return "must not contain blanks, control or non-ASCII characters";
	end = rest + strcspn(rest, "/?#");
	if (end == rest)
		return "must name a host";
	at = memchr(rest, '@', (size_t)(end - rest));
	if (at != NULL)
		return "must not contain user information";
	/* host[:port] */
	{
		const char *colon = NULL, *p;

		if (*rest == '[') {
			const char *close = memchr(rest, ']', (size_t)(end - rest));

			if (close == NULL || close == rest + 1)
				return "must name a host";
			p = close + 1;
			if (p < end && *p != ':')
				return "must name a host";
			colon = p < end ? p : NULL;
		} else {
			colon = memchr(rest, ':', (size_t)(end - rest));
			if (colon == rest)
				return "must name a host";
			for (p = rest; p < (colon ? colon : end); p++)
				if (!isalnum((unsigned char)*p) && *p != '-' && *p != '.')
					return "must name a valid host";
		}
		if (colon != NULL) {
			long port = 0;

			if (colon + 1 == end)
				return "must have a valid port";
			for (p = colon + 1; p < end; p++) {
				if (!isdigit((unsigned char)*p) || (port = port * 10 + (*p - '0')) > 65535)
					return "must have a valid port";
			}
			if (port == 0)
				return "must have a valid port";
		}
	}
	return NULL;
}

const char *
valid_domain(const char *s)
{
	size_t n = strlen(s), label = 0;

	if (n == 0 || n > 253 || s[0] == '.' || s[n - 1] == '.')
		return "must be a domain name";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '.') {
			if (label == 0 || s[i - 1] == '-')
				return "must be a domain name";
			label = 0;
			continue;
		}
		if (!(isalnum(c) && c < 0x80) && c != '-')
			return "must be a domain name";
		if (label == 0 && c == '-')
			return "must be a domain name";
		if (++label > 63)
			return "must be a domain name";
	}
	return s[n - 1] == '-' ? "must be a domain name" : NULL;
}

const char *
valid_ppv_name(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n > 64 || !(islower((unsigned char)s[0]) || isdigit((unsigned char)s[0])))
		return "must match ^[a-z0-9][a-z0-9._-]{0,63}$";
	for (size_t i = 1; i < n; i++)
		if (!(s[i] >= 'a' && s[i] <= 'z') && !(s[i] >= '0' && s[i] <= '9') &&
		    s[i] != '.' && s[i] != '_' && s[i] != '-')
			return "must match ^[a-z0-9][a-z0-9._-]{0,63}$";
	return NULL;
}

/* 1 when s is min..max ASCII letters and digits. */
static int
alnum_run(const char *s, size_t min, size_t max)
{
	size_t n = strlen(s);

	if (n < min || n > max)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z')))
			return 0;
	return 1;
}

const char *
valid_account_number(const char *s)
{
	return alnum_run(s, 4, 34) ? NULL : "must match ^[0-9A-Za-z]{4,34}$";
}

const char *
valid_routing_number(const char *s)
{
	return alnum_run(s, 4, 11) ? NULL : "must match ^[0-9A-Za-z]{4,11}$";
}

const char *
valid_currency(const char *s)
{
	if (!money_code_form(s))
		return "must be 3 uppercase letters (ISO 4217)";
	if (money_currency(s) == NULL)
		return "is not a currency this service supports";
	return NULL;
}

const char *
valid_currency_form(const char *s)
{
	return money_code_form(s) ? NULL : "must be 3 uppercase letters (ISO 4217)";
}

const char *
valid_amount_minor(const char *s)
{
	size_t n = strlen(s);
	int nonzero = 0;

	if (n < 1 || n > 18)
		return "must be a string of 1 to 18 digits";
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return "must be a string of 1 to 18 digits";
		nonzero |= s[i] != '0';
	}
	return nonzero ? NULL : "must be at least 1";
}

/* Reads exactly n digits at s into *v; returns 0 or -1. */
static int
digits(const char *s, int n, int *v)
{
	*v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*v = *v * 10 + (s[i] - '0');
	}
	return 0;
}

int
valid_datetime_param(const char *s, int end, char out[32])
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, mo, d, h = 0, mi = 0, se = 0, ms = 0;
	size_t n = strlen(s);

	if (n < 10 || digits(s, 4, &y) < 0 || s[4] != '-' || digits(s + 5, 2, &mo) < 0 ||
	    s[7] != '-' || digits(s + 8, 2, &d) < 0)
		return -1;
	if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
	    (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)))
		return -1;
	if (n == 10) {
		if (end) {
			h = 23;
			mi = 59;
			se = 59;
			ms = 999;
		}
	} else {
		if (n < 20 || s[10] != 'T' || digits(s + 11, 2, &h) < 0 || s[13] != ':' ||
		    digits(s + 14, 2, &mi) < 0 || s[16] != ':' || digits(s + 17, 2, &se) < 0)
			return -1;
		if (h > 23 || mi > 59 || se > 59)
			return -1;
		if (s[19] == '.') {
			size_t k = 20;
			int scale = 100;

			while (k < n && s[k] >= '0' && s[k] <= '9') {
				ms += (s[k] - '0') * scale;
				scale /= 10;
				k++;
			}
			if (k == 20 || k > 29 || k != n - 1 || s[k] != 'Z')
				return -1;
		} else if (n != 20 || s[19] != 'Z')
			return -1;
	}
	snprintf(out, 32, "%04d-%02d-%02d %02d:%02d:%02d.%03d", y, mo, d, h, mi, se, ms);
	return 0;
}

const char *
valid_iso_date(const char *s)
{
	char out[32];

	if (strlen(s) != 10 || valid_datetime_param(s, 0, out) < 0)
		return "must be a date YYYY-MM-DD";
	return NULL;
}

const char *
valid_country_code(const char *s)
{
	if (strlen(s) != 2 || s[0] < 'A' || s[0] > 'Z' || s[1] < 'A' || s[1] > 'Z')
		return "must be 2 uppercase letters (ISO 3166 alpha-2)";
	return NULL;
}
