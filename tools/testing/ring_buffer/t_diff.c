// SPDX-License-Identifier: GPL-2.0
/*
 * Differential driver: a seeded random sequence of calls to the whole
 * single-context API (writes of every size class, reserve/commit/discard,
 * writes from an irq, writes nested in a reserved event from an irq and
 * an NMI and through nest_start/nest_end, consume, peek, iterators with
 * resets and writes between their reads, read_page, filling a CPU past
 * full in both modes, resize of one CPU or all, sub-buffer order,
 * swap_cpu, reset_cpu, reset, reset_online_cpus, record on/off,
 * record_disable/enable of the buffer and of one CPU, overwrite on/off,
 * absolute stamps, clock jumps, a CPU that is offline at allocation and
 * comes up (or goes down) later, and the queries) on two buffers over
 * three simulated CPUs.  It judges nothing: it prints
 * what a caller can observe, one line per call and the counters of every
 * CPU after each step, in a canonical form.  diff.py runs it on ours and
 * on stock 6.12 (STOCK=1) with the same seeds and compares the two
 * outputs; what may differ is normalised there, in one place.
 *
 * read_page() is compared as a stream: which events share a sub-buffer is
 * the format's freedom (stock and ours pack sub-buffers differently), so a
 * read_page step reads pages until the CPU has no event left, with writes
 * between the pages, and prints the events (stamp, payload, CPU) and
 * losses in the order the pages delivered them, and the per-page facts
 * both must agree on: no page comes back empty ("empty-page") or refused
 * ("refused-while-waiting") while an event waits, none is malformed.
 *
 *   rbtest --diff SEED[:RUNS[:STEPS]]
 */
#include <signal.h>
#include "rb_test.h"

#define D_NCPU 3
/* the CPU that may be offline at allocation and come and go */
#define D_HOTCPU 2

struct d_ev {
	u64 ts;
	u32 seq, len;
	int cpu;
};

static struct {
	struct trace_buffer *b[2];
	u64 clock, rnd;
	u32 seq;
	int overwrite, recording, abs, order;
	struct d_ev ev[1 << 18];	/* every event written: ts -> seq, len */
	int nev;
	unsigned long used[2][D_NCPU];	/* bytes written since the CPU was last empty */
	unsigned long max0;		/* the largest event at allocation */
	int hold_used;			/* inside a read_page step: used[] only grows */
	int offline;			/* D_HOTCPU is offline */
	int hot_ring;			/* D_HOTCPU has had a ring in both buffers */
	int rec_off, rec_off_cpu[D_NCPU];	/* record_disable() depths */
	u64 early[D_NCPU];		/* how early the last early stamp read was */
	u32 fills;			/* d_fill()s made */
} D;

/*
 * How full a ring may get.  Stock and ours fill a ring to different
 * points (stock keeps one sub-buffer fewer of events in overwrite mode,
 * and refuses a few events earlier in producer/consumer mode), so the
 * traces are compared only while no CPU's ring is more than a third full:
 * a write that would go past that is not made.  What happens at and past
 * full is judged by the model (t_model.c) and the unit cases instead.
 */
static bool d_room(int bi, int cpu, u32 len)
{
	unsigned long size = ring_buffer_size(D.b[bi], cpu);

	/*
	 * entries, not empty_cpu(): stock's differs with padding left.  Not
	 * inside a read_page step, where whether the CPU is empty at a write
	 * depends on how the pages were packed: it is emptied at the end.
	 */
	if (!D.hold_used && !ring_buffer_entries_cpu(D.b[bi], cpu))
		D.used[bi][cpu] = 0;
	return D.used[bi][cpu] + len + 16 <= size / 3;
}

static u64 d_clock_val;

static u64 d_clock(void)
{
	return d_clock_val;
}

static u32 d_rand(void)
{
	/* xorshift64*: the same sequence on every build */
	D.rnd ^= D.rnd >> 12;
	D.rnd ^= D.rnd << 25;
	D.rnd ^= D.rnd >> 27;
	return (D.rnd * 2685821657736338717ULL) >> 32;
}

/* The event written with stamp ts: its index, or -1 and *below the last before it. */
static int d_find(u64 ts, int *below)
{
	int lo = 0, hi = D.nev - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (D.ev[mid].ts == ts)
			return mid;
		if (D.ev[mid].ts < ts)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	*below = hi;
	return -1;
}

static bool d_is(const struct d_ev *e, int cpu, const void *data, unsigned int len)
{
	/* the length read is the one written rounded up (0 stores 1) */
	return e->cpu == cpu && len >= e->len && len < e->len + 8 &&
	       t_check(data, e->len, e->seq);
}

/* The seq of an event read back (by stamp, else as d_fevent() says), or 0. */
static u32 d_ident(int cpu, u64 ts, const void *data, unsigned int len)
{
	int hi, i = d_find(ts, &hi);

	if (i >= 0 && len >= D.ev[i].len && t_check(data, D.ev[i].len, D.ev[i].seq))
		return D.ev[i].seq;
	if (i >= 0)
		hi = i;
	if (D.early[cpu]) {
		int tmp, j = d_find(ts + D.early[cpu], &tmp);

		if (j >= 0 && d_is(&D.ev[j], cpu, data, len))
			return D.ev[j].seq;
	}
	for (int j = hi + 1; j < D.nev; j++)
		if (d_is(&D.ev[j], cpu, data, len))
			return D.ev[j].seq;
	return 0;
}

/* An event read back: its seq if it was written with this stamp and is intact. */
static void d_fevent(FILE *f, int cpu, const char *who, u64 ts, const void *data,
		     unsigned int len)
{
	int hi, i = d_find(ts, &hi);

	if (i >= 0 && len >= D.ev[i].len && t_check(data, D.ev[i].len, D.ev[i].seq)) {
		fprintf(f, " %s#%u", who, D.ev[i].seq);
		return;
	}
	/* another event's stamp: corrupt, unless an early stamp (below) */
	if (i >= 0)
		hi = i;
	/*
	 * A stamp that is no event's: stock reads some stamps early, all by
	 * the same amount until its reader's stamp is set again (see
	 * diff.py).  The event is then the one that many nanoseconds later
	 * than the last such one on this CPU, else the first one written
	 * after the stamp on the CPU whose length and payload it has:
	 * "#seq(stamp-D)".  Else: which event's stamp it is nearest after.
	 */
	if (D.early[cpu]) {
		int tmp, j = d_find(ts + D.early[cpu], &tmp);

		if (j >= 0 && d_is(&D.ev[j], cpu, data, len)) {
			fprintf(f, " %s#%u(stamp-%llu)", who, D.ev[j].seq,
				(unsigned long long)D.early[cpu]);
			return;
		}
	}
	for (int j = hi + 1; j < D.nev; j++) {
		const struct d_ev *e = &D.ev[j];

		if (d_is(e, cpu, data, len)) {
			D.early[cpu] = e->ts - ts;
			fprintf(f, " %s#%u(stamp-%llu)", who, e->seq,
				(unsigned long long)(e->ts - ts));
			return;
		}
	}
	if (i >= 0)
		fprintf(f, " %s#%u(corrupt)", who, D.ev[i].seq);
	else if (hi >= 0)
		fprintf(f, " %s?ts=#%u+%llu", who, D.ev[hi].seq,
			(unsigned long long)(ts - D.ev[hi].ts));
	else
		fprintf(f, " %s?ts=%llu", who, (unsigned long long)ts);
}

#define d_event(cpu, ...) d_fevent(stdout, cpu, __VA_ARGS__)

/* Events are looked up by stamp: keep them sorted (a nested one is written first). */
static void d_record(int cpu, u64 ts, u32 seq, u32 len)
{
	int i = D.nev;

	if (D.nev >= (int)ARRAY_SIZE(D.ev))
		return;
	while (i > 0 && D.ev[i - 1].ts > ts) {
		D.ev[i] = D.ev[i - 1];
		i--;
	}
	D.ev[i] = (struct d_ev){ ts, seq, len, cpu };
	D.nev++;
}

static const u32 d_lens[] = { 0, 1, 3, 4, 5, 8, 12, 24, 64, 100, 108, 112, 113, 200,
			      500, 1000, 2000, 4000 };

/* A length of every size class; *max_off is the distance below the largest, or -1. */
static u32 d_len(int *max_off)
{
	/*
	 * Stock sets its largest event at allocation and keeps it through
	 * order changes (ours follows the sub-buffer size), and with
	 * absolute stamps it promises 8 bytes less than ours and refuses the
	 * last 8 bytes of what it promises: the largest lengths written are
	 * the allocation's limit, 16 bytes less with absolute stamps, which
	 * both accept.
	 */
	unsigned long max = D.abs ? D.max0 - 16 : D.max0;
	u32 r = d_rand() % 256;

	*max_off = r < 246 ? -1 : (int)(r % 3);
	return r < 246 ? d_lens[r % ARRAY_SIZE(d_lens)] : max - r % 3;
}

static void d_plen(u32 len, int max_off)
{
	if (max_off < 0)
		printf("%u", len);
	else
		printf("max-%d", max_off);
}

static void d_write(int cpu, int how)
{
	struct trace_buffer *b = D.b[0];
	int max_off;
	u32 len = d_len(&max_off);
	static u8 buf[1 << 16];
	struct ring_buffer_event *e;
	u32 seq = ++D.seq;
	int ok;

	D.clock += 1 + d_rand() % 300;
	d_clock_val = D.clock;
	if (!d_room(0, cpu, len)) {
		printf("write cpu%d len %u: not made\n", cpu, len);
		return;
	}
	D.used[0][cpu] += len + 16;
	sim_bind(cpu);
	if (how == 2)
		sim_ctx.pc += HARDIRQ_OFFSET;
	if (how == 1 || how == 3) {
		e = len <= sizeof(buf) ? ring_buffer_lock_reserve(b, len) : NULL;
		if (e) {
			t_fill(ring_buffer_event_data(e), len, seq);
			if (how == 3)
				ring_buffer_discard_commit(b, e);
			else
				ring_buffer_unlock_commit(b);
		}
		ok = e != NULL;
	} else {
		t_fill(buf, min_t(u32, len, sizeof(buf)), seq);
		ok = len <= sizeof(buf) && ring_buffer_write(b, len, buf) == 0;
	}
	if (how == 2)
		sim_ctx.pc -= HARDIRQ_OFFSET;
	sim_bind(0);
	/* a refused write takes no room */
	if (!ok)
		D.used[0][cpu] -= len + 16;
	printf("write cpu%d len ", cpu);
	d_plen(len, max_off);
	printf(" how %d: %s #%u\n", how, ok ? "ok" : "refused", seq);
	if (ok && how != 3)
		d_record(cpu, D.clock, seq, len);
}

/*
 * Writes nested in a reserved event, as the kernel makes them: an irq
 * that writes while the event is reserved, an NMI inside that irq, or the
 * same context again between ring_buffer_nest_start() and _end().  Each
 * nested event may be discarded, and so may the outer one (it is then no
 * longer the last in the ring).  ring_buffer_event_time_stamp() is asked
 * inside each reserve: it must give that event's stamp.
 */
static void d_nested(int cpu)
{
	struct trace_buffer *b = D.b[0];
	static const unsigned int lvl[] = { 0, HARDIRQ_OFFSET, HARDIRQ_OFFSET + NMI_OFFSET };
	struct ring_buffer_event *e[3] = { NULL };
	u32 len[3], seq[3];
	u64 ts[3];
	int moff[3], disc[3], depth = 1 + d_rand() % 2, nest = d_rand() % 3 == 0;
	unsigned long need = 0;

	for (int i = 0; i <= depth; i++) {
		/* at least 4 bytes: an event read with a wrong stamp is known by them */
		len[i] = max_t(u32, min_t(u32, d_len(&moff[i]), 2000), 4);
		disc[i] = d_rand() % 4 == 0;
		seq[i] = ++D.seq;
		need += len[i] + 16;
	}
	if (!d_room(0, cpu, need - 16)) {
		printf("nested cpu%d: not made\n", cpu);
		return;
	}
	D.used[0][cpu] += need;
	printf("nested cpu%d%s:", cpu, nest ? " nest_start" : "");
	sim_bind(cpu);
	for (int i = 0; i <= depth; i++) {
		D.clock += 1 + d_rand() % 50;
		d_clock_val = ts[i] = D.clock;
		if (nest && i == 1)
			ring_buffer_nest_start(b);
		else if (!nest)
			sim_ctx.pc += lvl[i];
		e[i] = ring_buffer_lock_reserve(b, len[i]);
		if (e[i]) {
			t_fill(ring_buffer_event_data(e[i]), len[i], seq[i]);
			printf(" [%d #%u len ", i, seq[i]);
			d_plen(len[i], moff[i]);
			printf(" stamp %s", ring_buffer_event_time_stamp(b, e[i]) == ts[i] ? "ok" : "wrong");
		} else {
			printf(" [%d refused", i);
		}
	}
	for (int i = depth; i >= 0; i--) {
		if (e[i]) {
			if (disc[i])
				ring_buffer_discard_commit(b, e[i]);
			else
				ring_buffer_unlock_commit(b);
			printf(" %s]", disc[i] ? "discarded" : "committed");
			if (!disc[i])
				d_record(cpu, ts[i], seq[i], len[i]);
		} else {
			printf(" ]");
		}
		if (nest && i == 1)
			ring_buffer_nest_end(b);
		else if (!nest)
			sim_ctx.pc -= lvl[i];
	}
	sim_bind(0);
	printf("\n");
}

static void d_consume(int bi, int cpu, int peek)
{
	struct ring_buffer_event *e;
	unsigned long lost = 0;
	u64 ts = 0;

	if (peek)
		e = ring_buffer_peek(D.b[bi], cpu, &ts, &lost);
	else
		e = ring_buffer_consume(D.b[bi], cpu, &ts, &lost);
	printf("%s buf%d cpu%d:", peek ? "peek" : "consume", bi, cpu);
	if (e) {
		d_event(cpu, "", ts, ring_buffer_event_data(e), ring_buffer_event_length(e));
		printf(" lost %lu", lost);
	} else {
		printf(" none");
	}
	printf("\n");
}

/*
 * An iterator over the whole CPU, reset once at a drawn point, with up to
 * two writes to the same CPU between its reads (the iterator goes on to
 * events written after it started, in both).  ring_buffer_iter_empty() is
 * asked before each read.
 */
static void d_iterate(int cpu)
{
	struct ring_buffer_iter *it = ring_buffer_read_start(D.b[0], cpu, GFP_KERNEL);
	struct ring_buffer_event *e;
	int n = 0, reset_at = d_rand() % 16, wr[2];
	u64 ts;

	wr[0] = d_rand() % 8 ? -1 : (int)(d_rand() % 16);
	wr[1] = d_rand() % 8 ? -1 : (int)(d_rand() % 16);
	printf("iterate cpu%d:", cpu);
	if (!it) {
		printf(" no iterator\n");
		return;
	}
	while (n < 20000) {
		if (n == reset_at) {
			ring_buffer_iter_reset(it);
			printf(" reset");
			reset_at = -1;
		}
		for (int k = 0; k < 2; k++) {
			if (wr[k] == n) {
				printf(" {");
				fflush(stdout);
				d_write(cpu, 0);
				printf("}");
				wr[k] = -1;
			}
		}
		if (ring_buffer_iter_empty(it))
			printf(" (empty)");
		e = ring_buffer_iter_peek(it, &ts);
		/* stock gives up after a few empty sub-buffers per call */
		for (int tries = 0; !e && tries < 8; tries++)
			e = ring_buffer_iter_peek(it, &ts);
		if (!e)
			break;
		if (ring_buffer_iter_dropped(it))
			printf(" dropped");
		d_event(cpu, "", ts, ring_buffer_event_data(e), ring_buffer_event_length(e));
		ring_buffer_iter_advance(it);
		n++;
	}
	ring_buffer_read_finish(it);
	printf(" end\n");
}

/*
 * read_page() until the CPU has no event left, full sub-buffers only
 * first when drawn so (until one is refused), then any; up to three
 * writes to the same CPU are made before the drawn page.  What is printed
 * is the stream of events and losses in delivery order and the facts
 * each page must satisfy, not the pages: the events that share a
 * sub-buffer are each implementation's choice.  A last call on the empty
 * CPU must be refused.
 */
static void d_read_page(int cpu)
{
	static struct t_pevent ev[4096];
	struct buffer_data_read_page *rp = NULL;
	int full = d_rand() & 1, nw = d_rand() % 4, wat[3], n, missed, ret, i;
	char *str = NULL;
	size_t size, slen = 0;
	FILE *f;

	for (int k = 0; k < 3; k++)
		wat[k] = k < nw ? (int)(d_rand() % 4) : -1;
	if (ring_buffer_alloc_read_page(D.b[0], cpu, &rp)) {
		printf("read_page cpu%d: no page\n", cpu);
		return;
	}
	f = open_memstream(&str, &slen);
	size = ring_buffer_read_page_size(rp);
	D.hold_used = 1;
	for (i = 0; i < 1000; i++) {
		for (int k = 0; k < 3; k++)
			if (wat[k] == i)
				d_write(cpu, d_rand() % 3 ? 0 : 2);
		if (!ring_buffer_entries_cpu(D.b[0], cpu)) {
			if (i >= 3)
				break;
			continue;
		}
		ret = ring_buffer_read_page(D.b[0], rp, size, cpu, full);
		if (ret < 0) {
			if (full) {
				/* where "full" ends depends on the packing */
				full = 0;
				continue;
			}
			fprintf(f, " refused-while-waiting");
			break;
		}
		n = t_parse_page(ring_buffer_read_page_data(rp), size, ev, ARRAY_SIZE(ev), &missed);
		if (n < 0) {
			fprintf(f, " malformed");
			break;
		}
		/* the offset it returns is not for callers (trace.c only checks < 0) */
		if (missed)
			fprintf(f, " lost");
		if (!n)
			fprintf(f, " empty-page");
		for (int j = 0; j < n; j++)
			d_fevent(f, cpu, "", ev[j].ts, ev[j].data, ev[j].len);
	}
	D.hold_used = 0;
	D.used[0][cpu] = 0;
	ret = ring_buffer_read_page(D.b[0], rp, size, cpu, 0);
	if (ret >= 0) {
		n = t_parse_page(ring_buffer_read_page_data(rp), size, ev, ARRAY_SIZE(ev), &missed);
		fprintf(f, " then %d events%s", n, missed ? " lost" : "");
	} else {
		fprintf(f, " then refused");
	}
	fclose(f);
	printf("read_page cpu%d:%s\n", cpu, str);
	free(str);
	ring_buffer_free_read_page(D.b[0], cpu, rp);
}

static void d_counters(void)
{
	for (int bi = 0; bi < 2; bi++) {
		for (int cpu = 0; cpu < D_NCPU; cpu++) {
			struct trace_buffer *b = D.b[bi];

			printf("  buf%d cpu%d: entries %lu overrun %lu commit_overrun %lu dropped %lu read %lu empty %d size %lu\n",
			       bi, cpu, ring_buffer_entries_cpu(b, cpu), ring_buffer_overrun_cpu(b, cpu),
			       ring_buffer_commit_overrun_cpu(b, cpu),
			       ring_buffer_dropped_events_cpu(b, cpu),
			       ring_buffer_read_events_cpu(b, cpu), ring_buffer_empty_cpu(b, cpu),
			       ring_buffer_size(b, cpu));
		}
	}
	printf("  entries %lu overruns %lu empty %d\n", ring_buffer_entries(D.b[0]),
	       ring_buffer_overruns(D.b[0]), ring_buffer_empty(D.b[0]));
}

/*
 * Past full, where the two keep different amounts (stock one sub-buffer
 * fewer in overwrite mode, and refusing a few events earlier in
 * producer/consumer mode): the CPU is reset, written with events of one
 * length until the ring has lapped (overwrite) or refused ten (not), then
 * drained by consume or read_page, and reset again.  What is printed is
 * what both must agree on, not how many were kept: in overwrite mode no
 * write is refused, what is read is the newest events in order with none
 * missing, the loss is reported once, before the first event read (and
 * with consume, as the number missing); in producer/consumer mode what is
 * read is every accepted event in order, the refused ones are the last
 * ones, and no loss is reported.
 */
static void d_fill(int cpu)
{
	static struct t_pevent ev[4096];
	struct trace_buffer *b = D.b[0];
	int by_page = d_rand() & 1, refused = 0, ok_after = 0, bad = 0, nread = 0, nlost = 0;
	unsigned long lost_sum = 0, lost_first = 0;
	u32 len = d_lens[4 + d_rand() % 10], last = 0, next;
	static u8 buf[4096];
	/* its own generator: how many events a fill takes is each one's */
	u64 lr = ((u64)d_rand() << 32 | d_rand()) | 1, clock0;
	int n;

	if (!D.recording || D.rec_off || D.rec_off_cpu[cpu] || D.fills >= 6) {
		printf("fill cpu%d: not made\n", cpu);
		return;
	}
	ring_buffer_reset_cpu(b, cpu);
	D.fills++;
	clock0 = D.clock;
	sim_bind(cpu);
	for (n = 0; n < 100000; n++) {
		/* numbers of their own: the rest of the run's do not depend on n */
		u32 seq = (D.fills << 24) + n + 1;

		lr ^= lr >> 12;
		lr ^= lr << 25;
		lr ^= lr >> 27;
		D.clock += 1 + ((lr * 2685821657736338717ULL) >> 32) % 300;
		d_clock_val = D.clock;
		t_fill(buf, len, seq);
		if (ring_buffer_write(b, len, buf) == 0) {
			d_record(cpu, D.clock, seq, len);
			last = seq;
			ok_after |= refused;
		} else {
			refused++;
		}
		if (D.overwrite ? ring_buffer_overrun_cpu(b, cpu) > 20 : refused >= 10)
			break;
	}
	sim_bind(0);
	next = 0;
	/* the events read, in order: each the next written after the one before */
	if (!by_page) {
		struct ring_buffer_event *e;
		unsigned long lost;
		u64 ts;

		while ((e = ring_buffer_consume(b, cpu, &ts, &lost))) {
			u32 seq = d_ident(cpu, ts, ring_buffer_event_data(e),
					  ring_buffer_event_length(e));

			if (lost) {
				nlost++;
				lost_sum += lost;
				if (!nread)
					lost_first = lost;
			}
			bad |= !seq || (next && seq != next);
			next = seq + 1;
			nread++;
		}
	} else {
		struct buffer_data_read_page *rp = NULL;
		int missed, k, ret;

		if (ring_buffer_alloc_read_page(b, cpu, &rp)) {
			printf("fill cpu%d: no page\n", cpu);
			return;
		}
		for (int p = 0; p < 10000 && ring_buffer_entries_cpu(b, cpu); p++) {
			ret = ring_buffer_read_page(b, rp, ring_buffer_read_page_size(rp), cpu, 0);
			if (ret < 0)
				break;
			k = t_parse_page(ring_buffer_read_page_data(rp), ring_buffer_read_page_size(rp),
					 ev, ARRAY_SIZE(ev), &missed);
			if (k < 0) {
				bad = 1;
				break;
			}
			if (missed) {
				nlost++;
				if (!nread)
					lost_first = 1;
			}
			for (int j = 0; j < k; j++) {
				u32 seq = d_ident(cpu, ev[j].ts, ev[j].data, ev[j].len);

				bad |= !seq || (next && seq != next);
				next = seq + 1;
				nread++;
			}
		}
		ring_buffer_free_read_page(b, cpu, rp);
	}
	printf("fill cpu%d len %u by %s:", cpu, len, by_page ? "read_page" : "consume");
	if (D.overwrite)
		printf(" refused %d, in order %s, newest %s, lost reported %s%s\n", refused,
		       bad ? "no" : "yes", next == last + 1 ? "yes" : "no",
		       nlost == 1 && lost_first ? "once before the first" : nlost ? "elsewhere" : "never",
		       by_page ? "" : lost_sum == (unsigned long)(n + 1 - refused - nread) ?
		       ", as the number missing" : ", not as the number missing");
	else
		printf(" refused the last %s, in order %s, all accepted %s, lost reported %s\n",
		       refused && !ok_after ? "yes" : "no", bad ? "no" : "yes",
		       nread == n + 1 - refused ? "yes" : "no", nlost ? "yes" : "never");
	ring_buffer_reset_cpu(b, cpu);
	D.used[0][cpu] = 0;
	/* the clock goes on from where it would be whatever n was */
	D.clock = clock0 + (1ULL << 35);
}

/*
 * The queries whose values are not fixed by the format are printed as the
 * facts both must agree on.  bytes_cpu() counts what the packing costs
 * (headers, padding): only that it is not zero while the CPU has an
 * entry (with none, stock's may still count the padding of discarded
 * events).  nr_dirty_pages() counts sub-buffers and oldest_event_ts() is
 * the stamp of a sub-buffer's start: both are asked, neither printed.
 * The largest event only while the order and stamp mode are the
 * allocation's (see d_len()).
 */
static void d_queries(void)
{
	struct trace_buffer *a = D.b[0];

	printf("queries: time_stamp %s abs %d is_on %d is_set_on %d subbuf %u",
	       ring_buffer_time_stamp(a) == d_clock_val ? "ok" : "wrong",
	       ring_buffer_time_stamp_abs(a), ring_buffer_record_is_on(a),
	       ring_buffer_record_is_set_on(a), ring_buffer_subbuf_size_get(a));
	if (!D.order && !D.abs)
		printf(" max %lu", ring_buffer_max_event_size(a));
	for (int cpu = 0; cpu < D_NCPU; cpu++) {
		printf("; cpu%d", cpu);
		if (ring_buffer_entries_cpu(a, cpu))
			printf(" bytes %s", ring_buffer_bytes_cpu(a, cpu) ? ">0" : "0");
		(void)ring_buffer_oldest_event_ts(a, cpu);
		/* stock's does not check that the CPU has a ring (trace.c does) */
		if (cpu != D_HOTCPU || D.hot_ring)
			(void)ring_buffer_nr_dirty_pages(a, cpu);
	}
	printf("\n");
}

static void d_step(void)
{
	u32 op = d_rand(), cpu = (op >> 8) % D_NCPU;
	struct trace_buffer *a = D.b[0];
	int ret;

	/* writes only where a CPU is online */
	if (cpu == D_HOTCPU && D.offline)
		cpu = (op >> 16) % (D_NCPU - 1);
	switch (op % 34) {
	case 0 ... 6:
		d_write(cpu, 0);
		break;
	case 7:
		/* a burst: the ring fills, laps, refuses */
		for (int n = 10 + d_rand() % 100; n > 0; n--)
			d_write(cpu, 0);
		break;
	case 8:
		d_write(cpu, 1);
		break;
	case 9:
		d_write(cpu, 2);
		break;
	case 10:
		d_write(cpu, 3);
		break;
	case 11 ... 12:
		d_consume(0, cpu, 0);
		break;
	case 13:
		d_consume(0, cpu, 1);
		break;
	case 14:
		d_iterate(cpu);
		break;
	case 15:
		d_read_page(cpu);
		break;
	case 16: {
		unsigned long size = (2 + d_rand() % 12) * PAGE_SIZE;
		int all = d_rand() & 1;

		for (int bi = 0; bi < 2; bi++) {
			/*
			 * Which events a shrink keeps is each implementation's
			 * choice (stock and ours keep different sub-buffers):
			 * a CPU is emptied before it shrinks.
			 */
			for (int c = 0; c < D_NCPU; c++) {
				if ((all || c == (int)cpu) &&
				    ring_buffer_size(D.b[bi], c) > size) {
					ring_buffer_reset_cpu(D.b[bi], c);
					printf("reset buf%d cpu%d; ", bi, c);
				}
			}
			ret = ring_buffer_resize(D.b[bi], size, all ? RING_BUFFER_ALL_CPUS : cpu);
			if (all)
				printf("resize buf%d all to %lu: %d\n", bi, size, ret);
			else
				printf("resize buf%d cpu%u to %lu: %d\n", bi, cpu, size, ret);
		}
		break;
	}
	case 17:
		ring_buffer_reset_cpu(a, cpu);
		printf("reset cpu%d\n", cpu);
		break;
	case 18:
		ret = ring_buffer_swap_cpu(D.b[1], a, cpu);
		printf("swap cpu%d: %d\n", cpu, ret);
		if (!ret) {
			unsigned long u = D.used[0][cpu];

			D.used[0][cpu] = D.used[1][cpu];
			D.used[1][cpu] = u;
		}
		break;
	case 19:
		d_consume(1, cpu, 0);
		break;
	case 20: {
		int order = d_rand() % 3;

		for (int bi = 0; bi < 2; bi++) {
			/*
			 * What a change of order does to the events already
			 * written is each implementation's (stock goes on
			 * counting them as entries): the buffer is emptied first.
			 */
			if (order != ring_buffer_subbuf_order_get(D.b[bi])) {
				ring_buffer_reset(D.b[bi]);
				printf("reset buf%d; ", bi);
			}
			ret = ring_buffer_subbuf_order_set(D.b[bi], order);
			printf("order buf%d %d: %d (now %d)\n", bi, order, ret,
			       ring_buffer_subbuf_order_get(D.b[bi]));
		}
		D.order = ring_buffer_subbuf_order_get(a);
		break;
	}
	case 21:
		D.overwrite = !D.overwrite;
		ring_buffer_change_overwrite(a, D.overwrite);
		printf("overwrite %d\n", D.overwrite);
		break;
	case 22:
		/* on again at once, off one time in six: mostly recording */
		if (!D.recording || d_rand() % 6 == 0)
			D.recording = !D.recording;
		if (D.recording)
			ring_buffer_record_on(a);
		else
			ring_buffer_record_off(a);
		printf("recording %d: is_on %d\n", D.recording, ring_buffer_record_is_on(a));
		break;
	case 23:
		D.clock += (1ULL << (20 + d_rand() % 30)) + d_rand() % 256;
		printf("clock jump\n");
		break;
	case 24:
		D.abs = !D.abs;
		ring_buffer_set_time_stamp_abs(a, D.abs);
		printf("abs %d\n", D.abs);
		break;
	case 25:
		if (d_rand() % 4)
			return d_write(cpu, 0);
		if (d_rand() & 1) {
			ring_buffer_reset(a);
			printf("reset\n");
		} else {
			ring_buffer_reset_online_cpus(a);
			printf("reset online cpus\n");
		}
		break;
	case 26 ... 27:
		d_nested(cpu);
		break;
	case 28:
		/*
		 * record_disable()/enable() nest: enabled again when as many.
		 * Mostly enabled: disabled one time in eight from zero.
		 */
		if (D.rec_off && d_rand() % 4) {
			ring_buffer_record_enable(a);
			D.rec_off--;
		} else if (D.rec_off ? D.rec_off < 3 : d_rand() % 8 == 0) {
			ring_buffer_record_disable(a);
			D.rec_off++;
		}
		printf("record disabled %d: is_on %d is_set_on %d\n", D.rec_off,
		       ring_buffer_record_is_on(a), ring_buffer_record_is_set_on(a));
		break;
	case 29:
		/* a disabled CPU is the one enabled again, three times in four */
		for (int c = 0; c < D_NCPU; c++)
			if (D.rec_off_cpu[c])
				cpu = c;
		if (D.rec_off_cpu[cpu] && d_rand() % 4) {
			ring_buffer_record_enable_cpu(a, cpu);
			D.rec_off_cpu[cpu]--;
		} else if (D.rec_off_cpu[cpu] ? D.rec_off_cpu[cpu] < 3 : d_rand() % 4 == 0) {
			ring_buffer_record_disable_cpu(a, cpu);
			D.rec_off_cpu[cpu]++;
		}
		printf("record disabled cpu%d %d\n", cpu, D.rec_off_cpu[cpu]);
		break;
	case 30:
		d_queries();
		break;
	case 31:
		/*
		 * CPU hotplug: up prepares the CPU's ring in every buffer that
		 * has none (at the size of the others'); down leaves the ring as
		 * it is, readable, and no write is made there.
		 */
		if (D.offline) {
			ret = sim_cpu_up(D_HOTCPU);
			D.offline = ret != 0;
			D.hot_ring |= !ret;
			printf("cpu%d up: %d\n", D_HOTCPU, ret);
		} else {
			sim_cpu_down(D_HOTCPU);
			D.offline = 1;
			printf("cpu%d down\n", D_HOTCPU);
		}
		break;
	case 32:
		d_consume(0, D_HOTCPU, d_rand() & 1);
		break;
	case 33:
		if (d_rand() % 3 == 0)
			d_write(cpu, 2);
		else
			d_fill(cpu);
		break;
	}
}

static void d_run(u64 seed, int steps)
{
	memset(&D, 0, sizeof(D));
	D.rnd = seed * 0x9e3779b97f4a7c15ULL + 1;
	D.recording = 1;
	D.clock = 1000;
	D.overwrite = d_rand() & 1;
	D.offline = d_rand() % 3 == 0;
	printf("run %llu: overwrite %d cpu%d %s\n", (unsigned long long)seed, D.overwrite,
	       D_HOTCPU, D.offline ? "offline" : "online");
	D.hot_ring = !D.offline;
	if (D.offline)
		sim_cpu_down(D_HOTCPU);
	for (int bi = 0; bi < 2; bi++) {
		D.b[bi] = ring_buffer_alloc((2 + d_rand() % 8) * PAGE_SIZE,
					    D.overwrite ? RB_FL_OVERWRITE : 0);
		if (!D.b[bi]) {
			printf("alloc failed\n");
			if (bi)
				ring_buffer_free(D.b[0]);
			if (D.offline)
				sim_cpu_up(D_HOTCPU);
			return;
		}
		ring_buffer_set_clock(D.b[bi], d_clock);
	}
	D.max0 = ring_buffer_max_event_size(D.b[0]);
	for (int s = 0; s < steps; s++) {
		printf("step %d: ", s);
		d_step();
		d_counters();
	}
	/* drain: everything left, in order, with its losses */
	for (int cpu = 0; cpu < D_NCPU; cpu++)
		for (int n = 0; n < 20000 && ring_buffer_peek(D.b[0], cpu, NULL, NULL); n++)
			d_consume(0, cpu, 0);
	d_counters();
	ring_buffer_free(D.b[0]);
	ring_buffer_free(D.b[1]);
	/* RB_DIFF_EVENTS=1: every event written, to read a difference by */
	if (getenv("RB_DIFF_EVENTS"))
		for (int i = 0; i < D.nev; i++)
			printf("event #%u ts %llu len %u\n", D.ev[i].seq,
			       (unsigned long long)D.ev[i].ts, D.ev[i].len);
	if (D.offline && sim_cpu_up(D_HOTCPU))
		printf("cpu%d did not come up\n", D_HOTCPU);
}

static unsigned long long d_cur_seed;

/* A run that takes longer than RB_DIFF_RUN_SECS: say which, and stop. */
static void d_timeout(int sig)
{
	char msg[80];
	int n = snprintf(msg, sizeof(msg), "\nrun %llu: timed out\n", d_cur_seed);

	(void)sig;
	fflush(stdout);
	if (write(1, msg, n) < 0)
		_exit(125);
	_exit(124);
}

/*
 * --diff SEED[:RUNS[:STEPS]]: the traces of RUNS runs from SEED on; with
 * RB_DIFF_RUN_SECS=T in the environment each run has T seconds (exit 124).
 */
int rb_diff_main(const char *arg)
{
	unsigned long long seed = strtoull(arg, NULL, 0);
	const char *p = strchr(arg, ':');
	int runs = p ? atoi(p + 1) : 1, steps = 300;

	if (p && strchr(p + 1, ':'))
		steps = atoi(strchr(p + 1, ':') + 1);
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	const char *secs = getenv("RB_DIFF_RUN_SECS");

	if (secs)
		signal(SIGALRM, d_timeout);
	for (int r = 0; r < runs; r++) {
		d_cur_seed = seed + r;
		if (secs)
			alarm(atoi(secs));
		d_run(seed + r, steps);
	}
	alarm(0);
	fflush(stdout);
	return sim_warnings() ? 1 : 0;
}
