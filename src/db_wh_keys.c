/* db_wh_keys.c: being written (issue 12). */
#include "config.h"
