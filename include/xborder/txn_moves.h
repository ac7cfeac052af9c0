/*
 * txn_moves.h: the lifecycle's table (DESIGN.md "Transactions: one
 * lifecycle"): the status each kind of transaction is created in and the
 * moves it may make.  Pure: txn_lifecycle.c checks every status change
 * against it before writing anything.
 */
#ifndef XBORDER_TXN_MOVES_H
#define XBORDER_TXN_MOVES_H

struct txn;

/*
 * The kinds of the table, from a transaction's kind and destination: a
 * quote's sending side pays out to an external account or credits a PPV
 * address, which decides its moves.
 */
enum txn_class {
	TC_TRANSFER_IN,		/* TRANSFER_IN */
	TC_TRANSFER_OUT,	/* TRANSFER_OUT */
	TC_QUOTE_PAYOUT,	/* QUOTE to an external account */
	TC_QUOTE_PPV,		/* QUOTE to a PPV address */
	TC_QUOTE_IN,		/* QUOTE_IN: the receiver's side of a PPV quote */
	TC_REVIEW,		/* SIMULATION: a case of the review lane */
	TC__MAX,
	TC_UNKNOWN = TC__MAX
};

/* The class of a transaction of kind whose destination is dest_type. */
enum txn_class txn_class_of(const char *kind, const char *dest_type);

/* The class of t. */
enum txn_class txn_class(const struct txn *t);

/* The status a transaction of class c is created in, or NULL for TC_UNKNOWN. */
const char *txn_initial_status(enum txn_class c);

/* 1 when the table lets a transaction of class c move from status from to to. */
int txn_move_allowed(enum txn_class c, const char *from, const char *to);

/*
 * The statuses a transaction of class c may move to `to` from, written
 * into out (at most max, NULL-ended); returns how many.
 */
int txn_moves_into(enum txn_class c, const char *to, const char **out, int max);

/* 1 when a move to `to` settles the transaction (settledAt is set once). */
int txn_move_settles(const char *to);

/* The name of class c ("transfer-in", ...), for logs and tests. */
const char *txn_class_name(enum txn_class c);

#endif
