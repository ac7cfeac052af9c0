/* The body tables of src/h_profile.c (see fuzz/tables.h). */
#include "../../src/h_profile.c"
#include "../tables.h"

const struct fuzz_table fuzz_tables_profile[] = {
	{ "PATCH /sandbox/lightning-execution-profile", patch_fields },
	{ NULL, NULL }
};
