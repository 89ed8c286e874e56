// SPDX-License-Identifier: GPL-2.0
/*
 * The user-space mapping of a CPU's ring (trace_pipe_raw's mmap):
 * ring_buffer_map(), ring_buffer_unmap(), ring_buffer_map_dup() and
 * ring_buffer_map_get_reader(), with 6.12's layout and numbering.
 *
 * The vma is the shim's (shim/sim.c): vm_insert_pages() fills its page
 * table, and every read here goes through it: the meta page at offset 0,
 * sub-buffer id k at meta_page_size + k * subbuf_size.  Freeing a page
 * that is still mapped warns, so a meta page or sub-buffer that goes away
 * under a live mapping fails the case.
 */
#include <semaphore.h>

#include "rb_test.h"

#define MR_MAXEV 4096

static struct trace_buffer *mt_alloc(unsigned long size, unsigned int flags)
{
	struct trace_buffer *b = ring_buffer_alloc(size, flags);

	if (b)
		ring_buffer_set_clock(b, t_clock);
	return b;
}

/* Event payload: seq in the first 4 bytes, then t_fill() bytes of seq. */
static int mt_write(struct trace_buffer *b, int cpu, unsigned int len, u32 seq)
{
	static __thread u8 buf[2 * PAGE_SIZE];
	int ret;

	memcpy(buf, &seq, 4);
	t_fill(buf + 4, len - 4, seq);
	t_clock_set(t_clock() + 10);
	sim_bind(cpu);
	ret = ring_buffer_write(b, len, buf);
	sim_bind(0);
	return ret;
}

static int mt_event_ok(const struct t_pevent *e, unsigned int len, u32 *seq)
{
	if (e->len < len || e->len >= len + 8)
		return 0;
	memcpy(seq, e->data, 4);
	return t_check((const u8 *)e->data + 4, len - 4, *seq);
}

/*
 * A mapped reader as user space runs one: GET_READER, then the events of
 * the reader sub-buffer that it has not taken yet, up to reader.read.
 */
struct mt_reader {
	struct t_map *m;
	u32 id;
	u32 pos;		/* bytes of sub-buffer id already taken */
	int have_id;
	unsigned long commit_word;	/* of the last sub-buffer read */
	u8 page[PAGE_SIZE << 2];
	struct t_pevent ev[MR_MAXEV];
	int first, n;		/* new events: ev[first .. n - 1] */
	int moved;		/* the last GET_READER handed over something */
	int racing;		/* a writer may add to the reader's sub-buffer */
};

static int mt_get_reader(struct mt_reader *r)
{
	struct t_map *m = r->m;
	struct trace_buffer_meta *meta;
	u32 old_id = r->id, old_pos = r->pos;
	int old_have = r->have_id;
	unsigned long size;
	int ret, i;

	ret = ring_buffer_map_get_reader(m->b, m->cpu);
	if (ret)
		T_FAIL("ring_buffer_map_get_reader() = %d", ret);
	meta = t_map_meta(m);
	if (!meta)
		T_FAIL("no meta page in the mapping");
	if (meta->reader.id >= meta->nr_subbufs)
		T_FAIL("reader.id %u of %u sub-buffers", meta->reader.id, meta->nr_subbufs);
	if (meta->reader.lost_events)
		T_FAIL("reader.lost_events %llu after GET_READER",
		       (unsigned long long)meta->reader.lost_events);
	/* a new id, or the same one emptied by a reset: from its start */
	if (!r->have_id || meta->reader.id != r->id || meta->reader.read < r->pos) {
		r->id = meta->reader.id;
		r->pos = 0;
		r->have_id = 1;
	}
	if (meta->subbuf_size > sizeof(r->page))
		T_FAIL("sub-buffer of %u bytes", meta->subbuf_size);
	if (t_map_copy(m, t_map_subbuf_off(m, r->id), r->page, meta->subbuf_size))
		T_FAIL("sub-buffer id %u not mapped", r->id);
	memcpy(&r->commit_word, r->page + 8, sizeof(long));
	size = r->commit_word & T_COMMIT_MASK;
	if (size > meta->subbuf_size - T_SB_HDR)
		T_FAIL("commit %lu beyond the sub-buffer", size);
	/*
	 * everything the reader holds is handed over (what an interrupt wrote
	 * into it during the call may come after: r->racing)
	 */
	if (r->racing ? meta->reader.read > size : meta->reader.read != size)
		T_FAIL("reader.read %u, reader sub-buffer holds %lu bytes", meta->reader.read,
		       size);
	r->n = t_parse_data(r->page, size, r->ev, MR_MAXEV);
	if (r->n < 0)
		T_FAIL("malformed reader sub-buffer id %u", r->id);
	/* (padding, which is no event, may follow pos) */
	for (i = 0; i < r->n && r->ev[i].off < r->pos; i++)
		;
	if (i && (const u8 *)r->ev[i - 1].data - (r->page + T_SB_HDR) + r->ev[i - 1].len > r->pos)
		T_FAIL("reader.read %u of id %u is inside an event", r->pos, r->id);
	r->first = i;
	r->pos = meta->reader.read;
	r->moved = !old_have || r->id != old_id || r->pos != old_pos;
	return 0;
}

static void mt_reader_init(struct mt_reader *r, struct t_map *m)
{
	memset(r, 0, offsetof(struct mt_reader, page));
	r->m = m;
}

static int mt_meta_counters(struct t_map *m)
{
	struct trace_buffer_meta *meta = t_map_meta(m);
	struct trace_buffer *b = m->b;
	int cpu = m->cpu;

	T_ASSERT(meta);
	T_EQ(meta->overrun, ring_buffer_overrun_cpu(b, cpu));
	T_EQ(meta->read, ring_buffer_read_events_cpu(b, cpu));
	T_EQ(meta->entries - meta->overrun - meta->read, ring_buffer_entries_cpu(b, cpu));
	return 0;
}

static int test_map_bad_input(void)
{
	struct trace_buffer *b = mt_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	unsigned long nr, pages;
	struct t_map m;

	T_ASSERT(b);
	nr = t_map_ring_subbufs(b, 0);
	pages = nr + 2;
	T_EQ(t_map(&m, b, nr_cpu_ids), -EINVAL);
	T_EQ(ring_buffer_unmap(b, 0), -ENODEV);
	T_EQ(ring_buffer_map_get_reader(b, 0), -ENODEV);
	T_EQ(ring_buffer_unmap(b, nr_cpu_ids), -EINVAL);
	T_EQ(ring_buffer_map_get_reader(b, nr_cpu_ids), -EINVAL);
	T_EQ(t_map_range(&m, b, 0, pages, 0, T_VM_RO_SHARED | VM_WRITE), -EPERM);
	T_EQ(t_map_range(&m, b, 0, pages, 0, T_VM_RO_SHARED | VM_EXEC), -EPERM);
	T_EQ(t_map_range(&m, b, 0, pages, 0, VM_READ | VM_MAYREAD | VM_MAYWRITE), -EPERM);
	T_EQ(t_map_range(&m, b, 0, 1, pages, T_VM_RO_SHARED), -EINVAL);
	T_EQ(t_map_range(&m, b, 0, 1, pages + 5, T_VM_RO_SHARED), -EINVAL);
	T_EQ(t_map_range(&m, b, 0, 0, 0, T_VM_RO_SHARED), -EINVAL);
	T_EQ(t_map_range(&m, b, 0, pages + 1, 0, T_VM_RO_SHARED), -EINVAL);
	T_EQ(t_map_range(&m, b, 0, 2, pages - 1, T_VM_RO_SHARED), -EINVAL);
	/* nothing changed: still unmapped, resizable */
	T_EQ(ring_buffer_map_get_reader(b, 0), -ENODEV);
	T_EQ(ring_buffer_unmap(b, 0), -ENODEV);
	T_EQ(ring_buffer_resize(b, 16 * PAGE_SIZE, 0), 0);
	T_EQ(ring_buffer_resize(b, 8 * PAGE_SIZE, 0), 0);

	/* a part of the file: the last sub-buffer alone, then the meta page alone */
	T_EQ(t_map_range(&m, b, 0, 1, pages - 1, T_VM_RO_SHARED), 0);
	T_ASSERT(sim_vm_addr(&m.vma, 0));
	T_EQ(t_unmap(&m), 0);
	T_EQ(t_map_range(&m, b, 0, 1, 0, T_VM_RO_SHARED), 0);
	T_EQ(t_map_meta(&m)->nr_subbufs, nr + 1);
	T_EQ(t_unmap(&m), 0);
	T_EQ(ring_buffer_unmap(b, 0), -ENODEV);

	/* sub-buffers of two pages: an offset inside one is refused */
	T_EQ(ring_buffer_subbuf_order_set(b, 1), 0);
	nr = t_map_ring_subbufs(b, 0);
	T_EQ(t_map_range(&m, b, 0, 2, 1, T_VM_RO_SHARED), -EINVAL);
	T_EQ(t_map_range(&m, b, 0, 2, 3, T_VM_RO_SHARED), -EINVAL);
	T_EQ(t_map_range(&m, b, 0, 2, 2, T_VM_RO_SHARED), 0);
	T_EQ(t_unmap(&m), 0);
	T_EQ(t_map_range(&m, b, 0, 2 * (nr + 2) + 2, 0, T_VM_RO_SHARED), -EINVAL);
	T_EQ(ring_buffer_map_get_reader(b, 0), -ENODEV);
	ring_buffer_free(b);
	return 0;
}

/* Layout and meta fields at map time, for orders 0 to 2. */
static int test_map_layout(void)
{
	for (int order = 0; order <= 2; order++) {
		struct trace_buffer *b = mt_alloc(6 * PAGE_SIZE, RB_FL_OVERWRITE);
		unsigned long sb = PAGE_SIZE << order, nr;
		struct trace_buffer_meta *meta;
		const u8 *z;
		struct t_map m;

		T_ASSERT(b);
		T_EQ(ring_buffer_subbuf_order_set(b, order), 0);
		for (u32 i = 0; i < 5; i++)
			T_EQ(mt_write(b, 0, 40, i), 0);
		nr = t_map_ring_subbufs(b, 0);
		T_ASSERT(nr >= 2);
		T_EQ(t_map(&m, b, 0), 0);
		meta = t_map_meta(&m);
		T_ASSERT(meta);
		T_EQ(meta->meta_page_size, sb);
		T_EQ(meta->subbuf_size, sb);
		T_EQ(meta->meta_struct_len, sizeof(struct trace_buffer_meta));
		T_EQ(meta->nr_subbufs, nr + 1);
		T_EQ(meta->reader.id, 0);
		T_EQ(meta->reader.read, 0);
		T_EQ(meta->reader.lost_events, 0);
		T_EQ(meta->flags, 0);
		T_EQ(meta->Reserved1, 0);
		T_EQ(meta->Reserved2, 0);
		T_EQ(meta->entries, 5);
		T_EQ(meta->overrun, 0);
		T_EQ(meta->read, 0);
		/* the mapping can never become writable and is not copied */
		T_ASSERT(!(m.vma.vm_flags & VM_MAYWRITE));
		T_ASSERT(m.vma.vm_flags & VM_DONTCOPY);
		T_ASSERT(m.vma.vm_flags & VM_DONTEXPAND);
		T_ASSERT(m.vma.vm_flags & VM_DONTDUMP);
		/* the meta page is padded with zeroes up to one sub-buffer */
		for (unsigned long off = PAGE_SIZE; off < sb; off += PAGE_SIZE) {
			z = sim_vm_addr(&m.vma, off);
			T_ASSERT(z);
			for (unsigned long i = 0; i < PAGE_SIZE; i++)
				if (z[i])
					T_FAIL("order %d: byte %lu of the meta padding is %u",
					       order, off + i, z[i]);
		}
		for (u32 id = 0; id < nr + 1; id++) {
			unsigned long off = t_map_subbuf_off(&m, id);
			const u8 *p0 = sim_vm_addr(&m.vma, off);

			T_ASSERT(p0);
			/* a sub-buffer is one block: its pages follow each other */
			for (unsigned long k = 1; k < sb / PAGE_SIZE; k++)
				T_ASSERT(sim_vm_addr(&m.vma, off + k * PAGE_SIZE) == p0 + k * PAGE_SIZE);
			/* every id is its own sub-buffer */
			for (u32 j = 0; j < id; j++)
				T_ASSERT(sim_vm_addr(&m.vma, t_map_subbuf_off(&m, j)) != p0);
		}
		/* the five events sit in one sub-buffer of the ring, id 1 */
		T_EQ(t_map_commit(&m, 0) & T_COMMIT_MASK, 0);
		T_ASSERT((t_map_commit(&m, 1) & T_COMMIT_MASK) > 0);
		T_EQ(t_unmap(&m), 0);
		ring_buffer_free(b);
	}
	return 0;
}

/*
 * GET_READER hands over sub-buffers in ring order (ids 1, 2, ... after the
 * reader's 0) and every event exactly once, including the ones a writer
 * appends to the sub-buffer the reader holds; reader.read covers what
 * was handed over; the counters follow.
 */
static int test_map_get_reader(void)
{
	struct trace_buffer *b = mt_alloc(5 * PAGE_SIZE, 0);
	static struct mt_reader r;
	struct trace_buffer_meta *meta;
	u32 written = 0, got = 0, last_id, nr_subbufs, swaps = 0;
	struct t_map m;

	T_ASSERT(b);
	T_EQ(t_map(&m, b, 0), 0);
	meta = t_map_meta(&m);
	nr_subbufs = meta->nr_subbufs;
	mt_reader_init(&r, &m);

	/* empty: nothing handed over, reader 0 kept */
	if (mt_get_reader(&r))
		return 1;
	T_EQ(meta->reader.id, 0);
	T_EQ(r.n, 0);

	for (int i = 0; i < 10; i++)
		T_EQ(mt_write(b, 0, 40, written++), 0);
	if (mt_get_reader(&r))
		return 1;
	T_EQ(meta->reader.id, 1);
	T_EQ(r.n - r.first, 10);
	T_EQ(meta->read, 10);
	T_EQ(meta->entries, 10);
	got = 10;
	if (mt_meta_counters(&m))
		return 1;

	/* the writer is still on the reader's sub-buffer: it grows in place */
	for (int i = 0; i < 5; i++)
		T_EQ(mt_write(b, 0, 40, written++), 0);
	{
		unsigned long c = t_map_commit(&m, 1) & T_COMMIT_MASK;
		struct t_pevent ev[32];
		int n;

		T_ASSERT(c > meta->reader.read);
		T_EQ(t_map_copy(&m, t_map_subbuf_off(&m, 1), r.page, PAGE_SIZE), 0);
		n = t_parse_data(r.page, c, ev, 32);
		T_EQ(n, 15);
		for (int i = 0; i < n; i++) {
			u32 seq;

			T_ASSERT(mt_event_ok(&ev[i], 40, &seq));
			T_EQ(seq, i);
		}
		/* the meta page moves only with GET_READER */
		T_EQ(meta->read, 10);
	}
	if (mt_get_reader(&r))
		return 1;
	T_EQ(meta->reader.id, 1);
	T_EQ(r.n - r.first, 5);
	for (int i = r.first; i < r.n; i++) {
		u32 seq;

		T_ASSERT(mt_event_ok(&r.ev[i], 40, &seq));
		T_EQ(seq, got++);
	}
	T_EQ(meta->read, 15);

	/* many sub-buffers: the ids follow the ring, each event once */
	last_id = 1;
	while (written < 3000) {
		for (int i = 0; i < 37; i++)
			T_EQ(mt_write(b, 0, 100, written++), 0);
		for (;;) {
			u32 before = got;

			if (mt_get_reader(&r))
				return 1;
			if (meta->reader.id != last_id) {
				T_EQ(meta->reader.id, (last_id + 1) % nr_subbufs);
				last_id = meta->reader.id;
				swaps++;
			}
			for (int i = r.first; i < r.n; i++) {
				u32 seq;

				if (!mt_event_ok(&r.ev[i], got < 15 ? 40 : 100, &seq))
					T_FAIL("event %u corrupted", got);
				T_EQ(seq, got);
				got++;
			}
			if (mt_meta_counters(&m))
				return 1;
			T_EQ(meta->read, got);
			/* padding alone may be handed over: on until nothing moves */
			if (got == before && !r.moved)
				break;
		}
		T_EQ(got, written);
	}
	T_ASSERT(swaps > 2 * nr_subbufs);
	T_EQ(ring_buffer_entries_cpu(b, 0), 0);
	T_EQ(ring_buffer_overrun_cpu(b, 0), 0);
	T_EQ(t_unmap(&m), 0);
	ring_buffer_free(b);
	return 0;
}

/*
 * Overwritten events: the sub-buffer GET_READER hands over after a loss
 * has bit 31 of its commit word set and, where the room is, bit 30 and
 * the count stored after the data; reader.lost_events stays 0.
 */
static int test_map_lost_events(void)
{
	struct trace_buffer *b = mt_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	static struct mt_reader r;
	struct trace_buffer_meta *meta;
	unsigned long overrun, lost, cap = PAGE_SIZE - T_SB_HDR;
	u32 written = 0, expect;
	struct t_map m;

	T_ASSERT(b);
	T_EQ(t_map(&m, b, 0), 0);
	meta = t_map_meta(&m);
	mt_reader_init(&r, &m);
	while (written < 1000)
		T_EQ(mt_write(b, 0, 100, written++), 0);
	overrun = ring_buffer_overrun_cpu(b, 0);
	T_ASSERT(overrun > 0);
	if (mt_get_reader(&r))
		return 1;
	T_EQ(meta->overrun, overrun);
	T_ASSERT(r.commit_word & T_MISSED_EVENTS);
	if (cap - (r.commit_word & T_COMMIT_MASK) >= sizeof(long)) {
		T_ASSERT(r.commit_word & T_MISSED_STORED);
		memcpy(&lost, r.page + T_SB_HDR + (r.commit_word & T_COMMIT_MASK), sizeof(long));
		T_EQ(lost, overrun);
	}
	/* the oldest survivors follow the lost ones */
	T_ASSERT(r.n > 0);
	expect = overrun;
	for (int i = r.first; i < r.n; i++) {
		u32 seq;

		T_ASSERT(mt_event_ok(&r.ev[i], 100, &seq));
		T_EQ(seq, expect++);
	}
	/* the next sub-buffer follows without a loss */
	if (mt_get_reader(&r))
		return 1;
	T_ASSERT(r.n > 0);
	T_EQ(r.commit_word & (T_MISSED_EVENTS | T_MISSED_STORED), 0);
	for (int i = r.first; i < r.n; i++) {
		u32 seq;

		T_ASSERT(mt_event_ok(&r.ev[i], 100, &seq));
		T_EQ(seq, expect++);
	}
	/* a loss behind the sub-buffer the reader holds */
	while (written < 2000)
		T_EQ(mt_write(b, 0, 100, written++), 0);
	lost = ring_buffer_overrun_cpu(b, 0) - overrun;
	T_ASSERT(lost > 0);
	if (mt_get_reader(&r))
		return 1;
	T_ASSERT(r.commit_word & T_MISSED_EVENTS);
	if (cap - (r.commit_word & T_COMMIT_MASK) >= sizeof(long)) {
		unsigned long stored;

		T_ASSERT(r.commit_word & T_MISSED_STORED);
		memcpy(&stored, r.page + T_SB_HDR + (r.commit_word & T_COMMIT_MASK),
		       sizeof(long));
		T_EQ(stored, lost);
	}
	{
		u32 seq;

		T_ASSERT(mt_event_ok(&r.ev[r.first], 100, &seq));
		T_EQ(seq, expect + lost);
	}
	if (mt_meta_counters(&m))
		return 1;
	T_EQ(t_unmap(&m), 0);
	ring_buffer_free(b);
	return 0;
}

/* Resizes, order changes and swaps are refused while a CPU is mapped. */
static int test_map_refused(void)
{
	struct trace_buffer *b = mt_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct trace_buffer *spare = mt_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	unsigned long size0, w;
	struct t_map m;
	int ret;

	T_ASSERT(b && spare);
	size0 = ring_buffer_size(b, 0);
	T_EQ(t_map(&m, b, 0), 0);
	T_EQ(ring_buffer_resize(b, 32 * PAGE_SIZE, 0), -EBUSY);
	T_EQ(ring_buffer_resize(b, 32 * PAGE_SIZE, RING_BUFFER_ALL_CPUS), -EBUSY);
	T_EQ(ring_buffer_size(b, 0), size0);
	T_EQ(ring_buffer_size(b, 1), size0);
	/* another CPU is not mapped */
	T_EQ(ring_buffer_resize(b, 16 * PAGE_SIZE, 1), 0);
	T_EQ(ring_buffer_resize(spare, 16 * PAGE_SIZE, 1), 0);
	T_EQ(ring_buffer_subbuf_order_set(b, 1), -EBUSY);
	T_EQ(ring_buffer_subbuf_order_get(b), 0);
	T_EQ(ring_buffer_subbuf_order_set(b, 0), 0);
	/* swap: refused with a warning at most (callers must not try) */
	w = sim_warnings();
	sim_warn_hush(1);
	ret = ring_buffer_swap_cpu(spare, b, 0);
	sim_warn_hush(0);
	T_ASSERT(sim_warnings() - w <= 1);
	sim_warn_absorb(sim_warnings() - w);
	T_EQ(ret, -EBUSY);
	w = sim_warnings();
	sim_warn_hush(1);
	ret = ring_buffer_swap_cpu(b, spare, 0);
	sim_warn_hush(0);
	T_ASSERT(sim_warnings() - w <= 1);
	sim_warn_absorb(sim_warnings() - w);
	T_EQ(ret, -EBUSY);
	T_EQ(ring_buffer_swap_cpu(spare, b, 1), 0);
	/* still mapped and working */
	T_EQ(mt_write(b, 0, 40, 1), 0);
	T_EQ(ring_buffer_map_get_reader(b, 0), 0);
	T_EQ(t_map_meta(&m)->read, 1);
	T_EQ(t_unmap(&m), 0);
	/* unmapped: all allowed again */
	T_EQ(ring_buffer_resize(b, 16 * PAGE_SIZE, 0), 0);
	T_EQ(ring_buffer_resize(spare, 16 * PAGE_SIZE, 0), 0);
	T_EQ(ring_buffer_swap_cpu(spare, b, 0), 0);
	T_EQ(ring_buffer_subbuf_order_set(b, 1), 0);
	ring_buffer_free(b);
	ring_buffer_free(spare);
	return 0;
}

/*
 * Several mappings: a second map and map_dup each add one, unmap drops
 * one; the meta page and the refusals last until the last unmap.
 */
static int test_map_refcount(void)
{
	struct trace_buffer *b = mt_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct t_map m1, m2;
	struct trace_buffer_meta *meta;

	T_ASSERT(b);
	T_EQ(t_map(&m1, b, 0), 0);
	T_EQ(t_map(&m2, b, 0), 0);
	/* both map the same pages */
	T_ASSERT(t_map_meta(&m1) == t_map_meta(&m2));
	T_ASSERT(sim_vm_addr(&m1.vma, t_map_subbuf_off(&m1, 2)) ==
		 sim_vm_addr(&m2.vma, t_map_subbuf_off(&m2, 2)));
	t_map_dup(&m2);		/* mremap: the vma is opened again */
	T_EQ(t_unmap(&m1), 0);
	meta = t_map_meta(&m2);
	T_EQ(ring_buffer_resize(b, 32 * PAGE_SIZE, 0), -EBUSY);
	T_EQ(mt_write(b, 0, 40, 1), 0);
	T_EQ(ring_buffer_map_get_reader(b, 0), 0);
	T_EQ(meta->reader.id, 1);
	T_EQ(meta->read, 1);
	/* the duplicate goes: m2's pages are still mapped, the vma closes once more */
	sim_mmap_lock(&m2.mm);
	T_EQ(ring_buffer_unmap(b, 0), 0);
	sim_mmap_unlock(&m2.mm);
	T_EQ(ring_buffer_map_get_reader(b, 0), 0);
	T_EQ(meta->meta_struct_len, sizeof(*meta));
	T_EQ(meta->read, 1);
	T_EQ(ring_buffer_resize(b, 32 * PAGE_SIZE, 0), -EBUSY);
	T_EQ(t_unmap(&m2), 0);
	T_EQ(ring_buffer_map_get_reader(b, 0), -ENODEV);
	T_EQ(ring_buffer_unmap(b, 0), -ENODEV);
	T_EQ(ring_buffer_resize(b, 32 * PAGE_SIZE, 0), 0);
	/* mapped afresh: numbered afresh */
	T_EQ(mt_write(b, 0, 40, 2), 0);
	T_EQ(t_map(&m1, b, 0), 0);
	meta = t_map_meta(&m1);
	/*
	 * The reader's sub-buffer got the second event after the first was
	 * read: reader.read counts the bytes read of it, the first event's.
	 */
	T_EQ(meta->reader.id, 0);
	{
		static u8 page[PAGE_SIZE];
		struct t_pevent ev[4];

		T_EQ(t_map_copy(&m1, t_map_subbuf_off(&m1, 0), page, PAGE_SIZE), 0);
		T_EQ(t_parse_data(page, t_map_commit(&m1, 0) & T_COMMIT_MASK, ev, 4), 2);
		T_EQ(meta->reader.read, ev[1].off);
	}
	T_EQ(meta->nr_subbufs, t_map_ring_subbufs(b, 0) + 1);
	T_EQ(meta->entries, 2);
	T_EQ(meta->read, 1);
	T_EQ(t_unmap(&m1), 0);
	ring_buffer_free(b);
	return 0;
}

/*
 * consume, peek, read_page and the iterator keep working while mapped;
 * with GET_READER in between, every event is read once, in order.
 */
static int test_map_other_readers(void)
{
	struct trace_buffer *b = mt_alloc(8 * PAGE_SIZE, 0);
	struct buffer_data_read_page *rp = NULL;
	static struct t_pevent ev[512];
	static struct mt_reader r;
	u32 written = 0, next = 0;
	int by_map = 0, by_consume = 0, by_page = 0;
	struct t_map m;

	T_ASSERT(b);
	T_EQ(t_map(&m, b, 0), 0);
	mt_reader_init(&r, &m);
	T_EQ(ring_buffer_alloc_read_page(b, 0, &rp), 0);
	for (int round = 0; round < 300; round++) {
		int k = (round * 7) % 5, n;
		u32 seq;

		for (int i = 0; i < 12; i++)
			T_EQ(mt_write(b, 0, 60, written++), 0);
		switch (k) {
		case 0:
		case 1:
			if (mt_get_reader(&r))
				return 1;
			/*
			 * What consume or read_page took from the sub-buffer the
			 * mapping holds lies between its last reader.read and
			 * the new one: skipped by number.
			 */
			for (int i = r.first, fresh = 0; i < r.n; i++) {
				T_ASSERT(mt_event_ok(&r.ev[i], 60, &seq));
				if (seq < next && !fresh)
					continue;
				fresh = 1;
				T_EQ(seq, next++);
				by_map++;
			}
			/* the meta page is refreshed by GET_READER only */
			if (mt_meta_counters(&m))
				return 1;
			break;
		case 2: {
			struct ring_buffer_event *e;
			unsigned long lost;
			u64 ts;

			e = ring_buffer_peek(b, 0, &ts, NULL);
			if (next < written) {
				T_ASSERT(e);
				memcpy(&seq, ring_buffer_event_data(e), 4);
				T_EQ(seq, next);
			}
			for (int i = 0; i < 30 && (e = ring_buffer_consume(b, 0, &ts, &lost));
			     i++, by_consume++) {
				T_EQ(lost, 0);
				memcpy(&seq, ring_buffer_event_data(e), 4);
				T_EQ(seq, next++);
			}
			break;
		}
		case 3:
			if (ring_buffer_read_page(b, rp, PAGE_SIZE, 0, round & 1) < 0)
				break;
			n = t_parse_page(ring_buffer_read_page_data(rp), PAGE_SIZE, ev, 512, NULL);
			T_ASSERT(n >= 0);
			for (int i = 0; i < n; i++, by_page++) {
				T_ASSERT(mt_event_ok(&ev[i], 60, &seq));
				T_EQ(seq, next++);
			}
			break;
		case 4: {
			struct ring_buffer_iter *it = ring_buffer_read_start(b, 0, GFP_KERNEL);
			struct ring_buffer_event *e;
			u32 want = next;
			u64 ts;

			T_ASSERT(it);
			while ((e = ring_buffer_iter_peek(it, &ts))) {
				memcpy(&seq, ring_buffer_event_data(e), 4);
				T_EQ(seq, want++);
				ring_buffer_iter_advance(it);
			}
			ring_buffer_read_finish(it);
#ifndef RB_STOCK
			T_EQ(want, written);
#endif
			break;
		}
		}
		T_EQ(ring_buffer_read_events_cpu(b, 0), next);
		T_EQ(ring_buffer_entries_cpu(b, 0), written - next);
	}
	ring_buffer_free_read_page(b, 0, rp);
	T_ASSERT(by_map && by_consume && by_page);
	T_EQ(t_unmap(&m), 0);
	ring_buffer_free(b);
	return 0;
}

/* A reset while mapped empties the ring and refreshes the meta page. */
static int test_map_reset(void)
{
	struct trace_buffer *b = mt_alloc(6 * PAGE_SIZE, RB_FL_OVERWRITE);
	static struct mt_reader r;
	struct trace_buffer_meta *meta;
	u32 written = 0, next;
	struct t_map m;

	T_ASSERT(b);
	T_EQ(t_map(&m, b, 0), 0);
	meta = t_map_meta(&m);
	mt_reader_init(&r, &m);
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 150; i++)
			T_EQ(mt_write(b, 0, 80, written++), 0);
		if (mt_get_reader(&r))
			return 1;
		T_ASSERT(r.n > 0);
		if (round & 1)
			ring_buffer_reset(b);
		else
			ring_buffer_reset_cpu(b, 0);
		T_EQ(meta->entries, 0);
		T_EQ(meta->overrun, 0);
		T_EQ(meta->read, 0);
		T_EQ(meta->reader.read, 0);
		T_EQ(meta->reader.lost_events, 0);
		T_ASSERT(meta->reader.id < meta->nr_subbufs);
		T_EQ(t_map_commit(&m, meta->reader.id) & T_COMMIT_MASK, 0);
		T_EQ(ring_buffer_entries_cpu(b, 0), 0);
		/* what is written next is read next, through the mapping */
		next = written;
		for (int i = 0; i < 60; i++)
			T_EQ(mt_write(b, 0, 80, written++), 0);
		while (next < written) {
			u32 before = next;

			if (mt_get_reader(&r))
				return 1;
			for (int i = r.first; i < r.n; i++) {
				u32 seq;

				T_ASSERT(mt_event_ok(&r.ev[i], 80, &seq));
				T_EQ(seq, next++);
			}
			if (next == before && !r.moved)
				T_FAIL("round %d: %u of %u events after the reset not handed over",
				       round, written - next, written - before);
		}
		if (mt_meta_counters(&m))
			return 1;
		T_EQ(meta->read, 60);
		T_EQ(meta->overrun, 0);
	}
	T_EQ(t_unmap(&m), 0);
	ring_buffer_free(b);
	return 0;
}

/* Sub-buffers of several pages are read across page boundaries. */
static int test_map_big_subbufs(void)
{
	struct trace_buffer *b = mt_alloc(24 * PAGE_SIZE, 0);
	static struct mt_reader r;
	u32 written = 0, next = 0;
	struct t_map m;

	T_ASSERT(b);
	T_EQ(ring_buffer_subbuf_order_set(b, 2), 0);
	T_EQ(t_map(&m, b, 0), 0);
	T_EQ(t_map_meta(&m)->subbuf_size, PAGE_SIZE << 2);
	mt_reader_init(&r, &m);
	while (written < 2000) {
		for (int i = 0; i < 90; i++, written++)
			T_EQ(mt_write(b, 0, 200 + (written % 5) * 4, written), 0);
		for (;;) {
			u32 before = next;

			if (mt_get_reader(&r))
				return 1;
			for (int i = r.first; i < r.n; i++) {
				u32 seq;

				T_ASSERT(mt_event_ok(&r.ev[i], 200 + (next % 5) * 4, &seq));
				T_EQ(seq, next++);
			}
			if (next == before && !r.moved)
				break;
		}
		T_EQ(next, written);
	}
	T_EQ(t_unmap(&m), 0);
	ring_buffer_free(b);
	return 0;
}

/*
 * A read_page() that runs while ring_buffer_map() inserts the pages (it
 * holds neither the buffer's mutex nor the mmap_lock: read() of
 * trace_pipe_raw from another thread) must not leave the mapping showing
 * a sub-buffer that read_page() took out of the ring.
 */
static struct {
	struct trace_buffer *b;
	struct buffer_data_read_page *rp;
	int ret;
} mt_vs;

static void mt_read_page_in_map(struct vm_area_struct *vma)
{
	(void)vma;
	mt_vs.ret = ring_buffer_read_page(mt_vs.b, mt_vs.rp, PAGE_SIZE, 0, 1);
}

static int mt_vs_read(struct t_map *m, struct mt_reader *r, u32 *next, u32 written)
{
	while (*next < written) {
		u32 before = *next;

		if (mt_get_reader(r))
			return 1;
		for (int i = r->first; i < r->n; i++) {
			u32 seq;

			if (!mt_event_ok(&r->ev[i], 100, &seq))
				T_FAIL("event %u corrupted (id %u)", *next, r->id);
			if (seq != *next)
				T_FAIL("event %u read as %u (id %u)", *next, seq, r->id);
			(*next)++;
		}
		if (*next == before && !r->moved)
			T_FAIL("%u events not handed over", written - *next);
	}
	return 0;
}

static int test_map_vs_read_page(void)
{
	struct trace_buffer *b = mt_alloc(4 * PAGE_SIZE, 0);
	static struct t_pevent ev[64];
	static struct mt_reader r;
	u32 written = 0, next = 0;
	struct t_map m;
	int n, bad = 0;

	T_ASSERT(b);
	mt_vs.b = b;
	T_EQ(ring_buffer_alloc_read_page(b, 0, &mt_vs.rp), 0);
	while (written < 100)
		T_EQ(mt_write(b, 0, 100, written++), 0);
	mt_vs.ret = -1000;
	sim_vm_insert_fn = mt_read_page_in_map;
	T_EQ(t_map(&m, b, 0), 0);
	sim_vm_insert_fn = NULL;
	/* it ran, and took the oldest full sub-buffer */
	T_ASSERT(mt_vs.ret >= 0);
	n = t_parse_page(ring_buffer_read_page_data(mt_vs.rp), PAGE_SIZE, ev, 64, NULL);
	T_ASSERT(n > 0);
	for (int i = 0; i < n; i++) {
		u32 seq;

		T_ASSERT(mt_event_ok(&ev[i], 100, &seq));
		T_EQ(seq, next++);
	}
	/* the rest, and enough more to take every sub-buffer round twice */
	mt_reader_init(&r, &m);
	for (int round = 0; round < 12 && !bad; round++) {
		bad = mt_vs_read(&m, &r, &next, written);
		for (int i = 0; i < 30 && !bad; i++)
			T_EQ(mt_write(b, 0, 100, written++), 0);
	}
	if (!bad)
		bad = mt_vs_read(&m, &r, &next, written);
	T_EQ(t_unmap(&m), 0);
	ring_buffer_free_read_page(b, 0, mt_vs.rp);
	ring_buffer_free(b);
#ifdef RB_STOCK
	/*
	 * Stock defect: ring_buffer_map() numbers the sub-buffers under the
	 * reader lock, drops it to insert the pages and counts the CPU as
	 * mapped only then; a read_page() in between exchanges a numbered
	 * sub-buffer for its own page, and the mapping goes on showing the
	 * page read_page() took.  Noted, not failed, on stock only.
	 */
	if (bad) {
		printf("# stock defect tolerated: read_page() during ring_buffer_map() left a stale sub-buffer in the mapping\n");
		return 0;
	}
#endif
	return bad;
}

/*
 * Mapping a live ring stops no writer: an event written while the first
 * ring_buffer_map() waits for a grace period is recorded, and the
 * sub-buffer the writer is in shows every event written before the map.
 */
static struct trace_buffer *mt_live_buf;
static int mt_live_ret = -1;

static void mt_live_write(void)
{
	mt_live_ret = mt_write(mt_live_buf, 0, 40, 5);
}

static int test_map_keeps_recording(void)
{
	struct trace_buffer *b = mt_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	static struct mt_reader r;
	struct t_map m;
	u32 seq;
	int ret;

	T_ASSERT(b);
	for (u32 i = 0; i < 5; i++)
		T_EQ(mt_write(b, 0, 40, i), 0);
	mt_live_buf = b;
	mt_live_ret = -1;
	sim_after_gp_fn = mt_live_write;
	ret = t_map(&m, b, 0);
	sim_after_gp_fn = NULL;
	T_EQ(ret, 0);
	/* (stock's map waits for no grace period: write right after it) */
	if (mt_live_ret == -1)
		mt_live_write();
	T_EQ(mt_live_ret, 0);
	T_EQ(ring_buffer_dropped_events_cpu(b, 0), 0);
	T_EQ(ring_buffer_entries_cpu(b, 0), 6);
	mt_reader_init(&r, &m);
	if (mt_get_reader(&r))
		return 1;
	T_EQ(r.n - r.first, 6);
	for (int i = 0; i < 6; i++) {
		T_ASSERT(mt_event_ok(&r.ev[r.first + i], 40, &seq));
		T_EQ(seq, i);
	}
	T_EQ(t_unmap(&m), 0);
	ring_buffer_free(b);
	return 0;
}

/*
 * ring_buffer_map() makes every later publication store the commit word
 * of the page the writer is on, and its interrupt to the CPU publishes
 * what is already there (again, while a writer is inside).  That
 * interrupt may come at any instruction of a write that began after the
 * mapping was set up: once the map is done, the live page's commit word
 * must say what commit says, or user space (and GET_READER's reader.read)
 * disagree with the page until the next write.
 */
static struct trace_buffer *mp_buf;
static long mp_points, mp_first_bad, mp_stale;
static int mp_status, mp_ret, mp_child;

static void mp_ipi(void)
{
	t_map_ipi(mp_buf, 0);
}

static void mp_after_gp(void)
{
	u8 buf[40];
	int ret;

	t_fill(buf, sizeof(buf), 77);
	if (!sim_step_sweep(mp_ipi, 3)) {
		mp_points = -1;
		return;
	}
	ret = ring_buffer_write(mp_buf, sizeof(buf), buf);
	mp_ret = ret;
	/* the child goes on with the map, which calls again while busy */
	if (sim_step_end()) {
		mp_child = 1;
		return;
	}
	mp_points = sim_step_results(&mp_first_bad, &mp_status, &mp_stale);
}

static int test_map_ipi_in_write(void)
{
	struct trace_buffer *b = mt_alloc(8 * PAGE_SIZE, 0);
	struct t_map m;
	int ret;

#ifdef RB_STOCK
	T_SKIP("stock 6.12 stops the writers while it maps");
#endif
#ifndef __x86_64__
	T_SKIP("single-stepping is x86-64 only");
#endif
	T_ASSERT(b);
	mp_buf = b;
	for (u32 i = 0; i < 10; i++)
		T_EQ(mt_write(b, 0, 40, i), 0);
	sim_after_gp_fn = mp_after_gp;
	mp_child = 0;
	ret = t_map(&m, b, 0);
	sim_after_gp_fn = NULL;
	if (mp_child)
		_exit(ret || mp_ret ? 4 : t_live_commit_lag(b, 0) ? 3 : 0);
	T_EQ(ret, 0);
	T_ASSERT(mp_points > 100);
	T_EQ(mp_ret, 0);
	printf("# %ld interrupt points\n", mp_points);
	if (mp_first_bad)
		T_FAIL("interrupt after instruction %ld: wait status %#x", mp_first_bad,
		       mp_status);
	if (mp_stale)
		T_FAIL("at %ld of %ld points the map's interrupt left the live page's commit word behind commit",
		       mp_stale, mp_points);
	T_EQ(t_live_commit_lag(b, 0), 0);
	T_EQ(t_unmap(&m), 0);
	ring_buffer_free(b);
	return 0;
}

/*
 * The map's interrupt cannot reach an offline CPU, so the map publishes
 * for that CPU's writers from its own.  The CPU may come up meanwhile: a
 * writer of it that gets in while the map publishes would have its open
 * reserve published and leave the guard taken.  The map must keep that
 * CPU's writers out while it publishes for them.  Here the map stops
 * inside its publication (the test holds the reader lock), CPU k comes
 * up and a writer tries to reserve.
 */
static struct {
	struct trace_buffer *b;
	struct t_map m;
	int cpu, ret;
	struct ring_buffer_event *ev;
	sem_t inside, go, gp, locked;
} mo;

/* The map has counted itself: the test takes the reader lock now. */
static void mo_after_gp(void)
{
	sem_post(&mo.gp);
	sem_wait(&mo.locked);
}

static void *mo_mapper(void *arg)
{
	(void)arg;
	mo.ret = t_map(&mo.m, mo.b, mo.cpu);
	return NULL;
}

static void *mo_writer(void *arg)
{
	(void)arg;
	mo.ev = ring_buffer_lock_reserve(mo.b, 40);
	sem_post(&mo.inside);
	sem_wait(&mo.go);
	if (mo.ev) {
		t_fill(ring_buffer_event_data(mo.ev), 40, 9);
		ring_buffer_unlock_commit(mo.b);
	}
	return NULL;
}

static int test_map_offline_cpu_comes_up(void)
{
	int k = nr_cpu_ids - 1, ret = 0, i;
	struct sim_thread mapper = { 0 }, writer = { 0 };
	raw_spinlock_t *lock;

#ifdef RB_STOCK
	T_SKIP("stock 6.12 sends no interrupt to map");
#endif
	mo.b = mt_alloc(8 * PAGE_SIZE, 0);
	T_ASSERT(mo.b && k > 1);
	mo.cpu = k;
	sem_init(&mo.inside, 0, 0);
	sem_init(&mo.go, 0, 0);
	sem_init(&mo.gp, 0, 0);
	sem_init(&mo.locked, 0, 0);
	sim_cpu_down(k);
	sim_after_gp_fn = mo_after_gp;
	sim_thread_start(&mapper, 1, mo_mapper, NULL);
	sem_wait(&mo.gp);
	/* held as another CPU would: no grace period waits for the test */
	lock = t_reader_lock(mo.b, k);
	arch_spin_lock(&lock->l);
	sem_post(&mo.locked);
	/* the map publishes for CPU k: the guard is taken, the lock is ours */
	for (i = 0; i < 2000 && t_guard_top(mo.b, k) != 1; i++)
		usleep(1000);
	cpumask_set_cpu(k, &sim_online_mask);
	sim_thread_start(&writer, k, mo_writer, NULL);
	sem_wait(&mo.inside);
	arch_spin_unlock(&lock->l);
	sim_thread_join(&mapper);

	if (i == 2000)
		ret = 1, printf("# the map never published for CPU %d\n", k);
	/* nothing of a reserve still open may be readable */
	if (mo.ev && ring_buffer_peek(mo.b, k, NULL, NULL))
		ret = 1, printf("# an open reserve of CPU %d was published\n", k);
	sem_post(&mo.go);
	sim_thread_join(&writer);
	T_EQ(ret, 0);
	T_EQ(mo.ret, 0);
	/* CPU k's writers work as before, their events readable */
	T_EQ(mt_write(mo.b, k, 40, 1), 0);
	T_EQ(t_guard_top(mo.b, k), 0);
	T_EQ(ring_buffer_entries_cpu(mo.b, k), 1 + !!mo.ev);
	T_EQ(t_unmap(&mo.m), 0);
	ring_buffer_free(mo.b);
	return 0;
}

/*
 * GET_READER while the writer pushes out the oldest sub-buffer: the
 * writer has moved head past it and not yet counted it as overrun
 * (paused in that count).  GET_READER may take the slot's page but not
 * the sub-buffer; the events in that page are overrun, and must not be
 * handed to user space as well.  Every event is then either handed over
 * once, in order, or counted as overrun.
 */
static struct {
	struct trace_buffer *b;
	struct sim_thread th;
	sem_t paused, go;
	u32 seq;
} mq;

static void mq_split(void)
{
	sim_local_split_at = NULL;
	sem_post(&mq.paused);
	sem_wait(&mq.go);
}

static void *mq_writer(void *arg)
{
	(void)arg;
	sim_local_split_at = t_overrun_counter(mq.b, 0);
	sim_local_split_fn = mq_split;
	while (sim_local_split_at)
		mt_write(mq.b, 0, 40, mq.seq++);
	return NULL;
}

/* What GET_READER handed over: in order, none twice. */
static int mq_take(struct mt_reader *r, u32 *next, u32 *got)
{
	for (int i = r->first; i < r->n && r->ev[i].off < r->pos; i++) {
		u32 seq;

		if (!mt_event_ok(&r->ev[i], 40, &seq))
			T_FAIL("event %d of id %u does not decode", i, r->id);
		if (seq < *next)
			T_FAIL("event %u handed over after %u", seq, *next - 1);
		*next = seq + 1;
		(*got)++;
	}
	return 0;
}

static int test_map_get_reader_during_push(void)
{
	static struct mt_reader r;
	u32 next = 0, got = 0;
	struct t_map m;

#ifdef RB_STOCK
	T_SKIP("stock 6.12 swaps the reader page under a lock the writer does not take");
#endif
	mq.b = mt_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	T_ASSERT(mq.b);
	T_EQ(t_map(&m, mq.b, 0), 0);
	mt_reader_init(&r, &m);
	sem_init(&mq.paused, 0, 0);
	sem_init(&mq.go, 0, 0);
	mq.seq = 0;
	sim_thread_start(&mq.th, 0, mq_writer, NULL);
	sem_wait(&mq.paused);
	sim_bind(1);
	r.racing = 1;
	if (mt_get_reader(&r) || mq_take(&r, &next, &got))
		return 1;
	sem_post(&mq.go);
	sim_thread_join(&mq.th);
	r.racing = 0;
	for (int i = 0; i < 64; i++) {
		if (mt_get_reader(&r) || mq_take(&r, &next, &got))
			return 1;
		if (!r.moved)
			break;
	}
	sim_bind(0);
	T_EQ(next, mq.seq);
	T_EQ(got + ring_buffer_overrun_cpu(mq.b, 0), mq.seq);
	T_EQ(t_unmap(&m), 0);
	ring_buffer_free(mq.b);
	return 0;
}

/*
 * GET_READER with an irq writer after each of its instructions: two kinds
 * of irq, two 40-byte events, or two of 1,500 bytes (the second crosses
 * into the next sub-buffer, or into the one after the reader's).  The
 * reader holds a sub-buffer taken before; in each child the interrupted
 * call and the calls after it must hand over every event written, task's
 * and irq's, exactly once and in order, and the meta page's counters
 * must agree with the buffer's.
 */
static struct trace_buffer *mg_buf;
static unsigned int mg_len;
static u32 mg_next;

static void mg_irq(void)
{
	static u8 buf[2048];

	sim_ctx.pc += HARDIRQ_OFFSET;
	for (int i = 0; i < 2; i++) {
		u32 seq = mg_next++;

		memcpy(buf, &seq, 4);
		t_fill(buf + 4, mg_len - 4, seq);
		t_clock_set(t_clock() + 10);
		if (ring_buffer_write(mg_buf, mg_len, buf))
			mg_next--;
	}
	sim_ctx.pc -= HARDIRQ_OFFSET;
}

/*
 * The new events of @r's last GET_READER, up to reader.read (an irq may
 * have written more into the page): each the next of *@want.
 */
static int mg_take(struct mt_reader *r, u32 *want)
{
	for (int i = r->first; i < r->n && r->ev[i].off < r->pos; i++) {
		u32 seq;

		if (!mt_event_ok(&r->ev[i], r->ev[i].len >= 1500 ? 1500 : 40, &seq))
			T_FAIL("event %d of id %u does not decode", i, r->id);
		if (seq != *want)
			T_FAIL("event %u handed over, want %u", seq, *want);
		(*want)++;
	}
	return 0;
}

/* Call GET_READER until it hands nothing more over; then all is read. */
static int mg_drain(struct mt_reader *r, u32 *want)
{
	for (int i = 0; i < 64; i++) {
		if (mt_get_reader(r) || mg_take(r, want))
			return 1;
		if (!r->moved)
			break;
	}
	if (*want != mg_next)
		T_FAIL("%u events handed over, %u written", *want, mg_next);
	return mt_meta_counters(r->m);
}

static int test_map_irq_in_get_reader(void)
{
	static const unsigned int lens[] = { 40, 1500 };
	struct trace_buffer *b = mt_alloc(16 * PAGE_SIZE, 0);
	static struct mt_reader r;
	long points, first_bad, tol;
	u32 want = 0;
	struct t_map m;
	int status;

#ifndef __x86_64__
	T_SKIP("single-stepping is x86-64 only");
#endif
	T_ASSERT(b);
	mg_buf = b;
	T_EQ(t_map(&m, b, 0), 0);
	mt_reader_init(&r, &m);
	for (mg_next = 0; mg_next < 150; mg_next++)
		T_EQ(mt_write(b, 0, 40, mg_next), 0);
	if (mt_get_reader(&r) || mg_take(&r, &want))
		return 1;
	for (unsigned int k = 0; k < ARRAY_SIZE(lens); k++) {
		int ret;

		mg_len = lens[k];
		r.racing = 1;
		T_ASSERT(sim_step_sweep(mg_irq, 0));
		ret = mt_get_reader(&r);
		if (sim_step_end())
			_exit(ret || mg_take(&r, &want) || (r.racing = 0) ||
			      mg_drain(&r, &want));
		r.racing = 0;
		points = sim_step_results(&first_bad, &status, &tol);
		printf("# irq of two %u-byte events: %ld interrupt points\n", mg_len, points);
		if (first_bad)
			T_FAIL("irq after instruction %ld of GET_READER: wait status %#x",
			       first_bad, status);
		T_ASSERT(points > 100);
		if (ret || mg_take(&r, &want))
			return 1;
		/* the next sweep starts from the written events, read */
		for (int i = 0; i < 40; i++, mg_next++)
			T_EQ(mt_write(b, 0, 40, mg_next), 0);
		if (mg_drain(&r, &want))
			return 1;
	}
	T_EQ(t_unmap(&m), 0);
	ring_buffer_free(b);
	return 0;
}

const struct rb_case rb_map_cases[] = {
	{ "map_bad_input", test_map_bad_input },
	{ "map_layout_and_meta", test_map_layout },
	{ "map_get_reader", test_map_get_reader },
	{ "map_lost_events", test_map_lost_events },
	{ "map_refused_while_mapped", test_map_refused },
	{ "map_refcount", test_map_refcount },
	{ "map_other_readers", test_map_other_readers },
	{ "map_reset", test_map_reset },
	{ "map_big_subbufs", test_map_big_subbufs },
	{ "map_vs_read_page", test_map_vs_read_page },
	{ "map_keeps_recording", test_map_keeps_recording },
	{ "map_ipi_in_write", test_map_ipi_in_write },
	{ "map_offline_cpu_comes_up", test_map_offline_cpu_comes_up },
	{ "map_get_reader_during_push", test_map_get_reader_during_push },
	{ "map_irq_in_get_reader", test_map_irq_in_get_reader },
};
const int rb_nr_map_cases = ARRAY_SIZE(rb_map_cases);
