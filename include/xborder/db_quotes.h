/*
 * db_quotes.h: cross-currency quotes, their execution and the postings
 * that settle or reverse an execution.
 */
#ifndef XBORDER_DB_QUOTES_H
#define XBORDER_DB_QUOTES_H

#include <stddef.h>
#include <stdint.h>

#include "xborder/db_ledger.h"

struct db;
struct txn;

/* One quote, as stored (every input of its pricing snapshotted). */
struct quote {
	char	 id[37];
	char	 platform_id[37];
	char	 transaction_id[37];
	char	 customer_id[37];		/* the sending customer */
	char	 source_account_id[37];
	char	 dest_type[17];			/* PPV_ADDRESS, EXTERNAL_ACCOUNT */
	char	*dest_ref;			/* canonical PPV address or account id; owned */
	char	 recv_platform_id[37];
	char	 recv_customer_id[37];
	char	*recv_ppv_address;		/* the receiver's canonical address; owned */
	char	 send_currency[4], recv_currency[4];
	char	 locked_side[10];		/* SENDING, RECEIVING */
	int64_t	 locked_amount;
	int64_t	 send_amount, recv_amount, principal, fees, fee_sender, fee_receiver;
	char	 exchange_rate[48];
	int64_t	 price_send, price_recv;
	int	 spread_bps, fee_sender_bps, fee_receiver_bps;
	char	*counterparty;			/* JSON text or NULL; owned */
	char	 outcome[16];			/* payouts: COMPLETES, FAILS, RETURNS */
	char	 status[16];			/* QUOTE_READY, BLOCKED, EXPIRED */
	int64_t	 lock_seconds;			/* creation only */
	char	 created_at[25], expires_at[25];
	char	 executed_at[25];		/* "" until executed */
};

/* Why an execution was refused (DB_CONFLICT). */
enum quote_refusal { QUOTE_OK, QUOTE_ALREADY_EXECUTED, QUOTE_EXPIRED, QUOTE_BLOCKED,
	QUOTE_ACCOUNT_GONE };

/*
 * Records q (every field but id, transaction_id and the timestamps filled
 * by the caller) and its OUTGOING transaction in CREATED, in one
 * transaction; out receives the stored quote.  DB_OK, DB_GONE (the sending
 * customer was deleted meanwhile) or a failure.
 */
int db_quote_create(struct db *db, const struct quote *q, struct quote *out);

/* Reads a quote of platform: DB_OK or DB_NOT_FOUND. */
int db_quote_get(struct db *db, const char *platform, const char *id, struct quote *out);

/* Reads the quote whose transaction is txn_id: DB_OK or DB_NOT_FOUND. */
int db_quote_by_txn(struct db *db, const char *txn_id, struct quote *out);

/* Lists quotes of platform, newest first; status may be NULL. */
int db_quote_list(struct db *db, const char *platform, const char *status, int64_t limit,
    int64_t offset, struct quote **out, size_t *n, int64_t *total);

/*
 * Executes a quote of platform (decisions.md section 9): to a PPV address
 * it settles at once (the receiving platform's INCOMING transaction
 * included); to an external account the transaction goes PROCESSING and a
 * settlement job is queued.  out receives the sending transaction.
 * Returns DB_OK, DB_NOT_FOUND, DB_CONFLICT (*why says which rule),
 * DB_GONE (a customer was deleted), DB_INSUFFICIENT (*shortfall) or a
 * failure.
 */
int db_quote_execute(struct db *db, const char *platform, const char *id, struct txn *out,
    enum quote_refusal *why, struct ledger_short *shortfall);

/*
 * Inside the caller's transaction: the payout of an executed quote left
 * the in-transit account for the outside world (the bank paid it).
 */
int db_quote_payout_done(struct db *db, const struct quote *q);

/*
 * Inside the caller's transaction: the payout did not reach the bank (it
 * failed) or came back (returned): its receiving amount leaves the
 * in-transit account, the sender gets the whole sending amount back and
 * both fee credits are taken back, so nothing has moved in the end.
 */
int db_quote_reverse(struct db *db, const struct quote *q, const char *memo);

/*
 * Marks every unexecuted quote past its expiry EXPIRED, with its
 * transaction (of platform, or of every platform when NULL), however many
 * are due, a hundred at a time, each in a transaction of its own.  *n (may
 * be NULL) receives how many.
 */
int db_quote_expire_due(struct db *db, const char *platform, uint64_t *n);

/* Reads the reference price of currency: DB_OK or DB_NOT_FOUND. */
int db_fx_get(struct db *db, const char *currency, int64_t *price);

void quote_free(struct quote *q);
void quote_list_free(struct quote *q, size_t n);

/*
 * SQL: 1 when the platform whose id is `pcol` (a column or "?") has an
 * open quote past its expiry (QUOTE_READY or BLOCKED, not executed).  MIN
 * on the prefix of ix_quotes_open_due: one look into the index per
 * status, however many executed quotes the platform has.  Read with the
 * transactions a request shows, so that db_quote_expire_due() runs only
 * when there is something to expire.
 */
#define QUOTE_OPEN_MIN(pcol, st) \
	"COALESCE((SELECT MIN(q.expires_at) FROM quotes q FORCE INDEX (ix_quotes_open_due)" \
	" WHERE q.platform_id = " pcol " AND q.status = '" st "'" \
	" AND q.executed_at IS NULL), '9999-12-31')"
/*
 * SQL: 1 when the transaction alias x is a quote's whose quote is open
 * (QUOTE_READY or BLOCKED, not executed) and past its expiry, what
 * db_quote_expire_due() expires; read from the transaction's own row
 * (schema/010_quote_expiry.sql says why it is the same).
 */
#define TXN_QUOTE_DUE_OF(x) \
	"(" x ".status = 'CREATED' AND " x ".quote_expires_at <= UTC_TIMESTAMP(3))"
#define QUOTES_DUE_SQL(pcol) \
	"(LEAST(" QUOTE_OPEN_MIN(pcol, "QUOTE_READY") ", " \
	QUOTE_OPEN_MIN(pcol, "BLOCKED") ") <= UTC_TIMESTAMP(3))"

#endif
