// SPDX-License-Identifier: GPL-2.0
/*
 * The ring buffer under test, compiled unchanged: RB_SRC names either the
 * repository's kernel/trace/ring_buffer.c or a copy of the stock 6.12 file.
 * Ours also has RB_RANGE_SRC and RB_MAP_SRC, its
 * kernel/trace/ring_buffer_range.c (persistent buffers) and
 * ring_buffer_map.c (user-space mappings): the files go into this one
 * translation unit, so the hooks below reach the static functions of each.  rb_kernel.h
 * stands in for the kernel around them.
 */
#include "rb_kernel.h"

/*
 * The file's memcpy(): a test may set t_copy_hook to run in the middle of
 * the next copy of 64 bytes or more, once, as another CPU's stores can
 * land inside a copy (the sweeps interrupt only at the call and after it).
 */
void (*t_copy_hook)(void);

static void *t_rb_memcpy(void *dst, const void *src, size_t n)
{
	void (*fn)(void) = t_copy_hook;
	size_t half = n / 2;

	if (!fn || n < 64)
		return memcpy(dst, src, n);
	t_copy_hook = NULL;
	memcpy(dst, src, half);
	fn();
	memcpy((char *)dst + half, (const char *)src + half, n - half);
	return dst;
}
#define memcpy(d, s, n) t_rb_memcpy(d, s, n)

#include RB_SRC
#ifdef RB_RANGE_SRC
#include RB_RANGE_SRC
#endif
#ifdef RB_MAP_SRC
#include RB_MAP_SRC
#endif

#undef memcpy

/*
 * White-box hooks for the tests: state of the file under test that the
 * API does not reach.  With the stock file they name its equivalent, or
 * do nothing where it has none.
 */
raw_spinlock_t *t_reader_lock(struct trace_buffer *b, int cpu)
{
#ifdef RB_STOCK
	return &b->buffers[cpu]->reader_lock;
#else
	return &per_cpu_ptr(b->slots, cpu)->cb->reader_lock;
#endif
}

/* The counter behind ring_buffer_dropped_events_cpu(). */
void *t_dropped_counter(struct trace_buffer *b, int cpu)
{
#ifdef RB_STOCK
	return &b->buffers[cpu]->dropped_events;
#else
	return &per_cpu_ptr(b->slots, cpu)->cb->dropped;
#endif
}

/* Empty @cpu's ring and number its sub-buffers from @base on (ours). */
void t_seq_start(struct trace_buffer *b, int cpu, u64 base)
{
#ifndef RB_STOCK
	struct rb_cpu *cb = per_cpu_ptr(b->slots, cpu)->cb;

	raw_spin_lock_irq(&cb->reader_lock);
	rb_cpu_clear(cb, base);
	raw_spin_unlock_irq(&cb->reader_lock);
#endif
}

/* Bytes left in the sub-buffer the writer of @cpu is in. */
unsigned long t_room(struct trace_buffer *b, int cpu)
{
#ifdef RB_STOCK
	struct ring_buffer_per_cpu *c = b->buffers[cpu];

	return rb_subbuf_capacity(b) -
	       (local_read(&c->tail_page->write) & RB_WRITE_MASK);
#else
	struct rb_cpu *cb = per_cpu_ptr(b->slots, cpu)->cb;

	return cb->cap - rb_poff(cb, local64_read(&cb->write));
#endif
}

/* The guard key of @cpu's ring: is a writer inside, or publishing? (ours) */
unsigned long t_guard_top(struct trace_buffer *b, int cpu)
{
#ifdef RB_STOCK
	return 0;
#else
	return READ_ONCE(per_cpu_ptr(b->slots, cpu)->cb->top);
#endif
}

/* The interrupt ring_buffer_map() sends to @cpu once writers see the mapping. */
void t_map_ipi(struct trace_buffer *b, int cpu)
{
#ifndef RB_STOCK
	struct rb_map_sync ms = { .cb = per_cpu_ptr(b->slots, cpu)->cb };

	smp_call_function_single(cpu, rb_map_publish, &ms, 1);
#endif
}

/* The counter behind ring_buffer_overrun_cpu(), which a push adds to. */
void *t_overrun_counter(struct trace_buffer *b, int cpu)
{
#ifdef RB_STOCK
	return &b->buffers[cpu]->overrun;
#else
	return &per_cpu_ptr(b->slots, cpu)->cb->overrun;
#endif
}

#ifndef RB_STOCK
/* The page slot @sb will hold: next once a reader has taken it. */
static struct rb_data_page *t_slot_page(struct rb_subbuf *sb)
{
	return atomic_long_read(&sb->tag) & RB_TAKEN ? sb->next : sb->page;
}
#endif

/*
 * Does every slot of @cpu's ring hold a page of its own (a taken slot:
 * the page the reader left it), and the reader's page (its spare or the
 * one it reads) none of them?  Ours; 1 with stock.
 */
int t_pages_distinct(struct trace_buffer *b, int cpu)
{
#ifndef RB_STOCK
	struct rb_cpu *cb = per_cpu_ptr(b->slots, cpu)->cb;
	unsigned long i, j;

	for (i = 0; i < cb->nr; i++) {
		struct rb_data_page *p = t_slot_page(&cb->subbufs[i]);

		if (p == cb->rd.copy)
			return 0;
		for (j = 0; j < i; j++)
			if (p == t_slot_page(&cb->subbufs[j]))
				return 0;
	}
#endif
	return 1;
}

/* The published commit position of @cpu (ours; 0 with the stock file). */
u64 t_commit_pos(struct trace_buffer *b, int cpu)
{
#ifdef RB_STOCK
	return 0;
#else
	return local64_read(&per_cpu_ptr(b->slots, cpu)->cb->commit);
#endif
}

/*
 * Bytes by which the commit word of the page the writer of @cpu is on lags
 * behind the published commit (ours; 0 with the stock file).
 */
long t_live_commit_lag(struct trace_buffer *b, int cpu)
{
#ifdef RB_STOCK
	return 0;
#else
	struct rb_cpu *cb = per_cpu_ptr(b->slots, cpu)->cb;
	u64 c = local64_read(&cb->commit);
	struct rb_subbuf *sb = rb_slot_of(cb, rb_pseq(cb, c));

	return (long)rb_poff(cb, c) -
	       (long)(local_read(&sb->page->commit) & RB_COMMIT_MASK);
#endif
}
