/* The body tables of src/h_transfers.c (see fuzz/tables.h). */
#include "../../src/h_transfers.c"
#include "../tables.h"

const struct fuzz_table fuzz_tables_transfers[] = {
	{ "POST /transfer-in and /transfer-out", transfer_fields },
	{ NULL, NULL }
};
