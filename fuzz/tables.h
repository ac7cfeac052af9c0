/*
 * tables.h: the body field tables of the handlers, for the body harness.
 * The handlers keep their tables static, so each fuzz/tables/<h>.c
 * includes src/h_<h>.c (whose object then replaces the library's: it
 * defines the same symbols) and lists its tables here.  A table renamed in
 * a handler breaks `make fuzz`, never the ordinary build.
 */
#ifndef XBORDER_FUZZ_TABLES_H
#define XBORDER_FUZZ_TABLES_H

#include "xborder/valid.h"

struct fuzz_table {
	const char		*op;		/* "POST /customers" */
	const struct vfield	*fields;
};

/* Each list ends with op NULL. */
extern const struct fuzz_table fuzz_tables_config[];
extern const struct fuzz_table fuzz_tables_customers[];
extern const struct fuzz_table fuzz_tables_external[];
extern const struct fuzz_table fuzz_tables_internal[];
extern const struct fuzz_table fuzz_tables_profile[];
extern const struct fuzz_table fuzz_tables_quotes[];
extern const struct fuzz_table fuzz_tables_review[];
extern const struct fuzz_table fuzz_tables_tokens[];
extern const struct fuzz_table fuzz_tables_transfers[];

#endif
