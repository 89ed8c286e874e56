// SPDX-License-Identifier: GPL-2.0
/*
 * The interleaving matrix (rbtest --matrix, make matrix): operation A runs
 * in task context on CPU 0, single-stepped; after each of its instructions
 * in ring_buffer.c (sim_step_sweep()) a child process runs operation B
 * there, in an irq or an NMI on CPU 0, or on CPU 1 (a thread of the child:
 * when B must wait for something A holds, A goes on after a while and B
 * finishes when it can).  Then A finishes and the oracle (t_oracle.c)
 * judges everything.  A pair the kernel makes impossible is listed with
 * its reason, never silently left out; an irq at a point where A has
 * interrupts off is deferred in the kernel: such a point is counted as
 * masked, not run.
 *
 * Environment: MATRIX_SEED (sampling seed, else time-based; printed),
 * MATRIX_RATE (fraction of each pair's points run, default 1: all),
 * MATRIX_MAX (at most that many points run per pair, the first ones
 * sampled; 0: no cap), MATRIX_BUDGET (seconds; pairs not started by then
 * are reported as not run), MATRIX_ONLY (substring of "A/B/ctx" to select
 * pairs), MATRIX_STRICT=1 (known failures count).
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "rb_test.h"

#define MX_CPU_B 1	/* the other CPU */
#define MX_HOTPLUG 2	/* the CPU that goes off and on line */

enum { MX_IRQ, MX_NMI, MX_CPU, MX_NCTX };
static const char *const mx_ctx_name[] = { "irq on CPU 0", "NMI on CPU 0", "CPU 1" };

/* what an op needs set up before the pair runs */
#define MX_MAPPED 1
#define MX_OFFLINE 2
#define MX_SWAP 4
#define MX_NMI_OP 8	/* it is an NMI: A runs it at NMI level */

struct mx_op {
	const char *name;
	void (*run)(void);
	unsigned int judge;	/* or_judge() flags it needs */
	unsigned int need;
	const char *no_irq;	/* why it cannot run in an irq, or NULL */
	const char *no_nmi;
};

static struct trace_buffer *mx_b, *mx_b2;
/* A's mapping and B's: each its own address space */
static struct t_map mx_m[2];
static struct buffer_data_read_page *mx_rp[2];
static __thread int mx_is_b;	/* running op B */
static u64 mx_tick_now;
static int mx_dumped;

static u64 mx_tick(void)
{
	return __atomic_add_fetch(&mx_tick_now, 3, __ATOMIC_RELAXED);
}

static void mx_write_fast(void)
{
	or_write(mx_b, 16);
	or_write(mx_b, 16);
}

static void mx_write_move(void)
{
	for (int i = 0; i < 3; i++)
		or_write(mx_b, 1800);
}

static void mx_write_push(void)
{
	/* more than the ring of 4 sub-buffers holds: overwrites the oldest */
	for (int i = 0; i < 6; i++)
		or_write(mx_b, 3500);
}

static void mx_discard(void)
{
	struct or_handle h;

	if (or_reserve(mx_b, 40, &h))
		or_discard(mx_b, &h);
	if (or_reserve(mx_b, 40, &h))
		or_commit(mx_b, &h);
}

static void mx_consume(void)
{
	or_consume(mx_b, 0);
	or_consume(mx_b, 0);
}

static void mx_peek(void)
{
	or_peek(mx_b, 0);
}

static void mx_read_page(void)
{
	or_read_page(mx_b, 0, mx_rp[mx_is_b], PAGE_SIZE, 0);
}

static void mx_iter(void)
{
	/* start, 40 events, finish: the reads after those cost time, no new point */
	or_iter_pass(mx_b, 0, 40);
}

static void mx_map(void)
{
	if (!mx_m[mx_is_b].live)
		t_map(&mx_m[mx_is_b], mx_b, 0);
}

static void mx_unmap(void)
{
	if (mx_m[mx_is_b].live)
		t_unmap(&mx_m[mx_is_b]);
}

static void mx_get_reader(void)
{
	ring_buffer_map_get_reader(mx_b, 0);
}

static void mx_resize_cpu(void)
{
	ring_buffer_resize(mx_b, 8 * PAGE_SIZE, 0);
}

static void mx_resize_all(void)
{
	ring_buffer_resize(mx_b, 8 * PAGE_SIZE, RING_BUFFER_ALL_CPUS);
}

static void mx_order(void)
{
	ring_buffer_subbuf_order_set(mx_b, 1);
}

static void mx_reset_cpu(void)
{
	ring_buffer_reset_cpu(mx_b, 0);
}

static void mx_swap_cpu(void)
{
	ring_buffer_swap_cpu(mx_b, mx_b2, 0);
}

static void mx_record_off_on(void)
{
	ring_buffer_record_disable_cpu(mx_b, 0);
	or_write(mx_b, 16);
	ring_buffer_record_enable_cpu(mx_b, 0);
}

static void mx_cpu_online(void)
{
	sim_cpu_up(MX_HOTPLUG);
}

static void mx_cpu_offline(void)
{
	sim_cpu_down(MX_HOTPLUG);
}

/* ftrace_dump() from an NMI: drain every CPU (trylock; without the lock it reads in place) */
static void mx_nmi_dump(void)
{
	unsigned int off = (sim_ctx.pc & NMI_MASK) ? 0 : NMI_OFFSET + HARDIRQ_OFFSET;

	sim_ctx.pc += off;
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		int turns = 0;

		while (!ring_buffer_empty_cpu(mx_b, cpu) && turns++ < 2000)
			or_dump_consume(mx_b, cpu);
	}
	sim_ctx.pc -= off;
	mx_dumped = 1;
}

#define SLEEPS "sleeps (mutex, synchronize_rcu() or GFP_KERNEL): process context only"
#define NMI_READ "an NMI reads only as ftrace_dump() does: row nmi_dump"
static const struct mx_op mx_ops[] = {
	{ "write_fast", mx_write_fast },
	{ "write_move", mx_write_move },
	{ "write_push", mx_write_push },
	{ "discard", mx_discard },
	{ "consume", mx_consume, 0, 0, NULL, NMI_READ },
	{ "peek", mx_peek, 0, 0, NULL, NMI_READ },
	{ "read_page", mx_read_page, 0, 0, NULL, NMI_READ },
	{ "iterator", mx_iter, 0, 0, "the iterator's start allocates (GFP_KERNEL) and its finish may sleep: process context",
	  "the iterator's start allocates (GFP_KERNEL) and its finish may sleep: process context" },
	{ "map", mx_map, OR_NO_COUNTERS | OR_LOSS_UNREPORTED, 0, "mmap(): process context, mapping mutex", "mmap(): process context, mapping mutex" },
	{ "unmap", mx_unmap, OR_NO_COUNTERS | OR_LOSS_UNREPORTED, MX_MAPPED, "munmap(): process context, mapping mutex", "munmap(): process context, mapping mutex" },
	{ "get_reader", mx_get_reader, OR_NO_COUNTERS | OR_LOSS_UNREPORTED, MX_MAPPED, "the GET_READER ioctl: process context", "the GET_READER ioctl: process context" },
	{ "resize_cpu", mx_resize_cpu, 0, 0, SLEEPS, SLEEPS },
	{ "resize_all", mx_resize_all, 0, 0, SLEEPS, SLEEPS },
	{ "subbuf_order", mx_order, OR_NO_COUNTERS | OR_LOSS_UNREPORTED, 0, SLEEPS, SLEEPS },
	{ "reset_cpu", mx_reset_cpu, OR_NO_COUNTERS | OR_LOSS_UNREPORTED, 0, SLEEPS, SLEEPS },
	{ "swap_cpu", mx_swap_cpu, OR_NO_COUNTERS | OR_LOSS_UNREPORTED, MX_SWAP,
	  "the snapshot swap runs in process context (irqs off), never from an irq",
	  "the snapshot swap runs in process context (irqs off), never from an NMI" },
	{ "record_off_on", mx_record_off_on },
	{ "cpu_online", mx_cpu_online, 0, MX_OFFLINE, "CPU hotplug: process context", "CPU hotplug: process context" },
	{ "cpu_offline", mx_cpu_offline, 0, 0, "CPU hotplug: process context", "CPU hotplug: process context" },
	{ "nmi_dump", mx_nmi_dump, OR_NO_LIVENESS | OR_MANY_READERS | OR_ITER_READS, MX_NMI_OP,
	  "ftrace_dump() from an NMI, not an irq", NULL },
};
#define MX_NOPS ((int)ARRAY_SIZE(mx_ops))

/* Why pair (a, b, ctx) cannot happen, or NULL. */
static const char *mx_impossible(const struct mx_op *a, const struct mx_op *b, int ctx)
{
	if ((a->need & MX_NMI_OP) && ctx != MX_CPU)
		return "an NMI is not interrupted on its CPU (no irq, no nested NMI)";
	if ((a->run == mx_swap_cpu && (b->run == mx_map || b->run == mx_unmap ||
				       b->run == mx_get_reader)) ||
	    (b->run == mx_swap_cpu && (a->run == mx_map || a->run == mx_unmap ||
				       a->run == mx_get_reader)))
		return "trace.c refuses a snapshot swap of a mapped buffer before ring_buffer_swap_cpu() (which WARNs)";
	if (ctx == MX_IRQ)
		return b->no_irq;
	if (ctx == MX_NMI)
		return b->no_nmi;
	if ((a->need & MX_OFFLINE) && (b->need & MX_OFFLINE))
		return NULL;
	return NULL;
}

/*
 * A failure the matrix has found and that is reported, not counted as a
 * failure (MATRIX_STRICT=1 counts it): the reason, or NULL.
 */
static const char *mx_known(const struct mx_op *a, const struct mx_op *b, int ctx)
{
	const struct mx_op *r = b->run == mx_order ? a : a->run == mx_order ? b : NULL;

	/* Stock's order change frees the old reader page the same way. */
	if (ctx == MX_CPU && r &&
	    (r->run == mx_consume || r->run == mx_peek || r->run == mx_nmi_dump))
		return "the event consume/peek/the dump returned is read after an order change on another CPU freed its page (ASan use-after-free): no lock keeps the page while the caller reads the event";
	return NULL;
}

/* ------------------------------------------------------------ one pair */

static const struct mx_op *mx_a, *mx_bop;
static int mx_ctx;
static unsigned int mx_judge_flags;
/* counters shared with the children: masked points, points where B waited */
static long *mx_shared;
static double mx_rate;
static long mx_max, mx_picked;
static unsigned long long mx_seed, mx_pair_seed;

static int mx_filter(long point)
{
	unsigned long long x;

	/* after the first failure of a pair, its other points are not run */
	if (__atomic_load_n(&mx_shared[2], __ATOMIC_RELAXED))
		return 0;
	if (mx_max && mx_picked >= mx_max)
		return 0;
	if (mx_rate < 1) {
		x = (mx_pair_seed + point) * 0x9E3779B97F4A7C15ULL;
		x ^= x >> 29;
		x *= 0xBF58476D1CE4E5B9ULL;
		x ^= x >> 32;
		if ((double)(x % 1000000) / 1e6 >= mx_rate)
			return 0;
	}
	mx_picked++;
	return 1;
}

static struct sim_thread mx_th;
static unsigned long mx_warn0;	/* warnings before the pair: children inherit them */
static volatile int mx_b_done;

static void *mx_b_thread(void *arg)
{
	(void)arg;
	mx_is_b = 1;
	mx_bop->run();
	__atomic_store_n(&mx_b_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int mx_b_started;

static void mx_alarm(int sig)
{
	(void)sig;
	__atomic_store_n(&mx_shared[2], 1, __ATOMIC_RELAXED);
	dprintf(1, "# %s / %s (%s): hangs (20 s)\n", mx_a->name, mx_bop->name, mx_ctx_name[mx_ctx]);
	_exit(9);
}

static void mx_interrupt(void)
{
	struct timespec ts = { 0, 1000000 };

	signal(SIGALRM, mx_alarm);
	alarm(20);
	sim_child_workers();
	if (mx_ctx == MX_IRQ && sim_ctx.irqs_off) {
		/* the irq waits until A turns interrupts on again: a later point */
		__atomic_add_fetch(&mx_shared[0], 1, __ATOMIC_RELAXED);
		return;
	}
	if (mx_ctx == MX_CPU) {
		mx_b_done = 0;
		mx_th.irq_fn = NULL;
		mx_th.irq_arg = NULL;
		if (sim_thread_start(&mx_th, MX_CPU_B, mx_b_thread, NULL)) {
			printf("# no thread for B\n");
			_exit(7);
		}
		mx_b_started = 1;
		/* A stays paused while B runs, unless B waits for A */
		for (int i = 0; i < 30 && !__atomic_load_n(&mx_b_done, __ATOMIC_ACQUIRE); i++)
			nanosleep(&ts, NULL);
		if (!__atomic_load_n(&mx_b_done, __ATOMIC_ACQUIRE))
			__atomic_add_fetch(&mx_shared[1], 1, __ATOMIC_RELAXED);
		return;
	}
	{
		unsigned int off = mx_ctx == MX_NMI ? NMI_OFFSET + HARDIRQ_OFFSET : HARDIRQ_OFFSET;
		unsigned long irqs = sim_ctx.irqs_off;

		sim_ctx.pc += off;
		sim_ctx.irqs_off = 1;
		mx_is_b = 1;
		mx_bop->run();
		mx_is_b = 0;
		sim_ctx.irqs_off = irqs;
		sim_ctx.pc -= off;
	}
}

static void mx_run_a(void)
{
	unsigned int off = (mx_a->need & MX_NMI_OP) ? NMI_OFFSET + HARDIRQ_OFFSET : 0;

	sim_ctx.pc += off;
	mx_a->run();
	sim_ctx.pc -= off;
}

/* After A (and B): tidy up what the judge cannot read through, then judge. */
static int mx_finish(void)
{
	unsigned int flags = mx_judge_flags;

	if (mx_b_started) {
		sim_thread_join(&mx_th);
		mx_b_started = 0;
	}
	for (int k = 0; k < 2; k++)
		if (mx_m[k].live)
			t_unmap(&mx_m[k]);
	if (mx_dumped)
		flags |= OR_NO_LIVENESS | OR_MANY_READERS | OR_ITER_READS;
	return or_judge(mx_b, flags);
}

static int mx_setup(void)
{
	unsigned int need = mx_a->need | mx_bop->need;

	or_reset();
	mx_dumped = 0;
	mx_b = ring_buffer_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	if (!mx_b)
		return -1;
	ring_buffer_set_clock(mx_b, mx_tick);
	mx_b2 = NULL;
	if (need & MX_SWAP) {
		mx_b2 = ring_buffer_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
		if (!mx_b2)
			return -1;
		ring_buffer_set_clock(mx_b2, mx_tick);
	}
	/*
	 * CPU 0's ring two and a half sub-buffers full, the others a few
	 * events (the NMI dump drains them all, stepped when it is A)
	 */
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		sim_ctx.cpu = cpu;
		for (int i = 0; i < (cpu ? 40 : 320); i++)
			if (or_write(mx_b, 24))
				return -1;
	}
	sim_ctx.cpu = 0;
	for (int k = 0; k < 2; k++) {
		mx_rp[k] = NULL;
		if (ring_buffer_alloc_read_page(mx_b, 0, &mx_rp[k]))
			return -1;
	}
	memset(mx_m, 0, sizeof(mx_m));
	/* unmap and get_reader: mapped by A and by B (each unmaps its own) */
	if ((need & MX_MAPPED) && (t_map(&mx_m[0], mx_b, 0) || t_map(&mx_m[1], mx_b, 0)))
		return -1;
	if (need & MX_OFFLINE)
		sim_cpu_down(MX_HOTPLUG);
	mx_judge_flags = mx_a->judge | mx_bop->judge;
	return 0;
}

static void mx_teardown(void)
{
	for (int k = 0; k < 2; k++)
		if (mx_m[k].live)
			t_unmap(&mx_m[k]);
	for (int k = 0; k < 2; k++)
		if (mx_rp[k])
			ring_buffer_free_read_page(mx_b, 0, mx_rp[k]);
	ring_buffer_free(mx_b);
	if (mx_b2)
		ring_buffer_free(mx_b2);
	if (!cpu_online(MX_HOTPLUG))
		sim_cpu_up(MX_HOTPLUG);
}

struct mx_result {
	long seen, run, masked, waited, first_bad;
	int status, bad_after;
	double secs;
};

static int mx_pair(int ai, int bi, int ctx, struct mx_result *r)
{
	struct timespec t0, t1;
	long tol;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(r, 0, sizeof(*r));
	mx_a = &mx_ops[ai];
	mx_bop = &mx_ops[bi];
	mx_ctx = ctx;
	mx_pair_seed = mx_seed * 1000003ULL + (ai * 64 + bi) * 4 + ctx;
	mx_shared[0] = mx_shared[1] = mx_shared[2] = 0;
	mx_picked = 0;
	or_name = "";
	mx_warn0 = sim_warnings();
	if (mx_setup()) {
		printf("# %s / %s: setup failed\n", mx_a->name, mx_bop->name);
		return -1;
	}
	sim_step_filter = mx_filter;
	if (!sim_step_sweep(mx_interrupt, 0))
		return -1;
	mx_run_a();
	if (sim_step_end()) {
		int ret = mx_finish();

		if (ret)
			__atomic_store_n(&mx_shared[2], 1, __ATOMIC_RELAXED);
		fflush(NULL);
		_exit(ret ? 1 : (sim_warnings() != mx_warn0 ? 3 : 0));
	}
	sim_step_filter = NULL;
	r->run = sim_step_results(&r->first_bad, &r->status, &tol);
	r->seen = sim_step_seen;
	r->masked = mx_shared[0];
	r->waited = mx_shared[1];
	/* A alone, not interrupted, judged as well */
	r->bad_after = mx_finish() || sim_warnings() != mx_warn0;
	mx_teardown();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->secs = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	return r->first_bad || r->bad_after;
}

static int *mx_order_of;
static pid_t mx_parent;

int rb_matrix_main(void)
{
	const char *e, *only = getenv("MATRIX_ONLY");
	double budget = 0, total_secs = 0;
	long pairs = 0, bad = 0, not_run = 0, impossible = 0, points = 0, masked = 0, known = 0;
	int strict = getenv("MATRIX_STRICT") && *getenv("MATRIX_STRICT") == '1';
	struct timespec t0, t1;
	struct mx_result r;

	mx_parent = getpid();
	e = getenv("MATRIX_SEED");
	mx_seed = e && *e ? strtoull(e, NULL, 0) : (unsigned long long)time(NULL);
	e = getenv("MATRIX_RATE");
	mx_rate = e && *e ? atof(e) : 1;
	e = getenv("MATRIX_MAX");
	mx_max = e && *e ? atol(e) : 0;
	e = getenv("MATRIX_BUDGET");
	budget = e && *e ? atof(e) : 0;
	mx_shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mx_shared == MAP_FAILED)
		return 1;
	sim_bind(0);
	/* synchronize_rcu() waits for CPUs inside atomic sections */
	sim_set_exclusive(1);
	sim_step_quiet = 1;
	printf("# matrix: MATRIX_SEED=%llu MATRIX_RATE=%g MATRIX_MAX=%ld MATRIX_BUDGET=%g%s%s\n",
	       mx_seed, mx_rate, mx_max, budget, only ? " MATRIX_ONLY=" : "", only ? only : "");
	printf("# %-14s %-14s %-13s %8s %8s %7s %7s %7s  %s\n", "A (stepped)", "B", "context",
	       "points", "run", "masked", "waited", "secs", "result");
	/*
	 * Sampling (MATRIX_RATE < 1): the pairs in an order drawn from the
	 * seed, so that a budget leaves out different ones each run.
	 */
	{
		static int order[MX_NOPS * MX_NOPS * MX_NCTX];
		int n = MX_NOPS * MX_NOPS * MX_NCTX;
		unsigned long long x = mx_seed | 1;

		for (int i = 0; i < n; i++)
			order[i] = i;
		for (int i = n - 1; mx_rate < 1 && i > 0; i--) {
			int j, t;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			j = x % (i + 1);
			t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
		mx_order_of = order;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int pi = 0; pi < MX_NOPS * MX_NOPS * MX_NCTX; pi++) {
		int ai = mx_order_of[pi] / (MX_NOPS * MX_NCTX);
		int bi = mx_order_of[pi] / MX_NCTX % MX_NOPS;
		int ctx = mx_order_of[pi] % MX_NCTX;
		{
			{
				const char *why = mx_impossible(&mx_ops[ai], &mx_ops[bi], ctx);
				const char *kwhy;
				char key[128];
				int ret;

				snprintf(key, sizeof(key), "%s/%s/%s", mx_ops[ai].name,
					 mx_ops[bi].name, ctx == MX_IRQ ? "irq" : ctx == MX_NMI ? "nmi" : "cpu1");
				if (only && !strstr(key, only))
					continue;
				if (why) {
					impossible++;
					printf("# %-14s %-14s %-13s %8s %8s %7s %7s %7s  impossible: %s\n",
					       mx_ops[ai].name, mx_ops[bi].name, mx_ctx_name[ctx],
					       "-", "-", "-", "-", "-", why);
					continue;
				}
				clock_gettime(CLOCK_MONOTONIC, &t1);
				total_secs = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
				if (budget && total_secs > budget) {
					not_run++;
					printf("# %-14s %-14s %-13s %8s %8s %7s %7s %7s  not run (budget)\n",
					       mx_ops[ai].name, mx_ops[bi].name, mx_ctx_name[ctx],
					       "-", "-", "-", "-", "-");
					continue;
				}
				pairs++;
				ret = mx_pair(ai, bi, ctx, &r);
				if (getpid() != mx_parent) {
					/* a sweep's child must never get here: stop it */
					printf("# %s: a child of the sweep returned from it\n", key);
					fflush(NULL);
					_exit(8);
				}
				points += r.run;
				masked += r.masked;
				kwhy = ret > 0 && !strict ? mx_known(&mx_ops[ai], &mx_ops[bi], ctx) : NULL;
				if (kwhy)
					known++;
				else if (ret)
					bad++;
				printf("# %-14s %-14s %-13s %8ld %8ld %7ld %7ld %7.1f  %s",
				       mx_ops[ai].name, mx_ops[bi].name, mx_ctx_name[ctx], r.seen,
				       r.run, r.masked, r.waited, r.secs,
				       ret < 0 ? "setup failed" : !ret ? "ok" : kwhy ? "KNOWN" : "FAIL");
				if (r.first_bad)
					printf(" (first at point %ld of those run, status %#x: MATRIX_ONLY=%s MATRIX_SEED=%llu)",
					       r.first_bad, r.status, key, mx_seed);
				if (r.bad_after)
					printf(" (A alone, uninterrupted, fails)");
				if (kwhy)
					printf(" (%s)", kwhy);
				printf("\n");
				fflush(stdout);
			}
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	total_secs = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("# matrix: %ld pairs run, %ld failed, %ld known failures, %ld impossible, %ld not run (budget); %ld points run, %ld masked; %.0f s; MATRIX_SEED=%llu\n",
	       pairs, bad, known, impossible, not_run, points, masked, total_secs, mx_seed);
	printf("%s matrix\n", bad ? "not ok 1" : "ok 1");
	return bad ? 1 : 0;
}
