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
	char	 outcome[16];			/* payouts: COMPLETES, FAILS, RETURNS, HOLDS */
	char	 status[16];			/* QUOTE_READY, BLOCKED, EXPIRED */
	int64_t	 lock_seconds;			/* creation only */
	char	 created_at[25], expires_at[25];
	char	 executed_at[25];		/* "" until executed */
};

/*
 * Inserts q (every field but id, transaction_id and the timestamps filled
 * by the caller; it expires q->lock_seconds from now by the server's
 * clock) and its OUTGOING transaction in CREATED for the sending customer,
 * whose platform customer id is pcid (NULL when none).  id receives the
 * quote's id, txn the transaction's row (caller frees).  For
 * quote_create(), which records the transaction.
 */
int db_quote_insert(struct db *db, const struct quote *q, const char *pcid, char id[37],
    struct txn *txn);

/* Reads a quote of platform: DB_OK or DB_NOT_FOUND. */
int db_quote_get(struct db *db, const char *platform, const char *id, struct quote *out);

/* Reads the quote whose transaction is txn_id: DB_OK or DB_NOT_FOUND. */
int db_quote_by_txn(struct db *db, const char *txn_id, struct quote *out);

/* Lists quotes of platform, newest first; status may be NULL. */
int db_quote_list(struct db *db, const char *platform, const char *status, int64_t limit,
    int64_t offset, struct quote **out, size_t *n, int64_t *total);

/*
 * Locks quote id of platform (FOR UPDATE) and reads it; *expired is 1 when
 * it is past its expiry by the server's clock.  DB_OK or DB_NOT_FOUND.
 */
int db_quote_lock(struct db *db, const char *platform, const char *id, struct quote *out,
    int *expired);

/* Marks quote id executed now. */
int db_quote_mark_executed(struct db *db, const char *id);

/*
 * Inserts the receiving side of PPV quote q: the receiving customer's
 * INCOMING transaction of kind QUOTE_IN, COMPLETED, crediting account;
 * pcid is the receiving customer's platform customer id (NULL when none).
 * out receives the row (caller frees), for quote_execute() to record.
 */
int db_quote_insert_received(struct db *db, const struct quote *q, const char *pcid,
    const char *account, struct txn *out);

/*
 * The ids of at most max open quotes past their expiry (of platform, or
 * of every platform when NULL) into ids; *n says how many.
 */
int db_quote_due(struct db *db, const char *platform, char (*ids)[37], size_t max, size_t *n);

/*
 * Locks quote id when it is still open and past its expiry: platform and
 * txn_id receive its platform and transaction.  DB_NOT_FOUND when it was
 * executed or expired meanwhile.
 */
int db_quote_lock_due(struct db *db, const char *id, char platform[37], char txn_id[37]);

/* Marks quote id EXPIRED. */
int db_quote_set_expired(struct db *db, const char *id);

/* Reads the reference price of currency: DB_OK or DB_NOT_FOUND. */
int db_fx_get(struct db *db, const char *currency, int64_t *price);

void quote_free(struct quote *q);
void quote_list_free(struct quote *q, size_t n);

#endif
