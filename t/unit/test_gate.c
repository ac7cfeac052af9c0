/*
 * Unit tests of the pool's gate (gate.c): places held by other processes
 * are taken, a place comes back when its holder gives it back or dies, the
 * limit bounds the places tried, and without a gate everyone passes.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xborder/gate.h"

/* A child that takes a place, says which through the pipe, and waits to be killed. */
static pid_t
holder(unsigned limit, int *place)
{
	int p[2];
	pid_t pid;

	cr_assert_eq(pipe(p), 0);
	cr_assert_geq(pid = fork(), 0);
	if (pid == 0) {
		int got = gate_enter(limit);

		(void)!write(p[1], &got, sizeof(got));
		pause();
		_exit(0);
	}
	close(p[1]);
	cr_assert_eq(read(p[0], place, sizeof(*place)), (ssize_t)sizeof(*place));
	close(p[0]);
	return pid;
}

static void
bury(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

Test(gate, no_gate_lets_everyone_through)
{
	cr_assert_eq(gate_enter(1), GATE_OPEN);
	gate_leave(GATE_OPEN);
}

Test(gate, places_are_shared_by_processes)
{
	int a, b, c;
	pid_t pa, pb, pc;

	cr_assert_eq(gate_create(8), 0);
	pa = holder(2, &a);
	pb = holder(2, &b);
	pc = holder(2, &c);
	cr_assert_eq(a, 0, "the first holder takes place 0");
	cr_assert_eq(b, 1, "the second place 1");
	cr_assert_eq(c, -1, "a third finds both places of the limit taken");
	cr_assert_eq(gate_enter(2), -1, "so does this process");
	cr_assert_eq(gate_enter(3), 2, "a higher limit reaches a free place");
	gate_leave(2);
	bury(pa);
	cr_assert_eq(gate_enter(2), 0, "a holder that died gave its place back");
	gate_leave(0);
	bury(pb);
	bury(pc);
}

Test(gate, leave_gives_the_place_back)
{
	int a, b;
	pid_t pa, pb;

	cr_assert_eq(gate_create(4), 0);
	cr_assert_eq(gate_enter(1), 0);
	pa = holder(1, &a);
	cr_assert_eq(a, -1, "another process cannot take a held place");
	bury(pa);
	gate_leave(0);
	pb = holder(1, &b);
	cr_assert_eq(b, 0, "the place is free once given back");
	bury(pb);
}

Test(gate, limit_is_cut_to_the_capacity)
{
	pid_t pid[5];
	int place[5];

	cr_assert_eq(gate_create(4), 0);
	for (int i = 0; i < 5; i++)
		pid[i] = holder(9, &place[i]);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(place[i], i, "holder %d takes place %d", i, i);
	cr_assert_eq(place[4], -1, "a fifth finds the four places taken");
	for (int i = 0; i < 5; i++)
		bury(pid[i]);
}
