// SPDX-License-Identifier: GPL-2.0
/*
 * Stress: a writer thread on every simulated CPU, interrupts and NMIs
 * (signals) whose handlers write too, a consuming reader, a read_page
 * reader, an iterator and a control thread that resizes and flips the
 * overwrite mode under load.  Every pause (all threads parked) checks the
 * counters exactly, then resets or swaps a CPU.
 *
 * Payload: magic, cpu, level, length, per-(cpu, level) sequence number
 * and a checksum over the rest.  Readers check: intact, order per CPU and
 * level, no duplicates, stamps never backwards per CPU; at every pause,
 * per CPU: committed == entries + read + overrun and read == received.
 *
 * stress_mapped_reader adds a thread that maps CPU 1 or CPU 3 (taking
 * turns, unmapping in between) and reads it through the mapping with
 * GET_READER, racing the writers, the consumer or read_page reader of
 * that CPU, the iterator, resizes (refused while mapped) and the resets
 * and swaps (refused) of the pauses.  What it reads counts as received:
 * every event is still accounted for, read by one reader exactly once.
 * The readers of one CPU take turns (s_rlock): between GET_READER and
 * reading the sub-buffer, another consuming reader could hand it back to
 * the writers, as it could to user space in the kernel.
 */
#include "rb_test.h"

#include <time.h>
#include <sys/prctl.h>

#define S_NCPU 4
#define S_MAGIC 0x5eedc0deU
#define S_HDR 24

struct s_payload {
	u32 magic;
	u16 cpu;
	u8 lvl;
	u8 pad;
	u32 len;
	u32 csum;
	u64 seq;
};
_Static_assert(sizeof(struct s_payload) == S_HDR, "payload header");

struct s_cpu_state {
	/* writer side: touched by the CPU's thread and its interrupts */
	u64 next_seq[SIM_NR_LEVELS];
	unsigned long committed;
	unsigned long refused;
	/* reader side: touched by whoever reads this CPU */
	u64 last_seq[SIM_NR_LEVELS];
	u64 last_ts;
	unsigned long received;
	unsigned long lost;
} __aligned(64);

static struct {
	struct trace_buffer *buf, *spare;
	struct s_cpu_state cpu[S_NCPU];
	struct sim_thread writer[S_NCPU];
	int stop, paused, parked;
	int failed;
	unsigned long nr_irq_events, iter_events, pages, resizes, flips;
	unsigned long resets, swaps, swap_refused, pauses, committed_total, refused_total;
	unsigned long sizes[S_NCPU];
	double secs;
	/* the mapped reader */
	int mapped;			/* this run has one */
	int map_cpu;			/* CPU mapped now, -1 if none */
	unsigned long map_events, map_calls, map_cycles, map_lost, map_busy;
	pthread_mutex_t rlock[S_NCPU];	/* the consuming readers of a CPU take turns */
} S;

static const u32 s_lens[] = { 24, 24, 32, 40, 64, 100, 112, 116, 200 };

static u32 s_csum(const u8 *p, u32 len)
{
	u64 h = 0x9e3779b97f4a7c15ULL, w;
	u32 i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
	}
	for (; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return (u32)(h ^ (h >> 32));
}

/* failures by kind (format string), to summarise a --keep-going run */
static struct {
	const char *fmt;
	unsigned long n;
} s_kinds[32];
static pthread_mutex_t s_kinds_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned long s_count_kind(const char *fmt)
{
	unsigned long n = 0;

	pthread_mutex_lock(&s_kinds_lock);
	for (int i = 0; i < 32; i++) {
		if (!s_kinds[i].fmt)
			s_kinds[i].fmt = fmt;
		if (s_kinds[i].fmt == fmt) {
			n = ++s_kinds[i].n;
			break;
		}
	}
	pthread_mutex_unlock(&s_kinds_lock);
	return n;
}

static void s_print_kinds(void)
{
	for (int i = 0; i < 32 && s_kinds[i].fmt; i++)
		printf("# stress: %lu x \"%s\"\n", s_kinds[i].n, s_kinds[i].fmt);
	memset(s_kinds, 0, sizeof(s_kinds));
}

static void s_fail(const char *fmt, ...)
{
	va_list ap;

	/* the first three of each kind are printed */
	__atomic_add_fetch(&S.failed, 1, __ATOMIC_SEQ_CST);
	if (s_count_kind(fmt) > 3)
		return;
	va_start(ap, fmt);
	printf("# stress: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

static void s_build(u8 *buf, int cpu, int lvl, u32 len, u64 seq)
{
	struct s_payload h = { S_MAGIC, cpu, lvl, 0, len, 0, seq };

	memcpy(buf, &h, S_HDR);
	for (u32 i = S_HDR; i < len; i++)
		buf[i] = (u8)(seq + i);
	h.csum = s_csum(buf + S_HDR, len - S_HDR) ^ (u32)seq ^ (u32)(seq >> 32) ^
		(cpu << 8) ^ lvl ^ (len << 16);
	memcpy(buf, &h, S_HDR);
}

static int s_write(int lvl, unsigned int r);

/*
 * ring_buffer_nest_start() around a write, as trace.c and synthetic events
 * use it: with no reserve of this context open (trace_puts), or inside
 * one (a synthetic event from a trigger).  Signals may hit anywhere in it.
 */
static void s_nested_write(int lvl, unsigned int r)
{
	/* one level per context (deeper ones would be refused, uncounted) */
	static __thread int busy[SIM_NR_LEVELS];

	if (busy[lvl])
		return;
	busy[lvl] = 1;
	ring_buffer_nest_start(S.buf);
	s_write(lvl, r);
	ring_buffer_nest_end(S.buf);
	busy[lvl] = 0;
}

/* Write one event from the current context; returns 1 when committed. */
static int s_write(int lvl, unsigned int r)
{
	int cpu = smp_processor_id();
	struct s_cpu_state *st = &S.cpu[cpu];
	u32 len = s_lens[r % ARRAY_SIZE(s_lens)];
	u64 seq = st->next_seq[lvl]++;
	u8 buf[256];
	struct ring_buffer_event *e;
	int ok;

	if ((r >> 8) % 4 == 0) {
		e = ring_buffer_lock_reserve(S.buf, len);
		if (!e) {
			ok = 0;
		} else if ((r >> 12) % 64 == 0) {
			ring_buffer_discard_commit(S.buf, e);
			return 0;
		} else {
			s_build(ring_buffer_event_data(e), cpu, lvl, len, seq);
			/* the nested event's seq comes after ours, as its place */
			if ((r >> 16) % 16 == 0)
				s_nested_write(lvl, r / 3);
			ring_buffer_unlock_commit(S.buf);
			ok = 1;
		}
	} else {
		s_build(buf, cpu, lvl, len, seq);
		ok = ring_buffer_write(S.buf, len, buf) == 0;
	}
	if (ok)
		__atomic_add_fetch(&st->committed, 1, __ATOMIC_RELAXED);
	else
		__atomic_add_fetch(&st->refused, 1, __ATOMIC_RELAXED);
	return ok;
}

static void s_irq(struct sim_thread *t, enum sim_level lvl)
{
	static __thread unsigned int r = 1;

	if (__atomic_load_n(&S.paused, __ATOMIC_SEQ_CST) || __atomic_load_n(&S.stop, __ATOMIC_SEQ_CST))
		return;
	r = r * 1103515245 + 12345;
	if ((r >> 24) % 8 == 0)
		s_nested_write(lvl, r >> 4);
	else
		s_write(lvl, r >> 4);
	__atomic_add_fetch(&S.nr_irq_events, 1, __ATOMIC_RELAXED);
}

static void s_park(void)
{
	__atomic_add_fetch(&S.parked, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&S.paused, __ATOMIC_SEQ_CST))
		usleep(200);
	__atomic_sub_fetch(&S.parked, 1, __ATOMIC_SEQ_CST);
}

static void *s_writer(void *arg)
{
	unsigned int r = (unsigned long)arg * 7919 + 1;

	while (!__atomic_load_n(&S.stop, __ATOMIC_RELAXED)) {
		if (__atomic_load_n(&S.paused, __ATOMIC_SEQ_CST)) {
			s_park();
			continue;
		}
		for (int i = 0; i < 64; i++) {
			r = r * 1103515245 + 12345;
			if ((r >> 24) % 8 == 0)
				s_nested_write(SIM_TASK, r >> 4);
			else
				s_write(SIM_TASK, r >> 4);
		}
	}
	return NULL;
}

/* Check one event read from CPU cpu. */
static void s_check(int cpu, const void *data, unsigned int stored_len, u64 ts,
		    int ordered)
{
	struct s_cpu_state *st = &S.cpu[cpu];
	struct s_payload h;
	u32 sum;

	if (stored_len < S_HDR) {
		s_fail("cpu %d: event of %u bytes", cpu, stored_len);
		return;
	}
	memcpy(&h, data, S_HDR);
	if (h.magic != S_MAGIC || h.cpu != cpu || h.lvl >= SIM_NR_LEVELS ||
	    h.len > stored_len || h.len < S_HDR) {
		s_fail("cpu %d: bad header magic %#x cpu %u lvl %u len %u/%u", cpu,
		       h.magic, h.cpu, h.lvl, h.len, stored_len);
		return;
	}
	sum = s_csum((const u8 *)data + S_HDR, h.len - S_HDR) ^ (u32)h.seq ^
		(u32)(h.seq >> 32) ^ (h.cpu << 8) ^ h.lvl ^ (h.len << 16);
	if (sum != h.csum) {
		s_fail("cpu %d: checksum of seq %llu lvl %u", cpu,
		       (unsigned long long)h.seq, h.lvl);
		return;
	}
	if (!ordered)
		return;
	if (h.seq + 1 <= st->last_seq[h.lvl])
		s_fail("cpu %d lvl %u: seq %llu after %llu (order or duplicate)", cpu,
		       h.lvl, (unsigned long long)h.seq,
		       (unsigned long long)st->last_seq[h.lvl] - 1);
	st->last_seq[h.lvl] = h.seq + 1;
	if (ts < st->last_ts)
		s_fail("cpu %d: stamp %llu after %llu", cpu, (unsigned long long)ts,
		       (unsigned long long)st->last_ts);
	st->last_ts = ts;
	st->received++;
}

static int s_consume_cpu(struct trace_buffer *b, int cpu, int max)
{
	struct ring_buffer_event *e;
	unsigned long lost;
	int n = 0;
	u64 ts;

	pthread_mutex_lock(&S.rlock[cpu]);
	while (n < max && (e = ring_buffer_consume(b, cpu, &ts, &lost))) {
		s_check(cpu, ring_buffer_event_data(e), ring_buffer_event_length(e), ts, 1);
		S.cpu[cpu].lost += lost;
		n++;
	}
	pthread_mutex_unlock(&S.rlock[cpu]);
	return n;
}

/* consuming reader: CPUs 0 and 1 */
static void *s_consumer(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&S.stop, __ATOMIC_RELAXED)) {
		int n = 0;

		if (__atomic_load_n(&S.paused, __ATOMIC_SEQ_CST)) {
			s_park();
			continue;
		}
		n += s_consume_cpu(S.buf, 0, 4096);
		n += s_consume_cpu(S.buf, 1, 4096);
		if (!n)
			usleep(50);
	}
	return NULL;
}

/* read_page reader: CPUs 2 and 3 */
static void *s_page_reader(void *arg)
{
	struct buffer_data_read_page *rp[S_NCPU] = { NULL };
	static struct t_pevent ev[1024];
	unsigned int r = 99;

	(void)arg;
	for (int cpu = 2; cpu < S_NCPU; cpu++)
		if (ring_buffer_alloc_read_page(S.buf, cpu, &rp[cpu])) {
			s_fail("alloc_read_page");
			return NULL;
		}
	while (!__atomic_load_n(&S.stop, __ATOMIC_RELAXED)) {
		int got = 0;

		if (__atomic_load_n(&S.paused, __ATOMIC_SEQ_CST)) {
			s_park();
			continue;
		}
		for (int cpu = 2; cpu < S_NCPU; cpu++) {
			int n, missed;

			r = r * 1103515245 + 12345;
			pthread_mutex_lock(&S.rlock[cpu]);
			if (ring_buffer_read_page(S.buf, rp[cpu], PAGE_SIZE, cpu, (r >> 10) & 1) < 0) {
				pthread_mutex_unlock(&S.rlock[cpu]);
				continue;
			}
			n = t_parse_page(ring_buffer_read_page_data(rp[cpu]), PAGE_SIZE, ev,
					 1024, &missed);
			if (n < 0) {
				pthread_mutex_unlock(&S.rlock[cpu]);
				s_fail("cpu %d: malformed sub-buffer", cpu);
				continue;
			}
			for (int i = 0; i < n; i++)
				s_check(cpu, ev[i].data, ev[i].len, ev[i].ts, 1);
			pthread_mutex_unlock(&S.rlock[cpu]);
			__atomic_add_fetch(&S.pages, 1, __ATOMIC_RELAXED);
			got += n;
		}
		if (!got)
			usleep(50);
	}
	for (int cpu = 2; cpu < S_NCPU; cpu++)
		ring_buffer_free_read_page(S.buf, cpu, rp[cpu]);
	return NULL;
}

/*
 * iterator: walks a CPU without consuming, while writers and consumers run.
 * Only integrity is checked: on a live buffer the stock iterator restarts
 * from the reader page when a consumer moved it (without flagging a drop),
 * so order within one walk is not part of the contract.  (trace.c stops
 * tracing while the "trace" file is open.)  Order and completeness are
 * checked by s_pause_iterate() while everything is parked.  Under TSan the
 * live walk is left out: copying a sub-buffer a writer may be overwriting,
 * then checking it was not, is a race by design in both implementations.
 */
static void *s_iterator(void *arg)
{
	unsigned int r = 5;

	(void)arg;
	while (!__atomic_load_n(&S.stop, __ATOMIC_RELAXED)) {
		struct ring_buffer_iter *it;

		if (rb_opt_tsan) {
			/* live pages are copied racily by design: see the top */
			if (__atomic_load_n(&S.paused, __ATOMIC_SEQ_CST))
				s_park();
			usleep(1000);
			continue;
		}
		struct ring_buffer_event *e;
		int cpu, n = 0;
		u64 ts;

		if (__atomic_load_n(&S.paused, __ATOMIC_SEQ_CST)) {
			s_park();
			continue;
		}
		r = r * 1103515245 + 12345;
		cpu = (r >> 8) % S_NCPU;
		it = ring_buffer_read_start(S.buf, cpu, GFP_KERNEL);
		if (!it) {
			s_fail("read_start failed");
			break;
		}
		while (n < 2000 && (e = ring_buffer_iter_peek(it, &ts))) {
			s_check(cpu, ring_buffer_event_data(e), ring_buffer_event_length(e), ts, 0);
			ring_buffer_iter_advance(it);
			n++;
		}
		ring_buffer_read_finish(it);
		__atomic_add_fetch(&S.iter_events, n, __ATOMIC_RELAXED);
		usleep(2000);
	}
	return NULL;
}

/*
 * Stock maps a CPU with a window in which read_page() can take a numbered
 * sub-buffer out of the ring (t_map.c, map_vs_read_page): on stock only,
 * a map waits for the other readers of the CPU.
 */
#ifdef RB_STOCK
#define S_MAP_LOCKED 1
#else
#define S_MAP_LOCKED 0
#endif
/* Map @cpu whole; a resize may change its ring meanwhile: then again. */
static int s_map(struct t_map *m, int cpu)
{
	for (int tries = 0; tries < 100; tries++) {
		int ret;

		if (S_MAP_LOCKED)
			pthread_mutex_lock(&S.rlock[cpu]);
		ret = t_map(m, S.buf, cpu);
		if (S_MAP_LOCKED)
			pthread_mutex_unlock(&S.rlock[cpu]);

		if (ret == -EINVAL)
			continue;
		if (ret) {
			s_fail("cpu %d: ring_buffer_map() = %d", cpu, ret);
			return ret;
		}
		/* the length was taken before the map: is it the whole ring? */
		if (t_map_meta(m)->nr_subbufs == t_map_ring_subbufs(S.buf, cpu) + 1 &&
		    sim_vm_addr(&m->vma, t_map_subbuf_off(m, t_map_meta(m)->nr_subbufs - 1)))
			return 0;
		t_unmap(m);
	}
	s_fail("cpu %d: could not map the whole ring", cpu);
	return -1;
}

/*
 * One GET_READER and the events it handed over: those of the reader
 * sub-buffer up to reader.read that no reader received yet (the ones
 * before were taken by another reader, or by an earlier GET_READER).
 * The bytes past reader.read may be the writer's: not touched.
 */
static int s_map_read(struct t_map *m, int cpu)
{
	static __thread u8 page[PAGE_SIZE];
	static __thread struct t_pevent ev[1024];
	struct s_cpu_state *st = &S.cpu[cpu];
	struct trace_buffer_meta *meta = t_map_meta(m);
	unsigned long word;
	int ret, n, got = 0;
	u32 id, rd;

	pthread_mutex_lock(&S.rlock[cpu]);
	ret = ring_buffer_map_get_reader(S.buf, cpu);
	S.map_calls++;
	if (ret) {
		pthread_mutex_unlock(&S.rlock[cpu]);
		s_fail("cpu %d: GET_READER = %d", cpu, ret);
		return 0;
	}
	id = READ_ONCE(meta->reader.id);
	rd = READ_ONCE(meta->reader.read);
	/* nobody else reads this CPU now: the meta page's count is exact */
	if (meta->read != ring_buffer_read_events_cpu(S.buf, cpu))
		s_fail("cpu %d: meta read %llu, buffer %lu", cpu,
		       (unsigned long long)meta->read, ring_buffer_read_events_cpu(S.buf, cpu));
	/* the stamp, then the data up to reader.read (the commit word may be moving) */
	if (id >= meta->nr_subbufs || rd > PAGE_SIZE - T_SB_HDR ||
	    t_map_copy(m, t_map_subbuf_off(m, id), page, 8) ||
	    t_map_copy(m, t_map_subbuf_off(m, id) + T_SB_HDR, page + T_SB_HDR, rd)) {
		pthread_mutex_unlock(&S.rlock[cpu]);
		s_fail("cpu %d: reader id %u read %u not readable through the mapping",
		       cpu, id, rd);
		return 0;
	}
	word = t_map_commit(m, id);
	if (rd > (word & T_COMMIT_MASK))
		s_fail("cpu %d: reader.read %u beyond commit %lu", cpu, rd, word & T_COMMIT_MASK);
	n = t_parse_data(page, rd, ev, ARRAY_SIZE(ev));
	if (n < 0)
		s_fail("cpu %d: malformed sub-buffer through the mapping", cpu);
	for (int i = 0; i < n; i++) {
		struct s_payload h;

		memcpy(&h, ev[i].data, S_HDR);
		/* taken before: the front of the sub-buffer only */
		if (!got && h.magic == S_MAGIC && h.lvl < SIM_NR_LEVELS &&
		    h.seq + 1 <= st->last_seq[h.lvl])
			continue;
		if (!got && i == 0 && (word & T_MISSED_EVENTS) && (word & T_MISSED_STORED)) {
			unsigned long lost;

			if (t_map_copy(m, t_map_subbuf_off(m, id) + T_SB_HDR + (word & T_COMMIT_MASK),
				       &lost, sizeof(lost)))
				s_fail("cpu %d: lost count not readable", cpu);
			else
				st->lost += lost, S.map_lost += lost;
		}
		s_check(cpu, ev[i].data, ev[i].len, ev[i].ts, 1);
		got++;
	}
	pthread_mutex_unlock(&S.rlock[cpu]);
	__atomic_add_fetch(&S.map_events, got, __ATOMIC_RELAXED);
	return got;
}

/* The mapped reader: CPU 1 or 3 in turns, mapped for a while each. */
static void *s_mapper(void *arg)
{
	struct t_map m = { 0 };
	int turn = 0, left = 0, cpu = -1;

	(void)arg;
	while (!__atomic_load_n(&S.stop, __ATOMIC_RELAXED)) {
		if (__atomic_load_n(&S.paused, __ATOMIC_SEQ_CST)) {
			s_park();
			continue;
		}
		if (cpu < 0) {
			cpu = turn++ % 2 ? 3 : 1;
			if (s_map(&m, cpu)) {
				cpu = -1;
				break;
			}
			__atomic_store_n(&S.map_cpu, cpu, __ATOMIC_SEQ_CST);
			S.map_cycles++;
			left = 500 + turn * 37 % 500;
		}
		if (!s_map_read(&m, cpu))
			usleep(50);
		if (--left <= 0) {
			__atomic_store_n(&S.map_cpu, -1, __ATOMIC_SEQ_CST);
			if (t_unmap(&m))
				s_fail("cpu %d: ring_buffer_unmap() failed", cpu);
			cpu = -1;
			usleep(2000);
		}
	}
	if (cpu >= 0) {
		__atomic_store_n(&S.map_cpu, -1, __ATOMIC_SEQ_CST);
		if (t_unmap(&m))
			s_fail("cpu %d: ring_buffer_unmap() failed", cpu);
	}
	return NULL;
}

/*
 * RB_STRESS_NO_IRQ=1: no interrupts or NMIs (signals) at the writers, for
 * runs under qemu user mode, whose signal delivery to threads is not to
 * be trusted (a 64-bit build that passes natively crashes there).
 */
static int s_no_irq;

/* the interrupt controller: irqs and NMIs at random writers */
static void *s_irq_source(void *arg)
{
	unsigned int r = 777;
	struct timespec ts = { 0, 20000 };

	(void)arg;
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	while (!__atomic_load_n(&S.stop, __ATOMIC_RELAXED)) {
		struct sim_thread *w;

		if (s_no_irq) {
			nanosleep(&ts, NULL);
			continue;
		}

		r = r * 1103515245 + 12345;
		w = &S.writer[(r >> 12) % S_NCPU];
		if ((r >> 20) % 6 == 0)
			sim_raise_nmi(w);
		else
			sim_raise_irq(w);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static double s_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* writes accounted for so far: committed or refused for room */
static unsigned long s_progress(void)
{
	unsigned long n = S.committed_total + S.refused_total;

	for (int cpu = 0; cpu < S_NCPU; cpu++)
		n += __atomic_load_n(&S.cpu[cpu].committed, __ATOMIC_RELAXED) +
			__atomic_load_n(&S.cpu[cpu].refused, __ATOMIC_RELAXED);
	return n;
}

static void s_pause(int nthreads)
{
	__atomic_store_n(&S.paused, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&S.parked, __ATOMIC_SEQ_CST) < nthreads)
		usleep(100);
}

static void s_resume(void)
{
	__atomic_store_n(&S.paused, 0, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&S.parked, __ATOMIC_SEQ_CST))
		usleep(100);
}

/* All threads parked: the counters must add up exactly. */
static void s_account(struct trace_buffer *b, const char *when, int only)
{
	for (int cpu = 0; cpu < S_NCPU; cpu++) {
		if (only >= 0 && cpu != only)
			continue;
		struct s_cpu_state *st = &S.cpu[cpu];
		unsigned long entries = ring_buffer_entries_cpu(b, cpu);
		unsigned long read = ring_buffer_read_events_cpu(b, cpu);
		unsigned long overrun = ring_buffer_overrun_cpu(b, cpu);
		unsigned long dropped = ring_buffer_dropped_events_cpu(b, cpu);
		unsigned long cover = ring_buffer_commit_overrun_cpu(b, cpu);

		if (st->committed != entries + read + overrun)
			s_fail("%s: cpu %d committed %lu != entries %lu + read %lu + overrun %lu",
			       when, cpu, st->committed, entries, read, overrun);
		if (st->received != read)
			s_fail("%s: cpu %d received %lu != read %lu", when, cpu,
			       st->received, read);
		if (st->lost > overrun)
			s_fail("%s: cpu %d lost %lu > overrun %lu", when, cpu, st->lost, overrun);
		/* writes refused for room (records off is never used here) */
		if (st->refused != dropped + cover)
			s_fail("%s: cpu %d refused %lu != dropped %lu + commit_overrun %lu",
			       when, cpu, st->refused, dropped, cover);
	}
}

static void s_epoch_reset(int cpu)
{
	struct s_cpu_state *st = &S.cpu[cpu];

	S.committed_total += st->committed;
	S.refused_total += st->refused;
	st->committed = st->refused = st->received = st->lost = 0;
}

/*
 * Paused: walk a CPU with an iterator.  Nothing moves, so the walk must
 * show exactly the entries still buffered, after everything consumed so
 * far and in order.
 */
static void s_pause_iterate(int cpu)
{
	struct s_cpu_state *st = &S.cpu[cpu];
	u64 last[SIM_NR_LEVELS], last_ts = st->last_ts, ts;
	struct ring_buffer_iter *it;
	struct ring_buffer_event *e;
	unsigned long n = 0;

	memcpy(last, st->last_seq, sizeof(last));
	it = ring_buffer_read_start(S.buf, cpu, GFP_KERNEL);
	if (!it) {
		s_fail("read_start failed");
		return;
	}
	while ((e = ring_buffer_iter_peek(it, &ts))) {
		struct s_payload h;

		s_check(cpu, ring_buffer_event_data(e), ring_buffer_event_length(e), ts, 0);
		memcpy(&h, ring_buffer_event_data(e), S_HDR);
		if (h.lvl < SIM_NR_LEVELS) {
			if (h.seq + 1 <= last[h.lvl])
				s_fail("paused iterator cpu %d lvl %u: seq %llu after %llu", cpu,
				       h.lvl, (unsigned long long)h.seq,
				       (unsigned long long)last[h.lvl] - 1);
			last[h.lvl] = h.seq + 1;
		}
		if (ts < last_ts)
			s_fail("paused iterator cpu %d: stamp %llu after %llu", cpu,
			       (unsigned long long)ts, (unsigned long long)last_ts);
		last_ts = ts;
		ring_buffer_iter_advance(it);
		n++;
	}
	ring_buffer_read_finish(it);
#ifdef RB_STOCK
	/*
	 * The stock defect written down in t_model.c: its iterator can
	 * report "empty" with unread events left on the head page, so the
	 * walk ends early (seen: 310 of 349).  Noted, not failed, on stock
	 * only; more events than entries still fails.
	 */
	if (n < ring_buffer_entries_cpu(S.buf, cpu)) {
		static int noted;

		if (!noted++)
			printf("# stock defect tolerated: paused iterator cpu %d ended %lu event(s) early\n",
			       cpu, ring_buffer_entries_cpu(S.buf, cpu) - n);
	} else
#endif
	if (n != ring_buffer_entries_cpu(S.buf, cpu))
		s_fail("paused iterator cpu %d: %lu events, %lu entries", cpu, n,
		       ring_buffer_entries_cpu(S.buf, cpu));
	S.iter_events += n;
}

/* Paused: reset a CPU, or swap it with the spare buffer and drain that. */
static void s_pause_action(unsigned int r)
{
	int cpu = (r >> 4) % S_NCPU;

	/* every other pause of the mapped run is at the mapped CPU */
	if (S.mapped && (r >> 12) % 2 && __atomic_load_n(&S.map_cpu, __ATOMIC_SEQ_CST) >= 0)
		cpu = __atomic_load_n(&S.map_cpu, __ATOMIC_SEQ_CST);

	if ((r >> 8) % 2) {
		ring_buffer_reset_cpu(S.buf, cpu);
		if (!ring_buffer_empty_cpu(S.buf, cpu) || ring_buffer_entries_cpu(S.buf, cpu))
			s_fail("reset cpu %d: not empty", cpu);
		s_epoch_reset(cpu);
		S.resets++;
		return;
	}
	if (cpu == __atomic_load_n(&S.map_cpu, __ATOMIC_SEQ_CST)) {
		/* refused, with a warning at most: callers must not try */
		unsigned long w = sim_warnings();
		int ret;

		sim_warn_hush(1);
		ret = ring_buffer_swap_cpu(S.spare, S.buf, cpu);
		sim_warn_hush(0);
		if (sim_warnings() - w > 1)
			s_fail("swap of mapped cpu %d: %lu warnings", cpu, sim_warnings() - w);
		sim_warn_absorb(sim_warnings() - w);
		if (ret != -EBUSY)
			s_fail("swap of mapped cpu %d returned %d", cpu, ret);
		S.map_busy++;
		/* a reset instead: under the mapping */
		ring_buffer_reset_cpu(S.buf, cpu);
		if (!ring_buffer_empty_cpu(S.buf, cpu) || ring_buffer_entries_cpu(S.buf, cpu))
			s_fail("reset mapped cpu %d: not empty", cpu);
		s_epoch_reset(cpu);
		S.resets++;
		return;
	}
	ring_buffer_resize(S.spare, S.sizes[cpu], cpu);
	if (ring_buffer_swap_cpu(S.spare, S.buf, cpu)) {
		S.swap_refused++;
		return;
	}
	S.swaps++;
	/* the old CPU buffer is in the spare now, with its counters */
	s_consume_cpu(S.spare, cpu, INT_MAX);
	s_account(S.spare, "after swap", cpu);
	ring_buffer_reset_cpu(S.spare, cpu);
	s_epoch_reset(cpu);
}

static int s_run(int mapped)
{
	struct sim_thread cons = { 0 }, pager = { 0 }, iter = { 0 }, mapper = { 0 };
	pthread_t irq_th;
	unsigned long total = 0, irqs = 0, nmis = 0;
	double t0, next_pause, pause_every, dur = rb_opt_tsan ? 20 : rb_opt_stress_secs;
	unsigned long target = rb_opt_stress_events;
	unsigned int r = 12345;
	int nthreads = S_NCPU + 3 + !!mapped;
	/* debugging knob: RB_STRESS_NO_RESIZE=1 leaves resizing out */
	int s_no_resize = getenv("RB_STRESS_NO_RESIZE") != NULL;

	s_no_irq = getenv("RB_STRESS_NO_IRQ") != NULL;

	memset(&S, 0, sizeof(S));
	for (int cpu = 0; cpu < S_NCPU; cpu++)
		pthread_mutex_init(&S.rlock[cpu], NULL);
	S.mapped = mapped;
	S.map_cpu = -1;
	/* the second run is the shorter one */
	if (mapped) {
		dur = min(dur, rb_opt_tsan ? 20.0 : 60.0);
		target /= 4;
	}
	S.buf = ring_buffer_alloc(64 * PAGE_SIZE, RB_FL_OVERWRITE);
	S.spare = ring_buffer_alloc(64 * PAGE_SIZE, RB_FL_OVERWRITE);
	T_ASSERT(S.buf && S.spare);
	for (int cpu = 0; cpu < S_NCPU; cpu++) {
		S.sizes[cpu] = 64 * PAGE_SIZE;
		S.writer[cpu].irq_fn = s_irq;
		sim_thread_start(&S.writer[cpu], cpu, s_writer, (void *)(long)cpu);
	}
	sim_thread_start(&cons, 0, s_consumer, NULL);
	sim_thread_start(&pager, 2, s_page_reader, NULL);
	sim_thread_start(&iter, 1, s_iterator, NULL);
	if (mapped)
		sim_thread_start(&mapper, 3, s_mapper, NULL);
	pthread_create(&irq_th, NULL, s_irq_source, NULL);

	/* this thread is the control thread */
	sim_bind(3);
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	t0 = s_now();
	/* the mapped run is shorter: it pauses (resets, swaps) more often */
	pause_every = mapped ? 0.25 : 1;
	next_pause = t0 + pause_every;
	while (s_now() - t0 < dur &&
	       (rb_opt_keep_going || !__atomic_load_n(&S.failed, __ATOMIC_SEQ_CST)) &&
	       s_progress() < target) {
		r = r * 1103515245 + 12345;
		usleep(1000);
		switch ((r >> 16) % 8) {
		case 0: case 1: {
			if (s_no_resize)
				break;
			int cpu = (r >> 20) % (S_NCPU + 1);
			unsigned long size = (8 + (r >> 24) % 120) * PAGE_SIZE;

			if (cpu == S_NCPU)
				cpu = RING_BUFFER_ALL_CPUS;
			if (!ring_buffer_resize(S.buf, size, cpu)) {
				for (int c = 0; c < S_NCPU; c++)
					if (cpu == RING_BUFFER_ALL_CPUS || c == cpu)
						S.sizes[c] = size;
				S.resizes++;
			}
			break;
		}
		case 2:
			ring_buffer_change_overwrite(S.buf, (r >> 20) & 1);
			S.flips++;
			break;
		default:
			break;
		}
		if (s_now() >= next_pause) {
			s_pause(nthreads);
			s_account(S.buf, "pause", -1);
			s_pause_iterate((r >> 9) % S_NCPU);
			s_pause_action(r >> 5);
			S.pauses++;
			s_resume();
			next_pause = s_now() + pause_every;
		}
	}
	ring_buffer_change_overwrite(S.buf, 1);
	__atomic_store_n(&S.stop, 1, __ATOMIC_SEQ_CST);
	pthread_join(irq_th, NULL);
	for (int cpu = 0; cpu < S_NCPU; cpu++)
		sim_thread_join(&S.writer[cpu]);
	sim_thread_join(&cons);
	sim_thread_join(&pager);
	sim_thread_join(&iter);
	if (mapped)
		sim_thread_join(&mapper);
	sim_bind(0);
	/* drain and account for every event */
	for (int cpu = 0; cpu < S_NCPU; cpu++)
		s_consume_cpu(S.buf, cpu, INT_MAX);
	s_account(S.buf, "end", -1);
	for (int cpu = 0; cpu < S_NCPU; cpu++) {
		if (ring_buffer_entries_cpu(S.buf, cpu))
			s_fail("cpu %d: entries left after draining", cpu);
		S.committed_total += S.cpu[cpu].committed;
		S.refused_total += S.cpu[cpu].refused;
		total += S.cpu[cpu].next_seq[0] + S.cpu[cpu].next_seq[1] +
			S.cpu[cpu].next_seq[2] + S.cpu[cpu].next_seq[3];
		irqs += S.writer[cpu].nr_irqs;
		nmis += S.writer[cpu].nr_nmis;
	}
	printf("# stress: %.1fs, %lu writes; %lu committed + %lu refused for room = %lu "
	       "accounted for exactly "
	       "(%lu from interrupts; %lu irqs, %lu NMIs), "
	       "%lu sub-buffers read, %lu iterated, %lu resizes, %lu mode flips, "
	       "%lu pauses, %lu resets, %lu swaps (%lu refused)\n",
	       s_now() - t0, total, S.committed_total, S.refused_total,
	       S.committed_total + S.refused_total, S.nr_irq_events, irqs, nmis, S.pages, S.iter_events,
	       S.resizes, S.flips, S.pauses, S.resets, S.swaps, S.swap_refused);
	if (mapped)
		printf("# stress: mapped reader: %lu maps, %lu GET_READER, %lu events read "
		       "through the mapping, %lu losses flagged, %lu swaps of a mapped CPU refused\n",
		       S.map_cycles, S.map_calls, S.map_events, S.map_lost, S.map_busy);
	ring_buffer_free(S.buf);
	ring_buffer_free(S.spare);
	if (S.committed_total + S.refused_total < target)
		printf("# stress: NOTE: target of %lu events not reached within %.0fs "
		       "(machine load?)\n", target, dur);
	if (S.failed) {
		s_print_kinds();
		T_FAIL("%d stress failure(s)", S.failed);
	}
	if (s_no_irq)
		printf("# stress: RB_STRESS_NO_IRQ: no interrupts or NMIs\n");
	if ((!S.nr_irq_events && !s_no_irq) || !S.pages || !S.iter_events || !S.pauses)
		T_FAIL("a stress actor did nothing");
	if (mapped && (!S.map_events || S.map_cycles < 2))
		T_FAIL("the mapped reader did nothing");
	return 0;
}

static int test_stress(void)
{
	return s_run(0);
}

static int test_stress_mapped(void)
{
	return s_run(1);
}

const struct rb_case rb_stress_cases[] = {
	{ "stress_all_actors", test_stress },
	{ "stress_mapped_reader", test_stress_mapped },
};
const int rb_nr_stress_cases = ARRAY_SIZE(rb_stress_cases);
