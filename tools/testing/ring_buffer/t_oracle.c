// SPDX-License-Identifier: GPL-2.0
/*
 * The oracle of the concurrency tests: writers record what they wrote,
 * readers record what they got, and or_judge() accounts for every event
 * after any interleaving.
 *
 * A writer's event carries (cpu, stream, seq) in its payload: the stream
 * is the context it was written from (task, softirq, irq, NMI), seq counts
 * that context's attempts on that CPU, so that one stream's events are in
 * buffer order whatever interrupted them.  Every attempt is recorded with
 * its outcome (reserved, committed, discarded, refused).  Readers (consume,
 * peek, read_page, iterators) log what they delivered with the loss the
 * API reported there (a count, a flag, or nothing for an API that gives
 * none), one log per reading context and CPU.  or_judge() drains every
 * CPU with the reader the test used, then checks:
 *
 *  - every event read was written and committed, on that CPU, with its
 *    payload intact, and read once;
 *  - each reading context saw each stream in order;
 *  - written (committed) = read + lost, exactly, once drained; each loss
 *    reported at the first event after it, with the exact count where
 *    the API gives one, no loss reported where none was, nothing both read
 *    and counted lost (overrun = lost);
 *  - entries_cpu before the drain = what the drain read; overrun_cpu,
 *    read_events_cpu, commit_overrun_cpu + dropped_events_cpu against that;
 *  - nothing is wedged: afterwards a write from the task and from an irq
 *    on every CPU reads back (and, when asked, reset, resize and a
 *    map/unmap still work).
 */
#include <stdarg.h>

#include "rb_test.h"

#define OR_CPUS 8
#define OR_STREAMS 4
#define OR_MAX 12288
#define OR_LOGS 4
#define OR_READS 12288

struct or_rec {
	u16 len;
	u8 state;
	u8 seen;
};

struct or_read {
	u32 seq;
	u8 stream;
	u8 how;
	u32 tick;		/* order of recording among all logs of the CPU */
	long lost;
	u64 ts;
};

struct or_log {
	int key;		/* reading context: cpu * 8 + level, -1 free */
	u32 nr;
	struct or_read r[OR_READS];
};

static struct or_cpu {
	u32 next[OR_STREAMS];
	u32 committed, refused;
	struct or_rec rec[OR_STREAMS][OR_MAX];
	struct or_log log[OR_LOGS];
	u32 consumed;		/* delivered by consuming reads */
	u32 ticks;
} or_cpu[OR_CPUS];

static int or_failed;
static int or_nr_dumps;
static char or_why[256];
unsigned int or_flags;
const char *or_name = "";

static const char *const or_how_name[] = {
	[OR_HOW_CONSUME] = "consume", [OR_HOW_PAGE] = "read_page",
	[OR_HOW_ITER] = "iterator", [OR_HOW_MAP] = "mapped read",
};

static void or_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void or_fail(const char *fmt, ...)
{
	va_list ap;

	if (or_failed++)
		return;
	va_start(ap, fmt);
	vsnprintf(or_why, sizeof(or_why), fmt, ap);
	va_end(ap);
	printf("# oracle%s%s: %s\n", *or_name ? " " : "", or_name, or_why);
	fflush(stdout);
}

void or_reset(void)
{
	for (int c = 0; c < OR_CPUS; c++) {
		struct or_cpu *o = &or_cpu[c];

		for (int s = 0; s < OR_STREAMS; s++)
			memset(o->rec[s], 0, sizeof(o->rec[s][0]) * o->next[s]);
		memset(o->next, 0, sizeof(o->next));
		o->committed = o->refused = o->consumed = o->ticks = 0;
		or_nr_dumps = 0;
		for (int l = 0; l < OR_LOGS; l++) {
			o->log[l].key = -1;
			o->log[l].nr = 0;
		}
	}
	or_failed = 0;
	or_why[0] = 0;
}

int or_stream(void)
{
	unsigned long pc = sim_ctx.pc;

	if (pc & NMI_MASK)
		return 3;
	if (pc & HARDIRQ_MASK)
		return 2;
	if (pc & SOFTIRQ_OFFSET)
		return 1;
	return 0;
}

static u32 or_tag(int cpu, int stream, u32 seq)
{
	return 0xB5000000u | (cpu & 0xff) << 16 | (stream & 0xf) << 12 |
	       ((seq * 2654435761u) >> 20 & 0xfff);
}

static u32 or_seed(int cpu, int stream, u32 seq)
{
	return seq ^ (u32)cpu << 24 ^ (u32)stream << 20 ^ 0x5a5a;
}

static void or_payload(void *p, int cpu, int stream, u32 seq, u32 len)
{
	u32 w[2] = { or_tag(cpu, stream, seq), seq };

	memcpy(p, w, 8);
	sim_step_hold(1);
	if (len > 8)
		t_fill((u8 *)p + 8, len - 8, or_seed(cpu, stream, seq));
	sim_step_hold(0);
}

static struct or_rec *or_new(int cpu, int stream, u32 len, struct or_handle *h)
{
	struct or_cpu *o = &or_cpu[cpu];
	u32 seq;

	if (cpu >= OR_CPUS || len < OR_MIN_LEN || len > 0xffff) {
		or_fail("a write of %u bytes on CPU %d: the oracle cannot record it", len, cpu);
		return NULL;
	}
	seq = o->next[stream];
	if (seq >= OR_MAX) {
		or_fail("more than %d writes of stream %d on CPU %d", OR_MAX, stream, cpu);
		return NULL;
	}
	o->next[stream] = seq + 1;
	o->rec[stream][seq].len = len;
	o->rec[stream][seq].state = OR_RESERVED;
	h->cpu = cpu;
	h->stream = stream;
	h->seq = seq;
	h->ev = NULL;
	return &o->rec[stream][seq];
}

static void or_outcome(struct or_handle *h, int state)
{
	struct or_cpu *o = &or_cpu[h->cpu];

	o->rec[h->stream][h->seq].state = state;
	if (state == OR_COMMITTED)
		o->committed++;
	else if (state == OR_REFUSED)
		o->refused++;
}

int or_write(struct trace_buffer *b, u32 len)
{
	/* not a static buffer: an interrupt may write while the task fills its own */
	u8 buf[OR_MAX_LEN];
	struct or_handle h;
	int cpu = sim_ctx.cpu, ret;

	if (len > sizeof(buf) || !or_new(cpu, or_stream(), len, &h))
		return -EINVAL;
	or_payload(buf, cpu, h.stream, h.seq, len);
	ret = ring_buffer_write(b, len, buf);
	or_outcome(&h, ret ? OR_REFUSED : OR_COMMITTED);
	return ret;
}

void *or_reserve(struct trace_buffer *b, u32 len, struct or_handle *h)
{
	int cpu = sim_ctx.cpu;

	if (!or_new(cpu, or_stream(), len, h))
		return NULL;
	h->ev = ring_buffer_lock_reserve(b, len);
	if (!h->ev) {
		or_outcome(h, OR_REFUSED);
		return NULL;
	}
	or_payload(ring_buffer_event_data(h->ev), cpu, h->stream, h->seq, len);
	return h->ev;
}

int or_commit(struct trace_buffer *b, struct or_handle *h)
{
	int ret = ring_buffer_unlock_commit(b);

	or_outcome(h, OR_COMMITTED);
	return ret;
}

void or_discard(struct trace_buffer *b, struct or_handle *h)
{
	ring_buffer_discard_commit(b, h->ev);
	or_outcome(h, OR_DISCARDED);
}

/* ------------------------------------------------------------ readers */

static struct or_log *or_log_of(int cpu)
{
	int key = sim_ctx.cpu * 8 + or_stream();
	struct or_cpu *o = &or_cpu[cpu];

	for (int l = 0; l < OR_LOGS; l++) {
		int free = -1;

		/* a reader on another CPU may be taking a log at the same time */
		if (__atomic_load_n(&o->log[l].key, __ATOMIC_ACQUIRE) == key ||
		    __atomic_compare_exchange_n(&o->log[l].key, &free, key, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return &o->log[l];
		if (free == key)
			return &o->log[l];
	}
	or_fail("more than %d reading contexts of CPU %d", OR_LOGS, cpu);
	return NULL;
}

/*
 * Is (data, len) an event of @cpu, intact?  Gives its stream and seq.
 * An event whose writer has not yet recorded its commit may be read (it
 * is paused after the commit): reserved counts too, checked in or_judge().
 */
static int or_decode(int cpu, const void *data, u32 len, int *stream, u32 *seq,
		     const char *how)
{
	u32 w[2];
	struct or_rec *r;
	int s, ok;

	if (len < 8) {
		or_fail("%s of CPU %d: an event of %u bytes, not written by a writer", how, cpu, len);
		return -1;
	}
	memcpy(w, data, 8);
	s = (w[0] >> 12) & 0xf;
	if ((w[0] & 0xff000000u) != 0xB5000000u || s >= OR_STREAMS ||
	    ((w[0] >> 16) & 0xff) != (u32)cpu || w[0] != or_tag(cpu, s, w[1]) ||
	    w[1] >= or_cpu[cpu].next[s]) {
		or_fail("%s of CPU %d: an event (%u bytes, words %#x %#x) no writer of this CPU wrote",
			how, cpu, len, w[0], w[1]);
		return -1;
	}
	r = &or_cpu[cpu].rec[s][w[1]];
	if (r->state != OR_RESERVED && r->state != OR_COMMITTED) {
		or_fail("%s of CPU %d: event %d.%u, which its writer saw %s, is readable",
			how, cpu, s, w[1], r->state == OR_DISCARDED ? "discarded" : "refused");
		return -1;
	}
	if (len < r->len || len >= r->len + 8) {
		or_fail("%s of CPU %d: event %d.%u of %u bytes reads back as %u", how, cpu,
			s, w[1], r->len, len);
		return -1;
	}
	sim_step_hold(1);
	ok = r->len <= 8 || t_check((const u8 *)data + 8, r->len - 8, or_seed(cpu, s, w[1]));
	sim_step_hold(0);
	if (!ok) {
		or_fail("%s of CPU %d: event %d.%u's payload is not what was written",
			how, cpu, s, w[1]);
		return -1;
	}
	*stream = s;
	*seq = w[1];
	return 0;
}

static int or_deliver_held(int cpu, const void *data, u32 len, long lost, u64 ts, int how);

/* Log a consuming read of @cpu; @lost: a count, OR_LOST_FLAG or OR_LOST_NONE. */
static int or_deliver(int cpu, const void *data, u32 len, long lost, u64 ts, int how)
{
	int ret;

	sim_step_hold(1);
	ret = or_deliver_held(cpu, data, len, lost, ts, how);
	sim_step_hold(0);
	return ret;
}

static int or_deliver_held(int cpu, const void *data, u32 len, long lost, u64 ts, int how)
{
	struct or_log *l = or_log_of(cpu);
	struct or_read *r;
	int s;
	u32 seq;

	if (!l || or_decode(cpu, data, len, &s, &seq, or_how_name[how]))
		return -1;
	if (getenv("OR_DEBUG") && atoi(getenv("OR_DEBUG")) > 1)
		printf("# deliver cpu %d key %d how %s %d.%u\n", cpu, l->key,
		       or_how_name[how], s, seq);
	/* atomics: a reader on another CPU may run at the same time */
	if (__atomic_fetch_add(&or_cpu[cpu].rec[s][seq].seen, 1, __ATOMIC_RELAXED)) {
		or_fail("%s of CPU %d: event %d.%u delivered twice", or_how_name[how], cpu, s, seq);
		return -1;
	}
	__atomic_fetch_add(&or_cpu[cpu].consumed, 1, __ATOMIC_RELAXED);
	if (l->nr >= OR_READS) {
		or_fail("more than %d reads of CPU %d", OR_READS, cpu);
		return -1;
	}
	r = &l->r[l->nr++];
	r->seq = seq;
	r->stream = s;
	r->how = how;
	r->lost = lost;
	r->ts = ts;
	r->tick = __atomic_fetch_add(&or_cpu[cpu].ticks, 1, __ATOMIC_RELAXED);
	return 0;
}

int or_consume(struct trace_buffer *b, int cpu)
{
	struct ring_buffer_event *e;
	unsigned long lost = 0;
	u64 ts = 0;

	e = ring_buffer_consume(b, cpu, &ts, &lost);
	if (!e)
		return 0;
	if (or_deliver(cpu, ring_buffer_event_data(e), ring_buffer_event_length(e),
		       lost == ~0UL ? OR_LOST_FLAG : (long)lost, ts, OR_HOW_CONSUME))
		return -1;
	return 1;
}

/*
 * A peek: the event shown was written and committed on that CPU, intact.
 * Not consuming: nothing is accounted (another reader may consume it
 * before the peek returns).
 */
int or_peek(struct trace_buffer *b, int cpu)
{
	struct ring_buffer_event *e;
	unsigned long lost = 0;
	u64 ts = 0;
	int s;
	u32 seq;

	e = ring_buffer_peek(b, cpu, &ts, &lost);
	if (!e)
		return 0;
	if (or_decode(cpu, ring_buffer_event_data(e), ring_buffer_event_length(e), &s, &seq,
		      "peek"))
		return -1;
	return 1;
}

static int or_parse_page_held(int cpu, const void *page, size_t size);

int or_parse_page(int cpu, const void *page, size_t size)
{
	int n;

	sim_step_hold(1);
	n = or_parse_page_held(cpu, page, size);
	sim_step_hold(0);
	return n;
}

static int or_parse_page_held(int cpu, const void *page, size_t size)
{
	static __thread struct t_pevent ev[1024];
	unsigned long word, stored;
	int n, missed;
	long lost = 0;

	n = t_parse_page(page, size, ev, 1024, &missed);
	if (n < 0) {
		or_fail("read_page of CPU %d: the page does not parse", cpu);
		return -1;
	}
	memcpy(&word, (const u8 *)page + 8, sizeof(long));
	if (word & T_MISSED_STORED) {
		memcpy(&stored, (const u8 *)page + T_SB_HDR + (word & T_COMMIT_MASK),
		       sizeof(long));
		lost = stored;
	} else if (missed) {
		lost = OR_LOST_FLAG;
	}
	if (lost && !n) {
		or_fail("read_page of CPU %d: a loss reported on a page with no event", cpu);
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (or_deliver(cpu, ev[i].data, ev[i].len, i ? 0 : lost, ev[i].ts, OR_HOW_PAGE))
			return -1;
	return n;
}

int or_read_page(struct trace_buffer *b, int cpu, struct buffer_data_read_page *rp,
		 size_t len, int full)
{
	int ret = ring_buffer_read_page(b, rp, len, cpu, full);

	if (ret < 0)
		return 0;
	return or_parse_page(cpu, ring_buffer_read_page_data(rp), len) < 0 ? -1 : 1;
}

/*
 * An iterator over @cpu, start to finish: what it shows was written and
 * committed, intact, each stream in order, nothing twice.  Not consuming:
 * nothing is accounted.  Returns the events shown or -1.
 */
int or_iter_pass(struct trace_buffer *b, int cpu, int max)
{
	static __thread u32 last[OR_STREAMS];
	struct ring_buffer_iter *it;
	struct ring_buffer_event *e;
	int n = 0, s;
	u32 seq;
	u64 ts;

	it = ring_buffer_read_start(b, cpu, GFP_KERNEL);
	if (!it)
		return 0;
	for (s = 0; s < OR_STREAMS; s++)
		last[s] = ~0U;
	while ((e = ring_buffer_iter_peek(it, &ts))) {
		if (or_decode(cpu, ring_buffer_event_data(e), ring_buffer_event_length(e),
			      &s, &seq, "iterator")) {
			n = -1;
			break;
		}
		if (last[s] != ~0U && seq <= last[s]) {
			or_fail("iterator of CPU %d: event %d.%u after %d.%u", cpu, s, seq, s,
				last[s]);
			n = -1;
			break;
		}
		last[s] = seq;
		n++;
		ring_buffer_iter_advance(it);
		if (max && n >= max)
			break;
		if (n > 4 * OR_MAX) {
			or_fail("iterator of CPU %d: does not end", cpu);
			n = -1;
			break;
		}
	}
	ring_buffer_read_finish(it);
	return n;
}

/* reads of the NMI dump, resolved by or_judge() */
#define OR_DUMP_MAX 8192
static struct or_dump {
	int cpu, stream, dumper;
	u32 seq;
	long lost;
} or_dumps[OR_DUMP_MAX];
int or_dump_consume(struct trace_buffer *b, int cpu)
{
	struct ring_buffer_event *e = ring_buffer_consume(b, cpu, NULL, NULL);
	int s;
	u32 seq;

	if (!e)
		return 0;
	if (or_decode(cpu, ring_buffer_event_data(e), ring_buffer_event_length(e), &s, &seq,
		      "NMI dump"))
		return -1;
	/* two dumps may run at once, on two CPUs */
	{
		int i = __atomic_fetch_add(&or_nr_dumps, 1, __ATOMIC_RELAXED);

		if (i < OR_DUMP_MAX)
			or_dumps[i] = (struct or_dump){ cpu, s, sim_ctx.cpu, seq, OR_LOST_NONE };
	}
	return 1;
}

/* The dump's reads that nobody read again were consumed: deliver them. */
static void or_dump_resolve(int cpu)
{
	int n = or_nr_dumps < OR_DUMP_MAX ? or_nr_dumps : OR_DUMP_MAX;

	for (int i = 0; i < n; i++) {
		struct or_dump *d = &or_dumps[i];
		struct or_rec *r = &or_cpu[cpu].rec[d->stream][d->seq];
		struct or_log *l = NULL;
		int key = 1000 + d->dumper;

		if (d->cpu != cpu || r->seen)
			continue;
		/* a log of each dumping CPU */
		for (int k = 0; k < OR_LOGS && !l; k++)
			if (or_cpu[cpu].log[k].key == key)
				l = &or_cpu[cpu].log[k];
		for (int k = 0; k < OR_LOGS && !l; k++)
			if (or_cpu[cpu].log[k].key < 0) {
				l = &or_cpu[cpu].log[k];
				l->key = key;
			}
		if (!l) {
			or_fail("more than %d reading contexts of CPU %d", OR_LOGS, cpu);
			return;
		}
		r->seen = 1;
		or_cpu[cpu].consumed++;
		if (l->nr < OR_READS)
			l->r[l->nr++] = (struct or_read){ .seq = d->seq, .stream = d->stream,
				.how = OR_HOW_CONSUME, .tick = or_cpu[cpu].ticks++,
				.lost = OR_LOST_NONE };
	}
}

/* ------------------------------------------------------------ judge */

/* or_miss[s][q]: committed events of stream s before seq q never read */
static u32 or_miss[OR_STREAMS][OR_MAX + 1];

static void or_count_prepare(struct or_cpu *o)
{
	for (int s = 0; s < OR_STREAMS; s++) {
		or_miss[s][0] = 0;
		for (u32 q = 0; q < o->next[s]; q++)
			or_miss[s][q + 1] = or_miss[s][q] +
				(o->rec[s][q].state == OR_COMMITTED && !o->rec[s][q].seen);
	}
}

static long or_count_missing(struct or_cpu *o, int s, u32 below)
{
	return or_miss[s][below < o->next[s] ? below : o->next[s]];
}

/* One reading context's log: each stream in order, stamps (OR_TS) too. */
static int or_check_order(int cpu, struct or_log *l)
{
	u32 last[OR_STREAMS];
	u64 ts_last = 0;

	for (int s = 0; s < OR_STREAMS; s++)
		last[s] = ~0U;
	for (u32 k = 0; k < l->nr; k++) {
		struct or_read *r = &l->r[k];

		if (last[r->stream] != ~0U && r->seq <= last[r->stream]) {
			if (getenv("OR_DEBUG"))
				for (u32 i = 0; i < l->nr; i++)
					printf("# log %d read %u: %s %d.%u lost %ld tick %u\n", l->key, i,
					       or_how_name[l->r[i].how], l->r[i].stream, l->r[i].seq,
					       l->r[i].lost, l->r[i].tick);
			or_fail("%s of CPU %d, read %u: event %d.%u after %d.%u", or_how_name[r->how],
				cpu, k, r->stream, r->seq, r->stream, last[r->stream]);
			return -1;
		}
		if ((or_flags & OR_TS) && r->ts < ts_last) {
			printf("# oracle: %s of CPU %d, read %u: stamp %llu after %llu\n",
			       or_how_name[r->how], cpu, k, (unsigned long long)r->ts,
			       (unsigned long long)ts_last);
			return -2;
		}
		ts_last = r->ts;
		last[r->stream] = r->seq;
	}
	return 0;
}

/*
 * The loss reports of all reads of @cpu in the order they were recorded
 * (the order they happened unless a reader was interrupted by another
 * between its read and its record: OR_MANY_READERS then).  After read k,
 * the losses reported so far are at least the missing events of each
 * stream before its last read one, at most those before the next one read
 * of each stream: with one stream, exactly the gap.  Returns the sum of
 * the counts reported, -1 on a failure; *flagged counts flag-only reports.
 */
static struct or_read *or_merged[OR_LOGS * OR_READS];
static u32 or_next_of[OR_LOGS * OR_READS + 1][OR_STREAMS];

static long or_check_losses(int cpu, int *flagged)
{
	struct or_cpu *o = &or_cpu[cpu];
	u32 pos[OR_LOGS] = { 0 }, n = 0, last[OR_STREAMS];
	long sum = 0, cum = 0, lo, hi;

	or_count_prepare(o);
	for (;;) {
		int best = -1;

		for (int l = 0; l < OR_LOGS; l++) {
			if (o->log[l].key < 0 || pos[l] >= o->log[l].nr)
				continue;
			if (best < 0 || o->log[l].r[pos[l]].tick < o->log[best].r[pos[best]].tick)
				best = l;
		}
		if (best < 0)
			break;
		or_merged[n++] = &o->log[best].r[pos[best]++];
	}
	for (int s = 0; s < OR_STREAMS; s++) {
		last[s] = ~0U;
		or_next_of[n][s] = o->next[s];
	}
	/* or_next_of[k][s]: the seq of stream s read at or after read k (or the end) */
	for (long k = (long)n - 1; k >= 0; k--) {
		memcpy(or_next_of[k], or_next_of[k + 1], sizeof(or_next_of[k]));
		or_next_of[k][or_merged[k]->stream] = or_merged[k]->seq;
	}
	for (u32 k = 0; k < n; k++) {
		struct or_read *r = or_merged[k];

		if (r->lost == OR_LOST_FLAG)
			(*flagged)++;
		else if (r->lost > 0)
			sum += r->lost;
		if (last[r->stream] == ~0U || r->seq > last[r->stream])
			last[r->stream] = r->seq;
		if ((or_flags & (OR_MANY_READERS | OR_LOSS_UNREPORTED)) || r->lost == OR_LOST_NONE)
			continue;
		lo = hi = 0;
		for (int s = 0; s < OR_STREAMS; s++) {
			if (last[s] != ~0U)
				lo += or_count_missing(o, s, last[s]);
			hi += or_count_missing(o, s, or_next_of[k + 1][s]);
		}
		if (r->lost == OR_LOST_FLAG) {
			if (hi <= cum) {
				or_fail("%s of CPU %d, read %u (event %d.%u): a loss flagged, nothing lost there",
					or_how_name[r->how], cpu, k, r->stream, r->seq);
				return -1;
			}
			cum = lo > cum ? lo : cum;
			continue;
		}
		cum += r->lost;
		if (cum < lo || cum > hi) {
			or_fail("%s of CPU %d, read %u (event %d.%u): %ld reported lost, the gap is %s%ld",
				or_how_name[r->how], cpu, k, r->stream, r->seq, r->lost,
				lo == hi ? "" : "at least ", lo - (cum - r->lost));
			return -1;
		}
	}
	return sum;
}

static void or_enter(unsigned int off) { sim_ctx.pc += off; }
static void or_leave(unsigned int off) { sim_ctx.pc -= off; }

static int or_drain_cpu(struct trace_buffer *b, int cpu, int how)
{
	static struct buffer_data_read_page *rp;
	int n = 0, r = 0;

	if (how == OR_HOW_PAGE) {
		if (!rp && ring_buffer_alloc_read_page(b, cpu, &rp))
			rp = NULL;
		while (rp && (r = or_read_page(b, cpu, rp, PAGE_SIZE, 0)) > 0)
			n++;
		if (rp) {
			ring_buffer_free_read_page(b, cpu, rp);
			rp = NULL;
		}
		if (r < 0)
			return -1;
	}
	while ((r = or_consume(b, cpu)) > 0)
		n++;
	return r < 0 ? -1 : n;
}

int or_judge(struct trace_buffer *b, unsigned int flags)
{
	int saved_cpu = sim_ctx.cpu, ret = 0;
	unsigned int saved_flags = or_flags;

	or_flags |= flags;
	if (or_failed)
		return 1;
	for (int cpu = 0; cpu < nr_cpu_ids && cpu < OR_CPUS; cpu++) {
		struct or_cpu *o = &or_cpu[cpu];
		unsigned long entries, over, cover, dropped, readev;
		u32 before, lost = 0, delivered = 0;
		int flagged = 0;
		long reported = 0, r;

		if (!ring_buffer_size(b, cpu))
			continue;
		entries = ring_buffer_entries_cpu(b, cpu);
		before = o->consumed;
		if (or_drain_cpu(b, cpu, (or_flags & OR_DRAIN_PAGE) ? OR_HOW_PAGE : OR_HOW_CONSUME) < 0)
			goto out;
		if (!ring_buffer_empty_cpu(b, cpu))
			or_fail("CPU %d: not empty after the drain", cpu);
		if (!(or_flags & OR_NO_COUNTERS) && entries != o->consumed - before)
			or_fail("CPU %d: entries_cpu %lu before the drain, which read %u",
				cpu, entries, o->consumed - before);
		or_dump_resolve(cpu);
		if (ring_buffer_entries_cpu(b, cpu))
			or_fail("CPU %d: entries_cpu %lu after the drain", cpu,
				ring_buffer_entries_cpu(b, cpu));
		/* what each writer saw, against what was read */
		for (int s = 0; s < OR_STREAMS; s++) {
			for (u32 q = 0; q < o->next[s]; q++) {
				struct or_rec *rc = &o->rec[s][q];

				if (rc->state == OR_RESERVED)
					or_fail("CPU %d: event %d.%u still open after the test", cpu, s, q);
				else if (rc->seen && rc->state != OR_COMMITTED)
					or_fail("CPU %d: event %d.%u read, its writer saw it %s",
						cpu, s, q,
						rc->state == OR_DISCARDED ? "discarded" : "refused");
				else if (rc->state == OR_COMMITTED && !rc->seen)
					lost++;
				delivered += !!rc->seen;
			}
		}
		if (or_failed)
			goto out;
		for (int l = 0; l < OR_LOGS; l++) {
			if (o->log[l].key < 0 || !o->log[l].nr)
				continue;
			r = or_check_order(cpu, &o->log[l]);
			if (r == -2)
				ret = OR_TS_BACK;
			else if (r < 0)
				goto out;
		}
		reported = or_check_losses(cpu, &flagged);
		if (reported < 0)
			goto out;
		if (delivered + lost != o->committed)
			or_fail("CPU %d: %u committed, %u read + %u lost", cpu, o->committed,
				delivered, lost);
		if (!flagged && reported != lost && !(or_flags & OR_LOSS_UNREPORTED) &&
		    !or_nr_dumps)
			or_fail("CPU %d: %u events lost, %ld reported lost", cpu, lost, reported);
		if (flagged && reported > lost)
			or_fail("CPU %d: %u events lost, %ld reported lost", cpu, lost, reported);
		if (or_flags & OR_NO_COUNTERS)
			continue;
		over = ring_buffer_overrun_cpu(b, cpu);
		cover = ring_buffer_commit_overrun_cpu(b, cpu);
		dropped = ring_buffer_dropped_events_cpu(b, cpu);
		readev = ring_buffer_read_events_cpu(b, cpu);
		if (over != lost && !(or_flags & OR_LOSS_UNREPORTED))
			or_fail("CPU %d: overrun_cpu %lu, %u events lost", cpu, over, lost);
		if (!(or_flags & OR_ITER_READS) && readev != o->consumed)
			or_fail("CPU %d: read_events_cpu %lu, %u events read", cpu, readev, o->consumed);
		if (cover + dropped > o->refused)
			or_fail("CPU %d: commit_overrun %lu + dropped %lu, %u writes refused",
				cpu, cover, dropped, o->refused);
		if (or_failed)
			goto out;
	}
	/* nothing wedged: task and irq writes on every CPU read back */
	if (!(or_flags & OR_NO_LIVENESS)) {
		for (int cpu = 0; cpu < nr_cpu_ids && cpu < OR_CPUS && !or_failed; cpu++) {
			if (!ring_buffer_size(b, cpu) || !cpu_online(cpu))
				continue;
			sim_ctx.cpu = cpu;
			if (or_write(b, 16))
				or_fail("CPU %d: a task write refused after the test", cpu);
			or_enter(HARDIRQ_OFFSET);
			if (or_write(b, 16))
				or_fail("CPU %d: an irq write refused after the test", cpu);
			or_leave(HARDIRQ_OFFSET);
			sim_ctx.cpu = saved_cpu;
			if (!or_failed && or_drain_cpu(b, cpu, OR_HOW_CONSUME) != 2)
				or_fail("CPU %d: the writes after the test do not read back", cpu);
		}
	}
	if ((or_flags & OR_CONTROL) && !or_failed) {
		unsigned long size = ring_buffer_size(b, 0);

		ring_buffer_reset(b);
		if (ring_buffer_resize(b, size * 2, RING_BUFFER_ALL_CPUS) < 0)
			or_fail("resize after the test failed");
		else if (ring_buffer_resize(b, size, RING_BUFFER_ALL_CPUS) < 0)
			or_fail("resize back after the test failed");
#ifndef RB_STOCK
		else {
			struct t_map m;

			if (t_map(&m, b, 0))
				or_fail("map after the test failed");
			else if (t_unmap(&m))
				or_fail("unmap after the test failed");
		}
#endif
		if (!or_failed) {
			sim_ctx.cpu = 0;
			if (or_write(b, 16) || or_drain_cpu(b, 0, OR_HOW_CONSUME) != 1)
				or_fail("CPU 0: no write reads back after reset and resize");
			sim_ctx.cpu = saved_cpu;
		}
	}
out:
	sim_ctx.cpu = saved_cpu;
	or_flags = saved_flags;
	return or_failed ? 1 : ret;
}

unsigned long or_written(int cpu, int stream)
{
	return or_cpu[cpu].next[stream];
}

unsigned long or_committed(int cpu)
{
	return or_cpu[cpu].committed;
}

/*
 * The oracle fails what it must: an event consumed behind its back (lost,
 * nothing reported, overrun 0), a page delivered twice, a loss reported
 * where there was none; and passes a lapped ring read through it.
 */
int or_self_test(void)
{
	struct buffer_data_read_page *rp = NULL;
	struct trace_buffer *b = ring_buffer_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	static u8 page[PAGE_SIZE];
	unsigned long word, n;
	int ret = 0;

	if (!b)
		return 1;
	sim_ctx.cpu = 0;
	/* a lapped ring, read through the oracle: right */
	or_reset();
	for (int i = 0; i < 1000; i++)
		or_write(b, 40);
	if (or_judge(b, 0)) {
		printf("# oracle self-test: a lapped ring read through the oracle fails\n");
		ret = 1;
	}
	/* an event consumed behind the oracle's back */
	or_reset();
	for (int i = 0; i < 10; i++)
		or_write(b, 40);
	ring_buffer_consume(b, 0, NULL, NULL);
	if (!or_judge(b, 0)) {
		printf("# oracle self-test: an event gone unreported passes\n");
		ret = 1;
	}
	/* the same page twice */
	or_reset();
	ring_buffer_reset(b);
	for (int i = 0; i < 10; i++)
		or_write(b, 40);
	if (ring_buffer_alloc_read_page(b, 0, &rp) ||
	    ring_buffer_read_page(b, rp, PAGE_SIZE, 0, 0) < 0) {
		printf("# oracle self-test: no page\n");
		ret = 1;
	} else {
		memcpy(page, ring_buffer_read_page_data(rp), PAGE_SIZE);
		if (or_parse_page(0, page, PAGE_SIZE) != 10 ||
		    or_parse_page(0, page, PAGE_SIZE) >= 0) {
			printf("# oracle self-test: a page delivered twice passes\n");
			ret = 1;
		}
		/* a loss reported where there was none */
		or_reset();
		ring_buffer_reset(b);
		for (int i = 0; i < 10; i++)
			or_write(b, 40);
		memcpy(&word, page + 8, sizeof(long));
		n = 3;
		word = (word & T_COMMIT_MASK) | T_MISSED_EVENTS | T_MISSED_STORED;
		memcpy(page + 8, &word, sizeof(long));
		memcpy(page + T_SB_HDR + (word & T_COMMIT_MASK), &n, sizeof(long));
		or_parse_page(0, page, PAGE_SIZE);
		ring_buffer_reset(b);
		if (!or_judge(b, OR_NO_COUNTERS)) {
			printf("# oracle self-test: 3 reported lost where none was passes\n");
			ret = 1;
		}
		ring_buffer_free_read_page(b, 0, rp);
	}
	or_reset();
	ring_buffer_free(b);
	return ret;
}
