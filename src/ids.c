/*
 * ids.c: identifiers, base64 and timestamps.  Randomness comes from
 * OpenSSL's CSPRNG; a failure to get random bytes aborts, since an id or a
 * secret must never be predictable.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/rand.h>

#include "xborder/ids.h"

void
ids_uuid4(char out[UUID_LEN + 1])
{
	unsigned char b[16];
	static const char hex[] = "0123456789abcdef";
	size_t j = 0;

	if (RAND_bytes(b, sizeof(b)) != 1)
		abort();
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	for (size_t i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[j++] = '-';
		out[j++] = hex[b[i] >> 4];
		out[j++] = hex[b[i] & 0x0f];
	}
	out[j] = '\0';
}

int
ids_is_uuid(const char *s)
{
	if (s == NULL || strlen(s) != UUID_LEN)
		return 0;
	for (size_t i = 0; i < UUID_LEN; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return 0;
		} else if (!isxdigit((unsigned char)s[i]))
			return 0;
	}
	return 1;
}

int
ids_is_uuid4(const char *s)
{
	if (!ids_is_uuid(s) || s[14] != '4')
		return 0;
	return strchr("89abAB", s[19]) != NULL;
}

int
ids_parse(const char *s, const char *kind, int raw_ok, char out[UUID_LEN + 1])
{
	size_t k = strlen(kind);
	const char *u = NULL;

	if (s == NULL)
		return -1;
	if (strncmp(s, kind, k) == 0 && s[k] == ':')
		u = s + k + 1;
	else if (raw_ok)
		u = s;
	if (u == NULL || !ids_is_uuid(u))
		return -1;
	for (size_t i = 0; i <= UUID_LEN; i++)
		out[i] = (char)tolower((unsigned char)u[i]);
	return 0;
}

size_t
ids_b64url(const unsigned char *in, size_t n, char *out)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	size_t i = 0, j = 0;

	for (; i + 2 < n; i += 3) {
		unsigned v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8 | in[i + 2];

		out[j++] = tab[(v >> 18) & 63];
		out[j++] = tab[(v >> 12) & 63];
		out[j++] = tab[(v >> 6) & 63];
		out[j++] = tab[v & 63];
	}
	if (n - i == 1) {
		unsigned v = (unsigned)in[i] << 16;

		out[j++] = tab[(v >> 18) & 63];
		out[j++] = tab[(v >> 12) & 63];
	} else if (n - i == 2) {
		unsigned v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8;

		out[j++] = tab[(v >> 18) & 63];
		out[j++] = tab[(v >> 12) & 63];
		out[j++] = tab[(v >> 6) & 63];
	}
	out[j] = '\0';
	return j;
}

static int
b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

long
ids_b64decode(const char *in, size_t n, unsigned char *out)
{
	size_t j = 0, pad = 0;
	unsigned acc = 0;
	int bits = 0;

	while (pad < 2 && n > 0 && in[n - 1] == '=') {
		n--;
		pad++;
	}
	/* Padding is optional, but when present it must complete a quantum. */
	if (n % 4 == 1 || (pad > 0 && (n + pad) % 4 != 0))
		return -1;
	for (size_t i = 0; i < n; i++) {
		int v = b64val((unsigned char)in[i]);

		if (v < 0)
			return -1;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[j++] = (unsigned char)((acc >> bits) & 0xff);
		}
	}
	out[j] = '\0';
	return (long)j;
}

void
ids_now_timestamp(char out[25])
{
	struct timespec now;
	struct tm tm;
	char b[80];

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	snprintf(b, sizeof(b), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
	    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
	    (int)(now.tv_nsec / 1000000));
	memcpy(out, b, 24);
	out[24] = '\0';
}

int
ids_timestamp(const char *db, char out[25])
{
	char ms[4] = "000";
	size_t n;

	if (db == NULL || (n = strlen(db)) < 19 || db[10] != ' ')
		return -1;
	if (n > 20 && db[19] == '.')
		for (size_t i = 0; i < 3 && 20 + i < n; i++)
			ms[i] = db[20 + i];
	memcpy(out, db, 10);
	out[10] = 'T';
	memcpy(out + 11, db + 11, 8);
	out[19] = '.';
	memcpy(out + 20, ms, 3);
	out[23] = 'Z';
	out[24] = '\0';
	return 0;
}
