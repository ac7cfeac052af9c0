/*
 * transfer.h: same-currency transfers between a customer's account and
 * the outside world (transfer.c), made in one database transaction and
 * recorded through the lifecycle (txn_lifecycle.h).
 */
#ifndef XBORDER_TRANSFER_H
#define XBORDER_TRANSFER_H

struct db;
struct ledger_short;
struct transfer;
struct txn;

/*
 * Records a transfer-in (INCOMING, PENDING): moves the amount from the
 * platform's sandbox account to its in-transit account, records the
 * transaction and its settlement job, in one transaction.  DB_OK,
 * DB_LIMIT (the sandbox account would pass the balance limit), DB_GONE
 * (customer deleted meanwhile) or a failure.
 */
int transfer_in(struct db *db, const char *platform, const struct transfer *t,
    struct txn *out);

/*
 * Records a transfer-out (OUTGOING, PENDING): moves the amount from the
 * customer's account to the platform's in-transit account, records the
 * transaction and its settlement job, in one transaction.  DB_OK,
 * DB_LIMIT, DB_INSUFFICIENT (*shortfall filled), DB_GONE or a failure.
 */
int transfer_out(struct db *db, const char *platform, const struct transfer *t,
    struct txn *out, struct ledger_short *shortfall);


#endif
