/* The body tables of src/h_config.c (see fuzz/tables.h). */
#include "../../src/h_config.c"
#include "../tables.h"

const struct fuzz_table fuzz_tables_config[] = {
	{ "PATCH /config", patch_fields },
	{ NULL, NULL }
};
