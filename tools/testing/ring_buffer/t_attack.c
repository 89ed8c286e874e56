// SPDX-License-Identifier: GPL-2.0
/*
 * Cases written against the claims of kernel/trace/ring_buffer.c: each
 * builds the interleaving or input that a suspected defect needs and
 * asserts what the claim promises.  A case that fails on the current file
 * documents a defect; see the comment above each.
 */
#include "rb_test.h"

#define A_NCPU 4		/* sim_init(4): nr_cpu_ids */

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
		unsigned long hdr = (24 + *n * 8 + PAGE_SIZE - 1) / PAGE_SIZE * PAGE_SIZE;

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
		u64 *seqs = (u64 *)(pm + 24);
		u8 *pages = pm + (24 + n * 8 + PAGE_SIZE - 1) / PAGE_SIZE * PAGE_SIZE;

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
	if (!strstr(a_log, "[1] commit beyond")) {
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

	return pm + (24 + n * 8 + PAGE_SIZE - 1) / PAGE_SIZE * PAGE_SIZE + i * PAGE_SIZE;
}

/* Index of the page of @cpu's part holding sub-buffer @seq, or -1. */
static long a_part_find(const struct t_area *a, int cpu, u64 seq, unsigned long part,
			unsigned long n)
{
	const u64 *seqs = (const u64 *)(a->start + PAGE_SIZE + cpu * part + 24);

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

const struct rb_case rb_attack_cases[] = {
	{ "attack_range_kept_after_reject", attack_range_kept_after_reject },
	{ "attack_range_misaligned_payload", attack_range_misaligned_payload },
	{ "attack_order_change_entries", attack_order_change_entries },
	{ "attack_resize_mid_page", attack_resize_mid_page },
	{ "attack_iter_lapped_steps", attack_iter_lapped_steps },
	{ "attack_nmi_dump_in_take", attack_nmi_dump_in_take },
};
const int rb_nr_attack_cases = ARRAY_SIZE(rb_attack_cases);
