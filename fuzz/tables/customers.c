/* The body tables of src/h_customers.c (see fuzz/tables.h). */
#include "../../src/h_customers.c"
#include "../tables.h"

const struct fuzz_table fuzz_tables_customers[] = {
	{ "POST /customers", create_fields },
	{ "PATCH /customers/{customerId}", patch_fields },
	{ "POST /customers/{customerId}/ppv-address", ppv_fields },
	{ NULL, NULL }
};
