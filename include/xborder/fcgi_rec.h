/*
 * fcgi_rec.h: the FastCGI records of a whole response, framed in memory
 * (pure: no I/O), so that xborder-fcgi writes a response with one
 * system call however long it is.
 */
#ifndef XBORDER_FCGI_REC_H
#define XBORDER_FCGI_REC_H

#include <stddef.h>

/* The most content one FastCGI record carries (its 16-bit length). */
#define FCGI_REC_MAX_CONTENT 65535

/*
 * The records that answer request request_id with the len bytes of data
 * (the CGI response: headers, blank line, body): FCGI_STDOUT records of at
 * most FCGI_REC_MAX_CONTENT bytes each, padded to a multiple of 8 bytes,
 * then the empty FCGI_STDOUT record that ends the stream and an
 * FCGI_END_REQUEST record (application status 0, FCGI_REQUEST_COMPLETE).
 * Returns the buffer (caller frees) and its length in *lenp.
 */
unsigned char *fcgi_rec_frame(int request_id, const char *data, size_t len, size_t *lenp);

#endif
