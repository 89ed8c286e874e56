// SPDX-License-Identifier: GPL-2.0
/*
 * Adversarial probes of the reader side: each prints what the API says in
 * a fixed scenario (to compare ours with stock), and fails where the 6.12
 * contract is broken.
 */
#include <semaphore.h>
#include "rb_test.h"

static struct trace_buffer *pb_alloc(unsigned long size, unsigned int flags)
{
	struct trace_buffer *b = ring_buffer_alloc(size, flags);

	if (b)
		ring_buffer_set_clock(b, t_clock);
	return b;
}

static int pb_write(struct trace_buffer *b, int cpu, unsigned int len, u32 seq)
{
	static __thread u8 buf[2 * PAGE_SIZE];
	int ret;

	memset(buf, 0, len);
	memcpy(buf, &seq, 4);
	t_clock_set(t_clock() + 10);
	sim_bind(cpu);
	ret = ring_buffer_write(b, len, buf);
	sim_bind(0);
	return ret;
}

static u32 pb_seq(struct ring_buffer_event *ev)
{
	u32 s;

	memcpy(&s, ring_buffer_event_data(ev), 4);
	return s;
}

/*
 * Iterator open while the writer laps it: every event it shows after a
 * gap must come with ring_buffer_iter_dropped(), events in order, none
 * twice, and the events it shows must still be in the ring or consumed.
 */
int probe_iter_lapped(void)
{
	struct trace_buffer *b = pb_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_iter *it;
	struct ring_buffer_event *ev;
	u32 seq = 0, last = 0, n = 0;
	int gaps = 0, flagged = 0, bad = 0;

	T_ASSERT(b);
	for (; seq < 100; seq++)
		T_EQ(pb_write(b, 1, 40, seq), 0);
	it = ring_buffer_read_start(b, 1, GFP_KERNEL);
	T_ASSERT(it);
	for (int round = 0; round < 40; round++) {
		for (int k = 0; k < 3 && (ev = ring_buffer_iter_peek(it, NULL)); k++) {
			u32 s = pb_seq(ev);
			bool d = ring_buffer_iter_dropped(it);

			if (n && s <= last)
				bad++, printf("# iter: %u after %u\n", s, last);
			if (n && s != last + 1) {
				gaps++;
				if (d)
					flagged++;
				else
					printf("# iter: gap %u -> %u not flagged\n", last, s);
			}
			last = s;
			n++;
			ring_buffer_iter_advance(it);
		}
		for (int k = 0; k < 37; k++, seq++)
			T_EQ(pb_write(b, 1, 40, seq), 0);
	}
	printf("# iter shown %u, gaps %d flagged %d\n", n, gaps, flagged);
	ring_buffer_read_finish(it);
	ring_buffer_free(b);
	T_EQ(bad, 0);
	T_EQ(gaps, flagged);
	return 0;
}

/* Consume with lost counts: every gap's size is reported exactly. */
int probe_consume_lost(void)
{
	struct trace_buffer *b = pb_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_event *ev;
	unsigned long lost, tot_lost = 0;
	u32 seq = 0, want = 0, got = 0;
	int bad = 0;

	T_ASSERT(b);
	for (int round = 0; round < 30; round++) {
		for (int k = 0; k < 70 + round * 3; k++, seq++)
			T_EQ(pb_write(b, 1, 40, seq), 0);
		for (int k = 0; k < 20 && (ev = ring_buffer_consume(b, 1, NULL, &lost)); k++) {
			u32 s = pb_seq(ev);

			if (lost != (~0UL) && s != want + lost)
				bad++, printf("# consume: %u after want %u, lost %lu\n", s, want, lost);
			if (s < want)
				bad++;
			tot_lost += lost;
			want = s + 1;
			got++;
		}
	}
	while ((ev = ring_buffer_consume(b, 1, NULL, &lost))) {
		u32 s = pb_seq(ev);

		if (s != want + lost)
			bad++, printf("# consume: %u after want %u, lost %lu\n", s, want, lost);
		tot_lost += lost;
		want = s + 1;
		got++;
	}
	printf("# consume got %u lost %lu overrun %lu written %u\n", got, tot_lost,
	       ring_buffer_overrun_cpu(b, 1), seq);
	T_EQ(bad, 0);
	T_EQ(got + tot_lost, seq);
	T_EQ(ring_buffer_overrun_cpu(b, 1), tot_lost);
	ring_buffer_free(b);
	return 0;
}


/*
 * A random single-threaded mix of writes, consumes, read_page() and an
 * iterator, on one CPU's ring, with the contract checked throughout.
 */
#define PM_MAX 60000
static struct {
	int state[PM_MAX];	/* 0 in ring, 1 delivered, 2 lost */
	long when[PM_MAX];	/* op of delivery */
	u32 written, next;	/* consumer's next expected seq */
	long op;
	unsigned long lost_total;
	int bad;
} pm;

static long pm_failed, pm_dups;
#define PM_GAPS 4096
static struct { u32 from, to; long op; bool flagged; } pm_gaps[PM_GAPS];
static int pm_ngaps;

static u32 pm_rand(u64 *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

static int pm_write(struct trace_buffer *b, unsigned int len)
{
	static u8 buf[2048];
	u32 seq = pm.written;

	memcpy(buf, &seq, 4);
	t_fill(buf + 4, len - 4, seq);
	t_clock_set(t_clock() + 10);
	sim_bind(1);
	if (!ring_buffer_write(b, len, buf))
		pm.written++;
	else
		pm_failed++;
	sim_bind(0);
	return 0;
}

static void pm_deliver(u32 s, unsigned long lost, bool lost_known)
{
	if (s < pm.next || s >= pm.written) {
		pm.bad++;
		printf("# op %ld: consumer got %u, expected >= %u (written %u)\n", pm.op, s,
		       pm.next, pm.written);
		return;
	}
	if (lost_known && s - pm.next != lost) {
		pm.bad++;
		printf("# op %ld: consumer got %u after %u, reported lost %lu\n", pm.op, s,
		       pm.next, lost);
	}
	for (u32 i = pm.next; i < s; i++)
		pm.state[i] = 2;
	pm.lost_total += s - pm.next;
	pm.state[s] = 1;
	pm.when[s] = pm.op;
	pm.next = s + 1;
}

static int pm_ev_ok(const void *data, unsigned int len, u32 *seq)
{
	memcpy(seq, data, 4);
	return len >= 8 && t_check((const u8 *)data + 4, 4, *seq);
}

int probe_random_mix(void)
{
	static struct t_pevent ev[1024];
	struct trace_buffer *b;
	struct ring_buffer_iter *it = NULL;
	struct buffer_data_read_page *rp = NULL;
	u64 rnd = 12345;
	long it_open = 0;
	u32 it_last = 0;
	int it_n = 0, gaps_unflagged = 0, gaps_flagged = 0;

	for (int run = 0; run < 6; run++) {
		memset(&pm, 0, sizeof(pm));
		pm_ngaps = 0;
		pm_failed = 0;
		pm_dups = 0;
		b = pb_alloc((3 + run) * PAGE_SIZE, RB_FL_OVERWRITE);
		T_ASSERT(b);
		T_EQ(ring_buffer_alloc_read_page(b, 1, &rp), 0);
		rnd = 1000 + run;
		it = NULL;
		for (pm.op = 0; pm.op < 6000 && pm.written < PM_MAX - 200; pm.op++) {
			u32 r = pm_rand(&rnd) % 100;
			struct ring_buffer_event *e;
			unsigned long lost;
			u32 s;

			if (r < 45) {
				int k = 1 + pm_rand(&rnd) % 20;

				while (k--)
					pm_write(b, 8 + 4 * (pm_rand(&rnd) % (run & 1 ? 60 : 8)));
			} else if (r < 60) {
				int k = 1 + pm_rand(&rnd) % 10;

				while (k-- && (e = ring_buffer_consume(b, 1, NULL, &lost))) {
					if (!pm_ev_ok(ring_buffer_event_data(e),
						      ring_buffer_event_length(e), &s)) {
						pm.bad++;
						printf("# op %ld: consumed a torn event\n", pm.op);
						continue;
					}
					pm_deliver(s, lost, lost != ~0UL);
				}
			} else if (r < 68) {
				void *d;
				size_t size = ring_buffer_read_page_size(rp);
				int missed, n;
				unsigned long cw, stored;

				if (ring_buffer_read_page(b, rp, size, 1, pm_rand(&rnd) & 1) < 0)
					continue;
				d = ring_buffer_read_page_data(rp);
				n = t_parse_page(d, size, ev, 1024, &missed);
				if (n <= 0) {
					pm.bad++;
					printf("# op %ld: read_page gave %d events\n", pm.op, n);
					continue;
				}
				memcpy(&cw, (u8 *)d + 8, sizeof(long));
				for (int i = 0; i < n; i++) {
					if (!pm_ev_ok(ev[i].data, ev[i].len, &s)) {
						pm.bad++;
						printf("# op %ld: torn event in read_page\n", pm.op);
						break;
					}
					if (i == 0) {
						bool gap = s != pm.next;

						if (gap != !!missed) {
							pm.bad++;
							printf("# op %ld: read_page first %u, next %u, missed flag %d\n",
							       pm.op, s, pm.next, missed);
						}
						if (cw & (1UL << 30)) {
							memcpy(&stored, (u8 *)d + T_SB_HDR + (cw & 0xfffff),
							       sizeof(long));
							if (stored != s - pm.next) {
								pm.bad++;
								printf("# op %ld: read_page stored lost %lu, gap %u\n",
								       pm.op, stored, s - pm.next);
							}
						}
					}
					pm_deliver(s, 0, false);
				}
			} else if (r < 72) {
				if (it)
					ring_buffer_read_finish(it);
				it = ring_buffer_read_start(b, 1, GFP_KERNEL);
				it_open = pm.op;
				it_n = 0;
			} else if (r < 90 && it) {
				int k = 1 + pm_rand(&rnd) % 15;

				while (k-- && (e = ring_buffer_iter_peek(it, NULL))) {
					bool d = ring_buffer_iter_dropped(it);

					if (!pm_ev_ok(ring_buffer_event_data(e),
						      ring_buffer_event_length(e), &s)) {
						pm.bad++;
						printf("# op %ld: iterator torn event\n", pm.op);
						break;
					}
					if (s >= pm.written || (pm.state[s] == 1 && pm.when[s] < it_open)) {
						pm.bad++;
						printf("# op %ld: iterator shows %u, consumed at op %ld before its open at %ld\n",
						       pm.op, s, pm.when[s], it_open);
					}
					if (it_n && s <= it_last) {
						pm_dups++;
						printf("# op %ld: iterator %u after %u\n", pm.op, s, it_last);
					}
					if (it_n && s > it_last + 1 && pm_ngaps < PM_GAPS) {
						pm_gaps[pm_ngaps].from = it_last + 1;
						pm_gaps[pm_ngaps].to = s;
						pm_gaps[pm_ngaps].op = pm.op;
						pm_gaps[pm_ngaps].flagged = d;
						pm_ngaps++;
						if (d)
							gaps_flagged++;
						else
							gaps_unflagged++;
					}
					it_last = s;
					it_n++;
					ring_buffer_iter_advance(it);
				}
			} else if (r < 95) {
				bool empty = ring_buffer_empty_cpu(b, 1);
				bool any = pm.next < pm.written;

				/* in overwrite mode something is always left if anything was unread */
				if (empty && any && ring_buffer_entries_cpu(b, 1)) {
					pm.bad++;
					printf("# op %ld: empty with %lu entries\n", pm.op,
					       ring_buffer_entries_cpu(b, 1));
				}
			} else {
				unsigned long ent = ring_buffer_entries_cpu(b, 1);

				(void)ent;
			}
			if (pm.bad > 5)
				break;
		}
		if (it)
			ring_buffer_read_finish(it);
		/* drain */
		{
			struct ring_buffer_event *e;
			unsigned long lost;
			u32 s;

			while ((e = ring_buffer_consume(b, 1, NULL, &lost))) {
				if (pm_ev_ok(ring_buffer_event_data(e), ring_buffer_event_length(e), &s))
					pm_deliver(s, lost, lost != ~0UL);
			}
		}
		for (int g = 0; g < pm_ngaps; g++) {
			int lost = 0, later = 0;

			for (u32 i = pm_gaps[g].from; i < pm_gaps[g].to; i++) {
				if (pm.state[i] == 2)
					lost++;
				else if (pm.state[i] == 1 && pm.when[i] > pm_gaps[g].op)
					later++;
			}
			if (later) {
				pm.bad++;
				printf("# run %d op %ld: iterator skipped %u..%u, %d of them consumed later\n",
				       run, pm_gaps[g].op, pm_gaps[g].from, pm_gaps[g].to - 1, later);
			}
			if (lost && !pm_gaps[g].flagged) {
				pm.bad++;
				printf("# run %d op %ld: iterator skipped %u..%u, %d lost, not flagged dropped\n",
				       run, pm_gaps[g].op, pm_gaps[g].from, pm_gaps[g].to - 1, lost);
			}
			if (pm.bad > 8)
				break;
		}
		if (pm.next != pm.written) {
			pm.bad++;
			printf("# run %d: drained to %u of %u written\n", run, pm.next, pm.written);
		}
		if (ring_buffer_overrun_cpu(b, 1) != pm.lost_total) {
			pm.bad++;
			printf("# run %d: overrun %lu, lost seen %lu\n", run,
			       ring_buffer_overrun_cpu(b, 1), pm.lost_total);
		}
		printf("# run %d: written %u lost %lu iter gaps flagged %d unflagged %d\n", run,
		       pm.written, pm.lost_total, gaps_flagged, gaps_unflagged);
		ring_buffer_free_read_page(b, 1, rp);
		rp = NULL;
		printf("# run %d: iterator went back %ld times; failed writes %ld, dropped %lu commit_overrun %lu\n", run, pm_dups, pm_failed,
		       ring_buffer_dropped_events_cpu(b, 1), ring_buffer_commit_overrun_cpu(b, 1));
		ring_buffer_free(b);
		T_EQ(pm.bad, 0);
	}
	return 0;
}

/*
 * ring_buffer_bytes_cpu() (the "bytes:" line of per_cpu/cpuN/stats)
 * while the consuming reader holds a sub-buffer it took and the writer
 * laps the ring: the unread bytes can never exceed what the ring holds.
 */
int probe_bytes_reader_lapped(void)
{
	struct trace_buffer *b = pb_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	unsigned long bytes, size, limit;
	struct ring_buffer_event *ev;
	u32 seq = 0;

	T_ASSERT(b);
	for (; seq < 10; seq++)
		T_EQ(pb_write(b, 1, 40, seq), 0);
	ev = ring_buffer_consume(b, 1, NULL, NULL);
	T_ASSERT(ev);
	/* the writer laps the ring several times */
	for (; seq < 2000; seq++)
		T_EQ(pb_write(b, 1, 40, seq), 0);
	size = ring_buffer_size(b, 1);
	bytes = ring_buffer_bytes_cpu(b, 1);
	/* the ring plus the reader's page, whole */
	limit = size + 2 * PAGE_SIZE;
	printf("# ring_buffer_size %lu, ring_buffer_bytes_cpu %lu, entries %lu\n", size, bytes,
	       ring_buffer_entries_cpu(b, 1));
	/* ten times more traffic while the reader still holds its page */
	for (; seq < 20000; seq++)
		T_EQ(pb_write(b, 1, 40, seq), 0);
	printf("# after 10x more writes: ring_buffer_bytes_cpu %lu\n", ring_buffer_bytes_cpu(b, 1));
	T_ASSERT(bytes <= limit);
	T_ASSERT(ring_buffer_bytes_cpu(b, 1) <= limit);
	ring_buffer_free(b);
	return 0;
}

/*
 * An iterator ("cat trace") on CPU 1 while the writer of CPU 0 is inside
 * its push of the oldest sub-buffer (overwrite mode; paused in the count
 * of the pushed events, as an interrupt on the writer's CPU would hold
 * it there).  The ring holds three sub-buffers of events: the iterator
 * must show them, not report the ring empty.
 */
static struct {
	struct trace_buffer *b;
	struct sim_thread th;
	sem_t paused, go;
	u32 seq;
} pp;

static void pp_split(void)
{
	sim_local_split_at = NULL;
	sem_post(&pp.paused);
	sem_wait(&pp.go);
}

static void *pp_writer(void *arg)
{
	static u8 buf[64];

	(void)arg;
	sim_local_split_at = t_overrun_counter(pp.b, 0);
	sim_local_split_fn = pp_split;
	while (sim_local_split_at) {
		u32 s = pp.seq;

		memcpy(buf, &s, 4);
		t_fill(buf + 4, 36, s);
		if (!ring_buffer_write(pp.b, 40, buf))
			pp.seq++;
	}
	return NULL;
}

int probe_iter_during_push(void)
{
	struct ring_buffer_iter *it;
	struct ring_buffer_event *ev;
	int n = 0, empty, iter_empty;

	pp.b = pb_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	T_ASSERT(pp.b);
	sem_init(&pp.paused, 0, 0);
	sem_init(&pp.go, 0, 0);
	pp.seq = 0;
	sim_thread_start(&pp.th, 0, pp_writer, NULL);
	sem_wait(&pp.paused);
	sim_bind(1);
	empty = ring_buffer_empty_cpu(pp.b, 0);
	it = ring_buffer_read_start(pp.b, 0, GFP_KERNEL);
	T_ASSERT(it);
	iter_empty = ring_buffer_iter_empty(it);
	while ((ev = ring_buffer_iter_peek(it, NULL)) && n < 100000) {
		n++;
		ring_buffer_iter_advance(it);
	}
	ring_buffer_read_finish(it);
#ifndef RB_STOCK
	/* (information only: stock's consume WARNs and gives up here) */
	printf("# consume in the same state: %s\n",
	       ring_buffer_consume(pp.b, 0, NULL, NULL) ? "an event" : "NULL");
#endif
	sem_post(&pp.go);
	sim_thread_join(&pp.th);
	sim_bind(0);
	printf("# writer paused in a push after %u events: empty_cpu %d, iter_empty %d, iterator showed %d\n",
	       pp.seq, empty, iter_empty, n);
	ring_buffer_free(pp.b);
	T_EQ(empty, 0);
	T_EQ(iter_empty, 0);
	T_ASSERT(n > 50);
	return 0;
}

/* The writer of CPU 0 paused in a push; its interrupt returns 300 ms later. */
static pthread_t pp_timer;

static void *pp_release(void *arg)
{
	(void)arg;
	usleep(300 * 1000);
	sem_post(&pp.go);
	return NULL;
}

static int pp_start(void)
{
	pp.b = pb_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	if (!pp.b)
		return -1;
	sem_init(&pp.paused, 0, 0);
	sem_init(&pp.go, 0, 0);
	pp.seq = 0;
	sim_thread_start(&pp.th, 0, pp_writer, NULL);
	sem_wait(&pp.paused);
	return pthread_create(&pp_timer, NULL, pp_release, NULL);
}

static void pp_join(void)
{
	pthread_join(pp_timer, NULL);
	sim_thread_join(&pp.th);
}

/*
 * A consume on CPU 1 runs into the writer's push (its take of the pushed
 * sub-buffer loses to the writer) and returns; then "cat trace" opens an
 * iterator.  Three sub-buffers of events are in the ring: the iterator
 * must show them, the pushed one reported as dropped.
 */
int probe_iter_after_consume_meets_push(void)
{
	struct ring_buffer_iter *it;
	int n = 0, got;

	T_ASSERT(!pp_start());
	sim_bind(1);
	got = !!ring_buffer_consume(pp.b, 0, NULL, NULL);
	it = ring_buffer_read_start(pp.b, 0, GFP_KERNEL);
	T_ASSERT(it);
	while (ring_buffer_iter_peek(it, NULL) && n < 100000) {
		n++;
		ring_buffer_iter_advance(it);
	}
	ring_buffer_read_finish(it);
	sim_bind(0);
	pp_join();
	printf("# writer paused in a push after %u events; consume got %d; iterator showed %d\n",
	       pp.seq, got, n);
	ring_buffer_free(pp.b);
	T_ASSERT(n > 50);
	return 0;
}

/*
 * The same iterator kept open until the push is over: it shows the ring's
 * events in order, every gap flagged by ring_buffer_iter_dropped(), up to
 * the last event written.
 */
int probe_iter_across_push_end(void)
{
	struct ring_buffer_event *ev;
	struct ring_buffer_iter *it;
	int n = 0, gaps = 0, flagged = 0, bad = 0;
	u32 last = 0, s;

	T_ASSERT(!pp_start());
	sim_bind(1);
	ring_buffer_consume(pp.b, 0, NULL, NULL);
	it = ring_buffer_read_start(pp.b, 0, GFP_KERNEL);
	T_ASSERT(it);
	ring_buffer_iter_peek(it, NULL);
	sim_bind(0);
	pp_join();
	sim_bind(1);
	while ((ev = ring_buffer_iter_peek(it, NULL)) && n < 100000) {
		memcpy(&s, ring_buffer_event_data(ev), 4);
		bad += n && s <= last;
		if (n && s != last + 1) {
			gaps++;
			flagged += ring_buffer_iter_dropped(it);
		}
		last = s;
		n++;
		ring_buffer_iter_advance(it);
	}
	ring_buffer_read_finish(it);
	sim_bind(0);
	printf("# iterator showed %d (last %u of %u written), gaps %d, flagged %d\n",
	       n, last, pp.seq, gaps, flagged);
	ring_buffer_free(pp.b);
	T_EQ(bad, 0);
	T_EQ(gaps, flagged);
	T_ASSERT(n > 50);
	T_EQ(last + 1, pp.seq);
	return 0;
}

/*
 * A consume meets the push, the push ends, 300 more events, then consume
 * everything: each event read once or counted lost, each loss reported
 * at its gap, overrun and read_events agreeing.
 */
int probe_consume_after_push_accounting(void)
{
	struct ring_buffer_event *ev;
	unsigned long lost, tot = 0;
	u32 want = 0, got = 0, s;
	int bad = 0;

	T_ASSERT(!pp_start());
	sim_bind(1);
	ev = ring_buffer_consume(pp.b, 0, NULL, &lost);
	if (ev) {
		memcpy(&s, ring_buffer_event_data(ev), 4);
		want = s + 1;
		got++;
		tot += lost;
	}
	sim_bind(0);
	pp_join();
	for (u32 k = 0; k < 300; k++, pp.seq++)
		T_EQ(pb_write(pp.b, 0, 40, pp.seq), 0);
	sim_bind(1);
	while ((ev = ring_buffer_consume(pp.b, 0, NULL, &lost))) {
		memcpy(&s, ring_buffer_event_data(ev), 4);
		if (s != want + lost) {
			bad++;
			printf("# event %u after %u, lost %lu\n", s, want, lost);
		}
		tot += lost;
		want = s + 1;
		got++;
	}
	sim_bind(0);
	printf("# written %u, read %u, lost %lu, overrun %lu\n", pp.seq, got, tot,
	       ring_buffer_overrun_cpu(pp.b, 0));
	T_EQ(bad, 0);
	T_EQ(got + tot, pp.seq);
	T_EQ(ring_buffer_overrun_cpu(pp.b, 0), tot);
	T_EQ(ring_buffer_read_events_cpu(pp.b, 0), got);
	ring_buffer_free(pp.b);
	return 0;
}

/*
 * trace_rb_cpu_prepare(): a CPU that comes up after a sub-buffer order
 * change, and after a resize of all CPUs, gets the ring its peers have.
 */
int probe_hotplug_sizes(void)
{
	int k = nr_cpu_ids - 1, j = nr_cpu_ids - 2;
	struct trace_buffer *b;
	unsigned long s0, sk, sj;

	T_ASSERT(j > 1);
	sim_cpu_down(k);
	sim_cpu_down(j);
	b = pb_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	T_ASSERT(b);
	T_EQ(ring_buffer_subbuf_order_set(b, 1), 0);
	T_EQ(sim_cpu_up(k), 0);
	s0 = ring_buffer_size(b, 0);
	sk = ring_buffer_size(b, k);
	T_EQ(ring_buffer_resize(b, 40 * PAGE_SIZE, RING_BUFFER_ALL_CPUS), 0);
	T_EQ(sim_cpu_up(j), 0);
	sj = ring_buffer_size(b, j);
	printf("# after order 1: cpu0 %lu, cpu%d up %lu; after resize: cpu0 %lu, cpu%d up %lu\n",
	       s0, k, sk, ring_buffer_size(b, 0), j, sj);
	T_EQ(sk, s0);
	T_EQ(sj, ring_buffer_size(b, 0));
	/* an event as big as the order allows fits on the new CPUs */
	sim_bind(k);
	T_EQ(ring_buffer_write(b, 6000, (char[6000]){ 0 }), 0);
	sim_bind(0);
	ring_buffer_free(b);
	return 0;
}

/*
 * A mapped reader (GET_READER) that holds a sub-buffer while the writer
 * laps the ring several times, then goes on: every event it is handed
 * after the gap comes in order, the gap is flagged (RB_MISSED_EVENTS in
 * the page, or reader.lost_events) with its exact size where given, and
 * handed + lost = written.
 */
static int pm_get(struct t_map *m, u32 *want, unsigned long *lost_sum, u32 *got,
		  u32 *last_id, u32 *last_read, int *moved)
{
	static u8 page[PAGE_SIZE];
	static struct t_pevent ev[1024];
	struct trace_buffer_meta *meta;
	unsigned long cw, size, stored;
	int n, i;

	T_EQ(ring_buffer_map_get_reader(m->b, m->cpu), 0);
	meta = t_map_meta(m);
	T_ASSERT(meta);
	T_EQ(t_map_copy(m, t_map_subbuf_off(m, meta->reader.id), page, PAGE_SIZE), 0);
	memcpy(&cw, page + 8, sizeof(long));
	size = cw & T_COMMIT_MASK;
	n = t_parse_data(page, size, ev, 1024);
	T_ASSERT(n >= 0);
	*moved = meta->reader.id != *last_id || meta->reader.read != *last_read;
	i = 0;
	if (meta->reader.id == *last_id)
		for (; i < n && ev[i].off < *last_read; i++)
			;
	for (; i < n && ev[i].off < meta->reader.read; i++) {
		u32 s;

		memcpy(&s, ev[i].data, 4);
		if (s < *want)
			T_FAIL("mapped reader: event %u after %u", s, *want - 1);
		if (s != *want) {
			unsigned long gap = s - *want;
			bool flagged = (cw & T_MISSED_EVENTS) || meta->reader.lost_events;

			printf("# gap %u..%u (%lu): page flags %#lx, reader.lost_events %llu\n",
			       *want, s - 1, gap, cw & ~T_COMMIT_MASK,
			       (unsigned long long)meta->reader.lost_events);
			if (!flagged)
				T_FAIL("gap of %lu events before %u not reported", gap, s);
			if (cw & T_MISSED_STORED) {
				memcpy(&stored, page + T_SB_HDR + size, sizeof(long));
				if (stored != gap)
					T_FAIL("stored lost count %lu, gap %lu", stored, gap);
			}
			*lost_sum += gap;
		}
		*want = s + 1;
		(*got)++;
	}
	*last_id = meta->reader.id;
	*last_read = meta->reader.read;
	return 0;
}

int probe_map_reader_lapped(void)
{
	struct trace_buffer *b = pb_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	unsigned long lost = 0;
	u32 want = 0, got = 0, seq = 0, id = ~0U, rd = 0;
	struct trace_buffer_meta *meta;
	struct t_map m;
	int moved;

	T_ASSERT(b);
	T_EQ(t_map(&m, b, 1), 0);
	for (; seq < 10; seq++)
		T_EQ(pb_write(b, 1, 40, seq), 0);
	if (pm_get(&m, &want, &lost, &got, &id, &rd, &moved))
		return 1;
	T_EQ(got, 10);
	for (int round = 0; round < 3; round++) {
		for (int k = 0; k < 700; k++, seq++)
			T_EQ(pb_write(b, 1, 40, seq), 0);
		for (int i = 0; i < 64; i++) {
			if (pm_get(&m, &want, &lost, &got, &id, &rd, &moved))
				return 1;
			if (!moved)
				break;
		}
	}
	meta = t_map_meta(&m);
	printf("# written %u, handed %u, lost %lu; meta entries %llu overrun %llu read %llu\n",
	       seq, got, lost, (unsigned long long)meta->entries,
	       (unsigned long long)meta->overrun, (unsigned long long)meta->read);
	T_EQ(want, seq);
	T_EQ(got + lost, seq);
	T_EQ(meta->overrun, lost);
	T_EQ(meta->read, got);
	T_EQ(meta->entries, seq);
	T_EQ(t_unmap(&m), 0);
	ring_buffer_free(b);
	return 0;
}

/* ring_buffer_swap_cpu() with an iterator open on the ring swapped out. */
int probe_swap_iter(void)
{
	struct trace_buffer *a = pb_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct trace_buffer *b = pb_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_iter *it;
	struct ring_buffer_event *ev;
	int n = 0, bad = 0, ra, rb, r;
	u32 last = 0;

	T_ASSERT(a && b);
	for (u32 s = 0; s < 50; s++)
		T_EQ(pb_write(a, 1, 40, s), 0);
	for (u32 s = 1000; s < 1030; s++)
		T_EQ(pb_write(b, 1, 40, s), 0);
	it = ring_buffer_read_start(a, 1, GFP_KERNEL);
	T_ASSERT(it);
	for (; n < 10 && (ev = ring_buffer_iter_peek(it, NULL)); n++) {
		last = pb_seq(ev);
		ring_buffer_iter_advance(it);
	}
	sim_bind(1);
	local_irq_disable();
	r = ring_buffer_swap_cpu(b, a, 1);
	local_irq_enable();
	sim_bind(0);
	T_EQ(r, 0);
	for (u32 s = 2000; s < 2020; s++)
		T_EQ(pb_write(a, 1, 40, s), 0);
	while ((ev = ring_buffer_iter_peek(it, NULL))) {
		u32 s = pb_seq(ev);

		if (s != last + 1)
			bad++, printf("# iterator: %u after %u\n", s, last);
		last = s;
		n++;
		ring_buffer_iter_advance(it);
	}
	ra = ring_buffer_resize(a, 16 * PAGE_SIZE, RING_BUFFER_ALL_CPUS);
	rb = ring_buffer_resize(b, 16 * PAGE_SIZE, RING_BUFFER_ALL_CPUS);
	printf("# iterator showed %d, last %u; resize a %d, resize b %d; a entries %lu b entries %lu\n",
	       n, last, ra, rb, ring_buffer_entries_cpu(a, 1), ring_buffer_entries_cpu(b, 1));
	ring_buffer_read_finish(it);
	ring_buffer_free(a);
	ring_buffer_free(b);
	T_EQ(bad, 0);
	T_EQ(n, 50);
	return 0;
}

/*
 * The reader's spare after read_page() handed whole sub-buffers out is
 * the caller's old page; mapped next, the meta page names it as the
 * reader's sub-buffer.  What user space finds there before its first
 * GET_READER: the commit word and flags of the page.
 */
int probe_map_after_read_page(void)
{
	struct trace_buffer *b = pb_alloc(4 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct buffer_data_read_page *rp = NULL;
	struct trace_buffer_meta *meta;
	unsigned long cw0, cw;
	struct t_map m;
	u8 page[PAGE_SIZE];

	T_ASSERT(b);
	for (u32 s = 0; s < 2000; s++)
		T_EQ(pb_write(b, 1, 40, s), 0);
	T_EQ(ring_buffer_alloc_read_page(b, 1, &rp), 0);
	T_EQ(ring_buffer_read_page(b, rp, PAGE_SIZE, 1, 1), 0);
	memcpy(&cw0, (u8 *)ring_buffer_read_page_data(rp) + 8, sizeof(long));
	T_EQ(ring_buffer_read_page(b, rp, PAGE_SIZE, 1, 1), 0);
	T_EQ(t_map(&m, b, 1), 0);
	meta = t_map_meta(&m);
	T_ASSERT(meta);
	T_EQ(t_map_copy(&m, t_map_subbuf_off(&m, meta->reader.id), page, PAGE_SIZE), 0);
	memcpy(&cw, page + 8, sizeof(long));
	printf("# first read_page commit word %#lx; mapped reader id %u read %u, its commit word %#lx\n",
	       cw0, meta->reader.id, meta->reader.read, cw);
	T_EQ(t_unmap(&m), 0);
	ring_buffer_free_read_page(b, 1, rp);
	ring_buffer_free(b);
	/* nothing was lost before a sub-buffer nobody handed out through the map */
	T_EQ(cw & (T_MISSED_EVENTS | T_MISSED_STORED), 0);
	return 0;
}

/*
 * While another CPU oopses (oops_begin() sets oops_in_progress; the
 * kernel may go on afterwards), an ordinary trace_pipe reader in task
 * context on CPU 1 reads CPU 2's ring while a reader on CPU 3 holds its
 * reader lock for a moment (20 ms), or a long one (400 ms: a holder
 * whose vCPU was preempted; 6.12 waits for it outside NMI).  Once the
 * oops is over, CPU 2's events must be recorded and readable again.
 */
static raw_spinlock_t *po_lock;
static sem_t po_held;
static unsigned int po_hold_us;

static void *po_holder(void *arg)
{
	unsigned long flags;

	(void)arg;
	raw_spin_lock_irqsave(po_lock, flags);
	sem_post(&po_held);
	usleep(po_hold_us);
	raw_spin_unlock_irqrestore(po_lock, flags);
	return NULL;
}

static int po_run(unsigned int hold_us)
{
	struct trace_buffer *b = pb_alloc(8 * PAGE_SIZE, RB_FL_OVERWRITE);
	struct ring_buffer_event *ev;
	struct sim_thread th = { 0 };
	int n = 0, got = 0;

	T_ASSERT(b);
	for (u32 s = 0; s < 10; s++)
		T_EQ(pb_write(b, 2, 40, s), 0);
	po_lock = t_reader_lock(b, 2);
	po_hold_us = hold_us;
	/* the reader of CPU 3 holds CPU 2's reader lock */
	sem_init(&po_held, 0, 0);
	sim_thread_start(&th, 3, po_holder, NULL);
	sem_wait(&po_held);
	/* CPU 0 is in the middle of an oops */
	oops_in_progress = 1;
	sim_bind(1);
	ev = ring_buffer_consume(b, 2, NULL, NULL);
	sim_bind(0);
	oops_in_progress = 0;
	sim_thread_join(&th);
	/* the oops is over: CPU 2 goes on tracing */
	for (u32 s = 100; s < 110; s++)
		if (!pb_write(b, 2, 40, s))
			n++;
	while ((ev = ring_buffer_consume(b, 2, NULL, NULL)))
		got++;
	printf("# after the oops: %d of 10 writes accepted, %d events read back\n", n, got);
	ring_buffer_free(b);
	T_EQ(n, 10);
	T_ASSERT(got >= 10);
	return 0;
}

int probe_reader_during_foreign_oops(void)
{
	return po_run(20000);
}

int probe_oops_reader_long_hold(void)
{
	return po_run(400000);
}
