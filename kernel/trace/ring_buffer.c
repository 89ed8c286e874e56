// SPDX-License-Identifier: GPL-2.0
/*
 * Lockless per-CPU ring buffer for tracing.
 *
 * How it stays correct without locks (the long version, with diagrams, is
 * Documentation/trace/ring-buffer.txt):
 *
 * Every CPU has a ring of sub-buffers that only that CPU writes; a writer
 * can be interrupted anywhere by another (softirq, irq, NMI) that runs to
 * completion first.  Readers run on any CPU and never store into the ring.
 *
 * Positions.  A 64-bit position names a byte of the per-CPU stream: the
 * sub-buffer's number (its "seq", which only grows) shifted left, or'ed
 * with the offset in its data.  Sub-buffer seq lives in slot seq % nr.
 *
 * Write side.  A writer claims bytes at cb->write, the end of all reserved
 * space, with a CPU-local cmpxchg; a nested writer that claimed meanwhile
 * makes it fail and the outer one starts over, so claims never overlap.
 * cb->top, the recursion guard, holds the innermost writer's context key
 * (interrupting contexts have larger keys).  The outermost writer
 * publishes cb->write as cb->commit after a write barrier: nested writers
 * have finished by then, so every claimed byte is written.  cb->tail, the
 * slot the fast path writes into, is stored again until it names write's
 * sub-buffer (rb_set_tail()): an interrupt may move on before our store.
 *
 * Time.  An event stores the delta to the one before it, trusted only when
 * (stamp, stamp_pos), the last claim's stamp and end, ends where the claim
 * starts.  Nested writers, writers after a discard and absolute mode store
 * a TIME_STAMP; a delta over 27 bits gets a TIME_EXTEND.  The clock is
 * read before the claim and raised into the CPU's floor with a cmpxchg,
 * which no writer goes below: stamps follow stream order where the clock
 * steps back.  A reset, a CPU coming up and a swap zero the floor (the
 * clock may have changed).
 *
 * Sub-buffer reuse.  Before the writer moves into slot s for a new seq it
 * (1) checks that the old lap is fully committed (else the event is
 * refused: commit overrun), (2) checks cb->head, the oldest sub-buffer not
 * retired: a full ring drops the event, or in overwrite mode the writer
 * retires the oldest with a cmpxchg on cb->head, then counts it (overrun;
 * cb->pushing tells readers a count is on its way), and (3) stores the
 * new seq into the slot, then a write barrier, then data.
 *
 * Read side.  The consuming reader takes the head sub-buffer out of the
 * ring: it leaves its spare page in the slot, marks the slot's tag taken
 * (a cmpxchg against (3)), then retires the sub-buffer with a cmpxchg on
 * cb->head (against (2)).  It reads the page in place, up to commit, or up
 * to the page's commit word once the writer has left; a writer back in the
 * slot uses the spare.  Iterators copy from the ring and check the slot's
 * tag after the copy, a seqcount with (3) as the writer half.  User-space
 * mappings show the pages themselves.  Readers of one CPU are serialised
 * by cb->reader_lock, which writers never take.
 *
 * Persistent buffers (rings in a memory range kept across a reboot) have
 * their code in ring_buffer_range.c, user-space mappings theirs in
 * ring_buffer_map.c; what the files share is in ring_buffer_internal.h.
 */
#include <linux/ring_buffer.h>
#include <linux/trace_clock.h>
#include <linux/trace_seq.h>
#include <linux/irq_work.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/wait.h>
#include <linux/poll.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/sched/signal.h>
#include <linux/rcupdate.h>
#include <linux/export.h>
#include <linux/atomic.h>
#include <asm/local.h>
#include <asm/local64.h>
#include <asm/byteorder.h>

#include "trace.h"
#include "ring_buffer_internal.h"

/* Flags in the commit word of a page handed to a reader. */
#define RB_MISSED_EVENTS	BIT(31)
#define RB_MISSED_STORED	BIT(30)
/* ring_buffer_record_off() sets this; record_disable() counts below it. */
#define RB_RECORD_OFF		BIT(20)
/* A control path holding writers off adds this to cb->record_disabled. */
#define RB_HELD			BIT(16)
/* An NMI read this CPU's ring without the reader lock: off for good. */
#define RB_DUMPED		BIT(15)
/*
 * Recursion guard.  A writer's key is its context bits of preempt_count
 * plus RB_KEY_BASE: an interrupting context always has a larger key.
 * cb->top holds the key of the innermost writer, RB_TOP_NONE when none;
 * RB_TOP_BUSY stands for the outermost writer while it publishes.
 */
#define RB_KEY_MASK		(NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET)
#define RB_KEY_BASE		2UL
#define RB_TOP_NONE		0UL
#define RB_TOP_BUSY		1UL
/*
 * Where a cmpxchg (64-bit, or any) may take a lock, an NMI that interrupted
 * its holder would spin forever: NMI writers and readers are refused there.
 */
#define RB_NMI_UNSAFE		(IS_ENABLED(CONFIG_GENERIC_ATOMIC64) || \
				 !IS_ENABLED(CONFIG_ARCH_HAVE_NMI_SAFE_CMPXCHG))
/* A stamp position no claim can match: forces an absolute stamp. */
#define RB_POS_NONE		(~0ULL)
/* Bound on how often a reader chases a writer that keeps lapping it. */
#define RB_READ_TRIES		1000
/* Tries of the reader lock during an oops outside NMI, 100 us apart. */
#define RB_OOPS_WAIT_STEPS	10000

/* A page handed out to readers by ring_buffer_alloc_read_page(). */
struct buffer_data_read_page {
	unsigned int		order;
	struct rb_data_page	*data;
};

/* Events were lost, how many is not known: "[LOST EVENTS]" in ftrace. */
#define RB_LOST_UNKNOWN		(~0UL)
/* rd_total before the reader asked, and when it cannot be told. */
#define RB_TOTAL_ASK		(-1L)
#define RB_TOTAL_LOST		(-2L)

static bool rb_seq_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

/* Tags keep the low bits of a seq: compare in those (never 2^30 apart). */
static bool rb_slot_before(unsigned long a, unsigned long b)
{
	return (long)(a - b) < 0;
}

/* Does slot tag @tag stand for sub-buffer @seq, taken or not? */
static bool rb_tag_is(unsigned long tag, u64 seq)
{
	return (tag | RB_TAKEN) == (rb_tag(seq) | RB_TAKEN);
}

static unsigned int rb_poff(struct rb_cpu *cb, u64 pos)
{
	return pos & cb->mask;
}

/* ---------------------------------------------------------------------
 * Event format
 */

static __always_inline unsigned int rb_data_size(unsigned long len)
{
	if (!len)
		len = 1;
	if (len <= RB_SMALL_MAX)
		return RB_EV_HDR + ALIGN(len, 4);
	return RB_EV_HDR + 4 + ALIGN(len, RB_ALIGN);
}

/* The header word, laid out as struct ring_buffer_event's bitfields. */
static __always_inline u32 rb_hdr_word(u32 type_len, u32 delta)
{
#ifdef __BIG_ENDIAN_BITFIELD
	return type_len << RB_DELTA_BITS | delta;
#else
	return delta << 5 | type_len;
#endif
}

/* Write the header of a data event; returns where its payload goes. */
static __always_inline void *
rb_set_data_header(struct ring_buffer_event *ev, unsigned int size, u32 delta)
{
	u32 body = size - RB_EV_HDR;

	if (body <= RB_SMALL_MAX) {
		*(u32 *)ev = rb_hdr_word(body / 4, delta);
		return &ev->array[0];
	}
	*(u32 *)ev = rb_hdr_word(0, delta);
	ev->array[0] = body;
	return &ev->array[1];
}

/* The event around a payload of @len bytes (see rb_data_size()). */
static struct ring_buffer_event *rb_event_of(void *payload, unsigned long len)
{
	return payload - (max(len, 1UL) > RB_SMALL_MAX ? RB_META_LEN : RB_EV_HDR);
}

static void rb_set_meta(struct ring_buffer_event *ev, unsigned int type,
			u64 val)
{
	ev->type_len = type;
	ev->time_delta = val & RB_DELTA_MAX;
	ev->array[0] = val >> RB_DELTA_BITS;
}

static struct ring_buffer_event *rb_skip_meta(struct ring_buffer_event *ev)
{
	if (ev->type_len == RINGBUF_TYPE_TIME_EXTEND ||
	    ev->type_len == RINGBUF_TYPE_TIME_STAMP)
		return (void *)ev + RB_META_LEN;
	return ev;
}

/**
 * ring_buffer_event_length - payload length of an event
 * @event: the event, as returned by a reserve or a read
 *
 * Payloads are padded to four bytes (eight where 64-bit loads must be
 * aligned), so the length may exceed the one reserved.
 *
 * Context: Any context.
 * Return: the payload length in bytes; for padding and time events the
 * number of bytes they occupy.
 */
unsigned int ring_buffer_event_length(struct ring_buffer_event *event)
{
	event = rb_skip_meta(event);
	if (event->type_len > RINGBUF_TYPE_DATA_TYPE_LEN_MAX)
		return rb_ev_size(event);
	if (event->type_len)
		return event->type_len * 4;
	return event->array[0] - 4;
}
EXPORT_SYMBOL_GPL(ring_buffer_event_length);

/**
 * ring_buffer_event_data - payload of an event
 * @event: the event; a header word of zero means "length in array[0]"
 *
 * Context: Any context.
 * Return: a pointer to the first payload byte.
 */
void *ring_buffer_event_data(struct ring_buffer_event *event)
{
	event = rb_skip_meta(event);
	return event->type_len ? (void *)&event->array[0] :
				 (void *)&event->array[1];
}
EXPORT_SYMBOL_GPL(ring_buffer_event_data);

/* ---------------------------------------------------------------------
 * Small helpers for callers
 */

/* Largest payload: an empty sub-buffer minus a long header (and a stamp). */
static void rb_update_max_len(struct trace_buffer *buffer)
{
	unsigned long cap = (PAGE_SIZE << buffer->order) - RB_HDR_BYTES;

	/* 8-byte events keep 8-byte payloads only behind an 8-byte header. */
	BUILD_BUG_ON(RB_ALIGN == 8 && RB_HDR_BYTES % 8);
	cap -= RB_EV_HDR + 4;
	if (buffer->abs_ts)
		cap -= RB_META_LEN;
	WRITE_ONCE(buffer->max_len, cap);
}

/* RB_NMI_UNSAFE: a reader in NMI (a panic dump) finds every ring empty. */
static bool rb_nmi_no_read(void)
{
	return RB_NMI_UNSAFE && in_nmi();
}

/*
 * Reader lock for consuming reads.  An NMI only tries it, the dump of an
 * oops tries it for up to a second (either may have interrupted
 * this CPU's reader); failing, it reads with rb_dump_look(), and so do all
 * later ones.  Returns whether the lock is held; for sparse it is taken
 * either way.
 */
static __always_inline bool rb_lock(struct rb_cpu *cb, unsigned long *flags)
	__acquires(&cb->reader_lock)
{
	unsigned int n;

	if (likely(!in_nmi() && !oops_in_progress)) {
		raw_spin_lock_irqsave(&cb->reader_lock, *flags);
		return true;
	}
	local_irq_save(*flags);
	if (!(atomic_read(&cb->record_disabled) & RB_DUMPED)) {
		/*
		 * During an oops, outside NMI, the holder may be a reader of
		 * another CPU, out soon: wait for it a while before taking
		 * it for the oopsing CPU itself.
		 */
		for (n = in_nmi() ? 1 : RB_OOPS_WAIT_STEPS; n; n--) {
			if (raw_spin_trylock(&cb->reader_lock))
				return true;
			if (n > 1)
				udelay(100);
		}
	}
	__acquire(&cb->reader_lock);
	return false;
}

static __always_inline void rb_unlock(struct rb_cpu *cb, unsigned long flags,
				      bool locked)
	__releases(&cb->reader_lock)
{
	if (likely(locked)) {
		raw_spin_unlock_irqrestore(&cb->reader_lock, flags);
		return;
	}
	__release(&cb->reader_lock);
	local_irq_restore(flags);
}

/* ---------------------------------------------------------------------
 * Write side
 */

static __always_inline struct rb_subbuf *
rb_tail_of(struct rb_cpu *cb, u64 seq)
{
	struct rb_subbuf *sb = READ_ONCE(cb->tail);

	if (likely(rb_tag_is(atomic_long_read(&sb->tag), seq)))
		return sb;
	return rb_slot_of(cb, seq);
}

/*
 * Claim slot @sb for sub-buffer @seq: record how many events the old lap
 * left (for the overrun count of the next push), then publish the new
 * number before any byte of the new lap is written.  If the reader took
 * the old lap's page, the page it left in @sb->next comes in its place.
 */
static int rb_mark(struct rb_subbuf *sb, u64 seq)
{
	unsigned long cum = local_read(&sb->cum);
	long old;

	/* The count before the tag: see section 7 of the Documentation. */
	barrier();
	/* Pairs with the cmpxchg in rb_take(): sb->next before the tag. */
	old = atomic_long_read_acquire(&sb->tag);
	/* Marked by a writer that interrupted us: its barriers are ours. */
	if (rb_tag_is(old, seq))
		return 0;
	if (!rb_slot_before(old, rb_tag(seq)))
		return -EAGAIN;
	if (old & RB_TAKEN) {
		/*
		 * Only this CPU's writers change a taken tag, and a nested one
		 * stores the same values.  The cmpxchg orders them before the
		 * tag for rb_own_total() and rb_map_pages().
		 */
		WRITE_ONCE(sb->retired, cum);
		WRITE_ONCE(sb->page, READ_ONCE(sb->next));
		WRITE_ONCE(sb->id, READ_ONCE(sb->next_id));
	}
	/* Against the cmpxchg in rb_take(), from another CPU: full atomic. */
	if (!atomic_long_try_cmpxchg(&sb->tag, &old, rb_tag(seq)))
		return -EAGAIN;
	/* A reader that lost the race for the slot may still read it. */
	WRITE_ONCE(sb->retired, cum);
	/* Pairs with the smp_rmb() before the tag check in rb_cur_fill(). */
	smp_wmb();
	return 0;
}

/* Overwrite mode: retire the oldest sub-buffer @r and count its events. */
static void rb_push(struct rb_cpu *cb, struct rb_subbuf *sb, u64 r)
{
	unsigned long n = local_read(&sb->cum) - sb->retired;
	s64 old = r;

	/*
	 * A reader that sees head past r before overrun counts r would
	 * report the loss one sub-buffer late: pushing tells it to wait.
	 * The head cmpxchg orders the increment before the new head.
	 */
	local_inc(&cb->pushing);
	/*
	 * Pairs with the head cmpxchg in rb_take(): one side retires r.
	 * Success is a full barrier before rb_mark() reuses the slot; on
	 * failure the acquire re-read of head orders our next lap after
	 * the reader's reads of the slot.
	 */
	if (atomic64_try_cmpxchg(&cb->head, &old, r + 1)) {
		local_add(n, &cb->overrun);
		local64_set(&cb->pushed, r + 1);
	} else {
		atomic64_read_acquire(&cb->head);
	}
	/* Pairs with the smp_rmb() in rb_rd_sync(): the count, then done. */
	smp_wmb();
	local_dec(&cb->pushing);
}

/* Make slot @sb ready to hold sub-buffer @seq. */
static int rb_make_room(struct trace_buffer *buffer, struct rb_cpu *cb,
			struct rb_subbuf *sb, u64 seq)
{
	u64 r = seq - cb->nr;
	s64 head;

	if (seq >= cb->nr) {
		u64 commit = local64_read(&cb->commit);

		if (!rb_seq_before(r, rb_pseq(cb, commit))) {
			local_inc(&cb->commit_overrun);
			return -ENOSPC;
		}
		/* Pairs with the head cmpxchg in rb_take(). */
		head = atomic64_read_acquire(&cb->head);
		if (!rb_seq_before(r, head)) {
			if (!(READ_ONCE(buffer->flags) & RB_FL_OVERWRITE)) {
				atomic_long_inc(&cb->dropped);
				return -ENOSPC;
			}
			rb_push(cb, sb, r);
		}
		/* Before the page is written: lap r is gone for good. */
		if (cb->pm)
			rb_range_head(cb, r + 1);
	}
	return rb_mark(sb, seq);
}

/*
 * Point cb->tail at the slot of write, which we moved into @seq (slot
 * @sb).  A writer that interrupts us may move write on and store its slot
 * before our store lands: then ours is stale, and the fast path, which
 * trusts tail, would write the next sub-buffer's events into this one's
 * page.  So store, then look at write again; a nested writer runs this to
 * the end before we go on, and write only grows, so the last store names
 * write's sub-buffer.
 */
static void rb_set_tail(struct rb_cpu *cb, struct rb_subbuf *sb, u64 seq)
{
	u64 now;

	for (;;) {
		WRITE_ONCE(cb->tail, sb);
		barrier();
		now = rb_pseq(cb, local64_read(&cb->write));
		if (likely(now == seq))
			return;
		seq = now;
		sb = rb_slot_of(cb, seq);
	}
}

/*
 * The event does not fit behind @w: start sub-buffer seq + 1 with it.
 * On success the caller owns the first @size bytes of the new sub-buffer.
 */
static noinline struct rb_subbuf *rb_move(struct trace_buffer *buffer,
					  struct rb_cpu *cb, s64 w,
					  unsigned int size)
{
	u64 seq = rb_pseq(cb, w) + 1;
	struct rb_subbuf *prev = rb_tail_of(cb, seq - 1);
	struct rb_subbuf *sb = rb_slot_of(cb, seq);
	int ret;

	/* max_len may still be the old order's while an order change runs. */
	if (unlikely(size > cb->cap))
		return ERR_PTR(-E2BIG);
	ret = rb_make_room(buffer, cb, sb, seq);
	if (ret)
		return ERR_PTR(ret);
	if (!local64_try_cmpxchg(&cb->write, &w, rb_mkpos(cb, seq, size)))
		return ERR_PTR(-EAGAIN);
	/* Readers use this only once commit has passed it. */
	WRITE_ONCE(prev->end, rb_poff(cb, w));
	rb_set_tail(cb, sb, seq);
	return sb;
}

/* Fill in the event claimed at @off of @sb: optional time event, header. */
static __always_inline void *
rb_fill_event(struct rb_subbuf *sb, unsigned int off, unsigned int pre,
	      bool abs, unsigned int size, u64 ts, u64 delta)
{
	struct ring_buffer_event *ev = (void *)&sb->page->data[off];

	if (!off)
		sb->page->time_stamp = ts;
	if (pre) {
		if (abs)
			rb_set_meta(ev, RINGBUF_TYPE_TIME_STAMP, ts & RB_ABS_MASK);
		else
			rb_set_meta(ev, RINGBUF_TYPE_TIME_EXTEND, delta);
		ev = (void *)ev + RB_META_LEN;
		delta = 0;
	}
	return rb_set_data_header(ev, size, delta);
}

/* One more event committed in @sb. */
static __always_inline void rb_count(struct rb_cpu *cb, struct rb_subbuf *sb)
{
	local_inc(&sb->cum);
	local_inc(&cb->committed);
}

/*
 * The claim is made: note it and move the stamp pair on (Documentation
 * section 5, step 4).  @wc is NULL for ring_buffer_write().
 */
static __always_inline void rb_claimed(struct rb_cpu *cb, struct rb_wctx *wc,
				       struct rb_subbuf *sb, s64 w, u64 end,
				       u64 ts)
{
	if (wc) {
		wc->sb = sb;
		wc->start = w;
		wc->end = end;
		wc->ts = ts;
	} else {
		/* ring_buffer_write(): no discard, count it right away. */
		rb_count(cb, sb);
	}
	WRITE_ONCE(cb->stamp, ts);
	barrier();
	WRITE_ONCE(cb->stamp_pos, end);
	barrier();
	if (unlikely(READ_ONCE(cb->stamp) != ts))
		WRITE_ONCE(cb->stamp_pos, RB_POS_NONE);
}

/* Every case of a claim; rb_reserve() takes the common one inline. */
static noinline void *
rb_reserve_slow(struct trace_buffer *buffer, struct rb_cpu *cb,
		struct rb_wctx *wc, unsigned int size, bool force_abs)
{
	struct rb_subbuf *sb;
	s64 w;

	do {
		unsigned int off, pre = 0;
		u64 ts, delta, sp, st;
		bool abs = false;
		s64 f;

		w = local64_read(&cb->write);
		/*
		 * Against the stores in rb_claimed(), in reverse order: a
		 * nested discard between the loads has left stamp_pos NONE.
		 */
		st = READ_ONCE(cb->stamp);
		sp = READ_ONCE(cb->stamp_pos);
		/*
		 * Stamps never go back on a CPU: an event holds at the floor,
		 * which every claim raises first (Documentation section 5,
		 * step 3).  Below st only where the floor was zeroed.
		 */
		f = local64_read(&cb->floor);
		ts = max_t(u64, buffer->clock(), f);
		off = rb_poff(cb, w);
		delta = ts - st;
		if (!off) {
			delta = 0;	/* the first event: 0 to the header */
		} else if (sp != (u64)w || force_abs || delta > RB_DELTA_MAX) {
			abs = sp != (u64)w || force_abs || ts < st;
			pre = RB_META_LEN;
		}
		if (!local64_try_cmpxchg(&cb->floor, &f, ts))
			continue;
		if (off + pre + size <= cb->cap) {
			if (!local64_try_cmpxchg(&cb->write, &w, w + pre + size))
				continue;
			sb = rb_tail_of(cb, rb_pseq(cb, w));
		} else {
			sb = rb_move(buffer, cb, w, size);
			if (sb == ERR_PTR(-EAGAIN))
				continue;
			if (IS_ERR(sb))
				return NULL;
			w = rb_mkpos(cb, rb_pseq(cb, w) + 1, 0);
			off = 0;
			pre = 0;
			delta = 0;
		}
		rb_claimed(cb, wc, sb, w, w + pre + size, ts);
		return rb_fill_event(sb, off, pre, abs, size, ts, delta);
	} while (true);
}

/*
 * The common case, inline (Documentation section 5, step 3).  @prev is the
 * guard key found at entry; @wc is NULL for ring_buffer_write().
 */
static __always_inline void *
rb_reserve(struct trace_buffer *buffer, struct rb_cpu *cb, struct rb_wctx *wc,
	   unsigned long len, unsigned long prev)
{
	unsigned int size = rb_data_size(len);
	struct ring_buffer_event *ev;
	struct rb_subbuf *sb;
	u64 ts, delta;
	unsigned int off;
	s64 w, floor;

	/* Nested writers and absolute mode store absolute stamps. */
	if (unlikely(prev != RB_TOP_NONE || READ_ONCE(buffer->abs_ts)))
		return rb_reserve_slow(buffer, cb, wc, size, true);
	w = local64_read(&cb->write);
	/* After write, before the claim: stamps follow stream order. */
	ts = buffer->clock();
	/* stamp before stamp_pos, as in rb_reserve_slow(). */
	delta = ts - READ_ONCE(cb->stamp);
	off = rb_poff(cb, w);
	/*
	 * No writer is inside (prev is none): tail is the slot of w, else
	 * write has moved and the cmpxchg fails.  Not after the cmpxchg: a
	 * nested writer could move tail on.
	 */
	sb = READ_ONCE(cb->tail);
	/*
	 * Fits behind off, off != 0 (off - 1 wraps for 0); 64-bit, as size
	 * may exceed the sub-buffer while max_len lags an order change.
	 */
	if (unlikely(READ_ONCE(cb->stamp_pos) != (u64)w ||
		     delta > RB_DELTA_MAX ||
		     (u64)(u32)(off - 1) + size >= cb->cap))
		return rb_reserve_slow(buffer, cb, wc, size, false);
	/* Raised before the claim, never lowered (Documentation section 5). */
	floor = local64_read(&cb->floor);
	if (unlikely(ts < (u64)floor ||
		     !local64_try_cmpxchg(&cb->floor, &floor, ts) ||
		     !local64_try_cmpxchg(&cb->write, &w, w + size)))
		return rb_reserve_slow(buffer, cb, wc, size, false);
	rb_claimed(cb, wc, sb, w, w + size, ts);
	ev = (void *)&sb->page->data[off];
	return rb_set_data_header(ev, size, delta);
}

/*
 * Commit is about to move from sub-buffer @s to @last (or to @w in a
 * mapped ring): every page it passes gets its final length in its commit
 * word, and the last one, if user space may read it, its current one.
 */
static noinline void rb_page_commits(struct rb_cpu *cb, u64 w)
{
	u64 s = rb_pseq(cb, local64_read(&cb->commit));
	u64 last = rb_pseq(cb, w);
	struct rb_subbuf *sb;

	for (; s != last; s++) {
		sb = rb_slot_of(cb, s);
		local_set(&sb->page->commit, READ_ONCE(sb->end));
		if (cb->pm)
			rb_range_seq(cb, sb->page, s);
	}
	/*
	 * Pairs with the smp_rmb() in rb_own_len(): a reader that sees
	 * commit beyond a sub-buffer finds its final length in the page.
	 */
	smp_wmb();	/* pairs with rb_own_len() */
	sb = rb_slot_of(cb, last);
	if (READ_ONCE(cb->mapped) || cb->pm) {
		local_set(&sb->page->commit, rb_poff(cb, w));
		if (cb->pm)
			rb_range_seq(cb, sb->page, last);
		sb = NULL;
	}
	WRITE_ONCE(cb->ptail, sb);
}

/*
 * Page commit words, as 6.12's page format has them: the owning reader
 * reads a page's final length there once commit has passed it, and user
 * space reads the live length of the page it maps.  ptail is the tail of
 * the last publication, NULL while mapped: while tail is still ptail the
 * writer has not left that sub-buffer (it cannot lap an open commit) and
 * there is nothing to store.  Called between the barrier that orders the
 * events and the store of cb->commit; by the outermost writer, after
 * every move that nested in it is complete.
 */
static __always_inline void rb_set_page_commit(struct rb_cpu *cb, u64 w)
{
	if (unlikely(READ_ONCE(cb->tail) != cb->ptail))
		rb_page_commits(cb, w);
}

/*
 * Give the guard back.  A nested writer restores the outer writer's key;
 * the outermost one publishes (Documentation section 5), returning true.
 */
static __always_inline bool rb_end_commit(struct rb_cpu *cb,
					  unsigned long prev)
{
	s64 w;

	/* Our event is written before the guard says we are gone. */
	barrier();
	if (prev != RB_TOP_NONE) {
		WRITE_ONCE(cb->top, prev);
		return false;
	}
	for (;;) {
		w = local64_read(&cb->write);
		/* Pairs with the smp_rmb() in rb_cur_fill() and rb_own_len(). */
		smp_wmb();
		rb_set_page_commit(cb, w);
		local64_set(&cb->commit, w);
		barrier();
		WRITE_ONCE(cb->top, RB_TOP_NONE);
		barrier();
		if (likely(local64_read(&cb->write) == w))
			return true;
		/* Keep writers that nest from here on from publishing. */
		WRITE_ONCE(cb->top, RB_TOP_BUSY);
		barrier();
	}
}

/* Count the refusal where an atomic increment is safe in NMI. */
static noinline void rb_nmi_refused(struct rb_cpu *cb)
{
	if (IS_ENABLED(CONFIG_ARCH_HAVE_NMI_SAFE_CMPXCHG))
		atomic_long_inc(&cb->dropped);
}

static unsigned long rb_ctx_key(void)
{
	return (preempt_count() & RB_KEY_MASK) + RB_KEY_BASE;
}

/*
 * Same context again: let it in once (at key + 1) if the innermost writer
 * has this key, as an interrupt preempt_count() does not show yet has.
 */
static noinline bool rb_guard_retry(struct rb_cpu *cb, unsigned long key,
				    unsigned long top)
{
	if (top != key)
		return false;
	WRITE_ONCE(cb->top, key + 1);
	return true;
}

static void rb_kick(struct rb_waiter *wt)
{
	WRITE_ONCE(*wt->armed, 0);
	irq_work_queue(&wt->work);
}

static bool rb_full_hit(struct rb_cpu *cb, int full)
{
	unsigned long dirty;

	if (!full)
		return true;
	dirty = rb_pseq(cb, local64_read(&cb->commit)) -
		atomic64_read(&cb->head);
	return (dirty + 1) * 100 >= (unsigned long)full * cb->nr;
}

static noinline void rb_wake_slow(struct trace_buffer *buffer,
				  struct rb_slot *slot, struct rb_cpu *cb)
{
	if (READ_ONCE(slot->wake.all)) {
		/* Each CPU stands down once per arming of the buffer waiter. */
		WRITE_ONCE(slot->wake.all, 0);
		/* Pairs with the smp_mb() in rb_arm(). */
		smp_mb();
		if (READ_ONCE(buffer->all_armed))
			rb_kick(&buffer->waiter);
	}
	if (READ_ONCE(slot->wake.cpu) &&
	    rb_full_hit(cb, READ_ONCE(slot->waiter.full)))
		rb_kick(&slot->waiter);
}

/* Batched, and without a full barrier: see Documentation section 11. */
static __always_inline void
rb_wakeups(struct trace_buffer *buffer, struct rb_slot *slot, struct rb_cpu *cb)
{
	if (unlikely(READ_ONCE(slot->wake.any)))
		rb_wake_slow(buffer, slot, cb);
}

/*
 * Let a writer in (recording on, a ring, a sane length, no recursion):
 * then preemption stays off and wc->cb, wc->prev are set.
 */
static __always_inline struct rb_slot *
rb_enter(struct trace_buffer *buffer, unsigned long length, struct rb_wctx *wc)
{
	struct rb_slot *slot;
	unsigned long key;
	struct rb_cpu *cb;
	int disabled;

	preempt_disable_notrace();
	if (unlikely(atomic_read(&buffer->record_disabled)))
		goto out;
	slot = this_cpu_ptr(buffer->slots);
	cb = READ_ONCE(slot->cb);
	if (unlikely(!cb || length > READ_ONCE(buffer->max_len)))
		goto out;
	if (RB_NMI_UNSAFE && unlikely(in_nmi())) {
		rb_nmi_refused(cb);
		goto out;
	}
	/* Pairs with smp_mb__before_atomic() in rb_release_writers(). */
	disabled = atomic_read_acquire(&cb->record_disabled);
	if (unlikely(disabled)) {
		if (!(disabled & (RB_HELD - 1)))
			atomic_long_inc(&cb->dropped);
		goto out;
	}
	key = rb_ctx_key();
	wc->prev = READ_ONCE(cb->top);
	if (likely(key > wc->prev))
		WRITE_ONCE(cb->top, key);
	else if (!rb_guard_retry(cb, key, wc->prev))
		goto out;
	/* The guard is ours before anything is claimed. */
	barrier();
	wc->cb = cb;
	return slot;
out:
	preempt_enable_notrace();
	return NULL;
}

static __always_inline void rb_leave(struct trace_buffer *buffer,
				     struct rb_slot *slot, struct rb_wctx *wc)
{
	struct rb_cpu *cb = wc->cb;

	if (rb_end_commit(cb, wc->prev))
		rb_wakeups(buffer, slot, cb);
	preempt_enable_notrace();
}

/**
 * ring_buffer_lock_reserve - claim room for an event
 * @buffer: the buffer to write into
 * @length: payload length in bytes (0 is stored as 1)
 *
 * Fill in ring_buffer_event_data() of the event, then call
 * ring_buffer_unlock_commit() or ring_buffer_discard_commit() on the same
 * CPU, in the same context.
 *
 * Context: Any context, NMI included (refused where a 64-bit cmpxchg is
 * not NMI-safe).  Returns with preemption disabled on success.
 * Return: the event, or NULL when recording is off, the event is too big,
 * the ring is full (producer/consumer mode) or the context is already
 * inside a reserve on this CPU.
 */
struct ring_buffer_event *
ring_buffer_lock_reserve(struct trace_buffer *buffer, unsigned long length)
{
	struct rb_slot *slot;
	unsigned int level;
	struct rb_wctx wc;
	void *payload;

	slot = rb_enter(buffer, length, &wc);
	if (unlikely(!slot))
		return NULL;
	payload = NULL;
	/* Interrupts leave the level as they found it: check it once. */
	if (likely(slot->level < RB_WRITERS_MAX))
		payload = rb_reserve(buffer, wc.cb, &wc, length, wc.prev);
	if (unlikely(!payload)) {
		rb_leave(buffer, slot, &wc);
		return NULL;
	}
	/*
	 * Writers nested in the reserve have left: the level is free.  Take
	 * it before filling it (the mirror of rb_pop()).
	 */
	level = slot->level;
	slot->level = level + 1;
	barrier();
	slot->w[level] = wc;
	return rb_event_of(payload, length);
}
EXPORT_SYMBOL_GPL(ring_buffer_lock_reserve);

/* Take the innermost open reserve off the slot's stack. */
static __always_inline struct rb_slot *rb_pop(struct trace_buffer *buffer,
					      struct rb_wctx *wc)
{
	struct rb_slot *slot = this_cpu_ptr(buffer->slots);

	*wc = slot->w[slot->level - 1];
	/* The level is free for a nested writer only once it is copied. */
	barrier();
	slot->level--;
	return slot;
}

/**
 * ring_buffer_unlock_commit - make a reserved event visible to readers
 * @buffer: the buffer the event was reserved in
 *
 * Context: The context that reserved the event, on the same CPU.
 * Re-enables preemption.
 * Return: 0.
 */
int ring_buffer_unlock_commit(struct trace_buffer *buffer)
{
	struct rb_wctx wc;
	struct rb_slot *slot = rb_pop(buffer, &wc);

	rb_count(wc.cb, wc.sb);
	rb_leave(buffer, slot, &wc);
	return 0;
}
EXPORT_SYMBOL_GPL(ring_buffer_unlock_commit);

/**
 * ring_buffer_discard_commit - throw away a reserved event
 * @buffer: the buffer the event was reserved in
 * @event: the event returned by ring_buffer_lock_reserve()
 *
 * Instead of ring_buffer_unlock_commit().  The event is not counted; its
 * space is reused if nothing was reserved after it, else it is padding.
 *
 * Context: The context that reserved the event, on the same CPU.
 * Re-enables preemption.
 */
void ring_buffer_discard_commit(struct trace_buffer *buffer,
				struct ring_buffer_event *event)
{
	struct rb_wctx wc;
	struct rb_slot *slot = rb_pop(buffer, &wc);
	s64 end = wc.end;

	if (local64_try_cmpxchg(&wc.cb->write, &end, wc.start)) {
		/* The next event cannot trust a delta to the stamp we left. */
		WRITE_ONCE(wc.cb->stamp_pos, RB_POS_NONE);
	} else {
		event->array[0] = rb_ev_size(event) - RB_EV_HDR;
		if (!event->time_delta)
			event->time_delta = 1;
		event->type_len = RINGBUF_TYPE_PADDING;
	}
	rb_leave(buffer, slot, &wc);
}
EXPORT_SYMBOL_GPL(ring_buffer_discard_commit);

/**
 * ring_buffer_write - reserve, copy and commit in one call
 * @buffer: the buffer to write into
 * @length: payload length in bytes
 * @data: the payload
 *
 * Context: Any context, NMI included (as ring_buffer_lock_reserve()).
 * Return: 0 on success, -EBUSY when the event could not be reserved.
 */
int ring_buffer_write(struct trace_buffer *buffer, unsigned long length,
		      void *data)
{
	struct rb_slot *slot;
	struct rb_wctx wc;
	int ret = -EBUSY;
	void *payload;

	slot = rb_enter(buffer, length, &wc);
	if (unlikely(!slot))
		return ret;
	/* Nothing outside this call sees the reserve: no stack level. */
	payload = rb_reserve(buffer, wc.cb, NULL, length, wc.prev);
	if (likely(payload)) {
		memcpy(payload, data, length);
		ret = 0;
	}
	rb_leave(buffer, slot, &wc);
	return ret;
}
EXPORT_SYMBOL_GPL(ring_buffer_write);

/**
 * ring_buffer_nest_start - allow one more reserve in the current context
 * @buffer: the buffer about to be written
 *
 * For a writer that must record an event while its own reserve on the
 * same buffer is still open.  Pair with ring_buffer_nest_end().
 *
 * Context: Any context.  Disables preemption until nest_end.
 */
void ring_buffer_nest_start(struct trace_buffer *buffer)
{
	struct rb_slot *slot;
	unsigned long key;
	struct rb_cpu *cb;
	unsigned int n;

	preempt_disable_notrace();
	slot = this_cpu_ptr(buffer->slots);
	/* Take the level before filling it: an interrupt uses the next. */
	n = slot->nest++;
	barrier();
	if (n >= RB_NEST_LEVELS)
		return;
	slot->nest_cb[n] = NULL;
	cb = READ_ONCE(slot->cb);
	key = rb_ctx_key();
	/* A writer of this context is open: let one more in. */
	if (cb && READ_ONCE(cb->top) >= key) {
		slot->nest_top[n] = cb->top;
		slot->nest_cb[n] = cb;
		WRITE_ONCE(cb->top, key - 1);
	}
}
EXPORT_SYMBOL_GPL(ring_buffer_nest_start);

/**
 * ring_buffer_nest_end - undo ring_buffer_nest_start()
 * @buffer: the buffer passed to ring_buffer_nest_start()
 *
 * Context: Same context as the nest_start.  Re-enables preemption.
 */
void ring_buffer_nest_end(struct trace_buffer *buffer)
{
	struct rb_slot *slot = this_cpu_ptr(buffer->slots);
	struct rb_cpu *cb;
	unsigned int n;

	if (!slot->nest)
		goto out;
	n = slot->nest - 1;
	cb = n < RB_NEST_LEVELS ? slot->nest_cb[n] : NULL;
	/* Put the key back unless swap_cpu() or a writer has moved it. */
	if (cb && cb == READ_ONCE(slot->cb) &&
	    READ_ONCE(cb->top) == rb_ctx_key() - 1)
		WRITE_ONCE(cb->top, slot->nest_top[n]);
	/* Read the level before giving it back (the mirror of nest_start). */
	barrier();
	slot->nest = n;
out:
	preempt_enable_notrace();
}
EXPORT_SYMBOL_GPL(ring_buffer_nest_end);

/**
 * ring_buffer_event_time_stamp - time stamp of the event being written
 * @buffer: the buffer
 * @event: the event (reserved, or trace.c's temporary copy of one)
 *
 * Context: Between reserve and commit, in the reserving context.
 * Return: the stamp of the innermost open ring_buffer_lock_reserve() on
 * this CPU, or the current time when there is none.
 */
u64 ring_buffer_event_time_stamp(struct trace_buffer *buffer,
				 struct ring_buffer_event *event)
{
	struct rb_slot *slot = raw_cpu_ptr(buffer->slots);

	if (slot->level)
		return slot->w[slot->level - 1].ts;
	return ring_buffer_time_stamp(buffer);
}
EXPORT_SYMBOL_GPL(ring_buffer_event_time_stamp);

/* ---------------------------------------------------------------------
 * Read side: the consuming reader reads the sub-buffer it owns in place;
 * iterators read private copies
 */

static void rb_cur_start(struct rb_cursor *cur, u64 seq)
{
	cur->seq = seq;
	cur->off = 0;
	cur->len = 0;
	cur->done = false;
	cur->own = false;
	cur->ts = 0;
}

/*
 * Copy what an iterator lacks of sub-buffer cur->seq, still in the ring.
 * Return 0, or -EAGAIN when the slot was reused or taken by the reader.
 */
static int rb_cur_fill(struct rb_cpu *cb, struct rb_cursor *cur)
{
	struct rb_subbuf *sb = rb_slot_of(cb, cur->seq);
	unsigned long tag = rb_tag(cur->seq);
	u64 commit = local64_read(&cb->commit);
	u64 cseq = rb_pseq(cb, commit);
	unsigned int have = cur->len, avail;
	struct rb_data_page *page;
	bool done;

	/* Pairs with the smp_wmb() in rb_end_commit(). */
	smp_rmb();
	if (cseq != cur->seq && !rb_seq_before(cur->seq, cseq))
		return 0;
	/* The writer has left cur->seq: its length is final. */
	done = cseq != cur->seq;
	avail = done ? READ_ONCE(sb->end) : rb_poff(cb, commit);
	if (avail > cb->cap || have > cb->cap)
		return -EAGAIN;
	/* Pairs with the cmpxchg in rb_mark(): the page is the tag's. */
	if (atomic_long_read_acquire(&sb->tag) != tag)
		return -EAGAIN;
	page = READ_ONCE(sb->page);
	if (!have) {
		/* Racy by design: the tag check after the copy decides. */
		cur->copy->time_stamp = data_race(page->time_stamp);
	}
	if (avail > have) {
		/* Racy by design: the tag check after the copy decides. */
		data_race(memcpy(&cur->copy->data[have], &page->data[have],
				 avail - have));
	}
	/* Pairs with the smp_wmb() in rb_mark(). */
	smp_rmb();
	if (atomic_long_read(&sb->tag) != tag)
		return -EAGAIN;
	if (!have && !cur->off && avail)
		cur->ts = cur->copy->time_stamp;
	cur->len = max(have, avail);
	cur->done = done;
	return 0;
}

/* The next data event of the cursor's page, its stamp in @ts, or NULL. */
static __always_inline struct ring_buffer_event *
rb_cur_event(struct trace_buffer *buffer, struct rb_cursor *cur, u64 *ts)
{
	while (cur->off < cur->len) {
		struct ring_buffer_event *ev = (void *)&cur->copy->data[cur->off];
		unsigned int size = rb_ev_size(ev);

		if (WARN_ON_ONCE(!size || size > cur->len - cur->off)) {
			/* A broken invariant: stop recording into the buffer. */
			atomic_or(RB_RECORD_OFF, &buffer->record_disabled);
			cur->off = cur->len;
			return NULL;
		}
		switch (ev->type_len) {
		case RINGBUF_TYPE_PADDING:
			break;
		case RINGBUF_TYPE_TIME_EXTEND:
			cur->ts += rb_meta_val(ev);
			break;
		case RINGBUF_TYPE_TIME_STAMP:
			cur->ts = rb_abs_stamp(ev, cur->ts);
			break;
		default:
			*ts = cur->ts + ev->time_delta;
			cur->size = size;
			return ev;
		}
		cur->off += size;
	}
	return NULL;
}

/* Past the event rb_cur_event() last returned. */
static void rb_cur_pass(struct rb_cursor *cur, u64 ts)
{
	cur->off += cur->size;
	cur->ts = ts;
}

/*
 * How far the reader's own page is readable, and whether the writer has
 * left it (then its commit word holds the final length).
 */
static __always_inline void rb_own_len(struct rb_cpu *cb,
				       struct rb_cursor *cur)
{
	u64 commit = local64_read(&cb->commit);
	unsigned int len;

	smp_rmb();	/* pairs with rb_end_commit(), rb_page_commits() */
	if (rb_pseq(cb, commit) == cur->seq) {
		len = rb_poff(cb, commit);
	} else {
		cur->done = true;
		len = local_read(&cur->copy->commit) & RB_COMMIT_MASK;
	}
	cur->len = max(cur->len, min(len, cb->cap));
}

/*
 * Point the reader at sub-buffer @seq, not taken yet.  Events lost so far
 * are reported with its first event.
 */
static void rb_rd_move(struct rb_cpu *cb, u64 seq)
{
	u64 from = cb->rd.seq;

	rb_cur_start(&cb->rd, seq);
	cb->lost_mark = local_read(&cb->overrun);
	if (rb_gap_after(cb, from, seq))
		cb->rd_gap = true;
	/* What lies before is read, also for the next boot. */
	if (cb->pm)
		WRITE_ONCE(cb->pm->rd, seq);
}

/*
 * Catch up with a writer that pushed the next sub-buffer out, once it has
 * counted what it pushed: the loss goes with the first event after it.
 */
static __always_inline void rb_rd_sync(struct rb_cpu *cb)
{
	u64 head;

	if (cb->rd.own)
		return;
	/* Pairs with the head cmpxchg in rb_push(): pushing raised first. */
	head = atomic64_read_acquire(&cb->head);
	if (head == cb->rd.seq || local_read(&cb->pushing))
		return;
	smp_rmb();	/* pairs with the smp_wmb() in rb_push() */
	/* rd.seq .. head - 1 were pushed out: see rb_iter_passed(). */
	cb->rd_skip = head;
	rb_rd_move(cb, head);
}

/*
 * Events committed and neither read nor overwritten.  A writer counts its
 * event before it publishes it, so none is readable while this is 0.
 */
static long rb_entries(struct rb_cpu *cb)
{
	return local_read(&cb->committed) - READ_ONCE(cb->read) -
	       local_read(&cb->overrun);
}

/* Has the writer published data in sub-buffer @seq or beyond? */
static bool rb_has_data(struct rb_cpu *cb, u64 seq)
{
	u64 commit = local64_read(&cb->commit);

	return rb_seq_before(seq, rb_pseq(cb, commit)) ||
	       (seq == rb_pseq(cb, commit) && rb_poff(cb, commit));
}

/*
 * Take sub-buffer rd.seq, the head, out of the ring: the reader reads its
 * page in place, even while the writer still fills it, and the slot gets
 * the reader's spare page for its next lap.  Returns whether it worked;
 * if not, the writer pushed the sub-buffer out first (its events count as
 * overrun) and rb_rd_sync() moves on.
 */
static bool rb_take(struct rb_cpu *cb)
{
	u64 seq = cb->rd.seq;
	struct rb_subbuf *sb = rb_slot_of(cb, seq);
	long tag = rb_tag(seq);
	struct rb_data_page *page;
	unsigned long base;
	unsigned int id;
	s64 head = seq;

	/*
	 * Pairs with the smp_wmb() in rb_end_commit(): rb_has_data() saw
	 * data in @seq, so the slot's lap has begun (rb_mark() is done).
	 * Stable while the tag is @seq, not taken: the cmpxchg checks it.
	 */
	smp_rmb();	/* pairs with rb_end_commit() */
	/*
	 * Taken or reused already: do not touch the slot.  A take that lost
	 * the head cmpxchg below left it taken, with our old spare in next;
	 * rb_rd_sync() waits while the push is counted, so we may be back
	 * here for the same seq, and must not store over next again.
	 */
	if (atomic_long_read(&sb->tag) != tag)
		return false;
	page = READ_ONCE(sb->page);
	base = READ_ONCE(sb->retired);
	id = READ_ONCE(sb->id);

	/* Marked: rb_mark() reads them on the writer's CPU meanwhile. */
	WRITE_ONCE(sb->next, cb->rd.copy);
	WRITE_ONCE(sb->next_id, cb->rd_id);
	/*
	 * Pairs with the cmpxchg in rb_mark(): either the writer started
	 * the slot's next lap first (the cmpxchg fails, head has moved on)
	 * or it will find RB_TAKEN and use next, which this full barrier
	 * publishes.  From here on the writer never writes @page again
	 * once it has left @seq.
	 */
	if (!atomic_long_try_cmpxchg(&sb->tag, &tag, tag | RB_TAKEN))
		return false;
	cb->rd.copy = page;
	cb->rd_id = id;
	/*
	 * Pairs with the cmpxchg in rb_push(): if the writer retired @seq
	 * first, its events were counted as overrun and @page, out of the
	 * ring for good, is just our spare; a mapping shows it as the
	 * reader's page, so it must be empty there.
	 */
	if (!atomic64_try_cmpxchg(&cb->head, &head, seq + 1)) {
		if (cb->mapped)
			local_set(&page->commit, 0);
		return false;
	}
	cb->rd.own = true;
	cb->rd_sb = sb;
	cb->rd_base = base;
	cb->rd_total = RB_TOTAL_ASK;
	rb_own_len(cb, &cb->rd);
	cb->rd.ts = page->time_stamp;
	return true;
}

/*
 * Events in the reader's page once the writer has left it, or < 0 when
 * that can no longer be told (a lap later, or after a resize).  Cached.
 */
static long rb_own_total(struct rb_cpu *cb)
{
	struct rb_subbuf *sb = cb->rd_sb;
	u64 seq = cb->rd.seq;
	unsigned long cum;
	long n = RB_TOTAL_LOST;

	if (cb->rd_total != RB_TOTAL_ASK)
		return cb->rd_total;
	cum = local_read(&sb->cum);
	/* Pairs with the cmpxchg in rb_mark(): cum is still our lap's. */
	smp_rmb();
	/*
	 * Acquire, also pairing with that cmpxchg: the branch below is only
	 * a control dependency, which does not keep the load of retired
	 * after this one on weakly ordered CPUs.
	 */
	if (atomic_long_read_acquire(&sb->tag) == (rb_tag(seq) | RB_TAKEN)) {
		n = cum - cb->rd_base;
	} else {
		cum = READ_ONCE(sb->retired);
		/* Pairs with the cmpxchg in rb_mark(): our lap's end. */
		smp_rmb();
		if (atomic_long_read(&sb->tag) == rb_tag(seq + cb->nr))
			n = cum - cb->rd_base;
	}
	cb->rd_total = n;
	return n;
}

/* Next event for the consuming reader, taking sub-buffers; lock held. */
static __always_inline struct ring_buffer_event *
rb_rd_look(struct trace_buffer *buffer, struct rb_cpu *cb, u64 *ts)
{
	struct rb_cursor *rd = &cb->rd;
	struct ring_buffer_event *ev;
	unsigned int off;
	int tries;

	for (tries = 0; tries < RB_READ_TRIES; tries++) {
		/* Read up to what we last saw of our page: look again. */
		if (rd->off >= rd->len && rd->own && !rd->done)
			rb_own_len(cb, rd);
		off = rd->off;
		ev = rb_cur_event(buffer, rd, ts);
		if (ev)
			return ev;
		if (rd->own) {
			/* Padding up to the end: look again, the writer may be gone. */
			if (!rd->done) {
				if (rd->off == off)
					return NULL;
				continue;
			}
			rb_rd_move(cb, rd->seq + 1);
			continue;
		}
		rb_rd_sync(cb);
		if (!rb_has_data(cb, rd->seq))
			return NULL;
		rb_take(cb);
	}
	return NULL;
}

/*
 * Point the dump's cursor at its sub-buffer, in place in the ring, taken
 * or not.  False when the writer has not reached it.
 */
static bool rb_dump_page(struct rb_cpu *cb, struct rb_cursor *cur)
{
	struct rb_subbuf *sb = rb_slot_of(cb, cur->seq);
	u64 commit = local64_read(&cb->commit);
	u64 cseq = rb_pseq(cb, commit);
	unsigned long tag, end;

	smp_rmb();	/* pairs with the smp_wmb() in rb_end_commit() */
	if (cseq != cur->seq && !rb_seq_before(cur->seq, cseq))
		return false;
	cur->done = cseq != cur->seq;
	/*
	 * The reader's own page holds the rest of its sub-buffer, also once
	 * the writer has reused the slot.  data_race: the lock holder is
	 * stopped or under us.
	 */
	if (data_race(cb->rd.own) && data_race(cb->rd.seq) == cur->seq) {
		cur->copy = data_race(cb->rd.copy); /* as rd.own */
		end = local_read(&cur->copy->commit) & RB_COMMIT_MASK;
		goto found;
	}
	tag = atomic_long_read(&sb->tag);
	/* Pushed out and reused: go on at the head. */
	if ((tag & ~RB_TAKEN) != rb_tag(cur->seq)) {
		u64 head = atomic64_read(&cb->head);

		if (rb_seq_before(cur->seq, head))
			cur->seq = head - 1;
		cur->len = 0;
		cur->done = true;
		return true;
	}
	/*
	 * A taken page only while the reader is still at it (taking it, or
	 * reading it in place): once it moved on, the page may be a
	 * read_page() caller's, or freed.  data_race: the lock holder is
	 * stopped or under us.
	 */
	if ((tag & RB_TAKEN) && data_race(cb->rd.seq) != cur->seq) {
		cur->len = 0;
		cur->done = true;
		return true;
	}
	cur->copy = READ_ONCE(sb->page);
	end = READ_ONCE(sb->end);
found:
	cur->len = min_t(unsigned long, cur->done ? end : rb_poff(cb, commit),
			 cb->cap);
	if (!cur->off)
		cur->ts = cur->copy->time_stamp;
	return true;
}

/*
 * The reader of a panic dump from NMI that did not get the reader lock:
 * the lock's holder is the reader it interrupted, or one on a stopped
 * CPU.  It reads in place with a cursor of its own (cb->dump), from where
 * the consuming reader stands, and never takes a sub-buffer or moves a
 * page, so the holder finds its pages where it left them.  The ring is
 * off for good (RB_DUMPED); what the dump decodes may be torn, never out
 * of its page.
 */
static struct ring_buffer_event *
rb_dump_look(struct trace_buffer *buffer, struct rb_cpu *cb, u64 *ts)
{
	struct rb_cursor *cur = &cb->dump;
	struct ring_buffer_event *ev;
	unsigned long n;
	int was = atomic_fetch_or(RB_DUMPED, &cb->record_disabled);

	if (!(was & RB_DUMPED)) {
		/* data_race: the lock holder may be moving the reader. */
		rb_cur_start(cur, data_race(cb->rd.seq));
		/* The reader's loss accounting, where the reader stands. */
		cb->dump_seen = data_race(cb->lost_seen); /* as rd.seq */
		cb->dump_mark = data_race(cb->lost_mark); /* as rd.seq */
		/* A salvage gap not reported yet: seen = mark + 1 is ~0UL. */
		if (data_race(cb->rd_gap)) /* as rd.seq */
			cb->dump_seen = cb->dump_mark + 1;
		/* data_race: a torn start is bounded by rb_dump_page(). */
		if (data_race(cb->rd.own)) {
			cur->off = data_race(cb->rd.off); /* as rd.own */
			cur->ts = data_race(cb->rd.ts); /* as rd.own */
		}
	}
	/*
	 * A resize, order change or reset under way (RB_HELD, added before
	 * the synchronize_rcu() that precedes its first store) has the ring
	 * half rebuilt: nothing of it can be read.
	 */
	if (was & (RB_RECORD_OFF - RB_HELD))
		return NULL;
	/* Each sub-buffer of the ring once at most. */
	for (n = 0; n <= cb->nr; n++) {
		u64 from = cur->seq;

		if (!rb_dump_page(cb, cur))
			return NULL;
		ev = rb_cur_event(buffer, cur, ts);
		if (ev || !cur->done)
			return ev;
		rb_cur_start(cur, cur->seq + 1);
		/* Lost so far: reported with the first event from here on. */
		cb->dump_mark = local_read(&cb->overrun);
		if (rb_gap_after(cb, from, cur->seq))
			cb->dump_seen = cb->dump_mark + 1;
	}
	return NULL;
}

/* Is there anything to read, without taking a sub-buffer?  Lock held. */
static bool rb_rd_pending(struct rb_cpu *cb)
{
	struct rb_cursor *rd = &cb->rd;

	if (rd->own) {
		rb_own_len(cb, rd);
		if (rd->off < rd->len)
			return true;
		return rd->done && rb_has_data(cb, rd->seq + 1);
	}
	rb_rd_sync(cb);
	return rb_has_data(cb, rd->seq);
}

static void rb_rd_consume(struct rb_cpu *cb, u64 ts)
{
	rb_cur_pass(&cb->rd, ts);
	WRITE_ONCE(cb->read, cb->read + 1);
}

static unsigned long rb_take_lost(struct rb_cpu *cb, bool clear)
{
	unsigned long lost = cb->lost_mark - cb->lost_seen;

	if (cb->rd_gap)
		lost = RB_LOST_UNKNOWN;
	if (clear) {
		cb->lost_seen = cb->lost_mark;
		cb->rd_gap = false;
	}
	return lost;
}

static __always_inline struct ring_buffer_event *
rb_read_one(struct trace_buffer *buffer, int cpu, u64 *ts,
	    unsigned long *lost_events, bool consume)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);
	struct ring_buffer_event *ev;
	unsigned long flags, lost = 0;
	bool locked;
	u64 t = 0;

	if (lost_events)
		*lost_events = 0;
	if (!cb || rb_nmi_no_read())
		return NULL;
	locked = rb_lock(cb, &flags);
	if (unlikely(!locked)) {
		ev = rb_dump_look(buffer, cb, &t);
		if (ev && lost_events)
			*lost_events = cb->dump_mark - cb->dump_seen;
		if (ev && consume) {
			cb->dump_seen = cb->dump_mark;
			rb_cur_pass(&cb->dump, t);
		}
	} else {
		ev = rb_rd_look(buffer, cb, &t);
		/* A consume takes the loss even when the caller has no use for it. */
		if (ev && (lost_events || consume))
			lost = rb_take_lost(cb, consume);
		if (lost_events)
			*lost_events = lost;
		if (ev && consume)
			rb_rd_consume(cb, t);
	}
	if (ev && ts)
		*ts = t;
	rb_unlock(cb, flags, locked);
	return ev;
}

/**
 * ring_buffer_peek - look at the next event of a CPU without consuming it
 * @buffer: the buffer
 * @cpu: the CPU whose ring to look at
 * @ts: where to store the event's time stamp (may be NULL)
 * @lost_events: where to store the events lost before it (may be NULL)
 *
 * Context: Any context.  From NMI (a panic dump) with the reader lock
 * busy it reads without the lock and switches the CPU's ring off for good.
 * Return: the event, valid until the next read of this ring, or NULL.
 */
struct ring_buffer_event *
ring_buffer_peek(struct trace_buffer *buffer, int cpu, u64 *ts,
		 unsigned long *lost_events)
{
	return rb_read_one(buffer, cpu, ts, lost_events, false);
}
EXPORT_SYMBOL_GPL(ring_buffer_peek);

/**
 * ring_buffer_consume - return the next event of a CPU and consume it
 * @buffer: the buffer
 * @cpu: the CPU whose ring to read
 * @ts: where to store the event's time stamp (may be NULL)
 * @lost_events: where to store the events overwritten since the last
 *	report (may be NULL); reported once, then cleared
 *
 * Context: Any context; from NMI as ring_buffer_peek().
 * Return: the event, valid until the next read of this ring, or NULL.
 */
struct ring_buffer_event *
ring_buffer_consume(struct trace_buffer *buffer, int cpu, u64 *ts,
		    unsigned long *lost_events)
{
	return rb_read_one(buffer, cpu, ts, lost_events, true);
}
EXPORT_SYMBOL_GPL(ring_buffer_consume);

/* ---------------------------------------------------------------------
 * Whole sub-buffers for splice and trace_pipe_raw
 */

/* Sub-buffers for @size bytes of data, at least two; no overflow. */
static unsigned long rb_nr_for(unsigned long size, unsigned long cap)
{
	return max(size / cap + !!(size % cap), 2UL);
}

/**
 * ring_buffer_read_page_data - the sub-buffer inside a read page
 * @rpage: a page from ring_buffer_alloc_read_page()
 *
 * Context: Any context.
 * Return: the start of the sub-buffer: header, then events.
 */
void *ring_buffer_read_page_data(struct buffer_data_read_page *rpage)
{
	return rpage->data;
}
EXPORT_SYMBOL_GPL(ring_buffer_read_page_data);

/**
 * ring_buffer_read_page_size - size of a read page
 * @rpage: a page from ring_buffer_alloc_read_page()
 *
 * Context: Any context.
 * Return: its size in bytes, header included; 0 for NULL.
 */
unsigned int ring_buffer_read_page_size(struct buffer_data_read_page *rpage)
{
	if (!rpage)
		return 0;
	return PAGE_SIZE << rpage->order;
}
EXPORT_SYMBOL_GPL(ring_buffer_read_page_size);

/**
 * ring_buffer_alloc_read_page - get a page for ring_buffer_read_page()
 * @buffer: the buffer it will be used with
 * @cpu: the CPU it will be used with
 * @rpage: in: a page to reuse (reallocated if of another size) or NULL;
 *	out: the page
 *
 * Context: Process context, may sleep.
 * Return: 0, -ENODEV for a CPU the buffer does not have, -EINVAL without
 * @rpage, -ENOMEM.
 */
int ring_buffer_alloc_read_page(struct trace_buffer *buffer, int cpu,
				struct buffer_data_read_page **rpage)
{
	unsigned int order;
	struct buffer_data_read_page *rp;

	if (!rb_cpu_get(buffer, cpu))
		return -ENODEV;
	if (!rpage)
		return -EINVAL;
	order = READ_ONCE(buffer->order);
	rp = *rpage;
	if (rp && rp->order == order && rp->data)
		return 0;
	if (!rp) {
		rp = kzalloc(sizeof(*rp), GFP_KERNEL);
		if (!rp)
			return -ENOMEM;
	}
	rb_page_free(rp->data, rp->order);
	rp->order = order;
	rp->data = rb_page_alloc(cpu, order, GFP_KERNEL);
	if (!rp->data) {
		kfree(rp);
		*rpage = NULL;
		return -ENOMEM;
	}
	*rpage = rp;
	return 0;
}
EXPORT_SYMBOL_GPL(ring_buffer_alloc_read_page);

/**
 * ring_buffer_free_read_page - release a page from alloc_read_page
 * @buffer: the buffer it was used with
 * @cpu: the CPU it was used with
 * @rpage: the page (may be NULL)
 *
 * Context: Any context that may free pages.
 */
void ring_buffer_free_read_page(struct trace_buffer *buffer, int cpu,
				struct buffer_data_read_page *rpage)
{
	if (!rpage)
		return;
	rb_page_free(rpage->data, rpage->order);
	kfree(rpage);
}
EXPORT_SYMBOL_GPL(ring_buffer_free_read_page);

/*
 * Pass whole events from the reader's position while they fit in @room
 * bytes; return how many bytes were passed and count the data events.
 */
static unsigned int rb_rd_span(struct trace_buffer *buffer, struct rb_cpu *cb,
			       unsigned int room, unsigned long *events)
{
	struct rb_cursor *rd = &cb->rd;
	unsigned int start = rd->off;
	struct ring_buffer_event *ev;
	unsigned int off;
	u64 ts, ts0;

	for (;;) {
		off = rd->off;
		ts0 = rd->ts;
		ev = rb_cur_event(buffer, rd, &ts);
		if (!ev)
			break;
		if (rd->off + rb_ev_size(ev) - start > room) {
			rd->off = off;
			rd->ts = ts0;
			break;
		}
		rb_rd_consume(cb, ts);
		(*events)++;
	}
	return rd->off - start;
}

/*
 * Hand over the page of a sub-buffer the writer has left, whole; the
 * caller's page becomes the reader's spare.
 */
static struct rb_data_page *rb_rd_give(struct rb_cpu *cb,
				       struct buffer_data_read_page *rpage,
				       long total)
{
	struct rb_data_page *page = cb->rd.copy;

	cb->rd.copy = rpage->data;
	/* The caller's page is the reader's now: empty, as a mapping shows it. */
	cb->rd.copy->time_stamp = 0;
	local_set(&cb->rd.copy->commit, 0);
	rpage->data = page;
	WRITE_ONCE(cb->read, cb->read + total);
	rb_rd_move(cb, cb->rd.seq + 1);
	return page;
}

static int rb_rd_page(struct trace_buffer *buffer, struct rb_cpu *cb,
		      struct buffer_data_read_page *rpage, unsigned int room,
		      bool full)
{
	struct rb_data_page *dst = rpage->data;
	struct rb_cursor *rd = &cb->rd;
	unsigned long events = 0, lost, commit;
	unsigned int start, n, used;
	long total = -1;
	u64 base, ts;

	if (!rb_rd_look(buffer, cb, &ts))
		return -1;
	if (!rd->done)
		rb_own_len(cb, rd);
	if (full && !rd->done)
		return -1;
	start = rd->off;
	base = rd->ts;
	/* A mapping shows the ring's pages: they never leave it. */
	if (rd->done && !start && rd->len <= room && !cb->mapped && !cb->pm)
		total = rb_own_total(cb);
	if (total >= 0) {
		n = rd->len;
		/* Before the move: later losses go with the next page. */
		lost = rb_take_lost(cb, true);
		dst = rb_rd_give(cb, rpage, total);
	} else {
		n = rb_rd_span(buffer, cb, room, &events);
		if (!n)
			return -1;
		lost = rb_take_lost(cb, true);
		memcpy(dst->data, &rd->copy->data[start], n);
		dst->time_stamp = base;
	}
	commit = n;
	used = n;
	if (lost) {
		commit |= RB_MISSED_EVENTS;
		if (lost != RB_LOST_UNKNOWN && n + sizeof(long) <= cb->cap) {
			memcpy(&dst->data[n], &lost, sizeof(long));
			commit |= RB_MISSED_STORED;
			used += sizeof(long);
		}
	}
	local_set(&dst->commit, commit);
	memset(&dst->data[used], 0, cb->cap - used);
	return 0;
}

/**
 * ring_buffer_read_page - move events of a CPU into a reader's page
 * @buffer: the buffer
 * @rpage: a page from ring_buffer_alloc_read_page()
 * @len: bytes the caller can take, header included
 * @cpu: the CPU whose ring to read
 * @full: only hand out a sub-buffer the writer has finished
 *
 * The events are consumed.  The page gets a sub-buffer header, lost-event
 * flags and a zeroed tail (it may go to user space).
 *
 * Context: Process or irq context; not from NMI.
 * Return: 0 when events were copied, a negative value otherwise.
 */
int ring_buffer_read_page(struct trace_buffer *buffer,
			  struct buffer_data_read_page *rpage, size_t len,
			  int cpu, int full)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);
	unsigned long flags;
	int ret = -1;

	if (!cb || !rpage || !rpage->data)
		return -1;
	len = min_t(size_t, len, PAGE_SIZE << rpage->order);
	if (len <= RB_HDR_BYTES)
		return -1;
	raw_spin_lock_irqsave(&cb->reader_lock, flags);
	/* Under the lock: an order change may be running. */
	if (rpage->order == cb->order)
		ret = rb_rd_page(buffer, cb, rpage, len - RB_HDR_BYTES, full);
	raw_spin_unlock_irqrestore(&cb->reader_lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(ring_buffer_read_page);

/* ---------------------------------------------------------------------
 * Iterators: non-consuming reads while writers go on
 */

struct ring_buffer_iter {
	struct trace_buffer	*buffer;
	struct rb_cpu		*cb;
	struct rb_cursor	cur;
	struct ring_buffer_event *ev;
	u64			ev_ts;
	bool			dropped;
	unsigned int		order;
	unsigned long		resets;		/* cb->resets at the start */
};

/*
 * Start at the consuming reader's position, with a copy of its page.
 * Reader lock held.  False, the iterator empty, if the order changed.
 */
static bool rb_iter_from_reader(struct ring_buffer_iter *iter)
{
	struct rb_data_page *copy = iter->cur.copy;
	struct rb_cpu *cb = iter->cb;

	iter->ev = NULL;
	if (cb->order != iter->order) {
		rb_cur_start(&iter->cur, cb->rd.seq);
		return false;
	}
	rb_rd_sync(cb);
	if (cb->rd.own)
		rb_own_len(cb, &cb->rd);
	iter->resets = cb->resets;
	iter->cur = cb->rd;
	iter->cur.copy = copy;
	memcpy(copy, cb->rd.copy, RB_HDR_BYTES + cb->rd.len);
	/* The reader stands just past a salvage gap it has not reported. */
	if (cb->rd_gap)
		iter->dropped = true;
	return true;
}

/* More of the page the reader owns, which the iterator is on. */
static void rb_iter_own_fill(struct ring_buffer_iter *iter)
{
	struct rb_cursor *cur = &iter->cur, *rd = &iter->cb->rd;
	unsigned int have = cur->len;

	rb_own_len(iter->cb, rd);
	if (!have && !cur->off)
		cur->ts = rd->copy->time_stamp;
	if (rd->len > have)
		memcpy(&cur->copy->data[have], &rd->copy->data[have],
		       rd->len - have);
	cur->len = max(have, rd->len);
	cur->done = rd->done;
	cur->own = true;
}

/*
 * Head has passed the iterator's sub-buffer: the writer pushed it out (a
 * loss), or the consuming reader took it (none).  If the reader is at or
 * past the iterator, go on from the reader: lost only if the reader went
 * on past pushed sub-buffers after the iterator's (cb->rd_skip); else
 * every sub-buffer up to head was pushed (cb->pushed shows it): go on at
 * head.  Not while a push is being counted, unless the reader's take of
 * the iterator's sub-buffer lost to it (rb_take()): the slot is taken, the
 * reader at it without owning it, so it was pushed, as was all up to
 * head.  Reader lock held.
 */
static void rb_iter_passed(struct ring_buffer_iter *iter)
{
	struct rb_cpu *cb = iter->cb;
	u64 seq = iter->cur.seq;

	if (local_read(&cb->pushing)) {
		if (!cb->rd.own && cb->rd.seq == seq &&
		    atomic_long_read(&rb_slot_of(cb, seq)->tag) ==
		    (rb_tag(seq) | RB_TAKEN)) {
			iter->dropped = true;
			rb_cur_start(&iter->cur, atomic64_read(&cb->head));
		}
		return;
	}
	smp_rmb();	/* pairs with the smp_wmb() in rb_push() */
	rb_rd_sync(cb);
	if (!rb_seq_before(cb->rd.seq, iter->cur.seq)) {
		if (rb_seq_before(iter->cur.seq, cb->rd_skip))
			iter->dropped = true;
		rb_iter_from_reader(iter);
		return;
	}
	if (rb_seq_before(iter->cur.seq, local64_read(&cb->pushed)))
		iter->dropped = true;
	rb_cur_start(&iter->cur, atomic64_read(&cb->head));
}

/*
 * Refill the iterator's copy, under the reader lock: no resize, order
 * change or read_page() moves a page meanwhile.  -EINVAL: order changed.
 */
static int rb_iter_fill(struct ring_buffer_iter *iter)
{
	struct rb_cursor *cur = &iter->cur;
	struct rb_cpu *cb = iter->cb;
	unsigned long flags;
	int ret = 0;
	u64 head;

	raw_spin_lock_irqsave(&cb->reader_lock, flags);
	/* Pairs with the head cmpxchg in rb_push(): pushing raised first. */
	head = atomic64_read_acquire(&cb->head);
	if (cb->resets != iter->resets) {
		/* Emptied since we looked: start over at the new head. */
		iter->resets = cb->resets;
		rb_cur_start(cur, head);
		ret = -EAGAIN;
	} else if (cb->order != iter->order) {
		ret = -EINVAL;
	} else if (cb->rd.own && cb->rd.seq == cur->seq) {
		rb_iter_own_fill(iter);
	} else if (cur->own) {
		/* The reader has moved on: the rest of its page is read. */
		cur->done = true;
	} else if (rb_seq_before(cur->seq, head)) {
		/*
		 * Being pushed out: readable until the writer marks the slot
		 * (rb_cur_fill() checks the tag).  Else passed for good.
		 */
		ret = local_read(&cb->pushing) ? rb_cur_fill(cb, cur) : -EAGAIN;
		if (ret)
			rb_iter_passed(iter);
	} else {
		ret = rb_cur_fill(cb, cur);
	}
	raw_spin_unlock_irqrestore(&cb->reader_lock, flags);
	return ret;
}

/**
 * ring_buffer_read_start - open an iterator on a CPU's ring
 * @buffer: the buffer
 * @cpu: the CPU
 * @flags: gfp flags for the iterator's memory
 *
 * It shows what the consuming reader has not read, while writers go on.
 * Resizes and sub-buffer size changes return -EBUSY while it is open.
 *
 * Context: Process context unless @flags allow otherwise.
 * Return: the iterator, or NULL for a bad CPU or no memory.
 */
struct ring_buffer_iter *
ring_buffer_read_start(struct trace_buffer *buffer, int cpu, gfp_t flags)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);
	struct ring_buffer_iter *iter;
	bool ok;

	if (!cb)
		return NULL;
	iter = kzalloc(sizeof(*iter), flags);
	if (!iter)
		return NULL;
	iter->buffer = buffer;
	iter->cb = cb;
	atomic_inc(&cb->iters);
	do {
		/* An order change may have slipped in before iters rose. */
		rb_page_free(iter->cur.copy, iter->order);
		iter->order = READ_ONCE(cb->order);
		iter->cur.copy = rb_page_alloc(cpu, iter->order, flags);
		if (!iter->cur.copy) {
			ring_buffer_read_finish(iter);
			return NULL;
		}
		scoped_guard(raw_spinlock_irqsave, &cb->reader_lock)
			ok = rb_iter_from_reader(iter);
	} while (!ok);
	return iter;
}
EXPORT_SYMBOL_GPL(ring_buffer_read_start);

/**
 * ring_buffer_read_finish - close an iterator
 * @iter: the iterator (may be NULL)
 *
 * Context: Process context.
 */
void ring_buffer_read_finish(struct ring_buffer_iter *iter)
{
	if (!iter)
		return;
	atomic_dec(&iter->cb->iters);
	rb_page_free(iter->cur.copy, iter->order);
	kfree(iter);
}
EXPORT_SYMBOL_GPL(ring_buffer_read_finish);

/**
 * ring_buffer_iter_peek - the event under an iterator
 * @iter: the iterator
 * @ts: where to store its time stamp (may be NULL)
 *
 * Context: Any context but NMI.
 * Return: the event, valid until the iterator moves, or NULL at the end.
 */
struct ring_buffer_event *
ring_buffer_iter_peek(struct ring_buffer_iter *iter, u64 *ts)
{
	struct rb_cursor *cur = &iter->cur;
	struct rb_cpu *cb = iter->cb;
	int tries, ret;

	if (unlikely(READ_ONCE(cb->resets) != iter->resets)) {
		/* The ring was emptied under us: so is the copy. */
		iter->resets = READ_ONCE(cb->resets);
		rb_cur_start(cur, atomic64_read(&cb->head));
		iter->ev = NULL;
	}
	for (tries = 0; !iter->ev && tries < RB_READ_TRIES; tries++) {
		/* What the copy holds was validated: show it first. */
		iter->ev = rb_cur_event(iter->buffer, cur, &iter->ev_ts);
		if (iter->ev)
			break;
		if (cur->done) {
			rb_cur_start(cur, cur->seq + 1);
			if (rb_gap(cb, cur->seq))
				iter->dropped = true;
			continue;
		}
		ret = rb_iter_fill(iter);
		if (ret == -EINVAL)
			break;
		if (ret) {
			/* Pairs with the barriers in rb_push(): see head move. */
			smp_rmb();
			continue;
		}
		if (cur->off >= cur->len && !cur->done)
			break;
	}
	if (iter->ev && ts)
		*ts = iter->ev_ts;
	return iter->ev;
}
EXPORT_SYMBOL_GPL(ring_buffer_iter_peek);

/**
 * ring_buffer_iter_advance - move an iterator past its current event
 * @iter: the iterator
 *
 * Context: Any context but NMI.
 */
void ring_buffer_iter_advance(struct ring_buffer_iter *iter)
{
	if (!iter->ev && !ring_buffer_iter_peek(iter, NULL))
		return;
	rb_cur_pass(&iter->cur, iter->ev_ts);
	iter->ev = NULL;
	/* A drop goes with the event after it, now passed. */
	iter->dropped = false;
}
EXPORT_SYMBOL_GPL(ring_buffer_iter_advance);

/**
 * ring_buffer_iter_reset - move an iterator back to the reader's position
 * @iter: the iterator (may be NULL)
 *
 * Context: Any context but NMI.
 */
void ring_buffer_iter_reset(struct ring_buffer_iter *iter)
{
	unsigned long flags;

	if (!iter)
		return;
	raw_spin_lock_irqsave(&iter->cb->reader_lock, flags);
	iter->dropped = false;
	rb_iter_from_reader(iter);
	raw_spin_unlock_irqrestore(&iter->cb->reader_lock, flags);
}
EXPORT_SYMBOL_GPL(ring_buffer_iter_reset);

/**
 * ring_buffer_iter_empty - is there nothing more under the iterator?
 * @iter: the iterator
 *
 * Context: Any context but NMI.
 * Return: 1 if the iterator has reached the committed end, else 0.
 */
int ring_buffer_iter_empty(struct ring_buffer_iter *iter)
{
	return !ring_buffer_iter_peek(iter, NULL);
}
EXPORT_SYMBOL_GPL(ring_buffer_iter_empty);

/**
 * ring_buffer_iter_dropped - were events lost before the iterator's event?
 * @iter: the iterator
 *
 * Asking does not clear the report: trace.c asks every CPU's iterator
 * before it prints the earliest event.  ring_buffer_iter_advance() past
 * the event clears it.
 *
 * Context: Any context but NMI.
 * Return: true while the iterator stands on the first event after lost
 * ones (or at the end, after them).
 */
bool ring_buffer_iter_dropped(struct ring_buffer_iter *iter)
{
	return iter->dropped;
}
EXPORT_SYMBOL_GPL(ring_buffer_iter_dropped);

/* ---------------------------------------------------------------------
 * Allocation and freeing of rings and buffers, CPU hotplug, and the
 * control paths: resize, overwrite mode, reset, swap, sub-buffer order
 */

static void rb_free_ring(struct rb_subbuf *subbufs, unsigned long nr,
			 unsigned int order)
{
	unsigned long i;

	if (!subbufs)
		return;
	for (i = 0; i < nr; i++)
		rb_page_free(subbufs[i].page, order);
	kfree(subbufs);
}

static struct rb_subbuf *rb_alloc_ring(int cpu, unsigned long nr,
				       unsigned int order)
{
	struct rb_subbuf *subbufs;
	unsigned long i;

	subbufs = kcalloc_node(nr, sizeof(*subbufs), GFP_KERNEL,
			       cpu_to_node(cpu));
	if (!subbufs)
		return NULL;
	for (i = 0; i < nr; i++) {
		subbufs[i].page = rb_page_alloc(cpu, order,
						GFP_KERNEL | __GFP_RETRY_MAYFAIL);
		if (!subbufs[i].page) {
			rb_free_ring(subbufs, nr, order);
			return NULL;
		}
	}
	return subbufs;
}

/* Slot @sb will next hold @seq: make it look like the lap before. */
void rb_slot_clear(struct rb_subbuf *sb, u64 seq, unsigned long nr)
{
	atomic_long_set(&sb->tag, rb_tag(seq - nr));
	local_set(&sb->cum, 0);
	sb->retired = 0;
	sb->end = 0;
}

/*
 * Writers held off (or gone): every taken slot but @keep's (unless @all),
 * which the writer still fills, gets the reader's spare page now.
 */
static void rb_untake(struct rb_cpu *cb, bool all, u64 keep)
{
	unsigned long i;

	for (i = 0; i < cb->nr; i++) {
		struct rb_subbuf *sb = &cb->subbufs[i];
		long tag = atomic_long_read(&sb->tag);

		if (!(tag & RB_TAKEN) || (!all && rb_tag_is(tag, keep)))
			continue;
		sb->page = sb->next;
		sb->id = sb->next_id;
		atomic_long_set(&sb->tag, tag & ~RB_TAKEN);
	}
}

/*
 * Number the pages for user mappings as 6.12 does: the reader's 0, then
 * the slots from head in ring order (a taken slot's id is its next page's).
 * Ids move with their pages (rb_mark(), rb_take(); read_page() keeps
 * them).  Done when a ring gets a new set of pages, writers held off, and
 * at the first mapping on the ring's CPU under the guard (see
 * rb_map_publish()): a writer's rb_mark(), which copies next_id to id as
 * it un-takes a slot, can then only be an NMI's, run whole between two of
 * our steps; if it un-took the slot after we read the tag, id gets our
 * number too.  Reader lock held (or no reader yet).
 */
static void rb_number(struct rb_cpu *cb)
{
	u64 head = atomic64_read(&cb->head);
	unsigned long i;

	cb->rd_id = 0;
	for (i = 0; i < cb->nr; i++) {
		struct rb_subbuf *sb = rb_slot_of(cb, head + i);

		if (atomic_long_read(&sb->tag) & RB_TAKEN) {
			WRITE_ONCE(sb->next_id, i + 1);
			barrier();
			if (atomic_long_read(&sb->tag) & RB_TAKEN)
				continue;
		}
		WRITE_ONCE(sb->id, i + 1);
	}
}

/*
 * Writer and reader start afresh: writer at @pos, reader and head at
 * @head, counters at zero but dropped (held-off writers count into it
 * meanwhile, see rb_reset_one()).  Writers held off, reader_lock held.
 */
void rb_cpu_restart(struct rb_cpu *cb, u64 pos, u64 head)
{
	cb->tail = rb_slot_of(cb, rb_pseq(cb, pos));
	cb->ptail = NULL;
	local64_set(&cb->write, pos);
	local64_set(&cb->commit, pos);
	cb->top = RB_TOP_NONE;
	cb->stamp = 0;
	cb->stamp_pos = RB_POS_NONE;
	local64_set(&cb->floor, 0);	/* no stamp before holds the next */
	local_set(&cb->committed, 0);
	local_set(&cb->overrun, 0);
	local_set(&cb->pushing, 0);
	local64_set(&cb->pushed, head);
	cb->rd_skip = head;
	local_set(&cb->commit_overrun, 0);
	atomic64_set(&cb->head, head);
	WRITE_ONCE(cb->resets, cb->resets + 1);
	rb_cur_start(&cb->rd, head);
	/* A mapping shows the reader's page: empty now. */
	cb->rd.copy->time_stamp = 0;
	local_set(&cb->rd.copy->commit, 0);
	cb->read = 0;
	cb->lost_seen = 0;
	cb->lost_mark = 0;
	cb->rd_gap = false;
}

/*
 * Empty ring starting at sub-buffer @base.  Numbers never go back, so an
 * iterator left behind sees the head pass it.  As rb_cpu_restart().
 */
void rb_cpu_clear(struct rb_cpu *cb, u64 base)
{
	struct rb_subbuf *first = rb_slot_of(cb, base);
	unsigned long i;

	/* A next boot keeps nothing from here on, before a page changes. */
	if (cb->pm)
		rb_range_clear(cb, base);
	rb_untake(cb, true, 0);
	for (i = 0; i < cb->nr; i++)
		rb_slot_clear(rb_slot_of(cb, base + i), base + i, cb->nr);
	atomic_long_set(&first->tag, rb_tag(base));
	first->page->time_stamp = 0;
	local_set(&first->page->commit, 0);
	rb_cpu_restart(cb, rb_mkpos(cb, base, 0), base);
}

void rb_set_geometry(struct rb_cpu *cb, unsigned int order)
{
	cb->order = order;
	cb->shift = PAGE_SHIFT + order;
	cb->mask = (1ULL << cb->shift) - 1;
	cb->cap = (PAGE_SIZE << order) - RB_HDR_BYTES;
}

static void rb_cpu_free(struct rb_cpu *cb)
{
	if (!cb)
		return;
	if (cb->pm) {
		/* The pages belong to the range, and keep what they hold. */
		kfree(cb->subbufs);
		kfree(cb);
		return;
	}
	if (cb->subbufs)
		rb_untake(cb, true, 0);
	rb_free_ring(cb->subbufs, cb->nr, cb->order);
	rb_page_free((void *)cb->meta, cb->order);
	rb_page_free(cb->rd.copy, cb->order);
	kfree(cb);
}

static struct rb_cpu *rb_cpu_alloc(struct trace_buffer *buffer, int cpu,
				   unsigned long nr)
{
	struct rb_cpu *cb;

	cb = kzalloc_node(sizeof(*cb), GFP_KERNEL, cpu_to_node(cpu));
	if (!cb)
		return NULL;
	cb->cpu = cpu;
	cb->nr = nr;
	rb_set_geometry(cb, buffer->order);
	raw_spin_lock_init(&cb->reader_lock);
	lockdep_set_class(&cb->reader_lock, buffer->key);
	if (buffer->range_start) {
		cb->subbufs = kcalloc_node(nr, sizeof(*cb->subbufs),
					   GFP_KERNEL, cpu_to_node(cpu));
		if (!cb->subbufs) {
			kfree(cb);
			return NULL;
		}
		rb_range_attach(buffer, cb);
		return cb;
	}
	cb->rd.copy = rb_page_alloc(cpu, cb->order, GFP_KERNEL);
	cb->subbufs = rb_alloc_ring(cpu, nr, cb->order);
	if (!cb->rd.copy || !cb->subbufs) {
		rb_cpu_free(cb);
		return NULL;
	}
	rb_cpu_clear(cb, 0);
	rb_number(cb);
	return cb;
}

static void rb_wake_fn(struct irq_work *work)
{
	struct rb_waiter *wt = container_of(work, struct rb_waiter, work);

	wake_up_all(&wt->wq);
}

static void rb_waiter_init(struct rb_waiter *wt, u8 *armed)
{
	init_irq_work(&wt->work, rb_wake_fn);
	init_waitqueue_head(&wt->wq);
	wt->armed = armed;
	wt->full = 0;
}

/*
 * Size of a ring for a CPU that comes up: the one every CPU the buffer
 * has agrees on, else the smallest; a range's layout is fixed.  Mutex held.
 */
static unsigned long rb_nr_peers(struct trace_buffer *buffer)
{
	unsigned long nr = 0, n;
	int cpu;

	if (buffer->range_start)
		return buffer->nr_default;
	for_each_cpu(cpu, buffer->cpumask) {
		n = per_cpu_ptr(buffer->slots, cpu)->cb->nr;
		if (nr && n != nr)
			return 2;
		nr = n;
	}
	return nr ?: buffer->nr_default;
}

static int rb_cpu_add(struct trace_buffer *buffer, int cpu)
{
	struct rb_slot *slot = per_cpu_ptr(buffer->slots, cpu);
	struct rb_cpu *cb;

	/* No writer yet: the clock may have changed while it was down. */
	if (cpumask_test_cpu(cpu, buffer->cpumask)) {
		local64_set(&slot->cb->floor, 0);
		return 0;
	}
	cb = rb_cpu_alloc(buffer, cpu, rb_nr_peers(buffer));
	if (!cb)
		return -ENOMEM;
	WRITE_ONCE(slot->cb, cb);
	/* Pairs with the smp_rmb() in rb_cpu_get(): ring before mask bit. */
	smp_wmb();
	cpumask_set_cpu(cpu, buffer->cpumask);
	return 0;
}

static void rb_release(struct trace_buffer *buffer)
{
	int cpu;

	irq_work_sync(&buffer->waiter.work);
	for_each_possible_cpu(cpu) {
		struct rb_slot *slot = per_cpu_ptr(buffer->slots, cpu);

		irq_work_sync(&slot->waiter.work);
		rb_cpu_free(slot->cb);
	}
	free_percpu(buffer->slots);
	free_cpumask_var(buffer->cpumask);
	kfree(buffer);
}

/* Both kinds of buffer; @start is 0 for one the page allocator fills. */
struct trace_buffer *rb_alloc_buffer(unsigned long size, unsigned int flags,
				     unsigned int order, unsigned long start,
				     unsigned long range_size,
				     struct lock_class_key *key)
{
	struct trace_buffer *buffer;
	unsigned long cap = (PAGE_SIZE << order) - RB_HDR_BYTES;
	int cpu;

	buffer = kzalloc(sizeof(*buffer), GFP_KERNEL);
	if (!buffer)
		return NULL;
	buffer->slots = alloc_percpu(struct rb_slot);
	if (!buffer->slots ||
	    !zalloc_cpumask_var(&buffer->cpumask, GFP_KERNEL)) {
		free_percpu(buffer->slots);
		kfree(buffer);
		return NULL;
	}
	buffer->flags = flags;
	buffer->clock = trace_clock_local;
	buffer->key = key;
	buffer->order = order;
	buffer->nr_default = rb_nr_for(size, cap);
	rb_update_max_len(buffer);
	mutex_init(&buffer->mutex);
	rb_waiter_init(&buffer->waiter, &buffer->all_armed);
	for_each_possible_cpu(cpu) {
		struct rb_slot *slot = per_cpu_ptr(buffer->slots, cpu);

		rb_waiter_init(&slot->waiter, &slot->wake.cpu);
	}

	scoped_guard(cpus_read_lock) {
		if (start && rb_range_setup(buffer, start, range_size))
			goto fail;
		for_each_online_cpu(cpu) {
			if (rb_cpu_add(buffer, cpu))
				goto fail;
		}
		if (cpuhp_state_add_instance_nocalls_cpuslocked(CPUHP_TRACE_RB_PREPARE,
								&buffer->node))
			goto fail;
	}
	if (start)
		rb_range_watch_panic(buffer);
	return buffer;
fail:
	rb_release(buffer);
	return NULL;
}

/**
 * __ring_buffer_alloc - allocate a ring buffer
 * @size: bytes of data per CPU (rounded up to whole sub-buffers, at least 2)
 * @flags: RB_FL_OVERWRITE to overwrite the oldest data when full
 * @key: lock class for the reader locks (use ring_buffer_alloc())
 *
 * Context: Process context, may sleep.
 * Return: the buffer, or NULL when out of memory.
 */
struct trace_buffer *__ring_buffer_alloc(unsigned long size,
					 unsigned int flags,
					 struct lock_class_key *key)
{
	return rb_alloc_buffer(size, flags, 0, 0, 0, key);
}
EXPORT_SYMBOL_GPL(__ring_buffer_alloc);

/**
 * ring_buffer_free - free a ring buffer
 * @buffer: the buffer; nobody may use it any more
 *
 * Context: Process context, may sleep.
 */
void ring_buffer_free(struct trace_buffer *buffer)
{
	if (!buffer)
		return;
	cpuhp_state_remove_instance(CPUHP_TRACE_RB_PREPARE, &buffer->node);
	if (buffer->range_start)
		rb_range_unwatch_panic(buffer);
	rb_release(buffer);
}
EXPORT_SYMBOL_GPL(ring_buffer_free);

/**
 * trace_rb_cpu_prepare - give a CPU that comes online a ring
 * @cpu: the CPU
 * @node: the buffer's hotplug instance
 *
 * Context: CPU hotplug, process context.
 * Return: 0 or -ENOMEM.
 */
int trace_rb_cpu_prepare(unsigned int cpu, struct hlist_node *node)
{
	struct trace_buffer *buffer;

	buffer = hlist_entry_safe(node, struct trace_buffer, node);
	if (!buffer)
		return 0;
	guard(mutex)(&buffer->mutex);
	return rb_cpu_add(buffer, cpu);
}

/* Keep writers of @cb out, wait for those inside: Documentation section 10. */
static void rb_hold_writers(struct rb_cpu *cb)
{
	atomic_add(RB_HELD, &cb->record_disabled);
	synchronize_rcu();
}

static void rb_release_writers(struct rb_cpu *cb)
{
	smp_mb__before_atomic();	/* pairs with rb_enter() */
	atomic_sub(RB_HELD, &cb->record_disabled);
}

/*
 * Keep ring_buffer_swap_cpu() from moving rings into or out of @buffer
 * while a resize or order change looks for iterators and changes the
 * rings it found.  Mutex held.
 */
static void rb_swaps_off(struct trace_buffer *buffer)
{
	atomic_inc(&buffer->swap_off);
	/* Pairs with the preempt-off section of ring_buffer_swap_cpu(). */
	synchronize_rcu();
}

/* Is a ring concerned open to an iterator or mapped?  Mutex held. */
static bool rb_any_iter(struct trace_buffer *buffer, int cpu_id)
{
	struct rb_cpu *cb;
	int cpu;

	for_each_cpu(cpu, buffer->cpumask) {
		if (cpu_id != RING_BUFFER_ALL_CPUS && cpu != cpu_id)
			continue;
		cb = per_cpu_ptr(buffer->slots, cpu)->cb;
		if (atomic_read(&cb->iters) || cb->mapped || cb->pm)
			return true;
	}
	return false;
}

/*
 * Move the newest sub-buffers of @cb into @ring (@nr slots), fill the
 * other slots with @spare pages and install it; the rest are overrun.
 * Writers held off, reader lock held.  Returns the spare pages used.
 */
static unsigned long rb_rebuild(struct rb_cpu *cb, struct rb_subbuf *ring,
				unsigned long nr, struct rb_data_page **spare)
{
	u64 last = rb_pseq(cb, local64_read(&cb->write));
	u64 head = atomic64_read(&cb->head);
	u64 first = head, s;
	unsigned long used = 0, i;

	rb_untake(cb, false, last);
	if (rb_seq_before(last, head))
		first = last;	/* the reader's page, still the writer's */
	else if (last - head >= nr)
		first = last - nr + 1;
	for (s = head; rb_seq_before(s, first); s++) {
		struct rb_subbuf *old = rb_slot_of(cb, s);

		local_add(local_read(&old->cum) - old->retired, &cb->overrun);
	}
	for (s = first; s != last + 1; s++) {
		struct rb_subbuf *old = rb_slot_of(cb, s);

		ring[rb_mod(s, nr)] = *old;
		old->page = NULL;
	}
	for (i = 0; i < nr; i++) {
		if (ring[i].page)
			continue;
		ring[i].page = spare[used++];
		/* The next seq after last that lands in slot i. */
		s = last + 1 + (i + nr - rb_mod(last + 1, nr)) % nr;
		rb_slot_clear(&ring[i], s, nr);
	}
	cb->tail = &ring[rb_mod(last, nr)];
	cb->ptail = NULL;
	cb->subbufs = ring;
	cb->nr = nr;
	if (rb_seq_before(head, first))
		atomic64_set(&cb->head, first);
	/* The slots moved: the count of the reader's page is lost. */
	if (cb->rd.own && cb->rd_total == RB_TOTAL_ASK)
		cb->rd_total = RB_TOTAL_LOST;
	rb_rd_sync(cb);
	rb_number(cb);
	return used;
}

/* What a resize of one CPU needs, allocated before anything changes. */
struct rb_resize {
	struct rb_subbuf	*ring;
	struct rb_data_page	**spare;
	unsigned long		n;		/* pages in spare */
};

static int rb_resize_alloc(struct rb_cpu *cb, unsigned long nr,
			   struct rb_resize *rs)
{
	unsigned long old_nr = cb->nr;

	if (nr == old_nr)
		return 0;
	if (nr > old_nr &&
	    nr - old_nr > (unsigned long)si_mem_available() >> cb->order)
		return -ENOMEM;
	rs->ring = kcalloc_node(nr, sizeof(*rs->ring), GFP_KERNEL,
				cpu_to_node(cb->cpu));
	rs->spare = kcalloc(nr, sizeof(*rs->spare), GFP_KERNEL);
	if (!rs->ring || !rs->spare)
		return -ENOMEM;
	for (; rs->n < nr; rs->n++) {
		rs->spare[rs->n] = rb_page_alloc(cb->cpu, cb->order,
						 GFP_KERNEL | __GFP_RETRY_MAYFAIL);
		if (!rs->spare[rs->n])
			return -ENOMEM;
	}
	return 0;
}

/* Free what rb_resize_install() did not take. */
static void rb_resize_free(struct rb_cpu *cb, struct rb_resize *rs)
{
	unsigned long i;

	for (i = 0; i < rs->n; i++)
		rb_page_free(rs->spare[i], cb->order);
	kfree(rs->spare);
	kfree(rs->ring);
}

static void rb_resize_install(struct rb_cpu *cb, unsigned long nr,
			      struct rb_resize *rs)
{
	struct rb_subbuf *old = cb->subbufs;
	unsigned long i, used, old_nr = cb->nr;

	if (!rs->ring)
		return;
	rb_hold_writers(cb);
	scoped_guard(raw_spinlock_irq, &cb->reader_lock)
		used = rb_rebuild(cb, rs->ring, nr, rs->spare);
	rb_release_writers(cb);
	/* Pages the new ring did not take over go back with the spares. */
	for (i = 0; i < old_nr; i++)
		rb_page_free(old[i].page, cb->order);
	kfree(old);
	rs->ring = NULL;
	for (i = 0; i < used; i++)
		rs->spare[i] = NULL;
}

/**
 * ring_buffer_resize - change the size of the per-CPU rings
 * @buffer: the buffer
 * @size: new size in bytes of each ring concerned (clamped to 2 sub-buffers)
 * @cpu_id: one CPU, or RING_BUFFER_ALL_CPUS
 *
 * The newest events that fit are kept; events that no longer fit count as
 * overrun.  Safe while writers and readers run.
 *
 * Context: Process context, may sleep.
 * Return: 0 (also for a CPU the buffer does not have), -EBUSY while an
 * iterator is open or the ring is mapped, -ENOMEM.
 */
int ring_buffer_resize(struct trace_buffer *buffer, unsigned long size,
		       int cpu_id)
{
	struct rb_resize *rs;
	unsigned long nr;
	int cpu, ret = 0;

	if (!buffer)
		return 0;
	if (cpu_id != RING_BUFFER_ALL_CPUS && !rb_cpu_get(buffer, cpu_id))
		return 0;
	guard(cpus_read_lock)();
	guard(mutex)(&buffer->mutex);
	nr = rb_nr_for(size, (PAGE_SIZE << buffer->order) - RB_HDR_BYTES);
	rb_swaps_off(buffer);
	if (rb_any_iter(buffer, cpu_id)) {
		ret = -EBUSY;
		goto out;
	}
	/* All or nothing: every CPU's memory first, as trace.c expects. */
	rs = kcalloc(nr_cpu_ids, sizeof(*rs), GFP_KERNEL);
	if (!rs) {
		ret = -ENOMEM;
		goto out;
	}
	for_each_cpu(cpu, buffer->cpumask) {
		if (cpu_id != RING_BUFFER_ALL_CPUS && cpu != cpu_id)
			continue;
		ret = rb_resize_alloc(per_cpu_ptr(buffer->slots, cpu)->cb, nr,
				      &rs[cpu]);
		if (ret)
			break;
	}
	for_each_cpu(cpu, buffer->cpumask) {
		struct rb_cpu *cb = per_cpu_ptr(buffer->slots, cpu)->cb;

		if (!ret)
			rb_resize_install(cb, nr, &rs[cpu]);
		rb_resize_free(cb, &rs[cpu]);
	}
	kfree(rs);
	if (!ret && cpu_id == RING_BUFFER_ALL_CPUS)
		buffer->nr_default = nr;
out:
	atomic_dec(&buffer->swap_off);
	return ret;
}
EXPORT_SYMBOL_GPL(ring_buffer_resize);

/**
 * ring_buffer_change_overwrite - switch overwrite mode on or off
 * @buffer: the buffer
 * @val: non-zero to overwrite the oldest events when full
 *
 * Takes effect for the next sub-buffer change of each writer.
 *
 * Context: Any context.
 */
void ring_buffer_change_overwrite(struct trace_buffer *buffer, int val)
{
	unsigned int flags = READ_ONCE(buffer->flags);

	if (val)
		flags |= RB_FL_OVERWRITE;
	else
		flags &= ~RB_FL_OVERWRITE;
	WRITE_ONCE(buffer->flags, flags);
}
EXPORT_SYMBOL_GPL(ring_buffer_change_overwrite);

static void rb_reset_one(struct rb_cpu *cb)
{
	raw_spin_lock_irq(&cb->reader_lock);
	rb_cpu_clear(cb, rb_pseq(cb, local64_read(&cb->write)) + 1);
	/* Held-off writers still count here: see Documentation section 9. */
	atomic_long_set(&cb->dropped, 0);
	rb_meta_update(cb, 0);
	raw_spin_unlock_irq(&cb->reader_lock);
}

/**
 * ring_buffer_reset_cpu - empty one CPU's ring and zero its counters
 * @buffer: the buffer
 * @cpu: the CPU
 *
 * Context: Process context, may sleep.
 */
void ring_buffer_reset_cpu(struct trace_buffer *buffer, int cpu)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);

	if (!cb)
		return;
	guard(mutex)(&buffer->mutex);
	rb_hold_writers(cb);
	rb_reset_one(cb);
	rb_release_writers(cb);
}
EXPORT_SYMBOL_GPL(ring_buffer_reset_cpu);

static void rb_reset_mask(struct trace_buffer *buffer,
			  const struct cpumask *mask)
{
	int cpu;

	guard(mutex)(&buffer->mutex);
	for_each_cpu_and(cpu, buffer->cpumask, mask)
		atomic_add(RB_HELD, &per_cpu_ptr(buffer->slots, cpu)->cb->record_disabled);
	synchronize_rcu();
	for_each_cpu_and(cpu, buffer->cpumask, mask) {
		struct rb_cpu *cb = per_cpu_ptr(buffer->slots, cpu)->cb;

		rb_reset_one(cb);
		rb_release_writers(cb);
	}
	/* CPUs of @mask not up yet: see rb_range_forget_cpus(). */
	if (buffer->range_start)
		rb_range_forget_cpus(buffer, mask);
}

/**
 * ring_buffer_reset_online_cpus - empty the rings of the online CPUs
 * @buffer: the buffer
 *
 * Context: Process context, may sleep.
 */
void ring_buffer_reset_online_cpus(struct trace_buffer *buffer)
{
	rb_reset_mask(buffer, cpu_online_mask);
}
EXPORT_SYMBOL_GPL(ring_buffer_reset_online_cpus);

/**
 * ring_buffer_reset - empty every ring of the buffer
 * @buffer: the buffer
 *
 * Context: Process context, may sleep.
 */
void ring_buffer_reset(struct trace_buffer *buffer)
{
	rb_reset_mask(buffer, cpu_possible_mask);
}
EXPORT_SYMBOL_GPL(ring_buffer_reset);

#ifdef CONFIG_RING_BUFFER_ALLOW_SWAP
/**
 * ring_buffer_swap_cpu - exchange one CPU's ring between two buffers
 * @buffer_a: one buffer
 * @buffer_b: the other
 * @cpu: the CPU
 *
 * Used for the max-latency snapshot.  A writer that is in the middle of an
 * event finishes it in the ring it started in; an open iterator goes on
 * with the ring it opened, wherever that ring now is.
 *
 * Context: Any context but NMI; does not sleep.
 * Return: 0, -EINVAL when the CPU is missing or the rings differ in size,
 * -EAGAIN when recording is disabled on either side, -EBUSY during a
 * resize or sub-buffer size change of either buffer or when a ring is
 * mapped.
 */
int ring_buffer_swap_cpu(struct trace_buffer *buffer_a,
			 struct trace_buffer *buffer_b, int cpu)
{
	struct rb_cpu *ca = rb_cpu_get(buffer_a, cpu);
	struct rb_cpu *cb = rb_cpu_get(buffer_b, cpu);
	int ret = -EBUSY;

	if (!ca || !cb)
		return -EINVAL;
	/* trace.c refuses snapshots of a mapped buffer before this. */
	if (WARN_ON_ONCE(READ_ONCE(ca->mapped) || READ_ONCE(cb->mapped) ||
			 ca->pm || cb->pm))
		return -EBUSY;
	if (ca->nr != cb->nr || ca->order != cb->order)
		return -EINVAL;
	if (atomic_read(&buffer_a->record_disabled) ||
	    atomic_read(&buffer_b->record_disabled) ||
	    atomic_read(&ca->record_disabled) ||
	    atomic_read(&cb->record_disabled))
		return -EAGAIN;
	/* Pairs with the synchronize_rcu() in rb_swaps_off(). */
	preempt_disable();
	if (!atomic_read(&buffer_a->swap_off) &&
	    !atomic_read(&buffer_b->swap_off)) {
		/* Pairs with rb_enter()'s READ_ONCE(slot->cb) (dependency). */
		smp_store_release(&per_cpu_ptr(buffer_a->slots, cpu)->cb, cb);
		/* The same for buffer_b's slot: a ring is seen initialised. */
		smp_store_release(&per_cpu_ptr(buffer_b->slots, cpu)->cb, ca);
		/* Another clock: no stamp before holds (racy: section 5). */
		if (buffer_a->clock != buffer_b->clock) {
			local64_set(&ca->floor, 0);
			local64_set(&cb->floor, 0);
		}
		ret = 0;
	}
	preempt_enable();
	return ret;
}
EXPORT_SYMBOL_GPL(ring_buffer_swap_cpu);
#endif

/**
 * ring_buffer_subbuf_order_get - sub-buffer size as a page order
 * @buffer: the buffer
 *
 * Context: Any context.
 * Return: the order, or -EINVAL without a buffer.
 */
int ring_buffer_subbuf_order_get(struct trace_buffer *buffer)
{
	return buffer ? READ_ONCE(buffer->order) : -EINVAL;
}
EXPORT_SYMBOL_GPL(ring_buffer_subbuf_order_get);

/**
 * ring_buffer_subbuf_size_get - sub-buffer size in bytes
 * @buffer: the buffer
 *
 * Context: Any context.
 * Return: the size, header included.
 */
int ring_buffer_subbuf_size_get(struct trace_buffer *buffer)
{
	return PAGE_SIZE << READ_ONCE(buffer->order);
}
EXPORT_SYMBOL_GPL(ring_buffer_subbuf_size_get);

/* The memory of one CPU's ring in a new order, before it is installed. */
struct rb_reorder {
	struct rb_subbuf	*ring;
	struct rb_data_page	*copy;
	unsigned long		nr;
};

static int rb_reorder_alloc(struct rb_reorder *ro, struct rb_cpu *cb,
			    unsigned int order)
{
	ro->nr = rb_nr_for(cb->nr * (unsigned long)cb->cap,
			   (PAGE_SIZE << order) - RB_HDR_BYTES);
	ro->ring = rb_alloc_ring(cb->cpu, ro->nr, order);
	ro->copy = rb_page_alloc(cb->cpu, order, GFP_KERNEL);
	return ro->ring && ro->copy ? 0 : -ENOMEM;
}

static void rb_reorder_free(struct rb_reorder *ro, unsigned int order)
{
	rb_free_ring(ro->ring, ro->nr, order);
	rb_page_free(ro->copy, order);
}

/* Give @cb the sub-buffers of @ro, empty, and free the old. */
static void rb_reorder_cpu(struct rb_cpu *cb, unsigned int order,
			   struct rb_reorder *ro)
{
	unsigned long committed, overrun, commit_overrun, read, unreported;
	unsigned int old_order = cb->order;

	rb_hold_writers(cb);
	raw_spin_lock_irq(&cb->reader_lock);
	committed = local_read(&cb->committed);
	overrun = local_read(&cb->overrun);
	/* Overwritten before the change, not reported yet. */
	unreported = overrun - cb->lost_seen;
	commit_overrun = local_read(&cb->commit_overrun);
	read = cb->read;
	/* The events not read yet are thrown away: they count as overrun. */
	if ((long)(committed - read - overrun) > 0)
		overrun = committed - read;
	rb_untake(cb, true, 0);
	swap(cb->subbufs, ro->ring);
	swap(cb->nr, ro->nr);
	swap(cb->rd.copy, ro->copy);
	rb_set_geometry(cb, order);
	rb_cpu_clear(cb, 0);
	rb_number(cb);
	local_set(&cb->committed, committed);
	local_set(&cb->overrun, overrun);
	local_set(&cb->commit_overrun, commit_overrun);
	cb->read = read;
	/* The loss not reported yet goes with the first event after it. */
	cb->lost_seen = overrun - unreported;
	cb->lost_mark = overrun;
	raw_spin_unlock_irq(&cb->reader_lock);
	rb_release_writers(cb);
	rb_reorder_free(ro, old_order);
}

/**
 * ring_buffer_subbuf_order_set - change the sub-buffer size
 * @buffer: the buffer
 * @order: new size as a page order; at most 1 MiB
 *
 * Every event in the buffer is thrown away (those not read yet count as
 * overrun); the other counters are kept.  The ring keeps (about) the same
 * size in bytes.
 *
 * Context: Process context, may sleep.
 * Return: 0, -EINVAL for a bad order, -EBUSY while an iterator is open
 * or a ring is mapped, -ENOMEM.
 */
int ring_buffer_subbuf_order_set(struct trace_buffer *buffer, int order)
{
	struct rb_reorder *ro;
	int cpu, ret = 0;

	if (!buffer || order < 0 || order > ilog2(RB_SUBBUF_MAX) ||
	    (PAGE_SIZE << order) > RB_SUBBUF_MAX ||
	    (PAGE_SIZE << order) <= RB_HDR_BYTES)
		return -EINVAL;
	if (order == READ_ONCE(buffer->order))
		return 0;
	guard(cpus_read_lock)();
	guard(mutex)(&buffer->mutex);
	rb_swaps_off(buffer);
	if (rb_any_iter(buffer, RING_BUFFER_ALL_CPUS)) {
		ret = -EBUSY;
		goto out;
	}
	/* All or nothing: every CPU's memory first. */
	ret = -ENOMEM;
	ro = kcalloc(nr_cpu_ids, sizeof(*ro), GFP_KERNEL);
	if (!ro)
		goto out;
	ret = 0;
	for_each_cpu(cpu, buffer->cpumask) {
		ret = rb_reorder_alloc(&ro[cpu],
				       per_cpu_ptr(buffer->slots, cpu)->cb, order);
		if (ret)
			break;
	}
	for_each_cpu(cpu, buffer->cpumask) {
		if (ret)
			rb_reorder_free(&ro[cpu], order);
		else
			rb_reorder_cpu(per_cpu_ptr(buffer->slots, cpu)->cb,
				       order, &ro[cpu]);
	}
	kfree(ro);
	if (ret)
		goto out;
	buffer->nr_default = rb_nr_for(buffer->nr_default *
			((PAGE_SIZE << buffer->order) - RB_HDR_BYTES),
			(PAGE_SIZE << order) - RB_HDR_BYTES);
	WRITE_ONCE(buffer->order, order);
	rb_update_max_len(buffer);
out:
	atomic_dec(&buffer->swap_off);
	return ret;
}
EXPORT_SYMBOL_GPL(ring_buffer_subbuf_order_set);

/* ---------------------------------------------------------------------
 * Recording on and off
 */

/**
 * ring_buffer_record_disable - stop writes to the buffer (nests)
 * @buffer: the buffer
 *
 * Writers already inside a reserve finish; use synchronize_rcu() to wait
 * for them.
 *
 * Context: Any context.
 */
void ring_buffer_record_disable(struct trace_buffer *buffer)
{
	atomic_add(1, &buffer->record_disabled);
}
EXPORT_SYMBOL_GPL(ring_buffer_record_disable);

/**
 * ring_buffer_record_enable - undo one ring_buffer_record_disable()
 * @buffer: the buffer
 *
 * Context: Any context.
 */
void ring_buffer_record_enable(struct trace_buffer *buffer)
{
	atomic_sub(1, &buffer->record_disabled);
}
EXPORT_SYMBOL_GPL(ring_buffer_record_enable);

/**
 * ring_buffer_record_off - switch recording off, whatever the nesting
 * @buffer: the buffer
 *
 * Context: Any context.
 */
void ring_buffer_record_off(struct trace_buffer *buffer)
{
	atomic_or(RB_RECORD_OFF, &buffer->record_disabled);
}
EXPORT_SYMBOL_GPL(ring_buffer_record_off);

/**
 * ring_buffer_record_on - undo ring_buffer_record_off()
 * @buffer: the buffer
 *
 * Recording resumes only if no record_disable() is outstanding.
 *
 * Context: Any context.
 */
void ring_buffer_record_on(struct trace_buffer *buffer)
{
	atomic_andnot(RB_RECORD_OFF, &buffer->record_disabled);
}
EXPORT_SYMBOL_GPL(ring_buffer_record_on);

/**
 * ring_buffer_record_is_on - would a write be recorded now?
 * @buffer: the buffer
 *
 * Context: Any context.
 * Return: true if neither record_off() nor record_disable() is in effect.
 */
bool ring_buffer_record_is_on(struct trace_buffer *buffer)
{
	return atomic_read(&buffer->record_disabled) == 0;
}
EXPORT_SYMBOL_GPL(ring_buffer_record_is_on);

/**
 * ring_buffer_record_is_set_on - is recording switched on?
 * @buffer: the buffer
 *
 * Unlike ring_buffer_record_is_on() this ignores record_disable().
 *
 * Context: Any context.
 * Return: true unless ring_buffer_record_off() is in effect.
 */
bool ring_buffer_record_is_set_on(struct trace_buffer *buffer)
{
	return !(atomic_read(&buffer->record_disabled) & RB_RECORD_OFF);
}
EXPORT_SYMBOL_GPL(ring_buffer_record_is_set_on);

/**
 * ring_buffer_record_disable_cpu - stop writes on one CPU (nests)
 * @buffer: the buffer
 * @cpu: the CPU
 *
 * Context: Any context.
 */
void ring_buffer_record_disable_cpu(struct trace_buffer *buffer, int cpu)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);

	if (cb)
		atomic_inc(&cb->record_disabled);
}
EXPORT_SYMBOL_GPL(ring_buffer_record_disable_cpu);

/**
 * ring_buffer_record_enable_cpu - undo ring_buffer_record_disable_cpu()
 * @buffer: the buffer
 * @cpu: the CPU
 *
 * Context: Any context.
 */
void ring_buffer_record_enable_cpu(struct trace_buffer *buffer, int cpu)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);

	if (cb)
		atomic_dec(&cb->record_disabled);
}
EXPORT_SYMBOL_GPL(ring_buffer_record_enable_cpu);

/* ---------------------------------------------------------------------
 * Counters and state
 */

/**
 * ring_buffer_empty_cpu - is there nothing to read on a CPU?
 * @buffer: the buffer
 * @cpu: the CPU
 *
 * Context: Any context; from NMI with the reader lock busy it reads without
 * it and switches the CPU's ring off (see ring_buffer_consume()).
 * Return: true if a consuming read would find no event.
 */
bool ring_buffer_empty_cpu(struct trace_buffer *buffer, int cpu)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);
	unsigned long flags;
	bool empty, locked;
	u64 ts;

	if (!cb || rb_nmi_no_read())
		return true;
	locked = rb_lock(cb, &flags);
	/*
	 * A query: no sub-buffer leaves the ring for it.  The bytes left to
	 * read may be the padding of discarded events only.
	 */
	if (unlikely(!locked))
		empty = !rb_dump_look(buffer, cb, &ts);
	else
		empty = !rb_rd_pending(cb) || rb_entries(cb) <= 0;
	rb_unlock(cb, flags, locked);
	return empty;
}
EXPORT_SYMBOL_GPL(ring_buffer_empty_cpu);

/**
 * ring_buffer_empty - is there nothing to read on any CPU?
 * @buffer: the buffer
 *
 * Context: Any context.
 * Return: true if every CPU's ring is empty.
 */
bool ring_buffer_empty(struct trace_buffer *buffer)
{
	int cpu;

	if (!buffer)
		return true;
	for_each_cpu(cpu, buffer->cpumask) {
		if (!ring_buffer_empty_cpu(buffer, cpu))
			return false;
	}
	return true;
}
EXPORT_SYMBOL_GPL(ring_buffer_empty);

/**
 * ring_buffer_entries_cpu - events in a CPU's ring not yet read
 * @buffer: the buffer
 * @cpu: the CPU
 *
 * Context: Any context.
 * Return: committed - read - overrun, or 0 for a bad CPU.
 */
unsigned long ring_buffer_entries_cpu(struct trace_buffer *buffer, int cpu)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);
	long n;

	if (!cb)
		return 0;
	n = rb_entries(cb);
	return n > 0 ? n : 0;
}
EXPORT_SYMBOL_GPL(ring_buffer_entries_cpu);

/**
 * ring_buffer_overrun_cpu - events overwritten before they were read
 * @buffer: the buffer
 * @cpu: the CPU
 *
 * Context: Any context.
 * Return: the count, or 0 for a bad CPU.
 */
unsigned long ring_buffer_overrun_cpu(struct trace_buffer *buffer, int cpu)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);

	return cb ? local_read(&cb->overrun) : 0;
}
EXPORT_SYMBOL_GPL(ring_buffer_overrun_cpu);

/**
 * ring_buffer_commit_overrun_cpu - events refused: next sub-buffer still open
 * @buffer: the buffer
 * @cpu: the CPU
 *
 * Context: Any context.
 * Return: the count, or 0 for a bad CPU.
 */
unsigned long ring_buffer_commit_overrun_cpu(struct trace_buffer *buffer,
					     int cpu)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);

	return cb ? local_read(&cb->commit_overrun) : 0;
}
EXPORT_SYMBOL_GPL(ring_buffer_commit_overrun_cpu);

/**
 * ring_buffer_dropped_events_cpu - events refused: ring full, writers held
 *	off, or an NMI that could not write safely
 * @buffer: the buffer
 * @cpu: the CPU
 *
 * Context: Any context.
 * Return: the count, or 0 for a bad CPU.
 */
unsigned long ring_buffer_dropped_events_cpu(struct trace_buffer *buffer,
					     int cpu)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);

	return cb ? atomic_long_read(&cb->dropped) : 0;
}
EXPORT_SYMBOL_GPL(ring_buffer_dropped_events_cpu);

/**
 * ring_buffer_read_events_cpu - events consumed by readers
 * @buffer: the buffer
 * @cpu: the CPU
 *
 * Context: Any context.
 * Return: the count, or 0 for a bad CPU.
 */
unsigned long ring_buffer_read_events_cpu(struct trace_buffer *buffer,
					  int cpu)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);

	return cb ? READ_ONCE(cb->read) : 0;
}
EXPORT_SYMBOL_GPL(ring_buffer_read_events_cpu);

/**
 * ring_buffer_entries - events not yet read, all CPUs
 * @buffer: the buffer
 *
 * Context: Any context.
 * Return: the sum of ring_buffer_entries_cpu().
 */
unsigned long ring_buffer_entries(struct trace_buffer *buffer)
{
	unsigned long n = 0;
	int cpu;

	for_each_cpu(cpu, buffer->cpumask)
		n += ring_buffer_entries_cpu(buffer, cpu);
	return n;
}
EXPORT_SYMBOL_GPL(ring_buffer_entries);

/**
 * ring_buffer_overruns - events overwritten, all CPUs
 * @buffer: the buffer
 *
 * Context: Any context.
 * Return: the sum of ring_buffer_overrun_cpu().
 */
unsigned long ring_buffer_overruns(struct trace_buffer *buffer)
{
	unsigned long n = 0;
	int cpu;

	for_each_cpu(cpu, buffer->cpumask)
		n += ring_buffer_overrun_cpu(buffer, cpu);
	return n;
}
EXPORT_SYMBOL_GPL(ring_buffer_overruns);

/**
 * ring_buffer_bytes_cpu - bytes of events in a CPU's ring not yet read
 * @buffer: the buffer
 * @cpu: the CPU
 *
 * Context: Any context but NMI.
 * Return: the bytes (time and padding events included), 0 for a bad CPU.
 */
unsigned long ring_buffer_bytes_cpu(struct trace_buffer *buffer, int cpu)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);
	unsigned long flags, bytes = 0;
	u64 commit, s, last, head;

	if (!cb)
		return 0;
	raw_spin_lock_irqsave(&cb->reader_lock, flags);
	rb_rd_sync(cb);
	if (cb->rd.own) {
		rb_own_len(cb, &cb->rd);
		bytes = cb->rd.len;
	}
	commit = local64_read(&cb->commit);
	last = rb_pseq(cb, commit);
	s = cb->rd.seq + cb->rd.own;
	head = atomic64_read(&cb->head);
	/* Pushed out while the reader held its page: not in the ring. */
	if (rb_seq_before(s, head))
		s = head;
	for (; rb_seq_before(s, last); s++)
		bytes += READ_ONCE(rb_slot_of(cb, s)->end);
	if (!rb_seq_before(last, s))
		bytes += rb_poff(cb, commit);
	bytes -= min_t(unsigned long, bytes, cb->rd.off);
	raw_spin_unlock_irqrestore(&cb->reader_lock, flags);
	return bytes;
}
EXPORT_SYMBOL_GPL(ring_buffer_bytes_cpu);

/**
 * ring_buffer_oldest_event_ts - time stamp of the oldest unread sub-buffer
 * @buffer: the buffer
 * @cpu: the CPU
 *
 * Context: Any context but NMI.
 * Return: the time stamp in the header of the oldest sub-buffer still in
 * the ring (the reader's while the writer is on it), or 0 for a bad CPU.
 */
u64 ring_buffer_oldest_event_ts(struct trace_buffer *buffer, int cpu)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);
	struct rb_subbuf *sb;
	unsigned long flags;
	u64 ts = 0, s, head, commit;
	int tries;

	if (!cb)
		return 0;
	raw_spin_lock_irqsave(&cb->reader_lock, flags);
	for (tries = 0; tries < RB_READ_TRIES; tries++) {
		rb_rd_sync(cb);
		s = cb->rd.seq;
		commit = local64_read(&cb->commit);
		/* Pairs with the smp_wmb() in rb_end_commit(): stamps first. */
		smp_rmb();
		/* As 6.12's reader page: out once the next one has data. */
		if (cb->rd.own) {
			if (!rb_seq_before(s + 1, rb_pseq(cb, commit) +
					   !!rb_poff(cb, commit))) {
				ts = cb->rd.copy->time_stamp;
				break;
			}
			s++;
		}
		head = atomic64_read(&cb->head);
		if (rb_seq_before(s, head))
			s = head;
		sb = rb_slot_of(cb, s);
		/* Pairs with the cmpxchg in rb_mark(): the page is the tag's. */
		if (atomic_long_read_acquire(&sb->tag) != rb_tag(s))
			continue;
		ts = READ_ONCE(READ_ONCE(sb->page)->time_stamp);
		/* Pairs with the smp_wmb() in rb_mark(): not a later lap's. */
		smp_rmb();
		if (atomic_long_read(&sb->tag) == rb_tag(s))
			break;
	}
	raw_spin_unlock_irqrestore(&cb->reader_lock, flags);
	return ts;
}
EXPORT_SYMBOL_GPL(ring_buffer_oldest_event_ts);

/**
 * ring_buffer_nr_dirty_pages - sub-buffers filled, not yet read
 * @buffer: the buffer
 * @cpu: the CPU
 *
 * Context: Any context.
 * Return: the count, or 0 for a bad CPU.
 */
size_t ring_buffer_nr_dirty_pages(struct trace_buffer *buffer, int cpu)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);
	long n;

	if (!cb)
		return 0;
	n = rb_pseq(cb, local64_read(&cb->commit)) -
	    atomic64_read(&cb->head);
	return n > 0 ? n : 0;
}
EXPORT_SYMBOL_GPL(ring_buffer_nr_dirty_pages);

/**
 * ring_buffer_size - size of a CPU's ring
 * @buffer: the buffer
 * @cpu: the CPU
 *
 * Context: Any context.
 * Return: bytes of event data the ring holds, or 0 for a bad CPU.
 */
unsigned long ring_buffer_size(struct trace_buffer *buffer, int cpu)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);

	return cb ? cb->nr * cb->cap : 0;
}
EXPORT_SYMBOL_GPL(ring_buffer_size);

/**
 * ring_buffer_max_event_size - largest payload a write can carry
 * @buffer: the buffer
 *
 * Context: Any context.
 * Return: the size in bytes.
 */
unsigned long ring_buffer_max_event_size(struct trace_buffer *buffer)
{
	return READ_ONCE(buffer->max_len);
}
EXPORT_SYMBOL_GPL(ring_buffer_max_event_size);

/* ---------------------------------------------------------------------
 * Clock
 */

/**
 * ring_buffer_time_stamp - read the buffer's clock
 * @buffer: the buffer
 *
 * Context: Any context.
 * Return: the current time of the buffer's clock.
 */
u64 ring_buffer_time_stamp(struct trace_buffer *buffer)
{
	u64 t;

	preempt_disable_notrace();
	t = buffer->clock();
	preempt_enable_notrace();
	return t;
}
EXPORT_SYMBOL_GPL(ring_buffer_time_stamp);

/**
 * ring_buffer_normalize_time_stamp - convert a stamp to nanoseconds: a no-op
 * @buffer: the buffer
 * @cpu: the CPU it came from
 * @ts: the stamp, converted in place
 *
 * Context: Any context.
 */
void ring_buffer_normalize_time_stamp(struct trace_buffer *buffer,
				      int cpu, u64 *ts)
{
}
EXPORT_SYMBOL_GPL(ring_buffer_normalize_time_stamp);

/**
 * ring_buffer_set_clock - choose the clock for time stamps
 * @buffer: the buffer
 * @clock: the clock
 *
 * Context: Any context; callers reset the buffer afterwards.
 */
void ring_buffer_set_clock(struct trace_buffer *buffer, u64 (*clock)(void))
{
	WRITE_ONCE(buffer->clock, clock);
}
EXPORT_SYMBOL_GPL(ring_buffer_set_clock);

/**
 * ring_buffer_set_time_stamp_abs - give every event an absolute stamp
 * @buffer: the buffer
 * @abs: true for absolute stamps
 *
 * Context: Process context (callers reset the buffer around it).
 */
void ring_buffer_set_time_stamp_abs(struct trace_buffer *buffer, bool abs)
{
	WRITE_ONCE(buffer->abs_ts, abs);
	rb_update_max_len(buffer);
}
EXPORT_SYMBOL_GPL(ring_buffer_set_time_stamp_abs);

/**
 * ring_buffer_time_stamp_abs - are stamps absolute?
 * @buffer: the buffer
 *
 * Context: Any context.
 * Return: the mode set by ring_buffer_set_time_stamp_abs().
 */
bool ring_buffer_time_stamp_abs(struct trace_buffer *buffer)
{
	return READ_ONCE(buffer->abs_ts);
}
EXPORT_SYMBOL_GPL(ring_buffer_time_stamp_abs);

/* ---------------------------------------------------------------------
 * Waiting for data
 */

static struct rb_waiter *rb_waiter_of(struct trace_buffer *buffer, int cpu)
{
	if (cpu == RING_BUFFER_ALL_CPUS)
		return &buffer->waiter;
	if (!rb_cpu_get(buffer, cpu))
		return NULL;
	return &per_cpu_ptr(buffer->slots, cpu)->waiter;
}

/* The watermark is the lowest asked for since the last kick. */
static void rb_arm(struct trace_buffer *buffer, struct rb_waiter *wt, int full)
{
	unsigned long flags;
	int cpu;

	spin_lock_irqsave(&wt->wq.lock, flags);
	if (!READ_ONCE(*wt->armed) || full < wt->full)
		WRITE_ONCE(wt->full, full);
	WRITE_ONCE(*wt->armed, 1);
	if (wt == &buffer->waiter) {
		/* Pairs with the smp_mb() in rb_wake_slow(). */
		smp_mb();
		for_each_possible_cpu(cpu)
			WRITE_ONCE(per_cpu_ptr(buffer->slots, cpu)->wake.all, 1);
	}
	spin_unlock_irqrestore(&wt->wq.lock, flags);
	/* Arm before testing for data; see rb_wakeups(). */
	smp_mb();
}

static bool rb_wait_ready(struct trace_buffer *buffer, int cpu, int full)
{
	if (cpu == RING_BUFFER_ALL_CPUS)
		return !ring_buffer_empty(buffer);
	if (ring_buffer_empty_cpu(buffer, cpu))
		return false;
	return rb_full_hit(rb_cpu_get(buffer, cpu), full);
}

/**
 * ring_buffer_wait - wait for data in the buffer
 * @buffer: the buffer
 * @cpu: a CPU, or RING_BUFFER_ALL_CPUS
 * @full: percentage of the ring that must be filled first (one CPU only)
 * @cond: extra condition that ends the wait; NULL ends it at the first
 *	wake-up
 * @data: argument of @cond
 *
 * Context: Process context, sleeps.
 * Return: 0, -EINTR on a signal, -ENODEV for a bad CPU.
 */
int ring_buffer_wait(struct trace_buffer *buffer, int cpu, int full,
		     ring_buffer_cond_fn cond, void *data)
{
	struct rb_waiter *wt = rb_waiter_of(buffer, cpu);
	bool woken = false;
	DEFINE_WAIT(w);
	int ret = 0;

	if (!wt)
		return -ENODEV;
	if (cpu == RING_BUFFER_ALL_CPUS)
		full = 0;
	for (;;) {
		prepare_to_wait(&wt->wq, &w, TASK_INTERRUPTIBLE);
		rb_arm(buffer, wt, full);
		/* Without @cond the first wake-up ends the wait. */
		if (rb_wait_ready(buffer, cpu, full) ||
		    (cond ? cond(data) : woken))
			break;
		if (signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		schedule();
		woken = true;
	}
	finish_wait(&wt->wq, &w);
	return ret;
}
EXPORT_SYMBOL_GPL(ring_buffer_wait);

/**
 * ring_buffer_poll_wait - poll support for readers of the buffer
 * @buffer: the buffer
 * @cpu: a CPU, or RING_BUFFER_ALL_CPUS
 * @filp: the file being polled
 * @poll_table: the poll table
 * @full: percentage of the ring that must be filled (one CPU only)
 *
 * Context: Process context.
 * Return: EPOLLIN | EPOLLRDNORM with data, else 0; EPOLLERR for a bad CPU.
 */
__poll_t ring_buffer_poll_wait(struct trace_buffer *buffer, int cpu,
			       struct file *filp, poll_table *poll_table,
			       int full)
{
	struct rb_waiter *wt = rb_waiter_of(buffer, cpu);

	if (!wt)
		return EPOLLERR;
	if (cpu == RING_BUFFER_ALL_CPUS)
		full = 0;
	poll_wait(filp, &wt->wq, poll_table);
	rb_arm(buffer, wt, full);
	if (rb_wait_ready(buffer, cpu, full))
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}
EXPORT_SYMBOL_GPL(ring_buffer_poll_wait);

/**
 * ring_buffer_wake_waiters - wake every waiter, data or not
 * @buffer: the buffer
 * @cpu: a CPU, or RING_BUFFER_ALL_CPUS for all of them
 *
 * Context: Any context.
 */
void ring_buffer_wake_waiters(struct trace_buffer *buffer, int cpu)
{
	int c;

	if (!buffer)
		return;
	if (cpu != RING_BUFFER_ALL_CPUS) {
		struct rb_waiter *wt = rb_waiter_of(buffer, cpu);

		if (wt)
			rb_kick(wt);
		return;
	}
	rb_kick(&buffer->waiter);
	for_each_cpu(c, buffer->cpumask)
		rb_kick(&per_cpu_ptr(buffer->slots, c)->waiter);
}
EXPORT_SYMBOL_GPL(ring_buffer_wake_waiters);

/* ---------------------------------------------------------------------
 * Format descriptions for user space (events/header_*)
 */

/**
 * ring_buffer_print_entry_header - describe the event header
 * @s: where to print
 *
 * Context: Process context.
 * Return: non-zero if everything fit into @s.
 */
int ring_buffer_print_entry_header(struct trace_seq *s)
{
	trace_seq_printf(s, "# compressed entry header\n"
			 "\ttype_len    :    5 bits\n"
			 "\ttime_delta  :   27 bits\n"
			 "\tarray       :   32 bits\n\n"
			 "\tpadding     : type == %d\n"
			 "\ttime_extend : type == %d\n"
			 "\ttime_stamp : type == %d\n"
			 "\tdata max type_len  == %d\n",
			 RINGBUF_TYPE_PADDING, RINGBUF_TYPE_TIME_EXTEND,
			 RINGBUF_TYPE_TIME_STAMP, RINGBUF_TYPE_DATA_TYPE_LEN_MAX);
	return !trace_seq_has_overflowed(s);
}

/**
 * ring_buffer_print_page_header - describe the sub-buffer header
 * @buffer: the buffer (its sub-buffer size is part of the description)
 * @s: where to print
 *
 * Context: Process context.
 * Return: non-zero if everything fit into @s.
 */
int ring_buffer_print_page_header(struct trace_buffer *buffer,
				  struct trace_seq *s)
{
	unsigned int commit_off = offsetof(struct rb_data_page, commit);
	unsigned int data_size = (PAGE_SIZE << buffer->order) - RB_HDR_BYTES;
	const char *fmt = "\tfield: %s;\toffset:%u;\tsize:%u;\tsigned:%u;\n";

	trace_seq_printf(s, fmt, "u64 timestamp", 0U,
			 (unsigned int)sizeof(u64), 0U);
	trace_seq_printf(s, fmt, "local_t commit", commit_off,
			 (unsigned int)sizeof(local_t), 1U);
	trace_seq_printf(s, fmt, "int overwrite", commit_off, 1U, 1U);
	trace_seq_printf(s, fmt, "char data", (unsigned int)RB_HDR_BYTES,
			 data_size, (unsigned int)is_signed_type(char));
	return !trace_seq_has_overflowed(s);
}

/* ---------------------------------------------------------------------
 * User-space mappings of a CPU's ring: what the lockless protocol has to
 * do for them (the page numbering, the live page's publication, GET_READER's
 * take).  The mapping itself, the meta page and the API are in
 * ring_buffer_map.c.  See Documentation section 8a.
 */

struct rb_map_sync {
	struct rb_cpu		*cb;
	bool			done;
};

/*
 * On the ring's CPU with interrupts off (off it only with the ring's
 * writers held off), after every writer sees cb->mapped: from now on
 * each publication stores the live page's commit word.  With no writer
 * inside, take the guard (writers of NMIs nest in it), number the pages,
 * and publish as an outermost writer would, so that the live page shows
 * what is already there.  With a writer inside, which may have looked at
 * ptail already, the caller tries again.
 */
static void rb_map_publish(void *arg)
{
	struct rb_map_sync *ms = arg;
	struct rb_cpu *cb = ms->cb;

	/* Writers that see cb->mapped store NULL too (rb_page_commits()). */
	WRITE_ONCE(cb->ptail, NULL);
	if (READ_ONCE(cb->top) != RB_TOP_NONE)
		return;
	WRITE_ONCE(cb->top, RB_TOP_BUSY);
	/* The guard is ours before we number and publish. */
	barrier();
	scoped_guard(raw_spinlock, &cb->reader_lock)
		rb_number(cb);
	rb_end_commit(cb, RB_TOP_NONE);
	ms->done = true;
}

/*
 * Number the pages for a first mapping and publish the live page, on the
 * ring's CPU.  A writer leaves soon.  If none ever did, the ids given at
 * allocation stay (also a valid numbering) and the next write stores the
 * live commit word.
 */
void rb_map_number(struct rb_cpu *cb)
{
	struct rb_map_sync ms = { .cb = cb };
	int tries;

	for (tries = 0; !ms.done && tries < RB_READ_TRIES; tries++) {
		if (smp_call_function_single(cb->cpu, rb_map_publish, &ms, 1)) {
			/*
			 * The CPU is offline, but may come up meanwhile: keep
			 * its writers out while we publish for them here.
			 */
			rb_hold_writers(cb);
			local_irq_disable();
			rb_map_publish(&ms);
			local_irq_enable();
			rb_release_writers(cb);
		}
		cond_resched();
	}
}

/* See ring_buffer_map_get_reader().  Reader lock held. */
unsigned long rb_map_next(struct trace_buffer *buffer, struct rb_cpu *cb)
{
	struct rb_cursor *rd = &cb->rd;
	struct ring_buffer_event *ev;
	unsigned long lost, commit;
	bool taken;
	u64 ts;
	int tries;

	if (rd->own) {
		rb_own_len(cb, rd);
		if (rd->off >= rd->len && !rd->done)
			return 0;
		if (rd->off >= rd->len)
			rb_rd_move(cb, rd->seq + 1);
	}
	taken = !rd->own;
	for (tries = 0; !rd->own && tries < RB_READ_TRIES; tries++) {
		rb_rd_sync(cb);
		if (!rb_has_data(cb, rd->seq))
			return 0;
		rb_take(cb);
	}
	if (!rd->own)
		return 0;
	/* As 6.12: the rest of the page goes to user space, read. */
	while ((ev = rb_cur_event(buffer, rd, &ts)))
		rb_rd_consume(cb, ts);
	lost = rb_take_lost(cb, true);
	/* Flags only in a page just taken and left by the writer. */
	if (!taken || !lost || !rd->done)
		return lost;
	commit = local_read(&rd->copy->commit) | RB_MISSED_EVENTS;
	if (rd->len + sizeof(long) <= cb->cap) {
		memcpy(&rd->copy->data[rd->len], &lost, sizeof(long));
		commit |= RB_MISSED_STORED;
	}
	local_set(&rd->copy->commit, commit);
	return 0;
}
