/*
 * fault.c: fault points for tests (see fault.h).  Compiled to an empty
 * unit unless configure was given --enable-fault-injection.
 */
#include "config.h"

#ifdef XB_FAULT_INJECTION
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "xborder/fault.h"
#include "xborder/util.h"

static char armed[64];

void
fault_arm(const char *spec)
{
	snprintf(armed, sizeof(armed), "%s", spec != NULL ? spec : "");
}

int
fault_point(const char *name)
{
	size_t len = strlen(name);

	if (armed[0] == '\0' || strncmp(armed, name, len) != 0 ||
	    (armed[len] != '\0' && strcmp(armed + len, ":once") != 0))
		return 0;
	if (armed[len] == ':')
		armed[0] = '\0';
	log_msg(LOG_LVL_WARN, NULL, "fault point %s reached", name);
	if (strncmp(name, "kill-", 5) == 0)
		_exit(70);
	if (strncmp(name, "pause-", 6) == 0) {
		usleep(FAULT_PAUSE_MS * 1000);
		return 1;
	}
	return 1;
}
#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int fault_unused;
#endif
