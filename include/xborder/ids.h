/*
 * ids.h: identifiers (random UUIDv4, "Kind:<uuid>" forms), base64 codecs
 * and the timestamp format of the API.
 */
#ifndef XBORDER_IDS_H
#define XBORDER_IDS_H

#include <stddef.h>

#define UUID_LEN 36

/* Writes a random lowercase UUIDv4 and a NUL into out[37]. */
void ids_uuid4(char out[UUID_LEN + 1]);

/* 1 when s is a UUID in 8-4-4-4-12 hex form (either case), else 0. */
int ids_is_uuid(const char *s);

/* 1 when s matches the UUIDv4 pattern of the API document, else 0. */
int ids_is_uuid4(const char *s);

/*
 * Parses "<kind>:<uuid>" into out[37] (lowercased).  With raw_ok, a bare
 * UUID is accepted too.  Returns 0 or -1.
 */
int ids_parse(const char *s, const char *kind, int raw_ok, char out[UUID_LEN + 1]);

/*
 * Encodes n bytes as base64url without padding into out, which must hold
 * 4 * ceil(n / 3) + 1 bytes.  Returns the length written.
 */
size_t ids_b64url(const unsigned char *in, size_t n, char *out);

/*
 * Decodes standard base64 (with optional padding) of length n into out,
 * which must hold n * 3 / 4 + 1 bytes; NUL-terminates.  Returns the decoded
 * length or -1 on malformed input.
 */
long ids_b64decode(const char *in, size_t n, unsigned char *out);

/*
 * Converts a database DATETIME string "YYYY-MM-DD HH:MM:SS[.f...]" to the
 * API form "YYYY-MM-DDTHH:MM:SS.mmmZ" in out[25].  Returns 0 or -1.
 */
int ids_timestamp(const char *db, char out[25]);
/* The current UTC time in the same form. */
void ids_now_timestamp(char out[25]);

#endif
