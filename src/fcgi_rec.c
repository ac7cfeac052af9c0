/*
 * fcgi_rec.c: a whole FastCGI response as records in one buffer (the
 * FastCGI 1.0 specification, sections 3.3 and 5.5).  libfcgi's own output
 * stream flushes every 8 KiB, so a 12 KiB list page went to nginx in two
 * writes and woke it twice; resp_send() writes this buffer at once.
 */
#include "config.h"

#include <string.h>

#include "xborder/fcgi_rec.h"
#include "xborder/util.h"

#define FCGI_VERSION_1		1
#define FCGI_END_REQUEST	3
#define FCGI_STDOUT		6
#define FCGI_REQUEST_COMPLETE	0
#define HEADER_LEN		8

/* Writes one record header at p: version, type, id, content and padding lengths. */
static unsigned char *
header(unsigned char *p, int type, int request_id, size_t content, size_t padding)
{
	p[0] = FCGI_VERSION_1;
	p[1] = (unsigned char)type;
	p[2] = (unsigned char)((request_id >> 8) & 0xff);
	p[3] = (unsigned char)(request_id & 0xff);
	p[4] = (unsigned char)((content >> 8) & 0xff);
	p[5] = (unsigned char)(content & 0xff);
	p[6] = (unsigned char)padding;
	p[7] = 0;
	return p + HEADER_LEN;
}

unsigned char *
fcgi_rec_frame(int request_id, const char *data, size_t len, size_t *lenp)
{
	size_t nrec = (len + FCGI_REC_MAX_CONTENT - 1) / FCGI_REC_MAX_CONTENT;
	/* Each record: header, content, at most 7 bytes of padding; then two more. */
	size_t cap = len + nrec * (HEADER_LEN + 7) + HEADER_LEN + 2 * HEADER_LEN;
	unsigned char *out = xmalloc(cap), *p = out;
	size_t off = 0, n, pad;

	while (off < len) {
		n = len - off < FCGI_REC_MAX_CONTENT ? len - off : FCGI_REC_MAX_CONTENT;
		pad = (8 - n % 8) % 8;
		p = header(p, FCGI_STDOUT, request_id, n, pad);
		memcpy(p, data + off, n);
		memset(p + n, 0, pad);
		p += n + pad;
		off += n;
	}
	p = header(p, FCGI_STDOUT, request_id, 0, 0);
	/* FCGI_EndRequestBody: appStatus (4 bytes, 0), protocolStatus, 3 reserved. */
	p = header(p, FCGI_END_REQUEST, request_id, 8, 0);
	memset(p, 0, 8);
	p[4] = FCGI_REQUEST_COMPLETE;
	p += 8;
	*lenp = (size_t)(p - out);
	return out;
}
