/*
 * bankacct.h: reducing a bank account number to what the service may keep:
 * its last four characters and a keyed fingerprint.  The full number lives
 * only in the request buffer while the request is handled.
 */
#ifndef XBORDER_BANKACCT_H
#define XBORDER_BANKACCT_H

#include <stddef.h>

#define BANKACCT_KEY_LEN 32

/* Writes the last four characters of s (s has at least 4) into out[5]. */
void bankacct_last4(const char *s, char out[5]);

/*
 * HMAC-SHA-256 under key of the account and routing numbers (letters
 * uppercased, so case does not make a different account), as 64 lowercase
 * hex characters into out[65].
 */
void bankacct_fingerprint(const unsigned char key[BANKACCT_KEY_LEN], const char *account,
    const char *routing, char out[65]);

/*
 * The sandbox outcome an account number selects: its last three digits.
 * 002 fails, 003 holds (in flight until a sandbox helper moves it), 005
 * completes and is returned by the bank, anything else completes.
 */
enum bank_outcome { BANK_COMPLETES, BANK_FAILS, BANK_RETURNS, BANK_HOLDS };
enum bank_outcome bankacct_outcome_last4(const char *last4);

/*
 * The outcome a transfer or quote payout stores (transactions.outcome):
 * "COMPLETES", "FAILS", "RETURNS" or "HOLDS", by the external account's
 * last digits last4; a bank return happens to payouts only (payout 1), so
 * 005 completes a transfer-in.  A static string.
 */
const char *bankacct_outcome_name(const char *last4, int payout);

#endif
