/*
 * valid.h: validation of request bodies and query parameters against
 * per-route field tables.  The validators are pure: they fill a json-c
 * `details` object with one entry per offending field (dotted paths for
 * nested fields, [i] for array items) and never touch the request.
 */
#ifndef XBORDER_VALID_H
#define XBORDER_VALID_H

#include <stdint.h>

#include <json-c/json.h>

enum vkind {
	VK_STRING,	/* min..max characters (UTF-8 code points) */
	VK_INT,		/* JSON integer in min..max */
	VK_BOOL,
	VK_ENUM,	/* string, one of values */
	VK_ENUM_ARRAY,	/* array (at least min items) of values */
	VK_OBJECT,	/* nested closed object described by fields */
	VK_OBJECT_ARRAY	/* array of such objects */
};

#define VF_REQUIRED	0x01
#define VF_NULLABLE	0x02

/*
 * A field rule.  `check` is an extra rule for strings: it returns NULL when
 * the value is fine, else the rule's text for details.
 */
struct vfield {
	const char		*name;
	enum vkind		 kind;
	unsigned		 flags;
	int64_t			 min, max;
	const char *const	*values;	/* VK_ENUM*, NULL-terminated */
	const char		*(*check)(const char *s);
	const struct vfield	*fields;	/* VK_OBJECT*, ends with name NULL */
};

/*
 * Validates the closed object obj against fields.  prefix ("" at the top)
 * is put before every key written to details.  Returns the number of
 * offending fields (0: valid).
 */
int valid_object(json_object *obj, const struct vfield *fields,
    const char *prefix, json_object *details);

/* Number of UTF-8 code points of s (which the parser already validated). */
int64_t valid_utf8_len(const char *s, size_t n);

/*
 * 1 when s[0..n) is UTF-8 as RFC 3629 defines it: no overlong forms, no
 * UTF-16 surrogates (U+D800..U+DFFF), nothing past U+10FFFF, no truncated
 * sequence; else 0.
 */
int valid_utf8(const char *s, size_t n);

/*
 * 1 when s[0..n) is text a JSON body may carry: valid UTF-8 without NUL,
 * other C0 control characters or DEL; a value (key 0) may hold tab, line
 * feed and carriage return, a key none of them.
 */
int valid_text(const char *s, size_t n, int key);

/*
 * Parses a list parameter: 1..20 decimal digits that fit in int64 and lie
 * in min..max.  Returns 0 or -1.
 */
int valid_uint_param(const char *s, int64_t min, int64_t max, int64_t *out);

/*
 * Checks an absolute http or https URL of at most 2048 characters, without
 * user info, blanks or control characters.  Returns NULL or the rule.
 */
const char *valid_http_url(const char *s);

/* Checks a DNS name (labels of letters, digits, hyphens).  NULL or the rule. */
const char *valid_domain(const char *s);

/* A PPV name: ^[a-z0-9][a-z0-9._-]{0,63}$.  NULL or the rule. */
const char *valid_ppv_name(const char *s);

/* An account number: ^[0-9A-Za-z]{4,34}$.  NULL or the rule. */
const char *valid_account_number(const char *s);

/* A routing number: ^[0-9A-Za-z]{4,11}$.  NULL or the rule. */
const char *valid_routing_number(const char *s);

/* Exactly three uppercase letters.  NULL or the rule. */
const char *valid_currency_form(const char *s);

/* A calendar date YYYY-MM-DD that exists.  NULL or the rule. */
const char *valid_iso_date(const char *s);

/* An ISO 3166 alpha-2 form: two uppercase letters.  NULL or the rule. */
const char *valid_country_code(const char *s);

/* A MoneyAmount amountMinor: 1..18 digits, value >= 1.  NULL or the rule. */
const char *valid_amount_minor(const char *s);

/*
 * Parses a list's date bound: "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM:SS[.fff]Z"
 * (UTC).  A bare date is the start of that day, or with end the last
 * millisecond of it.  Writes "YYYY-MM-DD HH:MM:SS.mmm" into out[32].
 * Returns 0 or -1.
 */
int valid_datetime_param(const char *s, int end, char out[32]);

/* An ISO 4217 code the service knows.  NULL or the rule. */
const char *valid_currency(const char *s);

#endif
