/*
 * bankacct.c: masking and fingerprinting of bank account numbers, and the
 * sandbox outcome rule keyed on an account number's last three digits.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "xborder/bankacct.h"

void
bankacct_last4(const char *s, char out[5])
{
	size_t n = strlen(s);

	memcpy(out, n >= 4 ? s + n - 4 : s, n >= 4 ? 4 : n);
	out[n >= 4 ? 4 : n] = '\0';
}

void
bankacct_fingerprint(const unsigned char key[BANKACCT_KEY_LEN], const char *account,
    const char *routing, char out[65])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char buf[128], mac[32];
	unsigned int maclen = sizeof(mac);
	size_t n = 0;

	for (const char *p = account; *p && n < 60; p++)
		buf[n++] = (unsigned char)toupper((unsigned char)*p);
	buf[n++] = '|';
	for (const char *p = routing; *p && n < sizeof(buf); p++)
		buf[n++] = (unsigned char)toupper((unsigned char)*p);
	if (HMAC(EVP_sha256(), key, BANKACCT_KEY_LEN, buf, n, mac, &maclen) == NULL)
		abort();
	OPENSSL_cleanse(buf, sizeof(buf));
	for (size_t i = 0; i < 32; i++) {
		out[2 * i] = hex[mac[i] >> 4];
		out[2 * i + 1] = hex[mac[i] & 15];
	}
	out[64] = '\0';
}

enum bank_outcome
bankacct_outcome_last4(const char *last4)
{
	size_t n = strlen(last4);

	if (n >= 3 && strcmp(last4 + n - 3, "002") == 0)
		return BANK_FAILS;
	if (n >= 3 && strcmp(last4 + n - 3, "003") == 0)
		return BANK_HOLDS;
	if (n >= 3 && strcmp(last4 + n - 3, "005") == 0)
		return BANK_RETURNS;
	return BANK_COMPLETES;
}

const char *
bankacct_outcome_name(const char *last4, int payout)
{
	switch (bankacct_outcome_last4(last4)) {
	case BANK_FAILS:
		return "FAILS";
	case BANK_HOLDS:
		return "HOLDS";
	case BANK_RETURNS:
		return payout ? "RETURNS" : "COMPLETES";
	default:
		return "COMPLETES";
	}
}
