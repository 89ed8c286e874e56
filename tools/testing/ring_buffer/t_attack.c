// SPDX-License-Identifier: GPL-2.0
/*
 * Cases written against the claims of kernel/trace/ring_buffer.c: each
 * builds the interleaving or input that a suspected defect needs and
 * asserts what the claim promises.  A case that fails on the current file
 * documents a defect; see the comment above each.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rb_test.h"

#define A_NCPU 4		/* sim_init(4): nr_cpu_ids */
/* A CPU's part of a range: magic, cpu, head, rd, text, data, then seq[] */
#define A_PM_BYTES 40

static struct trace_buffer *a_alloc(unsigned long size, unsigned int flags)
{
	struct trace_buffer *b = ring_buffer_alloc(size, flags);

	if (b)
		ring_buffer_set_clock(b, t_clock);
	return b;
}

/* Write @len bytes of @seq-tagged payload on @cpu. */
static int a_write(struct trace_buffer *b, int cpu, unsigned int len, u32 seq)
{
	u8 buf[256];

	memset(buf, 0, sizeof(buf));
	memcpy(buf, &seq, 4);
	t_fill(buf + 4, len - 4, seq);
	t_clock_set(t_clock() + 10);
	sim_bind(cpu);
	int ret = ring_buffer_write(b, len, buf);

	sim_bind(0);
	return ret;
}

static u32 a_seq_of(struct ring_buffer_event *e)
{
	u32 s;

	memcpy(&s, ring_buffer_event_data(e), 4);
	return s;
}

/* ------------------------------------------------------------------ */
/* persistent ranges                                                   */
/* ------------------------------------------------------------------ */
static char a_log[1 << 16];

static struct trace_buffer *a_boot(struct t_area *a)
{
	struct trace_buffer *b;

	memset(a_log, 0, sizeof(a_log));
	sim_log_capture(a_log, sizeof(a_log));
	b = ring_buffer_alloc_range(1UL << 20, RB_FL_OVERWRITE, 0,
				    (unsigned long)a->start, a->size);
	sim_log_capture(NULL, 0);
	if (b)
		ring_buffer_set_clock(b, t_clock);
	return b;
}

/*
 * The layout rb_range_setup() derives (order 0): one header page, then per
 * CPU a part of @part bytes, a struct of 24 bytes and n u64 numbers, then
 * n pages at the next page boundary.
 */
static void a_layout(const struct t_area *a, unsigned long *part, unsigned long *n)
{
	*part = ((a->size - PAGE_SIZE) / A_NCPU) / PAGE_SIZE * PAGE_SIZE;
	for (*n = *part / PAGE_SIZE; *n >= 3; (*n)--) {
		unsigned long hdr = (A_PM_BYTES + *n * 8 + PAGE_SIZE - 1) / PAGE_SIZE * PAGE_SIZE;

		if (hdr + *n * PAGE_SIZE <= *part)
			break;
	}
}

/*
 * Claim 3 and ring_buffer_last_boot_delta()'s contract ("true when @buffer
 * kept events of a previous boot and the kernel text moved").  CPU 1 wrote
 * one event; before the next boot its sub-buffer's commit word is broken,
 * and the kernel text moved.  The validator throws CPU 1's part away
 * ("commit beyond its sub-buffer"), no CPU keeps anything, yet the buffer
 * says it kept events of the previous boot: rb_range_setup() sets
 * range_kept from rb_range_any_kept(), which only looks at the sub-buffer
 * numbers, and rb_range_attach() never clears it when the full check
 * fails.  trace.c then flags the instance as holding the last boot's
 * trace and shifts addresses by a delta that applies to nothing.
 */
static int attack_range_kept_after_reject(void)
{
#ifdef RB_STOCK
	T_SKIP("6.12 stores the addresses of its own static symbols, which the harness cannot move");
#else
	char *text0 = sim_text;
	unsigned long part, n, i;
	long text = 0, data = 0;
	struct trace_buffer *b;
	struct t_area a;
	int ret = 0, hit = 0;

	T_ASSERT(!t_area_get(&a, A_NCPU * 6 + 1));
	a_layout(&a, &part, &n);
	b = a_boot(&a);
	T_ASSERT(b);
	T_EQ(a_write(b, 1, 32, 7), 0);
	ring_buffer_free(b);

	{
		u8 *pm = a.start + PAGE_SIZE + 1 * part;
		u64 *seqs = (u64 *)(pm + A_PM_BYTES);
		u8 *pages = pm + (A_PM_BYTES + n * 8 + PAGE_SIZE - 1) / PAGE_SIZE * PAGE_SIZE;

		for (i = 0; i < n; i++) {
			if (seqs[i] != ~0ULL) {
				unsigned long bad = 0x7ffff;

				memcpy(pages + i * PAGE_SIZE + 8, &bad, sizeof(bad));
				hit++;
			}
		}
	}
	T_EQ(hit, 1);

	sim_text = text0 + 0x1000000;
	b = a_boot(&a);
	if (!b) {
		sim_text = text0;
		t_area_put(&a);
		T_FAIL("second boot failed");
	}
	if (!strstr(a_log, "[1] sub-buffer 0 commit beyond")) {
		printf("# boot log: %s\n", a_log);
		ret = 1;
	}
	for (int c = 0; c < A_NCPU; c++) {
		if (ring_buffer_entries_cpu(b, c)) {
			printf("# cpu %d kept %lu events\n", c, ring_buffer_entries_cpu(b, c));
			ret = 1;
		}
	}
	if (ring_buffer_last_boot_delta(b, &text, &data)) {
		printf("# last_boot_delta true (text %#lx) though no CPU kept an event\n", text);
		ret = 1;
	}
	ring_buffer_free(b);
	sim_text = text0;
	t_area_put(&a);
	return ret;
#endif
}


/* Where CPU @cpu's part keeps page @i, in the layout of a_layout(). */
static u8 *a_part_page(const struct t_area *a, int cpu, unsigned long i,
		       unsigned long part, unsigned long n)
{
	u8 *pm = a->start + PAGE_SIZE + cpu * part;

	return pm + (A_PM_BYTES + n * 8 + PAGE_SIZE - 1) / PAGE_SIZE * PAGE_SIZE + i * PAGE_SIZE;
}

/* Index of the page of @cpu's part holding sub-buffer @seq, or -1. */
static long a_part_find(const struct t_area *a, int cpu, u64 seq, unsigned long part,
			unsigned long n)
{
	const u64 *seqs = (const u64 *)(a->start + PAGE_SIZE + cpu * part + A_PM_BYTES);

	for (unsigned long i = 0; i < n; i++)
		if (seqs[i] == seq)
			return i;
	return -1;
}

/*
 * Claim 3 on a 64-bit arch that must align 64-bit loads (RB_CFG_WEAK:
 * CONFIG_HAVE_64BIT_ALIGNED_ACCESS).  There every event is a multiple of
 * 8 bytes with the length-word header so that payloads are 8-byte
 * aligned, which readers (the event print functions, filters) rely on.
 * The previous boot's sub-buffer is rewritten into one short-header event
 * (type_len 2: header word, 8 payload bytes, 12 bytes in all).
 * rb_range_subbuf() only asks for multiples of 4 and keeps it;
 * ring_buffer_consume() then hands out a payload 4 bytes off an 8-byte
 * boundary, on which a 64-bit load faults on such an arch.  Elsewhere
 * (4-byte payload alignment) the case does not apply.
 */
static int attack_range_misaligned_payload(void)
{
#ifndef RB_CFG_WEAK
	T_SKIP("payloads are 4-byte aligned here: only the RB_CFG_WEAK build applies");
#elif defined(RB_STOCK)
	T_SKIP("the crafted bytes follow this file's range layout");
#else
	unsigned long part, n;
	struct ring_buffer_event *e;
	struct trace_buffer *b;
	struct t_area a;
	u8 *pg;
	long i;
	int ret = 0;

	T_ASSERT(!t_area_get(&a, A_NCPU * 6 + 1));
	a_layout(&a, &part, &n);
	b = a_boot(&a);
	T_ASSERT(b);
	T_EQ(a_write(b, 1, 8, 5), 0);
	ring_buffer_free(b);

	i = a_part_find(&a, 1, 0, part, n);
	T_ASSERT(i >= 0);
	pg = a_part_page(&a, 1, i, part, n);
	{
		u32 hdr = 2;			/* type_len 2, delta 0 */
		unsigned long commit = 12;

		memcpy(pg + T_SB_HDR, &hdr, 4);
		memset(pg + T_SB_HDR + 4, 0x5a, 8);
		memcpy(pg + 8, &commit, sizeof(commit));
	}

	b = a_boot(&a);
	T_ASSERT(b);
	e = ring_buffer_consume(b, 1, NULL, NULL);
	if (e && (unsigned long)ring_buffer_event_data(e) % 8) {
		printf("# kept event with payload at %#lx (%lu mod 8), length %u\n",
		       (unsigned long)ring_buffer_event_data(e),
		       (unsigned long)ring_buffer_event_data(e) % 8,
		       ring_buffer_event_length(e));
		ret = 1;
	}
	ring_buffer_free(b);
	t_area_put(&a);
	return ret;
#endif
}

/* Events ring_buffer_consume() gives on @cpu now. */
static unsigned long a_drain(struct trace_buffer *b, int cpu)
{
	unsigned long n = 0;

	while (ring_buffer_consume(b, cpu, NULL, NULL))
		n++;
	return n;
}

/*
 * ring_buffer_entries_cpu() ("events in a CPU's ring not yet read") after
 * ring_buffer_subbuf_order_set(), which throws every event away.  Written
 * 50 events on CPU 0, 20 of them consumed; after the order change nothing
 * can be read, and entries must say 0.  It says 30: rb_reorder_cpu()
 * puts committed, overrun and read back as they were, so the 30 events
 * thrown away count as unread forever (and in ring_buffer_entries(), the
 * "entries" of the trace files).  The stock 6.12 file gives the same 30.
 */
static int attack_order_change_entries(void)
{
	struct trace_buffer *b = a_alloc(16 * PAGE_SIZE, RB_FL_OVERWRITE);
	unsigned long entries, got;
	int ret = 0;

	T_ASSERT(b);
	for (u32 i = 0; i < 50; i++)
		T_EQ(a_write(b, 0, 40, i), 0);
	for (int i = 0; i < 20; i++)
		T_ASSERT(ring_buffer_consume(b, 0, NULL, NULL));
	T_EQ(ring_buffer_entries_cpu(b, 0), 30);
	T_EQ(ring_buffer_subbuf_order_set(b, 1), 0);
	entries = ring_buffer_entries_cpu(b, 0);
	got = a_drain(b, 0);
	if (entries != got) {
		printf("# after the order change: entries %lu, events readable %lu\n",
		       entries, got);
		ret = 1;
	}
	ring_buffer_free(b);
	return ret;
}

/*
 * Consume every event of @cpu: ids must rise by one except where the
 * reported lost count says how many are missing.  Returns the number read
 * or -1 (printed why); *lost_sum gets the reported losses.
 */
static long a_check_stream(struct trace_buffer *b, int cpu, long next, unsigned long *lost_sum)
{
	struct ring_buffer_event *e;
	unsigned long lost;
	long n = 0;

	*lost_sum = 0;
	while ((e = ring_buffer_consume(b, cpu, NULL, &lost))) {
		u32 id = a_seq_of(e);

		*lost_sum += lost;
		if (next >= 0 && id != next + lost) {
			printf("# read %ld: id %u after %ld, %lu reported lost\n", n, id, next - 1, lost);
			return -1;
		}
		next = id + 1;
		n++;
	}
	return n;
}

/*
 * A shrinking ring_buffer_resize() while the consuming reader is in the
 * middle of a sub-buffer it took and the writer has lapped the ring: the
 * events after the resize go on from where the reader stood, each gap
 * reported with the event after it, and read + lost + left = written.
 */
static int attack_resize_mid_page(void)
{
	struct trace_buffer *b = a_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	unsigned long lost = 0, before;
	long n;
	u32 w = 0;

	T_ASSERT(b);
	for (; w < 30; w++)
		T_EQ(a_write(b, 0, 100, w), 0);
	for (int i = 0; i < 5; i++) {
		struct ring_buffer_event *e = ring_buffer_consume(b, 0, NULL, NULL);

		T_ASSERT(e);
		T_EQ(a_seq_of(e), i);
	}
	/* lap the ring under the reader's page */
	for (; w < 600; w++)
		T_EQ(a_write(b, 0, 100, w), 0);
	before = ring_buffer_overrun_cpu(b, 0);
	T_EQ(ring_buffer_resize(b, 3 * PAGE_SIZE, 0), 0);
	n = a_check_stream(b, 0, 5, &lost);
	if (n < 0)
		return 1;
	printf("# read %ld after the resize, %lu reported lost, overrun %lu -> %lu\n",
	       n, lost, before, ring_buffer_overrun_cpu(b, 0));
	T_EQ(5 + n + lost, w);
	T_EQ(ring_buffer_overrun_cpu(b, 0), lost);
	ring_buffer_free(b);
	return 0;
}

/*
 * An iterator the writer laps several times between its steps, with the
 * consuming reader taking sub-buffers in between: the ids it shows only
 * rise, none twice, and every gap is followed by
 * ring_buffer_iter_dropped() (or the reader consumed the missing ids).
 */
static int attack_iter_lapped_steps(void)
{
	struct trace_buffer *b = a_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_iter *it;
	struct ring_buffer_event *e;
	long last = -1, consumed_to = -1;
	u32 w = 0;
	int shown = 0, gaps = 0;

	T_ASSERT(b);
	for (; w < 50; w++)
		T_EQ(a_write(b, 0, 60, w), 0);
	it = ring_buffer_read_start(b, 0, GFP_KERNEL);
	T_ASSERT(it);
	for (int round = 0; round < 200; round++) {
		/* a few steps of the iterator */
		for (int k = 0; k < 7 && (e = ring_buffer_iter_peek(it, NULL)); k++) {
			long id = a_seq_of(e);
			bool dropped = ring_buffer_iter_dropped(it);

			if (id <= last)
				T_FAIL("round %d: iterator shows %ld after %ld", round, id, last);
			if (id != last + 1 && last >= 0 && !dropped && id - 1 > consumed_to) {
				T_FAIL("round %d: iterator jumps %ld -> %ld, no drop reported, reader at %ld",
				       round, last, id, consumed_to);
			}
			gaps += id != last + 1;
			last = id;
			shown++;
			ring_buffer_iter_advance(it);
		}
		/* the writer goes on, sometimes by more than the ring */
		for (int k = 0; k < (round % 5 == 0 ? 300 : 11); k++, w++)
			T_EQ(a_write(b, 0, 60, w), 0);
		/* the consuming reader takes a little */
		if (round % 3 == 0) {
			e = ring_buffer_consume(b, 0, NULL, NULL);
			if (e)
				consumed_to = a_seq_of(e);
		}
	}
	printf("# %d shown, %d gaps, last %ld of %u written\n", shown, gaps, last, w);
	T_ASSERT(shown > 500);
	ring_buffer_read_finish(it);
	ring_buffer_free(b);
	return 0;
}

static struct trace_buffer *a_sw_buf;
static unsigned long a_sw_nmi_reads;

/* An NMI on the reader's CPU that dumps the ring (ftrace_dump()'s loop). */
static void a_sw_dump_nmi(void)
{
	int turns = 0;

	sim_ctx.pc += NMI_OFFSET + HARDIRQ_OFFSET;
	while (!ring_buffer_empty_cpu(a_sw_buf, 0) && turns++ < 100) {
		if (ring_buffer_consume(a_sw_buf, 0, NULL, NULL))
			a_sw_nmi_reads++;
	}
	sim_ctx.pc -= NMI_OFFSET + HARDIRQ_OFFSET;
}

/*
 * Claim 2 (never free a page still in use) against the NMI dump that
 * rb_lock() allows: ftrace_dump() from an NMI that interrupted this CPU's
 * consuming reader reads without the reader lock and switches the ring
 * off.  The reader under the NMI is in ring_buffer_consume(), taking the
 * writer's sub-buffer; the NMI arrives after each of its instructions
 * (sim_step_sweep()), drains the ring, and the reader goes on; then the
 * buffer is freed, as removing the instance does.  If the NMI lands in
 * rb_take() between the reader's tag check and its store of sb->next, the
 * NMI takes the same sub-buffer first (its rd.copy becomes the slot's
 * page P); the reader then stores its rd.copy, now P, into sb->next and
 * loses the tag cmpxchg.  P is then both the reader's page and the slot's
 * next; the old spare is leaked; rb_cpu_free() un-takes the slot (page =
 * next = P) and frees P twice: ASan reports a double free.
 *
 * Each child also checks what both read.  The reader's events (the one
 * the interrupted consume returned and those it reads afterwards) follow
 * each other in order.  An NMI that got the lock (before or after the
 * reader held it) consumed the others, each once.  One that did not (a
 * dump: the ring is off for good, a write fails) read from the reader's
 * position on without moving it: the reader still reads to the last one.
 */
static int attack_nmi_dump_in_take(void)
{
#ifdef RB_CFG_WEAK
	T_SKIP("NMIs read nothing where 64-bit atomics are not NMI-safe");
#else
	struct ring_buffer_event *ev;
	long points, first_bad, tol;
	int status;

	a_sw_buf = a_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	T_ASSERT(a_sw_buf);
	for (u32 i = 0; i < 10; i++)
		T_EQ(a_write(a_sw_buf, 0, 40, i), 0);
	if (!sim_step_sweep(a_sw_dump_nmi, 0))
		T_SKIP("no single-stepping here");
	ev = ring_buffer_consume(a_sw_buf, 0, NULL, NULL);
	if (sim_step_end()) {
		u32 next = ev ? a_seq_of(ev) : 10, r = 0;
		bool bad = false;

		for (; ev; ev = ring_buffer_consume(a_sw_buf, 0, NULL, NULL))
			bad |= a_seq_of(ev) != next + r++;
		/* A dump (no lock) switched the ring off for good. */
		if (a_write(a_sw_buf, 0, 40, 10))
			bad |= next + r != 10 || a_sw_nmi_reads + next < 9 ||
			       a_sw_nmi_reads + next > 10;
		else
			bad |= a_sw_nmi_reads + r != 10;
		if (bad)
			printf("# reader from %u: %u events, NMI %lu\n", next, r,
			       a_sw_nmi_reads);
		/* the instance goes away */
		ring_buffer_free(a_sw_buf);
		fflush(NULL);
		_exit(bad);
	}
	points = sim_step_results(&first_bad, &status, &tol);
	printf("# %ld interrupt points in ring_buffer_consume()\n", points);
	if (first_bad)
		T_FAIL("NMI dump after instruction %ld of the reader's consume: wait status %#x",
		       first_bad, status);
	T_ASSERT(points > 50);
	ring_buffer_free(a_sw_buf);
	return 0;
#endif
}

/* ------------------------------------------------------------------ */
/* NMI dump while a control path holds the reader lock                 */
/* ------------------------------------------------------------------ */
#include <signal.h>
#include <time.h>
#include <sys/wait.h>
#include <ucontext.h>

#define A_TF 0x100UL

static struct trace_buffer *a_ls_buf;
static raw_spinlock_t *a_ls_lock;
static volatile int a_ls_on;
static long a_ls_points, a_ls_first_bad;
static int a_ls_status;
static unsigned long a_ls_reads;
static int a_ls_no_touch;	/* do not read payloads: only the ring buffer reads */

/* ftrace_dump(DUMP_ALL) from an NMI: drain every CPU's ring. */
static void a_ls_dump(void)
{
	sim_ctx.pc += NMI_OFFSET + HARDIRQ_OFFSET;
	for (int cpu = 0; cpu < A_NCPU; cpu++) {
		int turns = 0;

		while (!ring_buffer_empty_cpu(a_ls_buf, cpu) && turns++ < 2000) {
			struct ring_buffer_event *e = ring_buffer_consume(a_ls_buf, cpu, NULL, NULL);

			if (e && !a_ls_no_touch) {
				/* what ftrace_dump() would print: touch the payload */
				volatile u8 sum = 0;
				unsigned int len = ring_buffer_event_length(e);
				u8 *d = ring_buffer_event_data(e);

				for (unsigned int i = 0; i < len && i < 4096; i++)
					sum += d[i];
				a_ls_reads++;
			}
		}
	}
	sim_ctx.pc -= NMI_OFFSET + HARDIRQ_OFFSET;
}

/*
 * Single-step the calling thread; at each instruction where it holds
 * a_ls_lock (the reader lock of the ring under test), fork: the child
 * takes an NMI there that dumps every ring and exits 0 if nothing went
 * wrong.  The first failing child stops the sweep (one report).
 */
static void a_ls_trap(int sig, siginfo_t *si, void *ucp)
{
	ucontext_t *uc = ucp;
	pid_t pid;
	int st;

	(void)sig;
	(void)si;
	if (!a_ls_on || !sim_held_raw(a_ls_lock))
		return;
	fflush(NULL);
	pid = sim_fork();
	if (pid == 0) {
		a_ls_on = 0;
#ifdef __x86_64__
		uc->uc_mcontext.gregs[REG_EFL] &= ~A_TF;
#endif
		a_ls_dump();
		fflush(NULL);
		_exit(sim_warnings() ? 3 : 0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		st = -1;
	a_ls_points++;
	if (st != 0 && !a_ls_first_bad) {
		a_ls_first_bad = a_ls_points;
		a_ls_status = st;
		a_ls_on = 0;	/* one report is enough */
	}
}

static int a_lock_sweep(struct trace_buffer *b, int cpu, int (*op)(struct trace_buffer *),
			const char *what)
{
	struct sigaction sa, old;
	int ret;

#ifndef __x86_64__
	T_SKIP("single-stepping needs x86-64");
#endif
#ifdef RB_CFG_WEAK
	T_SKIP("NMIs read nothing where 64-bit atomics are not NMI-safe");
#endif
	a_ls_buf = b;
	a_ls_lock = t_reader_lock(b, cpu);
	a_ls_points = a_ls_first_bad = 0;
	a_ls_status = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = a_ls_trap;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTRAP, &sa, &old);
	fflush(NULL);
	a_ls_on = 1;
#ifdef __x86_64__
	__asm__ volatile("pushfq; orq %0, (%%rsp); popfq" : : "i"(A_TF) : "memory", "cc");
#endif
	ret = op(b);
#ifdef __x86_64__
	__asm__ volatile("pushfq; andq %0, (%%rsp); popfq" : : "i"(~A_TF) : "memory", "cc");
#endif
	a_ls_on = 0;
	sigaction(SIGTRAP, &old, NULL);
	printf("# %s: returned %d, %ld NMI points with the reader lock held\n", what, ret,
	       a_ls_points);
	if (a_ls_first_bad)
		T_FAIL("NMI dump at point %ld of %s under the reader lock: wait status %#x%s%s",
		       a_ls_first_bad, what, a_ls_status,
		       WIFSIGNALED(a_ls_status) ? ", signal " : "",
		       WIFSIGNALED(a_ls_status) ? strsignal(WTERMSIG(a_ls_status)) : "");
	T_ASSERT(a_ls_points > 0);
	return 0;
}

static struct trace_buffer *a_ls_setup(unsigned long size)
{
	struct trace_buffer *b = a_alloc(size, RB_FL_OVERWRITE);

	if (!b)
		return NULL;
	for (int cpu = 0; cpu < 2; cpu++)
		for (u32 i = 0; i < 120; i++)
			if (a_write(b, cpu, 100, i))
				return NULL;
	return b;
}

static int a_op_shrink(struct trace_buffer *b) { return ring_buffer_resize(b, 3 * PAGE_SIZE, 0); }
static int a_op_grow(struct trace_buffer *b) { return ring_buffer_resize(b, 16 * PAGE_SIZE, 0); }
static int a_op_order1(struct trace_buffer *b) { return ring_buffer_subbuf_order_set(b, 1); }
static int a_op_order0(struct trace_buffer *b) { return ring_buffer_subbuf_order_set(b, 0); }
static int a_op_reset(struct trace_buffer *b) { ring_buffer_reset_cpu(b, 0); return 0; }

/* a_lock_sweep() of @op on CPU 0 of a fresh a_ls_setup() buffer of 8 pages */
static int a_lock_case(int (*op)(struct trace_buffer *), const char *what)
{
	struct trace_buffer *b = a_ls_setup(8 * PAGE_SIZE);
	int ret;

	T_ASSERT(b);
	ret = a_lock_sweep(b, 0, op, what);
	ring_buffer_free(b);
	return ret;
}

/*
 * Claim 1: an NMI dump while the interrupted context holds the reader
 * lock of CPU 0's ring inside ring_buffer_resize() (rb_rebuild(), which
 * moves slots into a new array, sets the old slots' page to NULL, then
 * installs the array and nr in two stores).  The dump reads the ring in
 * place without the lock.
 */
static int attack_nmi_dump_in_resize_shrink(void)
{
	return a_lock_case(a_op_shrink, "ring_buffer_resize() 8 -> 3 pages");
}

static int attack_nmi_dump_in_resize_grow(void)
{
	return a_lock_case(a_op_grow, "ring_buffer_resize() 8 -> 16 pages");
}

/* The same inside ring_buffer_subbuf_order_set() (rb_reorder_cpu()). */
static int attack_nmi_dump_in_order_up(void)
{
	return a_lock_case(a_op_order1, "ring_buffer_subbuf_order_set(1)");
}

static int attack_nmi_dump_in_order_down(void)
{
	struct trace_buffer *b = a_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	int ret;

	T_ASSERT(b);
	T_EQ(ring_buffer_subbuf_order_set(b, 1), 0);
	for (int cpu = 0; cpu < 2; cpu++)
		for (u32 i = 0; i < 120; i++)
			T_EQ(a_write(b, cpu, 100, i), 0);
	ret = a_lock_sweep(b, 0, a_op_order0, "ring_buffer_subbuf_order_set(0)");
	ring_buffer_free(b);
	return ret;
}

/*
 * The same with the consuming reader of CPU 0 on sub-buffer 5 or later,
 * so that its slot index (seq % nr) lies past the end of a smaller ring.
 */
static int attack_nmi_dump_in_order_up_reader_ahead(void)
{
	struct trace_buffer *b = a_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	int ret;

	T_ASSERT(b);
	for (u32 i = 0; i < 260; i++)
		T_EQ(a_write(b, 0, 100, i), 0);
	for (int i = 0; i < 200; i++)
		T_ASSERT(ring_buffer_consume(b, 0, NULL, NULL));
	ret = a_lock_sweep(b, 0, a_op_order1, "ring_buffer_subbuf_order_set(1), reader ahead");
	ring_buffer_free(b);
	return ret;
}

static struct buffer_data_read_page *a_ls_rpage;

static int a_op_read_page(struct trace_buffer *b)
{
	return ring_buffer_read_page(b, a_ls_rpage, PAGE_SIZE, 0, 0);
}

/* The same inside ring_buffer_read_page() handing over a whole page. */
static int attack_nmi_dump_in_read_page(void)
{
	struct trace_buffer *b = a_ls_setup(8 * PAGE_SIZE);
	int ret;

	T_ASSERT(b);
	a_ls_rpage = NULL;
	T_EQ(ring_buffer_alloc_read_page(b, 0, &a_ls_rpage), 0);
	ret = a_lock_sweep(b, 0, a_op_read_page, "ring_buffer_read_page() of a whole page");
	ring_buffer_free_read_page(b, 0, a_ls_rpage);
	ring_buffer_free(b);
	return ret;
}

static struct t_map a_ls_map;

static int a_op_get_reader(struct trace_buffer *b)
{
	return ring_buffer_map_get_reader(b, 0);
}

/* The same inside ring_buffer_map_get_reader() of a mapped ring. */
static int attack_nmi_dump_in_get_reader(void)
{
	struct trace_buffer *b = a_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	int ret;

	T_ASSERT(b);
	T_EQ(t_map(&a_ls_map, b, 0), 0);
	for (u32 i = 0; i < 120; i++)
		T_EQ(a_write(b, 0, 100, i), 0);
	ret = a_lock_sweep(b, 0, a_op_get_reader, "ring_buffer_map_get_reader()");
	t_unmap(&a_ls_map);
	ring_buffer_free(b);
	return ret;
}

static int a_op_iter(struct trace_buffer *b)
{
	struct ring_buffer_iter *it = ring_buffer_read_start(b, 0, GFP_KERNEL);
	int n = 0;

	while (it && ring_buffer_iter_peek(it, NULL) && n < 200) {
		ring_buffer_iter_advance(it);
		n++;
	}
	ring_buffer_read_finish(it);
	return n;
}

/* The same inside an iterator's start and refills. */
static int attack_nmi_dump_in_iter(void)
{
	struct trace_buffer *b = a_ls_setup(8 * PAGE_SIZE);
	int ret;

	T_ASSERT(b);
	T_ASSERT(ring_buffer_consume(b, 0, NULL, NULL));
	ret = a_lock_sweep(b, 0, a_op_iter, "an iterator over CPU 0");
	ring_buffer_free(b);
	return ret;
}

/*
 * An NMI dump (ftrace_dump() on an oops in NMI, other CPUs running) of
 * CPU 1's ring while a reader on another CPU holds that ring's reader
 * lock and goes on.  The dump peeks: its cursor points at sub-buffer 0's
 * page in place.  The other reader then takes that sub-buffer with
 * ring_buffer_read_page(), which hands the page to its caller whole, and
 * frees it (ring_buffer_free_read_page(), as splice does once the pipe
 * buffer is released).  The dump goes on (RB_DUMPED: it does not try the
 * lock again) and decodes the freed page: slot 0 still says "sub-buffer
 * 0, taken", and its page pointer is the page given away.
 * The holder's steps are run by this thread between the dump's calls.
 */
static int attack_nmi_dump_vs_running_reader(void)
{
	struct trace_buffer *b = a_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct buffer_data_read_page *rp = NULL;
	raw_spinlock_t *lk;
	unsigned long flags;
	struct ring_buffer_event *e;
	int n = 0;

#ifdef RB_CFG_WEAK
	T_SKIP("NMIs read nothing where 64-bit atomics are not NMI-safe");
#endif
	T_ASSERT(b);
	for (u32 i = 0; i < 100; i++)
		T_EQ(a_write(b, 1, 100, i), 0);
	T_EQ(ring_buffer_alloc_read_page(b, 1, &rp), 0);
	lk = t_reader_lock(b, 1);

	/* the other CPU's reader holds the lock: the NMI dump peeks */
	raw_spin_lock_irqsave(lk, flags);
	sim_ctx.pc += NMI_OFFSET + HARDIRQ_OFFSET;
	e = ring_buffer_peek(b, 1, NULL, NULL);
	sim_ctx.pc -= NMI_OFFSET + HARDIRQ_OFFSET;
	raw_spin_unlock_irqrestore(lk, flags);
	T_ASSERT(e);
	T_EQ(a_seq_of(e), 0);

	/* the other reader takes sub-buffer 0 whole and frees it */
	T_EQ(ring_buffer_read_page(b, rp, PAGE_SIZE, 1, 1), 0);
	ring_buffer_free_read_page(b, 1, rp);
	rp = NULL;

	/* the dump goes on */
	sim_ctx.pc += NMI_OFFSET + HARDIRQ_OFFSET;
	while ((e = ring_buffer_consume(b, 1, NULL, NULL)) && n < 1000)
		n++;
	sim_ctx.pc -= NMI_OFFSET + HARDIRQ_OFFSET;
	printf("# the dump read %d more events\n", n);
	ring_buffer_free(b);
	return 0;
}

/*
 * Claim 3: control calls in any interleaving with readers and writers.
 * Two writer CPUs (write and reserve/commit/discard, sizes 8-400), a
 * reader CPU (read_page with a page allocated before each call or kept
 * across order changes, consume, an iterator), and this thread changing
 * the order, resizing, resetting and swapping with a spare buffer.
 * Every event read must be intact; no sanitizer report, no warning.
 */
static struct {
	struct trace_buffer *b;
	volatile int stop;
	volatile int bad;
	unsigned long reads, pages, refused;
} AC;

static void *ac_writer(void *arg)
{
	u32 seq = 0;
	u8 buf[512];

	(void)arg;
	while (!AC.stop) {
		unsigned int len = 8 + (seq * 37) % 393;
		struct ring_buffer_event *e;

		memcpy(buf, &seq, 4);
		memcpy(buf + 4, &len, 4);
		t_fill(buf + 8, len - 8, seq);
		t_clock_set(t_clock() + 3);
		if (seq % 3) {
			ring_buffer_write(AC.b, len, buf);
		} else if ((e = ring_buffer_lock_reserve(AC.b, len))) {
			memcpy(ring_buffer_event_data(e), buf, len);
			if (seq % 7 == 0)
				ring_buffer_discard_commit(AC.b, e);
			else
				ring_buffer_unlock_commit(AC.b);
		}
		seq++;
	}
	return NULL;
}

static int ac_check(const void *data, unsigned int evlen)
{
	u32 seq, len;

	memcpy(&seq, data, 4);
	memcpy(&len, (const u8 *)data + 4, 4);
	if (len < 8 || len > evlen || !t_check((const u8 *)data + 8, len - 8, seq)) {
		printf("# bad event: seq %u len %u (event length %u)\n", seq, len, evlen);
		return 0;
	}
	return 1;
}

static void *ac_reader(void *arg)
{
	struct buffer_data_read_page *rp = NULL;
	static struct t_pevent ev[4096];
	unsigned long k = 0;

	(void)arg;
	while (!AC.stop && !AC.bad) {
		int cpu = k & 1;
		struct ring_buffer_event *e;

		k++;
		if (k % 4 == 0 || !rp) {
			if (ring_buffer_alloc_read_page(AC.b, cpu, &rp))
				continue;
		}
		if (k % 3 == 0) {
			if (!ring_buffer_read_page(AC.b, rp, PAGE_SIZE << 2, cpu, 0)) {
				size_t size = ring_buffer_read_page_size(rp);
				int n = t_parse_page(ring_buffer_read_page_data(rp), size, ev, 4096, NULL);

				if (n < 0) {
					AC.bad = 1;
					break;
				}
				for (int i = 0; i < n; i++)
					if (!ac_check(ev[i].data, ev[i].len))
						AC.bad = 1;
				AC.pages++;
			} else {
				AC.refused++;
			}
		} else if (k % 3 == 1) {
			for (int i = 0; i < 20 && (e = ring_buffer_consume(AC.b, cpu, NULL, NULL)); i++) {
				if (!ac_check(ring_buffer_event_data(e), ring_buffer_event_length(e)))
					AC.bad = 1;
				AC.reads++;
			}
		} else {
			struct ring_buffer_iter *it = ring_buffer_read_start(AC.b, cpu, GFP_KERNEL);

			for (int i = 0; it && i < 30 && (e = ring_buffer_iter_peek(it, NULL)); i++) {
				if (!ac_check(ring_buffer_event_data(e), ring_buffer_event_length(e)))
					AC.bad = 1;
				ring_buffer_iter_advance(it);
			}
			ring_buffer_read_finish(it);
		}
	}
	ring_buffer_free_read_page(AC.b, 0, rp);
	return NULL;
}

static int attack_control_chaos(void)
{
	struct sim_thread w0 = { 0 }, w1 = { 0 }, r = { 0 };
	struct trace_buffer *spare;
	unsigned long n = 0, swaps = 0;
	double secs = 8;
	time_t end;

	memset((void *)&AC, 0, sizeof(AC));
	AC.b = a_alloc(16 * PAGE_SIZE, RB_FL_OVERWRITE);
	spare = a_alloc(16 * PAGE_SIZE, RB_FL_OVERWRITE);
	T_ASSERT(AC.b && spare);
	sim_thread_start(&w0, 0, ac_writer, NULL);
	sim_thread_start(&w1, 1, ac_writer, NULL);
	sim_thread_start(&r, 2, ac_reader, NULL);
	sim_bind(3);
	end = time(NULL) + (time_t)secs;
	while (time(NULL) < end && !AC.bad && !sim_warnings()) {
		int order = (n * 7) % 3;

		switch (n % 6) {
		case 0:
			ring_buffer_subbuf_order_set(AC.b, order);
			ring_buffer_subbuf_order_set(spare, order);
			break;
		case 1:
			ring_buffer_resize(AC.b, ((n % 5) + 2) * PAGE_SIZE, n % 2 ? 0 : RING_BUFFER_ALL_CPUS);
			break;
		case 2:
			ring_buffer_reset_cpu(AC.b, n % 2);
			break;
		case 3:
			/* the same size, so that the swap can happen */
			ring_buffer_resize(spare, ring_buffer_size(AC.b, 1), 1);
			swaps += !ring_buffer_swap_cpu(spare, AC.b, 1);
			break;
		case 4:
			ring_buffer_change_overwrite(AC.b, n % 4 == 0);
			break;
		default:
			usleep(1000);
		}
		n++;
	}
	AC.stop = 1;
	sim_thread_join(&w0);
	sim_thread_join(&w1);
	sim_thread_join(&r);
	sim_bind(0);
	printf("# %lu control calls, %lu swaps, %lu events consumed, %lu pages read, %lu read_page refusals\n",
	       n, swaps, AC.reads, AC.pages, AC.refused);
	ring_buffer_free(AC.b);
	ring_buffer_free(spare);
	T_ASSERT(!AC.bad);
	/* a swap refused every time would test none */
	T_ASSERT(swaps > 0);
	return 0;
}

/*
 * Order 1 -> 0 with the writer (and the reader) still in sub-buffer 0,
 * about 6.5 KB into its 8 KB page: rb_reorder_cpu() installs the new
 * ring of 4 KB pages before rb_set_geometry() shrinks cap and shift.
 * The dump's payload reads are off: any bad access is the ring buffer's.
 */
static int attack_nmi_dump_in_order_down_same_page(void)
{
	struct trace_buffer *b = a_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	int ret;

	T_ASSERT(b);
	T_EQ(ring_buffer_subbuf_order_set(b, 1), 0);
	for (u32 i = 0; i < 60; i++)
		T_EQ(a_write(b, 0, 100, i), 0);
	a_ls_no_touch = 1;
	ret = a_lock_sweep(b, 0, a_op_order0, "ring_buffer_subbuf_order_set(0), writer in sub-buffer 0");
	a_ls_no_touch = 0;
	ring_buffer_free(b);
	return ret;
}

static int a_op_map(struct trace_buffer *b)
{
	return t_map(&a_ls_map, b, 0);
}

/* The same inside ring_buffer_map() (first mapping: numbering, meta page). */
static int attack_nmi_dump_in_map(void)
{
	struct trace_buffer *b = a_ls_setup(8 * PAGE_SIZE);
	int ret;

	T_ASSERT(b);
	T_ASSERT(ring_buffer_consume(b, 0, NULL, NULL));
	ret = a_lock_sweep(b, 0, a_op_map, "ring_buffer_map()");
	t_unmap(&a_ls_map);
	ring_buffer_free(b);
	return ret;
}

/*
 * Claim 1, "or after an oops": the oops hits a context that holds CPU 0's
 * reader lock (in the middle of a consuming read, say), not in NMI; the
 * die notifier's ftrace_dump() then reads CPU 0's ring from that same
 * context.  rb_lock() only tries the lock in NMI: here it spins on the
 * lock its own context holds.  Run in a child with a 5 s alarm.
 */
static int attack_oops_dump_reader_locked(void)
{
	struct trace_buffer *b = a_ls_setup(8 * PAGE_SIZE);
	pid_t pid;
	int st;

	T_ASSERT(b);
	fflush(NULL);
	pid = sim_fork();
	if (pid == 0) {
		unsigned long flags, n = 0;

		alarm(5);
		sim_warn_hush(1);
		raw_spin_lock_irqsave(t_reader_lock(b, 0), flags);
		/* the oops (oops_begin() sets oops_in_progress), then
		 * ftrace_dump() from the same (task) context */
		oops_in_progress = 1;
		while (ring_buffer_consume(b, 0, NULL, NULL) && n < 1000)
			n++;
		printf("# dump read %lu events\n", n);
		fflush(NULL);
		_exit(0);
	}
	T_ASSERT(pid > 0 && waitpid(pid, &st, 0) == pid);
	ring_buffer_free(b);
	if (WIFSIGNALED(st))
		T_FAIL("dump after an oops under the reader lock: killed by %s%s",
		       strsignal(WTERMSIG(st)),
		       WTERMSIG(st) == SIGALRM ? " (hung 5 s)" : "");
	T_EQ(WEXITSTATUS(st), 0);
	return 0;
}

/*
 * Claim 4 through ring_buffer_read_page(): the reader is in the middle of
 * sub-buffer 0 (5 events consumed) when the writer laps the ring many
 * times.  Pages read afterwards must continue the ids where the reader
 * stood, with each gap flagged (RB_MISSED_EVENTS) on the page after it
 * and, where stored, its exact size; read + lost + left = written and
 * the overrun counter equals the losses.
 */
static int attack_read_page_lap_mid_page(void)
{
	struct trace_buffer *b = a_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct buffer_data_read_page *rp = NULL;
	static struct t_pevent ev[512];
	unsigned long lost_sum = 0, got = 5, commit_word;
	long next = 5;
	u32 w = 0;
	int pages = 0;

	T_ASSERT(b);
	for (; w < 30; w++)
		T_EQ(a_write(b, 0, 100, w), 0);
	for (int i = 0; i < 5; i++)
		T_EQ(a_seq_of(ring_buffer_consume(b, 0, NULL, NULL)), i);
	for (; w < 700; w++)
		T_EQ(a_write(b, 0, 100, w), 0);
	T_EQ(ring_buffer_alloc_read_page(b, 0, &rp), 0);
	while (!ring_buffer_read_page(b, rp, PAGE_SIZE, 0, 0)) {
		u8 *pg = ring_buffer_read_page_data(rp);
		int missed, n = t_parse_page(pg, PAGE_SIZE, ev, 512, &missed);
		unsigned long lost = 0;

		T_ASSERT(n >= 0);
		memcpy(&commit_word, pg + 8, sizeof(commit_word));
		if (commit_word & T_MISSED_STORED)
			memcpy(&lost, pg + T_SB_HDR + (commit_word & T_COMMIT_MASK), sizeof(lost));
		for (int i = 0; i < n; i++) {
			u32 id;

			memcpy(&id, ev[i].data, 4);
			if (i == 0 && missed) {
				if ((commit_word & T_MISSED_STORED) && id != next + lost)
					T_FAIL("page %d: first id %u after %ld, %lu reported lost",
					       pages, id, next - 1, lost);
				if (!(commit_word & T_MISSED_STORED))
					lost = id - next;
				lost_sum += id - next;
			} else if (id != next) {
				T_FAIL("page %d event %d: id %u, expected %ld (missed flag %d)",
				       pages, i, id, next, missed);
			}
			next = id + 1;
			got++;
		}
		pages++;
	}
	printf("# %d pages, %lu events, %lu lost, overrun %lu, last id %ld of %u\n",
	       pages, got, lost_sum, ring_buffer_overrun_cpu(b, 0), next - 1, w);
	T_EQ(next, w);
	T_EQ(got + lost_sum, w);
	T_EQ(ring_buffer_overrun_cpu(b, 0), lost_sum);
	T_EQ(ring_buffer_entries_cpu(b, 0), 0);
	ring_buffer_free_read_page(b, 0, rp);
	ring_buffer_free(b);
	return 0;
}

/* The same inside ring_buffer_reset_cpu(). */
static int attack_nmi_dump_in_reset(void)
{
	return a_lock_case(a_op_reset, "ring_buffer_reset_cpu()");
}

#include "t_probe.h"
const struct rb_case rb_attack_cases[] = {
#define PROBE(n) { #n, n },
#include "t_probe_list.h"
#undef PROBE
	{ "attack_range_kept_after_reject", attack_range_kept_after_reject },
	{ "attack_range_misaligned_payload", attack_range_misaligned_payload },
	{ "attack_order_change_entries", attack_order_change_entries },
	{ "attack_resize_mid_page", attack_resize_mid_page },
	{ "attack_iter_lapped_steps", attack_iter_lapped_steps },
	{ "attack_nmi_dump_in_take", attack_nmi_dump_in_take },
	{ "attack_nmi_dump_in_resize_shrink", attack_nmi_dump_in_resize_shrink },
	{ "attack_nmi_dump_in_resize_grow", attack_nmi_dump_in_resize_grow },
	{ "attack_nmi_dump_in_order_up", attack_nmi_dump_in_order_up },
	{ "attack_nmi_dump_in_order_down", attack_nmi_dump_in_order_down },
	{ "attack_nmi_dump_in_order_up_reader_ahead", attack_nmi_dump_in_order_up_reader_ahead },
	{ "attack_nmi_dump_in_reset", attack_nmi_dump_in_reset },
	{ "attack_nmi_dump_in_read_page", attack_nmi_dump_in_read_page },
	{ "attack_nmi_dump_in_get_reader", attack_nmi_dump_in_get_reader },
	{ "attack_nmi_dump_in_iter", attack_nmi_dump_in_iter },
	{ "attack_nmi_dump_vs_running_reader", attack_nmi_dump_vs_running_reader },
	{ "attack_control_chaos", attack_control_chaos },
	{ "attack_nmi_dump_in_order_down_same_page", attack_nmi_dump_in_order_down_same_page },
	{ "attack_nmi_dump_in_map", attack_nmi_dump_in_map },
	{ "attack_oops_dump_reader_locked", attack_oops_dump_reader_locked },
	{ "attack_read_page_lap_mid_page", attack_read_page_lap_mid_page },
};
const int rb_nr_attack_cases = ARRAY_SIZE(rb_attack_cases);
