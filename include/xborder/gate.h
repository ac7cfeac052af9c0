/*
 * gate.h: a bound on how many processes of one xborder-fcgi pool do a slow
 * thing at once (POST /webhooks/test), shared by the workers through POSIX
 * record locks on one anonymous file the master makes before it forks.
 * A lock is the process's own: a worker that dies gives its place back.
 */
#ifndef XBORDER_GATE_H
#define XBORDER_GATE_H

/*
 * Master, before forking: makes the gate's file with room for capacity
 * places (the pool's largest size); the workers inherit it.  0, or -1 with
 * errno (then every gate_enter() lets everyone through).
 */
int gate_create(unsigned capacity);

/*
 * Worker: takes one of the first `limit` places.  Returns its index (>= 0)
 * or -1 when all of them are taken.  Without a gate (gate_create() was not
 * called or failed) returns GATE_OPEN.
 */
#define GATE_OPEN (-2)
int gate_enter(unsigned limit);

/* Gives back a place gate_enter() returned (nothing for -1 or GATE_OPEN). */
void gate_leave(int place);

#endif
