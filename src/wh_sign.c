/* wh_sign.c: being written (issue 12). */
#include "config.h"
