/*
 * fault.h: fault points for tests.  A build configured with
 * --enable-fault-injection lets a request arm one named point with the
 * X-Xborder-Fault header; the code calls fault_point() where a crash, a
 * pause or a lost answer is to be simulated.  In every other build the
 * header is never read and each call below compiles to nothing, so no
 * production binary can be made to misbehave on request.
 *
 * Point names say what happens there:
 *   kill-*    the worker process dies at once (_exit), as if killed
 *   pause-*   the worker sleeps FAULT_PAUSE_MS, to force an interleaving
 *   other     fault_point() returns 1 and the caller simulates the fault
 * A point armed as NAME:once fires the first time it is reached only.
 * xborderctl arms the point its environment's XB_FAULT names, for the
 * whole command.
 */
#ifndef XBORDER_FAULT_H
#define XBORDER_FAULT_H

#define FAULT_PAUSE_MS 2000

#ifdef XB_FAULT_INJECTION
/* Arms the point named by spec (NULL disarms) for the current request. */
void fault_arm(const char *spec);

/*
 * At a fault point: when name is armed, kills the process (kill-*),
 * pauses (pause-*) or returns 1; returns 0 when it is not armed.
 */
int fault_point(const char *name);
#else
static inline void fault_arm(const char *spec) { (void)spec; }
static inline int fault_point(const char *name) { (void)name; return 0; }
#endif

#endif
