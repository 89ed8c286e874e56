// SPDX-License-Identifier: GPL-2.0
/*
 * Time stamps where the buffer's clock changes under a ring, or jumps far:
 * unit_clock_switch_fastpath_back, unit_clock_switch_swap_fastpath_back,
 * unit_clock_switch_producer_full, unit_clock_far_jump_producer_full,
 * unit_clock_switch_irq_in_move, unit_clock_far_jump_irq_in_move,
 * unit_clock_switch_producer_counts, unit_clock_switch_irq_in_write and
 * unit_clock_switch_irq_in_move_ahead.
 * Each failed (stock 6.12 passes each) while a new clock or a far jump
 * started a new sub-buffer at once.
 */
#include <sys/wait.h>
#include "rb_test.h"

static u64 csw_b_now;
static u64 csw_clock_b(void)
{
	return __atomic_load_n(&csw_b_now, __ATOMIC_RELAXED);
}

static int csw_write(struct trace_buffer *b, unsigned int len, u32 seed)
{
	static u8 buf[4096];

	t_fill(buf, len, seed);
	return ring_buffer_write(b, len, buf);
}

/* Read every event of @cpu; fail when a stamp goes back. */
static int csw_drain_mono(struct trace_buffer *b, int cpu, int *n, u64 *last)
{
	u64 ts, prev = 0;
	int k = 0, bad = 0;

	while (ring_buffer_consume(b, cpu, &ts, NULL)) {
		if (getenv("RB_CLOCK_VERBOSE"))
			printf("#   event %d ts %llu\n", k, (unsigned long long)ts);
		if (k && ts < prev) {
			printf("# event %d: stamp %llu after %llu (went back)\n", k,
			       (unsigned long long)ts, (unsigned long long)prev);
			bad = 1;
		}
		prev = ts;
		k++;
	}
	*n = k;
	if (last)
		*last = prev;
	return bad;
}

/*
 * ring_buffer_set_clock() to clock B, B a little past the floor, then B
 * steps back a little (as a clock may): the floor holds the stamps.  When
 * the fast path took events under B into A's sub-buffer without looking
 * at the clock, a later start lowered the floor and a stamp under B went
 * back behind an earlier one under B.  Stock holds it.
 */
int clock_switch_fastpath_back(void)
{
	struct trace_buffer *b;
	u64 last;
	int i, n, bad;

	sim_bind(0);
	b = ring_buffer_alloc(16 * PAGE_SIZE, RB_FL_OVERWRITE);
	T_ASSERT(b);
	ring_buffer_set_clock(b, t_clock);
	t_clock_set(1000000);
	for (i = 0; i < 5; i++) {
		t_clock_set(1000000 + i * 100);
		T_EQ(csw_write(b, 16, i), 0);
	}
	/* clock B: just past the last stamp (1000400) */
	csw_b_now = 1000500;
	ring_buffer_set_clock(b, csw_clock_b);
	for (i = 0; i < 5; i++) {
		csw_b_now = 1000500 + i * 100;		/* up to 1000900 */
		T_EQ(csw_write(b, 16, 10 + i), 0);
	}
	/* clock B steps back 300 ns */
	csw_b_now = 1000600;
	for (i = 0; i < 3; i++)
		T_EQ(csw_write(b, 16, 20 + i), 0);
	bad = csw_drain_mono(b, 0, &n, &last);
	ring_buffer_free(b);
	T_EQ(n, 13);
	if (bad)
		T_FAIL("stamps under clock B went back (not across the change)");
	return 0;
}

/*
 * A producer-mode buffer whose ring is full but for a few events' room in
 * the writer's sub-buffer: fill a first buffer until refused (N events),
 * then write N - 5 into a second one.  @t_last (if not NULL): the clock
 * of the last event written.
 */
static struct trace_buffer *csw_full_but_room(u64 *t_last)
{
	struct trace_buffer *b;
	int i, n;

	b = ring_buffer_alloc(2 * PAGE_SIZE, 0);
	if (!b)
		return NULL;
	ring_buffer_set_clock(b, t_clock);
	for (n = 0; n < 100000; n++) {
		t_clock_set(1000000000 + n * 10);
		if (csw_write(b, 100, n))
			break;
	}
	ring_buffer_free(b);
	b = ring_buffer_alloc(2 * PAGE_SIZE, 0);
	if (!b)
		return NULL;
	ring_buffer_set_clock(b, t_clock);
	for (i = 0; i < n - 5; i++) {
		t_clock_set(1000000000 + i * 10);
		if (t_last)
			*t_last = 1000000000 + i * 10;
		if (csw_write(b, 100, i)) {
			ring_buffer_free(b);
			return NULL;
		}
	}
	return b;
}

/*
 * Producer mode, ring full but for the room left in the writer's
 * sub-buffer.  The clock is changed (to a clock behind the floor): the
 * start a new clock asks for is refused (the ring is full); the events
 * that fit are written in the old sub-buffer, their stamps held (they
 * were all dropped, each forcing a start again).  Stock writes them.
 */
int clock_switch_producer_full(void)
{
	struct trace_buffer *b;
	unsigned long written = 0, before;
	int i;

	sim_bind(0);
	b = csw_full_but_room(NULL);
	T_ASSERT(b);
	before = ring_buffer_entries_cpu(b, 0);
	csw_b_now = 5000;
	ring_buffer_set_clock(b, csw_clock_b);
	for (i = 0; i < 4; i++) {
		csw_b_now += 10;
		if (!csw_write(b, 100, 1000 + i))
			written++;
	}
	printf("# entries before %lu; events that fit, written after the clock change: %lu of 4 (entries %lu, dropped %lu)\n",
	       before, written, ring_buffer_entries_cpu(b, 0), ring_buffer_dropped_events_cpu(b, 0));
	ring_buffer_free(b);
	if (written != 4)
		T_FAIL("events that fit were dropped (a start forced again and again)");
	return 0;
}

/*
 * Producer mode, a far jump (> 2^57 ns) of the clock while the ring is
 * full but for room in the writer's sub-buffer: the events that fit are
 * written (when a far jump forced a start, each was refused).  Stock
 * writes them (time extend).
 */
int clock_far_jump_producer_full(void)
{
	struct trace_buffer *b;
	unsigned long written = 0;
	int i;

	sim_bind(0);
	b = csw_full_but_room(NULL);
	T_ASSERT(b);
	for (i = 0; i < 4; i++) {
		t_clock_set((1ULL << 58) + 12345 + i);
		if (!csw_write(b, 100, 1000 + i))
			written++;
	}
	printf("# events that fit, written after the jump: %lu of 4 (dropped %lu)\n", written,
	       ring_buffer_dropped_events_cpu(b, 0));
	ring_buffer_free(b);
	if (written != 4)
		T_FAIL("events that fit were dropped after a far jump");
	return 0;
}

/*
 * A start under a new clock (or after a far jump), an NMI at each of its
 * instructions.  The task writer W starts sub-buffer 1 (rb_move()); an
 * NMI inside W's claim must write behind W's event, not start yet
 * another sub-buffer: in a ring of two that start laps the uncommitted
 * sub-buffer and the NMI's event is refused (commit overrun; 195 of
 * 1,532 points did when the CPU's clock was stored after the claim).
 * Stock writes it.
 */
static struct trace_buffer *csw_nb;

static void csw_nmi(void)
{
	sim_ctx.pc += NMI_OFFSET + HARDIRQ_OFFSET;
	(void)csw_write(csw_nb, 16, 77);
	sim_ctx.pc -= NMI_OFFSET + HARDIRQ_OFFSET;
}

static int csw_nmi_child(int expect)
{
	unsigned long e = ring_buffer_entries_cpu(csw_nb, 0);
	unsigned long co = ring_buffer_commit_overrun_cpu(csw_nb, 0);
	unsigned long ov = ring_buffer_overrun_cpu(csw_nb, 0);
	unsigned long dr = ring_buffer_dropped_events_cpu(csw_nb, 0);

	if (e != expect || co || ov || dr) {
		if (getenv("RB_CLOCK_VERBOSE"))
			printf("# child: entries %lu (expected %d) commit_overrun %lu overrun %lu dropped %lu\n",
			       e, expect, co, ov, dr);
		return 40;
	}
	return 0;
}

static int csw_nmi_sweep(u64 b_now, const char *what)
{
#if !defined(__x86_64__)
	T_SKIP("x86-64 only");
#else
	long points, first_bad, tol;
	int status, ret, i;

	sim_bind(0);
	csw_nb = ring_buffer_alloc(PAGE_SIZE, RB_FL_OVERWRITE);
	T_ASSERT(csw_nb);
	ring_buffer_set_clock(csw_nb, t_clock);
	t_clock_set(1000000000);
	for (i = 0; i < 5; i++)
		T_EQ(csw_write(csw_nb, 16, i), 0);
	if (b_now) {
		csw_b_now = b_now;
		ring_buffer_set_clock(csw_nb, csw_clock_b);
	} else {
		t_clock_set(1000000000 + (1ULL << 58));	/* far jump */
	}
	T_ASSERT(sim_step_sweep(csw_nmi, 40));
	ret = csw_write(csw_nb, 16, 99);
	if (sim_step_end())
		_exit(ret ? 30 : csw_nmi_child(7));
	points = sim_step_results(&first_bad, &status, &tol);
	T_EQ(ret, 0);
	printf("# %s: %ld NMI points, at %ld of them an event was refused or pushed out\n",
	       what, points, tol);
	ring_buffer_free(csw_nb);
	if (tol)
		T_FAIL("an NMI inside a forced start starts another sub-buffer (%ld points)", tol);
	if (first_bad) {
		int code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);

		T_FAIL("NMI after instruction %ld: exit %d", first_bad, code);
	}
	return 0;
#endif
}

int clock_switch_irq_in_move(void)
{
	return csw_nmi_sweep(5000, "new clock");
}

int clock_far_jump_irq_in_move(void)
{
	return csw_nmi_sweep(0, "far jump");
}

/*
 * The same through ring_buffer_swap_cpu(): a ring swapped into a buffer
 * whose clock differs, that clock stepping back a little later.
 */
int clock_switch_swap_fastpath_back(void)
{
	struct trace_buffer *a, *b;
	int i, n, bad;

	sim_bind(0);
	a = ring_buffer_alloc(16 * PAGE_SIZE, RB_FL_OVERWRITE);
	b = ring_buffer_alloc(16 * PAGE_SIZE, RB_FL_OVERWRITE);
	T_ASSERT(a && b);
	ring_buffer_set_clock(a, t_clock);
	ring_buffer_set_clock(b, csw_clock_b);
	for (i = 0; i < 5; i++) {
		t_clock_set(1000000 + i * 100);
		T_EQ(csw_write(a, 16, i), 0);
	}
	T_EQ(ring_buffer_swap_cpu(a, b, 0), 0);
	for (i = 0; i < 5; i++) {
		csw_b_now = 1000500 + i * 100;
		T_EQ(csw_write(b, 16, 10 + i), 0);
	}
	csw_b_now = 1000600;
	for (i = 0; i < 3; i++)
		T_EQ(csw_write(b, 16, 20 + i), 0);
	bad = csw_drain_mono(b, 0, &n, NULL);
	ring_buffer_free(a);
	ring_buffer_free(b);
	T_EQ(n, 13);
	if (bad)
		T_FAIL("stamps under buffer b's clock went back");
	return 0;
}

/* ------------------------------------------------------------------ */

/* Consume CPU 0: index+1 of the first stamp that goes back, else 0. */
static int csx_mono(struct trace_buffer *b, int *nr, int verbose)
{
	u64 ts, last = 0;
	int n = 0, bad = 0;

	while (ring_buffer_consume(b, 0, &ts, NULL)) {
		if (verbose)
			printf("#   event %d ts %llu\n", n, (unsigned long long)ts);
		if (n && ts < last && !bad)
			bad = n + 1;
		last = ts;
		n++;
	}
	*nr = n;
	return bad;
}

/*
 * Producer mode, ring full but for room in the writer's sub-buffer; the
 * clock changes: the events that fit are written, and counted so: 4
 * written, 0 dropped (stock: the same; 4 dropped while a new clock forced
 * a start that was refused and counted before the event stayed).
 */
int clock_switch_producer_counts(void)
{
	struct trace_buffer *b;
	unsigned long written = 0, before, after, dropped;
	u64 tl;
	int i;

	sim_bind(0);
	b = csw_full_but_room(&tl);
	T_ASSERT(b);
	before = ring_buffer_entries_cpu(b, 0);
	csw_b_now = 5000;
	ring_buffer_set_clock(b, csw_clock_b);
	for (i = 0; i < 4; i++) {
		csw_b_now += 10;
		if (!csw_write(b, 100, 1000 + i))
			written++;
	}
	after = ring_buffer_entries_cpu(b, 0);
	dropped = ring_buffer_dropped_events_cpu(b, 0);
	printf("# written %lu of 4, entries %lu -> %lu, dropped %lu\n",
	       written, before, after, dropped);
	ring_buffer_free(b);
	T_EQ(after - before, written);
	if (dropped != 4 - written)
		T_FAIL("dropped %lu but only %lu of 4 events were not written",
		       dropped, 4 - written);
	return 0;
}

#if defined(__x86_64__)
static struct trace_buffer *csx_b;

/* irq: the clock is changed (to B, behind) and an event is written. */
static void csx_irq_switch(void)
{
	sim_ctx.pc += HARDIRQ_OFFSET;
	ring_buffer_set_clock(csx_b, csw_clock_b);
	if (csw_write(csx_b, 16, 77))
		_exit(31);
	sim_ctx.pc -= HARDIRQ_OFFSET;
}

static int csx_child_mono(void)
{
	int n, bad = csx_mono(csx_b, &n, !!getenv("RB_CLOCK_VERBOSE"));

	return bad ? 40 : 0;
}
#endif

/*
 * F2: producer mode, ring full but for room in the writer's sub-buffer.
 * A task writes under clock A (1000 ns past the last stamp); an irq at
 * each of its instructions switches the clock to B (far behind) and
 * writes.  The irq's start is refused, its event stays in the old
 * sub-buffer, "its stamp held at max(floor, last stamp)".  The floor
 * restore in rb_reserve_slow() compares against f, which the successful
 * cmpxchg left at f0: the floor stays at B's raw value.  An irq after the
 * task's claim and before its cb->stamp store then stamps its event
 * max(B, stamp before the task's), behind the task's event in the same
 * sub-buffer.
 */
int clock_switch_irq_in_write(void)
{
#if !defined(__x86_64__)
	T_SKIP("x86-64 only");
#else
	long points, first_bad, tol;
	int status, ret, n;
	u64 tl;

	sim_bind(0);
	csx_b = csw_full_but_room(&tl);
	T_ASSERT(csx_b);
	/* drain nothing: keep the ring full */
	csw_b_now = 5000;
	t_clock_set(tl + 1000);
	T_ASSERT(sim_step_sweep(csx_irq_switch, 40));
	ret = csw_write(csx_b, 16, 99);
	if (sim_step_end())
		_exit(ret ? 30 : csx_child_mono());
	points = sim_step_results(&first_bad, &status, &tol);
	T_EQ(ret, 0);
	(void)n;
	printf("# %ld irq points, at %ld of them a stamp went back inside one sub-buffer\n",
	       points, tol);
	ring_buffer_free(csx_b);
	if (tol)
		T_FAIL("stamp went back in the old sub-buffer after a refused start (%ld points)", tol);
	if (first_bad) {
		int code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);

		T_FAIL("irq after instruction %ld: exit %d", first_bad, code);
	}
	return 0;
#endif
}

#if defined(__x86_64__)
static u64 csx_b_back;
/* irq: switch to B (ahead of A), write, then B steps back a little. */
static void csx_irq_switch_back(void)
{
	sim_ctx.pc += HARDIRQ_OFFSET;
	ring_buffer_set_clock(csx_b, csw_clock_b);
	if (csw_write(csx_b, 16, 77))
		_exit(31);
	csw_b_now = csx_b_back;
	sim_ctx.pc -= HARDIRQ_OFFSET;
}

static int csx_child_b_mono(void)
{
	u64 ts, last = 0;
	int n = 0, bad = 0, verbose = !!getenv("RB_CLOCK_VERBOSE");

	/* A's events are all before B's start value: any going back is a bug */
	u64 all[64];

	while (ring_buffer_consume(csx_b, 0, &ts, NULL)) {
		if (n < 64)
			all[n] = ts;
		if (n && ts < last)
			bad = 1;
		last = ts;
		n++;
	}
	if (verbose && bad) {
		int k;

		printf("# bad child: overrun %lu entries %lu:", ring_buffer_overrun_cpu(csx_b, 0),
		       ring_buffer_entries_cpu(csx_b, 0));
		for (k = 37; k < n && k < 64; k++)
			printf(" %llu", (unsigned long long)all[k]);
		printf("\n");
	}
	if (n != 41)
		return 32;
	if (bad)
		return 40;
	/* the task's event must not sit alone: 3 sub-buffers at most */
	return 0;
}
#endif

/*
 * F3: overwrite mode, 4 sub-buffers.  39 events of 100 bytes under clock
 * A fill sub-buffer 0; a task then writes a 100-byte event, which moves.
 * An irq at each of its instructions switches to clock B (ahead of every
 * A stamp), writes (it starts sub-buffer 1 under B), and B then steps
 * back 100 ns.  If the irq lands between the task's floor cmpxchg and its
 * store of slot(seq+1)->clock, the task stores A over the irq's B; its
 * retry sees "another clock" in sub-buffer 1, forces a start of
 * sub-buffer 2 at raw B and lowers the floor: its stamp goes back behind
 * the irq's, under the same clock B with no change in between.
 */
int clock_switch_irq_in_move_ahead(void)
{
#if !defined(__x86_64__)
	T_SKIP("x86-64 only");
#else
	long points, first_bad, tol;
	int status, ret, i;

	sim_bind(0);
	csx_b = ring_buffer_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	T_ASSERT(csx_b);
	ring_buffer_set_clock(csx_b, t_clock);
	for (i = 0; i < 39; i++) {
		t_clock_set(1000000 + i * 10);
		T_EQ(csw_write(csx_b, 100, i), 0);
	}
	t_clock_set(1000000 + 39 * 10);
	csw_b_now = 5000000;
	csx_b_back = 5000000 - 100;
	T_ASSERT(sim_step_sweep(csx_irq_switch_back, 40));
	ret = csw_write(csx_b, 100, 99);
	if (sim_step_end())
		_exit(ret ? 30 : csx_child_b_mono());
	points = sim_step_results(&first_bad, &status, &tol);
	T_EQ(ret, 0);
	printf("# %ld irq points, at %ld of them a stamp under clock B went back\n",
	       points, tol);
	ring_buffer_free(csx_b);
	if (tol)
		T_FAIL("stamp under one clock went back after a stale sub-buffer clock (%ld points)", tol);
	if (first_bad) {
		int code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);

		T_FAIL("irq after instruction %ld: exit %d", first_bad, code);
	}
	return 0;
#endif
}
