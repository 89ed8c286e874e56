// SPDX-License-Identifier: GPL-2.0
/*
 * Time stamps under two levels of nesting, the clock stepping back:
 * unit_clock_back_irq_nmi and unit_clock_back_irq_nmi_move.
 *
 * A task writer W has read the clock (2000) and is about to raise the
 * CPU's floor to it (fast path after its checks, or slow path after its
 * loads).  An irq lands there and writes A at 2000; an NMI lands
 * inside A's claim window (after A's cmpxchg, before A's stamp store) and
 * writes B at 3000, then the clock is back at 2000.  After the irq,
 * cb->stamp is A's 2000, stamp_pos is not write, and only the floor
 * (3000, B's) carries B's stamp.  A plain store of W's 2000 over the floor
 * would lower it: W's retry would take max3(2000, floor 2000, stamp 2000)
 * and stamp its event C 2000, behind B's 3000 in the same sub-buffer
 * (864 of 15,864 NMI points did, when the floor was stored plainly).
 * In the _move case no event fits before W, so W and A both start the
 * next sub-buffer (A wins) and B lands in A's claim there (7,464 of
 * 41,640 points went back while a start could lower the floor).
 *
 * The sweep is two-level: the outer one (sim_step_sweep()) forks an irq at
 * each instruction of W; the irq single-steps its own write A with a
 * SIGTRAP handler of this file and forks an NMI at each instruction of A
 * (in rb_text; ours: only while stamp_pos != write, A's claim window).
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

#if defined(__x86_64__) && !defined(RB_STOCK)
extern const char __start_rb_text[] __attribute__((weak));
extern const char __stop_rb_text[] __attribute__((weak));

#define CN_TF 0x100UL

struct cn_shared {
	long inner_points;	/* NMIs forked */
	long inner_bad;		/* of them: a stamp went back */
	long inner_other;	/* of them: failed otherwise */
	int first_code;
	long outer_inner;	/* outer points whose irq forked an NMI */
};

static struct cn_shared *cn_sh;
static struct trace_buffer *cn_b;
static int cn_gchild;
static int cn_nmi_len = 16;

static int cn_write(struct trace_buffer *b, unsigned int len, u32 seed)
{
	static __thread u8 buf[4096];

	t_fill(buf, len, seed);
	return ring_buffer_write(b, len, buf);
}

/* Consume CPU 0: 1 + index of the first stamp that goes back, else 0. */
static int cn_consume_mono(struct trace_buffer *b, int *nr, int verbose)
{
	struct ring_buffer_event *e;
	u64 ts, last = 0;
	int n = 0, bad = 0;

	while ((e = ring_buffer_consume(b, 0, &ts, NULL))) {
		if (verbose)
			printf("#   event %d len %u ts %llu\n", n, ring_buffer_event_length(e),
			       (unsigned long long)ts);
		if (ts < last && !bad)
			bad = n + 1;
		last = ts;
		n++;
	}
	*nr = n;
	return bad;
}

#ifndef RB_STOCK
static u64 cn_w0;	/* write when the irq came */

static u64 cn_wpos(void)
{
	return local64_read(&per_cpu_ptr(cn_b->slots, 0)->cb->write);
}

/* A's claim window: A has moved write, its stamp_pos is not there yet. */
static int cn_window(void)
{
	struct rb_cpu *cb = per_cpu_ptr(cn_b->slots, 0)->cb;
	u64 w = local64_read(&cb->write);

	return w != cn_w0 && READ_ONCE(cb->stamp_pos) != w;
}
#endif

static void cn_nmi(void)
{
	sim_ctx.pc += NMI_OFFSET + HARDIRQ_OFFSET;
	t_clock_set(3000);
	if (cn_write(cn_b, cn_nmi_len, 5))
		_exit(31);
	t_clock_set(2000);	/* the clock steps back */
	sim_ctx.pc -= NMI_OFFSET + HARDIRQ_OFFSET;
}

static int cn_forked;

static void cn_trap(int sig, siginfo_t *si, void *ucp)
{
	ucontext_t *uc = ucp;
	unsigned long ip = uc->uc_mcontext.gregs[REG_RIP];
	pid_t pid;
	int st;

	(void)sig;
	(void)si;
	if (cn_gchild) {
		uc->uc_mcontext.gregs[REG_EFL] &= ~CN_TF;
		return;
	}
	if (__start_rb_text && (ip < (unsigned long)__start_rb_text ||
				ip >= (unsigned long)__stop_rb_text))
		return;
	/* the first 24 points of A's claim window: its stamp store is among them */
	if (!cn_window() || cn_forked >= 24)
		return;
	fflush(NULL);
	pid = sim_fork();
	if (pid == 0) {
		cn_gchild = 1;
		cn_nmi();
		uc->uc_mcontext.gregs[REG_EFL] &= ~CN_TF;
		return;
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		st = -1;
	cn_forked++;
	__atomic_fetch_add(&cn_sh->inner_points, 1, __ATOMIC_SEQ_CST);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 40) {
		__atomic_fetch_add(&cn_sh->inner_bad, 1, __ATOMIC_SEQ_CST);
	} else if (st) {
		if (!__atomic_fetch_add(&cn_sh->inner_other, 1, __ATOMIC_SEQ_CST))
			cn_sh->first_code = WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
	}
}

static void cn_irq(void)
{
	struct sigaction sa, old;
	sigset_t set;
	int ret;

	sim_ctx.pc += HARDIRQ_OFFSET;
	t_clock_set(2000);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = cn_trap;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTRAP, &sa, &old);
	sigemptyset(&set);
	sigaddset(&set, SIGTRAP);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	cn_forked = 0;
	cn_w0 = cn_wpos();
	__asm__ volatile("pushfq; orq %0, (%%rsp); popfq" : : "i"(CN_TF) : "memory", "cc");
	ret = cn_write(cn_b, 16, 4);
	__asm__ volatile("pushfq; andq %0, (%%rsp); popfq" : : "i"(~CN_TF) : "memory", "cc");
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigaction(SIGTRAP, &old, NULL);
	if (cn_forked && !cn_gchild)
		__atomic_fetch_add(&cn_sh->outer_inner, 1, __ATOMIC_SEQ_CST);
	if (ret)
		_exit(30);
	sim_ctx.pc -= HARDIRQ_OFFSET;
}

static int cn_base;	/* events written before W */

/* After W's write, in each child and grandchild. */
static int cn_check(void)
{
	int n, bad;

	bad = cn_consume_mono(cn_b, &n, getenv("RB_CLOCK_VERBOSE") != NULL);
	if (!cn_gchild)
		return n != cn_base + 2 ? 32 : bad ? 40 : 0;	/* + A + C */
	if (n != cn_base + 3)
		return 33;					/* + A + B + C */
	return bad ? 40 : 0;
}
#endif

/*
 * @move: the first sub-buffer is filled until no event fits, so that W
 * and A each start the next one (A wins) and B lands in A's claim there.
 */
static int cn_run(bool move)
{
#if !defined(__x86_64__) || defined(RB_STOCK)
	T_SKIP("x86-64 sweep; the NMI points are picked white-box (ours)");
#else
	long points, first_bad, tol;
	int status, ret, n;

	cn_sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	T_ASSERT(cn_sh != MAP_FAILED);
	memset(cn_sh, 0, sizeof(*cn_sh));
	sim_bind(0);
	cn_b = ring_buffer_alloc(64 * 1024, RB_FL_OVERWRITE);
	T_ASSERT(cn_b);
	ring_buffer_set_clock(cn_b, t_clock);
	t_clock_set(1000);
	for (cn_base = 0; cn_base < 5; cn_base++)
		T_EQ(cn_write(cn_b, 16, 1), 0);
	while (move && (cn_wpos() & per_cpu_ptr(cn_b->slots, 0)->cb->mask) + 20 <=
	       per_cpu_ptr(cn_b->slots, 0)->cb->cap) {
		T_EQ(cn_write(cn_b, 16, 1), 0);
		cn_base++;
	}
	t_clock_set(2000);
	T_ASSERT(sim_step_sweep(cn_irq, 40));
	ret = cn_write(cn_b, 16, 9);
	if (sim_step_end())
		_exit(ret ? 28 : cn_check());
	points = sim_step_results(&first_bad, &status, &tol);
	printf("# outer: %ld irq points (%ld with NMIs forked, %ld of them bad alone); "
	       "inner: %ld NMI points, %ld make a stamp go back, %ld fail otherwise (first code %d)\n",
	       points, cn_sh->outer_inner, tol, cn_sh->inner_points, cn_sh->inner_bad,
	       cn_sh->inner_other, cn_sh->first_code);
	T_ASSERT(points > 20);
	T_ASSERT(cn_sh->inner_points > 0);
	if (cn_sh->inner_bad)
		T_FAIL("a stamp goes back within a sub-buffer: task -> irq -> NMI, the task's floor store "
		       "lowers the floor that alone carried the NMI's stamp (%ld points)", cn_sh->inner_bad);
	if (tol || first_bad || cn_sh->inner_other)
		T_FAIL("other failures (tol %ld, first_bad %ld status %#x, inner other %ld)", tol,
		       first_bad, status, cn_sh->inner_other);
	/* the sweep's parent saw no irq: check it too */
	T_EQ(cn_consume_mono(cn_b, &n, 0), 0);
	ring_buffer_free(cn_b);
	munmap(cn_sh, 4096);
	return 0;
#endif
}

int clock_back_irq_nmi(void)
{
	return cn_run(false);
}

int clock_back_irq_nmi_move(void)
{
	return cn_run(true);
}
