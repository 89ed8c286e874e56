// SPDX-License-Identifier: GPL-2.0
/*
 * Differential driver: a seeded random sequence of calls to the whole
 * single-context API (writes of every size class, reserve/commit/discard,
 * writes from an irq, consume, peek, iterators, read_page, resize of one
 * CPU or all, sub-buffer order, swap_cpu, reset_cpu, reset, record on/off,
 * overwrite on/off, absolute stamps, clock jumps and every query) on two
 * buffers over two simulated CPUs.  It judges nothing: it prints what a
 * caller can observe, one line per call and the counters of every CPU
 * after each step, in a canonical form.  diff.py runs it on ours and on
 * stock 6.12 (STOCK=1) with the same seeds and compares the two outputs;
 * what may differ is normalised there, in one place.
 *
 *   rbtest --diff SEED[:RUNS[:STEPS]]
 */
#include "rb_test.h"

#define D_NCPU 2

struct d_ev {
	u64 ts;
	u32 seq, len;
};

static struct {
	struct trace_buffer *b[2];
	u64 clock, rnd;
	u32 seq;
	int overwrite, recording, abs, order;
	struct d_ev ev[1 << 16];	/* every event written: ts -> seq, len */
	int nev;
	unsigned long used[2][D_NCPU];	/* bytes written since the CPU was last empty */
	unsigned long max0;		/* the largest event at allocation */
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

	/* entries, not empty_cpu(): stock's differs with padding left */
	if (!ring_buffer_entries_cpu(D.b[bi], cpu))
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

/* An event read back: its seq if it was written with this stamp and is intact. */
static void d_event(const char *who, u64 ts, const void *data, unsigned int len)
{
	int lo = 0, hi = D.nev - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (D.ev[mid].ts == ts) {
			const struct d_ev *e = &D.ev[mid];

			printf(" %s#%u%s", who, e->seq,
			       len < e->len || !t_check(data, e->len, e->seq) ? "(corrupt)" : "");
			return;
		}
		if (D.ev[mid].ts < ts)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	printf(" %s?ts=%llu", who, (unsigned long long)ts);
}

static const u32 d_lens[] = { 0, 1, 3, 4, 5, 8, 12, 24, 64, 100, 108, 112, 113, 200,
			      500, 1000, 2000, 4000 };

static void d_write(int cpu, int how)
{
	struct trace_buffer *b = D.b[0];
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
	u32 len = r < 246 ? d_lens[r % ARRAY_SIZE(d_lens)] : max - r % 3;
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
	printf("write cpu%d len %s%u how %d: %s\n", cpu, r < 246 ? "" : "max-", r < 246 ? len : r % 3,
	       how, ok ? "ok" : "refused");
	if (ok && how != 3 && D.nev < (int)ARRAY_SIZE(D.ev))
		D.ev[D.nev++] = (struct d_ev){ D.clock, seq, len };
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
		d_event("", ts, ring_buffer_event_data(e), ring_buffer_event_length(e));
		printf(" lost %lu", lost);
	} else {
		printf(" none");
	}
	printf("\n");
}

static void d_iterate(int cpu)
{
	struct ring_buffer_iter *it = ring_buffer_read_start(D.b[0], cpu, GFP_KERNEL);
	struct ring_buffer_event *e;
	int n = 0;
	u64 ts;

	printf("iterate cpu%d:", cpu);
	if (!it) {
		printf(" no iterator\n");
		return;
	}
	while (n < 20000) {
		e = ring_buffer_iter_peek(it, &ts);
		/* stock gives up after a few empty sub-buffers per call */
		for (int tries = 0; !e && tries < 8; tries++)
			e = ring_buffer_iter_peek(it, &ts);
		if (!e)
			break;
		if (ring_buffer_iter_dropped(it))
			printf(" dropped");
		d_event("", ts, ring_buffer_event_data(e), ring_buffer_event_length(e));
		ring_buffer_iter_advance(it);
		n++;
	}
	ring_buffer_read_finish(it);
	printf(" end\n");
}

static void d_read_page(int cpu)
{
	static struct t_pevent ev[4096];
	struct buffer_data_read_page *rp = NULL;
	int full = d_rand() & 1, n, missed, ret;
	size_t size;

	printf("read_page cpu%d full %d:", cpu, full);
	if (ring_buffer_alloc_read_page(D.b[0], cpu, &rp)) {
		printf(" no page\n");
		return;
	}
	size = ring_buffer_read_page_size(rp);
	ret = ring_buffer_read_page(D.b[0], rp, size, cpu, full);
#ifdef RB_STOCK
	/*
	 * Stock can hand back a sub-buffer with no event while one waits on
	 * the next (seen after a consume emptied a sub-buffer that a large
	 * event had filled): the event comes with the next call.  Asked
	 * again here, on stock only; ours must never do it.
	 */
	if (ret >= 0 && !t_parse_page(ring_buffer_read_page_data(rp), size, ev,
				      ARRAY_SIZE(ev), &missed) &&
	    !ring_buffer_empty_cpu(D.b[0], cpu))
		ret = ring_buffer_read_page(D.b[0], rp, size, cpu, full);
#endif
	if (ret < 0) {
		printf(" %d\n", ret);
		ring_buffer_free_read_page(D.b[0], cpu, rp);
		return;
	}
	n = t_parse_page(ring_buffer_read_page_data(rp), size, ev, ARRAY_SIZE(ev), &missed);
	/* the offset it returns is not for callers (trace.c only checks < 0) */
	printf(" missed %d", missed);
	for (int i = 0; i < n; i++)
		d_event("", ev[i].ts, ev[i].data, ev[i].len);
	printf(n < 0 ? " malformed\n" : "\n");
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

static void d_step(void)
{
	u32 op = d_rand(), cpu = (op >> 8) % D_NCPU;
	struct trace_buffer *a = D.b[0];
	int ret;

	switch (op % 26) {
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
			printf("resize buf%d %s to %lu: %d\n", bi, all ? "all" : cpu ? "cpu1" : "cpu0",
			       size, ret);
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
		break;
	}
	case 21:
		D.overwrite = !D.overwrite;
		ring_buffer_change_overwrite(a, D.overwrite);
		printf("overwrite %d\n", D.overwrite);
		break;
	case 22:
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
		ring_buffer_reset(a);
		printf("reset\n");
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
	printf("run %llu: overwrite %d\n", (unsigned long long)seed, D.overwrite);
	for (int bi = 0; bi < 2; bi++) {
		D.b[bi] = ring_buffer_alloc((2 + d_rand() % 8) * PAGE_SIZE,
					    D.overwrite ? RB_FL_OVERWRITE : 0);
		if (!D.b[bi]) {
			printf("alloc failed\n");
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
}

/* --diff SEED[:RUNS[:STEPS]]: the traces of RUNS runs from SEED on */
int rb_diff_main(const char *arg)
{
	unsigned long long seed = strtoull(arg, NULL, 0);
	const char *p = strchr(arg, ':');
	int runs = p ? atoi(p + 1) : 1, steps = 300;

	if (p && strchr(p + 1, ':'))
		steps = atoi(strchr(p + 1, ':') + 1);
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	for (int r = 0; r < runs; r++)
		d_run(seed + r, steps);
	fflush(stdout);
	return sim_warnings() ? 1 : 0;
}
