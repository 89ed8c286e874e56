// SPDX-License-Identifier: GPL-2.0
/*
 * User-space mappings of a CPU's ring (mmap of trace_pipe_raw, the 6.10
 * ABI of include/uapi/linux/trace_mmap.h): the meta page, the vma's pages,
 * the mapping count and the calls trace.c makes for them.  What a mapping
 * asks of the lockless protocol (numbering the pages, publishing the live
 * page from the ring's CPU, GET_READER's take) is in ring_buffer.c:
 * rb_map_number() and rb_map_next().  Documentation:
 * Documentation/trace/ring-buffer.txt, section 8a.
 */
#include <linux/ring_buffer.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/export.h>

#include "trace.h"
#include "ring_buffer_internal.h"

/*
 * Refresh what a user mapping's meta page says; @lost: events lost before
 * the reader's page that its commit word could not flag.  Reader lock held.
 */
void rb_meta_update(struct rb_cpu *cb, unsigned long lost)
{
	struct trace_buffer_meta *m = cb->meta;
	struct rb_cursor *rd = &cb->rd;
	unsigned int read = rd->off;

	if (!m)
		return;
	/* A page the reader has left is read to the end. */
	if (!rd->own)
		read = local_read(&rd->copy->commit) & RB_COMMIT_MASK;
	WRITE_ONCE(m->reader.lost_events, lost);
	WRITE_ONCE(m->reader.id, cb->rd_id);
	WRITE_ONCE(m->reader.read, read);
	WRITE_ONCE(m->entries, local_read(&cb->committed));
	WRITE_ONCE(m->overrun, local_read(&cb->overrun));
	WRITE_ONCE(m->read, cb->read);
	flush_dcache_folio(virt_to_folio(m));
	flush_dcache_folio(virt_to_folio(rd->copy));
}

/* First mapping: number the pages, fill in the meta page; writers go on. */
static int rb_map_first(struct rb_cpu *cb)
{
	struct trace_buffer_meta *m;

	m = (void *)rb_page_alloc(cb->cpu, cb->order, GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->meta_page_size = PAGE_SIZE << cb->order;
	m->meta_struct_len = sizeof(*m);
	m->subbuf_size = PAGE_SIZE << cb->order;
	m->nr_subbufs = cb->nr + 1;
	/* Writers that began before cb->mapped was set may still set ptail. */
	synchronize_rcu();
	rb_map_number(cb);
	raw_spin_lock_irq(&cb->reader_lock);
	/* A page the reader has left holds nothing a mapping may show. */
	if (!cb->rd.own) {
		cb->rd.copy->time_stamp = 0;
		local_set(&cb->rd.copy->commit, 0);
	}
	cb->meta = m;
	rb_meta_update(cb, 0);
	raw_spin_unlock_irq(&cb->reader_lock);
	return 0;
}

/*
 * Every page by id: the reader's, and each slot's (next while taken).
 * Reader lock held; writers may run.
 */
static void rb_map_pages(struct rb_cpu *cb, struct rb_data_page **pages)
{
	unsigned long i;

	pages[cb->rd_id] = cb->rd.copy;
	for (i = 0; i < cb->nr; i++) {
		struct rb_subbuf *sb = &cb->subbufs[i];

		/* Pairs with the cmpxchg in rb_mark(): page and id first. */
		if (atomic_long_read_acquire(&sb->tag) & RB_TAKEN)
			pages[sb->next_id] = sb->next;
		else
			pages[READ_ONCE(sb->id)] = READ_ONCE(sb->page);
	}
}

/* Put the pages asked for by @vma into it. */
static int rb_map_vma(struct rb_cpu *cb, struct vm_area_struct *vma)
{
	unsigned long per = 1UL << cb->order, nr = cb->nr + 1;
	unsigned long total = (nr + 1) * per, off = vma->vm_pgoff;
	unsigned long count = vma_pages(vma), i, n;
	struct rb_data_page **pages;
	struct page **list;
	int ret = -ENOMEM;

	if (!count || off >= total || count > total - off || off % per)
		return -EINVAL;
	pages = kcalloc(nr, sizeof(*pages), GFP_KERNEL);
	list = kcalloc(count, sizeof(*list), GFP_KERNEL);
	if (!pages || !list)
		goto out;
	scoped_guard(raw_spinlock_irq, &cb->reader_lock)
		rb_map_pages(cb, pages);
	for (i = 0; i < count; i++) {
		unsigned long pg = off + i;
		void *addr = pg < per ? (void *)cb->meta : pages[pg / per - 1];

		list[i] = virt_to_page(addr) + pg % per;
	}
	vm_flags_mod(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP,
		     VM_MAYWRITE);
	n = count;
	ret = vm_insert_pages(vma, vma->vm_start, list, &n);
out:
	kfree(list);
	kfree(pages);
	return ret;
}

/* Mappings of @cb after adding @delta.  Mutex held. */
static unsigned int rb_map_count(struct rb_cpu *cb, int delta)
{
	scoped_guard(raw_spinlock_irq, &cb->reader_lock)
		cb->mapped += delta;
	return cb->mapped;
}

/* The last mapping is gone: so is the meta page.  Mutex held. */
static void rb_map_drop(struct rb_cpu *cb)
{
	struct trace_buffer_meta *m = cb->meta;

	scoped_guard(raw_spinlock_irq, &cb->reader_lock)
		cb->meta = NULL;
	rb_page_free((void *)m, cb->order);
}

/**
 * ring_buffer_map - map a CPU's ring into user space
 * @buffer: the buffer
 * @cpu: the CPU
 * @vma: the mapping, read-only and shared
 *
 * The mapping shows the meta page (struct trace_buffer_meta), then each
 * sub-buffer of the ring by id, the live pages the writer fills, not
 * copies.  While a ring is mapped, resizing it or changing the sub-buffer
 * size returns -EBUSY.
 *
 * Context: Process context, mmap_lock held; takes the buffer's mutex.
 * Return: 0, -EINVAL for a CPU not in the buffer or a range beyond the
 * file, -EPERM for a writable, executable or private mapping, -EBUSY for
 * a persistent buffer, -ENOMEM, -EOPNOTSUPP without an MMU.
 */
int ring_buffer_map(struct trace_buffer *buffer, int cpu,
		    struct vm_area_struct *vma)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);
	int ret = 0;

	if (!cb)
		return -EINVAL;
	if (!IS_ENABLED(CONFIG_MMU))
		return -EOPNOTSUPP;
	/* The range may not be in the kernel's linear map. */
	if (cb->pm)
		return -EBUSY;
	if ((vma->vm_flags & (VM_WRITE | VM_EXEC)) ||
	    !(vma->vm_flags & VM_MAYSHARE))
		return -EPERM;
	guard(mutex)(&buffer->mutex);
	/* First: from here on read_page() leaves the pages in the ring. */
	if (rb_map_count(cb, 1) == 1)
		ret = rb_map_first(cb);
	if (!ret)
		ret = rb_map_vma(cb, vma);
	if (ret && !rb_map_count(cb, -1))
		rb_map_drop(cb);
	return ret;
}
EXPORT_SYMBOL_GPL(ring_buffer_map);

/**
 * ring_buffer_map_dup - account a copied mapping
 * @buffer: the buffer
 * @cpu: the CPU
 *
 * For a mapping duplicated without ring_buffer_map() (the vma's open).
 *
 * Context: Process context; takes the buffer's mutex.
 */
void ring_buffer_map_dup(struct trace_buffer *buffer, int cpu)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);

	if (!cb)
		return;
	guard(mutex)(&buffer->mutex);
	if (!WARN_ON_ONCE(!cb->mapped))
		rb_map_count(cb, 1);
}
EXPORT_SYMBOL_GPL(ring_buffer_map_dup);

/**
 * ring_buffer_unmap - drop one mapping of a CPU's ring
 * @buffer: the buffer
 * @cpu: the CPU
 *
 * Context: Process context; takes the buffer's mutex.
 * Return: 0, -EINVAL for a CPU not in the buffer, -ENODEV if not mapped.
 */
int ring_buffer_unmap(struct trace_buffer *buffer, int cpu)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);

	if (!cb)
		return -EINVAL;
	guard(mutex)(&buffer->mutex);
	if (!cb->mapped)
		return -ENODEV;
	if (!rb_map_count(cb, -1))
		rb_map_drop(cb);
	return 0;
}
EXPORT_SYMBOL_GPL(ring_buffer_unmap);

/**
 * ring_buffer_map_get_reader - move a mapping's reader on
 * @buffer: the buffer
 * @cpu: the CPU
 *
 * Events of the reader's sub-buffer beyond what the meta page said count as
 * read; without any, the next sub-buffer with events becomes the reader's
 * (Documentation section 8a).  The meta page is refreshed.
 *
 * Context: Process context; takes the buffer's mutex.
 * Return: 0 (also when there is nothing to read), -EINVAL for a CPU not
 * in the buffer, -ENODEV when the ring is not mapped.
 */
int ring_buffer_map_get_reader(struct trace_buffer *buffer, int cpu)
{
	struct rb_cpu *cb = rb_cpu_get(buffer, cpu);

	if (!cb)
		return -EINVAL;
	guard(mutex)(&buffer->mutex);
	if (!cb->mapped)
		return -ENODEV;
	scoped_guard(raw_spinlock_irq, &cb->reader_lock)
		rb_meta_update(cb, rb_map_next(buffer, cb));
	return 0;
}
EXPORT_SYMBOL_GPL(ring_buffer_map_get_reader);
