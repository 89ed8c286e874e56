// SPDX-License-Identifier: GPL-2.0
/*
 * Time stamps against a clock that steps back or is changed: a writer
 * interrupted at each instruction by one whose clock is ahead, then a
 * step back; the same on a persistent buffer and its next boot; a clock
 * change while a CPU is offline.  Registered with the unit and range
 * cases (unit_clock_*, range_clock_back_nested).
 */
#include "rb_test.h"
#include <sys/wait.h>

static struct trace_buffer *s_alloc(unsigned long size, unsigned int flags)
{
	struct trace_buffer *b = ring_buffer_alloc(size, flags);

	if (b)
		ring_buffer_set_clock(b, t_clock);
	return b;
}

static int s_write(struct trace_buffer *b, unsigned int len, u32 seed)
{
	static __thread u8 buf[512];

	t_fill(buf, len, seed);
	return ring_buffer_write(b, len, buf);
}

/* Consume every event of @cpu; 0 when stamps never go back, else a code. */
static int s_consume_mono(struct trace_buffer *b, int cpu, int *nr, int verbose)
{
	struct ring_buffer_event *e;
	u64 ts, last = 0;
	int n = 0, bad = 0;

	while ((e = ring_buffer_consume(b, cpu, &ts, NULL))) {
		if (verbose)
			printf("#   event %d ts %llu\n", n, (unsigned long long)ts);
		if (ts < last && !bad)
			bad = n + 1;
		last = ts;
		n++;
	}
	if (nr)
		*nr = n;
	return bad;
}

/* ------------------------------------------------------------------ */
/*
 * A task writer A (clock 2000) is interrupted at every instruction of its
 * write by an irq that writes B at clock 3000.  Where the irq lands
 * between A's claim and A's store of cb->stamp, A's store leaves stamp =
 * 2000 behind B.  The clock then steps back to 2500 and the task writes
 * C: it must not be stamped before B (a fast path that stored its 2500 in
 * cb->floor before its checks, over B's 3000, let the slow path do so).
 */
static struct trace_buffer *s_fl_b;

static void s_fl_irq(void)
{
	sim_ctx.pc += HARDIRQ_OFFSET;
	t_clock_set(3000);
	if (s_write(s_fl_b, 16, 2))
		_exit(30);
	sim_ctx.pc -= HARDIRQ_OFFSET;
}

static int s_fl_child(void)
{
	int n, bad;

	t_clock_set(2500);
	if (s_write(s_fl_b, 16, 3))
		return 31;
	bad = s_consume_mono(s_fl_b, 0, &n, getenv("RB_CLOCK_VERBOSE") != NULL);
	if (n != 8)
		return 32;
	return bad ? 40 : 0;
}

int clock_back_nested(void)
{
#if !defined(__x86_64__)
	T_SKIP("the instruction sweep single-steps with the x86-64 trap flag");
#else
	long points, first_bad, tol;
	int status, ret, n, bad;

	sim_bind(0);
	s_fl_b = s_alloc(64 * 1024, RB_FL_OVERWRITE);
	T_ASSERT(s_fl_b);
	t_clock_set(1000);
	for (int i = 0; i < 5; i++)
		T_EQ(s_write(s_fl_b, 16, 1), 0);
	t_clock_set(2000);
	T_ASSERT(sim_step_sweep(s_fl_irq, 40));
	ret = s_write(s_fl_b, 16, 9);
	if (sim_step_end())
		_exit(ret ? 28 : s_fl_child());
	points = sim_step_results(&first_bad, &status, &tol);
	printf("# %ld interrupt points, %ld of them make a stamp go back\n", points, tol);
	if (tol)
		T_FAIL("stamps go back after a clock step back (%ld irq points)", tol);
	if (first_bad) {
		int code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);

		printf("# irq after instruction %ld of the task's write: exit %d%s\n",
		       first_bad, code, code == 40 ? " (a stamp went back)" : "");
		T_FAIL("stamps go back after a clock step back");
	}
	T_ASSERT(points > 20);
	/* the sweep's own parent saw no irq: check it too */
	t_clock_set(2500);
	T_EQ(s_write(s_fl_b, 16, 3), 0);
	bad = s_consume_mono(s_fl_b, 0, &n, 0);
	T_EQ(bad, 0);
	ring_buffer_free(s_fl_b);
	return 0;
#endif
}


/*
 * The same with a persistent buffer: the next boot must keep every
 * event, no stamp found going back inside the sub-buffer.
 */
static struct t_area s_pa;
static char s_log[1 << 16];

static struct trace_buffer *s_boot(struct t_area *a)
{
	struct trace_buffer *b;

	sim_log_capture(s_log, sizeof(s_log));
	b = ring_buffer_alloc_range(1UL << 20, RB_FL_OVERWRITE, 0,
				    (unsigned long)a->start, a->size);
	sim_log_capture(NULL, 0);
	if (b)
		ring_buffer_set_clock(b, t_clock);
	return b;
}

static int s_pfl_child(void)
{
	struct trace_buffer *b;
	unsigned long lost;
	int n = 0, code = 0;

	t_clock_set(2500);
	if (s_write(s_fl_b, 16, 3))
		return 31;
	/* crash: the next boot */
	sim_reboot_ctx();
	sim_bind(0);
	b = s_boot(&s_pa);
	if (!b)
		return 33;
	while (ring_buffer_consume(b, 0, NULL, &lost)) {
		if (lost)
			code = 41;
		n++;
	}
	if (strstr(s_log, "go back") || strstr(s_log, "lost")) {
		printf("# child: boot log: %s", s_log);
		code = code ? code : 42;
	}
	if (n != 8) {
		printf("# child: %d events of 8 kept\n", n);
		code = code ? code : 43;
	}
	return code;
}

int clock_back_nested_range(void)
{
#if !defined(__x86_64__)
	T_SKIP("the instruction sweep single-steps with the x86-64 trap flag");
#else
	long points, first_bad, tol;
	int status, ret;

	sim_bind(0);
	T_ASSERT(!t_area_get(&s_pa, 4 * 8));
	memset(s_pa.start, 0, s_pa.size);
	s_fl_b = s_boot(&s_pa);
	T_ASSERT(s_fl_b);
	t_clock_set(1000);
	for (int i = 0; i < 5; i++)
		T_EQ(s_write(s_fl_b, 16, 1), 0);
	t_clock_set(2000);
	T_ASSERT(sim_step_sweep(s_fl_irq, 0));
	ret = s_write(s_fl_b, 16, 9);
	if (sim_step_end())
		_exit(ret ? 28 : s_pfl_child());
	points = sim_step_results(&first_bad, &status, &tol);
	printf("# %ld interrupt points\n", points);
	if (first_bad) {
		int code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);

		printf("# irq after instruction %ld of the task's write: exit %d\n",
		       first_bad, code);
		T_FAIL("the next boot does not keep every event");
	}
	T_ASSERT(points > 20);
	ring_buffer_free(s_fl_b);
	t_area_put(&s_pa);
	return 0;
#endif
}

/*
 * trace.c's clock change: ring_buffer_set_clock(), then
 * ring_buffer_reset_online_cpus().  A CPU that is offline then keeps its
 * ring, its cb->stamp and cb->floor from the old clock.  Back online, its
 * events may keep the old clock's last stamp within the sub-buffer it is
 * in (stamps never go back within one), but a new sub-buffer starts at
 * the new clock, as 6.12's pages do: the last event carries the new
 * clock's time.
 */
static u64 s_new_now;

static u64 s_clock_new(void)
{
	return __atomic_load_n(&s_new_now, __ATOMIC_RELAXED);
}

int clock_change_offline_cpu(void)
{
	struct trace_buffer *b;
	struct ring_buffer_event *e;
	u64 ts, last_ts = 0, first_new = 0;
	int n = 0, i;

	sim_bind(0);
	b = s_alloc(64 * PAGE_SIZE, RB_FL_OVERWRITE);
	T_ASSERT(b);
	/* old clock: large values (x86-tsc, say) */
	t_clock_set(1000000000000ULL);
	sim_bind(1);
	for (i = 0; i < 20; i++)
		T_EQ(s_write(b, 16, i), 0);
	sim_bind(0);
	sim_cpu_down(1);
	/* echo uptime > trace_clock: set_clock, then reset of online CPUs */
	s_new_now = 5000;
	ring_buffer_set_clock(b, s_clock_new);
	ring_buffer_reset_online_cpus(b);
	T_EQ(sim_cpu_up(1), 0);
	sim_bind(1);
	for (i = 0; i < 200; i++) {
		s_new_now = 5000 + i * 10;
		T_EQ(s_write(b, 100, i), 0);
	}
	sim_bind(0);
	while ((e = ring_buffer_consume(b, 1, &ts, NULL))) {
		if (n == 20)
			first_new = ts;
		last_ts = ts;
		n++;
	}
	T_EQ(n, 220);
	printf("# first event under the new clock: ts %llu, last: %llu (new clock ends at %llu)\n",
	       (unsigned long long)first_new, (unsigned long long)last_ts,
	       (unsigned long long)s_new_now);
	ring_buffer_free(b);
	if (last_ts != s_new_now)
		T_FAIL("the last event's stamp %llu is not the new clock's %llu",
		       (unsigned long long)last_ts, (unsigned long long)s_new_now);
	return 0;
}
