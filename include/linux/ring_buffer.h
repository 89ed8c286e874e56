/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU lockless ring buffer used by the tracing infrastructure.
 *
 * The format of an event as it sits in a sub-buffer is ABI: user space
 * tools (trace-cmd, perf through libtraceevent) read raw sub-buffers from
 * trace_pipe_raw and decode them with the description exported through
 * events/header_event and events/header_page.  See
 * Documentation/trace/ring-buffer.txt.
 */
#ifndef _LINUX_RING_BUFFER_H
#define _LINUX_RING_BUFFER_H

#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/poll.h>

#include <uapi/linux/trace_mmap.h>

struct trace_buffer;
struct ring_buffer_iter;
struct buffer_data_read_page;
struct trace_seq;

/*
 * One 32-bit header word followed by the payload.  Callers treat the
 * structure as opaque and go through ring_buffer_event_data() and
 * ring_buffer_event_length().  The two bit-fields share one u32.
 */
struct ring_buffer_event {
	u32	type_len	: 5;
	u32	time_delta	: 27;
	u32	array[];
};

/**
 * enum ring_buffer_type - values of type_len with a special meaning
 *
 * @RINGBUF_TYPE_DATA_TYPE_LEN_MAX: largest type_len of a data event.  A data
 *	event with type_len 1..28 carries type_len * 4 bytes of payload in
 *	array[0..]; with type_len 0 the size of the rest of the event (the
 *	length word included) is in array[0] and the payload starts at array[1].
 * @RINGBUF_TYPE_PADDING: space that holds no event.  With a non-zero
 *	time_delta it is a discarded event whose size minus the header is in
 *	array[0]; with time_delta 0 it fills the rest of a sub-buffer and is
 *	only ever found beyond the committed part.
 * @RINGBUF_TYPE_TIME_EXTEND: 8 bytes; adds a delta too big for 27 bits:
 *	time_delta holds bits 0..26 and array[0] bits 27..58.
 * @RINGBUF_TYPE_TIME_STAMP: 8 bytes; an absolute time stamp, split like
 *	@RINGBUF_TYPE_TIME_EXTEND.
 */
enum ring_buffer_type {
	RINGBUF_TYPE_DATA_TYPE_LEN_MAX	= 28,
	RINGBUF_TYPE_PADDING		= 29,
	RINGBUF_TYPE_TIME_EXTEND	= 30,
	RINGBUF_TYPE_TIME_STAMP		= 31,
};

enum ring_buffer_flags {
	RB_FL_OVERWRITE		= 1 << 0,
};

#define RING_BUFFER_ALL_CPUS -1

/* --- Creating and destroying; @size is per CPU, in bytes --- */

struct trace_buffer *
__ring_buffer_alloc(unsigned long size, unsigned int flags,
		    struct lock_class_key *key);
struct trace_buffer *
__ring_buffer_alloc_range(unsigned long size, unsigned int flags, int order,
			  unsigned long start, unsigned long range_size,
			  struct lock_class_key *key);
void
ring_buffer_free(struct trace_buffer *buffer);
bool
ring_buffer_last_boot_delta(struct trace_buffer *buffer, long *text,
			    long *data);

/*
 * Each call site gets a lock class of its own, so that lockdep does not
 * mix up the reader locks of unrelated buffers (one of them may trace the
 * other).
 */
#define ring_buffer_alloc(size, flags)					\
	({								\
		static struct lock_class_key __rb_class;		\
		__ring_buffer_alloc(size, flags, &__rb_class);		\
	})

#define ring_buffer_alloc_range(size, flags, order, start, range_size)	\
	({								\
		static struct lock_class_key __rb_class;		\
		__ring_buffer_alloc_range(size, flags, order, start,	\
					  range_size, &__rb_class);	\
	})

#ifdef CONFIG_RING_BUFFER
int trace_rb_cpu_prepare(unsigned int cpu, struct hlist_node *node);
#else
#define trace_rb_cpu_prepare	NULL
#endif

/* --- Writing --- */

struct ring_buffer_event *
ring_buffer_lock_reserve(struct trace_buffer *buffer, unsigned long length);
int
ring_buffer_unlock_commit(struct trace_buffer *buffer);
/*
 * Drop an event that was reserved but not committed: call it instead of
 * ring_buffer_unlock_commit().  When nothing was reserved after the event,
 * its space is given back; otherwise it is left behind as padding.
 */
void
ring_buffer_discard_commit(struct trace_buffer *buffer,
			   struct ring_buffer_event *event);
int
ring_buffer_write(struct trace_buffer *buffer, unsigned long length,
		  void *data);
void
ring_buffer_nest_start(struct trace_buffer *buffer);
void
ring_buffer_nest_end(struct trace_buffer *buffer);

/* --- Looking at an event --- */

unsigned int
ring_buffer_event_length(struct ring_buffer_event *event);
void *
ring_buffer_event_data(struct ring_buffer_event *event);
u64
ring_buffer_event_time_stamp(struct trace_buffer *buffer,
			     struct ring_buffer_event *event);

/* --- Consuming reads --- */

struct ring_buffer_event *
ring_buffer_consume(struct trace_buffer *buffer, int cpu, u64 *ts,
		    unsigned long *lost_events);
struct ring_buffer_event *
ring_buffer_peek(struct trace_buffer *buffer, int cpu, u64 *ts,
		 unsigned long *lost_events);

/* --- Whole sub-buffers (trace_pipe_raw, splice) --- */

int
ring_buffer_alloc_read_page(struct trace_buffer *buffer, int cpu,
			    struct buffer_data_read_page **rpage);
void
ring_buffer_free_read_page(struct trace_buffer *buffer, int cpu,
			   struct buffer_data_read_page *rpage);
int
ring_buffer_read_page(struct trace_buffer *buffer,
		      struct buffer_data_read_page *rpage, size_t len,
		      int cpu, int full);
void *
ring_buffer_read_page_data(struct buffer_data_read_page *rpage);
unsigned int
ring_buffer_read_page_size(struct buffer_data_read_page *rpage);

/* --- Iterators: reading without consuming --- */

struct ring_buffer_iter *
ring_buffer_read_start(struct trace_buffer *buffer, int cpu, gfp_t flags);
void
ring_buffer_read_finish(struct ring_buffer_iter *iter);
struct ring_buffer_event *
ring_buffer_iter_peek(struct ring_buffer_iter *iter, u64 *ts);
void
ring_buffer_iter_advance(struct ring_buffer_iter *iter);
void
ring_buffer_iter_reset(struct ring_buffer_iter *iter);
int
ring_buffer_iter_empty(struct ring_buffer_iter *iter);
bool
ring_buffer_iter_dropped(struct ring_buffer_iter *iter);

/* --- Waiting for data --- */

typedef bool (*ring_buffer_cond_fn)(void *data);
int
ring_buffer_wait(struct trace_buffer *buffer, int cpu, int full,
		 ring_buffer_cond_fn cond, void *data);
__poll_t
ring_buffer_poll_wait(struct trace_buffer *buffer, int cpu,
		      struct file *filp, poll_table *poll_table, int full);
void
ring_buffer_wake_waiters(struct trace_buffer *buffer, int cpu);

/* --- Size, mode and sub-buffer order --- */

int
ring_buffer_resize(struct trace_buffer *buffer, unsigned long size, int cpu);
void
ring_buffer_change_overwrite(struct trace_buffer *buffer, int val);
unsigned long
ring_buffer_size(struct trace_buffer *buffer, int cpu);
unsigned long
ring_buffer_max_event_size(struct trace_buffer *buffer);
int
ring_buffer_subbuf_order_get(struct trace_buffer *buffer);
int
ring_buffer_subbuf_order_set(struct trace_buffer *buffer, int order);
int
ring_buffer_subbuf_size_get(struct trace_buffer *buffer);

/* --- Emptying and swapping --- */

void
ring_buffer_reset_cpu(struct trace_buffer *buffer, int cpu);
void
ring_buffer_reset_online_cpus(struct trace_buffer *buffer);
void
ring_buffer_reset(struct trace_buffer *buffer);
bool
ring_buffer_empty(struct trace_buffer *buffer);
bool
ring_buffer_empty_cpu(struct trace_buffer *buffer, int cpu);

#ifndef CONFIG_RING_BUFFER_ALLOW_SWAP
/* Without the max-latency tracers there is nothing to swap with. */
static inline int ring_buffer_swap_cpu(struct trace_buffer *a,
				       struct trace_buffer *b, int cpu)
{
	return -ENODEV;
}
#else
int
ring_buffer_swap_cpu(struct trace_buffer *a, struct trace_buffer *b,
		     int cpu);
#endif

/* --- Recording on and off --- */

void
ring_buffer_record_disable(struct trace_buffer *buffer);
void
ring_buffer_record_enable(struct trace_buffer *buffer);
void
ring_buffer_record_disable_cpu(struct trace_buffer *buffer, int cpu);
void
ring_buffer_record_enable_cpu(struct trace_buffer *buffer, int cpu);
void
ring_buffer_record_off(struct trace_buffer *buffer);
void
ring_buffer_record_on(struct trace_buffer *buffer);
bool
ring_buffer_record_is_on(struct trace_buffer *buffer);
bool
ring_buffer_record_is_set_on(struct trace_buffer *buffer);

/* --- Counters --- */

unsigned long
ring_buffer_entries(struct trace_buffer *buffer);
unsigned long
ring_buffer_overruns(struct trace_buffer *buffer);
unsigned long
ring_buffer_entries_cpu(struct trace_buffer *buffer, int cpu);
unsigned long
ring_buffer_overrun_cpu(struct trace_buffer *buffer, int cpu);
unsigned long
ring_buffer_commit_overrun_cpu(struct trace_buffer *buffer, int cpu);
unsigned long
ring_buffer_dropped_events_cpu(struct trace_buffer *buffer, int cpu);
unsigned long
ring_buffer_read_events_cpu(struct trace_buffer *buffer, int cpu);
unsigned long
ring_buffer_bytes_cpu(struct trace_buffer *buffer, int cpu);
u64
ring_buffer_oldest_event_ts(struct trace_buffer *buffer, int cpu);
size_t
ring_buffer_nr_dirty_pages(struct trace_buffer *buffer, int cpu);

/* --- Time --- */

u64
ring_buffer_time_stamp(struct trace_buffer *buffer);
void
ring_buffer_normalize_time_stamp(struct trace_buffer *buffer, int cpu,
				 u64 *ts);
void
ring_buffer_set_clock(struct trace_buffer *buffer, u64 (*clock)(void));
void
ring_buffer_set_time_stamp_abs(struct trace_buffer *buffer, bool abs);
bool
ring_buffer_time_stamp_abs(struct trace_buffer *buffer);

/* --- Format descriptions for events/header_event and header_page --- */

int
ring_buffer_print_entry_header(struct trace_seq *s);
int
ring_buffer_print_page_header(struct trace_buffer *buffer,
			      struct trace_seq *s);

/* --- Mapping into user space --- */

int
ring_buffer_map(struct trace_buffer *buffer, int cpu,
		struct vm_area_struct *vma);
void
ring_buffer_map_dup(struct trace_buffer *buffer, int cpu);
int
ring_buffer_unmap(struct trace_buffer *buffer, int cpu);
int
ring_buffer_map_get_reader(struct trace_buffer *buffer, int cpu);

#endif /* _LINUX_RING_BUFFER_H */
