/*
 * auth_secret.c: the credentials themselves, with no I/O: decoding the
 * Basic header, and making a new secret with its argon2id hash (what
 * POST /tokens and xborderctl hand out).  Authentication (auth.c) checks
 * a request against them.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <argon2.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "xborder/auth_secret.h"
#include "xborder/conf.h"
#include "xborder/ids.h"
#include "xborder/util.h"

int
auth_parse_basic(const char *header, char client_id[37], char *secret,
    size_t secretlen)
{
	unsigned char dec[256];
	const char *p, *colon;
	size_t n;
	long len;

	if (header == NULL || strncasecmp(header, "Basic", 5) != 0 ||
	    (header[5] != ' ' && header[5] != '\t'))
		return -1;
	p = header + 5;
	while (*p == ' ' || *p == '\t')
		p++;
	n = strlen(p);
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n == 0 || n > 340)
		return -1;
	if ((len = ids_b64decode(p, n, dec)) <= 0)
		return -1;
	if (memchr(dec, '\0', (size_t)len) != NULL)
		return -1;
	if ((colon = strchr((char *)dec, ':')) == NULL)
		return -1;
	if ((size_t)(colon - (char *)dec) != UUID_LEN)
		return -1;
	memcpy(client_id, dec, UUID_LEN);
	client_id[UUID_LEN] = '\0';
	if (!ids_is_uuid(client_id))
		return -1;
	for (size_t i = 0; i < UUID_LEN; i++)
		client_id[i] = (char)tolower((unsigned char)client_id[i]);
	n = strlen(colon + 1);
	if (n == 0 || n >= secretlen)
		return -1;
	memcpy(secret, colon + 1, n + 1);
	return 0;
}

int
auth_new_secret(const struct conf *c, char secret[AUTH_SECRET_LEN + 1], char **hash)
{
	unsigned char raw[32], salt[16];
	size_t enclen;
	char *enc;

	if (RAND_bytes(raw, sizeof(raw)) != 1 || RAND_bytes(salt, sizeof(salt)) != 1)
		return -1;
	ids_b64url(raw, sizeof(raw), secret);
	OPENSSL_cleanse(raw, sizeof(raw));
	enclen = argon2_encodedlen(c->argon2_t, c->argon2_m, c->argon2_p,
	    sizeof(salt), 32, Argon2_id);
	enc = xmalloc(enclen);
	if (argon2id_hash_encoded(c->argon2_t, c->argon2_m, c->argon2_p,
	    secret, AUTH_SECRET_LEN, salt, sizeof(salt), 32, enc, enclen) != ARGON2_OK) {
		free(enc);
		return -1;
	}
	*hash = enc;
	return 0;
}
