/* The body tables of src/h_tokens.c (see fuzz/tables.h). */
#include "../../src/h_tokens.c"
#include "../tables.h"

const struct fuzz_table fuzz_tables_tokens[] = {
	{ "POST /tokens", create_fields },
	{ NULL, NULL }
};
