/* The body tables of src/h_quotes.c (see fuzz/tables.h). */
#include "../../src/h_quotes.c"
#include "../tables.h"

const struct fuzz_table fuzz_tables_quotes[] = {
	{ "POST /quotes", quote_fields },
	{ NULL, NULL }
};
