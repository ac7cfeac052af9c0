/*
 * fuzz.h: what every libFuzzer harness of xborder shares.  A harness
 * defines LLVMFuzzerTestOneInput; a broken invariant is reported with
 * FUZZ_ASSERT, which prints it and aborts (libFuzzer saves the input).
 */
#ifndef XBORDER_FUZZ_H
#define XBORDER_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_ASSERT(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: invariant broken: %s\n",	\
		    __FILE__, __LINE__, #cond);				\
		abort();						\
	}								\
} while (0)

/* The input as a NUL-terminated string (cut at its first NUL); free it. */
static inline char *
fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s == NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * RFC 3629 section 4 as a grammar, byte by byte: an oracle for
 * valid_utf8() written independently of it.
 */
static inline int
fuzz_ref_utf8(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = s[i];
		unsigned char lo = 0x80, hi = 0xbf;
		size_t tail;

		if (c <= 0x7f) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			tail = 1;
		else if (c == 0xe0)
			tail = 2, lo = 0xa0;
		else if ((c >= 0xe1 && c <= 0xec) || c == 0xee || c == 0xef)
			tail = 2;
		else if (c == 0xed)
			tail = 2, hi = 0x9f;
		else if (c == 0xf0)
			tail = 3, lo = 0x90;
		else if (c >= 0xf1 && c <= 0xf3)
			tail = 3;
		else if (c == 0xf4)
			tail = 3, hi = 0x8f;
		else
			return 0;
		if (n - i - 1 < tail)
			return 0;
		/* Only the first continuation byte has a narrowed range. */
		if (s[i + 1] < lo || s[i + 1] > hi)
			return 0;
		for (size_t k = 2; k <= tail; k++)
			if (s[i + k] < 0x80 || s[i + k] > 0xbf)
				return 0;
		i += tail + 1;
	}
	return 1;
}

/* The oracle for valid_text(): the bytes a JSON key (key 1) or value may hold. */
static inline int
fuzz_ref_text(const unsigned char *s, size_t n, int key)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == 0x7f)
			return 0;
		if (s[i] < 0x20 && (key || !(s[i] == '\t' || s[i] == '\n' || s[i] == '\r')))
			return 0;
	}
	return fuzz_ref_utf8(s, n);
}

#endif
