/*
 * Unit tests of fcgi_rec.c: a response framed as FastCGI records parses
 * back, record by record, into the same bytes, whatever its length (none,
 * under one record, exactly one, over one, several), with the request id
 * in every record, content of at most 65535 bytes, padding to 8, then the
 * empty FCGI_STDOUT record and FCGI_END_REQUEST (complete, status 0).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "xborder/fcgi_rec.h"

/* Parses buf (n bytes) as records of request id; checks each; returns the
 * STDOUT content (caller frees) in *out and its length. */
static size_t
unframe(const unsigned char *buf, size_t n, int id, char **out)
{
	size_t off = 0, got = 0;
	int ended_stdout = 0, ended = 0;

	*out = malloc(n + 1);
	while (off < n) {
		size_t clen, plen;

		cr_assert(off + 8 <= n, "a whole header at %zu", off);
		cr_assert_eq(buf[off], 1, "version 1");
		cr_assert_eq((buf[off + 2] << 8) | buf[off + 3], id, "the request id");
		clen = (size_t)((buf[off + 4] << 8) | buf[off + 5]);
		plen = buf[off + 6];
		cr_assert(off + 8 + clen + plen <= n, "the record fits");
		cr_assert_eq((8 + clen + plen) % 8, 0, "padded to a multiple of 8");
		cr_assert(!ended, "nothing after FCGI_END_REQUEST");
		if (buf[off + 1] == 6) {
			cr_assert(!ended_stdout, "no stdout after its end");
			if (clen == 0)
				ended_stdout = 1;
			memcpy(*out + got, buf + off + 8, clen);
			got += clen;
		} else {
			cr_assert_eq(buf[off + 1], 3, "stdout or end-request only");
			cr_assert(ended_stdout, "the stream ends before the request");
			cr_assert_eq(clen, 8);
			cr_assert_eq(buf[off + 8] | buf[off + 9] | buf[off + 10] | buf[off + 11], 0,
			    "application status 0");
			cr_assert_eq(buf[off + 12], 0, "FCGI_REQUEST_COMPLETE");
			ended = 1;
		}
		off += 8 + clen + plen;
	}
	cr_assert(ended, "the request ends");
	return got;
}

static void
round_trip(size_t len, int id)
{
	char *data = malloc(len + 1), *back;
	unsigned char *f;
	size_t flen, got, records;

	for (size_t i = 0; i < len; i++)
		data[i] = (char)('a' + (i * 7) % 26);
	f = fcgi_rec_frame(id, data, len, &flen);
	got = unframe(f, flen, id, &back);
	cr_assert_eq(got, len, "length %zu back whole", len);
	cr_assert(memcmp(back, data, len) == 0, "the same %zu bytes", len);
	records = (len + FCGI_REC_MAX_CONTENT - 1) / FCGI_REC_MAX_CONTENT;
	cr_assert_leq(flen, len + records * 15 + 24, "no more than headers and padding added");
	free(back);
	free(f);
	free(data);
}

Test(fcgi_rec, empty_response_is_the_two_closing_records)
{
	size_t flen;
	unsigned char *f = fcgi_rec_frame(1, "", 0, &flen);

	cr_assert_eq(flen, 24, "empty stdout record and end-request: 8 + 16 bytes");
	free(f);
	round_trip(0, 1);
}

Test(fcgi_rec, lengths_around_padding_and_record_limits)
{
	size_t lens[] = { 1, 7, 8, 9, 712, 8192, 12344, 65534, 65535, 65536, 131070, 131071,
	    200003 };

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		round_trip(lens[i], 1);
}

Test(fcgi_rec, request_id_in_both_bytes)
{
	round_trip(100, 0x1234);
	round_trip(70000, 65535);
}
