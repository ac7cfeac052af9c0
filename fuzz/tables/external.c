/* The body tables of src/h_external.c (see fuzz/tables.h). */
#include "../../src/h_external.c"
#include "../tables.h"

const struct fuzz_table fuzz_tables_external[] = {
	{ "POST /customers/external-accounts", create_fields },
	{ NULL, NULL }
};
