// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests, one or more per API group, each checking a rule of the 6.12
 * contract (see the project notes).  Single simulated CPU thread unless
 * stated; interrupt context is entered by hand where nesting is needed.
 */
#include <semaphore.h>
#include <signal.h>
#include <sys/wait.h>

#include "rb_test.h"

#define PAGE_DATA (PAGE_SIZE - T_SB_HDR)

/*
 * RB_CFG_WEAK builds as for an arch that must align 64-bit loads (payloads
 * 8-byte aligned) and whose 64-bit atomics are not NMI-safe (NMIs refused).
 */
#ifdef RB_CFG_WEAK
#define T_PAYLOAD_ALIGN 8
#define T_NMI_REFUSED 1
#else
#define T_PAYLOAD_ALIGN 4
#define T_NMI_REFUSED 0
#endif
/* Ours does not read from NMI there either (6.12 does). */
#if defined(RB_CFG_WEAK) && !defined(RB_STOCK)
#define T_NMI_NO_READ 1
#else
#define T_NMI_NO_READ 0
#endif

static struct trace_buffer *t_alloc(unsigned long size, unsigned int flags)
{
	struct trace_buffer *b = ring_buffer_alloc(size, flags);

	if (b)
		ring_buffer_set_clock(b, t_clock);
	return b;
}

static int t_write(struct trace_buffer *b, unsigned int len, u32 seed)
{
	static __thread u8 buf[4 * PAGE_SIZE];

	t_fill(buf, len, seed);
	return ring_buffer_write(b, len, buf);
}

/* Enter or leave a simulated interrupt level by hand (no signal). */
static void t_enter(unsigned int offset)
{
	sim_ctx.pc += offset;
}

static void t_leave(unsigned int offset)
{
	sim_ctx.pc -= offset;
}

static int t_consume_check(struct trace_buffer *b, int cpu, unsigned int len,
			   u32 seed, u64 ts_want, unsigned long lost_want)
{
	struct ring_buffer_event *e;
	unsigned long lost = 12345;
	u64 ts = 0;

	e = ring_buffer_consume(b, cpu, &ts, &lost);
	if (!e)
		T_FAIL("no event (want seed %u)", seed);
	/* the payload padded, nothing more (length 0 is 1) */
	if (ring_buffer_event_length(e) < len ||
	    ring_buffer_event_length(e) >= (len ? len : 1) + T_PAYLOAD_ALIGN)
		T_FAIL("length %u for a %u byte write", ring_buffer_event_length(e), len);
	if (!t_check(ring_buffer_event_data(e), len, seed))
		T_FAIL("payload of seed %u corrupted", seed);
	if (ts_want != (u64)-1 && ts != ts_want)
		T_FAIL("ts %llu, want %llu", (unsigned long long)ts, (unsigned long long)ts_want);
	if (lost != lost_want)
		T_FAIL("lost_events %lu, want %lu", lost, lost_want);
	return 0;
}

static int test_alloc_free(void)
{
	struct trace_buffer *b = t_alloc(10000, RB_FL_OVERWRITE);
	int cpu;

	T_ASSERT(b);
	for_each_online_cpu(cpu) {
		T_ASSERT(ring_buffer_size(b, cpu) >= 10000);
		T_ASSERT(ring_buffer_empty_cpu(b, cpu));
		T_EQ(ring_buffer_entries_cpu(b, cpu), 0);
	}
	T_ASSERT(ring_buffer_empty(b));
	T_EQ(ring_buffer_entries(b), 0);
	T_EQ(ring_buffer_overruns(b), 0);
	T_ASSERT(ring_buffer_record_is_on(b));
	T_EQ(ring_buffer_subbuf_size_get(b), PAGE_SIZE);
	ring_buffer_free(b);
	return 0;
}

static int test_write_consume(void)
{
	struct trace_buffer *b = t_alloc(64 * PAGE_SIZE, RB_FL_OVERWRITE);
	static const unsigned int lens[] = { 8, 24, 64, 200, 1, 3, 100 };
	int i;

	T_ASSERT(b);
	for (i = 0; i < 500; i++) {
		t_clock_set(1000 + i * 10);
		T_EQ(t_write(b, lens[i % 7], i), 0);
	}
	T_EQ(ring_buffer_entries_cpu(b, 0), 500);
	T_EQ(ring_buffer_entries(b), 500);
	T_ASSERT(!ring_buffer_empty_cpu(b, 0));
	T_ASSERT(ring_buffer_empty_cpu(b, 1));
	for (i = 0; i < 500; i++)
		if (t_consume_check(b, 0, lens[i % 7], i, 1000 + i * 10, 0))
			T_FAIL("event %d", i);
	T_ASSERT(!ring_buffer_consume(b, 0, NULL, NULL));
	T_ASSERT(ring_buffer_empty_cpu(b, 0));
	T_EQ(ring_buffer_entries_cpu(b, 0), 0);
	T_EQ(ring_buffer_read_events_cpu(b, 0), 500);
	ring_buffer_free(b);
	return 0;
}

/* Lengths across the format boundaries, up to the largest payload. */
static int test_event_sizes(void)
{
	struct trace_buffer *b = t_alloc(64 * PAGE_SIZE, RB_FL_OVERWRITE);
	unsigned long max;
	unsigned int lens[] = { 0, 1, 2, 3, 4, 5, 7, 8, 9, 104, 107, 108, 109, 111,
				112, 113, 114, 116, 117, 200, 1000, 2000, 0, 0 };
	int n = ARRAY_SIZE(lens), i;
	u8 big[PAGE_SIZE + 8];

	T_ASSERT(b);
	max = ring_buffer_max_event_size(b);
	T_EQ(max, PAGE_DATA - 8);
	lens[n - 2] = max - 1;
	lens[n - 1] = max;
	for (i = 0; i < n; i++) {
		t_clock_set(5000 + i);
		T_EQ(t_write(b, lens[i], i), 0);
	}
	/* one byte more than the largest payload is refused, counted nowhere */
	t_fill(big, max + 1, 1);
	T_ASSERT(ring_buffer_write(b, max + 1, big) != 0);
	T_ASSERT(!ring_buffer_lock_reserve(b, max + 1));
	T_EQ(preempt_count(), 0);
	for (i = 0; i < n; i++)
		if (t_consume_check(b, 0, lens[i], i, 5000 + i, 0))
			T_FAIL("length %u", lens[i]);
	T_EQ(ring_buffer_dropped_events_cpu(b, 0), 0);
	T_EQ(ring_buffer_commit_overrun_cpu(b, 0), 0);
	T_EQ(ring_buffer_overrun_cpu(b, 0), 0);
	ring_buffer_free(b);
	return 0;
}

static int test_peek(void)
{
	struct trace_buffer *b = t_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_event *e1, *e2;
	u64 ts1 = 0, ts2 = 0;

	T_ASSERT(b);
	T_ASSERT(!ring_buffer_peek(b, 0, NULL, NULL));
	t_clock_set(777);
	T_EQ(t_write(b, 16, 42), 0);
	e1 = ring_buffer_peek(b, 0, &ts1, NULL);
	e2 = ring_buffer_peek(b, 0, &ts2, NULL);
	T_ASSERT(e1 && e2);
	T_EQ(ts1, 777);
	T_EQ(ts2, 777);
	T_ASSERT(t_check(ring_buffer_event_data(e2), 16, 42));
	T_EQ(ring_buffer_entries_cpu(b, 0), 1);
	if (t_consume_check(b, 0, 16, 42, 777, 0))
		return 1;
	T_ASSERT(!ring_buffer_peek(b, 0, NULL, NULL));
	ring_buffer_free(b);
	return 0;
}

/* Overwrite mode: the oldest events go, reported once as lost_events. */
static int test_overwrite_lost(void)
{
	struct trace_buffer *b = t_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_event *e;
	unsigned long lost, entries, overrun;
	int i, n = 2000, first;
	u64 ts;

	T_ASSERT(b);
	for (i = 0; i < n; i++) {
		t_clock_set(100 + i);
		T_EQ(t_write(b, 60, i), 0);
	}
	entries = ring_buffer_entries_cpu(b, 0);
	overrun = ring_buffer_overrun_cpu(b, 0);
	T_ASSERT(overrun > 0);
	T_EQ(entries + overrun, n);
	T_EQ(ring_buffer_dropped_events_cpu(b, 0), 0);
	e = ring_buffer_consume(b, 0, &ts, &lost);
	T_ASSERT(e);
	first = ts - 100;
	T_ASSERT(t_check(ring_buffer_event_data(e), 60, first));
	/* everything before the first event read was lost, and said so */
	T_EQ(lost, first);
	T_EQ(lost, overrun);
	for (i = first + 1; i < n; i++)
		if (t_consume_check(b, 0, 60, i, 100 + i, 0))
			T_FAIL("event %d", i);
	T_ASSERT(!ring_buffer_consume(b, 0, NULL, NULL));
	T_EQ(ring_buffer_read_events_cpu(b, 0) + ring_buffer_overrun_cpu(b, 0), n);
	/*
	 * A consume with no lost_events pointer (the benchmark's, the
	 * self-tests') takes the loss all the same: the next one, after no
	 * gap, reports none (stock clears its count on every consume).
	 */
	ring_buffer_free(b);
	b = t_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	T_ASSERT(b);
	for (i = 0; i < n; i++)
		T_EQ(t_write(b, 60, i), 0);
	while (ring_buffer_consume(b, 0, NULL, NULL))
		;
	T_EQ(t_write(b, 60, 0), 0);
	T_ASSERT(ring_buffer_consume(b, 0, NULL, &lost));
	T_EQ(lost, 0);
	ring_buffer_free(b);
	return 0;
}

/* Fill a 4-page ring in overwrite mode with events 0..1999 at stamps 100 + i. */
static struct trace_buffer *t_lapped(void)
{
	struct trace_buffer *b = t_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);

	for (int i = 0; b && i < 2000; i++) {
		t_clock_set(100 + i);
		if (t_write(b, 60, i))
			return NULL;
	}
	return b;
}

/*
 * A sub-buffer order change keeps the loss not reported yet, announced by
 * a peek or not: it comes with the next event (the unread events the
 * change throws away are not counted, see unit_subbuf_order).
 */
static int test_order_change_keeps_loss(void)
{
	for (int peek = 0; peek < 2; peek++) {
		struct trace_buffer *b = t_lapped();
		unsigned long lost = 12345, over;

		T_ASSERT(b);
		over = ring_buffer_overrun_cpu(b, 0);
		T_ASSERT(over > 0);
		if (peek) {
			T_ASSERT(ring_buffer_peek(b, 0, NULL, &lost));
			T_EQ(lost, over);
		}
		T_EQ(ring_buffer_subbuf_order_set(b, 1), 0);
		T_EQ(t_write(b, 60, 2000), 0);
		if (t_consume_check(b, 0, 60, 2000, (u64)-1, over))
			T_FAIL("the loss before the order change (peek %d)", peek);
		ring_buffer_free(b);
	}
	return 0;
}

/* The dump of an NMI that finds the reader lock held reports the loss too. */
static int test_dump_reports_loss(void)
{
	struct trace_buffer *b = t_lapped();
	unsigned long lost = 12345, plost = 12345, over, flags;
	struct ring_buffer_event *e;
	raw_spinlock_t *lock;
	u64 ts = 0;

#ifdef RB_CFG_WEAK
	T_SKIP("an NMI reads nothing where 64-bit atomics are not NMI-safe");
#endif
	T_ASSERT(b);
	over = ring_buffer_overrun_cpu(b, 0);
	lock = t_reader_lock(b, 0);
	raw_spin_lock_irqsave(lock, flags);
	t_enter(NMI_OFFSET + HARDIRQ_OFFSET);
	T_ASSERT(ring_buffer_peek(b, 0, NULL, &plost));
	e = ring_buffer_consume(b, 0, &ts, &lost);
	T_ASSERT(e && ts == 100 + over);
	T_ASSERT(t_check(ring_buffer_event_data(e), 60, over));
	T_EQ(plost, over);
	T_EQ(lost, over);
	/* once */
	T_ASSERT(ring_buffer_consume(b, 0, NULL, &lost));
	T_EQ(lost, 0);
	t_leave(NMI_OFFSET + HARDIRQ_OFFSET);
	raw_spin_unlock_irqrestore(lock, flags);
	ring_buffer_free(b);
	return 0;
}

/*
 * Consume CPU 0 to the end as an NMI dump would (reader lock held): every
 * event's lost count is the gap before it, from @prev (the stamp of the
 * reader's last event is 100 + its number).  Returns events read, or -1.
 */
static long t_dump_all(struct trace_buffer *b, long prev, unsigned long *total)
{
	raw_spinlock_t *lock = t_reader_lock(b, 0);
	struct ring_buffer_event *e;
	unsigned long lost, flags;
	long n = 0, bad = 0;
	u64 ts;

	*total = 0;
	raw_spin_lock_irqsave(lock, flags);
	t_enter(NMI_OFFSET + HARDIRQ_OFFSET);
	while ((e = ring_buffer_consume(b, 0, &ts, &lost))) {
		long id = ts - 100;

		if ((long)lost != id - prev - 1 && !bad++)
			printf("# dump: event %ld after %ld, %lu reported lost\n", id, prev, lost);
		*total += lost;
		prev = id;
		n++;
	}
	t_leave(NMI_OFFSET + HARDIRQ_OFFSET);
	raw_spin_unlock_irqrestore(lock, flags);
	return bad ? -1 : n;
}

/*
 * The dump reads the rest of the reader's page, also once the writer has
 * reused its slot, and reports a loss at the gap, not before: in
 * producer/consumer mode (nothing lost) and in overwrite mode (the writer
 * laps the ring after the reader's page).
 */
static int test_dump_reader_page(void)
{
#ifdef RB_CFG_WEAK
	T_SKIP("an NMI reads nothing where 64-bit atomics are not NMI-safe");
#endif
	for (int ow = 0; ow < 2; ow++) {
		struct trace_buffer *b = t_alloc(4 * PAGE_SIZE, ow ? RB_FL_OVERWRITE : 0);
		unsigned long lost, total;
		long i, n, end = ow ? 4000 : 100;
		u64 ts;

		T_ASSERT(b);
		for (i = 0; i < (ow ? 2000 : 100); i++) {
			t_clock_set(100 + i);
			T_EQ(t_write(b, 60, i), 0);
		}
		for (int k = 0; k < 3; k++)
			T_ASSERT(ring_buffer_consume(b, 0, &ts, &lost));
		/* the writer reuses the reader's slot, laps the ring if it may */
		for (; i < end || !ow; i++) {
			t_clock_set(100 + i);
			if (t_write(b, 60, i))
				break;
		}
		n = t_dump_all(b, ts - 100, &total);
		T_ASSERT(n > 0);
		if (ow)
			T_EQ(total, ring_buffer_overrun_cpu(b, 0) -
			     (ts - 100 - 2));	/* what the reader had reported */
		else
			T_EQ(n + 3, i);
		ring_buffer_free(b);
	}
	return 0;
}

/* Producer/consumer mode: the newest writes fail, nothing is lost. */
static int test_no_overwrite(void)
{
	struct trace_buffer *b = t_alloc(4 * PAGE_SIZE, 0);
	int i, ok = 0, failed = 0;
	unsigned long room;
	int per;

	T_ASSERT(b);
	for (i = 0; i < 2000; i++) {
		t_clock_set(100 + i);
		if (t_write(b, 60, ok) == 0)
			ok++;
		else
			failed++;
	}
	T_ASSERT(failed > 0);
	/* at least the ring minus one sub-buffer was usable */
	T_ASSERT(ok * 64 >= 2 * PAGE_DATA);
	T_EQ(ring_buffer_dropped_events_cpu(b, 0) + ring_buffer_commit_overrun_cpu(b, 0),
	     failed);
	T_EQ(ring_buffer_overrun_cpu(b, 0), 0);
	T_EQ(ring_buffer_entries_cpu(b, 0), ok);
	for (i = 0; i < ok; i++)
		if (t_consume_check(b, 0, 60, i, (u64)-1, 0))
			T_FAIL("event %d of %d", i, ok);
	T_ASSERT(!ring_buffer_consume(b, 0, NULL, NULL));
	/* room again */
	T_EQ(t_write(b, 60, 9), 0);
	T_ASSERT(!t_consume_check(b, 0, 60, 9, (u64)-1, 0));
#ifndef RB_STOCK
	/*
	 * Exactly: once the reader holds sub-buffer 1, the writer may reuse
	 * the slots of 0 and of 1 (the reader left its spare page there),
	 * two sub-buffers of @per events (as many as the first one took),
	 * and not one more.
	 */
	ring_buffer_free(b);
	b = t_alloc(4 * PAGE_SIZE, 0);
	T_ASSERT(b);
	for (per = 0, room = t_room(b, 0); !t_write(b, 60, per); per++) {
		if (t_room(b, 0) > room)
			break;
		room = t_room(b, 0);
	}
	T_ASSERT(per > 10);
	while (!t_write(b, 60, 0))
		;
	for (i = 0; i <= per; i++)
		T_ASSERT(ring_buffer_consume(b, 0, NULL, NULL));
	for (i = 0; !t_write(b, 60, i); i++)
		;
	T_EQ(i, 2 * per);
#endif
	ring_buffer_free(b);
	return 0;
}

static int test_reserve_commit_discard(void)
{
	struct trace_buffer *b = t_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_event *e;

	T_ASSERT(b);
	T_EQ(preempt_count(), 0);
	t_clock_set(50);
	e = ring_buffer_lock_reserve(b, 20);
	T_ASSERT(e);
	/* reserve returns with preemption disabled */
	T_ASSERT(preempt_count() & PREEMPT_MASK);
	T_EQ(ring_buffer_event_time_stamp(b, e), 50);
	t_fill(ring_buffer_event_data(e), 20, 1);
	T_EQ(ring_buffer_unlock_commit(b), 0);
	T_EQ(preempt_count(), 0);

	t_clock_set(60);
	e = ring_buffer_lock_reserve(b, 30);
	T_ASSERT(e);
	ring_buffer_discard_commit(b, e);
	T_EQ(preempt_count(), 0);

	t_clock_set(70);
	e = ring_buffer_lock_reserve(b, 12);
	T_ASSERT(e);
	t_fill(ring_buffer_event_data(e), 12, 3);
	T_EQ(ring_buffer_unlock_commit(b), 0);

	T_EQ(ring_buffer_entries_cpu(b, 0), 2);
	if (t_consume_check(b, 0, 20, 1, 50, 0) || t_consume_check(b, 0, 12, 3, 70, 0))
		return 1;
	T_ASSERT(!ring_buffer_consume(b, 0, NULL, NULL));
	ring_buffer_free(b);
	return 0;
}

/* The recursion guard, nest_start/nest_end, and real nesting levels. */
/*
 * Overwrite mode with an event reserved and not committed: interrupts that
 * fill the ring may not lap the open commit.  What they are refused counts
 * as commit overrun, not as dropped; every event kept reads back intact.
 */
static int test_open_commit_not_lapped(void)
{
	struct trace_buffer *b = t_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_event *outer;
	int i, ok = 0, refused = 0;

	T_ASSERT(b);
	t_clock_set(10);
	outer = ring_buffer_lock_reserve(b, 16);
	T_ASSERT(outer);
	t_fill(ring_buffer_event_data(outer), 16, 1);
	t_enter(HARDIRQ_OFFSET);
	for (i = 0; i < 2000; i++) {
		t_clock_set(11 + i);
		if (t_write(b, 60, 2 + ok) == 0)
			ok++;
		else
			refused++;
	}
	t_leave(HARDIRQ_OFFSET);
	T_ASSERT(ok > 0);
	T_EQ(refused, 2000 - ok);
	T_ASSERT(refused > 0);
	T_EQ(ring_buffer_commit_overrun_cpu(b, 0), refused);
	T_EQ(ring_buffer_dropped_events_cpu(b, 0), 0);
	T_EQ(ring_buffer_unlock_commit(b), 0);
	T_EQ(ring_buffer_overrun_cpu(b, 0), 0);
	T_EQ(ring_buffer_entries_cpu(b, 0), ok + 1);
	if (t_consume_check(b, 0, 16, 1, (u64)-1, 0))
		T_FAIL("the event reserved first");
	for (i = 0; i < ok; i++)
		if (t_consume_check(b, 0, 60, 2 + i, (u64)-1, 0))
			T_FAIL("event %d of %d", i, ok);
	T_ASSERT(!ring_buffer_consume(b, 0, NULL, NULL));
	ring_buffer_free(b);
	return 0;
}

static int test_recursion_nesting(void)
{
	struct trace_buffer *b = t_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_event *outer, *inner, *deep, *extra;
	unsigned int pc;
	u64 ts;

	T_ASSERT(b);
	t_clock_set(10);
	outer = ring_buffer_lock_reserve(b, 8);
	T_ASSERT(outer);
	pc = preempt_count();
	/*
	 * Same context again: refused, preemption left as it was -- after at
	 * most one extra reserve allowed for a context switch in progress.
	 */
	extra = ring_buffer_lock_reserve(b, 8);
	if (extra) {
		T_ASSERT(!ring_buffer_lock_reserve(b, 8));
		t_fill(ring_buffer_event_data(extra), 8, 100);
		T_EQ(ring_buffer_unlock_commit(b), 0);
	}
	T_EQ(preempt_count(), pc);
	/* nest_start lets exactly one more level through */
	ring_buffer_nest_start(b);
	inner = ring_buffer_lock_reserve(b, 8);
	T_ASSERT(inner);
	t_fill(ring_buffer_event_data(inner), 8, 2);
	T_EQ(ring_buffer_unlock_commit(b), 0);
	ring_buffer_nest_end(b);

	/* softirq, irq and NMI each nest once */
	t_enter(SOFTIRQ_OFFSET);
	t_clock_set(11);
	inner = ring_buffer_lock_reserve(b, 8);
	T_ASSERT(inner);
	t_fill(ring_buffer_event_data(inner), 8, 3);
	t_enter(HARDIRQ_OFFSET);
	t_clock_set(12);
	deep = ring_buffer_lock_reserve(b, 8);
	T_ASSERT(deep);
	/* the stamp of the current nesting level (histograms rely on it) */
	T_EQ(ring_buffer_event_time_stamp(b, deep), 12);
	t_fill(ring_buffer_event_data(deep), 8, 4);
	t_enter(NMI_OFFSET + HARDIRQ_OFFSET);
	T_EQ(t_write(b, 8, 5), T_NMI_REFUSED ? -EBUSY : 0);
	t_leave(NMI_OFFSET + HARDIRQ_OFFSET);
	T_EQ(ring_buffer_unlock_commit(b), 0);
	t_leave(HARDIRQ_OFFSET);
	T_EQ(ring_buffer_unlock_commit(b), 0);
	t_leave(SOFTIRQ_OFFSET);

	t_fill(ring_buffer_event_data(outer), 8, 1);
	T_EQ(ring_buffer_unlock_commit(b), 0);
	T_EQ(preempt_count(), 0);

	/* reserve order is buffer order */
	for (u32 seed = 1; seed <= 5 - T_NMI_REFUSED; seed++) {
		struct ring_buffer_event *e = ring_buffer_consume(b, 0, &ts, NULL);

		T_ASSERT(e);
		if (extra && seed == 2 && t_check(ring_buffer_event_data(e), 8, 100)) {
			extra = NULL;
			seed--;
			continue;
		}
		if (!t_check(ring_buffer_event_data(e), 8, seed))
			T_FAIL("event %u out of order", seed);
	}
	T_ASSERT(!ring_buffer_consume(b, 0, NULL, NULL));
	ring_buffer_free(b);
	return 0;
}

/* trace.c's temp event: zero header, length in array[0], data at array[1] */
static int test_event_data_zero_header(void)
{
	u32 fake[16] = { 0, 20 };
	struct ring_buffer_event *e = (struct ring_buffer_event *)fake;

	T_ASSERT(ring_buffer_event_data(e) == (void *)&fake[2]);
	return 0;
}

static int test_iterator(void)
{
	struct trace_buffer *b = t_alloc(16 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_iter *it;
	struct ring_buffer_event *e;
	int i, n = 300;
	u64 ts;

	T_ASSERT(b);
	for (i = 0; i < n; i++) {
		t_clock_set(1000 + i);
		T_EQ(t_write(b, 4 + i % 50, i), 0);
	}
	it = ring_buffer_read_start(b, 0, GFP_KERNEL);
	T_ASSERT(it);
	/* resize and order changes are refused while an iterator is open */
	T_EQ(ring_buffer_resize(b, 32 * PAGE_SIZE, 0), -EBUSY);
	T_EQ(ring_buffer_subbuf_order_set(b, 1), -EBUSY);
	for (i = 0; i < n; i++) {
		T_ASSERT(!ring_buffer_iter_empty(it));
		e = ring_buffer_iter_peek(it, &ts);
		T_ASSERT(e);
		T_EQ(ts, 1000 + i);
		if (!t_check(ring_buffer_event_data(e), 4 + i % 50, i))
			T_FAIL("iterator event %d", i);
		ring_buffer_iter_advance(it);
	}
	T_ASSERT(!ring_buffer_iter_peek(it, NULL));
	T_ASSERT(ring_buffer_iter_empty(it));
	T_ASSERT(!ring_buffer_iter_dropped(it));
	ring_buffer_iter_reset(it);
	e = ring_buffer_iter_peek(it, &ts);
	T_ASSERT(e);
	T_EQ(ts, 1000);
	ring_buffer_read_finish(it);
	/* non-destructive */
	T_EQ(ring_buffer_entries_cpu(b, 0), n);
	for (i = 0; i < n; i++)
		if (t_consume_check(b, 0, 4 + i % 50, i, 1000 + i, 0))
			T_FAIL("event %d", i);
	T_EQ(ring_buffer_resize(b, 32 * PAGE_SIZE, 0), 0);
	ring_buffer_free(b);
	return 0;
}

static int t_read_all_pages(struct trace_buffer *b, int n, int len, u64 ts0)
{
	struct buffer_data_read_page *rp = NULL;
	struct t_pevent ev[512];
	int got = 0, ret, cnt;
	size_t size;
	void *data;

	ret = ring_buffer_alloc_read_page(b, 0, &rp);
	T_ASSERT(!ret && rp);
	data = ring_buffer_read_page_data(rp);
	size = ring_buffer_read_page_size(rp);
	T_EQ(size, ring_buffer_subbuf_size_get(b));
	while (got < n) {
		memset(data, 0xee, size);
		ret = ring_buffer_read_page(b, rp, size, 0, 0);
		if (ret < 0)
			T_FAIL("read_page failed (%d) after %d of %d events", ret, got, n);
		data = ring_buffer_read_page_data(rp);
		cnt = t_parse_page(data, size, ev, 512, NULL);
		T_ASSERT(cnt > 0);
		for (int i = 0; i < cnt; i++, got++) {
			if (ev[i].len < (unsigned int)len || !t_check(ev[i].data, len, got))
				T_FAIL("page event %d (len %u)", got, ev[i].len);
			if (ts0 != (u64)-1 && ev[i].ts != ts0 + (u64)got)
				T_FAIL("page event %d ts %llu", got, (unsigned long long)ev[i].ts);
		}
		/* the unused tail goes to user space: it must be zeroed */
		{
			unsigned long commit;
			const u8 *p = data;

			memcpy(&commit, p + 8, sizeof(commit));
			commit &= 0xfffff;
			for (size_t o = T_SB_HDR + commit; o < size; o++)
				if (p[o])
					T_FAIL("byte %zu after commit %lu not zeroed", o, commit);
		}
	}
	T_EQ(got, n);
	T_ASSERT(ring_buffer_read_page(b, rp, size, 0, 0) < 0);
	ring_buffer_free_read_page(b, 0, rp);
	return 0;
}

static int test_read_page(void)
{
	struct trace_buffer *b = t_alloc(16 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct buffer_data_read_page *rp = NULL;
	int i, n = 700;

	T_ASSERT(b);
	for (i = 0; i < n; i++) {
		t_clock_set(1000 + i);
		T_EQ(t_write(b, 24, i), 0);
	}
	/* full: never the sub-buffer the writer is on */
	T_EQ(ring_buffer_alloc_read_page(b, 0, &rp), 0);
	{
		int got = 0, ret;
		struct t_pevent ev[512];

		while ((ret = ring_buffer_read_page(b, rp, PAGE_SIZE, 0, 1)) >= 0) {
			int cnt = t_parse_page(ring_buffer_read_page_data(rp), PAGE_SIZE, ev, 512, NULL);

			T_ASSERT(cnt > 0);
			for (int k = 0; k < cnt; k++, got++)
				if (!t_check(ev[k].data, 24, got))
					T_FAIL("full page event %d", got);
		}
		T_ASSERT(got > 0 && got < n);
		ring_buffer_free_read_page(b, 0, rp);
		/* the rest through the consuming reader */
		for (i = got; i < n; i++)
			if (t_consume_check(b, 0, 24, i, 1000 + i, 0))
				T_FAIL("event %d after full pages", i);
	}
	T_EQ(ring_buffer_read_events_cpu(b, 0), n);
	for (i = 0; i < n; i++) {
		t_clock_set(100000 + i);
		T_EQ(t_write(b, 24, i), 0);
	}
	if (t_read_all_pages(b, n, 24, 100000))
		return 1;
	T_EQ(ring_buffer_entries_cpu(b, 0), 0);
	ring_buffer_free(b);
	return 0;
}

static int test_counters(void)
{
	struct trace_buffer *b = t_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	unsigned long committed = 0, read = 0;
	int i;

	T_ASSERT(b);
	for (int round = 0; round < 20; round++) {
		for (i = 0; i < 97 * (round % 5); i++) {
			T_EQ(t_write(b, 8 + round * 4, i), 0);
			committed++;
		}
		for (i = 0; i < round * 7; i++)
			if (ring_buffer_consume(b, 0, NULL, NULL))
				read++;
		T_EQ(ring_buffer_read_events_cpu(b, 0), read);
		T_EQ(ring_buffer_entries_cpu(b, 0) + ring_buffer_read_events_cpu(b, 0) +
		     ring_buffer_overrun_cpu(b, 0), committed);
		T_EQ(ring_buffer_entries(b), ring_buffer_entries_cpu(b, 0));
		T_EQ(ring_buffer_overruns(b), ring_buffer_overrun_cpu(b, 0));
		T_EQ(ring_buffer_empty_cpu(b, 0), ring_buffer_entries_cpu(b, 0) == 0);
	}
	ring_buffer_free(b);
	return 0;
}

static struct trace_buffer *t_held_b;
static int t_held_ret, t_held_skip;

/*
 * After the grace period of a control call that holds writers off; the
 * first t_held_skip grace periods are for something else.
 */
static void t_held_write(void)
{
	if (t_held_skip-- > 0) {
		sim_after_gp_fn = t_held_write;
		return;
	}
	t_held_ret = t_write(t_held_b, 8, 1);
}

static int test_resize(void)
{
	struct trace_buffer *b = t_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	unsigned long s;
	int i;

	T_ASSERT(b);
	for (i = 0; i < 100; i++)
		T_EQ(t_write(b, 32, i), 0);
	T_EQ(ring_buffer_resize(b, 32 * PAGE_SIZE, 0), 0);
	s = ring_buffer_size(b, 0);
	T_ASSERT(s >= 32 * PAGE_DATA && s <= 34 * PAGE_SIZE);
	/* growing keeps the events */
	T_EQ(ring_buffer_entries_cpu(b, 0), 100);
	for (i = 0; i < 100; i++)
		if (t_consume_check(b, 0, 32, i, (u64)-1, 0))
			T_FAIL("event %d after grow", i);
	T_EQ(ring_buffer_resize(b, 16 * PAGE_SIZE, RING_BUFFER_ALL_CPUS), 0);
	for_each_online_cpu(i)
		T_EQ(ring_buffer_size(b, i), ring_buffer_size(b, 0));
	/* below the minimum: clamps to two sub-buffers and succeeds */
	T_EQ(ring_buffer_resize(b, 1, 1), 0);
	s = ring_buffer_size(b, 1);
	T_ASSERT(s >= 2 * PAGE_DATA && s <= 2 * PAGE_SIZE);
	/* a CPU the buffer does not have */
	T_EQ(ring_buffer_resize(b, 8 * PAGE_SIZE, 40), 0);
	/* more than memory holds: -ENOMEM, and the ring is untouched */
	s = ring_buffer_size(b, 1);
	T_EQ(ring_buffer_resize(b, ULONG_MAX / 2, 1), -ENOMEM);
	T_EQ(ring_buffer_size(b, 1), s);
	/* still works */
	sim_bind(1);
	for (i = 0; i < 1000; i++)
		T_EQ(t_write(b, 32, i), 0);
	sim_bind(0);
	T_ASSERT(ring_buffer_entries_cpu(b, 1) > 0);
	T_EQ(ring_buffer_entries_cpu(b, 1) + ring_buffer_overrun_cpu(b, 1), 1000);
#ifndef RB_STOCK
	/* a write the resize holds off is refused and counted as dropped */
	t_held_b = b;
	t_held_ret = 1;
	/* the resize's first grace period keeps swaps out */
	t_held_skip = 1;
	sim_after_gp_fn = t_held_write;
	T_EQ(ring_buffer_resize(b, ring_buffer_size(b, 0) + 8 * PAGE_SIZE, 0), 0);
	T_ASSERT(!sim_after_gp_fn);
	sim_after_gp_fn = NULL;
	T_ASSERT(t_held_ret != 0 && t_held_ret != 1);
	T_EQ(ring_buffer_dropped_events_cpu(b, 0), 1);
#endif
	ring_buffer_free(b);
	return 0;
}

static int test_reset(void)
{
	struct trace_buffer *b = t_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	int i, cpu;

	T_ASSERT(b);
	for_each_online_cpu(cpu) {
		sim_bind(cpu);
		for (i = 0; i < 50; i++)
			T_EQ(t_write(b, 32, i), 0);
	}
	sim_bind(0);
	ring_buffer_reset_cpu(b, 1);
	T_ASSERT(ring_buffer_empty_cpu(b, 1));
	T_EQ(ring_buffer_entries_cpu(b, 1), 0);
	T_EQ(ring_buffer_entries_cpu(b, 2), 50);
	ring_buffer_reset_online_cpus(b);
	T_ASSERT(ring_buffer_empty(b));
	for (i = 0; i < 10; i++)
		T_EQ(t_write(b, 32, i), 0);
	ring_buffer_reset(b);
	T_ASSERT(ring_buffer_empty(b));
	T_EQ(ring_buffer_entries(b), 0);
	T_EQ(ring_buffer_overruns(b), 0);
	T_EQ(ring_buffer_read_events_cpu(b, 0), 0);
	T_EQ(t_write(b, 32, 5), 0);
	if (t_consume_check(b, 0, 32, 5, (u64)-1, 0))
		return 1;
	ring_buffer_free(b);
	return 0;
}

/*
 * CPU hotplug: a CPU that was offline when the buffer was made gets its
 * ring from trace_rb_cpu_prepare() when it comes up, the size of the
 * others' (resized meanwhile), and is then a CPU like the rest for
 * writes, reads, counters, resize and reset.  Preparing a CPU that has
 * its ring (down, then up again) changes nothing.
 */
static int t_hotplug(int k)
{
	struct trace_buffer *b, *b2;
	unsigned long s;
	int i;

	sim_cpu_down(k);
	T_ASSERT(!cpu_online(k));
	b = t_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	T_ASSERT(b);
	T_EQ(ring_buffer_size(b, k), 0);
	T_EQ(ring_buffer_entries_cpu(b, k), 0);
	T_ASSERT(ring_buffer_consume(b, k, NULL, NULL) == NULL);
	/* resized while the CPU is away: it must come up at the new size */
	T_EQ(ring_buffer_resize(b, 16 * PAGE_SIZE, RING_BUFFER_ALL_CPUS), 0);
	s = ring_buffer_size(b, 0);
	T_ASSERT(s >= 16 * PAGE_DATA);
	for (i = 0; i < 10; i++)
		T_EQ(t_write(b, 32, 100 + i), 0);

	T_EQ(sim_cpu_up(k), 0);
	T_ASSERT(cpu_online(k));
	T_EQ(ring_buffer_size(b, k), s);
	T_ASSERT(ring_buffer_empty_cpu(b, k));
	sim_bind(k);
	for (i = 0; i < 20; i++)
		T_EQ(t_write(b, 32, i), 0);
	sim_bind(0);
	T_EQ(ring_buffer_entries_cpu(b, k), 20);
	T_EQ(ring_buffer_entries(b), 30);
	T_ASSERT(!ring_buffer_empty_cpu(b, k));
	for (i = 0; i < 5; i++)
		if (t_consume_check(b, k, 32, i, (u64)-1, 0))
			T_FAIL("event %d on the new CPU", i);
	T_EQ(ring_buffer_read_events_cpu(b, k), 5);

	/* down and up again: the ring and its events stay as they were */
	sim_cpu_down(k);
	T_EQ(sim_cpu_up(k), 0);
	T_EQ(ring_buffer_size(b, k), s);
	T_EQ(ring_buffer_entries_cpu(b, k), 15);
	T_EQ(ring_buffer_entries(b), 25);
	T_EQ(ring_buffer_overrun_cpu(b, k), 0);
	if (t_consume_check(b, k, 32, 5, (u64)-1, 0))
		T_FAIL("first event after a second prepare");

	/* resize: all CPUs, then the new one alone */
	T_EQ(ring_buffer_resize(b, 4 * PAGE_SIZE, RING_BUFFER_ALL_CPUS), 0);
	T_ASSERT(ring_buffer_size(b, k) < s);
	T_EQ(ring_buffer_size(b, k), ring_buffer_size(b, 0));
	T_EQ(ring_buffer_resize(b, 32 * PAGE_SIZE, k), 0);
	T_ASSERT(ring_buffer_size(b, k) >= 32 * PAGE_DATA);
	T_ASSERT(ring_buffer_size(b, 0) < ring_buffer_size(b, k));
	T_EQ(ring_buffer_entries_cpu(b, k), 14);
	for (i = 6; i < 20; i++)
		if (t_consume_check(b, k, 32, i, (u64)-1, 0))
			T_FAIL("event %d after the resizes", i);

	/* the resets see it */
	sim_bind(k);
	for (i = 0; i < 7; i++)
		T_EQ(t_write(b, 32, i), 0);
	sim_bind(0);
	ring_buffer_reset_cpu(b, k);
	T_EQ(ring_buffer_entries_cpu(b, k), 0);
	T_EQ(ring_buffer_entries_cpu(b, 0), 10);
	sim_bind(k);
	T_EQ(t_write(b, 32, 1), 0);
	sim_bind(0);
	ring_buffer_reset_online_cpus(b);
	T_ASSERT(ring_buffer_empty(b));
	sim_bind(k);
	T_EQ(t_write(b, 32, 2), 0);
	sim_bind(0);
	T_EQ(ring_buffer_entries(b), 1);
	ring_buffer_reset(b);
	T_ASSERT(ring_buffer_empty(b));
	T_EQ(ring_buffer_entries(b), 0);

	/* a buffer made now has it from the start; once freed, hotplug forgets it */
	b2 = t_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	T_ASSERT(b2);
	T_EQ(ring_buffer_size(b2, k), ring_buffer_size(b2, 0));
	ring_buffer_free(b2);
	sim_cpu_down(k);
	T_EQ(sim_cpu_up(k), 0);
	ring_buffer_free(b);
	return 0;
}

static int test_cpu_hotplug(void)
{
	int k = nr_cpu_ids - 1, ret;

	ret = t_hotplug(k);
	/* never leave the CPU offline for the cases that follow */
	if (!cpu_online(k))
		cpumask_set_cpu(k, &sim_online_mask);
	return ret;
}

/*
 * A CPU that comes up after each CPU was resized on its own gets the size
 * they agree on; while they differ, the smallest ring (two sub-buffers).
 */
static int t_hotplug_peers(int k, int j)
{
	struct trace_buffer *b;
	unsigned long s;
	int cpu;

	sim_cpu_down(k);
	sim_cpu_down(j);
	b = t_alloc(5 * PAGE_DATA, RB_FL_OVERWRITE);
	T_ASSERT(b);
	for_each_online_cpu(cpu)
		T_EQ(ring_buffer_resize(b, 17 * PAGE_DATA, cpu), 0);
	s = ring_buffer_size(b, 0);
	T_EQ(s, 17 * PAGE_DATA);
	T_EQ(sim_cpu_up(k), 0);
	T_EQ(ring_buffer_size(b, k), s);
	T_EQ(ring_buffer_resize(b, 9 * PAGE_DATA, 0), 0);
	T_EQ(sim_cpu_up(j), 0);
	T_EQ(ring_buffer_size(b, j), 2 * PAGE_DATA);
	sim_bind(j);
	T_EQ(t_write(b, 32, 1), 0);
	sim_bind(0);
	if (t_consume_check(b, j, 32, 1, (u64)-1, 0))
		T_FAIL("event on the CPU that came up");
	ring_buffer_free(b);
	return 0;
}

static int test_cpu_hotplug_peers(void)
{
	int k = nr_cpu_ids - 1, j = nr_cpu_ids - 2, ret;

	T_ASSERT(j > 0);
	ret = t_hotplug_peers(k, j);
	/* never leave a CPU offline for the cases that follow */
	cpumask_set_cpu(k, &sim_online_mask);
	cpumask_set_cpu(j, &sim_online_mask);
	return ret;
}

/*
 * An iterator left open across a reset must not show events from before
 * it, and must go on to show the events written after it.
 */
static int test_reset_under_iterator(void)
{
	struct trace_buffer *b = t_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_iter *it;
	struct ring_buffer_event *e;
	int i, seen = 0;

	T_ASSERT(b);
	for (i = 0; i < 300; i++)
		T_EQ(t_write(b, 32, i), 0);
	it = ring_buffer_read_start(b, 0, GFP_KERNEL);
	T_ASSERT(it);
	for (i = 0; i < 10; i++)
		ring_buffer_iter_advance(it);
	ring_buffer_reset_cpu(b, 0);
	for (i = 0; i < 20; i++)
		T_EQ(t_write(b, 32, 1000 + i), 0);
	while ((e = ring_buffer_iter_peek(it, NULL))) {
		if (seen >= 20 ||
		    !t_check(ring_buffer_event_data(e), 32, 1000 + seen))
			T_FAIL("event %d after the reset is not a new one", seen);
		seen++;
		ring_buffer_iter_advance(it);
	}
	T_EQ(seen, 20);
	ring_buffer_read_finish(it);
	ring_buffer_free(b);
	return 0;
}

static int test_swap(void)
{
	struct trace_buffer *a = t_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct trace_buffer *b = t_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct trace_buffer *c = t_alloc(16 * PAGE_SIZE, RB_FL_OVERWRITE);
	int i;

	T_ASSERT(a && b && c);
	for (i = 0; i < 30; i++)
		T_EQ(t_write(a, 16, i), 0);
	T_EQ(ring_buffer_swap_cpu(b, a, 0), 0);
	T_ASSERT(ring_buffer_empty_cpu(a, 0));
	T_EQ(ring_buffer_entries_cpu(b, 0), 30);
	for (i = 0; i < 30; i++)
		if (t_consume_check(b, 0, 16, i, (u64)-1, 0))
			T_FAIL("swapped event %d", i);
	/* the swapped-in buffer takes writes */
	T_EQ(t_write(a, 16, 99), 0);
	if (t_consume_check(a, 0, 16, 99, (u64)-1, 0))
		return 1;
	T_EQ(ring_buffer_swap_cpu(a, c, 0), -EINVAL);
	/* recording off on either side, for the buffer or the CPU: -EAGAIN */
	ring_buffer_record_disable(a);
	T_EQ(ring_buffer_swap_cpu(a, b, 0), -EAGAIN);
	ring_buffer_record_enable(a);
	ring_buffer_record_disable_cpu(b, 0);
	T_EQ(ring_buffer_swap_cpu(a, b, 0), -EAGAIN);
	ring_buffer_record_enable_cpu(b, 0);
	ring_buffer_record_off(b);
	T_EQ(ring_buffer_swap_cpu(a, b, 0), -EAGAIN);
	ring_buffer_record_on(b);
	/* the refusals moved nothing; now it swaps */
	T_EQ(ring_buffer_entries_cpu(a, 0), 0);
	T_EQ(t_write(b, 16, 77), 0);
	T_EQ(ring_buffer_swap_cpu(a, b, 0), 0);
	if (t_consume_check(a, 0, 16, 77, (u64)-1, 0))
		T_FAIL("the event swapped after the refusals");
	ring_buffer_free(a);
	ring_buffer_free(b);
	ring_buffer_free(c);
	return 0;
}

/*
 * A swap while an iterator is open (the irqsoff tracer's per-CPU max
 * snapshot with "trace" open) goes ahead; the iterator keeps walking the
 * ring it opened, now the other buffer's, whose writes it shows.  That
 * ring stays fixed in size while the iterator is open.
 */
static int test_swap_under_iterator(void)
{
	struct trace_buffer *a = t_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct trace_buffer *b = t_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_iter *it;
	struct ring_buffer_event *e;
	int i, seen = 5;

	T_ASSERT(a && b);
	for (i = 0; i < 30; i++)
		T_EQ(t_write(a, 16, i), 0);
	it = ring_buffer_read_start(a, 0, GFP_KERNEL);
	T_ASSERT(it);
	for (i = 0; i < 5; i++) {
		T_ASSERT((e = ring_buffer_iter_peek(it, NULL)));
		T_ASSERT(t_check(ring_buffer_event_data(e), 16, i));
		ring_buffer_iter_advance(it);
	}
	T_EQ(ring_buffer_swap_cpu(b, a, 0), 0);
	T_EQ(ring_buffer_entries_cpu(b, 0), 30);
	for (i = 0; i < 10; i++) {
		T_EQ(t_write(b, 16, 100 + i), 0);
		T_EQ(t_write(a, 16, 200 + i), 0);
	}
	T_EQ(ring_buffer_resize(b, 16 * PAGE_SIZE, 0), -EBUSY);
	T_EQ(ring_buffer_resize(a, 16 * PAGE_SIZE, 0), 0);
	while ((e = ring_buffer_iter_peek(it, NULL))) {
		u32 want = seen < 30 ? seen : 100 + seen - 30;

		if (seen >= 40 || !t_check(ring_buffer_event_data(e), 16, want))
			T_FAIL("event %d under the iterator", seen);
		seen++;
		ring_buffer_iter_advance(it);
	}
	T_EQ(seen, 40);
	T_ASSERT(!ring_buffer_iter_dropped(it));
	/* swapped back, the ring is a's again: still the iterator's */
	T_EQ(ring_buffer_swap_cpu(a, b, 0), -EINVAL);
	T_EQ(ring_buffer_resize(a, 8 * PAGE_SIZE, 0), 0);
	T_EQ(ring_buffer_swap_cpu(a, b, 0), 0);
	T_EQ(t_write(a, 16, 300), 0);
	T_ASSERT((e = ring_buffer_iter_peek(it, NULL)));
	T_ASSERT(t_check(ring_buffer_event_data(e), 16, 300));
	ring_buffer_read_finish(it);
	T_EQ(ring_buffer_resize(a, 16 * PAGE_SIZE, 0), 0);
	ring_buffer_free(b);
	for (i = 0; i < 41; i++) {
		u32 want = i < 30 ? i : i < 40 ? 100 + i - 30 : 300;

		if (t_consume_check(a, 0, 16, want, (u64)-1, 0))
			T_FAIL("event %d after the swap back", i);
	}
	T_ASSERT(ring_buffer_empty_cpu(a, 0));
	ring_buffer_free(a);
	return 0;
}

static int test_record_on_off(void)
{
	struct trace_buffer *b = t_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);

	T_ASSERT(b);
	T_ASSERT(ring_buffer_record_is_on(b));
	T_ASSERT(ring_buffer_record_is_set_on(b));
	ring_buffer_record_disable(b);
	T_ASSERT(!ring_buffer_record_is_on(b));
	T_ASSERT(ring_buffer_record_is_set_on(b));
	T_ASSERT(t_write(b, 8, 1) != 0);
	T_ASSERT(!ring_buffer_lock_reserve(b, 8));
	T_EQ(preempt_count(), 0);
	ring_buffer_record_enable(b);
	T_ASSERT(ring_buffer_record_is_on(b));
	ring_buffer_record_off(b);
	T_ASSERT(!ring_buffer_record_is_on(b));
	T_ASSERT(!ring_buffer_record_is_set_on(b));
	T_ASSERT(t_write(b, 8, 1) != 0);
	ring_buffer_record_on(b);
	T_ASSERT(ring_buffer_record_is_on(b));
	ring_buffer_record_disable_cpu(b, 0);
	T_ASSERT(t_write(b, 8, 1) != 0);
	sim_bind(1);
	T_EQ(t_write(b, 8, 1), 0);
	sim_bind(0);
	ring_buffer_record_enable_cpu(b, 0);
	T_EQ(t_write(b, 8, 2), 0);
	/* refused writes are counted nowhere */
	T_EQ(ring_buffer_dropped_events_cpu(b, 0), 0);
	T_EQ(ring_buffer_entries(b), 2);
	ring_buffer_free(b);
	return 0;
}

static int test_subbuf_order(void)
{
	struct trace_buffer *b = t_alloc(16 * PAGE_SIZE, RB_FL_OVERWRITE);
	unsigned long max0;
	int i;

	T_ASSERT(b);
	T_EQ(ring_buffer_subbuf_order_get(b), 0);
	max0 = ring_buffer_max_event_size(b);
	for (i = 0; i < 50; i++)
		T_EQ(t_write(b, 32, i), 0);
	T_EQ(ring_buffer_subbuf_order_set(b, 2), 0);
	T_EQ(ring_buffer_subbuf_order_get(b), 2);
	T_EQ(ring_buffer_subbuf_size_get(b), 4 * PAGE_SIZE);
	/*
	 * Stock 6.12 keeps the order-0 limit (max_data_size is only set at
	 * allocation), so only "no smaller, and the limit is writable" is the
	 * contract here.
	 */
	T_ASSERT(ring_buffer_max_event_size(b) >= max0);
	T_ASSERT(ring_buffer_max_event_size(b) <= 4 * PAGE_SIZE - T_SB_HDR - 8);
	T_ASSERT(ring_buffer_empty(b));
	T_EQ(t_write(b, ring_buffer_max_event_size(b), 7), 0);
	if (t_consume_check(b, 0, ring_buffer_max_event_size(b), 7, (u64)-1, 0))
		return 1;
	for (i = 0; i < 50; i++)
		T_EQ(t_write(b, 32, i), 0);
	if (t_read_all_pages(b, 50, 32, (u64)-1))
		return 1;
	T_EQ(ring_buffer_subbuf_order_set(b, 0), 0);
	T_EQ(ring_buffer_subbuf_size_get(b), PAGE_SIZE);
	T_EQ(ring_buffer_max_event_size(b), max0);
	T_ASSERT(ring_buffer_empty(b));
	T_EQ(t_write(b, 32, 1), 0);
	if (t_consume_check(b, 0, 32, 1, (u64)-1, 0))
		return 1;
	ring_buffer_free(b);
	return 0;
}

/*
 * An order change that fails for lack of memory (at any allocation)
 * changes nothing: every CPU keeps the old order and takes an event of
 * the old maximum size, whole.
 */
static int test_order_change_fails_midway(void)
{
	int fails = 0;

	for (long n = 1; n < 200; n++) {
		struct trace_buffer *b = t_alloc(16 * PAGE_SIZE, RB_FL_OVERWRITE);
		unsigned long max;
		int cpu, ret;

		T_ASSERT(b);
		T_EQ(ring_buffer_subbuf_order_set(b, 2), 0);
		max = ring_buffer_max_event_size(b);
		sim_fail_alloc_after(n);
		ret = ring_buffer_subbuf_order_set(b, 0);
		sim_fail_alloc_after(0);
		if (!ret) {
			ring_buffer_free(b);
			break;
		}
		T_EQ(ret, -ENOMEM);
		fails++;
		T_EQ(ring_buffer_subbuf_order_get(b), 2);
		T_EQ(ring_buffer_max_event_size(b), max);
		for_each_online_cpu(cpu) {
			sim_bind(cpu);
			T_EQ(t_write(b, 16, cpu), 0);
			ret = t_write(b, max, 100 + cpu);
			sim_bind(0);
			T_EQ(ret, 0);
			T_EQ(ring_buffer_entries_cpu(b, cpu), 2);
			if (t_consume_check(b, cpu, 16, cpu, (u64)-1, 0) ||
			    t_consume_check(b, cpu, max, 100 + cpu, (u64)-1, 0))
				return 1;
		}
		ring_buffer_free(b);
	}
	/* the sweep did hit failures (stock fails before changing anything) */
	T_ASSERT(fails > 0);
	return 0;
}

/*
 * A resize of every CPU that runs out of memory part way changes nothing:
 * the n-th allocation fails, for every n until the resize succeeds.
 */
static int test_resize_fails_midway(void)
{
	int fails = 0;

	for (long n = 1; n < 1000; n++) {
		struct trace_buffer *b = t_alloc(16 * PAGE_SIZE, RB_FL_OVERWRITE);
		unsigned long before[NR_CPUS];
		int cpu, ret;

		T_ASSERT(b);
		for_each_online_cpu(cpu) {
			before[cpu] = ring_buffer_size(b, cpu);
			sim_bind(cpu);
			ret = t_write(b, 16, cpu);
			sim_bind(0);
			T_EQ(ret, 0);
		}
		sim_fail_alloc_after(n);
		ret = ring_buffer_resize(b, 64 * PAGE_SIZE, RING_BUFFER_ALL_CPUS);
		sim_fail_alloc_after(0);
		if (!ret) {
			for_each_online_cpu(cpu)
				T_ASSERT(ring_buffer_size(b, cpu) > before[cpu]);
			ring_buffer_free(b);
			break;
		}
		T_EQ(ret, -ENOMEM);
		fails++;
		for_each_online_cpu(cpu) {
			if (ring_buffer_size(b, cpu) != before[cpu])
				T_FAIL("allocation %ld failed: cpu %d size %lu, was %lu", n,
				       cpu, ring_buffer_size(b, cpu), before[cpu]);
			sim_bind(cpu);
			ret = t_write(b, 16, 100 + cpu);
			sim_bind(0);
			T_EQ(ret, 0);
			if (t_consume_check(b, cpu, 16, cpu, (u64)-1, 0) ||
			    t_consume_check(b, cpu, 16, 100 + cpu, (u64)-1, 0))
				return 1;
		}
		ring_buffer_free(b);
	}
	/* every CPU's allocations were failed in turn */
	T_ASSERT(fails > 4 * 64);
	return 0;
}

static struct trace_buffer *t_pc_buf;
static int t_pc_discard;

/* t_step_check(): stamps went back (and nothing else was wrong) */
#define T_STEP_BACK 2
#ifdef RB_STOCK
/*
 * Stock 6.12 in absolute mode: when an irq writes between the task's
 * clock read and its reserve, the task's slow path computes a delta
 * (0, or ts - write_stamp) and stores it as the absolute TIME_STAMP, so
 * the event reads as time 0 or 3 after stamps in the hundreds.  Counted
 * and reported, not failed, on stock only.
 */
#define T_STEP_TOLERATE T_STEP_BACK
#else
#define T_STEP_TOLERATE 0
#endif

/*
 * An irq that writes an event with a nested one inside, as triggers do;
 * or (t_pc_discard) one that discards its event, then writes another.
 */
static void t_pc_irq(void)
{
	struct or_handle h;

	t_enter(HARDIRQ_OFFSET);
	if (or_reserve(t_pc_buf, 8, &h)) {
		if (t_pc_discard)
			or_discard(t_pc_buf, &h);
		ring_buffer_nest_start(t_pc_buf);
		or_write(t_pc_buf, 8);
		ring_buffer_nest_end(t_pc_buf);
		if (!t_pc_discard)
			or_commit(t_pc_buf, &h);
	}
	t_leave(HARDIRQ_OFFSET);
}

/*
 * The task side of the sweep: trace_puts (nest_start with no reserve
 * open) and a synthetic event written from inside an open reserve.
 * Returns the failures as a bit mask; no asserts while stepping.
 */
static int t_step_sequence(struct trace_buffer *b)
{
	struct or_handle h;
	int bad = 0;

	ring_buffer_nest_start(b);
	bad |= or_write(b, 8) ? 1 : 0;
	ring_buffer_nest_end(b);
	if (!or_reserve(b, 8, &h))
		return bad | 2;
	ring_buffer_nest_start(b);
	bad |= or_write(b, 8) ? 4 : 0;
	ring_buffer_nest_end(b);
	bad |= or_commit(b, &h) ? 8 : 0;
	/* a discard of the last event gives its room back */
	if (!or_reserve(b, 16, &h))
		return bad | 16;
	or_discard(b, &h);
	return bad;
}

static u64 t_tick_now, t_still_now;

/*
 * A clock that moves on at every read; one atomic add, so that an
 * interrupt cannot fall between its load and store and send it back.
 */
static u64 t_tick(void)
{
	return __atomic_add_fetch(&t_tick_now, 3, __ATOMIC_RELAXED);
}

static u64 t_still(void)
{
	return t_still_now;
}

/*
 * The clock stops at a value ahead of every stamp so far: the next
 * events must read back exactly that (ours; stock: anything).  A stamp
 * stored wrong under an interrupt (a delta against the wrong base) shifts
 * every later one of the sub-buffer.
 */
static u64 t_stop_clock(struct trace_buffer *b)
{
	t_still_now = __atomic_load_n(&t_tick_now, __ATOMIC_RELAXED) + 1000;
	ring_buffer_set_clock(b, t_still);
#ifdef RB_STOCK
	return (u64)-1;
#else
	return t_still_now;
#endif
}

/*
 * The oracle judges what the sequence leaves (every event written and
 * committed read once, in order, intact, the counters agreeing, task and
 * irq writes getting in afterwards); stamps that go back, and nothing
 * else wrong, give T_STEP_BACK.
 */
static int t_step_check(struct trace_buffer *b, int bad)
{
	if (bad)
		T_FAIL("task writes failed (%#x)", bad);
	int ret = or_judge(b, OR_TS);

	return ret == OR_TS_BACK ? T_STEP_BACK : ret;
}

/*
 * An interrupting writer after every single instruction of the sequence
 * (single-stepped, one child process per instruction): afterwards every
 * event is there, in order, and the ring takes writes from every context
 * again -- guard or nesting state left behind would refuse or hide them.
 * @pre events fill the sub-buffer first, so that the sequence moves on to
 * the next one; @discard makes the irq discard its event; @abs turns on
 * absolute stamps.
 */
static int t_step_run(u32 pre, int discard, int abs)
{
	struct trace_buffer *b = t_alloc(16 * PAGE_SIZE, RB_FL_OVERWRITE);
	long points, first_bad, back;
	int bad, status;

	T_ASSERT(b);
	or_reset();
	t_pc_buf = b;
	t_pc_discard = discard;
	ring_buffer_set_clock(b, t_tick);
	ring_buffer_set_time_stamp_abs(b, abs);
	for (u32 i = pre; i; i--)
		T_EQ(or_write(b, 24), 0);
	/* the stock defect below is in absolute mode only */
	T_ASSERT(sim_step_sweep(t_pc_irq, abs ? T_STEP_TOLERATE : 0));
	bad = t_step_sequence(b);
	if (sim_step_end())
		_exit(t_step_check(b, bad));
	points = sim_step_results(&first_bad, &status, &back);
	printf("# pre %u discard %d abs %d: %ld interrupt points\n", pre, discard,
	       abs, points);
	if (back)
		printf("# stock defect tolerated: a stamp went back after an irq at %ld of %ld points\n",
		       back, points);
	if (first_bad)
		T_FAIL("irq after instruction %ld of the sequence: wait status %#x (%s)",
		       first_bad, status,
		       status == T_STEP_BACK << 8 ? "a stamp went back" : "see above");
	T_ASSERT(points > 100);
	if (t_step_check(b, bad))
		return 1;
	ring_buffer_free(b);
	return 0;
}

static int test_irq_at_each_instruction(void)
{
	/* 145 events of 28 bytes leave 20 bytes of the first sub-buffer */
	return t_step_run(0, 0, 0) || t_step_run(145, 1, 0) ||
	       t_step_run(0, 1, 1);
}

/*
 * The interrupt varies: after every instruction of a task sequence whose
 * first write moves on to the next sub-buffer, an irq that writes an event
 * that fits, one that fills the sub-buffer exactly, events that cross one
 * or two boundaries, or one whose open reserve takes an NMI that crosses.
 * Every event must come back whole and in order: a writer that resumes
 * with a stale view of where the ring is overwrites the interrupt's events
 * or writes into a page the ring no longer owns.
 */
enum { T_SW_FIT, T_SW_FILL, T_SW_CROSS1, T_SW_CROSS2, T_SW_NMI, T_SW_NR, T_SW_LAP = T_SW_NR };
static const char *const t_sw_names[] = {
	"fits", "fills exactly", "crosses one", "crosses two", "NMI inside",
	"laps the ring",
};

static int t_sw_mode;

/* The interrupt's events go through the oracle, which records each. */
static void t_sw_write(struct trace_buffer *b, u32 len)
{
	or_write(b, len);
}

/* Payload that ends an interrupt's event (stamp + header) at the end. */
static u32 t_sw_fill_len(struct trace_buffer *b)
{
	long room = t_room(b, 0);
	long len = room - 16;

	if (len <= 112)
		len = room - 12;
	len &= ~(long)(T_PAYLOAD_ALIGN - 1);
	return len >= 8 ? len : 8;
}

/*
 * After the interrupt, CPU 0's published commit is watched for the next
 * T_SW_WATCH instructions of the task's code: it never goes back, as a
 * reader on another CPU may look at any moment (it found the interrupt's
 * events already).
 */
#define T_SW_WATCH 64
static u64 t_sw_commit;

static void t_sw_watch(void)
{
	u64 c = t_commit_pos(t_pc_buf, 0);

	if (c < t_sw_commit) {
		printf("# CPU 0's commit went back from %llu to %llu\n",
		       (unsigned long long)t_sw_commit, (unsigned long long)c);
		fflush(stdout);
		_exit(5);
	}
	t_sw_commit = c;
}

static void t_sw_irq(void)
{
	struct trace_buffer *b = t_pc_buf;
	struct or_handle h;

	t_enter(HARDIRQ_OFFSET);
	switch (t_sw_mode) {
	case T_SW_FIT:
		t_sw_write(b, 8);
		break;
	case T_SW_FILL:
		t_sw_write(b, t_sw_fill_len(b));
		break;
	case T_SW_CROSS2:
		t_sw_write(b, 4000);
		fallthrough;
	case T_SW_CROSS1:
		t_sw_write(b, 4000);
		t_sw_write(b, 64);
		break;
	case T_SW_LAP:
		/* two sub-buffers more than the ring holds: every slot laps */
		for (unsigned long i = ring_buffer_size(b, 0) / 4000 + 2; i; i--)
			t_sw_write(b, 4000);
		break;
	case T_SW_NMI:
		if (!or_reserve(b, 4000, &h))
			break;
		t_enter(NMI_OFFSET);
		t_sw_write(b, 4000);
		t_sw_write(b, 64);
		t_leave(NMI_OFFSET);
		or_commit(b, &h);
		break;
	}
	t_leave(HARDIRQ_OFFSET);
	t_sw_commit = t_commit_pos(b, 0);
	sim_step_watch(t_sw_watch, T_SW_WATCH);
}

/* The task's events: four of 24 bytes, the first one moves on. */
static int t_sw_sequence(struct trace_buffer *b)
{
	struct or_handle h;
	int bad = 0;

	bad |= or_write(b, 24) ? 1 : 0;
	bad |= or_write(b, 24) ? 2 : 0;
	if (!or_reserve(b, 24, &h))
		return bad | 4;
	bad |= or_commit(b, &h) ? 8 : 0;
	bad |= or_write(b, 24) ? 16 : 0;
	return bad;
}

/*
 * The oracle judges (stamps never going back included); then both
 * contexts write again with the clock stopped and read back at its exact
 * stamp.  After a lap (@lap) the oldest events are gone, reported where
 * the gap is; the irq's lap overwrites unless the task's open reserve
 * stops it.
 */
static int t_sw_check(struct trace_buffer *b, int bad, int lap)
{
	/* the irq's writes, before the judge's own */
	unsigned long irq = or_written(0, 2);
	u64 ts;

	if (bad)
		T_FAIL("task writes failed (%#x)", bad);
	if (or_judge(b, OR_TS))
		return 1;
	if (lap)
		T_ASSERT(ring_buffer_overrun_cpu(b, 0) > 0 || !irq ||
			 ring_buffer_commit_overrun_cpu(b, 0) > 0);
	ts = t_stop_clock(b);
	T_EQ(t_write(b, 8, 6), 0);
	t_enter(HARDIRQ_OFFSET);
	T_EQ(t_write(b, 8, 7), 0);
	t_leave(HARDIRQ_OFFSET);
	return t_consume_check(b, 0, 8, 6, ts, 0) ||
	       t_consume_check(b, 0, 8, 7, ts, 0);
}

static int t_sw_run(int mode)
{
	/* the lap: a small ring, so that an irq laps it quickly */
	struct trace_buffer *b = t_alloc((mode == T_SW_LAP ? 4 : 16) * PAGE_SIZE,
					 RB_FL_OVERWRITE);
	long points, first_bad, back;
	int bad, status;
	u32 pre = 0;

	T_ASSERT(b);
	or_reset();
	t_pc_buf = b;
	t_sw_mode = mode;
	ring_buffer_set_clock(b, t_tick);
	/* fill the first sub-buffer so that the task's first write moves on */
	while (t_room(b, 0) >= 28 + 24) {
		T_EQ(or_write(b, 24), 0);
		pre++;
	}
	T_ASSERT(sim_step_sweep(t_sw_irq, 0));
	bad = t_sw_sequence(b);
	if (sim_step_end()) {
		int ret = t_sw_check(b, bad, mode == T_SW_LAP);

		/* every page once: ASan reports a page in two places */
		ring_buffer_free(b);
		_exit(ret);
	}
	points = sim_step_results(&first_bad, &status, &back);
	printf("# irq %s: %ld interrupt points\n", t_sw_names[mode], points);
	if (first_bad)
		T_FAIL("irq (%s) after instruction %ld of the sequence: wait status %#x",
		       t_sw_names[mode], first_bad, status);
	T_ASSERT(points > 100);
	if (t_sw_check(b, bad, mode == T_SW_LAP))
		return 1;
	ring_buffer_free(b);
	return 0;
}

/* The same sweep, the irq writing more than the ring holds: it laps. */
static int test_irq_sweep_lap(void)
{
	return t_sw_run(T_SW_LAP);
}

static int test_irq_sweep_kinds(void)
{
	int ret = 0;

	for (int mode = 0; mode < T_SW_NR; mode++)
		ret |= t_sw_run(mode);
	return ret;
}

/*
 * A reader in an interrupt after every instruction of a write that pushes
 * the oldest sub-buffer out (overwrite mode): every loss is reported with
 * the first event after the gap, and only there.
 */
#define T_LO_MAX 4096
static u32 t_lo_nr, t_lo_seed[T_LO_MAX];
static unsigned long t_lo_lost[T_LO_MAX];

static int t_lo_read(struct trace_buffer *b)
{
	struct ring_buffer_event *e;
	unsigned long lost;

	e = ring_buffer_consume(b, 0, NULL, &lost);
	if (!e || t_lo_nr >= T_LO_MAX)
		return 0;
	memcpy(&t_lo_seed[t_lo_nr], ring_buffer_event_data(e), sizeof(u32));
	t_lo_lost[t_lo_nr++] = lost;
	return 1;
}

static void t_lo_irq(void)
{
	t_enter(HARDIRQ_OFFSET);
	t_lo_read(t_pc_buf);
	t_leave(HARDIRQ_OFFSET);
}

static int t_lo_write(struct trace_buffer *b, u32 seed)
{
	u32 buf[6] = { seed };

	return ring_buffer_write(b, sizeof(buf), buf);
}

static int t_lo_check(struct trace_buffer *b, int bad, u32 total)
{
	unsigned long sum = 0;
	long prev = -1;

	if (bad)
		T_FAIL("the task's write failed");
	while (t_lo_read(b))
		;
	T_ASSERT(ring_buffer_empty_cpu(b, 0));
	for (u32 i = 0; i < t_lo_nr; i++) {
		long gap = (long)t_lo_seed[i] - prev - 1;

		if (gap < 0 || (unsigned long)gap != t_lo_lost[i])
			T_FAIL("read %u: event %u after %ld reported %lu lost, the gap is %ld",
			       i, t_lo_seed[i], prev, t_lo_lost[i], gap);
		sum += t_lo_lost[i];
		prev = t_lo_seed[i];
	}
	T_EQ(prev, total - 1);
	T_EQ(sum, ring_buffer_overrun_cpu(b, 0));
	return 0;
}

/* The reader of the sweep below: one consume in an irq, through the oracle. */
static void t_lo_or_irq(void)
{
	t_enter(HARDIRQ_OFFSET);
	or_consume(t_pc_buf, 0);
	t_leave(HARDIRQ_OFFSET);
}

/*
 * The oracle judges: the irq's read and the drain after it, each loss
 * reported exactly at the first event after the gap.
 */
static int t_lo_or_check(struct trace_buffer *b, int bad)
{
	if (bad)
		T_FAIL("the task's write failed");
	return or_judge(b, 0);
}

static int test_lost_where_the_gap_is(void)
{
	struct trace_buffer *b = t_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	unsigned long nr, moves = 0, room;
	long points, first_bad, back;
	int bad, status;
	u32 n = 0;

#ifdef RB_STOCK
	/* the child never returns: the sweep would end at the watchdog */
	T_SKIP("stock 6.12 spins in rb_set_head_page() when a reader interrupts a writer's head page update on its CPU");
#endif
	T_ASSERT(b);
	or_reset();
	t_pc_buf = b;
	ring_buffer_set_clock(b, t_tick);
	nr = t_map_ring_subbufs(b, 0);
	/* every sub-buffer full: the next write pushes the oldest out */
	while ((moves + 1 < nr || t_room(b, 0) >= 28) && n < 100000) {
		room = t_room(b, 0);
		T_EQ(or_write(b, 24), 0);
		n++;
		moves += t_room(b, 0) > room;
	}
	T_EQ(ring_buffer_overrun_cpu(b, 0), 0);
	T_ASSERT(n < 100000);
	T_ASSERT(sim_step_sweep(t_lo_or_irq, 0));
	bad = or_write(b, 24);
	if (sim_step_end()) {
		int ret = t_lo_or_check(b, bad);

		/* every page once: ASan reports a page in two places */
		ring_buffer_free(b);
		_exit(ret);
	}
	points = sim_step_results(&first_bad, &status, &back);
	printf("# %lu sub-buffers of %u events: %ld interrupt points\n", nr,
	       n / (u32)nr, points);
	if (first_bad)
		T_FAIL("a read after instruction %ld of the write: wait status %#x",
		       first_bad, status);
	T_ASSERT(points > 100);
	/* the sequence without an interrupt: the oldest sub-buffer is lost */
	T_ASSERT(ring_buffer_overrun_cpu(b, 0) > 0);
	if (t_lo_or_check(b, bad))
		return 1;
	ring_buffer_free(b);
	return 0;
}

/*
 * ring_buffer_read_page() in an interrupt after every instruction of a
 * write that moves on to the next sub-buffer and pushes the oldest out
 * (overwrite mode, every sub-buffer full; @own: the reader already holds
 * the oldest).  A page handed out is the caller's: nothing may change it
 * afterwards.  Every event comes back once, in order, and each gap is
 * reported exactly (read_page's stored count, consume's lost_events).
 */
#define T_RP_PAGES 2
static struct buffer_data_read_page *t_rp_page[T_RP_PAGES];
static u8 t_rp_snap[T_RP_PAGES][PAGE_SIZE];
static int t_rp_got;

static void t_rp_irq(void)
{
	t_enter(HARDIRQ_OFFSET);
	while (t_rp_got < T_RP_PAGES &&
	       ring_buffer_read_page(t_pc_buf, t_rp_page[t_rp_got], PAGE_SIZE, 0, 0) >= 0) {
		memcpy(t_rp_snap[t_rp_got], ring_buffer_read_page_data(t_rp_page[t_rp_got]),
		       PAGE_SIZE);
		t_rp_got++;
	}
	t_leave(HARDIRQ_OFFSET);
}

/* One event of seed @seed after @prev with @lost reported: is it right? */
static int t_rp_next(long *prev, u32 seed, long lost, const char *how)
{
	long gap = (long)seed - *prev - 1;

	if (gap < 0)
		T_FAIL("%s: event %u after %ld", how, seed, *prev);
	if (lost >= 0 && gap != lost)
		T_FAIL("%s: event %u after %ld, %ld reported lost", how, seed, *prev, lost);
	if (lost == -2 && !gap)
		T_FAIL("%s: event %u after %ld, a loss flagged", how, seed, *prev);
	*prev = seed;
	return 0;
}

static int t_rp_check(struct trace_buffer *b, int bad, u32 total, long first)
{
	static struct t_pevent ev[512];
	struct ring_buffer_event *e;
	unsigned long lost;
	long prev = first;
	int k, i, n, missed;

	if (bad)
		T_FAIL("the task's write failed");
	for (k = 0; k < t_rp_got; k++) {
		const u8 *d = ring_buffer_read_page_data(t_rp_page[k]);
		unsigned long word, stored = 0;
		long lost_k = 0;

		if (memcmp(d, t_rp_snap[k], PAGE_SIZE))
			T_FAIL("page %d changed after read_page() handed it out", k);
		n = t_parse_page(d, PAGE_SIZE, ev, 512, &missed);
		if (n <= 0)
			T_FAIL("page %d: %d events", k, n);
		memcpy(&word, d + 8, sizeof(long));
		if (word & T_MISSED_STORED) {
			memcpy(&stored, d + T_SB_HDR + (word & T_COMMIT_MASK), sizeof(long));
			lost_k = stored;
		} else if (missed) {
			lost_k = -2;
		}
		for (i = 0; i < n; i++) {
			u32 seed;

			memcpy(&seed, ev[i].data, 4);
			if (t_rp_next(&prev, seed, i ? 0 : lost_k, "read_page"))
				return 1;
		}
	}
	while ((e = ring_buffer_consume(b, 0, NULL, &lost))) {
		u32 seed;

		memcpy(&seed, ring_buffer_event_data(e), 4);
		if (t_rp_next(&prev, seed, lost, "consume"))
			return 1;
	}
	T_EQ(prev, total - 1);
	return 0;
}

static int t_rp_run(int own)
{
	struct trace_buffer *b = t_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	unsigned long nr, moves = 0, room, lost;
	long points, first_bad, back, first = -1;
	struct ring_buffer_event *e;
	int bad, status, k;
	u32 n = 0;

	T_ASSERT(b);
	t_pc_buf = b;
	t_rp_got = 0;
	ring_buffer_set_clock(b, t_tick);
	for (k = 0; k < T_RP_PAGES; k++) {
		t_rp_page[k] = NULL;
		T_EQ(ring_buffer_alloc_read_page(b, 0, &t_rp_page[k]), 0);
	}
	nr = t_map_ring_subbufs(b, 0);
	while ((moves + 1 < nr || t_room(b, 0) >= 28) && n < 100000) {
		room = t_room(b, 0);
		T_EQ(t_lo_write(b, n++), 0);
		moves += t_room(b, 0) > room;
	}
	if (own) {
		e = ring_buffer_consume(b, 0, NULL, &lost);
		T_ASSERT(e);
		u32 seed;

		memcpy(&seed, ring_buffer_event_data(e), 4);
		T_EQ(seed, 0);
		first = 0;
	}
	T_ASSERT(sim_step_sweep(t_rp_irq, 0));
	bad = t_lo_write(b, n);
	bad |= t_lo_write(b, n + 1);
	if (sim_step_end())
		_exit(t_rp_check(b, bad, n + 2, first));
	points = sim_step_results(&first_bad, &status, &back);
	printf("# reader %s: %ld interrupt points\n", own ? "holds the oldest" : "holds nothing",
	       points);
	if (first_bad)
		T_FAIL("read_page in an irq after instruction %ld of the writes: wait status %#x",
		       first_bad, status);
	T_ASSERT(points > 100);
	if (t_rp_check(b, bad, n + 2, first))
		return 1;
	for (k = 0; k < T_RP_PAGES; k++)
		ring_buffer_free_read_page(b, 0, t_rp_page[k]);
	ring_buffer_free(b);
	return 0;
}

static int test_read_page_at_each_instruction(void)
{
#ifdef RB_STOCK
	T_SKIP("stock 6.12 spins in rb_set_head_page() when a reader interrupts a writer's head page update on its CPU");
#endif
	return t_rp_run(0) || t_rp_run(1);
}

/*
 * The other way round: a writer in an NMI after every instruction of the
 * reads (consume, read_page, consume), the ring full in overwrite mode, so
 * that the NMI pushes out the sub-buffer the reader is taking.  @subbufs:
 * how many sub-buffers the NMI's events move on by.  Every event comes back
 * once, in order, gaps exactly reported, the handed-out page unchanged.
 */
static u32 t_rw_n, t_rw_moves;
static u32 t_rw_seen[T_LO_MAX];
static unsigned long t_rw_lost[T_LO_MAX];
static u32 t_rw_nr;

static void t_rw_nmi(void)
{
	struct trace_buffer *b = t_pc_buf;
	unsigned long room;
	u32 moved = 0;

	/* where NMIs may not write (RB_CFG_WEAK), an irq */
	t_enter(T_NMI_REFUSED ? HARDIRQ_OFFSET : NMI_OFFSET);
	while (moved < t_rw_moves) {
		room = t_room(b, 0);
		if (t_lo_write(b, t_rw_n))
			break;
		t_rw_n++;
		moved += t_room(b, 0) > room;
	}
	t_leave(T_NMI_REFUSED ? HARDIRQ_OFFSET : NMI_OFFSET);
}

static int t_rw_note(u32 seed, unsigned long lost)
{
	if (t_rw_nr >= T_LO_MAX)
		return 0;
	t_rw_seen[t_rw_nr] = seed;
	t_rw_lost[t_rw_nr++] = lost;
	return 0;
}

static int t_rw_reads(struct trace_buffer *b)
{
	static struct t_pevent ev[512];
	struct ring_buffer_event *e;
	unsigned long lost, word;
	int n, i, missed;
	u32 seed;

	for (int k = 0; k < 3; k++) {
		if (k != 1) {
			e = ring_buffer_consume(b, 0, NULL, &lost);
			if (e) {
				memcpy(&seed, ring_buffer_event_data(e), 4);
				t_rw_note(seed, lost);
			}
			continue;
		}
		if (ring_buffer_read_page(b, t_rp_page[0], PAGE_SIZE, 0, 0) < 0)
			continue;
		memcpy(t_rp_snap[0], ring_buffer_read_page_data(t_rp_page[0]), PAGE_SIZE);
		t_rp_got = 1;
		n = t_parse_page(t_rp_snap[0], PAGE_SIZE, ev, 512, &missed);
		if (n <= 0)
			return 1;
		memcpy(&word, t_rp_snap[0] + 8, sizeof(long));
		lost = 0;
		if (word & T_MISSED_STORED)
			memcpy(&lost, t_rp_snap[0] + T_SB_HDR + (word & T_COMMIT_MASK),
			       sizeof(long));
		else if (missed)
			lost = ~0UL;
		for (i = 0; i < n; i++) {
			memcpy(&seed, ev[i].data, 4);
			t_rw_note(seed, i ? 0 : lost);
		}
	}
	return 0;
}

static int t_rw_check(struct trace_buffer *b, int bad, long first)
{
	struct ring_buffer_event *e;
	unsigned long lost;
	long prev = first;
	u32 seed;

	if (bad)
		T_FAIL("read_page's page did not parse");
	if (t_rp_got && memcmp(ring_buffer_read_page_data(t_rp_page[0]), t_rp_snap[0], PAGE_SIZE))
		T_FAIL("the page read_page() handed out changed afterwards");
	while ((e = ring_buffer_consume(b, 0, NULL, &lost))) {
		memcpy(&seed, ring_buffer_event_data(e), 4);
		t_rw_note(seed, lost);
	}
	for (u32 i = 0; i < t_rw_nr; i++) {
		long gap = (long)t_rw_seen[i] - prev - 1;

		if (gap < 0 || (t_rw_lost[i] != ~0UL && gap != (long)t_rw_lost[i]) ||
		    (t_rw_lost[i] == ~0UL && !gap))
			T_FAIL("read %u: event %u after %ld reported %ld lost, the gap is %ld",
			       i, t_rw_seen[i], prev, (long)t_rw_lost[i], gap);
		prev = t_rw_seen[i];
	}
	T_EQ(prev, (long)t_rw_n - 1);
	return 0;
}

static int t_rw_run(u32 moves, int own)
{
	struct trace_buffer *b = t_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	unsigned long nr, nmoves = 0, room, lost;
	long points, first_bad, back, first = -1;
	struct ring_buffer_event *e;
	int bad, status;
	u32 n = 0;

	T_ASSERT(b);
	t_pc_buf = b;
	t_rp_got = 0;
	t_rw_nr = 0;
	t_rw_moves = moves;
	ring_buffer_set_clock(b, t_tick);
	t_rp_page[0] = NULL;
	T_EQ(ring_buffer_alloc_read_page(b, 0, &t_rp_page[0]), 0);
	nr = t_map_ring_subbufs(b, 0);
	while ((nmoves + 1 < nr || t_room(b, 0) >= 28) && n < 100000) {
		room = t_room(b, 0);
		T_EQ(t_lo_write(b, n++), 0);
		nmoves += t_room(b, 0) > room;
	}
	t_rw_n = n;
	if (own) {
		u32 seed;

		e = ring_buffer_consume(b, 0, NULL, &lost);
		T_ASSERT(e);
		memcpy(&seed, ring_buffer_event_data(e), 4);
		T_EQ(seed, 0);
		first = 0;
	}
	T_ASSERT(sim_step_sweep(t_rw_nmi, 0));
	bad = t_rw_reads(b);
	if (sim_step_end())
		_exit(t_rw_check(b, bad, first));
	points = sim_step_results(&first_bad, &status, &back);
	printf("# NMI moving %u, reader %s: %ld interrupt points\n", moves,
	       own ? "holds the oldest" : "holds nothing", points);
	if (first_bad)
		T_FAIL("NMI writer after instruction %ld of the reads: wait status %#x",
		       first_bad, status);
	T_ASSERT(points > 100);
	if (t_rw_check(b, bad, first))
		return 1;
	ring_buffer_free_read_page(b, 0, t_rp_page[0]);
	ring_buffer_free(b);
	return 0;
}

static int test_nmi_writer_in_reads(void)
{
#ifdef RB_STOCK
	T_SKIP("stock 6.12 spins when a reader interrupts or is interrupted mid head-page update");
#endif
	/* (t_rw_run(1, 0), by one sub-buffer, is left out of the run for time) */
	return t_rw_run(2, 1);
}

/*
 * The consuming reader takes sub-buffers out from under an iterator:
 * that is no loss.  The iterator goes on from the reader's position and
 * reports nothing dropped (overrun stays 0).
 */
static int test_iter_passed_by_reader(void)
{
	struct trace_buffer *b = t_alloc(64 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_event *e;
	struct ring_buffer_iter *it;
	u32 i, seed;

	T_ASSERT(b);
	for (i = 0; i < 400; i++)
		T_EQ(t_write(b, 60, i), 0);
	it = ring_buffer_read_start(b, 0, GFP_KERNEL);
	T_ASSERT(it);
	for (i = 0; i < 5; i++) {
		e = ring_buffer_iter_peek(it, NULL);
		T_ASSERT(e && t_check(ring_buffer_event_data(e), 60, i));
		ring_buffer_iter_advance(it);
	}
	for (i = 0; i < 200; i++)
		T_ASSERT(ring_buffer_consume(b, 0, NULL, NULL));
	/*
	 * What the iterator had copied may still come (ours: the rest of
	 * its sub-buffer), then the reader's position, in order.
	 */
	for (seed = 5; (e = ring_buffer_iter_peek(it, NULL)); seed++) {
		T_ASSERT(!ring_buffer_iter_dropped(it));
		if (seed < 200 && !t_check(ring_buffer_event_data(e), 60, seed))
			seed = 200;
		if (!t_check(ring_buffer_event_data(e), 60, seed))
			T_FAIL("the iterator shows something else than event %u", seed);
		ring_buffer_iter_advance(it);
	}
	T_EQ(seed, 400);
	T_ASSERT(!ring_buffer_iter_dropped(it));
	T_EQ(ring_buffer_overrun_cpu(b, 0), 0);
	ring_buffer_read_finish(it);
	ring_buffer_free(b);
	return 0;
}

/*
 * The reader is interrupted: after every instruction of read_page() (which
 * takes the head sub-buffer and hands its page out) and a consume, an irq
 * writes events that cross one or two sub-buffer boundaries.  Before the
 * sweep the reader has already handed a page out and freed it.  Every
 * event comes back once, in order, and every page is in one place (the
 * child frees the buffer: ASan reports a page held twice or written after
 * it was handed out).
 */
static void t_rq_irq(void)
{
	t_enter(HARDIRQ_OFFSET);
	for (int i = 0; i < 3; i++)
		or_write(t_pc_buf, i == 2 ? 64 : 4000);
	t_leave(HARDIRQ_OFFSET);
}

/* The reads the interrupt sweeps over, through the oracle. */
static int t_rq_read(struct trace_buffer *b, struct buffer_data_read_page *rp)
{
	int bad = or_read_page(b, 0, rp, PAGE_SIZE, 0) < 0;

	return bad | (or_consume(b, 0) < 0);
}

/*
 * The oracle judges: each event read once, in order, nothing lost (the
 * ring never fills), the counters agreeing.
 */
static int t_rq_check(struct trace_buffer *b, int bad)
{
	if (bad)
		T_FAIL("a read did not pass the oracle");
	T_EQ(ring_buffer_overrun_cpu(b, 0), 0);
	return or_judge(b, 0);
}

static int test_irq_sweep_read_page(void)
{
	struct trace_buffer *b = t_alloc(32 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct buffer_data_read_page *rp = NULL;
	long points, first_bad, back;
	int bad, status;

	T_ASSERT(b);
	or_reset();
	t_pc_buf = b;
	/* three sub-buffers of 100-byte events */
	for (u32 task = 0; task < 3 * 39; task++)
		T_EQ(or_write(b, 100), 0);
	/* one page handed out and freed already */
	T_EQ(ring_buffer_alloc_read_page(b, 0, &rp), 0);
	T_EQ(t_rq_read(b, rp), 0);
	ring_buffer_free_read_page(b, 0, rp);
	T_ASSERT(ring_buffer_read_events_cpu(b, 0) > 1);
	rp = NULL;
	T_EQ(ring_buffer_alloc_read_page(b, 0, &rp), 0);
	T_ASSERT(sim_step_sweep(t_rq_irq, 0));
	bad = t_rq_read(b, rp);
	if (sim_step_end()) {
		int ret;

		ring_buffer_free_read_page(b, 0, rp);
		ret = t_rq_check(b, bad);
		ring_buffer_free(b);
		_exit(ret);
	}
	points = sim_step_results(&first_bad, &status, &back);
	printf("# read_page and consume: %ld interrupt points\n", points);
	if (first_bad)
		T_FAIL("irq after instruction %ld of the reads: wait status %#x",
		       first_bad, status);
	T_ASSERT(points > 100);
	ring_buffer_free_read_page(b, 0, rp);
	if (t_rq_check(b, bad))
		return 1;
	ring_buffer_free(b);
	return 0;
}

static int test_headers_text(void)
{
	static struct trace_seq s;
	struct trace_buffer *b = t_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	char want[128];

	T_ASSERT(b);
	trace_seq_init(&s);
	T_ASSERT(ring_buffer_print_entry_header(&s));
	T_ASSERT(strstr(s.buffer, "type_len    :    5 bits"));
	T_ASSERT(strstr(s.buffer, "time_delta  :   27 bits"));
	trace_seq_init(&s);
	T_ASSERT(ring_buffer_print_page_header(b, &s));
	T_ASSERT(strstr(s.buffer, "field: u64 timestamp;\toffset:0;\tsize:8;"));
	snprintf(want, sizeof(want), "field: local_t commit;\toffset:8;\tsize:%zu;",
		 sizeof(long));
	T_ASSERT(strstr(s.buffer, want));
	T_ASSERT(strstr(s.buffer, "field: int overwrite;\toffset:8;\tsize:1;"));
	snprintf(want, sizeof(want), "field: char data;\toffset:%zu;\tsize:%lu;",
		 T_SB_HDR, PAGE_DATA);
	T_ASSERT(strstr(s.buffer, want));
	ring_buffer_free(b);
	return 0;
}

/* Big clock jumps need a time extend; stamps stay exact. */

static int test_clock_jumps(void)
{
	struct trace_buffer *b = t_alloc(16 * PAGE_SIZE, RB_FL_OVERWRITE);
	u64 stamps[] = { 1, 2, 2, 1ULL << 27, (1ULL << 27) + 1,
			 (1ULL << 28) + 1 /* a delta of 2^27: a time extend */, 1ULL << 40,
			 (1ULL << 40) + 5, 1ULL << 50, (1ULL << 50) + (1ULL << 28),
			 (1ULL << 52) };
	int n = ARRAY_SIZE(stamps), i;

	T_ASSERT(b);
	for (int abs = 0; abs < 2; abs++) {
		ring_buffer_set_time_stamp_abs(b, abs);
		T_EQ(ring_buffer_time_stamp_abs(b), abs);
		if (abs)
			T_EQ(ring_buffer_max_event_size(b), PAGE_DATA - 16);
		for (i = 0; i < n; i++) {
			t_clock_set(stamps[i] + abs * (1ULL << 53));
			T_EQ(t_write(b, 12, i), 0);
		}
		for (i = 0; i < n; i++)
			if (t_consume_check(b, 0, 12, i, stamps[i] + abs * (1ULL << 53), 0))
				T_FAIL("stamp %d (abs %d)", i, abs);
	}
	/*
	 * A clock that steps back (a TSC recalibration): that event keeps
	 * the last stamp, as 6.12's zero delta does; ours goes on from the
	 * clock, stock from the lower stamp (S + 1020 here).
	 */
	ring_buffer_set_time_stamp_abs(b, 0);
	for (i = 0; i < 3; i++) {
		const u64 back[] = { 1ULL << 54, (1ULL << 54) - 1000, (1ULL << 54) + 20 };

		t_clock_set(back[i]);
		T_EQ(t_write(b, 12, i), 0);
	}
	T_EQ(t_consume_check(b, 0, 12, 0, 1ULL << 54, 0), 0);
	T_EQ(t_consume_check(b, 0, 12, 1, 1ULL << 54, 0), 0);
#ifdef RB_STOCK
	T_EQ(t_consume_check(b, 0, 12, 2, (u64)-1, 0), 0);
#else
	T_EQ(t_consume_check(b, 0, 12, 2, (1ULL << 54) + 20, 0), 0);
	/*
	 * An event that needs a TIME_EXTEND and then fills the rest of its
	 * sub-buffer exactly goes in, not to the next sub-buffer.
	 */
	for (i = 0; t_room(b, 0) >= 200; i++)
		T_EQ(t_write(b, 24, i), 0);
	n = t_room(b, 0) - 16 > 112 ? t_room(b, 0) - 16 : t_room(b, 0) - 12;
	t_clock_set((1ULL << 54) + (1ULL << 40));
	T_EQ(t_write(b, n, 99), 0);
	T_EQ(t_room(b, 0), 0);
	while (i--)
		T_ASSERT(ring_buffer_consume(b, 0, NULL, NULL));
	T_EQ(t_consume_check(b, 0, n, 99, (1ULL << 54) + (1ULL << 40), 0), 0);
#endif
	ring_buffer_free(b);
	return 0;
}

/*
 * Absolute stamps keep 59 bits in the event: one that crosses a multiple
 * of 2^59 after the stamp before it carries into the top bits, for the
 * consuming reader and the iterator alike (6.12: rb_fix_abs_ts()).
 */
static int test_abs_stamp_carry(void)
{
	struct trace_buffer *b = t_alloc(16 * PAGE_SIZE, RB_FL_OVERWRITE);
	const u64 top = 3ULL << 59;
	const u64 stamps[] = { top - 1000, top - 1, top + 1000,
			       (4ULL << 59) - 10, (4ULL << 59) + 7 };
	int n = ARRAY_SIZE(stamps), i;
	struct ring_buffer_iter *it;
	struct ring_buffer_event *e;
	u64 ts;

	T_ASSERT(b);
	ring_buffer_set_time_stamp_abs(b, 1);
	for (i = 0; i < n; i++) {
		t_clock_set(stamps[i]);
		T_EQ(t_write(b, 12, i), 0);
	}
	it = ring_buffer_read_start(b, 0, GFP_KERNEL);
	T_ASSERT(it);
	for (i = 0; i < n; i++) {
		e = ring_buffer_iter_peek(it, &ts);
		T_ASSERT(e);
		if (ts != stamps[i])
			T_FAIL("iterator: event %d stamp %#llx, written %#llx",
			       i, (unsigned long long)ts,
			       (unsigned long long)stamps[i]);
		ring_buffer_iter_advance(it);
	}
	ring_buffer_read_finish(it);
	for (i = 0; i < n; i++)
		if (t_consume_check(b, 0, 12, i, stamps[i], 0))
			T_FAIL("consume: event %d, written at %#llx", i,
			       (unsigned long long)stamps[i]);
	ring_buffer_free(b);
	return 0;
}

struct t_waiter {
	struct trace_buffer *b;
	int cpu, full, ret;
	volatile int done;
};

static void *t_wait_thread(void *arg)
{
	struct t_waiter *w = arg;

	w->ret = ring_buffer_wait(w->b, w->cpu, w->full, NULL, NULL);
	__atomic_store_n(&w->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static int t_wait_done(struct t_waiter *w)
{
	for (int i = 0; i < 400 && !__atomic_load_n(&w->done, __ATOMIC_SEQ_CST); i++)
		usleep(5000);
	return __atomic_load_n(&w->done, __ATOMIC_SEQ_CST);
}

static int test_wait_wake(void)
{
	struct trace_buffer *b = t_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct t_waiter w = { .b = b, .cpu = 0 };
	struct sim_thread th = { 0 };
	poll_table pt = { .n = 0 };
	struct file f = { 0 };

	T_ASSERT(b);
	/* a write wakes a reader waiting on its CPU */
	sim_thread_start(&th, 2, t_wait_thread, &w);
	usleep(20000);
	T_ASSERT(!w.done);
	T_EQ(t_write(b, 8, 1), 0);
	T_ASSERT(t_wait_done(&w));
	sim_thread_join(&th);
	T_EQ(w.ret, 0);
	/* wake_waiters wakes a sleeper even with no data */
	ring_buffer_consume(b, 0, NULL, NULL);
	w.done = 0;
	w.cpu = 1;
	sim_thread_start(&th, 2, t_wait_thread, &w);
	usleep(20000);
	T_ASSERT(!w.done);
	/*
	 * It wakes those waiting then: until the thread sleeps (late on a
	 * loaded machine, after the 20 ms above) a wake-up finds nobody.
	 */
	for (int i = 0; i < 400 && !__atomic_load_n(&w.done, __ATOMIC_SEQ_CST); i++) {
		ring_buffer_wake_waiters(b, 1);
		usleep(5000);
	}
	T_ASSERT(t_wait_done(&w));
	sim_thread_join(&th);
	/* all-CPU wait */
	w.done = 0;
	w.cpu = RING_BUFFER_ALL_CPUS;
	sim_thread_start(&th, 2, t_wait_thread, &w);
	usleep(20000);
	T_ASSERT(!w.done);
	sim_bind(3);
	T_EQ(t_write(b, 8, 1), 0);
	sim_bind(0);
	T_ASSERT(t_wait_done(&w));
	sim_thread_join(&th);
	/* poll reports data */
	T_ASSERT(ring_buffer_poll_wait(b, 3, &f, &pt, 0) & EPOLLIN);
	ring_buffer_consume(b, 3, NULL, NULL);
	pt.n = 0;
	T_EQ(ring_buffer_poll_wait(b, 3, &f, &pt, 0) & EPOLLIN, 0);
	T_ASSERT(pt.n > 0);
	ring_buffer_free(b);
	return 0;
}

/* How many 200-byte writes, the clock still, fill a sub-buffer. */
static int t_eq_per_sb(void)
{
	struct trace_buffer *b = t_alloc(4 * PAGE_DATA, RB_FL_OVERWRITE);
	struct buffer_data_read_page *rp = NULL;
	struct t_pevent ev[64];
	int k = -1;

	if (!b || ring_buffer_alloc_read_page(b, 0, &rp))
		goto out;
	for (int i = 0; i < 60; i++)
		t_write(b, 200, i);
	if (!ring_buffer_read_page(b, rp, PAGE_SIZE, 0, 1))
		k = t_parse_page(ring_buffer_read_page_data(rp), PAGE_SIZE,
				 ev, 64, NULL);
	ring_buffer_free_read_page(b, 0, rp);
out:
	ring_buffer_free(b);
	return k;
}

/*
 * The queries trace.c makes before each entry of "cat trace" and before a
 * reader sleeps leave the ring as it is: no sub-buffer leaves it, so the
 * overwrite still reaches the oldest one, the dirty count and the oldest
 * time stamp stay, and a "full" watermark is met at its sub-buffer.
 */
static int t_eq_watermark(int full, int k)
{
	struct trace_buffer *b = t_alloc(9 * PAGE_DATA, RB_FL_OVERWRITE);
	poll_table pt = { .n = 0 };
	struct file f = { 0 };
	int i;

	T_ASSERT(b);
	for (i = 0; i < 12 * k; i++) {
		T_EQ(t_write(b, 200, i), 0);
		pt.n = 0;
		if (ring_buffer_poll_wait(b, 0, &f, &pt, full) & EPOLLIN)
			break;
	}
	/* the sub-buffer event i is in, counted from 1 */
	T_EQ(i / k + 1, DIV_ROUND_UP(full * 9, 100));
	ring_buffer_free(b);
	return 0;
}

static int test_empty_is_a_query(void)
{
	struct trace_buffer *b = t_alloc(9 * PAGE_DATA, RB_FL_OVERWRITE);
	unsigned long lost = 0;
	size_t dirty;
	u64 oldest, ts = 0;
	int i, n, k = t_eq_per_sb();

	T_ASSERT(b && k > 2);
	n = 30 * k;
	for (i = 0; i < 3 * k + 5; i++) {
		t_clock_set(1000 + i);
		T_EQ(t_write(b, 200, i), 0);
	}
	dirty = ring_buffer_nr_dirty_pages(b, 0);
	oldest = ring_buffer_oldest_event_ts(b, 0);
	T_EQ(oldest, 1000);
	T_ASSERT(!ring_buffer_empty_cpu(b, 0));
	T_ASSERT(!ring_buffer_empty(b));
	T_EQ(ring_buffer_nr_dirty_pages(b, 0), dirty);
	T_EQ(ring_buffer_oldest_event_ts(b, 0), oldest);
	/* laps later, the oldest events are gone, also the queried ones */
	for (; i < n; i++) {
		t_clock_set(1000 + i);
		T_EQ(t_write(b, 200, i), 0);
	}
	T_ASSERT(!ring_buffer_empty_cpu(b, 0));
	T_ASSERT(ring_buffer_consume(b, 0, &ts, &lost));
	/* at most the ring and a reader's page: nothing stale */
	T_ASSERT(ts >= 1000 + n - 10 * k);
	T_ASSERT(lost > 0);
	ring_buffer_free(b);
	for (i = 25; i <= 100; i += 25)
		if (t_eq_watermark(i, k))
			T_FAIL("woken late or early for full=%d", i);
	return 0;
}

/* consume from NMI context and with irqs off under an arch spinlock */
static int test_consume_contexts(void)
{
	struct trace_buffer *b = t_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	arch_spinlock_t lock = (arch_spinlock_t)__ARCH_SPIN_LOCK_UNLOCKED;
	unsigned long flags;

	T_ASSERT(b);
	for (int i = 0; i < 3; i++) {
		t_clock_set(100 + i);
		T_EQ(t_write(b, 16, i), 0);
	}
	local_irq_save(flags);
	arch_spin_lock(&lock);
	if (t_consume_check(b, 0, 16, 0, 100, 0))
		return 1;
	arch_spin_unlock(&lock);
	local_irq_restore(flags);
	t_enter(NMI_OFFSET + HARDIRQ_OFFSET);
	if (T_NMI_NO_READ) {
		T_ASSERT(!ring_buffer_consume(b, 0, NULL, NULL));
		T_ASSERT(ring_buffer_empty_cpu(b, 0));
		t_leave(NMI_OFFSET + HARDIRQ_OFFSET);
		T_ASSERT(ring_buffer_consume(b, 0, NULL, NULL));
		t_enter(NMI_OFFSET + HARDIRQ_OFFSET);
	} else if (t_consume_check(b, 0, 16, 1, 101, 0)) {
		return 1;
	}
	T_EQ(!ring_buffer_peek(b, 0, NULL, NULL), T_NMI_NO_READ);
	t_leave(NMI_OFFSET + HARDIRQ_OFFSET);
	if (t_consume_check(b, 0, 16, 2, 102, 0))
		return 1;
	ring_buffer_free(b);
	return 0;
}

static int test_boot_delta_null(void)
{
	long text = 1, data = 1;

	T_ASSERT(!ring_buffer_last_boot_delta(NULL, &text, &data));
	return 0;
}

/* Discards inside a sub-buffer leave padding with a non-zero delta. */
static int test_discard_in_page(void)
{
	struct trace_buffer *b = t_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_event *e;
	int i, kept = 0;

	T_ASSERT(b);
	for (i = 0; i < 40; i++) {
		t_clock_set(1000 + i);
		e = ring_buffer_lock_reserve(b, 24);
		T_ASSERT(e);
		t_fill(ring_buffer_event_data(e), 24, kept);
		if (i % 3 == 1) {
			ring_buffer_discard_commit(b, e);
			/* a write after the discard keeps the page valid */
			T_EQ(t_write(b, 24, kept), 0);
			kept++;
			continue;
		}
		T_EQ(ring_buffer_unlock_commit(b), 0);
		kept++;
	}
	{
		struct buffer_data_read_page *rp = NULL;
		struct t_pevent ev[128];
		int cnt;

		T_EQ(ring_buffer_alloc_read_page(b, 0, &rp), 0);
		T_ASSERT(ring_buffer_read_page(b, rp, PAGE_SIZE, 0, 0) >= 0);
		cnt = t_parse_page(ring_buffer_read_page_data(rp), PAGE_SIZE, ev, 128, NULL);
		T_EQ(cnt, kept);
		for (i = 0; i < cnt; i++)
			if (!t_check(ev[i].data, 24, i))
				T_FAIL("page event %d", i);
		ring_buffer_free_read_page(b, 0, rp);
	}
	ring_buffer_free(b);
	return 0;
}

/*
 * A discard that is not the last event in its sub-buffer (an irq wrote
 * after it was reserved) cannot give its room back: it stays as padding,
 * which no reader shows.  Consume, the iterator and read_page each see
 * only the irq's event and the one after (stock hands read_page the
 * padding in front of them; ours copies the events without it: both are
 * the format's).
 */
static int t_padding_setup(struct trace_buffer *b)
{
	struct ring_buffer_event *e;

	t_clock_set(100);
	e = ring_buffer_lock_reserve(b, 40);
	T_ASSERT(e);
	t_fill(ring_buffer_event_data(e), 40, 6);
	sim_ctx.pc += HARDIRQ_OFFSET;
	t_clock_set(110);
	T_EQ(t_write(b, 24, 7), 0);
	sim_ctx.pc -= HARDIRQ_OFFSET;
	ring_buffer_discard_commit(b, e);
	t_clock_set(120);
	T_EQ(t_write(b, 16, 8), 0);
	T_EQ(ring_buffer_entries_cpu(b, 0), 2);
	return 0;
}

static int test_discard_padding(void)
{
	struct trace_buffer *b = t_alloc(8 * PAGE_SIZE, 0);
	struct buffer_data_read_page *rp = NULL;
	struct ring_buffer_iter *it;
	struct ring_buffer_event *e;
	static struct t_pevent ev[256];
	u64 ts;
	int n;

	T_ASSERT(b);
	if (t_padding_setup(b))
		return 1;
	if (t_consume_check(b, 0, 24, 7, 110, 0) || t_consume_check(b, 0, 16, 8, 120, 0))
		T_FAIL("consume across the padding");
	T_ASSERT(!ring_buffer_consume(b, 0, NULL, NULL));

	ring_buffer_reset(b);
	if (t_padding_setup(b))
		return 1;
	it = ring_buffer_read_start(b, 0, GFP_KERNEL);
	T_ASSERT(it);
	e = ring_buffer_iter_peek(it, &ts);
	T_ASSERT(e && ts == 110 && t_check(ring_buffer_event_data(e), 24, 7));
	ring_buffer_iter_advance(it);
	e = ring_buffer_iter_peek(it, &ts);
	T_ASSERT(e && ts == 120 && t_check(ring_buffer_event_data(e), 16, 8));
	ring_buffer_iter_advance(it);
	T_ASSERT(!ring_buffer_iter_peek(it, NULL));
	ring_buffer_read_finish(it);

	ring_buffer_reset(b);
	if (t_padding_setup(b))
		return 1;
	/* a whole sub-buffer, the writer gone on: the padding is not shown */
	for (int i = 0; i < 400; i++)
		T_EQ(t_write(b, 24, 100 + i), 0);
	T_EQ(ring_buffer_alloc_read_page(b, 0, &rp), 0);
	T_ASSERT(ring_buffer_read_page(b, rp, PAGE_SIZE, 0, 1) >= 0);
	n = t_parse_page(ring_buffer_read_page_data(rp), PAGE_SIZE, ev, ARRAY_SIZE(ev), NULL);
	T_ASSERT(n > 2);
	T_ASSERT(ev[0].ts == 110 && t_check(ev[0].data, 24, 7));
	T_ASSERT(ev[1].ts == 120 && t_check(ev[1].data, 16, 8));
	for (int i = 2; i < n; i++)
		T_ASSERT(t_check(ev[i].data, 24, 100 + i - 2));
	ring_buffer_free_read_page(b, 0, rp);
	ring_buffer_free(b);
	return 0;
}

/* ---- self-tests of the simulator the other tests rely on ---- */

static struct {
	volatile int spin, seen;
	unsigned int pc[SIM_NR_LEVELS];
	unsigned char lvl[SIM_NR_LEVELS];
	int nmi[SIM_NR_LEVELS], irq[SIM_NR_LEVELS], cpu[SIM_NR_LEVELS];
} SI;

static void t_sim_irq(struct sim_thread *t, enum sim_level lvl)
{
	(void)t;
	SI.pc[lvl] = preempt_count();
	SI.lvl[lvl] = interrupt_context_level();
	SI.nmi[lvl] = !!in_nmi();
	SI.irq[lvl] = !!in_irq();
	SI.cpu[lvl] = smp_processor_id();
	__atomic_or_fetch(&SI.seen, 1 << lvl, __ATOMIC_SEQ_CST);
}

static void *t_sim_spinner(void *arg)
{
	unsigned long flags;

	(void)arg;
	while (__atomic_load_n(&SI.spin, __ATOMIC_SEQ_CST) == 1)
		;
	local_irq_save(flags);
	__atomic_store_n(&SI.spin, 3, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&SI.spin, __ATOMIC_SEQ_CST) == 3)
		;
	/* the interrupt held back so far arrives here */
	local_irq_restore(flags);
	while (__atomic_load_n(&SI.spin, __ATOMIC_SEQ_CST) == 4)
		;
	return NULL;
}

static int t_sim_wait_seen(int mask)
{
	for (int i = 0; i < 2000; i++) {
		if ((__atomic_load_n(&SI.seen, __ATOMIC_SEQ_CST) & mask) == mask)
			return 1;
		usleep(1000);
	}
	return 0;
}

static int test_sim_interrupts(void)
{
	struct sim_thread th = { .irq_fn = t_sim_irq };

	memset(&SI, 0, sizeof(SI));
	SI.spin = 1;
	sim_thread_start(&th, 2, t_sim_spinner, NULL);
	while (!__atomic_load_n(&th.running, __ATOMIC_SEQ_CST))
		usleep(100);
	sim_raise_nmi(&th);
	T_ASSERT(t_sim_wait_seen(1 << SIM_NMI));
	sim_raise_irq(&th);
	T_ASSERT(t_sim_wait_seen(1 << SIM_IRQ | 1 << SIM_SOFTIRQ));
	T_EQ(SI.lvl[SIM_NMI], 3);
	T_ASSERT(SI.nmi[SIM_NMI]);
	T_EQ(SI.lvl[SIM_IRQ], 2);
	T_ASSERT(SI.irq[SIM_IRQ] && !SI.nmi[SIM_IRQ]);
	T_EQ(SI.lvl[SIM_SOFTIRQ], 1);
	T_ASSERT(!SI.irq[SIM_SOFTIRQ] && (SI.pc[SIM_SOFTIRQ] & SOFTIRQ_OFFSET));
	T_EQ(SI.cpu[SIM_IRQ], 2);
	/* with irqs off, an interrupt waits for local_irq_restore() */
	SI.seen = 0;
	__atomic_store_n(&SI.spin, 2, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&SI.spin, __ATOMIC_SEQ_CST) != 3)
		usleep(100);
	sim_raise_irq(&th);
	usleep(20000);
	T_EQ(SI.seen & (1 << SIM_IRQ), 0);
	/* NMIs are not held back */
	sim_raise_nmi(&th);
	T_ASSERT(t_sim_wait_seen(1 << SIM_NMI));
	__atomic_store_n(&SI.spin, 4, __ATOMIC_SEQ_CST);
	T_ASSERT(t_sim_wait_seen(1 << SIM_IRQ));
	__atomic_store_n(&SI.spin, 5, __ATOMIC_SEQ_CST);
	sim_thread_join(&th);
	return 0;
}

/*
 * The harness's forks (t_in_child(), the sweeps) while other threads
 * allocate: two simulated CPUs kmalloc() and kfree() without pause, the
 * main thread forks 100 times (RB_FORKS) and each child allocates and
 * frees more of each size than a thread's cache holds.
 * A fork that copies an allocator lock another thread held leaves its
 * child asleep on it for ever; each child must exit within 10 s (with
 * fork() itself, one of the first ten children hangs).
 * RB_RAW_FORK=1 forks with fork() itself, to show what sim_fork() saves,
 * and waits for each child as t_in_child() does, without a limit: the
 * watchdog must then report the hang, with the child's stack.
 */
static int t_fa_stop;

static void *t_fa_thread(void *arg)
{
	unsigned long n = (unsigned long)arg;

	while (!__atomic_load_n(&t_fa_stop, __ATOMIC_RELAXED)) {
		void *p[8];

		for (int i = 0; i < 8; i++)
			p[i] = kmalloc(16 << ((n + i) % 9), GFP_KERNEL);
		for (int i = 0; i < 8; i++)
			kfree(p[i]);
		n++;
	}
	return NULL;
}

static int test_sim_fork_while_allocating(void)
{
	bool raw = getenv("RB_RAW_FORK") && *getenv("RB_RAW_FORK") == '1';
	struct sim_thread th[2] = {};
	int bad = 0, hung = 0, i;

	__atomic_store_n(&t_fa_stop, 0, __ATOMIC_RELAXED);
	sim_thread_start(&th[0], 1, t_fa_thread, (void *)1UL);
	sim_thread_start(&th[1], 2, t_fa_thread, (void *)5UL);
	int nr = getenv("RB_FORKS") ? atoi(getenv("RB_FORKS")) : 100;

	for (i = 0; i < nr && !hung && !bad; i++) {
		pid_t pid;
		int st, w;

		fflush(NULL);
		pid = raw ? fork() : sim_fork();
		if (pid == 0) {
			/* more of each size than a thread's cache holds */
			static void *p[9][64];
			int fail = 0;

			for (int k = 0; k < 9; k++)
				for (int j = 0; j < 64; j++)
					fail |= !(p[k][j] = kmalloc(16 << k, GFP_KERNEL));
			for (int k = 0; k < 9; k++)
				for (int j = 0; j < 64; j++)
					kfree(p[k][j]);
			_exit(fail);
		}
		if (pid < 0) {
			bad = 1;
			break;
		}
		if (raw) {
			/* as t_in_child() waits: nothing else runs meanwhile */
			__atomic_store_n(&t_fa_stop, 1, __ATOMIC_RELAXED);
			sim_thread_join(&th[0]);
			sim_thread_join(&th[1]);
			waitpid(pid, &st, 0);
			__atomic_store_n(&t_fa_stop, 0, __ATOMIC_RELAXED);
			sim_thread_start(&th[0], 1, t_fa_thread, (void *)1UL);
			sim_thread_start(&th[1], 2, t_fa_thread, (void *)5UL);
		}
		for (w = 0; !raw && w < 10000 && waitpid(pid, &st, WNOHANG) == 0; w++)
			usleep(1000);
		if (w == 10000) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			hung = 1;
		} else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			bad = 1;
		}
	}
	__atomic_store_n(&t_fa_stop, 1, __ATOMIC_RELAXED);
	sim_thread_join(&th[0]);
	sim_thread_join(&th[1]);
	if (hung)
		T_FAIL("fork %d: the child slept 10 s in its allocations", i);
	T_EQ(bad, 0);
	printf("# %d forks%s, every child allocated and exited\n", i, raw ? " (raw)" : "");
	return 0;
}

static void *t_sim_holder(void *arg)
{
	(void)arg;
	preempt_disable();
	__atomic_store_n(&SI.spin, 1, __ATOMIC_SEQ_CST);
	usleep(100000);
	__atomic_store_n(&SI.spin, 2, __ATOMIC_SEQ_CST);
	preempt_enable();
	return NULL;
}

static int test_sim_rcu_warn(void)
{
	struct sim_thread th = { 0 };
	unsigned long w = sim_warnings();

	/* synchronize_rcu() waits for a CPU inside a non-preemptible section */
	SI.spin = 0;
	sim_thread_start(&th, 3, t_sim_holder, NULL);
	while (!__atomic_load_n(&SI.spin, __ATOMIC_SEQ_CST))
		usleep(100);
	synchronize_rcu();
	T_EQ(__atomic_load_n(&SI.spin, __ATOMIC_SEQ_CST), 2);
	sim_thread_join(&th);
	/* WARN_ON counts; sleeping in atomic context warns */
	printf("# the next two warnings are provoked on purpose\n");
	T_ASSERT(WARN_ON(1));
	T_ASSERT(!WARN_ON(0));
	T_EQ(sim_warnings(), w + 1);
	preempt_disable();
	might_sleep();
	preempt_enable();
	T_EQ(sim_warnings(), w + 2);
	sim_warn_absorb(2);
	return 0;
}


/*
 * ftrace_dump() from an NMI that interrupted this CPU's trace_pipe reader:
 * the reader lock is held by the context under the NMI.  The dump loop
 * (empty? consume) must drain the ring and end; the CPU's ring is then off.
 */
static int test_nmi_dump_reader_locked(void)
{
	struct trace_buffer *b = t_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	raw_spinlock_t *lock;
	unsigned long flags;
	int turns = 0, got = 0;
	u64 ts;

	T_ASSERT(b);
	for (int i = 0; i < 3; i++) {
		t_clock_set(500 + i);
		T_EQ(t_write(b, 16, i), 0);
	}
	lock = t_reader_lock(b, 0);
	raw_spin_lock_irqsave(lock, flags);
	t_enter(NMI_OFFSET + HARDIRQ_OFFSET);
	while (!ring_buffer_empty_cpu(b, 0) && turns < 1000) {
		turns++;
		if (ring_buffer_consume(b, 0, &ts, NULL) && ts == 500 + (u64)got)
			got++;
	}
	t_leave(NMI_OFFSET + HARDIRQ_OFFSET);
	raw_spin_unlock_irqrestore(lock, flags);
	if (T_NMI_NO_READ) {
		/* 64-bit atomics may lock here: the dump sees nothing */
		T_EQ(got, 0);
		T_EQ(turns, 0);
		ring_buffer_free(b);
		return 0;
	}
	T_EQ(got, 3);
	T_ASSERT(turns <= 4);
	/* the dump is the last read of that CPU: its ring is off */
	T_EQ(t_write(b, 16, 9), -EBUSY);
	sim_bind(1);
	T_EQ(t_write(b, 16, 9), 0);
	sim_bind(0);
	ring_buffer_free(b);
	return 0;
}

/*
 * Payload alignment: 4 bytes everywhere; 8 where the arch must align 64-bit
 * loads (RB_CFG_WEAK builds as for such an arch).  Checked on reserve, on
 * consume and in the pages read_page hands out.
 */
static int test_payload_alignment(void)
{
	struct trace_buffer *b = t_alloc(64 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct buffer_data_read_page *rp = NULL;
	struct ring_buffer_event *e;
	struct t_pevent ev[512];
	int n = 0, cnt;

	T_ASSERT(b);
	for (unsigned int len = 0; len <= 300; len++) {
		t_clock_set(1000 + len);
		e = ring_buffer_lock_reserve(b, len);
		T_ASSERT(e);
		T_EQ((unsigned long)ring_buffer_event_data(e) % T_PAYLOAD_ALIGN, 0);
		/* the event header goes with the payload (length 0 is 1) */
		T_ASSERT(ring_buffer_event_length(e) >= (len ? len : 1));
		T_ASSERT(ring_buffer_event_length(e) < (len ? len : 1) + T_PAYLOAD_ALIGN);
		t_fill(ring_buffer_event_data(e), len, len);
		if (len % 7 == 3) {
			ring_buffer_discard_commit(b, e);
			continue;
		}
		ring_buffer_unlock_commit(b);
		T_EQ(t_write(b, len, len), 0);
	}
	for (int i = 0; i < 40; i++) {
		e = ring_buffer_consume(b, 0, NULL, NULL);
		T_ASSERT(e);
		T_EQ((unsigned long)ring_buffer_event_data(e) % T_PAYLOAD_ALIGN, 0);
	}
	T_EQ(ring_buffer_alloc_read_page(b, 0, &rp), 0);
	while (ring_buffer_read_page(b, rp, PAGE_SIZE, 0, 0) >= 0) {
		cnt = t_parse_page(ring_buffer_read_page_data(rp), PAGE_SIZE, ev, 512, NULL);
		T_ASSERT(cnt > 0);
		for (int i = 0; i < cnt; i++)
			T_EQ((unsigned long)ev[i].data % T_PAYLOAD_ALIGN, 0);
		n += cnt;
	}
	T_ASSERT(n > 200);
	ring_buffer_free_read_page(b, 0, rp);
	ring_buffer_free(b);
	return 0;
}

/*
 * Where 64-bit cmpxchg is lib/atomic64.c's (RB_CFG_WEAK), an NMI writer
 * could spin on the lock of the writer it interrupted: it is refused, and
 * counted as dropped (6.12 counts nothing).  Elsewhere NMIs write.
 */
static int test_nmi_write_atomic64(void)
{
	struct trace_buffer *b = t_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_event *e;
	int refused = T_NMI_REFUSED;

	T_ASSERT(b);
	T_EQ(t_write(b, 8, 1), 0);
	t_enter(NMI_OFFSET + HARDIRQ_OFFSET);
	e = ring_buffer_lock_reserve(b, 8);
	T_EQ(!e, refused);
	if (e)
		ring_buffer_unlock_commit(b);
	T_EQ(t_write(b, 8, 2), refused ? -EBUSY : 0);
	t_leave(NMI_OFFSET + HARDIRQ_OFFSET);
	T_EQ(t_write(b, 8, 3), 0);
	T_EQ(ring_buffer_entries_cpu(b, 0), 4 - 2 * refused);
#ifdef RB_STOCK
	T_EQ(ring_buffer_dropped_events_cpu(b, 0), 0);
#else
	T_EQ(ring_buffer_dropped_events_cpu(b, 0), 2 * refused);
#endif
	ring_buffer_free(b);
	return 0;
}

/*
 * Sub-buffer numbers that cross 2^32 (a 32-bit unsigned long wraps there):
 * three sub-buffers, so seq % nr is not continuous across a 32-bit wrap.
 * Writes, reads, a resize and a reset on both sides; every event accounted
 * for and read back in order.
 */
static int t_wrap_round(struct trace_buffer *b, u32 *seed, u32 *next,
			unsigned long *lost_sum, int writes, int reads)
{
	struct ring_buffer_event *e;
	unsigned long lost;

	for (int i = 0; i < writes; i++) {
		t_clock_set(t_clock_now + 3);
		T_EQ(t_write(b, 100, (*seed)++), 0);
	}
	for (int i = 0; i < reads; i++) {
		e = ring_buffer_consume(b, 0, NULL, &lost);
		if (!e)
			break;
		*lost_sum += lost;
		*next += lost;
		if (!t_check(ring_buffer_event_data(e), 100, *next))
			T_FAIL("event %u out of order or corrupt", *next);
		(*next)++;
	}
	return 0;
}

static int test_seq_wrap(void)
{
	struct trace_buffer *b = t_alloc(3 * PAGE_DATA, RB_FL_OVERWRITE);
	unsigned long lost = 0;
	u32 seed = 0, next = 0;

	T_ASSERT(b);
	t_seq_start(b, 0, (u64)U32_MAX - 4);
	for (int round = 0; round < 12; round++) {
		if (t_wrap_round(b, &seed, &next, &lost, 60, round & 1 ? 40 : 10))
			return 1;
		T_EQ(ring_buffer_entries_cpu(b, 0) + ring_buffer_read_events_cpu(b, 0) +
		     ring_buffer_overrun_cpu(b, 0), seed);
		T_EQ(ring_buffer_overrun_cpu(b, 0), lost + (seed - next) -
		     ring_buffer_entries_cpu(b, 0));
	}
	T_ASSERT(lost > 0);
	T_EQ(ring_buffer_resize(b, 5 * PAGE_DATA, 0), 0);
	for (int round = 0; round < 12; round++)
		if (t_wrap_round(b, &seed, &next, &lost, 41, 60))
			return 1;
	ring_buffer_reset_cpu(b, 0);
	T_ASSERT(ring_buffer_empty_cpu(b, 0));
	next = seed;
	for (int round = 0; round < 12; round++)
		if (t_wrap_round(b, &seed, &next, &lost, 30, 100))
			return 1;
	T_EQ(ring_buffer_entries_cpu(b, 0), 0);
	T_EQ(sim_warnings(), 0);
	ring_buffer_free(b);
	return 0;
}

/*
 * The oldest event time stamp is the oldest sub-buffer still in the ring's
 * (the reader's while the writer is on it), whatever read_page exchanged.
 */
static int test_oldest_ts(void)
{
	struct trace_buffer *b = t_alloc(6 * PAGE_DATA, RB_FL_OVERWRITE);
	struct buffer_data_read_page *rp = NULL;
	struct t_pevent ev[64];
	int k;

	T_ASSERT(b);
	for (int i = 0; i < 3; i++) {
		t_clock_set(1000 + 8 * i);
		T_EQ(t_write(b, 200, i), 0);
	}
	T_EQ(ring_buffer_oldest_event_ts(b, 0), 1000);
	T_ASSERT(ring_buffer_consume(b, 0, NULL, NULL));
	/* the writer is still on the reader's sub-buffer */
	T_EQ(ring_buffer_oldest_event_ts(b, 0), 1000);
	ring_buffer_free(b);

	b = t_alloc(6 * PAGE_DATA, RB_FL_OVERWRITE);
	T_ASSERT(b);
	for (int i = 0; i < 60; i++) {
		t_clock_set(1000 + 8 * i);
		T_EQ(t_write(b, 200, i), 0);
	}
	/* a whole sub-buffer goes to a read_page caller whose page says 42 */
	T_EQ(ring_buffer_alloc_read_page(b, 0, &rp), 0);
	*(u64 *)ring_buffer_read_page_data(rp) = 42;
	T_EQ(ring_buffer_read_page(b, rp, PAGE_SIZE, 0, 1), 0);
	k = t_parse_page(ring_buffer_read_page_data(rp), PAGE_SIZE, ev, 64, NULL);
	T_ASSERT(k > 2 && k < 30);
	T_EQ(ev[0].ts, 1000);
	/* events 0 .. k-1 were in it (k per sub-buffer: all are alike) */
	T_EQ(ring_buffer_oldest_event_ts(b, 0), 1000 + 8 * k);
	/* a reader that has begun a sub-buffer the writer left holds it */
	T_ASSERT(ring_buffer_consume(b, 0, NULL, NULL));
	T_EQ(ring_buffer_oldest_event_ts(b, 0), 1000 + 8 * 2 * k);
	ring_buffer_free_read_page(b, 0, rp);
	ring_buffer_free(b);
	return 0;
}

/*
 * A writer held off by a reset counts the refused event from its CPU while
 * the reset zeroes the counter from another.  Here the writer's increment
 * is split around the reset's store (sim_local_split_*), as a remote store
 * can land inside a CPU-local increment: the reset's zero must survive.
 */
static struct {
	struct trace_buffer *b;
	struct sim_thread th;
	sem_t paused, go;
	int started;
} t_dr;

static void t_dr_split(void)
{
	sem_post(&t_dr.paused);
	sem_wait(&t_dr.go);
}

static void *t_dr_writer(void *arg)
{
	sim_local_split_at = t_dropped_counter(t_dr.b, 1);
	sim_local_split_fn = t_dr_split;
	t_write(t_dr.b, 8, 7);
	sim_local_split_at = NULL;
	sem_post(&t_dr.paused);
	return NULL;
}

/* Inside the reset, after its grace period: a held-off write begins. */
static void t_dr_after_gp(void)
{
	t_dr.started = 1;
	sim_thread_start(&t_dr.th, 1, t_dr_writer, NULL);
	sem_wait(&t_dr.paused);
}

static int test_dropped_vs_reset(void)
{
	struct trace_buffer *b = t_alloc(2 * PAGE_DATA, 0);
	int fails = 0;

	T_ASSERT(b);
	t_dr.b = b;
	sem_init(&t_dr.paused, 0, 0);
	sem_init(&t_dr.go, 0, 0);
	/* producer/consumer mode: fill CPU 1 and have 50 events dropped */
	sim_bind(1);
	for (int i = 0; i < 1000 && fails < 50; i++)
		fails += t_write(b, 64, i) != 0;
	sim_bind(0);
	T_EQ(fails, 50);
	T_EQ(ring_buffer_dropped_events_cpu(b, 1), 50);
	sim_after_gp_fn = t_dr_after_gp;
	ring_buffer_reset_cpu(b, 1);
	sim_after_gp_fn = NULL;
	sem_post(&t_dr.go);
	if (!t_dr.started)
		T_FAIL("the reset waited for no grace period");
	sim_thread_join(&t_dr.th);
	t_dr.started = 0;
	T_ASSERT(ring_buffer_dropped_events_cpu(b, 1) <= 1);
	T_ASSERT(ring_buffer_empty_cpu(b, 1));
	sem_destroy(&t_dr.paused);
	sem_destroy(&t_dr.go);
	ring_buffer_free(b);
	return 0;
}

/*
 * A reader on CPU 1 runs while the writer on CPU 0 is inside its push of
 * the oldest sub-buffer (overwrite mode), paused between the head cmpxchg
 * and the count of the pushed events (sim_local_split_at on the overrun
 * counter): the reader must wait for the count, not report the gap
 * without it, and its repeated attempts to take the pushed sub-buffer may
 * not hand the slot a page twice.  Afterwards everything reads back in
 * order, every gap reported with the number of events it lost.
 */
static u32 t_seed_of(struct ring_buffer_event *e, u32 from, u32 total);

static struct {
	struct trace_buffer *b;
	struct sim_thread th;
	sem_t paused, go;
	u32 seed;
} t_tp;

static void t_tp_split(void)
{
	sim_local_split_at = NULL;
	sem_post(&t_tp.paused);
	sem_wait(&t_tp.go);
}

static void *t_tp_writer(void *arg)
{
	(void)arg;
	sim_local_split_at = t_overrun_counter(t_tp.b, 0);
	sim_local_split_fn = t_tp_split;
	while (sim_local_split_at)
		t_write(t_tp.b, 60, t_tp.seed++);
	return NULL;
}

/* Consume CPU 0 to the end: in order, each gap reported exactly. */
static int t_tp_drain(struct trace_buffer *b, u32 *want, u32 total)
{
	struct ring_buffer_event *e;
	unsigned long lost;
	u32 seed;

	while ((e = ring_buffer_consume(b, 0, NULL, &lost))) {
		seed = t_seed_of(e, *want, total);
		if (seed < *want || seed >= total)
			T_FAIL("event %u after %u", seed, *want - 1);
		if (lost != seed - *want)
			T_FAIL("event %u: %lu lost reported, %u missing", seed,
			       lost, seed - *want);
		*want = seed + 1;
	}
	return 0;
}

static int test_take_during_push(void)
{
	struct trace_buffer *b = t_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_event *e;
	unsigned long lost;
	u32 want = 0, seed;

#ifdef RB_STOCK
	/* rb_set_head_page() spins until the push ends, which waits for us */
	ring_buffer_free(b);
	T_SKIP("stock 6.12's reader spins until the writer's push ends");
#endif
	T_ASSERT(b);
	t_tp.b = b;
	t_tp.seed = 0;
	sem_init(&t_tp.paused, 0, 0);
	sem_init(&t_tp.go, 0, 0);
	sim_thread_start(&t_tp.th, 0, t_tp_writer, NULL);
	sem_wait(&t_tp.paused);
	/* the writer has moved head past the oldest sub-buffer, uncounted */
	sim_bind(1);
	e = ring_buffer_consume(b, 0, NULL, &lost);
	if (e) {
		seed = t_seed_of(e, 0, t_tp.seed);
		if (lost != seed)
			T_FAIL("during the push: event %u with %lu lost reported",
			       seed, lost);
		want = seed + 1;
	}
	T_ASSERT(t_pages_distinct(b, 0));
	sem_post(&t_tp.go);
	sim_thread_join(&t_tp.th);
	T_ASSERT(t_pages_distinct(b, 0));
	if (t_tp_drain(b, &want, t_tp.seed))
		return 1;
	T_EQ(want, t_tp.seed);
	/* three more laps, read after each: the ring still works */
	sim_bind(0);
	for (int lap = 0; lap < 3; lap++) {
		u32 end = t_tp.seed + 300;

		while (t_tp.seed < end)
			T_EQ(t_write(b, 60, t_tp.seed++), 0);
		T_ASSERT(t_pages_distinct(b, 0));
		if (t_tp_drain(b, &want, t_tp.seed))
			return 1;
		T_EQ(want, t_tp.seed);
	}
	sem_destroy(&t_tp.paused);
	sem_destroy(&t_tp.go);
	ring_buffer_free(b);
	return 0;
}

/* The seed of a 60-byte event, looked for from @from on, then below it. */
/*
 * The seed of a 60-byte event, trying @from first: t_fill() patterns of
 * seeds 256 apart or so can match each other, so an in-order stream is
 * told by its expected seed.
 */
static u32 t_seed_of(struct ring_buffer_event *e, u32 from, u32 total)
{
	u32 seed;

	for (seed = from; seed < total; seed++)
		if (t_check(ring_buffer_event_data(e), 60, seed))
			return seed;
	for (seed = 0; seed < from; seed++)
		if (t_check(ring_buffer_event_data(e), 60, seed))
			return seed;
	return total;
}

/*
 * Overwrite mode: the writer pushes out sub-buffers the iterator has
 * already shown, then the consuming reader takes the iterator's
 * sub-buffer and the next one.  Nothing the iterator had not shown was
 * overwritten: it must not report a drop, and it must go on from the
 * reader's position without skipping what the reader has not read.
 */
/*
 * The writer pushes out the sub-buffer an iterator is in (overwrite mode):
 * the iterator says so (ring_buffer_iter_dropped()), and what it shows
 * after the gap is in write order.
 */
static int test_iter_dropped_by_push(void)
{
	struct trace_buffer *b = t_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_event *e;
	struct ring_buffer_iter *it;
	u32 i, seed, want = 1, total;
	int dropped = 0;

	T_ASSERT(b);
	for (i = 0; i < 10; i++)
		T_EQ(t_write(b, 60, i), 0);
	it = ring_buffer_read_start(b, 0, GFP_KERNEL);
	T_ASSERT(it);
	e = ring_buffer_iter_peek(it, NULL);
	T_ASSERT(e && t_check(ring_buffer_event_data(e), 60, 0));
	T_ASSERT(!ring_buffer_iter_dropped(it));
	/* more than a lap: the iterator's sub-buffer is pushed out */
	for (i = 10; i < 410; i++)
		T_EQ(t_write(b, 60, i), 0);
	total = i;
	T_ASSERT(ring_buffer_overrun_cpu(b, 0) > 0);
	ring_buffer_iter_advance(it);
	while ((e = ring_buffer_iter_peek(it, NULL))) {
		dropped |= ring_buffer_iter_dropped(it);
		seed = t_seed_of(e, want, total);
		if (seed < want)
			T_FAIL("event %u after %u", seed, want - 1);
		want = seed + 1;
		ring_buffer_iter_advance(it);
	}
	T_ASSERT(dropped);
	T_EQ(want, total);
	ring_buffer_read_finish(it);
	ring_buffer_free(b);
	return 0;
}

/*
 * The "trace" file merges the CPUs' iterators as trace.c does: it peeks
 * each and asks ring_buffer_iter_dropped() of each, then prints and
 * advances the earliest.  CPU 0's iterator was lapped, its next event is
 * later than CPU 1's 50: the drop, asked about on each of those rounds,
 * must still be reported once, with CPU 0's first event.
 */
static int test_iter_dropped_interleaved(void)
{
	struct trace_buffer *b;
	struct ring_buffer_iter *it[2];
	struct ring_buffer_event *e;
	int i, cpu, best, shown = 0, reports = 0, first0 = -1;
	bool lost[2];
	u64 ts, best_ts;

#ifdef RB_STOCK
	T_SKIP("6.12 clears the report when asked: the losing peek takes it");
#endif
	b = t_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	T_ASSERT(b);
	for (i = 0; i < 10; i++) {
		t_clock_set(1000 + i);
		T_EQ(t_write(b, 60, i), 0);
	}
	sim_bind(1);
	for (i = 0; i < 50; i++) {
		t_clock_set(2000 + i);
		T_EQ(t_write(b, 60, 1000 + i), 0);
	}
	sim_bind(0);
	for (cpu = 0; cpu < 2; cpu++)
		T_ASSERT((it[cpu] = ring_buffer_read_start(b, cpu, GFP_KERNEL)));
	for (i = 10; i < 410; i++) {
		t_clock_set(3000 + i);
		T_EQ(t_write(b, 60, i), 0);
	}
	for (;;) {
		best = -1;
		best_ts = 0;
		for (cpu = 0; cpu < 2; cpu++) {
			e = ring_buffer_iter_peek(it[cpu], &ts);
			lost[cpu] = ring_buffer_iter_dropped(it[cpu]);
			if (e && (best < 0 || ts < best_ts)) {
				best = cpu;
				best_ts = ts;
			}
		}
		if (best < 0)
			break;
		if (!best && first0 < 0)
			first0 = shown;
		if (lost[best] && (best || first0 != shown))
			T_FAIL("entry %d (CPU %d) reported a drop", shown, best);
		reports += lost[best];
		ring_buffer_iter_advance(it[best]);
		shown++;
	}
	T_EQ(first0, 50);
	T_EQ(reports, 1);
	for (cpu = 0; cpu < 2; cpu++)
		ring_buffer_read_finish(it[cpu]);
	ring_buffer_free(b);
	return 0;
}

/*
 * The consuming reader takes the iterator's sub-buffers, then the writer
 * pushes out those after the reader's: the iterator goes on from the
 * reader with no loss reported (the reader read what it skipped), and
 * reports the loss once, with the first event after the pushed ones.
 * With @skip, the reader too has skipped pushed sub-buffers past the
 * iterator's before it took more: that loss is reported where the
 * iterator meets the reader.
 */
static u32 t_id_of(struct ring_buffer_event *e)
{
	u32 id;

	memcpy(&id, ring_buffer_event_data(e), sizeof(id));
	return id;
}

static int t_iter_lost_once(int skip)
{
	struct trace_buffer *b = t_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_event *e;
	struct ring_buffer_iter *it;
	u32 i, id, w, last = 0, gone, lo = 0, hi = 0;
	int reports = 0;

	T_ASSERT(b);
	for (w = 0; w < 400; w++)
		T_EQ(t_lo_write(b, w), 0);
	it = ring_buffer_read_start(b, 0, GFP_KERNEL);
	T_ASSERT(it && (e = ring_buffer_iter_peek(it, NULL)));
	T_EQ(t_id_of(e), 0);
	ring_buffer_iter_advance(it);
	/* the reader reads events lo..hi-1, the iterator need not show them */
	if (skip) {
		for (; w < 1300; w++)
			T_EQ(t_lo_write(b, w), 0);
		T_ASSERT((e = ring_buffer_consume(b, 0, NULL, NULL)));
		lo = t_id_of(e);
		T_ASSERT(lo > 400);
		hi = lo + 1;
	}
	for (i = 0; i < 320; i++, hi++) {
		T_ASSERT((e = ring_buffer_consume(b, 0, NULL, NULL)));
		T_EQ(t_id_of(e), hi);
	}
	for (; w < 2000; w++)
		T_EQ(t_lo_write(b, w), 0);
	while ((e = ring_buffer_iter_peek(it, NULL))) {
		bool dropped = ring_buffer_iter_dropped(it);

		id = t_id_of(e);
		if (id <= last)
			T_FAIL("event %u after %u", id, last);
		/* ids skipped that the reader did not read: overwritten */
		gone = id - last - 1;
		if (min(id, hi) > max(last + 1, lo))
			gone -= min(id, hi) - max(last + 1, lo);
		if (dropped != !!gone)
			T_FAIL("event %u after %u: %u lost, drop %sreported",
			       id, last, gone, dropped ? "" : "not ");
		reports += dropped;
		last = id;
		ring_buffer_iter_advance(it);
	}
	T_EQ(last, w - 1);
	T_EQ(reports, 1 + skip);
	ring_buffer_read_finish(it);
	ring_buffer_free(b);
	return 0;
}

static int test_iter_lost_once(void)
{
#ifdef RB_STOCK
	T_SKIP("6.12's iterator goes on from a lapped reader's page and reports no drop at the gap after it");
#endif
	return t_iter_lost_once(0) || t_iter_lost_once(1);
}

/*
 * A writer on CPU 0 laps the ring while an iterator on CPU 1 is halfway
 * through its copy of one of CPU 0's sub-buffers (t_copy_hook splits the
 * copy, as a remote CPU's stores can land inside a memcpy): the copy's
 * first half is the old lap's, its second half the new lap's, whose
 * events are of another size.  The iterator must find the slot reused and
 * drop the copy: every event it shows is a whole one of either lap.
 */
#define T_CT_OLD 40
#define T_CT_NEW 1000
static struct {
	struct trace_buffer *b;
	struct sim_thread th;
	u32 seed;
} t_ct;

static void *t_ct_writer(void *arg)
{
	(void)arg;
	for (int i = 0; i < 400; i++)
		t_write(t_ct.b, 100, t_ct.seed++);
	return NULL;
}

static void t_ct_lap(void)
{
	sim_thread_start(&t_ct.th, 0, t_ct_writer, NULL);
	sim_thread_join(&t_ct.th);
}

static bool t_ct_whole(struct ring_buffer_event *e)
{
	unsigned int len = ring_buffer_event_length(e);
	void *data = ring_buffer_event_data(e);
	u32 seed;

	/* the length is rounded up to the payload alignment (8 when weak) */
	if (len >= 60 && len < 68) {
		for (seed = 0; seed < T_CT_OLD; seed++)
			if (t_check(data, 60, seed))
				return true;
	} else if (len >= 100 && len < 108) {
		for (seed = T_CT_NEW; seed < t_ct.seed; seed++)
			if (t_check(data, 100, seed))
				return true;
	}
	return false;
}

static int test_iter_copy_torn(void)
{
	struct trace_buffer *b = t_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_event *e;
	struct ring_buffer_iter *it;
	u32 i, shown = 0;

	T_ASSERT(b);
	for (i = 0; i < T_CT_OLD; i++)
		T_EQ(t_write(b, 60, i), 0);
	t_ct.b = b;
	t_ct.seed = T_CT_NEW;
	sim_bind(1);
	t_copy_hook = t_ct_lap;
	it = ring_buffer_read_start(b, 0, GFP_KERNEL);
	T_ASSERT(it);
	while ((e = ring_buffer_iter_peek(it, NULL))) {
		if (!t_ct_whole(e))
			T_FAIL("event %u the iterator shows is torn (length %u)",
			       shown, ring_buffer_event_length(e));
		shown++;
		ring_buffer_iter_advance(it);
	}
	/* the writer ran inside an iterator's copy and lapped the ring */
	T_ASSERT(!t_copy_hook);
	T_ASSERT(t_ct.seed == T_CT_NEW + 400);
	T_ASSERT(ring_buffer_overrun_cpu(b, 0) >= T_CT_OLD);
	ring_buffer_read_finish(it);
	sim_bind(0);
	ring_buffer_free(b);
	return 0;
}

static int test_iter_overrun_behind(void)
{
	struct trace_buffer *b = t_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_event *e;
	struct ring_buffer_iter *it;
	u32 i, n = 136, total, seed, want, last_c = 0;
	int dropped = 0;

	T_ASSERT(b);
	for (i = 0; i < n; i++)
		T_EQ(t_write(b, 60, i), 0);
	it = ring_buffer_read_start(b, 0, GFP_KERNEL);
	T_ASSERT(it);
	for (i = 0; i < n; i++) {
		e = ring_buffer_iter_peek(it, NULL);
		T_ASSERT(e && t_check(ring_buffer_event_data(e), 60, i));
		ring_buffer_iter_advance(it);
	}
	T_ASSERT(!ring_buffer_iter_peek(it, NULL));
	T_ASSERT(!ring_buffer_iter_dropped(it));
	/* the first push: only events the iterator has shown are lost */
	for (i = n; !ring_buffer_overrun_cpu(b, 0); i++)
		T_EQ(t_write(b, 60, i), 0);
	total = i;
	T_ASSERT(ring_buffer_overrun_cpu(b, 0) < n);
	/* the reader reads 70 events past the iterator: a new sub-buffer */
	for (;;) {
		e = ring_buffer_consume(b, 0, NULL, NULL);
		T_ASSERT(e);
		seed = t_seed_of(e, last_c + 1, total);
		last_c = seed;
		if (seed >= n + 70)
			break;
	}
	T_ASSERT(last_c + 10 < total);
	want = last_c + 1;
	while ((e = ring_buffer_iter_peek(it, NULL))) {
		dropped |= ring_buffer_iter_dropped(it);
		seed = t_seed_of(e, want, total);
		if (seed < n)
			T_FAIL("event %u shown twice", seed);
		if (seed > want)
			T_FAIL("after event %u the iterator shows %u: %u..%u skipped, read by nobody (%s)",
			       want - 1, seed, want, seed - 1,
			       dropped ? "dropped reported" : "no drop reported");
		if (seed == want)
			want++;
		ring_buffer_iter_advance(it);
	}
	dropped |= ring_buffer_iter_dropped(it);
	T_EQ(want, total);
	if (dropped)
		T_FAIL("a drop reported, but the writer only overwrote events the iterator had shown");
	ring_buffer_read_finish(it);
	ring_buffer_free(b);
	return 0;
}

/*
 * Calls whose answer depends on a detail a caller relies on: a swap
 * between rings of the same count but another sub-buffer size is refused
 * (as 6.12); record_on() twice leaves recording on; a consume never
 * raises bytes_cpu(); with the reader's page read out and an event in the
 * next sub-buffer, the oldest stamp is that event's (6.12's reader page
 * is out once the next one has data).
 */
static int test_small_contracts(void)
{
	struct trace_buffer *a = t_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct trace_buffer *b = t_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	unsigned long before, after;
	u64 ts;
	int i;

	T_ASSERT(a && b);
	T_EQ(ring_buffer_subbuf_order_set(b, 1), 0);
	/* as many sub-buffers as a has, of twice the size */
	i = ring_buffer_size(a, 0) / ring_buffer_subbuf_size_get(a);
	T_EQ(ring_buffer_resize(b, i * ring_buffer_subbuf_size_get(b),
			       RING_BUFFER_ALL_CPUS), 0);
	T_EQ(ring_buffer_size(b, 0) / ring_buffer_subbuf_size_get(b), i);
	T_EQ(ring_buffer_swap_cpu(a, b, 0), -EINVAL);
	ring_buffer_free(b);
	ring_buffer_record_on(a);
	ring_buffer_record_on(a);
	T_ASSERT(ring_buffer_record_is_on(a));
	t_clock_set(1000);
	T_EQ(t_write(a, 40, 1), 0);
	for (i = 0; i < 200 && ring_buffer_entries_cpu(a, 0) < 150; i++) {
		t_clock_set(1000 + i);
		T_EQ(t_write(a, 40, i), 0);
	}
	before = ring_buffer_bytes_cpu(a, 0);
	T_ASSERT(ring_buffer_consume(a, 0, NULL, NULL));
	after = ring_buffer_bytes_cpu(a, 0);
	if (after > before)
		T_FAIL("bytes_cpu rose from %lu to %lu by a consume", before, after);
	ring_buffer_reset(a);
	/* sub-buffer 0 full at stamps 2000.., one event at 90000 in the next */
	for (i = 0; i < 60; i++) {
		t_clock_set(2000 + i);
		T_EQ(t_write(a, 40, i), 0);
	}
	t_clock_set(90000);
	T_EQ(t_write(a, (PAGE_SIZE - 64) / 2, 7), 0);
	/* read sub-buffer 0 out, without a look beyond its last event */
	for (i = 0; i < 60; i++) {
		T_ASSERT(ring_buffer_consume(a, 0, &ts, NULL));
		T_EQ(ts, 2000 + i);
	}
	T_EQ(ring_buffer_oldest_event_ts(a, 0), 90000);
	ring_buffer_free(a);
	return 0;
}

const struct rb_case rb_unit_cases[] = {
#ifdef __x86_64__
	/*
	 * The sweeps fork per instruction (each runs in a fresh process: see
	 * t_fresh() in t_main.c).  x86-64 only: the 32-bit build runs under qemu-i386,
	 * which does not trap on the trap flag.
	 */
	{ "unit_irq_at_each_instruction", test_irq_at_each_instruction },
	{ "unit_irq_at_each_instruction_kinds", test_irq_sweep_kinds },
	{ "unit_irq_at_each_instruction_lap", test_irq_sweep_lap },
	{ "unit_irq_at_each_instruction_lost", test_lost_where_the_gap_is },
	{ "unit_irq_at_each_instruction_read_page", test_irq_sweep_read_page },
	{ "unit_irq_at_each_instruction_reader_in_irq", test_read_page_at_each_instruction },
	{ "unit_irq_at_each_instruction_nmi_writer_in_reads", test_nmi_writer_in_reads },
#endif
	{ "sim_interrupt_contexts", test_sim_interrupts },
	{ "unit_oracle_self_test", or_self_test },
	{ "sim_fork_while_allocating", test_sim_fork_while_allocating },
	{ "sim_rcu_and_warnings", test_sim_rcu_warn },
	{ "unit_alloc_free", test_alloc_free },
	{ "unit_write_consume", test_write_consume },
	{ "unit_event_sizes", test_event_sizes },
	{ "unit_peek", test_peek },
	{ "unit_overwrite_lost_events", test_overwrite_lost },
	{ "unit_order_change_keeps_loss", test_order_change_keeps_loss },
	{ "unit_dump_reports_loss", test_dump_reports_loss },
	{ "unit_dump_reader_page", test_dump_reader_page },
	{ "unit_producer_consumer_full", test_no_overwrite },
	{ "unit_reserve_commit_discard", test_reserve_commit_discard },
	{ "unit_recursion_and_nesting", test_recursion_nesting },
	{ "unit_open_commit_not_lapped", test_open_commit_not_lapped },
	{ "unit_event_data_zero_header", test_event_data_zero_header },
	{ "unit_iterator", test_iterator },
	{ "unit_iterator_passed_by_reader", test_iter_passed_by_reader },
	{ "unit_read_page", test_read_page },
	{ "unit_discard_in_page", test_discard_in_page },
	{ "unit_counters", test_counters },
	{ "unit_resize", test_resize },
	{ "unit_reset", test_reset },
	{ "unit_reset_under_iterator", test_reset_under_iterator },
	{ "unit_cpu_hotplug_prepare", test_cpu_hotplug },
	{ "unit_cpu_hotplug_peer_size", test_cpu_hotplug_peers },
	{ "unit_swap_cpu", test_swap },
	{ "unit_discard_padding", test_discard_padding },
	{ "unit_swap_cpu_under_iterator", test_swap_under_iterator },
	{ "unit_record_on_off", test_record_on_off },
	{ "unit_subbuf_order", test_subbuf_order },
	{ "unit_order_change_fails_midway", test_order_change_fails_midway },
	{ "unit_resize_fails_midway", test_resize_fails_midway },
	{ "unit_header_text", test_headers_text },
	{ "unit_clock_jumps", test_clock_jumps },
	{ "unit_abs_stamp_carry", test_abs_stamp_carry },
	{ "unit_wait_wake_poll", test_wait_wake },
	{ "unit_empty_is_a_query", test_empty_is_a_query },
	{ "unit_consume_irqs_off_and_nmi", test_consume_contexts },
	{ "unit_last_boot_delta_null", test_boot_delta_null },
	{ "unit_nmi_dump_reader_locked", test_nmi_dump_reader_locked },
	{ "unit_payload_alignment", test_payload_alignment },
	{ "unit_nmi_write_atomic64", test_nmi_write_atomic64 },
	{ "unit_seq_wrap", test_seq_wrap },
	{ "unit_oldest_ts", test_oldest_ts },
	{ "unit_dropped_vs_reset", test_dropped_vs_reset },
	{ "unit_iter_overrun_behind", test_iter_overrun_behind },
	{ "unit_iter_dropped_by_push", test_iter_dropped_by_push },
	{ "unit_iter_dropped_interleaved", test_iter_dropped_interleaved },
	{ "unit_iter_lost_once", test_iter_lost_once },
	{ "unit_iter_copy_torn", test_iter_copy_torn },
	{ "unit_take_during_push", test_take_during_push },
	{ "unit_small_contracts", test_small_contracts },
	{ "unit_clock_back_nested", clock_back_nested },
	{ "unit_clock_change_offline_cpu", clock_change_offline_cpu },
	{ "unit_clock_step_back_held", clock_step_back_held },
	{ "unit_clock_failed_move", clock_failed_move },
	{ "unit_clock_back_mover", clock_back_mover },
	{ "unit_clock_reset_stale_floor", clock_reset_stale_floor },
	{ "unit_clock_reset_step_back", clock_reset_step_back },
	{ "unit_clock_change_irq_in_move", clock_change_irq_in_move },
	{ "unit_clock_back_irq_nmi", clock_back_irq_nmi },
	{ "unit_clock_back_irq_nmi_move", clock_back_irq_nmi_move },
	{ "unit_clock_back_irq_nmi_reset", clock_back_irq_nmi_reset },
	{ "unit_clock_change_irq_in_move_discard", clock_change_irq_in_move_discard },
	{ "unit_clock_change_offline_lapped", clock_change_offline_lapped },
	{ "unit_clock_swap_other_clock", clock_swap_other_clock },
	{ "unit_clock_switch_fastpath_back", clock_switch_fastpath_back },
	{ "unit_clock_switch_swap_fastpath_back", clock_switch_swap_fastpath_back },
	{ "unit_clock_switch_producer_full", clock_switch_producer_full },
	{ "unit_clock_far_jump_producer_full", clock_far_jump_producer_full },
	{ "unit_clock_switch_irq_in_move", clock_switch_irq_in_move },
	{ "unit_clock_far_jump_irq_in_move", clock_far_jump_irq_in_move },
	{ "unit_clock_switch_producer_counts", clock_switch_producer_counts },
	{ "unit_clock_switch_irq_in_write", clock_switch_irq_in_write },
	{ "unit_clock_switch_irq_in_move_ahead", clock_switch_irq_in_move_ahead },
};
const int rb_nr_unit_cases = ARRAY_SIZE(rb_unit_cases);
