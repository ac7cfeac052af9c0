/*
 * gate.c: a few places shared by the workers of one pool (see gate.h).
 *
 * The master makes an anonymous file (memfd) of `capacity` bytes; place i
 * is a write lock on byte i (fcntl F_SETLK, never waiting).  POSIX record
 * locks belong to a process, not to a descriptor, so the descriptor every
 * worker inherits is all they share, and the kernel gives a place back
 * when its holder exits, however it exits: a worker killed in the middle
 * of a slow call never keeps its place.  (A process drops all its locks on
 * a file when it closes any descriptor of it: nothing but this module ever
 * opens or closes this one.)
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "xborder/gate.h"

static int gate_fd = -1;
static unsigned gate_capacity;

int
gate_create(unsigned capacity)
{
	int fd;

	if (capacity == 0) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = memfd_create("xborder-gate", MFD_CLOEXEC)) < 0)
		return -1;
	if (ftruncate(fd, (off_t)capacity) < 0) {
		close(fd);
		return -1;
	}
	if (gate_fd >= 0)
		close(gate_fd);
	gate_fd = fd;
	gate_capacity = capacity;
	return 0;
}

/* F_SETLK of byte place: type F_WRLCK or F_UNLCK.  0 or -1. */
static int
lock_byte(int place, short type)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = place, .l_len = 1 };

	return fcntl(gate_fd, F_SETLK, &fl);
}

int
gate_enter(unsigned limit)
{
	if (gate_fd < 0)
		return GATE_OPEN;
	if (limit > gate_capacity)
		limit = gate_capacity;
	for (unsigned i = 0; i < limit; i++)
		if (lock_byte((int)i, F_WRLCK) == 0)
			return (int)i;
	return -1;
}

void
gate_leave(int place)
{
	if (gate_fd >= 0 && place >= 0)
		(void)lock_byte(place, F_UNLCK);
}
