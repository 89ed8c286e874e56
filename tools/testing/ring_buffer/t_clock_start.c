// SPDX-License-Identifier: GPL-2.0
/*
 * Time stamps at the start of a sub-buffer, where the floor may go down
 * (a new clock) or was left by the lap before (a reset):
 * unit_clock_change_irq_in_move_discard, unit_clock_back_irq_nmi_reset,
 * unit_clock_change_offline_lapped and unit_clock_swap_other_clock.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <ucontext.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "rb_test.h"
#ifndef RB_STOCK
#include "../../../kernel/trace/ring_buffer_internal.h"
#endif

static u64 cst_new_now;

static u64 cst_clock_new(void)
{
	return __atomic_load_n(&cst_new_now, __ATOMIC_RELAXED);
}

static int cst_write(struct trace_buffer *b, unsigned int len, u32 seed)
{
	static __thread u8 buf[4096];

	t_fill(buf, len, seed);
	return ring_buffer_write(b, len, buf);
}

static int cst_drain(struct trace_buffer *b, int cpu, u64 *first, u64 *last, int verbose)
{
	u64 ts;
	int n = 0;

	while (ring_buffer_consume(b, cpu, &ts, NULL)) {
		if (verbose)
			printf("#   event %d ts %llu\n", n, (unsigned long long)ts);
		if (!n && first)
			*first = ts;
		if (last)
			*last = ts;
		n++;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/*
 * As unit_clock_change_irq_in_move, but the event right before the move
 * was reserved and discarded (an event filter does this all the time):
 * the discard rolls write back and leaves stamp_pos NONE with cb->stamp
 * the old clock's.  A moves (new clock: ts = raw), an irq lands between
 * A's rb_move() and A's rb_claimed().  When the last stamp counted with
 * stamp_pos NONE, the irq took the old clock's and raised the new
 * sub-buffer's floor to it, and every later move copied that floor: the
 * stamps stayed at the old clock for good (197 of 1,723 points; stock 0).
 */
static struct trace_buffer *cst_mv_b;
static int cst_mv_nested;

static void cst_mv_irq(void)
{
	sim_ctx.pc += HARDIRQ_OFFSET;
	cst_new_now += 5;
	if (cst_write(cst_mv_b, 16, 2))
		_exit(30);
	sim_ctx.pc -= HARDIRQ_OFFSET;
}

static int cst_mv_child(void)
{
	u64 first = 0, last = 0;
	int n, i;

	for (i = 0; i < 300; i++) {
		cst_new_now = 100000 + i * 10;
		if (cst_write(cst_mv_b, 100, i))
			return 31;
	}
	n = cst_drain(cst_mv_b, 1, &first, &last, getenv("RB_CLOCK_VERBOSE") != NULL);
	if (n < 300)
		return 32;
	if (last != cst_new_now) {
		if (getenv("RB_CLOCK_VERBOSE") || getenv("RB_CLOCK_POINT"))
			printf("# child: last stamp %llu, clock %llu\n",
			       (unsigned long long)last, (unsigned long long)cst_new_now);
		return 40;
	}
	return 0;
}

static long cst_only;
static int cst_only_point(long p) { return p == cst_only; }

int clock_change_irq_in_move_discard(void)
{
#if !defined(__x86_64__)
	T_SKIP("x86-64 only");
#else
	struct ring_buffer_event *e;
	long points, first_bad, tol;
	int status, ret, i;

	sim_bind(0);
	cst_mv_b = ring_buffer_alloc(64 * PAGE_SIZE, RB_FL_OVERWRITE);
	T_ASSERT(cst_mv_b);
	ring_buffer_set_clock(cst_mv_b, t_clock);
	t_clock_set(1000000000000ULL);
	sim_bind(1);
	for (i = 0; i < 20; i++)
		T_EQ(cst_write(cst_mv_b, 100, i), 0);
	sim_bind(0);
	sim_cpu_down(1);
	cst_new_now = 5000;
	ring_buffer_set_clock(cst_mv_b, cst_clock_new);
	ring_buffer_reset_online_cpus(cst_mv_b);
	T_EQ(sim_cpu_up(1), 0);
	sim_bind(1);
	/* 39 events of 100 bytes fill a 4 KiB sub-buffer, 24 bytes left */
	for (i = 20; i < 39; i++)
		T_EQ(cst_write(cst_mv_b, 100, i), 0);
	/* a filtered event: reserved, then discarded (write rolls back) */
	e = ring_buffer_lock_reserve(cst_mv_b, 16);
	T_ASSERT(e);
	ring_buffer_discard_commit(cst_mv_b, e);
	/* A: does not fit, moves */
	cst_only = getenv("RB_CLOCK_POINT") ? atol(getenv("RB_CLOCK_POINT")) : 0;
	sim_step_filter = cst_only ? cst_only_point : NULL;
	T_ASSERT(sim_step_sweep(cst_mv_irq, 40));
	ret = cst_write(cst_mv_b, 100, 99);
	if (sim_step_end())
		_exit(ret ? 28 : cst_mv_child());
	points = sim_step_results(&first_bad, &status, &tol);
	sim_step_filter = NULL;
	printf("# %ld interrupt points, at %ld of them the stamps stay at the old clock for good\n",
	       points, tol);
	if (tol)
		T_FAIL("an irq in a move after a discard, under a new clock, freezes the stamps at the old clock (%ld points)",
		       tol);
	if (first_bad) {
		int code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);

		T_FAIL("irq after instruction %ld: exit %d", first_bad, code);
	}
	sim_bind(0);
	ring_buffer_free(cst_mv_b);
	return 0;
#endif
}

/* ------------------------------------------------------------------ */
/*
 * A start after a reset, a clock that went back.  A lap at clock 5000
 * leaves every slot's floor at 5000; the clock steps back to 1000 and
 * the CPU is reset.  Task writer W starts the ring at clock 1000.  An irq
 * lands at each instruction of W and writes A at clock 2000 (a start);
 * an NMI inside A's claim window writes B at clock 5000, and the clock is
 * back at 2000; A's stamp store after B's leaves the stamp pair at 2000.
 * While a reset left the floors and let a start lower them, A took the
 * floor 5000 -> 2000 and B back to 5000, the very value W had read, so
 * W's cmpxchg 5000 -> 1000 succeeded (an ABA), its claim failed, and its
 * retry stamped W at 2000 behind B's 5000 in the same sub-buffer (26 of
 * 1,222 points).  A reset now zeroes the floors: nothing is lowered.
 */
#if defined(__x86_64__) && !defined(RB_STOCK)
extern const char __start_rb_text[] __attribute__((weak));
extern const char __stop_rb_text[] __attribute__((weak));
#define CST_TF 0x100UL

static struct trace_buffer *cst_ab_b;
static u64 cst_ab_w0;
static int cst_ab_done;

static struct rb_cpu *cst_ab_cb(void)
{
	return per_cpu_ptr(cst_ab_b->slots, 0)->cb;
}

static void cst_ab_trap(int sig, siginfo_t *si, void *ucp)
{
	ucontext_t *uc = ucp;
	unsigned long ip = uc->uc_mcontext.gregs[REG_RIP];
	struct rb_cpu *cb = cst_ab_cb();
	u64 w;

	(void)sig;
	(void)si;
	if (cst_ab_done) {
		uc->uc_mcontext.gregs[REG_EFL] &= ~CST_TF;
		return;
	}
	if (__start_rb_text && (ip < (unsigned long)__start_rb_text ||
				ip >= (unsigned long)__stop_rb_text))
		return;
	w = local64_read(&cb->write);
	/* A's claim window: write moved, A's stamp_pos not stored yet */
	if (w == cst_ab_w0 || READ_ONCE(cb->stamp_pos) == w)
		return;
	cst_ab_done = 1;
	uc->uc_mcontext.gregs[REG_EFL] &= ~CST_TF;
	/* the NMI */
	sim_ctx.pc += NMI_OFFSET + HARDIRQ_OFFSET;
	t_clock_set(5000);
	if (cst_write(cst_ab_b, 16, 5))
		_exit(31);
	t_clock_set(2000);	/* the clock steps back */
	sim_ctx.pc -= NMI_OFFSET + HARDIRQ_OFFSET;
}

static void cst_ab_irq(void)
{
	struct sigaction sa, old;
	sigset_t set;
	int ret;

	sim_ctx.pc += HARDIRQ_OFFSET;
	t_clock_set(2000);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = cst_ab_trap;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTRAP, &sa, &old);
	sigemptyset(&set);
	sigaddset(&set, SIGTRAP);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	cst_ab_done = 0;
	cst_ab_w0 = local64_read(&cst_ab_cb()->write);
	__asm__ volatile("pushfq; orq %0, (%%rsp); popfq" : : "i"(CST_TF) : "memory", "cc");
	ret = cst_write(cst_ab_b, 16, 4);
	__asm__ volatile("pushfq; andq %0, (%%rsp); popfq" : : "i"(~CST_TF) : "memory", "cc");
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigaction(SIGTRAP, &old, NULL);
	if (ret)
		_exit(30);
	sim_ctx.pc -= HARDIRQ_OFFSET;
}

static int cst_ab_check(void)
{
	u64 ts, last = 0;
	int n = 0, bad = 0, v = getenv("RB_CLOCK_VERBOSE") != NULL;

	while (ring_buffer_consume(cst_ab_b, 0, &ts, NULL)) {
		if (v)
			printf("#   event %d ts %llu\n", n, (unsigned long long)ts);
		if (ts < last)
			bad = 1;
		last = ts;
		n++;
	}
	return bad ? 40 : 0;
}
#endif

int clock_back_irq_nmi_reset(void)
{
#if !defined(__x86_64__) || defined(RB_STOCK)
	T_SKIP("x86-64 sweep; the NMI point is picked white-box (ours)");
#else
	long points, first_bad, tol;
	int status, ret, i;

	sim_bind(0);
	cst_ab_b = ring_buffer_alloc(16 * PAGE_SIZE, RB_FL_OVERWRITE);
	T_ASSERT(cst_ab_b);
	ring_buffer_set_clock(cst_ab_b, t_clock);
	/* a lap and more at clock 5000: every floor is 5000 */
	t_clock_set(5000);
	for (i = 0; i < 2 * 16 * 40; i++)
		T_EQ(cst_write(cst_ab_b, 100, i), 0);
	/* the clock steps back, the CPU is reset (echo > trace) */
	t_clock_set(1000);
	ring_buffer_reset_cpu(cst_ab_b, 0);
	cst_only = getenv("RB_CLOCK_POINT") ? atol(getenv("RB_CLOCK_POINT")) : 0;
	sim_step_filter = cst_only ? cst_only_point : NULL;
	T_ASSERT(sim_step_sweep(cst_ab_irq, 40));
	ret = cst_write(cst_ab_b, 16, 9);
	if (sim_step_end())
		_exit(ret ? 28 : cst_ab_check());
	points = sim_step_results(&first_bad, &status, &tol);
	sim_step_filter = NULL;
	printf("# %ld irq points, at %ld of them a stamp goes back within a sub-buffer\n",
	       points, tol);
	if (tol)
		T_FAIL("a start's floor cmpxchg succeeds on an ABA floor and lowers it below the NMI's claimed stamp (%ld points)",
		       tol);
	if (first_bad) {
		int code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);

		T_FAIL("irq after instruction %ld: exit %d", first_bad, code);
	}
	T_EQ(cst_ab_check(), 0);
	ring_buffer_free(cst_ab_b);
	return 0;
#endif
}

/* ------------------------------------------------------------------ */
static struct trace_buffer *cst_alloc(unsigned long size, unsigned int flags)
{
	struct trace_buffer *b = ring_buffer_alloc(size, flags);

	if (b)
		ring_buffer_set_clock(b, t_clock);
	return b;
}



/*
 * trace.c's clock change (set_clock, then reset of the online CPUs) while
 * CPU 1 is offline, its ring having lapped under the old clock (whose
 * values are large: x86-tsc, say).  Back online, CPU 1 writes many
 * sub-buffers under the new clock.  The last event must carry the new
 * clock's time (stock: it does after the first page).  While the floors
 * were per sub-buffer, the second move took the floor the old lap left
 * in its slot: all 176 events read stayed at the old clock.
 */
int clock_change_offline_lapped(void)
{
	struct trace_buffer *b;
	struct ring_buffer_event *e;
	u64 ts, last_ts = 0;
	int n = 0, i, nold = 0;

	sim_bind(0);
	b = cst_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	T_ASSERT(b);
	t_clock_set(1000000000000ULL);
	sim_bind(1);
	/* lap the small ring a few times under the old clock */
	for (i = 0; i < 400; i++) {
		t_clock_set(1000000000000ULL + i);
		T_EQ(cst_write(b, 100, i), 0);
	}
	sim_bind(0);
	sim_cpu_down(1);
	cst_new_now = 5000;
	ring_buffer_set_clock(b, cst_clock_new);
	ring_buffer_reset_online_cpus(b);
	T_EQ(sim_cpu_up(1), 0);
	sim_bind(1);
	for (i = 0; i < 400; i++) {
		cst_new_now = 5000 + i * 10;
		T_EQ(cst_write(b, 100, i), 0);
	}
	sim_bind(0);
	while ((e = ring_buffer_consume(b, 1, &ts, NULL))) {
		if (ts >= 1000000000000ULL)
			nold++;
		last_ts = ts;
		n++;
	}
	printf("# %d events read, %d at the old clock; last ts %llu, new clock %llu\n",
	       n, nold, (unsigned long long)last_ts, (unsigned long long)cst_new_now);
	ring_buffer_free(b);
	if (last_ts != cst_new_now)
		T_FAIL("last stamp %llu is not the new clock's %llu: stamps frozen at the old clock",
		       (unsigned long long)last_ts, (unsigned long long)cst_new_now);
	return 0;
}

/*
 * ring_buffer_swap_cpu() between two buffers whose clocks differ (A's
 * far ahead of B's), each set once.  A's ring, lapped under A's clock,
 * goes to B; B's writer then writes many sub-buffers.  The last event
 * must carry B's clock (176 of 176 events carried A's while a count of
 * clock changes, equal in both buffers, told a new clock).
 */
int clock_swap_other_clock(void)
{
	struct trace_buffer *a, *b;
	u64 ts, last_ts = 0;
	int n = 0, i, nold = 0, ret;

	sim_bind(0);
	a = cst_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	b = ring_buffer_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	T_ASSERT(a && b);
	ring_buffer_set_clock(b, cst_clock_new);
	for (i = 0; i < 400; i++) {
		t_clock_set(1000000000000ULL + i);
		T_EQ(cst_write(a, 100, i), 0);
	}
	ret = ring_buffer_swap_cpu(a, b, 0);
	T_EQ(ret, 0);
	for (i = 0; i < 400; i++) {
		cst_new_now = 5000 + i * 10;
		T_EQ(cst_write(b, 100, i), 0);
	}
	while (ring_buffer_consume(b, 0, &ts, NULL)) {
		if (ts >= 1000000000000ULL)
			nold++;
		last_ts = ts;
		n++;
	}
	printf("# %d events read from B, %d at A's clock; last ts %llu, B's clock %llu\n",
	       n, nold, (unsigned long long)last_ts, (unsigned long long)cst_new_now);
	ring_buffer_free(a);
	ring_buffer_free(b);
	if (last_ts != cst_new_now)
		T_FAIL("last stamp %llu is not B's clock %llu: frozen at A's clock by the swapped ring's floors",
		       (unsigned long long)last_ts, (unsigned long long)cst_new_now);
	return 0;
}
