// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the tests and the fuzzer: clock, payloads, page decoder. */
#include <sys/mman.h>

#include "rb_test.h"

int rb_opt_tsan;
int rb_opt_keep_going;
double rb_opt_stress_secs = 200;
unsigned long rb_opt_stress_events = 100000000UL;
u64 t_clock_now;
const char *t_skip_reason;

u64 t_clock(void)
{
	return __atomic_load_n(&t_clock_now, __ATOMIC_RELAXED);
}

void t_clock_set(u64 v)
{
	__atomic_store_n(&t_clock_now, v, __ATOMIC_RELAXED);
}

void t_fill(void *p, unsigned int len, u32 seed)
{
	u8 *b = p;

	for (unsigned int i = 0; i < len; i++)
		b[i] = (u8)(seed * 31 + i * 7 + (seed >> 8));
}

int t_check(const void *p, unsigned int len, u32 seed)
{
	const u8 *b = p;

	for (unsigned int i = 0; i < len; i++)
		if (b[i] != (u8)(seed * 31 + i * 7 + (seed >> 8)))
			return 0;
	return 1;
}

static u32 t_word(const u8 *p)
{
	u32 v;

	memcpy(&v, p, 4);
	return v;
}

int t_parse_page(const void *page, size_t size, struct t_pevent *ev, int max,
		 int *missed)
{
	unsigned long commit_word;
	size_t commit;

	memcpy(&commit_word, (const u8 *)page + 8, sizeof(commit_word));
	commit = commit_word & 0xfffff;
	if (missed)
		*missed = !!(commit_word & (1UL << 31));
	if (commit > size - T_SB_HDR) {
		printf("# page: commit %zu beyond the sub-buffer (%zu)\n", commit, size);
		return -1;
	}
	return t_parse_data(page, commit, ev, max);
}

int t_parse_data(const void *page, size_t commit, struct t_pevent *ev, int max)
{
	const u8 *base = page;
	u64 ts;
	size_t off = 0;
	const u8 *data = base + T_SB_HDR;
	int n = 0;

	memcpy(&ts, base, 8);
	while (off < commit) {
		u32 hdr = t_word(data + off);
		u32 type_len = hdr & 31, delta = hdr >> 5;
		size_t elen;

		if (commit - off < 4) {
			printf("# page: %zu stray bytes before commit\n", commit - off);
			return -1;
		}
		switch (type_len) {
		case RINGBUF_TYPE_PADDING:
			if (!delta) {
				printf("# page: null padding inside commit at %zu\n", off);
				return -1;
			}
			elen = t_word(data + off + 4) + 4;
			break;
		case RINGBUF_TYPE_TIME_EXTEND:
			ts += delta | ((u64)t_word(data + off + 4) << 27);
			elen = 8;
			break;
		case RINGBUF_TYPE_TIME_STAMP:
			ts = (delta | ((u64)t_word(data + off + 4) << 27)) |
				(ts & ~((1ULL << 59) - 1));
			elen = 8;
			break;
		default:
			ts += delta;
			if (n >= max) {
				printf("# page: more than %d events\n", max);
				return -1;
			}
			ev[n].ts = ts;
			ev[n].off = off;
			if (type_len) {
				ev[n].len = type_len * 4;
				ev[n].data = data + off + 4;
			} else {
				ev[n].len = t_word(data + off + 4) - 4;
				ev[n].data = data + off + 8;
			}
			elen = (type_len ? 4 : 8) + ev[n].len;
			n++;
			break;
		}
		if (elen < 4 || off + elen > commit) {
			printf("# page: event at %zu of %zu bytes crosses commit %zu\n",
			       off, elen, commit);
			return -1;
		}
		off += elen;
	}
	return n;
}


/* ---------------------------------------------------------------- */
/* a CPU's ring mapped as trace_pipe_raw's mmap() would map it      */
/* ---------------------------------------------------------------- */
/*
 * Where the vma starts: each mapping has an address space of its own and
 * the address is never dereferenced (reads go through the page table).
 */
#define T_MAP_START 0x10000000UL

int t_map_range(struct t_map *m, struct trace_buffer *b, int cpu, unsigned long nr_pages,
		unsigned long pgoff, unsigned long flags)
{
	unsigned long start = T_MAP_START;
	int ret;

	memset(m, 0, sizeof(*m));
	m->b = b;
	m->cpu = cpu;
	sim_vm_setup(&m->vma, &m->mm, start, nr_pages, pgoff, flags);
	sim_mmap_lock(&m->mm);
	ret = ring_buffer_map(b, cpu, &m->vma);
	sim_mmap_unlock(&m->mm);
	if (ret)
		sim_vm_zap(&m->vma);
	else
		m->live = 1;
	return ret;
}

unsigned long t_map_ring_subbufs(struct trace_buffer *b, int cpu)
{
	unsigned long cap = ring_buffer_subbuf_size_get(b) - T_SB_HDR;

	return ring_buffer_size(b, cpu) / cap;
}

int t_map(struct t_map *m, struct trace_buffer *b, int cpu)
{
	unsigned long pages = (t_map_ring_subbufs(b, cpu) + 2) *
		(ring_buffer_subbuf_size_get(b) / PAGE_SIZE);

	return t_map_range(m, b, cpu, pages, 0, T_VM_RO_SHARED);
}

int t_unmap(struct t_map *m)
{
	int ret;

	if (!m->live)
		return -ENODEV;
	/* munmap: the page table goes first, then the vma's close */
	sim_vm_zap(&m->vma);
	m->live = 0;
	sim_mmap_lock(&m->mm);
	ret = ring_buffer_unmap(m->b, m->cpu);
	sim_mmap_unlock(&m->mm);
	return ret;
}

void t_map_dup(struct t_map *m)
{
	sim_mmap_lock(&m->mm);
	ring_buffer_map_dup(m->b, m->cpu);
	sim_mmap_unlock(&m->mm);
}

struct trace_buffer_meta *t_map_meta(const struct t_map *m)
{
	return sim_vm_addr(&m->vma, 0);
}

unsigned long t_map_subbuf_off(const struct t_map *m, u32 id)
{
	const struct trace_buffer_meta *meta = t_map_meta(m);

	return meta->meta_page_size + (unsigned long)id * meta->subbuf_size;
}

int t_map_copy(const struct t_map *m, unsigned long off, void *dst, size_t len)
{
	u8 *d = dst;

	while (len) {
		const u8 *src = sim_vm_addr(&m->vma, off);
		size_t n = min_t(size_t, len, PAGE_SIZE - (off & ~PAGE_MASK));

		if (!src)
			return -1;
		memcpy(d, src, n);
		d += n;
		off += n;
		len -= n;
	}
	return 0;
}

unsigned long t_map_commit(const struct t_map *m, u32 id)
{
	const unsigned long *w = sim_vm_addr(&m->vma, t_map_subbuf_off(m, id) + 8);

	return w ? __atomic_load_n(w, __ATOMIC_ACQUIRE) : ~0UL;
}

/* A range for persistent buffers between two PROT_NONE guard pages. */
int t_area_get(struct t_area *a, size_t pages)
{
	a->size = pages * PAGE_SIZE;
	a->map = mmap(NULL, a->size + 2 * PAGE_SIZE, PROT_NONE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a->map == MAP_FAILED)
		return -1;
	a->start = a->map + PAGE_SIZE;
	if (mprotect(a->start, a->size, PROT_READ | PROT_WRITE))
		return -1;
	sim_reserve_range((unsigned long)a->start, a->size);
	return 0;
}

void t_area_put(struct t_area *a)
{
	sim_reserve_range(0, 0);
	munmap(a->map, a->size + 2 * PAGE_SIZE);
	a->map = NULL;
}
