// SPDX-License-Identifier: GPL-2.0
/*
 * Persistent ring buffers: rings in a memory range that the caller keeps
 * across a reboot (ring_buffer_alloc_range()), so that the next boot can
 * read what this one recorded.  Layout and crash consistency:
 * Documentation/trace/ring-buffer.txt, section 8b.
 *
 * The writers and readers of ring_buffer.c keep the records of the range
 * up to date as they go (rb_range_head() and rb_range_seq() of
 * ring_buffer_internal.h, and rb_rd_move()'s store of pm->rd).  This file
 * lays the range out, checks what a previous boot left there and makes it
 * the ring again, does the persistent part of the control paths, and has
 * the calls that only persistent buffers answer.  Nothing read from the
 * range is trusted: every index comes from this boot's geometry.
 */
#include <linux/ring_buffer.h>
#include <linux/panic_notifier.h>
#include <linux/seq_file.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/export.h>
#include <linux/sort.h>
#include <asm/ring_buffer.h>
#include <asm/sections.h>

#include "trace.h"
#include "ring_buffer_internal.h"

/* ---------------------------------------------------------------------
 * Layout: a header page, then one part per possible CPU (its records,
 * then its pages)
 */

#define RB_RANGE_MAGIC		0x52627267U

struct rb_range_hdr {
	u32			magic;
	u32			layout;
	u32			subbuf_size;
	u32			nr_cpus;
	u64			pages;		/* per CPU */
	u64			part;		/* bytes per CPU */
};

/*
 * Changes whenever the layout of the range does, also between kernels of
 * one version: the sub-buffer header (12 bytes where a long is 4), the
 * event alignment (8 bytes with CONFIG_HAVE_64BIT_ALIGNED_ACCESS).
 */
#define RB_RANGE_LAYOUT		(RB_HDR_BYTES << 24 | (RB_ALIGN == 8) << 23 | \
				 sizeof(struct rb_range_hdr) << 16 | \
				 sizeof(struct rb_range_cpu) << 8 | 3)

static struct rb_data_page *rb_range_page(struct rb_cpu *cb, unsigned long i)
{
	return (void *)(cb->pbase + (i << cb->shift));
}

/* The part of the range that belongs to @cpu. */
static struct rb_range_cpu *rb_range_part(struct trace_buffer *buffer,
					  unsigned long cpu)
{
	return (void *)(buffer->range_start + PAGE_SIZE +
			cpu * buffer->range_part);
}

/* Point @cb at its CPU's part of the range and the part's pages. */
static void rb_range_place(struct trace_buffer *buffer, struct rb_cpu *cb)
{
	cb->pm = rb_range_part(buffer, cb->cpu);
	cb->pbase = (unsigned long)cb->pm + PAGE_ALIGN(sizeof(*cb->pm) +
				buffer->range_pages * sizeof(u64));
}

/*
 * The header is not this layout's: before it says so, no CPU's part may
 * look valid, also of a CPU attached only later (or at the next boot).
 */
static void rb_range_forget(struct trace_buffer *buffer)
{
	unsigned long cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		WRITE_ONCE(rb_range_part(buffer, cpu)->magic, 0);
	/* Forgotten before the header is rewritten as valid. */
	barrier();
}

/* ---------------------------------------------------------------------
 * Checking what a previous boot left
 */

/*
 * A kept sub-buffer's length fits, its events decode, its stamps do not
 * go back (from one sub-buffer to the next they may: each boot starts a
 * new one).  sb->end is set to the bytes before the first event that
 * fails (and before the stamps that belong to it), cum to the events
 * kept.  Returns why the rest cannot be kept, or NULL.
 */
static const char *rb_range_subbuf(struct rb_cpu *cb, struct rb_subbuf *sb)
{
	struct rb_data_page *page = sb->page;
	unsigned long len = local_read(&page->commit);
	struct ring_buffer_event *ev;
	unsigned int off, size;
	u64 t = page->time_stamp, abs;

	sb->end = 0;
	/* Lost-events flags are never set in the ring's own pages. */
	if (len > cb->cap)
		return "commit beyond its sub-buffer";
	for (off = 0; off < len; off += size) {
		ev = (void *)&page->data[off];
		size = len - off < RB_META_LEN ? 0 : rb_ev_size(ev);
		/* Where payloads are 8-byte aligned, every event is 8n long. */
		if (size < RB_META_LEN || size > len - off || size % RB_ALIGN)
			return "event does not decode";
		if (ev->type_len == RINGBUF_TYPE_TIME_EXTEND) {
			t += rb_meta_val(ev);
			continue;
		}
		if (ev->type_len == RINGBUF_TYPE_TIME_STAMP) {
			abs = rb_abs_stamp(ev, t);
			if (abs < t)
				return "time stamps go back";
			t = abs;
			continue;
		}
		if (ev->type_len <= RINGBUF_TYPE_DATA_TYPE_LEN_MAX) {
			/* ... and has the long header, see RB_SMALL_MAX. */
			if (!RB_SMALL_MAX && ev->type_len)
				return "event does not decode";
			t += ev->time_delta;
			local_inc(&sb->cum);
		}
		/* Data or padding, with the stamps before it. */
		sb->end = off + size;
	}
	return sb->end == len ? NULL : "a stamp without its event";
}

/*
 * trace.c relocates every kept event by one delta: the first CPU found
 * with events chooses the boot, and a CPU whose events another boot wrote
 * (it was offline when that boot reset the others) starts empty.
 */
static const char *rb_range_boot(struct trace_buffer *buffer,
				 struct rb_range_cpu *pm)
{
	long text = (unsigned long)_text - pm->text_addr;
	long data = (unsigned long)_sdata - pm->data_addr;

	if (!buffer->range_boot) {
		buffer->range_boot = true;
		buffer->text_delta = text;
		buffer->data_delta = data;
	}
	if (text != buffer->text_delta || data != buffer->data_delta)
		return "events of another boot than the other CPUs'";
	return NULL;
}

/* Two pages claim the sub-buffer: neither is trusted. */
#define RB_END_TWICE		UINT_MAX

/*
 * Keep what can be trusted of sub-buffer @s; the rest is lost, and the
 * loss reported just before sub-buffer @s + 1 (see rb_gap()).  @older: a
 * newer sub-buffer has a length.  @say: print why, once per sub-buffer.
 * Returns the events kept.
 */
static unsigned long rb_range_salvage(struct rb_cpu *cb, u64 s, bool older,
				      bool say)
{
	struct rb_subbuf *sb = rb_slot_of(cb, s);
	const char *why = "found twice";

	if (!sb->page)
		why = "missing";
	else if (sb->end != RB_END_TWICE)
		why = rb_range_subbuf(cb, sb);
	if (!why && rb_gap(cb, s + 1))
		why = "cut at an earlier boot";
	/* Commit words are set in order: a newer one's came after ours. */
	if (!why && older && !sb->end)
		why = "empty before a newer one";
	if (!why)
		return local_read(&sb->cum);
	if (sb->end == RB_END_TWICE)
		sb->end = 0;
	rb_slot_of(cb, s + 1)->gap = s + 1;
	if (say)
		pr_warn_ratelimited("Ring buffer meta [%d] sub-buffer %llu %s: %s\n",
				    cb->cpu, s, why,
				    sb->end ? "events after it lost" : "lost");
	return local_read(&sb->cum);
}

static int rb_range_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The newest sub-buffer of the previous boot: the end of the span of
 * cb->nr numbers that most pages of the part claim (the ring holds no
 * more), on a tie the one the stored head fits, else the newest.  A page whose number lies
 * outside it (a flipped bit, say) costs only its own sub-buffer, which
 * the salvage then finds missing.  Numbers this geometry cannot
 * represent never count.  Returns the pages in that span (0: no page
 * has a number), or -ENOMEM.
 */
static long rb_range_last(struct rb_cpu *cb, unsigned long n, u64 *last)
{
	u64 lim = U64_MAX >> (cb->shift + 1), *v;
	u64 head = local64_read(&cb->pm->head);
	unsigned long i, lo = 0, k = 0, best = 0;
	bool fits, best_fits = false;

	v = kvmalloc_array(n, sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		v[k] = READ_ONCE(cb->pm->seq[i]) & ~RB_RANGE_CUT;
		k += v[k] <= lim;	/* not RB_RANGE_NONE either */
	}
	sort(v, k, sizeof(*v), rb_range_cmp, NULL);
	for (i = 0; i < k; i++) {
		while (v[i] - v[lo] >= cb->nr)
			lo++;
		/* A tie goes to the span head agrees with, else the newest. */
		fits = head <= v[i] + 1 && head + cb->nr > v[i];
		if (i - lo + 1 > best ||
		    (i - lo + 1 == best && (fits || !best_fits))) {
			best = i - lo + 1;
			best_fits = fits;
			*last = v[i];
		}
	}
	kvfree(v);
	return best;
}

/*
 * Where the kept sub-buffers start: the oldest one kept, or the first not
 * wholly read if that is newer.  A reset leaves both at the sub-buffer
 * after the last one written: nothing to keep.  Else a head or read
 * position that cannot be right for sub-buffers ending at @last costs
 * only itself, with a line: the ring is then kept from its oldest
 * sub-buffer, or from head.
 */
static u64 rb_range_first(struct rb_cpu *cb, u64 last, bool say)
{
	u64 head = local64_read(&cb->pm->head), rd = READ_ONCE(cb->pm->rd);
	u64 lo = last >= cb->nr ? last - cb->nr + 1 : 0;

	if (head > last && head == rd)
		return head;
	if (head < lo || head > last + 1) {
		if (say)
			pr_warn("Ring buffer meta [%d] head out of range: kept from sub-buffer %llu\n",
				cb->cpu, lo);
		head = lo;
	}
	if (rd > last + 1) {
		if (say)
			pr_warn("Ring buffer meta [%d] read position out of range: read events shown again\n",
				cb->cpu);
		rd = head;
	}
	return max(head, rd);
}

/*
 * Find the previous boot's sub-buffers @first..@last in the part of @cb,
 * put their pages into their slots and keep what each holds that can be
 * trusted.  Returns why none can be kept, or NULL (with @first > @last
 * when there is nothing to keep).
 */
static const char *rb_range_check(struct trace_buffer *buffer,
				  struct rb_cpu *cb, u64 *first, u64 *last,
				  bool say)
{
	struct rb_range_cpu *pm = cb->pm;
	unsigned long i, n = buffer->range_pages;
	unsigned long kept = 0;
	struct rb_subbuf *sb;
	u64 s, cut, full;
	long span;

	*first = 1;
	*last = 0;
	if (!buffer->range_valid)
		return "no buffer of this layout and size";
	if (pm->magic != RB_RANGE_MAGIC || pm->cpu != cb->cpu)
		return "no buffer of this CPU";
	span = rb_range_last(cb, n, last);
	if (span < 0)
		return "no memory to check it";
	if (!span) {
		for (i = 0; i < n; i++)
			if (READ_ONCE(pm->seq[i]) != RB_RANGE_NONE)
				return "sub-buffer numbers out of range";
		return NULL;
	}
	*first = rb_range_first(cb, *last, say);
	if (*first > *last)
		return NULL;
	for (i = 0; i < n; i++) {
		s = READ_ONCE(pm->seq[i]);
		cut = s & RB_RANGE_CUT;
		s &= ~RB_RANGE_CUT;
		/* An earlier boot's loss, before the next sub-buffer. */
		if (cut && s + 1 >= *first && s <= *last)
			rb_slot_of(cb, s + 1)->gap = s + 1;
		if (s < *first || s > *last)
			continue;
		sb = rb_slot_of(cb, s);
		if (sb->page)
			sb->end = RB_END_TWICE;
		else
			sb->page = rb_range_page(cb, i);
	}
	for (full = *last; full > *first; full--) {
		sb = rb_slot_of(cb, full);
		if (sb->page && local_read(&sb->page->commit))
			break;
	}
	for (s = *first; s <= *last; s++)
		kept += rb_range_salvage(cb, s, s < full, say);
	if (!kept)
		*first = *last + 1;
	return kept ? rb_range_boot(buffer, pm) : NULL;
}

/*
 * Will some CPU keep events of the previous boot?  Asked at allocation,
 * before the other CPUs attach (6.12 makes boot instances before they
 * come up, and reads the KASLR delta right away): each part gets the
 * check its CPU's attach will make, on slots of its own.  The range is
 * only read.
 */
static bool rb_range_any_kept(struct trace_buffer *buffer)
{
	unsigned long nr = buffer->nr_default;
	struct rb_cpu *cb;
	bool kept = false;
	u64 first, last;

	cb = kzalloc(sizeof(*cb), GFP_KERNEL);
	if (cb)
		cb->subbufs = kcalloc(nr, sizeof(*cb->subbufs), GFP_KERNEL);
	if (cb && cb->subbufs) {
		cb->nr = nr;
		rb_set_geometry(cb, buffer->order);
		for (cb->cpu = 0; !kept && (unsigned int)cb->cpu < nr_cpu_ids;
		     cb->cpu++) {
			memset(cb->subbufs, 0, nr * sizeof(*cb->subbufs));
			rb_range_place(buffer, cb);
			kept = !rb_range_check(buffer, cb, &first, &last,
					       false) &&
			       first <= last;
		}
	}
	if (cb)
		kfree(cb->subbufs);
	kfree(cb);
	return kept;
}

/* ---------------------------------------------------------------------
 * Setting the range up and attaching each CPU: the previous boot's
 * sub-buffers made the ring again, or an empty ring
 */

/*
 * Does the range hold a header of this kernel's layout and geometry?  A
 * range of another one (word size, page or sub-buffer size, CPUs, size)
 * is refused whole, and the log says what differs.
 */
static bool rb_range_same(struct rb_range_hdr *hdr, u32 subbuf_size,
			  unsigned long n, unsigned long part)
{
	const char *what = NULL;

	if (hdr->magic != RB_RANGE_MAGIC)
		return false;
	if (hdr->layout != RB_RANGE_LAYOUT)
		what = "layout";
	else if (hdr->subbuf_size != subbuf_size)
		what = "sub-buffer size";
	else if (hdr->nr_cpus != nr_cpu_ids)
		what = "number of CPUs";
	else if (hdr->pages != n)
		what = "number of sub-buffers";
	else if (hdr->part != part)
		what = "size";
	if (what)
		pr_info("Ring buffer meta: the range has another %s than this kernel's: starting empty\n",
			what);
	return !what;
}

/*
 * Geometry of the range, whether it holds a header of ours and whether
 * some CPU will keep events of the previous boot.
 */
int rb_range_setup(struct trace_buffer *buffer, unsigned long start,
		   unsigned long size)
{
	struct rb_range_hdr *hdr = (void *)start;
	unsigned int shift = PAGE_SHIFT + buffer->order;
	unsigned long part, n = 0;

	if (!PAGE_ALIGNED(start) || size < PAGE_SIZE)
		return -EINVAL;
	part = rounddown((size - PAGE_SIZE) / nr_cpu_ids, PAGE_SIZE);
	for (n = part >> shift; n >= 3; n--) {
		if (PAGE_ALIGN(sizeof(struct rb_range_cpu) + n * sizeof(u64)) +
		    (n << shift) <= part)
			break;
	}
	if (n < 3)
		return -EINVAL;
	buffer->range_start = start;
	buffer->range_end = start + size;
	buffer->range_part = part;
	buffer->range_pages = n;
	buffer->nr_default = n - 1;
	buffer->range_valid = rb_range_same(hdr, 1UL << shift, n, part);
	if (!buffer->range_valid)
		rb_range_forget(buffer);
	hdr->magic = RB_RANGE_MAGIC;
	hdr->layout = RB_RANGE_LAYOUT;
	hdr->subbuf_size = 1UL << shift;
	hdr->nr_cpus = nr_cpu_ids;
	hdr->pages = n;
	hdr->part = part;
	buffer->range_kept = rb_range_any_kept(buffer);
	return 0;
}

/*
 * Make the checked sub-buffers @first..@last the ring, the other pages
 * its empty slots and the reader's spare.  A sub-buffer kept in part is
 * cut to what was kept, in the range too (a page that held none gets the
 * stamp before it).  The rest of @last is padded: the next event starts a
 * new sub-buffer (none holds two boots), which in a full ring overwrites
 * or drops as any other.
 */
static void rb_range_restore(struct rb_cpu *cb, u64 first, u64 last)
{
	unsigned long i, j = 0, events = 0;
	struct ring_buffer_event *ev;
	struct rb_subbuf *sb;
	unsigned int end;
	u64 s, ts = 0;

	/*
	 * Cut the damaged sub-buffers before the pages not kept lose their
	 * numbers: a crash in between leaves no page that failed the check
	 * as the only one with its number and its old length.  The mark
	 * goes before the cut: a crash between them finds the damage again.
	 */
	for (s = first; s <= last; s++) {
		sb = rb_slot_of(cb, s);
		if (!sb->page || !rb_gap(cb, s + 1))
			continue;
		WRITE_ONCE(cb->pm->seq[rb_range_idx(cb, sb->page)],
			   s | RB_RANGE_CUT);
		/* Pairs with the next boot's rb_range_check(): pair 20. */
		smp_wmb();
		local_set(&sb->page->commit, sb->end);
	}
	/* Pairs with the next boot's rb_range_check(): pair 20. */
	smp_wmb();
	for (i = 0; i <= cb->nr; i++) {
		struct rb_data_page *page = rb_range_page(cb, i);

		s = READ_ONCE(cb->pm->seq[i]) & ~RB_RANGE_CUT;
		if (s >= first && s <= last && rb_slot_of(cb, s)->page == page)
			continue;
		/* Not kept, so no later boot sees its number twice. */
		WRITE_ONCE(cb->pm->seq[i], RB_RANGE_NONE);
		while (j < cb->nr && cb->subbufs[j].page)
			j++;
		if (j < cb->nr)
			cb->subbufs[j].page = page;
		else
			cb->rd.copy = page;
	}
	for (s = last + 1; s != first + cb->nr; s++)
		rb_slot_clear(rb_slot_of(cb, s), s, cb->nr);
	for (s = first; s <= last; s++) {
		sb = rb_slot_of(cb, s);
		atomic_long_set(&sb->tag, rb_tag(s));
		events += local_read(&sb->cum);
		if (rb_gap(cb, s + 1)) {
			if (!sb->end)
				sb->page->time_stamp = ts;
			local_set(&sb->page->commit, sb->end);
			/* The mark also on a page given to a missing one. */
			smp_wmb();	/* pair 20, with rb_range_check() */
			WRITE_ONCE(cb->pm->seq[rb_range_idx(cb, sb->page)],
				   s | RB_RANGE_CUT);
		}
		ts = sb->page->time_stamp;
	}
	end = sb->end;
	if (cb->cap - end >= RB_META_LEN) {
		ev = (void *)&sb->page->data[end];
		ev->type_len = RINGBUF_TYPE_PADDING;
		ev->time_delta = 1;
		ev->array[0] = cb->cap - end - RB_EV_HDR;
		/* Pairs with the next boot's rb_range_check(): pair 20. */
		smp_wmb();
		end = cb->cap;
		local_set(&sb->page->commit, end);
	}
	/*
	 * Pages below first may be reused from now on.  Stored, not raised:
	 * a head or read position found out of range is not met again.
	 */
	local64_set(&cb->pm->head, first);
	WRITE_ONCE(cb->pm->rd, first);
	rb_cpu_restart(cb, rb_mkpos(cb, last, end), first);
	local_set(&cb->committed, events);
}

/* A part found empty or broken: make it an empty ring. */
static void rb_range_fresh(struct rb_cpu *cb)
{
	struct rb_range_cpu *pm = cb->pm;
	unsigned long i;

	/* Invalid until every field is set, should we crash meanwhile. */
	WRITE_ONCE(pm->magic, 0);
	barrier();
	pm->cpu = cb->cpu;
	local64_set(&pm->head, 0);
	pm->rd = 0;
	for (i = 0; i <= cb->nr; i++)
		pm->seq[i] = RB_RANGE_NONE;
	memset(cb->subbufs, 0, cb->nr * sizeof(*cb->subbufs));
	for (i = 0; i < cb->nr; i++)
		cb->subbufs[i].page = rb_range_page(cb, i);
	cb->rd.copy = rb_range_page(cb, cb->nr);
	barrier();
	WRITE_ONCE(pm->magic, RB_RANGE_MAGIC);
	rb_cpu_clear(cb, 0);
}

/* Give @cb its part of the range: what a previous boot left, or nothing. */
void rb_range_attach(struct trace_buffer *buffer, struct rb_cpu *cb)
{
	const char *why;
	u64 first, last;

	rb_range_place(buffer, cb);
	why = rb_range_check(buffer, cb, &first, &last, true);
	if (!why && first <= last) {
		rb_range_restore(cb, first, last);
		buffer->range_kept = true;
		pr_info("Ring buffer meta [%d] is from previous boot!\n",
			cb->cpu);
		return;
	}
	if (why)
		pr_info("Ring buffer meta [%d] %s: starting empty\n", cb->cpu,
			why);
	rb_range_fresh(cb);
}

/* ---------------------------------------------------------------------
 * The persistent part of the control paths: reset and panic
 */

/*
 * rb_cpu_clear() empties the ring of @cb from sub-buffer @base on: the
 * range's records first, so that a crash while it changes the pages keeps
 * none of them.  Writers held off, reader_lock held.
 */
void rb_range_clear(struct rb_cpu *cb, u64 base)
{
	/* What lies before base is gone, also for the next boot. */
	rb_range_head(cb, base);
	WRITE_ONCE(cb->pm->rd, base);
	/*
	 * Then the addresses: a crash between keeps no event under
	 * this boot's.  Store order only, as for magic in
	 * rb_range_fresh(); the next boot's rb_range_boot() reads them.
	 */
	barrier();
	cb->pm->text_addr = (unsigned long)_text;
	cb->pm->data_addr = (unsigned long)_sdata;
	/* Before the pages change, for the next boot's rb_range_check(). */
	smp_wmb();
}

/*
 * A CPU of @mask not up yet has its part of the range still to attach:
 * forget it, or it would bring back the events this reset clears
 * (trace.c resets a last boot's buffer before writing).
 * trace_rb_cpu_prepare() attaches under buffer->mutex, which the caller
 * (the reset) holds.
 */
void rb_range_forget_cpus(struct trace_buffer *buffer,
			  const struct cpumask *mask)
{
	int cpu;

	for_each_cpu(cpu, mask) {
		if (cpumask_test_cpu(cpu, buffer->cpumask))
			continue;
		WRITE_ONCE(rb_range_part(buffer, cpu)->magic, 0);
	}
}

/* On panic, keep what explains it: no more events, caches written back. */
static int rb_range_panic(struct notifier_block *nb, unsigned long event,
			  void *data)
{
	struct trace_buffer *buffer;

	buffer = container_of(nb, struct trace_buffer, flush_nb);
	ring_buffer_record_off(buffer);
	arch_ring_buffer_flush_range(buffer->range_start, buffer->range_end);
	return NOTIFY_DONE;
}

/* The buffer is ready: from now on a panic stops it. */
void rb_range_watch_panic(struct trace_buffer *buffer)
{
	buffer->flush_nb.notifier_call = rb_range_panic;
	atomic_notifier_chain_register(&panic_notifier_list, &buffer->flush_nb);
}

/* Before the buffer is freed. */
void rb_range_unwatch_panic(struct trace_buffer *buffer)
{
	atomic_notifier_chain_unregister(&panic_notifier_list,
					 &buffer->flush_nb);
}

/* ---------------------------------------------------------------------
 * Allocation and the previous boot's addresses (API)
 */

/**
 * __ring_buffer_alloc_range - allocate a buffer inside a memory range
 * @size: unused: the range decides
 * @flags: RB_FL_OVERWRITE to overwrite the oldest data when full
 * @order: sub-buffer size as a page order
 * @start: start of the range, page aligned, mapped by the caller
 * @range_size: its size in bytes
 * @key: lock class for the reader locks (use ring_buffer_alloc_range())
 *
 * Every sub-buffer and all the bookkeeping live in the range, divided
 * among the possible CPUs.  What a previous boot left there is checked
 * CPU by CPU and kept if it is intact; see ring_buffer_last_boot_delta().
 * The buffer cannot be resized, change its order, be swapped or mapped;
 * on panic it stops recording.
 *
 * Context: Process context, may sleep.
 * Return: the buffer, or NULL for a bad order, a range that holds fewer
 * than three sub-buffers per CPU, or no memory.
 */
struct trace_buffer *
__ring_buffer_alloc_range(unsigned long size, unsigned int flags, int order,
			  unsigned long start, unsigned long range_size,
			  struct lock_class_key *key)
{
	if (!start || order < 0 || order > ilog2(RB_SUBBUF_MAX) ||
	    (PAGE_SIZE << order) > RB_SUBBUF_MAX)
		return NULL;
	return rb_alloc_buffer(size, flags, order, start, range_size, key);
}
EXPORT_SYMBOL_GPL(__ring_buffer_alloc_range);

/**
 * ring_buffer_last_boot_delta - how far the kernel moved since the events
 * @buffer: the buffer, may be NULL
 * @text: where to store the move of the kernel text
 * @data: where to store the move of its data
 *
 * Addresses recorded by the previous boot plus the deltas are addresses
 * of this boot.
 *
 * Context: Any context.
 * Return: true when @buffer kept events of a previous boot and the kernel
 * text or data moved; false otherwise (then @text and @data are left
 * alone).
 */
bool ring_buffer_last_boot_delta(struct trace_buffer *buffer, long *text,
				 long *data)
{
	if (!buffer || !buffer->range_kept ||
	    (!buffer->text_delta && !buffer->data_delta))
		return false;
	*text = buffer->text_delta;
	*data = buffer->data_delta;
	return true;
}
EXPORT_SYMBOL_GPL(ring_buffer_last_boot_delta);

/* ---------------------------------------------------------------------
 * The buffer_meta file: where the sub-buffers are in the range
 */

static void *rb_meta_start(struct seq_file *m, loff_t *pos)
{
	struct rb_cpu *cb = m->private;

	return cb->pm && *pos <= cb->nr + 1 ? pos : NULL;
}

static void *rb_meta_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return rb_meta_start(m, pos);
}

static void rb_meta_stop(struct seq_file *m, void *v)
{
}

/*
 * Index in the range of the page slot @seq owns: the one it will be
 * written in, or with @live the one it is written in (the reader may
 * have taken that one).  A snapshot: the file is racy by design.
 */
static unsigned long rb_meta_idx(struct rb_cpu *cb, u64 seq, bool live)
{
	struct rb_subbuf *sb = rb_slot_of(cb, seq);
	bool taken = atomic_long_read(&sb->tag) & RB_TAKEN;

	return rb_range_idx(cb, taken && !live ? READ_ONCE(sb->next) :
						 READ_ONCE(sb->page));
}

static int rb_meta_show(struct seq_file *m, void *v)
{
	struct rb_cpu *cb = m->private;
	u64 head = atomic64_read(&cb->head);
	u64 commit = rb_pseq(cb, local64_read(&cb->commit));
	loff_t i = *(loff_t *)v;

	if (!i) {
		seq_printf(m, "head_buffer:   %lu\n",
			   rb_meta_idx(cb, head, false));
		seq_printf(m, "commit_buffer: %lu\n",
			   rb_meta_idx(cb, commit, true));
		seq_printf(m, "subbuf_size:   %lu\n", PAGE_SIZE << cb->order);
		seq_printf(m, "nr_subbufs:    %lu\n", cb->nr + 1);
	} else if (i == 1) {
		seq_printf(m, "buffer[0]:    %lu\n",
			   rb_range_idx(cb, READ_ONCE(cb->rd.copy)));
	} else {
		seq_printf(m, "buffer[%lld]:    %lu\n", i - 1,
			   rb_meta_idx(cb, head + i - 2, false));
	}
	return 0;
}

static const struct seq_operations rb_meta_ops = {
	.start	= rb_meta_start,
	.next	= rb_meta_next,
	.stop	= rb_meta_stop,
	.show	= rb_meta_show,
};

/**
 * ring_buffer_meta_seq_init - open the buffer_meta file of a CPU
 * @file: the file
 * @buffer: the buffer
 * @cpu: the CPU
 *
 * The file tells where a persistent buffer's sub-buffers are in its
 * range: the head's and the writer's, then the reader's and the ring's
 * in order from the head.  It is empty for other buffers.
 *
 * Context: Process context.
 * Return: 0, -ENODEV for a CPU the buffer does not have, or seq_open()'s
 * error.
 */
int ring_buffer_meta_seq_init(struct file *file, struct trace_buffer *buffer,
			      int cpu)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);
	int ret;

	if (!cb)
		return -ENODEV;
	ret = seq_open(file, &rb_meta_ops);
	if (!ret)
		((struct seq_file *)file->private_data)->private = cb;
	return ret;
}
