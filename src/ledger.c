/*
 * ledger.c: building and checking postings.  Nothing here touches the
 * database; db_ledger.c applies a set that ledger_balanced() accepted.
 */
#include "config.h"

#include <string.h>

#include "xborder/ids.h"
#include "xborder/ledger.h"
#include "xborder/money.h"

int
ledger_add(struct posting_set *s, const char *account_id, const char *currency,
    int64_t amount)
{
	struct posting *p;

	if (s->n == LEDGER_MAX_POSTINGS || amount == 0 || amount == INT64_MIN ||
	    !ids_is_uuid(account_id) || !money_code_form(currency))
		return -1;
	p = &s->p[s->n++];
	memcpy(p->account_id, account_id, sizeof(p->account_id));
	memcpy(p->currency, currency, sizeof(p->currency));
	p->amount = amount;
	return 0;
}

int
ledger_move(struct posting_set *s, const char *from, const char *to,
    const char *currency, int64_t amount)
{
	if (amount <= 0 || strcmp(from, to) == 0 || s->n + 2 > LEDGER_MAX_POSTINGS)
		return -1;
	if (ledger_add(s, from, currency, -amount) < 0)
		return -1;
	if (ledger_add(s, to, currency, amount) < 0) {
		s->n--;
		return -1;
	}
	return 0;
}

int
ledger_balanced(const struct posting_set *s)
{
	if (s->n < 2)
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		__int128 sum = 0;

		for (size_t j = 0; j < s->n; j++)
			if (strcmp(s->p[i].currency, s->p[j].currency) == 0)
				sum += s->p[j].amount;
		if (sum != 0)
			return -1;
	}
	return 0;
}

size_t
ledger_lock_order(const struct posting_set *s, size_t order[LEDGER_MAX_POSTINGS])
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++) {
		size_t j;

		for (j = 0; j < n; j++)
			if (strcmp(s->p[order[j]].account_id, s->p[i].account_id) == 0)
				break;
		if (j < n)
			continue;
		/* Insertion sort: at most LEDGER_MAX_POSTINGS entries. */
		for (j = n; j > 0 && strcmp(s->p[order[j - 1]].account_id, s->p[i].account_id) > 0; j--)
			order[j] = order[j - 1];
		order[j] = i;
		n++;
	}
	return n;
}

int64_t
ledger_net(const struct posting_set *s, const char *account_id, int *overflow)
{
	__int128 sum = 0;

	*overflow = 0;
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->p[i].account_id, account_id) == 0)
			sum += s->p[i].amount;
	if (sum > INT64_MAX || sum < INT64_MIN) {
		*overflow = 1;
		return 0;
	}
	return (int64_t)sum;
}

int64_t
ledger_taken(const struct posting_set *s, const char *account_id, int *overflow)
{
	__int128 sum = 0;

	*overflow = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->p[i].amount < 0 && strcmp(s->p[i].account_id, account_id) == 0)
			sum -= s->p[i].amount;
	if (sum > INT64_MAX) {
		*overflow = 1;
		return 0;
	}
	return (int64_t)sum;
}

int
ledger_funds_cover(int64_t balance, int64_t taken, int may_go_negative)
{
	return may_go_negative || (__int128)balance >= (__int128)taken;
}

enum ledger_bound
ledger_balance_after(int64_t balance, int64_t net, int may_go_negative, int64_t *out)
{
	int64_t after;

	if (__builtin_add_overflow(balance, net, &after))
		return LEDGER_PAST_LIMIT;
	if (after < 0 && !may_go_negative)
		return LEDGER_BELOW_ZERO;
	if ((net > 0 && after > LEDGER_BALANCE_MAX) || (net < 0 && after < -LEDGER_BALANCE_MAX))
		return LEDGER_PAST_LIMIT;
	*out = after;
	return LEDGER_OK;
}

int
ledger_split_matches(const struct posting_set *s, const struct ledger_entry *e, size_t n)
{
	if (n == 0 || n > LEDGER_MAX_ENTRIES)
		return 0;
	for (size_t i = 0; i < n; i++) {
		int found = 0;

		if (e[i].amount == 0 || e[i].amount == INT64_MIN)
			return 0;
		for (size_t k = 0; k < s->n && !found; k++)
			found = strcmp(s->p[k].account_id, e[i].account_id) == 0 &&
			    strcmp(s->p[k].currency, e[i].currency) == 0;
		if (!found)
			return 0;
	}
	/* Per account of the set: its postings' sum equals its entries'. */
	for (size_t k = 0; k < s->n; k++) {
		__int128 want = 0, got = 0;

		for (size_t j = 0; j < s->n; j++)
			if (strcmp(s->p[j].account_id, s->p[k].account_id) == 0)
				want += s->p[j].amount;
		for (size_t i = 0; i < n; i++)
			if (strcmp(e[i].account_id, s->p[k].account_id) == 0)
				got += e[i].amount;
		if (want != got)
			return 0;
	}
	return 1;
}
