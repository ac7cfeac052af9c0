/*
 * auth.c: decoding of the Authorization header (auth_parse_basic).  Each
 * input is used twice: as the header itself, and as the decoded
 * credentials ("<clientId>:<secret>") sent base64-encoded in a well-formed
 * "Basic" header, where a model of the rules says what must come out.
 *
 * Invariants, besides ASan and UBSan finding nothing (client id and
 * secret are heap buffers of exactly the size given, so one byte too many
 * is caught):
 *  - a header taken gives a lowercase UUID and a secret of 1 to
 *    secretlen - 1 bytes, and "Basic base64(id:secret)" gives them back;
 *  - encoded credentials are taken exactly when the model takes them:
 *    1 to 255 bytes without NUL, a UUID (8-4-4-4-12 hex, either case),
 *    ':', then a secret of 1 to secretlen - 1 bytes; the id comes out
 *    lowercased and the secret as sent, with or without the base64
 *    padding, whatever the case of "Basic" and the blanks around.
 */
#include "config.h"

#include <ctype.h>

#include <openssl/evp.h>

#include "xborder/auth_secret.h"
#include "xborder/ids.h"

#include "fuzz.h"

#define SECRET_CAP 128	/* as auth_or_reply() */

struct parsed {
	int	 rc;
	char	 id[37];
	char	 secret[SECRET_CAP];
};

/* auth_parse_basic with exact-size heap buffers. */
static void
parse(const char *header, size_t secretlen, struct parsed *out)
{
	char *id = malloc(37), *secret = malloc(secretlen);

	FUZZ_ASSERT(id != NULL && secret != NULL && secretlen <= SECRET_CAP);
	memset(out, 0, sizeof(*out));
	out->rc = auth_parse_basic(header, id, secret, secretlen);
	FUZZ_ASSERT(out->rc == 0 || out->rc == -1);
	if (out->rc == 0) {
		FUZZ_ASSERT(memchr(id, '\0', 37) != NULL);
		FUZZ_ASSERT(strlen(id) == 36 && ids_is_uuid(id));
		for (size_t i = 0; i < 36; i++)
			FUZZ_ASSERT(!isupper((unsigned char)id[i]));
		FUZZ_ASSERT(memchr(secret, '\0', secretlen) != NULL);
		FUZZ_ASSERT(strlen(secret) >= 1 && strlen(secret) < secretlen);
		memcpy(out->id, id, 37);
		memcpy(out->secret, secret, strlen(secret) + 1);
	}
	free(id);
	free(secret);
}

/* "<lead>base64(cred)<trail>", padding dropped with nopad. */
static char *
header_of(const unsigned char *cred, size_t n, const char *lead, const char *trail,
    int nopad)
{
	size_t ll = strlen(lead), tl = strlen(trail), el;
	char *h = malloc(ll + 4 * ((n + 2) / 3) + tl + 1);

	FUZZ_ASSERT(h != NULL);
	memcpy(h, lead, ll);
	el = (size_t)EVP_EncodeBlock((unsigned char *)h + ll, cred, (int)n);
	while (nopad && el > 0 && h[ll + el - 1] == '=')
		el--;
	memcpy(h + ll + el, trail, tl + 1);
	return h;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *header = fuzz_cstr(data, size), *h;
	struct parsed a, b;
	size_t secretlen;
	int want;

	/* The input as the header. */
	parse(header, SECRET_CAP, &a);
	if (a.rc == 0) {
		char cred[37 + SECRET_CAP];
		size_t n = (size_t)snprintf(cred, sizeof(cred), "%s:%s", a.id, a.secret);

		FUZZ_ASSERT(strncasecmp(header, "basic", 5) == 0 &&
		    (header[5] == ' ' || header[5] == '\t'));
		h = header_of((unsigned char *)cred, n, "Basic ", "", 0);
		parse(h, SECRET_CAP, &b);
		FUZZ_ASSERT(b.rc == 0);
		FUZZ_ASSERT(strcmp(a.id, b.id) == 0 && strcmp(a.secret, b.secret) == 0);
		free(h);
	}
	free(header);

	/* The input as the credentials, against the model. */
	if (size > 400)
		return 0;
	secretlen = size > 0 ? 1 + data[size - 1] % SECRET_CAP : SECRET_CAP;
	want = size >= 1 && size <= 255 && memchr(data, '\0', size) == NULL &&
	    size >= 38 && data[36] == ':' && memchr(data, ':', 36) == NULL &&
	    size - 37 < secretlen;
	if (want) {
		char id[37];

		memcpy(id, data, 36);
		id[36] = '\0';
		want = ids_is_uuid(id);
	}
	for (int variant = 0; variant < 3; variant++) {
		static const char *const leads[] = { "Basic ", "bAsIc\t \t", "BASIC  " };
		static const char *const trails[] = { "", " \t", "\t" };

		h = header_of(data, size, leads[variant], trails[variant], variant == 1);
		parse(h, secretlen, &b);
		FUZZ_ASSERT(b.rc == (want ? 0 : -1));
		if (want) {
			for (size_t i = 0; i < 36; i++)
				FUZZ_ASSERT(b.id[i] == tolower(data[i]));
			FUZZ_ASSERT(strlen(b.secret) == size - 37);
			FUZZ_ASSERT(memcmp(b.secret, data + 37, size - 37) == 0);
		}
		free(h);
	}
	return 0;
}
