// SPDX-License-Identifier: GPL-2.0
/*
 * Model-based tests: a byte string is decoded into operations on two ring
 * buffers (A and its swap partner B) over two simulated CPUs; a small
 * model of the 6.12 contract predicts every result and the two are
 * compared after each step.  The fuzzer drives the same engine.
 *
 * What the model knows: the events committed per CPU in order (each with
 * a unique time stamp, which identifies it), the counters, and the rules:
 * events are lost only in overwrite mode or after a shrink, and what is
 * read is always in order; a gap is reported once, as lost_events of the
 * first event after it (the gap need not be at the front: the sub-buffer
 * a reader already holds survives while older-than-the-ring events behind
 * it are overwritten); a refused write in producer/consumer mode needs a
 * nearly full buffer.
 *
 * The mapped variant (model_mapped_reader) maps both CPUs of A first and
 * reads them through the mapping as well: GET_READER, then the events of
 * the reader sub-buffer the model has not seen read (older stamps were
 * consumed by a reader already), which must be the model's next events,
 * losses reported in the sub-buffer's commit word (or in
 * reader.lost_events) and the meta page's counters the buffer's.
 * Resizes, order changes and swaps of a mapped CPU must be refused;
 * mappings come and go.
 */
#include "rb_test.h"

#define M_NCPU 2
#define M_MAXEV 4096

struct m_event {
	u64 ts;
	u32 seq;
	u32 len;
	u32 lost_before;	/* events lost just before this one */
};

struct m_cpu {
	struct m_event ev[M_MAXEV];
	int head, n;			/* ring of events not yet consumed */
	unsigned long committed, read, known_lost, refused;
	int may_lose;			/* events may have gone (overwrite, shrink) */
	unsigned long ghost;		/* entries counted but thrown away by an order change */
	int lost_unknown;		/* losses from before an order change may still be reported */
	u64 gone_ts;			/* stamp of the newest event read or lost at the front */
	unsigned long stale_lost;	/* stock: a loss the mapping was told, told again */
};

/*
 * Stock departure: when GET_READER hands over the rest of a sub-buffer
 * that peek swapped in after a loss, it shows the loss in
 * reader.lost_events but does not clear it, so the same loss is reported
 * a second time: by the next consume or read_page, or in the commit word
 * of the next sub-buffer GET_READER swaps in.  Tolerated on stock only,
 * until a read clears it.
 */
#ifdef RB_STOCK
#define M_STALE_LOST(c, lost) ((c)->stale_lost && (lost) == (c)->stale_lost)
#else
#define M_STALE_LOST(c, lost) 0
#endif

struct m_map {
	struct t_map tm;
	int on;
	u32 id, read;			/* reader.id and reader.read after the last GET_READER */
};

struct m_buf {
	struct trace_buffer *b;
	struct m_cpu cpu[M_NCPU];
	unsigned long size;
};

struct m_state {
	struct m_buf buf[2];
	int overwrite, recording, abs, order;
	u64 clock;
	u32 seq;
	unsigned long max_len;		/* largest event written since reset */
	const u8 *p, *end;
	int step, verbose;
	char what[128];
	int mapped_mode;
	struct m_map map[M_NCPU];	/* mappings of A's CPUs */
};

static u64 m_clock_val;

static u64 m_clock(void)
{
	return m_clock_val;
}

static unsigned int m_byte(struct m_state *m)
{
	return m->p < m->end ? *m->p++ : 0;
}

#define M_FAIL(m, fmt, ...) do {						\
	printf("# model step %d (%s): " fmt "\n", (m)->step, (m)->what, ##__VA_ARGS__); \
	return 1;								\
} while (0)

static struct m_event *m_at(struct m_cpu *c, int i)
{
	return &c->ev[(c->head + i) % M_MAXEV];
}

static void m_pop(struct m_cpu *c, int k)
{
	if (k)
		c->gone_ts = max(c->gone_ts, m_at(c, k - 1)->ts);
	c->head = (c->head + k) % M_MAXEV;
	c->n -= k;
}

static void m_clear(struct m_cpu *c)
{
	memset(c, 0, sizeof(*c));
}

/* Where does the event stamped ts sit in the model? -1 if nowhere. */
static int m_find(struct m_cpu *c, u64 ts)
{
	for (int i = 0; i < c->n; i++)
		if (m_at(c, i)->ts == ts)
			return i;
	return -1;
}

static int m_can_lose(struct m_state *m, struct m_cpu *c)
{
	return m->overwrite || c->may_lose;
}

/* Events i .. i+k-1 were lost (overwritten): the event after them says so. */
static int m_lose(struct m_state *m, struct m_cpu *c, int i, int k)
{
	if (!k)
		return 0;
	u32 carried = 0;

	if (!m_can_lose(m, c))
		M_FAIL(m, "%d event(s) lost in producer/consumer mode", k);
	if (!i)
		c->gone_ts = max(c->gone_ts, m_at(c, k - 1)->ts);
	/* losses reported with a lost event move on to the survivor */
	for (int j = i; j < i + k; j++)
		carried += m_at(c, j)->lost_before;
	for (int j = i; j + k < c->n; j++)
		*m_at(c, j) = *m_at(c, j + k);
	c->n -= k;
	m_at(c, i)->lost_before += k + carried;
	c->known_lost += k;
	return 0;
}

static unsigned long m_event_bytes(u32 len)
{
	return ALIGN(len ? len : 1, 4) + 8;
}

static unsigned long m_buffered_bytes(struct m_cpu *c)
{
	unsigned long sum = 0;

	for (int i = 0; i < c->n; i++)
		sum += m_event_bytes(m_at(c, i)->len);
	return sum;
}

static int m_counters(struct m_state *m, int bi, int cpu)
{
	struct m_buf *mb = &m->buf[bi];
	struct m_cpu *c = &mb->cpu[cpu];
	unsigned long entries = ring_buffer_entries_cpu(mb->b, cpu) - c->ghost;
	unsigned long overrun = ring_buffer_overrun_cpu(mb->b, cpu);
	unsigned long read = ring_buffer_read_events_cpu(mb->b, cpu);
	unsigned long room = ring_buffer_dropped_events_cpu(mb->b, cpu) +
		ring_buffer_commit_overrun_cpu(mb->b, cpu);

	if (entries + c->ghost + overrun + read != c->committed)
		M_FAIL(m, "buf %d cpu %d: entries %lu + overrun %lu + read %lu != committed %lu",
		       bi, cpu, entries, overrun, read, c->committed);
	if (read != c->read)
		M_FAIL(m, "buf %d cpu %d: read %lu, model %lu", bi, cpu, read, c->read);
	if (entries > (unsigned long)c->n || overrun < c->known_lost)
		M_FAIL(m, "buf %d cpu %d: entries %lu (model at most %d), overrun %lu (model at least %lu)",
		       bi, cpu, entries, c->n, overrun, c->known_lost);
	/* model and buffer both empty: in step again */
	if (!c->n && !entries && !m->overwrite)
		c->may_lose = 0;
	if (!m_can_lose(m, c) && entries != (unsigned long)c->n)
		M_FAIL(m, "buf %d cpu %d: entries %lu, model %d", bi, cpu, entries, c->n);
	if (room != c->refused)
		M_FAIL(m, "buf %d cpu %d: dropped + commit_overrun %lu, model %lu", bi, cpu,
		       room, c->refused);
	/*
	 * Only "entries => not empty": stock says "not empty" with no entries
	 * while a discarded event still sits in the buffer as padding.
	 */
	if (entries && ring_buffer_empty_cpu(mb->b, cpu))
		M_FAIL(m, "buf %d cpu %d: empty_cpu %d with %lu entries", bi, cpu,
		       ring_buffer_empty_cpu(mb->b, cpu), entries);
	return 0;
}

static const u32 m_lens[] = { 0, 1, 3, 4, 5, 8, 12, 24, 64, 100, 108, 109, 112, 113,
			      116, 200, 500 };

static int m_write(struct m_state *m, int cpu, int how)
{
	struct m_buf *mb = &m->buf[0];
	struct m_cpu *c = &mb->cpu[cpu];
	unsigned int sel = m_byte(m);
	unsigned long max = ring_buffer_max_event_size(mb->b);
	u32 len = sel < 240 ? m_lens[sel % ARRAY_SIZE(m_lens)] : max - (sel - 240) % 2;
	static u8 buf[1 << 16];
	struct ring_buffer_event *e;
	int ok, full_ok;
	u32 seq = ++m->seq;

	snprintf(m->what, sizeof(m->what), "write cpu %d len %u how %d", cpu, len, how);
	m->clock += 1 + m_byte(m);
	m_clock_val = m->clock;
	sim_bind(cpu);
	if (how == 2)
		sim_ctx.pc += HARDIRQ_OFFSET;
	if (how == 1 || how == 3) {
		e = ring_buffer_lock_reserve(mb->b, len);
		if (e) {
			t_fill(ring_buffer_event_data(e), len, seq);
			if (how == 3)
				ring_buffer_discard_commit(mb->b, e);
			else
				ring_buffer_unlock_commit(mb->b);
		}
		ok = e != NULL;
	} else {
		t_fill(buf, len, seq);
		ok = ring_buffer_write(mb->b, len, buf) == 0;
	}
	if (how == 2)
		sim_ctx.pc -= HARDIRQ_OFFSET;
	sim_bind(0);
	if (preempt_count())
		M_FAIL(m, "preempt_count %#x after the write", preempt_count());

	if (len > max || !m->recording) {
		if (ok)
			M_FAIL(m, "write accepted (max %lu, recording %d)", max, m->recording);
		return 0;
	}
	/*
	 * Stock 6.12 with absolute stamps refuses the last 8 bytes that
	 * ring_buffer_max_event_size() promises (it forgets the stamp the
	 * event carries), counting the refusal nowhere: tolerated, not required.
	 */
	if (!ok && m->abs && len + 8 > max) {
		/* counted as refused for room, or nowhere: either is fine */
		if (ring_buffer_dropped_events_cpu(mb->b, cpu) +
		    ring_buffer_commit_overrun_cpu(mb->b, cpu) == c->refused + 1)
			c->refused++;
		return 0;
	}
	if (!ok) {
		unsigned long size = ring_buffer_size(mb->b, cpu);
		unsigned long sb = ring_buffer_subbuf_size_get(mb->b);
		long pages = size / sb, cap = sb - 16 - (long)max_t(unsigned long, m->max_len, len) - 16;
		long bound = (pages - 3) * cap;

		if (m->overwrite)
			M_FAIL(m, "write refused in overwrite mode");
		if (bound > 0 && (long)m_buffered_bytes(c) < bound)
			M_FAIL(m, "write refused with %lu bytes buffered of %lu (bound %ld)",
			       m_buffered_bytes(c), size, bound);
		c->refused++;
		return 0;
	}
	/*
	 * Written in overwrite mode: may be lost later, noticed only on
	 * reading.  A reservation that is then discarded may have moved the
	 * writer on and pushed the oldest sub-buffer out all the same.
	 */
	if (m->overwrite)
		c->may_lose = 1;
	if (how == 3)
		return 0;
	if (c->n == M_MAXEV)
		m_at(c, 1)->lost_before += m_at(c, 0)->lost_before + 1,
		m_pop(c, 1), c->known_lost++;
	*m_at(c, c->n) = (struct m_event){ m->clock, seq, len, 0 };
	c->n++;
	c->committed++;
	if (len > m->max_len)
		m->max_len = len;
	return 0;
}

/* An event came back from a reader: it must be the oldest survivor. */
static int m_match(struct m_state *m, struct m_cpu *c, u64 ts, const void *data,
		   unsigned int len)
{
	int k = m_find(c, ts);
	struct m_event *ev;

	if (k < 0)
		M_FAIL(m, "event stamped %llu is not in the model (%d events)",
		       (unsigned long long)ts, c->n);
	if (m_lose(m, c, 0, k))
		return 1;
	ev = m_at(c, 0);
	if (len < ev->len || len >= ALIGN(max(ev->len, 1U), 4) + 8)
		M_FAIL(m, "event of %u bytes has length %u", ev->len, len);
	if (!t_check(data, ev->len, ev->seq))
		M_FAIL(m, "payload of event %u corrupted", ev->seq);
	return 0;
}

static int m_consume(struct m_state *m, int bi, int cpu, int peek)
{
	struct m_buf *mb = &m->buf[bi];
	struct m_cpu *c = &mb->cpu[cpu];
	struct ring_buffer_event *e;
	unsigned long lost = 777;
	u64 ts = 0;

	snprintf(m->what, sizeof(m->what), "%s buf %d cpu %d", peek ? "peek" : "consume", bi, cpu);
	if (peek)
		e = ring_buffer_peek(mb->b, cpu, &ts, &lost);
	else
		e = ring_buffer_consume(mb->b, cpu, &ts, &lost);
	if (!e) {
		if (c->n)
			M_FAIL(m, "nothing read, model has %d events", c->n);
		return 0;
	}
	if (m_match(m, c, ts, ring_buffer_event_data(e), ring_buffer_event_length(e)))
		return 1;
	if (c->lost_unknown ? lost > ring_buffer_overrun_cpu(mb->b, cpu) :
	    lost != m_at(c, 0)->lost_before &&
	    !(!m_at(c, 0)->lost_before && M_STALE_LOST(c, lost)))
		M_FAIL(m, "lost_events %lu, model %u", lost, m_at(c, 0)->lost_before);
	if (!peek) {
		c->stale_lost = 0;
		m_pop(c, 1);
		c->read++;
		c->lost_unknown = 0;
	}
	return 0;
}

static int m_iterate(struct m_state *m, int cpu)
{
	struct m_buf *mb = &m->buf[0];
	struct m_cpu *c = &mb->cpu[cpu];
	struct ring_buffer_iter *it;
	struct ring_buffer_event *e;
	int i = 0;
	u64 ts;

	snprintf(m->what, sizeof(m->what), "iterate cpu %d", cpu);
	it = ring_buffer_read_start(mb->b, cpu, GFP_KERNEL);
	if (!it)
		M_FAIL(m, "read_start failed");
	if (ring_buffer_resize(mb->b, ring_buffer_size(mb->b, cpu) * 2, cpu) != -EBUSY)
		M_FAIL(m, "resize with an iterator open did not return -EBUSY");
	for (;;) {
		int k;

		e = ring_buffer_iter_peek(it, &ts);
		/*
		 * Stock gives up after three sub-buffer hops per call (empty
		 * reader page, padding-only pages), even with no writer; the
		 * next call goes on from there.  The walk must still show
		 * every event, so only retrying is allowed.
		 */
		for (int tries = 0; !e && i < c->n && tries < 8; tries++)
			e = ring_buffer_iter_peek(it, &ts);
		if (!e)
			break;
		k = m_find(c, ts);

		if (k < i)
			M_FAIL(m, "iterator event %d stamped %llu: model position %d",
			       i, (unsigned long long)ts, k);
		/* events i .. k-1 were overwritten */
		if (m_lose(m, c, i, k - i))
			return 1;
		if (!t_check(ring_buffer_event_data(e), m_at(c, i)->len, m_at(c, i)->seq))
			M_FAIL(m, "iterator payload %d", i);
		ring_buffer_iter_advance(it);
		i++;
	}
	ring_buffer_read_finish(it);
#ifdef RB_STOCK
	/*
	 * Stock defect, written down rather than tested around for ours:
	 * ring_buffer_iter_empty() can claim "empty" while an unread event
	 * sits on the head page (its check compares the head page's stale
	 * read index with commit), so the walk ends early.  Seen after a
	 * read_page() swap in a two-sub-buffer ring.
	 */
	if (i < c->n) {
		static int noted;

		if (!noted++)
			printf("# stock defect tolerated: iterator ended %d event(s) early\n",
			       c->n - i);
		return 0;
	}
#endif
	if (i != c->n) {
		u64 pts = 0;
		bool seen = ring_buffer_peek(mb->b, cpu, &pts, NULL) != NULL;

		M_FAIL(m, "iterator saw %d events, model %d (peek %s event stamped %llu)", i,
		       c->n, seen ? "returns an" : "returns no", (unsigned long long)pts);
	}
	return 0;
}

static int m_read_page(struct m_state *m, int cpu)
{
	struct m_buf *mb = &m->buf[0];
	struct m_cpu *c = &mb->cpu[cpu];
	struct buffer_data_read_page *rp = NULL;
	static struct t_pevent ev[2048];
	int n, missed, ret, full = m_byte(m) & 1;
	size_t size;

	snprintf(m->what, sizeof(m->what), "read_page cpu %d full %d", cpu, full);
	if (ring_buffer_alloc_read_page(mb->b, cpu, &rp))
		M_FAIL(m, "alloc_read_page failed");
	size = ring_buffer_read_page_size(rp);
	ret = ring_buffer_read_page(mb->b, rp, size, cpu, full);
	if (ret < 0) {
		ring_buffer_free_read_page(mb->b, cpu, rp);
		if (!c->n || full)
			return 0;
		M_FAIL(m, "read_page failed (%d) with %d events", ret, c->n);
	}
	n = t_parse_page(ring_buffer_read_page_data(rp), size, ev, 2048, &missed);
	/* a sub-buffer of discarded events only may come back empty */
	if (n < 0) {
		ring_buffer_free_read_page(mb->b, cpu, rp);
		M_FAIL(m, "malformed sub-buffer");
	}
	for (int i = 0; i < n; i++) {
		if (m_match(m, c, ev[i].ts, ev[i].data, ev[i].len)) {
			ring_buffer_free_read_page(mb->b, cpu, rp);
			return 1;
		}
		if (i == 0 && !c->lost_unknown && !!m_at(c, 0)->lost_before != !!missed &&
		    !(missed && M_STALE_LOST(c, c->stale_lost))) {
			ring_buffer_free_read_page(mb->b, cpu, rp);
			M_FAIL(m, "missed-events flag %d, model lost %u", missed,
			       m_at(c, 0)->lost_before);
		}
		if (i > 0 && m_at(c, 0)->lost_before) {
			ring_buffer_free_read_page(mb->b, cpu, rp);
			M_FAIL(m, "%u events lost inside a sub-buffer", m_at(c, 0)->lost_before);
		}
		m_pop(c, 1);
		c->read++;
		c->lost_unknown = 0;
		c->stale_lost = 0;
	}
	ring_buffer_free_read_page(mb->b, cpu, rp);
	return 0;
}

/* what the mapped runs did, to show the mapping was exercised */
static struct {
	unsigned long get_reader, events, lost_flagged, lost_meta, refused, maps;
} m_mstat;

static int m_any_mapped(struct m_state *m)
{
	for (int i = 0; i < M_NCPU; i++)
		if (m->map[i].on)
			return 1;
	return 0;
}

static int m_map_toggle(struct m_state *m, int cpu)
{
	struct m_map *mm = &m->map[cpu];
	int ret;

	snprintf(m->what, sizeof(m->what), "%s cpu %d", mm->on ? "unmap" : "map", cpu);
	if (mm->on) {
		ret = t_unmap(&mm->tm);
		mm->on = 0;
		if (ret)
			M_FAIL(m, "ring_buffer_unmap() = %d", ret);
		return 0;
	}
	ret = t_map(&mm->tm, m->buf[0].b, cpu);
	if (ret)
		M_FAIL(m, "ring_buffer_map() = %d", ret);
	mm->on = 1;
	m_mstat.maps++;
	mm->id = t_map_meta(&mm->tm)->reader.id;
	mm->read = t_map_meta(&mm->tm)->reader.read;
	if (t_map_meta(&mm->tm)->nr_subbufs != t_map_ring_subbufs(m->buf[0].b, cpu) + 1)
		M_FAIL(m, "nr_subbufs %u, ring of %lu", t_map_meta(&mm->tm)->nr_subbufs,
		       t_map_ring_subbufs(m->buf[0].b, cpu));
	return 0;
}

/*
 * GET_READER, then through the mapping: the reader sub-buffer's events
 * newer than what was read (or lost) so far are the model's next ones.
 * A call may hand over padding alone: then again, until nothing moves.
 */
static int m_map_read(struct m_state *m, int cpu)
{
	struct m_buf *mb = &m->buf[0];
	struct m_cpu *c = &mb->cpu[cpu];
	struct m_map *mm = &m->map[cpu];
	static u8 page[PAGE_SIZE << 2];
	static struct t_pevent ev[4096];
	struct trace_buffer_meta *meta;
	int ret, n, got = 0;

	snprintf(m->what, sizeof(m->what), "get_reader cpu %d", cpu);
	ret = ring_buffer_map_get_reader(mb->b, cpu);
	if (!mm->on) {
		if (ret != -ENODEV)
			M_FAIL(m, "GET_READER of an unmapped CPU returned %d", ret);
		return 0;
	}
	for (int tries = 0; ; tries++) {
		unsigned long word, size;
		int moved;

		if (ret)
			M_FAIL(m, "GET_READER returned %d", ret);
		m_mstat.get_reader++;
		meta = t_map_meta(&mm->tm);
		if (meta->reader.id >= meta->nr_subbufs)
			M_FAIL(m, "reader.id %u of %u", meta->reader.id, meta->nr_subbufs);
		if (meta->overrun != ring_buffer_overrun_cpu(mb->b, cpu) ||
		    meta->read != ring_buffer_read_events_cpu(mb->b, cpu) ||
		    meta->entries - meta->overrun - meta->read != ring_buffer_entries_cpu(mb->b, cpu))
			M_FAIL(m, "meta entries %llu overrun %llu read %llu; buffer %lu/%lu/%lu",
			       (unsigned long long)meta->entries,
			       (unsigned long long)meta->overrun, (unsigned long long)meta->read,
			       ring_buffer_entries_cpu(mb->b, cpu), ring_buffer_overrun_cpu(mb->b, cpu),
			       ring_buffer_read_events_cpu(mb->b, cpu));
		if (meta->subbuf_size > sizeof(page) ||
		    t_map_copy(&mm->tm, t_map_subbuf_off(&mm->tm, meta->reader.id), page,
			       meta->subbuf_size))
			M_FAIL(m, "reader sub-buffer %u not readable through the mapping",
			       meta->reader.id);
		memcpy(&word, page + 8, sizeof(word));
		size = word & T_COMMIT_MASK;
		if (meta->reader.read != size)
			M_FAIL(m, "reader.read %u, the reader sub-buffer holds %lu",
			       meta->reader.read, size);
		n = t_parse_data(page, size, ev, ARRAY_SIZE(ev));
		if (n < 0)
			M_FAIL(m, "malformed reader sub-buffer");
		for (int i = 0; i < n; i++) {
			struct m_event *me;

			if (ev[i].ts <= c->gone_ts) {
				if (got)
					M_FAIL(m, "event stamped %llu after newer ones",
					       (unsigned long long)ev[i].ts);
				continue;
			}
			if (m_match(m, c, ev[i].ts, ev[i].data, ev[i].len))
				return 1;
			me = m_at(c, 0);
			if (me->lost_before && !c->lost_unknown) {
				unsigned long stored = 0;
				int flagged = !i && (word & T_MISSED_EVENTS);

				if (flagged && (word & T_MISSED_STORED))
					memcpy(&stored, page + T_SB_HDR + size, sizeof(stored));
				if (flagged && (!(word & T_MISSED_STORED) ||
						stored == me->lost_before))
					m_mstat.lost_flagged++;
				else if (meta->reader.lost_events == me->lost_before)
					m_mstat.lost_meta++;
				else
					M_FAIL(m, "%u lost events unreported (event %d, commit word %#lx, stored %lu, reader.lost_events %llu)",
					       me->lost_before, i, word, stored,
					       (unsigned long long)meta->reader.lost_events);
			} else if (!i && (word & T_MISSED_EVENTS) && !c->lost_unknown &&
				   !M_STALE_LOST(c, c->stale_lost)) {
				M_FAIL(m, "sub-buffer flags lost events, model lost none");
			}
			m_pop(c, 1);
			c->read++;
			c->lost_unknown = 0;
			got++;
			m_mstat.events++;
		}
		c->stale_lost = meta->reader.lost_events;
		moved = meta->reader.id != mm->id || meta->reader.read != mm->read;
		mm->id = meta->reader.id;
		mm->read = meta->reader.read;
		if (got || !c->n)
			return 0;
		if (!moved || tries > 8)
			M_FAIL(m, "GET_READER handed over nothing, model has %d events", c->n);
		ret = ring_buffer_map_get_reader(mb->b, cpu);
	}
}

static int m_resize(struct m_state *m, int cpu)
{
	unsigned long size = (2 + m_byte(m) % 12) * PAGE_SIZE;
	int ret;

	snprintf(m->what, sizeof(m->what), "resize cpu %d to %lu", cpu, size);
	if (cpu == RING_BUFFER_ALL_CPUS ? m_any_mapped(m) : m->map[cpu].on) {
		unsigned long before[M_NCPU];

		for (int i = 0; i < M_NCPU; i++)
			before[i] = ring_buffer_size(m->buf[0].b, i);
		ret = ring_buffer_resize(m->buf[0].b, size, cpu);
		if (ret && ret != -EBUSY)
			M_FAIL(m, "resize of a mapped CPU returned %d", ret);
		for (int i = 0; i < M_NCPU; i++)
			if (ring_buffer_size(m->buf[0].b, i) != before[i])
				M_FAIL(m, "resize of a mapped CPU changed cpu %d's size (%d)", i, ret);
		m_mstat.refused += ret == -EBUSY;
		return 0;
	}
	for (int bi = 0; bi < 2; bi++) {
		struct m_buf *mb = &m->buf[bi];
		unsigned long before[M_NCPU];

		for (int i = 0; i < M_NCPU; i++)
			before[i] = ring_buffer_size(mb->b, i);
		ret = ring_buffer_resize(mb->b, size, cpu);
		if (ret)
			M_FAIL(m, "resize returned %d", ret);
		/* a CPU that shrank may have lost its oldest events */
		for (int i = 0; i < M_NCPU; i++)
			if (ring_buffer_size(mb->b, i) < before[i])
				mb->cpu[i].may_lose = 1;
	}
	/* both buffers get every size, so swaps stay possible; sizes per CPU differ */
	if (cpu == RING_BUFFER_ALL_CPUS)
		m->buf[0].size = m->buf[1].size = size;
	else
		m->buf[0].size = m->buf[1].size = max(size, m->buf[0].size);
	return 0;
}

static int m_step(struct m_state *m)
{
	unsigned int op = m_byte(m), cpu = (op >> 5) % M_NCPU;
	struct m_buf *a = &m->buf[0];

	switch (op % 24) {
	case 0 ... 5:
		return m_write(m, cpu, 0);
	case 6:
		return m_write(m, cpu, 1);
	case 7:
		return m_write(m, cpu, 2);
	case 8:
		return m_write(m, cpu, 3);
	case 9:
		return m_consume(m, 0, cpu, 0);
	case 10:
		if (!m->mapped_mode)
			return m_consume(m, 0, cpu, 0);
		/*
		 * A burst of writes: the mapping drains a sub-buffer per
		 * GET_READER, so losses need a writer that runs ahead.
		 */
		for (int n = 20 + m_byte(m) % 200; n > 0 && m->p < m->end; n--)
			if (m_write(m, cpu, 0))
				return 1;
		return 0;
	case 11:
		if (m->mapped_mode)
			return m_map_read(m, cpu);
		return m_consume(m, 0, cpu, 0);
	case 12:
		return m_consume(m, 0, cpu, 1);
	case 13:
		return m_iterate(m, cpu);
	case 14:
		return m_read_page(m, cpu);
	case 15:
		return m_resize(m, (op >> 7) ? cpu : RING_BUFFER_ALL_CPUS);
	case 16:
		snprintf(m->what, sizeof(m->what), "reset cpu %d", cpu);
		ring_buffer_reset_cpu(a->b, cpu);
		m_clear(&a->cpu[cpu]);
		return 0;
	case 17: {
		struct m_cpu tmp;
		int ret;

		snprintf(m->what, sizeof(m->what), "swap cpu %d", cpu);
		if (m->map[cpu].on) {
			/* refused, with a warning at most: callers must not try */
			unsigned long w = sim_warnings();

			sim_warn_hush(1);
			ret = ring_buffer_swap_cpu(m->buf[1].b, a->b, cpu);
			sim_warn_hush(0);
			if (sim_warnings() - w > 1)
				M_FAIL(m, "%lu warnings", sim_warnings() - w);
			sim_warn_absorb(sim_warnings() - w);
			if (ret != -EBUSY)
				M_FAIL(m, "swap of a mapped CPU returned %d", ret);
			m_mstat.refused++;
			return 0;
		}
		ret = ring_buffer_swap_cpu(m->buf[1].b, a->b, cpu);
		/* -EAGAIN/-EBUSY: refused, e.g. while recording is off */
		if (ret == -EAGAIN || ret == -EBUSY)
			return 0;
		if (ret)
			M_FAIL(m, "swap returned %d", ret);
		tmp = m->buf[1].cpu[cpu];
		m->buf[1].cpu[cpu] = a->cpu[cpu];
		a->cpu[cpu] = tmp;
		return 0;
	}
	case 18:
		if (m->mapped_mode)
			return (op >> 7) ? m_map_toggle(m, cpu) : m_map_read(m, cpu);
		return m_consume(m, 1, cpu, 0);
	case 19: {
		int order = (op >> 6) % 3, ret;

		snprintf(m->what, sizeof(m->what), "order %d", order);
		if (order == m->order) {
			/* no change: nothing is thrown away */
			for (int bi = 0; bi < 2; bi++)
				if (ring_buffer_subbuf_order_set(m->buf[bi].b, order))
					M_FAIL(m, "setting the same order failed");
			return 0;
		}
		if (m_any_mapped(m)) {
			ret = ring_buffer_subbuf_order_set(a->b, order);
			if (ret != -EBUSY)
				M_FAIL(m, "order change while mapped returned %d", ret);
			if (ring_buffer_subbuf_order_get(a->b) != m->order)
				M_FAIL(m, "order changed while mapped");
			m_mstat.refused++;
			return 0;
		}
		m->order = order;
		for (int bi = 0; bi < 2; bi++) {
			ret = ring_buffer_subbuf_order_set(m->buf[bi].b, order);
			if (ret)
				M_FAIL(m, "subbuf_order_set returned %d", ret);
			for (int i = 0; i < M_NCPU; i++) {
				/* the events go; the counters stay */
				struct m_cpu *c = &m->buf[bi].cpu[i];

				/*
				 * Stock reports losses from before the change with
				 * the first read after it; not required either way.
				 */
				c->known_lost = 0;
				c->n = 0;
				c->lost_unknown = 1;
				c->ghost = ring_buffer_entries_cpu(m->buf[bi].b, i);
				if (!ring_buffer_empty_cpu(m->buf[bi].b, i))
					M_FAIL(m, "events left after an order change");
			}
		}
		m->max_len = 0;
		return 0;
	}
	case 20:
		m->overwrite = !m->overwrite;
		snprintf(m->what, sizeof(m->what), "overwrite %d", m->overwrite);
		ring_buffer_change_overwrite(a->b, m->overwrite);
		return 0;
	case 21:
		m->recording = !m->recording;
		snprintf(m->what, sizeof(m->what), "recording %d", m->recording);
		if (m->recording)
			ring_buffer_record_on(a->b);
		else
			ring_buffer_record_off(a->b);
		if (ring_buffer_record_is_on(a->b) != m->recording)
			M_FAIL(m, "record_is_on disagrees");
		return 0;
	case 22:
		/* clock jump forward: needs an extended or absolute stamp */
		m->clock += (1ULL << (20 + m_byte(m) % 30)) + m_byte(m);
		snprintf(m->what, sizeof(m->what), "clock jump to %llu", (unsigned long long)m->clock);
		return 0;
	case 23:
		m->abs = !m->abs;
		snprintf(m->what, sizeof(m->what), "abs stamps %d", m->abs);
		ring_buffer_set_time_stamp_abs(a->b, m->abs);
		return 0;
	}
	return 0;
}

static int m_run(const u8 *data, size_t len, int verbose, int mapped)
{
	static struct m_state m;
	int ret = 0, first = data && len ? data[0] : 0;

	memset(&m, 0, sizeof(m));
	m.mapped_mode = mapped;
	m.p = data + !!len;
	m.end = data + len;
	m.verbose = verbose;
	m.overwrite = first & 1;
	m.recording = 1;
	m.clock = 1000;
	for (int bi = 0; bi < 2; bi++) {
		m.buf[bi].size = (2 + (first >> 1) % 8) * PAGE_SIZE;
		m.buf[bi].b = ring_buffer_alloc(m.buf[bi].size, m.overwrite ? RB_FL_OVERWRITE : 0);
		if (!m.buf[bi].b) {
			printf("# model: ring_buffer_alloc failed\n");
			return 1;
		}
		ring_buffer_set_clock(m.buf[bi].b, m_clock);
	}
	for (int cpu = 0; cpu < M_NCPU && mapped && !ret; cpu++)
		ret = m_map_toggle(&m, cpu);
	while (m.p < m.end && !ret) {
		m.step++;
		ret = m_step(&m);
		if (verbose > 1) {
			printf("# step %d: %s |", m.step, m.what);
			for (int cpu = 0; cpu < M_NCPU; cpu++) {
				struct m_cpu *c = &m.buf[0].cpu[cpu];

				printf(" cpu%d: model %d lost %lu, entries %lu overrun %lu;", cpu,
				       c->n, c->known_lost, ring_buffer_entries_cpu(m.buf[0].b, cpu),
				       ring_buffer_overrun_cpu(m.buf[0].b, cpu));
			}
			printf("\n");
		}
		for (int bi = 0; bi < 2 && !ret; bi++)
			for (int cpu = 0; cpu < M_NCPU && !ret; cpu++)
				ret = m_counters(&m, bi, cpu);
	}
	sim_bind(0);
	for (int cpu = 0; cpu < M_NCPU; cpu++)
		if (m.map[cpu].on && t_unmap(&m.map[cpu].tm) && !ret)
			ret = 1, printf("# model: final unmap of cpu %d failed\n", cpu);
	for (int bi = 0; bi < 2; bi++)
		ring_buffer_free(m.buf[bi].b);
	return ret;
}

int rb_model_run(const u8 *data, size_t len, int verbose)
{
	return m_run(data, len, verbose, 0);
}

static int m_random_runs_mode(int runs, int len, u32 seed, int mapped)
{
	static u8 buf[8192];
	u64 x = seed;

	for (int r = 0; r < runs; r++) {
		for (int i = 0; i < len; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			buf[i] = x >> 56;
		}
		if (m_run(buf, len, 0, mapped)) {
			printf("# model run %d of seed %u diverged\n", r, seed);
			if (getenv("RB_MODEL_TRACE"))
				m_run(buf, len, 2, mapped);
			return 1;
		}
	}
	return 0;
}

static int m_random_runs(int runs, int len, u32 seed)
{
	return m_random_runs_mode(runs, len, seed, 0);
}

static int test_model_mapped(void)
{
	memset(&m_mstat, 0, sizeof(m_mstat));
	if (m_random_runs_mode(rb_opt_tsan ? 20 : 1000, 300, 3, 1) ||
	    m_random_runs_mode(rb_opt_tsan ? 3 : 100, 6000, 4, 1))
		return 1;
	printf("# mapped: %lu maps, %lu GET_READER, %lu events read through the mapping, "
	       "losses reported %lu in the sub-buffer and %lu in reader.lost_events, "
	       "%lu resizes/swaps/order changes refused\n",
	       m_mstat.maps, m_mstat.get_reader, m_mstat.events, m_mstat.lost_flagged,
	       m_mstat.lost_meta, m_mstat.refused);
	/* a run that never read through the mapping would pass by testing nothing */
	if (!m_mstat.events || !m_mstat.lost_flagged || !m_mstat.refused)
		T_FAIL("the mapped runs did not exercise the mapping");
	return 0;
}

static int test_model_small(void)
{
	return m_random_runs(rb_opt_tsan ? 20 : 300, 300, 1);
}

static int test_model_long(void)
{
	return m_random_runs(rb_opt_tsan ? 5 : 40, 6000, 2);
}

const struct rb_case rb_model_cases[] = {
	{ "model_short_sequences", test_model_small },
	{ "model_long_sequences", test_model_long },
	{ "model_mapped_reader", test_model_mapped },
};
const int rb_nr_model_cases = ARRAY_SIZE(rb_model_cases);
