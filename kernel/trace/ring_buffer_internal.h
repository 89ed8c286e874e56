/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to the ring buffer: the types and small helpers that
 * ring_buffer.c (the rings, their writers and readers, the API),
 * ring_buffer_range.c (persistent buffers) and ring_buffer_map.c (user-space
 * mappings) share, and the functions each file offers the others.
 * Nothing here is for the rest of the kernel.
 */
#ifndef _TRACE_RING_BUFFER_INTERNAL_H
#define _TRACE_RING_BUFFER_INTERNAL_H

#include <linux/ring_buffer.h>
#include <linux/irq_work.h>
#include <linux/notifier.h>
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/atomic.h>
#include <linux/math64.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <asm/local.h>
#include <asm/local64.h>

/* ---------------------------------------------------------------------
 * Event format and sub-buffer size limits
 */

/* Bytes of the event header word. */
#define RB_EV_HDR		4U
/* Bytes of a TIME_EXTEND or TIME_STAMP event. */
#define RB_META_LEN		8U
/*
 * Payloads are padded to RB_ALIGN bytes.  Where 64-bit loads must be
 * aligned, every event is a multiple of 8 bytes with the length-word
 * header, so that payloads are 8-byte aligned in the format readers know;
 * elsewhere payloads whose length fits into type_len get the short header.
 */
#ifdef CONFIG_HAVE_64BIT_ALIGNED_ACCESS
#define RB_ALIGN		8U
#define RB_SMALL_MAX		0U
#else
#define RB_ALIGN		4U
#define RB_SMALL_MAX		(RINGBUF_TYPE_DATA_TYPE_LEN_MAX * 4U)
#endif
#define RB_DELTA_BITS		27
#define RB_DELTA_MAX		((1ULL << RB_DELTA_BITS) - 1)
/* An absolute stamp keeps 59 bits; readers take the rest from the past. */
#define RB_ABS_MASK		((1ULL << 59) - 1)
/* Sub-buffers may not exceed 1 MiB: readers mask commit with 0xfffff. */
#define RB_SUBBUF_MAX		BIT(20)
/* Bytes of data in a commit word (the rest are the lost-events flags). */
#define RB_COMMIT_MASK		(RB_SUBBUF_MAX - 1)

static inline u64 rb_meta_val(struct ring_buffer_event *ev)
{
	return ((u64)ev->array[0] << RB_DELTA_BITS) | ev->time_delta;
}

/* Bytes an event takes in the buffer, or 0 where none can start. */
/*
 * The stamp of a TIME_STAMP event that follows stamp @prev.  The event keeps
 * 59 bits; the rest are @prev's, carried once when the low bits went round
 * (as 6.12's rb_fix_abs_ts() does).  A stamp less than 2^58 behind @prev is
 * one that went back (a damaged range), not one that went round.
 */
static inline u64 rb_abs_stamp(struct ring_buffer_event *ev, u64 prev)
{
	u64 abs = rb_meta_val(ev) | (prev & ~RB_ABS_MASK);

	if (abs < prev && prev - abs > RB_ABS_MASK / 2)
		abs += RB_ABS_MASK + 1;
	return abs;
}

static inline unsigned int rb_ev_size(struct ring_buffer_event *ev)
{
	switch (ev->type_len) {
	case RINGBUF_TYPE_PADDING:
		return ev->time_delta ? ev->array[0] + RB_EV_HDR : 0;
	case RINGBUF_TYPE_TIME_EXTEND:
	case RINGBUF_TYPE_TIME_STAMP:
		return RB_META_LEN;
	case 0:
		return ev->array[0] + RB_EV_HDR;
	default:
		return ev->type_len * 4 + RB_EV_HDR;
	}
}

/* ---------------------------------------------------------------------
 * Sub-buffers, rings and buffers
 */

/* Sub-buffer layout (ABI, described by ring_buffer_print_page_header()). */
struct rb_data_page {
	u64			time_stamp;
	local_t			commit;
	unsigned char		data[];
};

#define RB_HDR_BYTES		offsetof(struct rb_data_page, data)

/*
 * One slot of a per-CPU ring.  tag is the sub-buffer number held, shifted
 * left by one, with RB_TAKEN set once the consuming reader owns the page:
 * the writer then puts @next in its place when it starts the next lap.
 */
struct rb_subbuf {
	struct rb_data_page	*page;
	struct rb_data_page	*next;
	atomic_long_t		tag;
	local_t			cum;		/* events ever committed here */
	unsigned long		retired;	/* cum when this lap began */
	unsigned int		end;		/* data bytes, once left */
	unsigned int		id;		/* page's place in a user mapping */
	unsigned int		next_id;
	u64			gap;		/* see rb_range_salvage() */
};

#define RB_TAKEN		1UL

/* nest_start levels per CPU, shared by its contexts. */
#define RB_NEST_LEVELS		8
/* Open ring_buffer_lock_reserve() calls per CPU and buffer. */
#define RB_WRITERS_MAX		16

/*
 * Where a reader or an iterator stands.  @copy is the page it decodes:
 * for the consuming reader, once @own, the ring's own sub-buffer, read in
 * place; for an iterator, a private copy (@own: of the reader's page).
 */
struct rb_cursor {
	u64			seq;
	unsigned int		off;		/* next byte to decode */
	unsigned int		len;		/* bytes readable so far */
	unsigned int		size;		/* of the event at off, once found */
	bool			done;		/* the writer has left seq */
	bool			own;
	u64			ts;		/* stamp of the last event passed */
	struct rb_data_page	*copy;
};

/* The ring of one CPU. */
struct rb_cpu {
	/* Written only from the owning CPU (and its nested contexts). */
	local64_t		write;
	local64_t		commit;
	unsigned long		top;		/* guard key, see RB_KEY_BASE */
	u64			stamp;
	u64			stamp_pos;
	local64_t		floor;		/* see rb_reserve_slow() */
	struct rb_subbuf	*tail;
	struct rb_subbuf	*ptail;		/* see rb_set_page_commit() */
	local_t			committed;
	local_t			overrun;
	local_t			pushing;	/* see rb_push() */
	local64_t		pushed;		/* head after the last push */
	local_t			commit_overrun;
	/* Also set by control paths while held-off writers count. */
	atomic_long_t		dropped;

	/* Shared between the writer and the readers. */
	atomic64_t		head ____cacheline_aligned_in_smp;
	atomic_t		record_disabled;	/* + RB_HELD per control path */
	atomic_t		iters;
	unsigned long		resets;		/* rb_cpu_clear() calls */

	/* Readers, serialised by reader_lock. */
	raw_spinlock_t		reader_lock;
	struct rb_cursor	rd;
	unsigned int		rd_id;		/* of rd.copy in a user mapping */
	struct rb_subbuf	*rd_sb;		/* slot rd.seq was taken from */
	unsigned long		rd_base;	/* slot's cum when rd.seq began */
	long			rd_total;	/* see rb_own_total() */
	unsigned long		read;
	unsigned long		lost_seen;	/* overrun already reported */
	unsigned long		lost_mark;	/* overrun when rd.seq began */
	bool			rd_gap;		/* and a salvage loss, see gap */
	u64			rd_skip;	/* rd.seq after the last pushes */
	unsigned long		dump_seen;	/* overrun the dump reported */
	unsigned long		dump_mark;	/* overrun when dump.seq began */
	struct rb_cursor	dump;		/* see rb_dump_look() */
	/* User mappings, under buffer->mutex. */
	struct trace_buffer_meta *meta;
	unsigned int		mapped;
	/* A persistent buffer's part of the range, see rb_range_attach(). */
	struct rb_range_cpu	*pm;
	unsigned long		pbase;		/* its first page */

	/* Geometry: changed only while writers are held off. */
	struct rb_subbuf	*subbufs;
	unsigned long		nr;
	unsigned int		order;
	unsigned int		shift;
	unsigned int		cap;
	u64			mask;		/* offset bits of a position */
	int			cpu;
};

/* What a writer needs between reserve and commit, one per nesting level. */
struct rb_wctx {
	struct rb_cpu		*cb;
	struct rb_subbuf	*sb;
	u64			start;
	u64			end;
	u64			ts;
	unsigned long		prev;		/* cb->top to restore */
};

struct rb_waiter {
	struct irq_work		work;
	wait_queue_head_t	wq;
	u8			*armed;		/* where rb_arm() says so */
	int			full;
};

/* Per buffer and CPU; unlike struct rb_cpu it never moves to another buffer. */
struct rb_slot {
	struct rb_cpu		*cb;
	/* What a commit on this CPU looks at, in one load: see rb_wakeups(). */
	union {
		struct {
			u8	cpu;	/* armed flag of this slot's waiter */
			u8	all;	/* the buffer's waiter may be armed */
		};
		u16		any;
	} wake;
	unsigned int		nest;
	unsigned int		level;
	/* What ring_buffer_nest_start() changed, to undo at nest_end. */
	struct rb_cpu		*nest_cb[RB_NEST_LEVELS];
	unsigned long		nest_top[RB_NEST_LEVELS];
	struct rb_wctx		w[RB_WRITERS_MAX];
	struct rb_waiter	waiter;
};

struct trace_buffer {
	unsigned int		flags;
	atomic_t		record_disabled;
	bool			abs_ts;
	unsigned int		order;
	unsigned long		max_len;
	unsigned long		nr_default;
	u64			(*clock)(void);
	struct rb_slot __percpu	*slots;
	cpumask_var_t		cpumask;
	struct mutex		mutex;		/* resize, reset, order, hotplug */
	atomic_t		swap_off;	/* a resize or order change runs */
	struct lock_class_key	*key;
	struct hlist_node	node;
	struct rb_waiter	waiter;
	u8			all_armed;	/* armed flag of waiter */
	/* Persistent buffers: the caller's range, see rb_range_setup(). */
	unsigned long		range_start;
	unsigned long		range_end;
	unsigned long		range_part;	/* bytes per CPU */
	unsigned long		range_pages;	/* pages per CPU */
	bool			range_valid;	/* header of a previous boot */
	bool			range_kept;	/* some CPU kept its events */
	bool			range_boot;	/* the deltas below are chosen */
	long			text_delta;
	long			data_delta;
	struct notifier_block	flush_nb;
};

static inline unsigned long rb_tag(u64 seq)
{
	return (unsigned long)seq << 1;
}

static inline u64 rb_mkpos(struct rb_cpu *cb, u64 seq, unsigned int off)
{
	return ((u64)seq << cb->shift) | off;
}

static inline u64 rb_pseq(struct rb_cpu *cb, u64 pos)
{
	return pos >> cb->shift;
}

/* seq is a u64 on every kernel, see Documentation section 4. */
static inline u32 rb_mod(u64 seq, unsigned long nr)
{
	u32 rem;

	div_u64_rem(seq, nr, &rem);
	return rem;
}

static inline struct rb_subbuf *rb_slot_of(struct rb_cpu *cb, u64 seq)
{
	return &cb->subbufs[rb_mod(seq, cb->nr)];
}

static inline struct rb_cpu *rb_cpu_get(struct trace_buffer *buffer,
					int cpu)
{
	/* A negative @cpu fails the unsigned compare. */
	if (!buffer || (unsigned int)cpu >= nr_cpu_ids ||
	    !cpumask_test_cpu(cpu, buffer->cpumask))
		return NULL;
	/* Pairs with the smp_wmb() in rb_cpu_add(). */
	smp_rmb();
	return READ_ONCE(per_cpu_ptr(buffer->slots, cpu)->cb);
}

/* ---------------------------------------------------------------------
 * Persistent buffers: what the write and read paths keep in the range
 */

/*
 * A persistent buffer's part of the range for one CPU, before its pages.
 * head and rd only grow; seq[i]: the sub-buffer page i holds.
 */
struct rb_range_cpu {
	u32			magic;
	u32			cpu;
	local64_t		head;		/* oldest sub-buffer kept */
	u64			rd;		/* first one not wholly read */
	/* _text and _sdata of the boot whose events the part holds */
	u64			text_addr;
	u64			data_addr;
	u64			seq[];
};

/* Nothing yet in a page of a persistent buffer. */
#define RB_RANGE_NONE		(~0ULL)
/*
 * With a page's number: a boot cut that sub-buffer, the events after what
 * it kept were lost (rb_range_restore()), and the boots after it report
 * that.  It stays until a writer puts another sub-buffer in the page.
 */
#define RB_RANGE_CUT		BIT_ULL(63)

/*
 * Did the previous boot of a persistent buffer lose events just before
 * sub-buffer @seq?  Set at attach only (the geometry of a persistent
 * buffer never changes); numbers only grow, so no later lap matches.
 */
static inline bool rb_gap(struct rb_cpu *cb, u64 seq)
{
	return unlikely(cb->pm) && seq && rb_slot_of(cb, seq)->gap == seq;
}

/*
 * Did the previous boot lose events before a sub-buffer after @from, up
 * to @to?  A reader that jumps over pushed sub-buffers passes them too.
 */
static inline bool rb_gap_after(struct rb_cpu *cb, u64 from, u64 to)
{
	unsigned long i;

	if (likely(!cb->pm) || to == from + 1)
		return rb_gap(cb, to);
	for (i = 0; i < cb->nr; i++)
		if (cb->subbufs[i].gap > from && cb->subbufs[i].gap <= to)
			return true;
	return false;
}

static inline unsigned long rb_range_idx(struct rb_cpu *cb,
					 struct rb_data_page *page)
{
	return ((unsigned long)page - cb->pbase) >> cb->shift;
}

/*
 * Raise the kept head of a persistent buffer to @seq.  Nested writers of
 * this CPU race here: a CPU-local cmpxchg keeps the largest value.
 */
static inline void rb_range_head(struct rb_cpu *cb, u64 seq)
{
	s64 old = local64_read(&cb->pm->head);

	while ((u64)old < seq && !local64_try_cmpxchg(&cb->pm->head, &old, seq))
		;
}

/* A publication covered sub-buffer @seq in @page (outermost writer). */
static inline void rb_range_seq(struct rb_cpu *cb, struct rb_data_page *page,
				u64 seq)
{
	u64 *num = &cb->pm->seq[rb_range_idx(cb, page)];

	/*
	 * The page's commit word before its number, for the next boot's
	 * rb_range_check() (the pair, after a crash): see section 8b.
	 */
	smp_wmb();
	/* The same sub-buffer keeps its RB_RANGE_CUT. */
	if ((READ_ONCE(*num) & ~RB_RANGE_CUT) != seq)
		WRITE_ONCE(*num, seq);
}

/*
 * A sub-buffer's page, zeroed.  Compound: a user mapping takes a reference
 * on each page.
 */
static inline struct rb_data_page *rb_page_alloc(int cpu, unsigned int order,
						 gfp_t gfp)
{
	struct page *page;

	page = alloc_pages_node(cpu_to_node(cpu),
				gfp | __GFP_NOWARN | __GFP_ZERO | __GFP_COMP,
				order);
	return page ? page_address(page) : NULL;
}

static inline void rb_page_free(struct rb_data_page *page, unsigned int order)
{
	if (page)
		free_pages((unsigned long)page, order);
}

/* ---------------------------------------------------------------------
 * Functions of one file that the other calls
 */

/* ring_buffer.c */
void rb_set_geometry(struct rb_cpu *cb, unsigned int order);
void rb_slot_clear(struct rb_subbuf *sb, u64 seq, unsigned long nr);
void rb_cpu_restart(struct rb_cpu *cb, u64 pos, u64 head);
void rb_cpu_clear(struct rb_cpu *cb, u64 base);
struct trace_buffer *rb_alloc_buffer(unsigned long size, unsigned int flags,
				     unsigned int order, unsigned long start,
				     unsigned long range_size,
				     struct lock_class_key *key);
void rb_map_number(struct rb_cpu *cb);
unsigned long rb_map_next(struct trace_buffer *buffer, struct rb_cpu *cb);

/* ring_buffer_range.c */
int rb_range_setup(struct trace_buffer *buffer, unsigned long start,
		   unsigned long size);
void rb_range_attach(struct trace_buffer *buffer, struct rb_cpu *cb);
void rb_range_clear(struct rb_cpu *cb, u64 base);
void rb_range_forget_cpus(struct trace_buffer *buffer,
			  const struct cpumask *mask);
void rb_range_watch_panic(struct trace_buffer *buffer);
void rb_range_unwatch_panic(struct trace_buffer *buffer);

/* ring_buffer_map.c */
void rb_meta_update(struct rb_cpu *cb, unsigned long lost);

#endif /* _TRACE_RING_BUFFER_INTERNAL_H */
