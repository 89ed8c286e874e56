// SPDX-License-Identifier: GPL-2.0
/*
 * Boot-time self-test of the ring buffer, reported in KTAP.
 *
 * Every case talks to the ring buffer through include/linux/ring_buffer.h
 * only, so the same file checks the stock implementation and ours against
 * the 6.12 contract.  The cases run in a kthread bound to the first online
 * CPU (so that "this CPU" is stable); helpers bound to a second CPU provide
 * concurrent writers, readers and interrupts.  The initcall waits for the
 * result, so the report is on the console before user space starts.
 *
 * Records written by the tests carry their own identity (source, sequence
 * number, length) and a checksum, so a reader can tell an intact event from
 * garbage, a lost event from a reordered one.
 */
#define pr_fmt(fmt) fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/init.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/ring_buffer.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

/* Per-CPU buffer size used by most cases */
#define RBT_PAGES		16
/* Most diagnostics printed for one case */
#define RBT_MAX_DIAG		6
/* Largest extra payload carried by a record */
#define RBT_MAX_EXTRA		64
/* Sub-buffer header: u64 time stamp, then the commit word */
#define RBT_PAGE_HDR		(sizeof(u64) + sizeof(long))
#define RBT_COMMIT_MASK		0xfffffUL
#define RBT_MISSED_EVENTS	BIT(31)
#define RBT_MISSED_STORED	BIT(30)
#define RBT_TS_BITS		27

enum rbt_result { RBT_PASS, RBT_FAIL, RBT_SKIP };

enum rbt_src { RBT_SRC_TASK = 0x100, RBT_SRC_IRQ = 0x200, RBT_SRC_NEST = 0x300 };

struct rbt_case {
	const char *name;
	enum rbt_result (*run)(void);
};

static struct {
	const char *name;	/* case being run */
	int nr_fail;		/* failed checks in this case */
	char first[160];	/* first failure, for the result line */
	char skip[80];		/* skip reason */
	int cpu;		/* CPU the cases run on */
	int other;		/* a second online CPU, or -1 */
} rbt;

static __printf(3, 4) bool rbt_check(bool ok, int line, const char *fmt, ...)
{
	char msg[144];
	va_list args;

	if (ok)
		return true;

	va_start(args, fmt);
	vsnprintf(msg, sizeof(msg), fmt, args);
	va_end(args);

	if (++rbt.nr_fail == 1)
		snprintf(rbt.first, sizeof(rbt.first), "%s", msg);
	if (rbt.nr_fail <= RBT_MAX_DIAG)
		pr_info("# %s: line %d: %s\n", rbt.name, line, msg);
	else if (rbt.nr_fail == RBT_MAX_DIAG + 1)
		pr_info("# %s: further failures not shown\n", rbt.name);
	return false;
}

#define RBT_EXPECT(cond, fmt, ...) \
	rbt_check(!!(cond), __LINE__, fmt, ##__VA_ARGS__)

#define RBT_EQ(what, exp, got) ({					\
	u64 __rbt_e = (u64)(exp), __rbt_g = (u64)(got);			\
	rbt_check(__rbt_e == __rbt_g, __LINE__,				\
		  "%s: expected %llu, got %llu", what, __rbt_e, __rbt_g);	\
})

#define RBT_ERR(what, exp, got) ({					\
	long __rbt_e = (long)(exp), __rbt_g = (long)(got);		\
	rbt_check(__rbt_e == __rbt_g, __LINE__,				\
		  "%s: expected %ld, got %ld", what, __rbt_e, __rbt_g);	\
})

static enum rbt_result rbt_skip(const char *reason)
{
	snprintf(rbt.skip, sizeof(rbt.skip), "%s", reason);
	return RBT_SKIP;
}

static enum rbt_result rbt_verdict(void)
{
	return rbt.nr_fail ? RBT_FAIL : RBT_PASS;
}

/* ---- the test clock: time moves only when a case says so ---- */

static u64 rbt_now;

static u64 rbt_clock(void)
{
	return READ_ONCE(rbt_now);
}

static void rbt_clock_set(u64 t)
{
	WRITE_ONCE(rbt_now, t);
}

/* ---- self-describing records ---- */

struct rbt_rec {
	u64 seq;
	u32 src;
	u32 len;	/* whole record, header included */
	u32 sum;
} __packed;

static u8 rbt_pattern(u64 seq, u32 src, unsigned int i)
{
	return (u8)(seq * 131 + src * 29 + i * 7 + (seq >> 8));
}

/* u64 % n without a libgcc helper (32-bit kernels have none) */
static unsigned int rbt_mod(u64 v, u32 n)
{
	u32 rem;

	div_u64_rem(v, n, &rem);
	return rem;
}

static u32 rbt_mix(u32 h, u32 v)
{
	h ^= v;
	h *= 0x9e3779b1;
	return h ^ (h >> 15);
}

static u32 rbt_rec_sum(const struct rbt_rec *r)
{
	u32 h = 0x811c9dc5;

	h = rbt_mix(h, lower_32_bits(r->seq));
	h = rbt_mix(h, upper_32_bits(r->seq));
	h = rbt_mix(h, r->src);
	return rbt_mix(h, r->len);
}

/* Build a record in @buf; returns its length */
static unsigned int rbt_rec_make(void *buf, u32 src, u64 seq, unsigned int extra)
{
	struct rbt_rec r = { .seq = seq, .src = src };
	u8 *tail = (u8 *)buf + sizeof(r);
	unsigned int i;

	extra = min_t(unsigned int, extra, RBT_MAX_EXTRA);
	r.len = sizeof(r) + extra;
	r.sum = rbt_rec_sum(&r);
	memcpy(buf, &r, sizeof(r));
	for (i = 0; i < extra; i++)
		tail[i] = rbt_pattern(seq, src, i);
	return r.len;
}

/* Check a record of at most @avail bytes; returns NULL or what is wrong */
static const char *rbt_rec_decode(const void *data, unsigned int avail,
				  struct rbt_rec *r)
{
	const u8 *tail = (const u8 *)data + sizeof(*r);
	unsigned int i;

	if (avail < sizeof(*r))
		return "event shorter than a record";
	memcpy(r, data, sizeof(*r));
	if (r->len < sizeof(*r) || r->len > avail)
		return "record length out of range";
	if (r->sum != rbt_rec_sum(r))
		return "record checksum mismatch";
	for (i = 0; i < r->len - sizeof(*r); i++)
		if (tail[i] != rbt_pattern(r->seq, r->src, i))
			return "record payload corrupted";
	return NULL;
}

static const char *rbt_event_decode(struct ring_buffer_event *ev,
				    struct rbt_rec *r)
{
	return rbt_rec_decode(ring_buffer_event_data(ev),
			      ring_buffer_event_length(ev), r);
}

/* Write one record, with ring_buffer_write() or reserve + commit */
static int rbt_emit(struct trace_buffer *b, u32 src, u64 seq,
		    unsigned int extra, bool reserve)
{
	u8 buf[sizeof(struct rbt_rec) + RBT_MAX_EXTRA];
	struct ring_buffer_event *ev;
	unsigned int len;

	len = rbt_rec_make(buf, src, seq, extra);
	if (!reserve)
		return ring_buffer_write(b, len, buf);
	ev = ring_buffer_lock_reserve(b, len);
	if (!ev)
		return -EBUSY;
	memcpy(ring_buffer_event_data(ev), buf, len);
	return ring_buffer_unlock_commit(b);
}

/* ---- consuming everything a CPU holds, checking each record ---- */

struct rbt_drain {
	u32 src;		/* expected source, 0: any */
	const u64 *exp_ts;	/* expected stamp per sequence number */
	u64 nr_exp_ts;
	const unsigned long *gone;	/* sequence numbers that must not show */
	u64 count;		/* events read */
	u64 lost;		/* sum of reported lost events */
	u64 first_lost;		/* lost count reported with the first event */
	u64 first_seq;
	u64 last_seq;
	u64 last_ts;
	u64 gaps;		/* sequence numbers skipped */
};

static void rbt_drain_one(struct rbt_drain *d, const struct rbt_rec *r,
			  u64 ts, unsigned long lost)
{
	if (!d->count) {
		d->first_seq = r->seq;
		d->first_lost = lost;
	} else {
		RBT_EXPECT(r->seq > d->last_seq,
			   "src %#x: seq %llu read after %llu", r->src,
			   r->seq, d->last_seq);
		RBT_EXPECT(ts >= d->last_ts,
			   "src %#x seq %llu: time went back %llu -> %llu",
			   r->src, r->seq, d->last_ts, ts);
		if (r->seq > d->last_seq)
			d->gaps += r->seq - d->last_seq - 1;
	}
	if (d->src)
		RBT_EQ("record source", d->src, r->src);
	if (d->exp_ts && r->seq < d->nr_exp_ts)
		RBT_EXPECT(ts == d->exp_ts[r->seq],
			   "seq %llu: time stamp expected %llu, got %llu",
			   r->seq, d->exp_ts[r->seq], ts);
	if (d->gone && r->seq < d->nr_exp_ts)
		RBT_EXPECT(!test_bit(r->seq, d->gone),
			   "discarded seq %llu was read", r->seq);
	d->lost += lost;
	d->count++;
	d->last_seq = r->seq;
	d->last_ts = ts;
}

/* Consume at most @max events of @cpu into @d; returns how many */
static u64 rbt_drain_n(struct trace_buffer *b, int cpu, struct rbt_drain *d,
		       u64 max)
{
	struct ring_buffer_event *ev;
	unsigned long lost;
	struct rbt_rec r;
	const char *err;
	u64 n = 0, ts;

	while (n < max && (ev = ring_buffer_consume(b, cpu, &ts, &lost))) {
		n++;
		err = rbt_event_decode(ev, &r);
		if (!RBT_EXPECT(!err, "cpu %d event %llu: %s", cpu,
				d->count, err))
			continue;
		rbt_drain_one(d, &r, ts, lost);
		if (!(n & 63))
			cond_resched();
	}
	return n;
}

static void rbt_drain(struct trace_buffer *b, int cpu, struct rbt_drain *d)
{
	rbt_drain_n(b, cpu, d, ULLONG_MAX);
}

/* ---- helper threads bound to a CPU ---- */

struct rbt_worker {
	struct completion done;
	void (*fn)(struct rbt_worker *w);
	struct trace_buffer *buffer;
	int cpu;
	bool stop;
	bool reserve;		/* use reserve + commit instead of write */
	unsigned int window_us;	/* hold each reservation this long */
	u64 limit;		/* stop after this many events, 0: never */
	u64 seq;		/* next sequence number == events written */
	u64 failed;
	int in_window;
	u64 *until;		/* if set, a window also ends when *until moves */
};

static int rbt_worker_main(void *arg)
{
	struct rbt_worker *w = arg;

	w->fn(w);
	complete(&w->done);
	return 0;
}

static int rbt_worker_start(struct rbt_worker *w, int cpu,
			    void (*fn)(struct rbt_worker *w))
{
	struct task_struct *t;

	init_completion(&w->done);
	w->cpu = cpu;
	w->fn = fn;
	WRITE_ONCE(w->stop, false);
	t = kthread_create(rbt_worker_main, w, "rbt/%d", cpu);
	if (IS_ERR(t))
		return PTR_ERR(t);
	kthread_bind(t, cpu);
	wake_up_process(t);
	return 0;
}

static void rbt_worker_stop(struct rbt_worker *w)
{
	WRITE_ONCE(w->stop, true);
	wait_for_completion(&w->done);
}

/* Reserve, optionally linger with the event open, then commit */
static int rbt_writer_slow(struct rbt_worker *w, unsigned int extra)
{
	u8 buf[sizeof(struct rbt_rec) + RBT_MAX_EXTRA];
	struct ring_buffer_event *ev;
	unsigned int len;

	len = rbt_rec_make(buf, w->cpu, w->seq, extra);
	ev = ring_buffer_lock_reserve(w->buffer, len);
	if (!ev)
		return -EBUSY;
	WRITE_ONCE(w->in_window, 1);
	memcpy(ring_buffer_event_data(ev), buf, len);
	if (READ_ONCE(w->until)) {
		/* linger until the interrupt we wait for has been, or 2 ms */
		u64 *until = READ_ONCE(w->until), seen = READ_ONCE(*until);

		for (int us = 0; us < 2000 && READ_ONCE(*until) == seen; us++)
			udelay(1);
	} else if (w->window_us) {
		udelay(w->window_us);
	}
	WRITE_ONCE(w->in_window, 0);
	return ring_buffer_unlock_commit(w->buffer);
}

/* Write records (source = CPU) until told to stop */
static void rbt_writer_fn(struct rbt_worker *w)
{
	unsigned long n = 0;
	int ret;

	while (!READ_ONCE(w->stop) && (!w->limit || w->seq < w->limit)) {
		unsigned int extra = rbt_mod(w->seq, 41);

		if (w->reserve && (w->window_us || (w->seq & 1)))
			ret = rbt_writer_slow(w, extra);
		else
			ret = rbt_emit(w->buffer, w->cpu, w->seq, extra, false);
		if (!ret)
			w->seq++;
		else
			w->failed++;
		if (!(++n & 31))
			cond_resched();
	}
	while (!READ_ONCE(w->stop))
		usleep_range(1000, 2000);
}

/* Wait (busy, interrupts on) until *@p reaches @target or @us pass */
static bool rbt_wait_for(int *p, int target, unsigned int us)
{
	while (READ_ONCE(*p) < target && us--)
		udelay(1);
	return READ_ONCE(*p) >= target;
}

static struct trace_buffer *rbt_alloc(unsigned long pages, bool overwrite)
{
	return ring_buffer_alloc(pages * PAGE_SIZE,
				 overwrite ? RB_FL_OVERWRITE : 0);
}

/* ---- event sizes at every format boundary ---- */

static const unsigned int rbt_sizes[] = { 0, 1, 4, 5, 112, 113 };

static bool rbt_len_ok(unsigned int len, unsigned int elen)
{
	return !(elen % 4) && elen >= len && elen <= ALIGN(len, 4) + 4;
}

static void rbt_fill(u8 *p, unsigned int len, u32 seed)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		p[i] = rbt_pattern(seed, 0xfe, i);
}

static int rbt_mismatch(const u8 *p, unsigned int len, u32 seed)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if (p[i] != rbt_pattern(seed, 0xfe, i))
			return i;
	return -1;
}

/* Reserve-and-commit (pass 0) or write (pass 1) one event of each length */
static void rbt_sizes_write(struct trace_buffer *b, const unsigned int *lens,
			    unsigned int *elens, int n, u8 *scratch, int pass)
{
	struct ring_buffer_event *ev;
	int i;

	for (i = 0; i < n; i++) {
		if (pass) {
			rbt_fill(scratch, lens[i], i + 100);
			RBT_ERR("write", 0, ring_buffer_write(b, lens[i], scratch));
			continue;
		}
		ev = ring_buffer_lock_reserve(b, lens[i]);
		if (!RBT_EXPECT(ev, "reserve of %u bytes failed", lens[i]))
			continue;
		elens[i] = ring_buffer_event_length(ev);
		RBT_EXPECT(rbt_len_ok(lens[i], elens[i]),
			   "reserve %u: event_length %u", lens[i], elens[i]);
		rbt_fill(ring_buffer_event_data(ev), lens[i], i);
		ring_buffer_unlock_commit(b);
	}
}

static void rbt_sizes_read(struct trace_buffer *b, const unsigned int *lens,
			   const unsigned int *elens, int n, int pass)
{
	struct ring_buffer_event *ev;
	unsigned int elen;
	int i, bad;

	for (i = 0; i < n; i++) {
		ev = ring_buffer_consume(b, rbt.cpu, NULL, NULL);
		if (!RBT_EXPECT(ev, "event of %u bytes missing", lens[i]))
			return;
		elen = ring_buffer_event_length(ev);
		if (!pass)
			RBT_EQ("event_length after read", elens[i], elen);
		RBT_EXPECT(rbt_len_ok(lens[i], elen), "read %u: event_length %u",
			   lens[i], elen);
		bad = rbt_mismatch(ring_buffer_event_data(ev), lens[i],
				   pass ? i + 100 : i);
		RBT_EXPECT(bad < 0, "event of %u bytes: byte %d differs",
			   lens[i], bad);
	}
}

static enum rbt_result rbt_test_event_sizes(void)
{
	unsigned int lens[ARRAY_SIZE(rbt_sizes) + 1], elens[ARRAY_SIZE(lens)];
	struct ring_buffer_event *ev;
	unsigned long max, subbuf;
	struct trace_buffer *b;
	int n = ARRAY_SIZE(lens), pass;
	u8 *scratch;

	b = rbt_alloc(RBT_PAGES, true);
	if (!RBT_EXPECT(b, "ring_buffer_alloc failed"))
		return RBT_FAIL;
	subbuf = ring_buffer_subbuf_size_get(b);
	max = ring_buffer_max_event_size(b);
	RBT_EQ("subbuf_size_get", PAGE_SIZE << ring_buffer_subbuf_order_get(b),
	       subbuf);
	RBT_EQ("max_event_size", subbuf - RBT_PAGE_HDR - 8, max);
	memcpy(lens, rbt_sizes, sizeof(rbt_sizes));
	lens[n - 1] = max;
	memset(elens, 0, sizeof(elens));
	scratch = kzalloc(max + 1, GFP_KERNEL);
	if (!RBT_EXPECT(scratch, "no memory")) {
		ring_buffer_free(b);
		return RBT_FAIL;
	}

	for (pass = 0; pass < 2; pass++) {
		rbt_sizes_write(b, lens, elens, n, scratch, pass);
		RBT_EQ("entries before read", n, ring_buffer_entries_cpu(b, rbt.cpu));
		rbt_sizes_read(b, lens, elens, n, pass);
		RBT_EXPECT(!ring_buffer_consume(b, rbt.cpu, NULL, NULL),
			   "extra event after the sized ones");
	}
	RBT_EQ("read_events", 2 * n, ring_buffer_read_events_cpu(b, rbt.cpu));

	/* One byte over the maximum fails cleanly, both ways */
	ev = ring_buffer_lock_reserve(b, max + 1);
	if (!RBT_EXPECT(!ev, "reserve of max + 1 (%lu) succeeded", max + 1))
		ring_buffer_discard_commit(b, ev);
	RBT_EXPECT(ring_buffer_write(b, max + 1, scratch),
		   "write of max + 1 (%lu) succeeded", max + 1);
	RBT_EQ("entries after oversize", 0, ring_buffer_entries_cpu(b, rbt.cpu));
	RBT_EQ("dropped after oversize", 0,
	       ring_buffer_dropped_events_cpu(b, rbt.cpu));

	kfree(scratch);
	ring_buffer_free(b);
	return rbt_verdict();
}

/* ---- time stamps: deltas, extends, absolute stamps ---- */

static const u64 rbt_jumps[] = {
	0, 1, (1ULL << RBT_TS_BITS) - 1, 1ULL << RBT_TS_BITS,
	(1ULL << RBT_TS_BITS) + 1, 3ULL << RBT_TS_BITS, 12345, 1ULL << 32,
	0, (1ULL << 40) + 7, 999, (1ULL << 28) + 3,
};

#define RBT_TS_EVENTS	400

/* Expected stamps: @start, then each one a scripted jump after the last */
static u64 *rbt_ts_script(u64 start, int n)
{
	u64 *ts = kmalloc_array(n, sizeof(*ts), GFP_KERNEL);
	int i;

	if (!ts)
		return NULL;
	ts[0] = start;
	for (i = 1; i < n; i++)
		ts[i] = ts[i - 1] + rbt_jumps[i % ARRAY_SIZE(rbt_jumps)];
	return ts;
}

/* Walk an iterator over records 0..n-1 and compare stamps with @exp */
static void rbt_iter_check_ts(struct trace_buffer *b, const u64 *exp, int n)
{
	struct ring_buffer_iter *it;
	struct ring_buffer_event *ev;
	struct rbt_rec r;
	const char *err;
	int seen = 0;
	u64 ts;

	it = ring_buffer_read_start(b, rbt.cpu, GFP_KERNEL);
	if (!RBT_EXPECT(it, "read_start failed"))
		return;
	while ((ev = ring_buffer_iter_peek(it, &ts))) {
		err = rbt_event_decode(ev, &r);
		if (!RBT_EXPECT(!err, "iterator event %d: %s", seen, err))
			break;
		if (!RBT_EQ("iterator seq", seen, r.seq))
			break;
		RBT_EXPECT(ts == exp[seen],
			   "iterator seq %d: stamp expected %llu, got %llu",
			   seen, exp[seen], ts);
		ring_buffer_iter_advance(it);
		seen++;
	}
	RBT_EQ("events seen by the iterator", n, seen);
	ring_buffer_read_finish(it);
}

/* Reserve record @seq, check its stamp while it is open, commit it */
static void rbt_emit_stamped(struct trace_buffer *b, u64 seq, u64 exp)
{
	u8 buf[sizeof(struct rbt_rec) + RBT_MAX_EXTRA];
	struct ring_buffer_event *ev;
	unsigned int len;

	len = rbt_rec_make(buf, RBT_SRC_TASK, seq, rbt_mod(seq, 37));
	ev = ring_buffer_lock_reserve(b, len);
	if (!RBT_EXPECT(ev, "reserve of seq %llu failed", seq))
		return;
	memcpy(ring_buffer_event_data(ev), buf, len);
	RBT_EQ("event_time_stamp of an open event", exp,
	       ring_buffer_event_time_stamp(b, ev));
	ring_buffer_unlock_commit(b);
}

static enum rbt_result rbt_ts_run(bool abs)
{
	struct rbt_drain d = { .src = RBT_SRC_TASK };
	unsigned long max = 0;
	struct trace_buffer *b;
	u64 *ts;
	int i;

	ts = rbt_ts_script(abs ? (1ULL << 58) + 12345 : 1ULL << 20,
			   RBT_TS_EVENTS);
	b = rbt_alloc(RBT_PAGES, true);
	if (!RBT_EXPECT(b && ts, "no memory"))
		goto out;
	rbt_clock_set(ts[0]);
	ring_buffer_set_clock(b, rbt_clock);
	RBT_EQ("time_stamp() with the test clock", ts[0], ring_buffer_time_stamp(b));
	if (abs) {
		max = ring_buffer_max_event_size(b);
		ring_buffer_set_time_stamp_abs(b, true);
		RBT_EXPECT(ring_buffer_time_stamp_abs(b), "time_stamp_abs off");
		RBT_EQ("max_event_size with absolute stamps", max - 8,
		       ring_buffer_max_event_size(b));
	}

	for (i = 0; i < RBT_TS_EVENTS; i++) {
		rbt_clock_set(ts[i]);
		if (i & 1)
			rbt_emit_stamped(b, i, ts[i]);
		else
			RBT_ERR("write", 0,
				rbt_emit(b, RBT_SRC_TASK, i, i % 37, false));
	}
	RBT_EQ("oldest_event_ts", ts[0], ring_buffer_oldest_event_ts(b, rbt.cpu));
	rbt_iter_check_ts(b, ts, RBT_TS_EVENTS);

	d.exp_ts = ts;
	d.nr_exp_ts = RBT_TS_EVENTS;
	rbt_drain(b, rbt.cpu, &d);
	RBT_EQ("events read", RBT_TS_EVENTS, d.count);
	RBT_EQ("sequence gaps", 0, d.gaps);

	if (abs) {
		ring_buffer_set_time_stamp_abs(b, false);
		RBT_EXPECT(!ring_buffer_time_stamp_abs(b), "time_stamp_abs on");
		RBT_EQ("max_event_size after absolute stamps", max,
		       ring_buffer_max_event_size(b));
	}
out:
	if (b)
		ring_buffer_free(b);
	kfree(ts);
	return rbt_verdict();
}

static enum rbt_result rbt_test_time_extend(void)
{
	return rbt_ts_run(false);
}

static enum rbt_result rbt_test_abs_timestamps(void)
{
	return rbt_ts_run(true);
}

/* ---- writes from interrupt context nested inside an open event ---- */

struct rbt_nest {
	struct irq_work work;
	struct trace_buffer *buffer;
	u64 seq;
	u64 clock;	/* set the test clock to this first, if non-zero */
	bool reserve;
	int runs;
	int in_window;
	int nested;
	int failed;
};

static void rbt_nest_fn(struct irq_work *work)
{
	struct rbt_nest *n = container_of(work, struct rbt_nest, work);

	if (READ_ONCE(n->in_window))
		n->nested++;
	if (n->clock)
		rbt_clock_set(n->clock);
	if (rbt_emit(n->buffer, RBT_SRC_IRQ, n->seq, rbt_mod(n->seq, 23), n->reserve))
		n->failed++;
	WRITE_ONCE(n->runs, n->runs + 1);
}

static void rbt_nest_init(struct rbt_nest *n, struct trace_buffer *b)
{
	memset(n, 0, sizeof(*n));
	n->work = IRQ_WORK_INIT_HARD(rbt_nest_fn);
	n->buffer = b;
}

/* Raise the irq_work on this CPU and wait for it to have run */
static bool rbt_nest_kick(struct rbt_nest *n)
{
	int target = READ_ONCE(n->runs) + 1;

	WRITE_ONCE(n->in_window, 1);
	irq_work_queue(&n->work);
	rbt_wait_for(&n->runs, target, 100000);
	WRITE_ONCE(n->in_window, 0);
	return READ_ONCE(n->runs) >= target;
}

/* Reserve record @seq, let the irq_work write @seq + 1, commit */
static void rbt_nest_pair(struct rbt_nest *n, u64 seq, bool discard)
{
	u8 buf[sizeof(struct rbt_rec) + RBT_MAX_EXTRA];
	struct ring_buffer_event *ev;
	unsigned int len;
	bool ran;

	len = rbt_rec_make(buf, RBT_SRC_TASK, seq, rbt_mod(seq, 29));
	ev = ring_buffer_lock_reserve(n->buffer, len);
	if (!RBT_EXPECT(ev, "reserve of seq %llu failed", seq))
		return;
	memcpy(ring_buffer_event_data(ev), buf, len);
	n->seq = seq + 1;
	n->reserve = seq & 2;
	ran = rbt_nest_kick(n);
	if (discard)
		ring_buffer_discard_commit(n->buffer, ev);
	else
		ring_buffer_unlock_commit(n->buffer);
	if (!ran)
		irq_work_sync(&n->work);
}

static enum rbt_result rbt_test_nested_irq_work(void)
{
	struct rbt_drain d = { };
	struct trace_buffer *b;
	struct rbt_nest n;
	const int pairs = 64;
	int i;

	b = rbt_alloc(RBT_PAGES, true);
	if (!RBT_EXPECT(b, "ring_buffer_alloc failed"))
		return RBT_FAIL;
	rbt_nest_init(&n, b);
	for (i = 0; i < pairs; i++)
		rbt_nest_pair(&n, 2 * i, false);
	irq_work_sync(&n.work);

	RBT_EQ("irq_work runs nested inside a reservation", pairs, n.nested);
	RBT_EQ("failed writes from irq_work", 0, n.failed);
	RBT_EQ("entries", 2 * pairs, ring_buffer_entries_cpu(b, rbt.cpu));
	rbt_drain(b, rbt.cpu, &d);
	RBT_EQ("events read", 2 * pairs, d.count);
	RBT_EQ("first seq", 0, d.first_seq);
	RBT_EQ("sequence gaps", 0, d.gaps);
	RBT_EQ("commit_overrun", 0, ring_buffer_commit_overrun_cpu(b, rbt.cpu));
	ring_buffer_free(b);
	return rbt_verdict();
}

struct rbt_ipi {
	struct trace_buffer *buffer;
	struct rbt_worker *w;
	u64 seq;
	int hits;
	int wrong_cpu;
	int failed;
};

static void rbt_ipi_fn(void *arg)
{
	struct rbt_ipi *p = arg;

	if (smp_processor_id() != p->w->cpu)
		p->wrong_cpu++;
	if (READ_ONCE(p->w->in_window))
		p->hits++;
	if (rbt_emit(p->buffer, RBT_SRC_IRQ, p->seq, rbt_mod(p->seq, 19), p->seq & 1))
		p->failed++;
	else
		p->seq++;
}

/* Consume a CPU holding two interleaved streams: @irq and @task */
static void rbt_drain2(struct trace_buffer *b, int cpu, struct rbt_drain *task,
		       struct rbt_drain *irq)
{
	struct ring_buffer_event *ev;
	unsigned long lost;
	struct rbt_rec r;
	const char *err;
	u64 ts, last = 0;

	while ((ev = ring_buffer_consume(b, cpu, &ts, &lost))) {
		err = rbt_event_decode(ev, &r);
		if (!RBT_EXPECT(!err, "cpu %d: %s", cpu, err))
			continue;
		RBT_EXPECT(ts >= last, "cpu %d: time went back %llu -> %llu",
			   cpu, last, ts);
		last = ts;
		rbt_drain_one(r.src == RBT_SRC_IRQ ? irq : task, &r, ts, lost);
	}
}

static enum rbt_result rbt_test_nested_ipi(void)
{
	struct rbt_drain task = { }, irq = { .src = RBT_SRC_IRQ };
	struct rbt_worker w = { .reserve = true, .window_us = 20, .limit = 4000 };
	struct rbt_ipi p = { };
	unsigned long entries;
	struct trace_buffer *b;
	int i;

	if (rbt.other < 0)
		return rbt_skip("needs two online CPUs");
	b = rbt_alloc(128, true);
	if (!RBT_EXPECT(b, "ring_buffer_alloc failed"))
		return RBT_FAIL;
	w.buffer = b;
	p.buffer = b;
	p.w = &w;
	if (!RBT_EXPECT(!rbt_worker_start(&w, rbt.other, rbt_writer_fn),
			"kthread_create failed"))
		goto out;
	/*
	 * The writer's windows last until an IPI has been (up to 2 ms),
	 * and each IPI is sent once a window is open: under TCG a hit then
	 * does not depend on where the scheduler cut the other vCPU off.
	 */
	WRITE_ONCE(w.until, &p.seq);
	/* start once the writer runs; go on until one IPI hit a reservation */
	for (i = 0; i < 2000 && !READ_ONCE(w.seq); i++)
		usleep_range(1000, 2000);
	for (i = 0; i < 4000; i++) {
		if (i >= 400 && (READ_ONCE(p.hits) || READ_ONCE(w.seq) >= w.limit))
			break;
		rbt_wait_for(&w.in_window, 1, 2000);
		smp_call_function_single(rbt.other, rbt_ipi_fn, &p, 1);
	}
	WRITE_ONCE(w.until, NULL);
	rbt_worker_stop(&w);
	pr_info("# %s: %llu IPI writes, %d inside a reservation; %llu task writes\n",
		rbt.name, p.seq, p.hits, w.seq);

	RBT_EQ("IPI handler on the wrong CPU", 0, p.wrong_cpu);
	RBT_EQ("failed writes from IPI", 0, p.failed);
	RBT_EQ("failed writes from task", 0, w.failed);
	RBT_EXPECT(p.hits > 0, "no IPI landed inside an open reservation (of %llu)",
		   p.seq);
	entries = ring_buffer_entries_cpu(b, rbt.other);
	RBT_EQ("overrun", 0, ring_buffer_overrun_cpu(b, rbt.other));
	RBT_EQ("entries", w.seq + p.seq, entries);
	rbt_drain2(b, rbt.other, &task, &irq);
	RBT_EQ("task events read", w.seq, task.count);
	RBT_EQ("IPI events read", p.seq, irq.count);
	RBT_EQ("task sequence gaps", 0, task.gaps);
	RBT_EQ("IPI sequence gaps", 0, irq.gaps);
	RBT_EQ("commit_overrun", 0, ring_buffer_commit_overrun_cpu(b, rbt.other));
out:
	ring_buffer_free(b);
	return rbt_verdict();
}

/* ---- discard ---- */

#define RBT_DISCARD_EVENTS	100

static void rbt_discard_one(struct trace_buffer *b, u64 seq)
{
	u8 buf[sizeof(struct rbt_rec) + RBT_MAX_EXTRA];
	struct ring_buffer_event *ev;
	unsigned int len;

	len = rbt_rec_make(buf, RBT_SRC_TASK, seq, rbt_mod(seq, 13));
	ev = ring_buffer_lock_reserve(b, len);
	if (!RBT_EXPECT(ev, "reserve of seq %llu failed", seq))
		return;
	memcpy(ring_buffer_event_data(ev), buf, len);
	ring_buffer_discard_commit(b, ev);
}

/*
 * Scripted: seq % 3 == 1 is discarded right away; then an event is
 * discarded after an irq_work wrote behind it, twice: once reserved at the
 * same stamp as its predecessor and once right after a plain discard.
 */
static enum rbt_result rbt_test_discard(void)
{
	const int n = RBT_DISCARD_EVENTS + 8;
	DECLARE_BITMAP(gone, RBT_DISCARD_EVENTS + 8);
	struct rbt_drain d = { .gone = gone };
	unsigned long committed = 0;
	struct trace_buffer *b;
	struct rbt_nest nest;
	u64 *ts;
	int i;

	ts = rbt_ts_script(1ULL << 24, n);
	b = rbt_alloc(RBT_PAGES, true);
	if (!RBT_EXPECT(b && ts, "no memory"))
		goto out;
	ring_buffer_set_clock(b, rbt_clock);
	bitmap_zero(gone, n);
	for (i = 0; i < RBT_DISCARD_EVENTS; i++) {
		rbt_clock_set(ts[i]);
		if (i % 3 == 1) {
			__set_bit(i, gone);
			rbt_discard_one(b, i);
			continue;
		}
		RBT_ERR("write", 0, rbt_emit(b, RBT_SRC_TASK, i, i % 17, i & 2));
		committed++;
	}

	rbt_nest_init(&nest, b);
	/* i == 100: same stamp as 99 (committed); 101 written nested */
	ts[i] = ts[i - 1];
	ts[i + 1] = ts[i] + (1ULL << 28);
	nest.clock = ts[i + 1];
	__set_bit(i, gone);
	rbt_nest_pair(&nest, i, true);
	i += 2;
	/* 102: plain discard; 103 discarded with 104 nested behind it */
	ts[i] = ts[i - 1] + 7;
	rbt_clock_set(ts[i]);
	__set_bit(i, gone);
	rbt_discard_one(b, i);
	__set_bit(i + 1, gone);
	ts[i + 1] = ts[i] + (1ULL << 29);
	ts[i + 2] = ts[i + 1] + 3;
	rbt_clock_set(ts[i + 1]);
	nest.clock = ts[i + 2];
	rbt_nest_pair(&nest, i + 1, true);
	i += 3;
	/* 105: a plain event after all that */
	ts[i] = ts[i - 1] + (1ULL << 28);
	rbt_clock_set(ts[i]);
	RBT_ERR("write", 0, rbt_emit(b, RBT_SRC_TASK, i, 3, false));
	committed += 3;
	irq_work_sync(&nest.work);
	RBT_EQ("nested writes failed", 0, nest.failed);

	RBT_EQ("entries (discards not counted)", committed,
	       ring_buffer_entries_cpu(b, rbt.cpu));
	d.exp_ts = ts;
	d.nr_exp_ts = n;
	rbt_drain(b, rbt.cpu, &d);
	RBT_EQ("events read", committed, d.count);
	RBT_EQ("read_events", committed, ring_buffer_read_events_cpu(b, rbt.cpu));
	RBT_EQ("last seq", i, d.last_seq);
	/* every discarded sequence number is missing, nothing else */
	RBT_EQ("missing sequence numbers", i + 1 - committed, d.gaps);
out:
	if (b)
		ring_buffer_free(b);
	kfree(ts);
	return rbt_verdict();
}

/* ---- overwrite and producer/consumer modes ---- */

#define RBT_FLOOD	3000

/* Write records 0..n-1 on this CPU; returns how many were accepted */
static unsigned long rbt_flood(struct trace_buffer *b, u64 from, u64 n,
			       unsigned long *first_fail)
{
	unsigned long ok = 0;
	u64 i;

	*first_fail = ULONG_MAX;
	for (i = from; i < from + n; i++) {
		if (!rbt_emit(b, RBT_SRC_TASK, i, 8, i & 1))
			ok++;
		else if (*first_fail == ULONG_MAX)
			*first_fail = i;
	}
	return ok;
}

static enum rbt_result rbt_test_overwrite_wrap(void)
{
	struct rbt_drain d = { .src = RBT_SRC_TASK };
	unsigned long entries, over, lost, ff;
	struct ring_buffer_event *ev;
	struct trace_buffer *b;
	struct rbt_rec r;
	const char *err;

	b = rbt_alloc(4, true);
	if (!RBT_EXPECT(b, "ring_buffer_alloc failed"))
		return RBT_FAIL;
	RBT_EQ("writes accepted", RBT_FLOOD, rbt_flood(b, 0, RBT_FLOOD, &ff));
	entries = ring_buffer_entries_cpu(b, rbt.cpu);
	over = ring_buffer_overrun_cpu(b, rbt.cpu);
	RBT_EQ("entries + overrun", RBT_FLOOD, entries + over);
	RBT_EXPECT(over > 0 && entries > 0, "no wrap: entries %lu overrun %lu",
		   entries, over);
	RBT_EQ("dropped_events in overwrite mode", 0,
	       ring_buffer_dropped_events_cpu(b, rbt.cpu));

	ev = ring_buffer_peek(b, rbt.cpu, NULL, &lost);
	if (RBT_EXPECT(ev, "peek found nothing")) {
		err = rbt_event_decode(ev, &r);
		if (RBT_EXPECT(!err, "peeked event: %s", err))
			RBT_EQ("oldest kept seq", over, r.seq);
		RBT_EQ("lost events at peek", over, lost);
	}
	rbt_drain(b, rbt.cpu, &d);
	RBT_EQ("events read", entries, d.count);
	RBT_EQ("first seq read", over, d.first_seq);
	RBT_EQ("lost events with the first event", over, d.first_lost);
	RBT_EQ("lost events reported in total", over, d.lost);
	RBT_EQ("newest seq read", RBT_FLOOD - 1, d.last_seq);
	RBT_EQ("sequence gaps", 0, d.gaps);
	RBT_EQ("read_events", entries, ring_buffer_read_events_cpu(b, rbt.cpu));
	RBT_EQ("entries after read", 0, ring_buffer_entries_cpu(b, rbt.cpu));
	RBT_EXPECT(ring_buffer_empty_cpu(b, rbt.cpu), "not empty after read");
	ring_buffer_free(b);
	return rbt_verdict();
}

static void rbt_pc_check(struct trace_buffer *b, unsigned long ok,
			 unsigned long ff)
{
	struct rbt_drain d = { .src = RBT_SRC_TASK };

	RBT_EXPECT(ok > 0 && ok < RBT_FLOOD, "accepted %lu of %u", ok, RBT_FLOOD);
	RBT_EQ("first refused write", ok, ff);
	RBT_EQ("dropped_events", RBT_FLOOD - ok,
	       ring_buffer_dropped_events_cpu(b, rbt.cpu));
	RBT_EQ("entries", ok, ring_buffer_entries_cpu(b, rbt.cpu));
	RBT_EQ("overrun", 0, ring_buffer_overrun_cpu(b, rbt.cpu));
	RBT_EQ("commit_overrun", 0, ring_buffer_commit_overrun_cpu(b, rbt.cpu));
	rbt_drain(b, rbt.cpu, &d);
	RBT_EQ("events read", ok, d.count);
	RBT_EQ("first seq read (oldest kept)", 0, d.first_seq);
	RBT_EQ("lost events reported", 0, d.lost);
	RBT_EQ("sequence gaps", 0, d.gaps);
	RBT_ERR("write after draining", 0, rbt_emit(b, RBT_SRC_TASK, 0, 0, false));
}

static enum rbt_result rbt_test_producer_consumer(void)
{
	struct trace_buffer *b;
	unsigned long ok, ff;

	b = rbt_alloc(4, false);
	if (!RBT_EXPECT(b, "ring_buffer_alloc failed"))
		return RBT_FAIL;
	ok = rbt_flood(b, 0, RBT_FLOOD, &ff);
	rbt_pc_check(b, ok, ff);
	ring_buffer_free(b);

	/* switch an overwriting buffer to producer/consumer and back */
	b = rbt_alloc(4, true);
	if (!RBT_EXPECT(b, "ring_buffer_alloc failed"))
		return RBT_FAIL;
	ring_buffer_change_overwrite(b, 0);
	ok = rbt_flood(b, 0, RBT_FLOOD, &ff);
	rbt_pc_check(b, ok, ff);
	ring_buffer_change_overwrite(b, 1);
	ok = rbt_flood(b, 0, RBT_FLOOD, &ff);
	RBT_EQ("writes accepted after change_overwrite(1)", RBT_FLOOD, ok);
	RBT_EXPECT(ring_buffer_overrun_cpu(b, rbt.cpu) > 0,
		   "no overrun after change_overwrite(1)");
	ring_buffer_free(b);
	return rbt_verdict();
}

/* ---- iterators ---- */

struct rbt_iter_walk {
	u64 seen;
	u64 last_seq;
	u64 last_ts;
	u64 drops;	/* peeks that reported iter_dropped */
	u64 gaps;
	u64 nulls;	/* NULL peeks while not empty */
	u64 backwards;	/* stamps lower than the previous one */
};

/* Walk @it for at most @max events (or until it stays empty) */
static void rbt_iter_walk(struct ring_buffer_iter *it, struct rbt_iter_walk *s,
			  u64 max, struct rbt_worker *w)
{
	struct ring_buffer_event *ev;
	struct rbt_rec r;
	const char *err;
	int idle = 0;
	u64 ts;

	while (s->seen < max) {
		ev = ring_buffer_iter_peek(it, &ts);
		if (!ev) {
			if (++idle > 2000 || (ring_buffer_iter_empty(it) &&
					      (!w || READ_ONCE(w->stop))))
				break;
			s->nulls++;
			udelay(5);
			continue;
		}
		idle = 0;
		if (ring_buffer_iter_dropped(it))
			s->drops++;
		err = rbt_event_decode(ev, &r);
		if (RBT_EXPECT(!err, "iterator event %llu: %s", s->seen, err)) {
			if (s->seen) {
				RBT_EXPECT(r.seq > s->last_seq,
					   "iterator: seq %llu after %llu",
					   r.seq, s->last_seq);
				/*
				 * Stock's iterator may step back by a few
				 * ns while the writer is active: only
				 * counted then.
				 */
				if (ts < s->last_ts)
					s->backwards++;
				RBT_EXPECT(w || ts >= s->last_ts,
					   "iterator: time %llu after %llu",
					   ts, s->last_ts);
				if (r.seq > s->last_seq)
					s->gaps += r.seq - s->last_seq - 1;
			}
			s->last_seq = r.seq;
			s->last_ts = ts;
		}
		s->seen++;
		ring_buffer_iter_advance(it);
		if (!(s->seen & 63))
			cond_resched();
	}
}

static enum rbt_result rbt_test_iterator(void)
{
	struct rbt_iter_walk s = { };
	struct ring_buffer_iter *it;
	struct trace_buffer *b;
	unsigned long ff;
	const u64 n = 500;

	b = rbt_alloc(RBT_PAGES, true);
	if (!RBT_EXPECT(b, "ring_buffer_alloc failed"))
		return RBT_FAIL;
	rbt_flood(b, 0, n, &ff);
	it = ring_buffer_read_start(b, rbt.cpu, GFP_KERNEL);
	if (!RBT_EXPECT(it, "read_start failed"))
		goto out;

	RBT_ERR("resize with an iterator open", -EBUSY,
		ring_buffer_resize(b, 2 * RBT_PAGES * PAGE_SIZE,
				   RING_BUFFER_ALL_CPUS));
	RBT_ERR("subbuf_order_set with an iterator open", -EBUSY,
		ring_buffer_subbuf_order_set(b, 1));

	rbt_iter_walk(it, &s, ULLONG_MAX, NULL);
	RBT_EQ("events seen", n, s.seen);
	RBT_EQ("last seq", n - 1, s.last_seq);
	RBT_EQ("gaps", 0, s.gaps);
	RBT_EQ("iter_dropped reports", 0, s.drops);
	RBT_EXPECT(ring_buffer_iter_empty(it), "iter_empty false at the end");
	RBT_EQ("entries (iterator does not consume)", n,
	       ring_buffer_entries_cpu(b, rbt.cpu));

	/* reset, read a few, then let the writer lap the iterator */
	ring_buffer_iter_reset(it);
	memset(&s, 0, sizeof(s));
	rbt_iter_walk(it, &s, 3, NULL);
	RBT_EQ("first seq after iter_reset", 2, s.last_seq);
	rbt_flood(b, n, 8 * n, &ff);
	rbt_iter_walk(it, &s, ULLONG_MAX, NULL);
	RBT_EXPECT(s.drops > 0, "iter_dropped never set after an overrun");
	RBT_EXPECT(s.gaps > 0, "no events skipped after an overrun");
	RBT_EQ("last seq after the overrun", 9 * n - 1, s.last_seq);
	ring_buffer_read_finish(it);
	RBT_ERR("resize after read_finish", 0,
		ring_buffer_resize(b, 2 * RBT_PAGES * PAGE_SIZE,
				   RING_BUFFER_ALL_CPUS));
out:
	ring_buffer_free(b);
	return rbt_verdict();
}

static enum rbt_result rbt_test_iterator_concurrent(void)
{
	struct rbt_worker w = { .reserve = true };
	struct rbt_iter_walk s = { };
	struct ring_buffer_iter *it;
	struct trace_buffer *b;
	unsigned long deadline;
	int rounds = 0;

	if (rbt.other < 0)
		return rbt_skip("needs two online CPUs");
	b = rbt_alloc(8, true);
	if (!RBT_EXPECT(b, "ring_buffer_alloc failed"))
		return RBT_FAIL;
	w.buffer = b;
	if (!RBT_EXPECT(!rbt_worker_start(&w, rbt.other, rbt_writer_fn),
			"kthread_create failed"))
		goto out;
	while (READ_ONCE(w.seq) < 200)
		usleep_range(1000, 2000);

	deadline = jiffies + msecs_to_jiffies(1500);
	while (time_before(jiffies, deadline)) {
		it = ring_buffer_read_start(b, rbt.other, GFP_KERNEL);
		if (!RBT_EXPECT(it, "read_start failed"))
			break;
		memset(&s, 0, sizeof(s));
		rbt_iter_walk(it, &s, 20000, &w);
		ring_buffer_read_finish(it);
		RBT_EXPECT(s.seen > 0, "round %d: iterator saw nothing", rounds);
		if (rbt.nr_fail)
			break;
		rounds++;
	}
	rbt_worker_stop(&w);
	pr_info("# %s: %d rounds, last: %llu seen, %llu dropped, %llu gaps, %llu stamps back\n",
		rbt.name, rounds, s.seen, s.drops, s.gaps, s.backwards);
	RBT_EQ("entries + overrun == written", w.seq,
	       ring_buffer_entries_cpu(b, rbt.other) +
	       ring_buffer_overrun_cpu(b, rbt.other));
out:
	ring_buffer_free(b);
	return rbt_verdict();
}

/* ---- read_page: whole sub-buffers, parsed as user space does ---- */

struct rbt_page_walk {
	const u64 *exp_ts;
	u64 nr_exp_ts;
	u64 next_seq;		/* expected next sequence number */
	u64 count;		/* records found */
	u64 pages;
	u64 missed_pages;	/* pages flagged "events lost before" */
	u64 loss_gap;		/* seqs skipped at flagged pages */
	unsigned long stored;	/* lost count stored on a flagged page */
};

static void rbt_page_rec(struct rbt_page_walk *pw, const void *payload,
			 unsigned int plen, u64 ts, bool jump)
{
	struct rbt_rec r;
	const char *err;

	err = rbt_rec_decode(payload, plen, &r);
	if (!RBT_EXPECT(!err, "page %llu: %s", pw->pages, err))
		return;
	if (jump && RBT_EXPECT(r.seq >= pw->next_seq,
			       "page %llu: seq %llu before %llu",
			       pw->pages, r.seq, pw->next_seq))
		pw->loss_gap += r.seq - pw->next_seq;
	else if (!jump)
		RBT_EXPECT(r.seq == pw->next_seq, "page %llu: seq %llu, expected %llu",
			   pw->pages, r.seq, pw->next_seq);
	if (pw->exp_ts && r.seq < pw->nr_exp_ts)
		RBT_EXPECT(ts == pw->exp_ts[r.seq],
			   "page seq %llu: stamp expected %llu, got %llu",
			   r.seq, pw->exp_ts[r.seq], ts);
	pw->next_seq = r.seq + 1;
	pw->count++;
}

/* Length of the event at @ev, updating the running stamp @ts */
static unsigned int rbt_page_event(struct rbt_page_walk *pw,
				   const struct ring_buffer_event *ev, u64 *ts,
				   bool *jump)
{
	switch (ev->type_len) {
	case RINGBUF_TYPE_PADDING:
		/* inside commit only a discarded event, never a null one */
		if (!RBT_EXPECT(ev->time_delta, "null padding inside commit"))
			return 0;
		return 4 + ev->array[0];
	case RINGBUF_TYPE_TIME_EXTEND:
		*ts += ((u64)ev->array[0] << RBT_TS_BITS) + ev->time_delta;
		return 8;
	case RINGBUF_TYPE_TIME_STAMP:
		*ts = (*ts & ~((1ULL << 59) - 1)) |
		      ((u64)ev->array[0] << RBT_TS_BITS) | ev->time_delta;
		return 8;
	case 0:
		*ts += ev->time_delta;
		if (!RBT_EXPECT(ev->array[0] >= 4, "bad length %u", ev->array[0]))
			return 0;
		rbt_page_rec(pw, &ev->array[1], ev->array[0] - 4, *ts, *jump);
		*jump = false;
		return 4 + ev->array[0];
	default:
		*ts += ev->time_delta;
		rbt_page_rec(pw, &ev->array[0], 4 * ev->type_len, *ts, *jump);
		*jump = false;
		return 4 + 4 * ev->type_len;
	}
}

static void rbt_parse_page(const u8 *page, unsigned int page_size,
			   struct rbt_page_walk *pw)
{
	const u8 *data = page + RBT_PAGE_HDR;
	unsigned int size, off = 0, len, end;
	unsigned long commit, lost;
	bool jump = false;
	u64 ts;

	memcpy(&ts, page, sizeof(ts));
	memcpy(&commit, page + sizeof(u64), sizeof(commit));
	size = commit & RBT_COMMIT_MASK;
	if (!RBT_EXPECT(size <= page_size - RBT_PAGE_HDR,
			"commit %u beyond the page", size))
		return;
	end = size;
	if (commit & RBT_MISSED_EVENTS) {
		pw->missed_pages++;
		jump = true;
		if (commit & RBT_MISSED_STORED) {
			memcpy(&lost, data + size, sizeof(lost));
			pw->stored += lost;
			end += sizeof(lost);
		}
	}
	while (off < size) {
		if (!RBT_EXPECT(off + 8 <= size, "event at %u crosses commit %u",
				off, size))
			break;
		len = rbt_page_event(pw, (const void *)(data + off), &ts, &jump);
		if (!len || !RBT_EXPECT(off + len <= size,
					"event at %u (%u bytes) crosses commit %u",
					off, len, size))
			break;
		off += len;
	}
	for (off = end; off < page_size - RBT_PAGE_HDR; off++)
		if (!RBT_EXPECT(!data[off], "page tail not zeroed at %u", off))
			break;
	pw->pages++;
}

/* read_page until it refuses; returns the number of pages read */
static int rbt_read_pages(struct trace_buffer *b, int cpu,
			  struct buffer_data_read_page *rp,
			  struct rbt_page_walk *pw)
{
	unsigned int size = ring_buffer_subbuf_size_get(b);
	int n = 0;

	RBT_EQ("read_page_size", size, ring_buffer_read_page_size(rp));
	while (ring_buffer_read_page(b, rp, size, cpu, 0) >= 0 && n < 10000) {
		rbt_parse_page(ring_buffer_read_page_data(rp), size, pw);
		n++;
		cond_resched();
	}
	return n;
}

#define RBT_RP_FIRST	400
#define RBT_RP_FLOOD	4000

static void rbt_read_page_body(struct trace_buffer *b,
			       struct buffer_data_read_page *rp, const u64 *ts)
{
	struct rbt_page_walk pw = { .exp_ts = ts };
	unsigned int size = ring_buffer_subbuf_size_get(b);
	unsigned long over;
	u64 i;

	pw.nr_exp_ts = RBT_RP_FIRST + RBT_RP_FLOOD;
	for (i = 0; i < 3; i++) {
		rbt_clock_set(ts[i]);
		rbt_emit(b, RBT_SRC_TASK, i, i, false);
	}
	RBT_EXPECT(ring_buffer_read_page(b, rp, size, rbt.cpu, 1) < 0,
		   "read_page(full) handed out the page being written");
	for (; i < RBT_RP_FIRST; i++) {
		rbt_clock_set(ts[i]);
		rbt_emit(b, RBT_SRC_TASK, i, rbt_mod(i, 37), i & 1);
	}
	rbt_read_pages(b, rbt.cpu, rp, &pw);
	RBT_EQ("records in pages", RBT_RP_FIRST, pw.count);
	RBT_EQ("pages flagged lost", 0, pw.missed_pages);

	for (; i < RBT_RP_FIRST + RBT_RP_FLOOD; i++) {
		rbt_clock_set(ts[i]);
		rbt_emit(b, RBT_SRC_TASK, i, rbt_mod(i, 37), i & 1);
	}
	over = ring_buffer_overrun_cpu(b, rbt.cpu);
	memset(&pw, 0, sizeof(pw));
	pw.next_seq = RBT_RP_FIRST;
	pw.exp_ts = ts;
	pw.nr_exp_ts = RBT_RP_FIRST + RBT_RP_FLOOD;
	rbt_read_pages(b, rbt.cpu, rp, &pw);
	RBT_EXPECT(over > 0, "no overrun after %u writes", RBT_RP_FLOOD);
	RBT_EQ("pages flagged lost", 1, pw.missed_pages);
	RBT_EQ("seqs skipped at the flagged page", over, pw.loss_gap);
	if (pw.stored)
		RBT_EQ("lost count stored in the page", over, pw.stored);
	RBT_EQ("records in pages", RBT_RP_FLOOD - over, pw.count);
	RBT_EQ("last seq", RBT_RP_FIRST + RBT_RP_FLOOD, pw.next_seq);
}

static enum rbt_result rbt_test_read_page(void)
{
	struct buffer_data_read_page *rp = NULL;
	struct trace_buffer *b;
	u64 *ts;

	ts = rbt_ts_script(1ULL << 30, RBT_RP_FIRST + RBT_RP_FLOOD);
	b = rbt_alloc(8, true);
	if (!RBT_EXPECT(b && ts, "no memory"))
		goto out;
	ring_buffer_set_clock(b, rbt_clock);
	if (!RBT_ERR("alloc_read_page", 0,
		     ring_buffer_alloc_read_page(b, rbt.cpu, &rp)))
		goto out;
	rbt_read_page_body(b, rp, ts);
	ring_buffer_free_read_page(b, rbt.cpu, rp);
out:
	if (b)
		ring_buffer_free(b);
	kfree(ts);
	return rbt_verdict();
}

/* ---- live resize ---- */

static unsigned long rbt_expect_size(struct trace_buffer *b, unsigned long size)
{
	unsigned long cap = ring_buffer_subbuf_size_get(b) - RBT_PAGE_HDR;

	return max(2UL, DIV_ROUND_UP(size, cap)) * cap;
}

static const unsigned long rbt_resize_pages[] = { 32, 4, 0, 64, 1, 8 };

/* Let the writer run: a second CPU writes by itself, else write here */
static void rbt_resize_pause(struct rbt_worker *w, bool live)
{
	int i;

	if (live) {
		msleep(20);
		return;
	}
	for (i = 0; i < 500; i++)
		if (!rbt_emit(w->buffer, w->cpu, w->seq, i % 41, i & 1))
			w->seq++;
}

static void rbt_resize_steps(struct trace_buffer *b, struct rbt_worker *w,
			     bool live)
{
	unsigned long size = 0;
	int i, c;

	for (i = 0; i < ARRAY_SIZE(rbt_resize_pages); i++) {
		/* 0 and 1 byte are below the minimum of two sub-buffers */
		size = rbt_resize_pages[i] > 1 ? rbt_resize_pages[i] * PAGE_SIZE :
						 rbt_resize_pages[i];
		RBT_ERR("resize", 0, ring_buffer_resize(b, size, RING_BUFFER_ALL_CPUS));
		for_each_online_cpu(c)
			RBT_EQ("ring_buffer_size", rbt_expect_size(b, size),
			       ring_buffer_size(b, c));
		rbt_resize_pause(w, live);
	}
	RBT_ERR("resize one CPU", 0, ring_buffer_resize(b, 16 * PAGE_SIZE, w->cpu));
	RBT_EQ("size of the resized CPU", rbt_expect_size(b, 16 * PAGE_SIZE),
	       ring_buffer_size(b, w->cpu));
	for_each_online_cpu(c)
		if (c != w->cpu)
			RBT_EQ("size of another CPU", rbt_expect_size(b, size),
			       ring_buffer_size(b, c));
	rbt_resize_pause(w, live);
}

static enum rbt_result rbt_test_resize_live(void)
{
	struct rbt_worker w = { .reserve = true, .cpu = rbt.cpu };
	bool live = rbt.other >= 0;
	unsigned long entries, over;
	struct rbt_drain d = { };
	struct trace_buffer *b;

	b = rbt_alloc(8, true);
	if (!RBT_EXPECT(b, "ring_buffer_alloc failed"))
		return RBT_FAIL;
	w.buffer = b;
	if (live && !RBT_EXPECT(!rbt_worker_start(&w, rbt.other, rbt_writer_fn),
				"kthread_create failed"))
		goto out;
	rbt_resize_steps(b, &w, live);
	if (live)
		rbt_worker_stop(&w);

	entries = ring_buffer_entries_cpu(b, w.cpu);
	over = ring_buffer_overrun_cpu(b, w.cpu);
	RBT_EXPECT(w.seq > 0, "writer wrote nothing");
	RBT_EQ("entries + overrun == written", w.seq, entries + over);
	d.src = w.cpu;
	rbt_drain(b, w.cpu, &d);
	RBT_EQ("events read", entries, d.count);
	RBT_EQ("newest seq kept", w.seq - 1, d.last_seq);
	RBT_EQ("events missing == overrun", over, d.first_seq + d.gaps);
out:
	ring_buffer_free(b);
	return rbt_verdict();
}

/* ---- swap_cpu ---- */

static u64 rbt_count_src(struct trace_buffer *b, u32 src)
{
	struct rbt_drain d = { .src = src };

	rbt_drain(b, rbt.cpu, &d);
	RBT_EQ("sequence gaps", 0, d.gaps);
	return d.count;
}

static void rbt_swap_body(struct trace_buffer *a, struct trace_buffer *b,
			  struct trace_buffer *c)
{
	unsigned long ff;
	int ret;

	rbt_flood(a, 0, 10, &ff);
	RBT_ERR("write", 0, rbt_emit(b, RBT_SRC_NEST, 0, 1, false));
	RBT_ERR("write", 0, rbt_emit(b, RBT_SRC_NEST, 1, 2, true));
	RBT_ERR("swap_cpu", 0, ring_buffer_swap_cpu(a, b, rbt.cpu));
	RBT_EQ("entries of a after swap", 2, ring_buffer_entries_cpu(a, rbt.cpu));
	RBT_EQ("entries of b after swap", 10, ring_buffer_entries_cpu(b, rbt.cpu));
	RBT_EQ("events of b read from a", 2, rbt_count_src(a, RBT_SRC_NEST));
	RBT_EQ("events of a read from b", 10, rbt_count_src(b, RBT_SRC_TASK));

	/* a keeps working on its new per-CPU buffer */
	rbt_flood(a, 0, 5, &ff);
	RBT_EQ("events written to a after swap", 5, rbt_count_src(a, RBT_SRC_TASK));

	RBT_ERR("swap_cpu with a different size", -EINVAL,
		ring_buffer_swap_cpu(a, c, rbt.cpu));
	ring_buffer_record_disable(a);
	ret = ring_buffer_swap_cpu(a, b, rbt.cpu);
	RBT_EXPECT(ret == -EAGAIN || ret == -EBUSY,
		   "swap_cpu with recording disabled: expected -EAGAIN or -EBUSY, got %d",
		   ret);
	ring_buffer_record_enable(a);
	RBT_ERR("swap_cpu back", 0, ring_buffer_swap_cpu(a, b, rbt.cpu));
}

static enum rbt_result rbt_test_swap_cpu(void)
{
	struct trace_buffer *a, *b, *c;

	if (!IS_ENABLED(CONFIG_RING_BUFFER_ALLOW_SWAP))
		return rbt_skip("CONFIG_RING_BUFFER_ALLOW_SWAP is not set");
	a = rbt_alloc(8, true);
	b = rbt_alloc(8, true);
	c = rbt_alloc(16, true);
	if (RBT_EXPECT(a && b && c, "ring_buffer_alloc failed"))
		rbt_swap_body(a, b, c);
	if (a)
		ring_buffer_free(a);
	if (b)
		ring_buffer_free(b);
	if (c)
		ring_buffer_free(c);
	return rbt_verdict();
}

/* ---- sub-buffer order ---- */

static void rbt_order_events(struct trace_buffer *b, int order)
{
	unsigned long size = PAGE_SIZE << order, max, ff;
	struct buffer_data_read_page *rp = NULL;
	struct rbt_page_walk pw = { };
	struct ring_buffer_event *ev;
	int bad;

	RBT_EQ("subbuf_order_get", order, ring_buffer_subbuf_order_get(b));
	RBT_EQ("subbuf_size_get", size, ring_buffer_subbuf_size_get(b));
	/* stock keeps the limit of the order it was allocated with */
	max = ring_buffer_max_event_size(b);
	RBT_EXPECT(max >= PAGE_SIZE - RBT_PAGE_HDR - 8 &&
		   max <= size - RBT_PAGE_HDR - 8,
		   "order %d: max_event_size %lu", order, max);
	RBT_EXPECT(ring_buffer_empty_cpu(b, rbt.cpu),
		   "order %d: events survived the order change", order);

	ev = ring_buffer_lock_reserve(b, max);
	if (RBT_EXPECT(ev, "order %d: reserve of max %lu failed", order, max)) {
		rbt_fill(ring_buffer_event_data(ev), max, order);
		ring_buffer_unlock_commit(b);
	}
	ev = ring_buffer_lock_reserve(b, max + 1);
	if (!RBT_EXPECT(!ev, "order %d: reserve of max + 1 succeeded", order))
		ring_buffer_discard_commit(b, ev);
	ev = ring_buffer_consume(b, rbt.cpu, NULL, NULL);
	if (RBT_EXPECT(ev, "order %d: largest event not read back", order)) {
		bad = rbt_mismatch(ring_buffer_event_data(ev), max, order);
		RBT_EXPECT(bad < 0, "order %d: byte %d of largest event", order, bad);
	}

	rbt_flood(b, 0, 300, &ff);
	if (!RBT_ERR("alloc_read_page", 0,
		     ring_buffer_alloc_read_page(b, rbt.cpu, &rp)))
		return;
	rbt_read_pages(b, rbt.cpu, rp, &pw);
	RBT_EQ("records read by page", 300, pw.count);
	ring_buffer_free_read_page(b, rbt.cpu, rp);
}

static enum rbt_result rbt_test_subbuf_order(void)
{
	int too_big = ilog2(SZ_1M / PAGE_SIZE) + 1;
	struct trace_buffer *b;
	unsigned long ff;

	b = rbt_alloc(8, true);
	if (!RBT_EXPECT(b, "ring_buffer_alloc failed"))
		return RBT_FAIL;
	rbt_order_events(b, 0);
	rbt_flood(b, 0, 100, &ff);
	RBT_ERR("subbuf_order_set(-1)", -EINVAL, ring_buffer_subbuf_order_set(b, -1));
	RBT_ERR("subbuf_order_set above 1 MiB", -EINVAL,
		ring_buffer_subbuf_order_set(b, too_big));
	RBT_EQ("order after refused changes", 0, ring_buffer_subbuf_order_get(b));
	RBT_EQ("entries after refused changes", 100,
	       ring_buffer_entries_cpu(b, rbt.cpu));

	RBT_ERR("subbuf_order_set(1)", 0, ring_buffer_subbuf_order_set(b, 1));
	rbt_order_events(b, 1);
	rbt_flood(b, 0, 10, &ff);
	RBT_ERR("subbuf_order_set(2)", 0, ring_buffer_subbuf_order_set(b, 2));
	rbt_order_events(b, 2);
	RBT_ERR("subbuf_order_set(0)", 0, ring_buffer_subbuf_order_set(b, 0));
	rbt_order_events(b, 0);
	ring_buffer_free(b);
	return rbt_verdict();
}

/* ---- record on/off and disable/enable nesting ---- */

static void rbt_expect_state(struct trace_buffer *b, bool on, bool set_on,
			     const char *when)
{
	int ret = rbt_emit(b, RBT_SRC_TASK, 0, 0, false);

	RBT_EXPECT(ring_buffer_record_is_on(b) == on,
		   "%s: record_is_on expected %d", when, on);
	RBT_EXPECT(ring_buffer_record_is_set_on(b) == set_on,
		   "%s: record_is_set_on expected %d", when, set_on);
	RBT_EXPECT(!ret == on, "%s: write returned %d, recording %s", when, ret,
		   on ? "on" : "off");
}

static enum rbt_result rbt_test_record_on_off(void)
{
	struct trace_buffer *b;
	int ok = 0;

	b = rbt_alloc(RBT_PAGES, true);
	if (!RBT_EXPECT(b, "ring_buffer_alloc failed"))
		return RBT_FAIL;
	rbt_expect_state(b, true, true, "fresh");
	ok++;
	ring_buffer_record_off(b);
	rbt_expect_state(b, false, false, "record_off");
	RBT_EXPECT(!ring_buffer_lock_reserve(b, 8), "reserve while off");
	ring_buffer_record_on(b);
	rbt_expect_state(b, true, true, "record_on");
	ok++;

	ring_buffer_record_disable(b);
	rbt_expect_state(b, false, true, "disable x1");
	ring_buffer_record_disable(b);
	ring_buffer_record_enable(b);
	rbt_expect_state(b, false, true, "disable x2, enable x1");
	ring_buffer_record_off(b);
	ring_buffer_record_enable(b);
	rbt_expect_state(b, false, false, "off, enable x2");
	ring_buffer_record_on(b);
	rbt_expect_state(b, true, true, "on again");
	ok++;

	ring_buffer_record_disable_cpu(b, rbt.cpu);
	RBT_EXPECT(ring_buffer_record_is_on(b), "disable_cpu turned all off");
	RBT_EXPECT(rbt_emit(b, RBT_SRC_TASK, 0, 0, false),
		   "write succeeded on a disabled CPU");
	ring_buffer_record_enable_cpu(b, rbt.cpu);
	rbt_expect_state(b, true, true, "enable_cpu");
	ok++;

	RBT_EQ("entries (refused writes not counted)", ok,
	       ring_buffer_entries_cpu(b, rbt.cpu));
	RBT_EQ("dropped_events", 0, ring_buffer_dropped_events_cpu(b, rbt.cpu));
	RBT_EQ("overrun", 0, ring_buffer_overrun_cpu(b, rbt.cpu));
	ring_buffer_free(b);
	return rbt_verdict();
}

/* ---- reset, emptiness, counters ---- */

static void rbt_ipi_write5(void *arg)
{
	int i;

	for (i = 0; i < 5; i++)
		rbt_emit(arg, RBT_SRC_IRQ, i, i, false);
}

static void rbt_expect_reset(struct trace_buffer *b, int cpu, const char *how)
{
	RBT_EXPECT(ring_buffer_empty_cpu(b, cpu), "%s: cpu %d not empty", how, cpu);
	RBT_EXPECT(!ring_buffer_consume(b, cpu, NULL, NULL),
		   "%s: cpu %d still has an event", how, cpu);
	RBT_EQ("entries after reset", 0, ring_buffer_entries_cpu(b, cpu));
	RBT_EQ("overrun after reset", 0, ring_buffer_overrun_cpu(b, cpu));
	RBT_EQ("read_events after reset", 0, ring_buffer_read_events_cpu(b, cpu));
	RBT_EQ("bytes after reset", 0, ring_buffer_bytes_cpu(b, cpu));
}

static enum rbt_result rbt_test_reset_empty(void)
{
	struct rbt_drain d = { .src = RBT_SRC_TASK };
	struct trace_buffer *b;
	unsigned long ff;

	b = rbt_alloc(4, true);
	if (!RBT_EXPECT(b, "ring_buffer_alloc failed"))
		return RBT_FAIL;
	RBT_EXPECT(ring_buffer_empty(b), "fresh buffer not empty");
	RBT_EXPECT(ring_buffer_empty_cpu(b, rbt.cpu), "fresh cpu not empty");
	rbt_flood(b, 0, 3000, &ff);
	RBT_EXPECT(!ring_buffer_empty(b), "empty() after writes");
	RBT_EXPECT(!ring_buffer_empty_cpu(b, rbt.cpu), "empty_cpu() after writes");
	if (rbt.other >= 0)
		RBT_EXPECT(ring_buffer_empty_cpu(b, rbt.other),
			   "cpu %d not empty, nothing written there", rbt.other);
	RBT_EXPECT(ring_buffer_consume(b, rbt.cpu, NULL, NULL), "nothing to read");
	ring_buffer_reset_cpu(b, rbt.cpu);
	rbt_expect_reset(b, rbt.cpu, "reset_cpu");
	RBT_EXPECT(ring_buffer_empty(b), "empty() false after reset_cpu");

	if (rbt.other >= 0) {
		smp_call_function_single(rbt.other, rbt_ipi_write5, b, 1);
		RBT_EQ("entries of the other CPU", 5,
		       ring_buffer_entries_cpu(b, rbt.other));
		RBT_EXPECT(!ring_buffer_empty(b), "empty() with the other CPU written");
	}
	rbt_flood(b, 0, 7, &ff);
	RBT_EQ("entries()", rbt.other >= 0 ? 12 : 7, ring_buffer_entries(b));
	ring_buffer_reset(b);
	RBT_EXPECT(ring_buffer_empty(b), "empty() false after reset");
	RBT_EQ("entries() after reset", 0, ring_buffer_entries(b));
	rbt_expect_reset(b, rbt.cpu, "reset");
	if (rbt.other >= 0)
		rbt_expect_reset(b, rbt.other, "reset");

	rbt_flood(b, 0, 3, &ff);
	ring_buffer_reset_online_cpus(b);
	rbt_expect_reset(b, rbt.cpu, "reset_online_cpus");

	rbt_flood(b, 0, 4, &ff);
	rbt_drain(b, rbt.cpu, &d);
	RBT_EQ("events read after the resets", 4, d.count);
	RBT_EQ("first seq after the resets", 0, d.first_seq);
	ring_buffer_free(b);
	return rbt_verdict();
}

static void rbt_counters_sum(struct trace_buffer *b)
{
	unsigned long entries = 0, over = 0;
	int c;

	for_each_online_cpu(c) {
		entries += ring_buffer_entries_cpu(b, c);
		over += ring_buffer_overrun_cpu(b, c);
	}
	RBT_EQ("entries() == sum of entries_cpu()", entries, ring_buffer_entries(b));
	RBT_EQ("overruns() == sum of overrun_cpu()", over, ring_buffer_overruns(b));
}

static enum rbt_result rbt_test_counters(void)
{
	struct trace_buffer *b;
	unsigned long bytes, over, entries;
	const int n = 3000, len = sizeof(struct rbt_rec) + 8;
	struct rbt_drain d = { };
	u64 *ts;
	int i;

	ts = rbt_ts_script(1ULL << 33, n);
	b = rbt_alloc(4, true);
	if (!RBT_EXPECT(b && ts, "no memory"))
		goto out;
	ring_buffer_set_clock(b, rbt_clock);
	for (i = 0; i < n; i++) {
		rbt_clock_set(ts[i]);
		rbt_emit(b, RBT_SRC_TASK, i, 8, false);
		if (i != 9)
			continue;
		bytes = ring_buffer_bytes_cpu(b, rbt.cpu);
		RBT_EXPECT(bytes >= 10 * (len + 4) && bytes <= 10 * (len + 12),
			   "bytes_cpu for 10 events of %d bytes: %lu", len, bytes);
		RBT_EQ("oldest_event_ts", ts[0], ring_buffer_oldest_event_ts(b, rbt.cpu));
		RBT_EQ("entries_cpu", 10, ring_buffer_entries_cpu(b, rbt.cpu));
		rbt_counters_sum(b);
	}
	over = ring_buffer_overrun_cpu(b, rbt.cpu);
	entries = ring_buffer_entries_cpu(b, rbt.cpu);
	RBT_EXPECT(over > 0, "no overrun");
	RBT_EQ("entries + overrun", n, entries + over);
	RBT_EQ("oldest_event_ts after wrap", ts[over],
	       ring_buffer_oldest_event_ts(b, rbt.cpu));
	rbt_counters_sum(b);

	rbt_drain_n(b, rbt.cpu, &d, 4);
	RBT_EQ("read_events_cpu", 4, ring_buffer_read_events_cpu(b, rbt.cpu));
	RBT_EQ("entries after 4 reads", entries - 4,
	       ring_buffer_entries_cpu(b, rbt.cpu));
	RBT_EQ("overrun after 4 reads", over, ring_buffer_overrun_cpu(b, rbt.cpu));
	RBT_EQ("commit_overrun", 0, ring_buffer_commit_overrun_cpu(b, rbt.cpu));
	RBT_EQ("dropped_events", 0, ring_buffer_dropped_events_cpu(b, rbt.cpu));
	rbt_counters_sum(b);
out:
	if (b)
		ring_buffer_free(b);
	kfree(ts);
	return rbt_verdict();
}

/* ---- CPUs the buffer does not have ---- */

static void rbt_bad_cpu(struct trace_buffer *b, struct trace_buffer *b2, int cpu)
{
	struct buffer_data_read_page *rp = NULL;
	unsigned long size = ring_buffer_size(b, rbt.cpu);
	int ret;

	RBT_EQ("entries_cpu", 0, ring_buffer_entries_cpu(b, cpu));
	RBT_EQ("overrun_cpu", 0, ring_buffer_overrun_cpu(b, cpu));
	RBT_EQ("commit_overrun_cpu", 0, ring_buffer_commit_overrun_cpu(b, cpu));
	RBT_EQ("dropped_events_cpu", 0, ring_buffer_dropped_events_cpu(b, cpu));
	RBT_EQ("read_events_cpu", 0, ring_buffer_read_events_cpu(b, cpu));
	RBT_EQ("bytes_cpu", 0, ring_buffer_bytes_cpu(b, cpu));
	RBT_EQ("oldest_event_ts", 0, ring_buffer_oldest_event_ts(b, cpu));
	RBT_EQ("size", 0, ring_buffer_size(b, cpu));
	RBT_EXPECT(ring_buffer_empty_cpu(b, cpu), "cpu %d: empty_cpu false", cpu);
	RBT_EXPECT(!ring_buffer_consume(b, cpu, NULL, NULL), "cpu %d: consume", cpu);
	RBT_EXPECT(!ring_buffer_read_start(b, cpu, GFP_KERNEL),
		   "cpu %d: read_start gave an iterator", cpu);
	ret = ring_buffer_alloc_read_page(b, cpu, &rp);
	RBT_EXPECT(ret < 0 && !rp, "cpu %d: alloc_read_page returned %d", cpu, ret);
	RBT_ERR("resize of a missing CPU", 0, ring_buffer_resize(b, 4 * PAGE_SIZE, cpu));
	RBT_EQ("size after resizing a missing CPU", size, ring_buffer_size(b, rbt.cpu));
	RBT_ERR("swap_cpu", IS_ENABLED(CONFIG_RING_BUFFER_ALLOW_SWAP) ? -EINVAL : -ENODEV,
		ring_buffer_swap_cpu(b, b2, cpu));
	ring_buffer_record_disable_cpu(b, cpu);
	ring_buffer_record_enable_cpu(b, cpu);
}

static enum rbt_result rbt_test_bad_cpu(void)
{
	struct rbt_drain d = { .src = RBT_SRC_TASK };
	struct trace_buffer *b, *b2;
	unsigned long ff;
	int c;

	b = rbt_alloc(4, true);
	b2 = rbt_alloc(4, true);
	if (!RBT_EXPECT(b && b2, "ring_buffer_alloc failed"))
		goto out;
	rbt_flood(b, 0, 5, &ff);
	rbt_bad_cpu(b, b2, nr_cpu_ids);
	for_each_possible_cpu(c) {
		if (cpu_online(c))
			continue;
		pr_info("# %s: also trying offline cpu %d\n", rbt.name, c);
		rbt_bad_cpu(b, b2, c);
		break;
	}
	rbt_drain(b, rbt.cpu, &d);
	RBT_EQ("events still readable", 5, d.count);
	RBT_ERR("write still works", 0, rbt_emit(b, RBT_SRC_TASK, 5, 0, false));
out:
	if (b)
		ring_buffer_free(b);
	if (b2)
		ring_buffer_free(b2);
	return rbt_verdict();
}

/* ---- the recursion guard and nest_start/nest_end ---- */

static enum rbt_result rbt_test_recursion_nest(void)
{
	u8 buf[sizeof(struct rbt_rec) + RBT_MAX_EXTRA];
	struct rbt_drain d = { .src = RBT_SRC_TASK };
	struct ring_buffer_event *ev;
	struct trace_buffer *b;
	unsigned int len;
	int k, i;

	b = rbt_alloc(4, true);
	if (!RBT_EXPECT(b, "ring_buffer_alloc failed"))
		return RBT_FAIL;
	/* keep reserving in this context until the guard says no */
	for (k = 0; k < 4; k++) {
		len = rbt_rec_make(buf, RBT_SRC_TASK, k, k);
		ev = ring_buffer_lock_reserve(b, len);
		if (!ev)
			break;
		memcpy(ring_buffer_event_data(ev), buf, len);
	}
	/* stock lets the second through (the context-transition slot) */
	RBT_EXPECT(k >= 1 && k <= 2,
		   "reserves accepted in one context: expected 1 or 2, got %d", k);

	ring_buffer_nest_start(b);
	len = rbt_rec_make(buf, RBT_SRC_TASK, k, 3);
	ev = ring_buffer_lock_reserve(b, len);
	if (RBT_EXPECT(ev, "reserve after nest_start refused")) {
		memcpy(ring_buffer_event_data(ev), buf, len);
		ring_buffer_unlock_commit(b);
	}
	ring_buffer_nest_end(b);
	for (i = 0; i < k; i++)
		ring_buffer_unlock_commit(b);

	RBT_ERR("write after the guard released", 0,
		rbt_emit(b, RBT_SRC_TASK, k + 1, 5, false));
	rbt_drain(b, rbt.cpu, &d);
	RBT_EQ("events read", k + 2, d.count);
	RBT_EQ("first seq", 0, d.first_seq);
	RBT_EQ("sequence gaps", 0, d.gaps);
	ring_buffer_free(b);
	return rbt_verdict();
}

/* ---- the multi-CPU hammer ---- */

#define RBT_HAMMER_MS	3000

static void rbt_hammer_check(struct trace_buffer *b, int c,
			     struct rbt_worker *w, struct rbt_drain *d)
{
	unsigned long entries = ring_buffer_entries_cpu(b, c);
	unsigned long over = ring_buffer_overrun_cpu(b, c);
	u64 live = d->count;

	pr_info("# %s: cpu %d: written %llu, read live %llu, left %lu, overrun %lu, refused %llu\n",
		rbt.name, c, w->seq, live, entries, over, w->failed);
	RBT_EXPECT(w->seq > 0, "cpu %d wrote nothing", c);
	RBT_EQ("written == read + entries + overrun", w->seq, live + entries + over);
	RBT_EQ("refused == dropped + commit_overrun", w->failed,
	       ring_buffer_dropped_events_cpu(b, c) +
	       ring_buffer_commit_overrun_cpu(b, c));
	rbt_drain(b, c, d);
	RBT_EQ("events left", entries, d->count - live);
	RBT_EQ("read_events_cpu", d->count, ring_buffer_read_events_cpu(b, c));
	RBT_EQ("newest seq kept", w->seq - 1, d->last_seq);
	RBT_EQ("missing seqs == overrun", over, d->first_seq + d->gaps);
	RBT_EXPECT(d->lost <= over, "cpu %d: lost reported %llu > overrun %lu",
		   c, d->lost, over);
}

static void rbt_hammer_read(struct trace_buffer *b, struct rbt_drain *d)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(RBT_HAMMER_MS);
	u64 got;
	int c;

	while (time_before(jiffies, deadline) && !rbt.nr_fail) {
		got = 0;
		for_each_online_cpu(c)
			got += rbt_drain_n(b, c, &d[c], 256);
		cond_resched();
		if (!got)
			usleep_range(50, 100);
	}
}

static enum rbt_result rbt_test_hammer(void)
{
	struct rbt_worker *w;
	struct rbt_drain *d;
	struct trace_buffer *b;
	int c;

	w = kcalloc(nr_cpu_ids, sizeof(*w), GFP_KERNEL);
	d = kcalloc(nr_cpu_ids, sizeof(*d), GFP_KERNEL);
	b = rbt_alloc(RBT_PAGES, true);
	if (!RBT_EXPECT(w && d && b, "no memory"))
		goto out;
	for_each_online_cpu(c) {
		w[c].buffer = b;
		w[c].reserve = true;
		d[c].src = c;
		if (!RBT_EXPECT(!rbt_worker_start(&w[c], c, rbt_writer_fn),
				"kthread_create failed"))
			w[c].buffer = NULL;
	}
	rbt_hammer_read(b, d);
	for_each_online_cpu(c)
		if (w[c].buffer)
			rbt_worker_stop(&w[c]);
	for_each_online_cpu(c)
		if (w[c].buffer)
			rbt_hammer_check(b, c, &w[c], &d[c]);
out:
	if (b)
		ring_buffer_free(b);
	kfree(d);
	kfree(w);
	return rbt_verdict();
}

/* ---- the runner ---- */

/* ---- a persistent buffer across a simulated reboot ---- */

static struct trace_buffer *rbt_range_boot(void *range, unsigned long size)
{
	return ring_buffer_alloc_range(0, RB_FL_OVERWRITE, 0,
				       (unsigned long)range, size);
}

static enum rbt_result rbt_test_persistent(void)
{
	unsigned long size = (1 + 16 * nr_cpu_ids) * PAGE_SIZE, ff;
	struct rbt_drain d = { .src = RBT_SRC_TASK };
	struct trace_buffer *b;
	void *range;

	range = vzalloc(size);
	if (!RBT_EXPECT(range, "vzalloc of %lu bytes failed", size))
		return RBT_FAIL;
	b = rbt_range_boot(range, size);
	if (!RBT_EXPECT(b, "ring_buffer_alloc_range failed"))
		goto out;
	RBT_EQ("writes accepted", 50, rbt_flood(b, 0, 50, &ff));
	ring_buffer_free(b);

	/* "Reboot": the events come back, in order. */
	b = rbt_range_boot(range, size);
	if (!RBT_EXPECT(b, "ring_buffer_alloc_range failed after a free"))
		goto out;
	rbt_drain(b, rbt.cpu, &d);
	RBT_EQ("events kept", 50, d.count);
	RBT_EQ("first event kept", 0, d.first_seq);
	RBT_EQ("last event kept", 49, d.last_seq);
	RBT_EQ("writes accepted after the reboot", 5, rbt_flood(b, 50, 5, &ff));
	ring_buffer_reset(b);
	ring_buffer_free(b);

	/* A reset one is empty on the next boot. */
	b = rbt_range_boot(range, size);
	if (!RBT_EXPECT(b, "ring_buffer_alloc_range failed after a reset"))
		goto out;
	RBT_EXPECT(ring_buffer_empty(b), "events came back after a reset");
	RBT_EQ("writes accepted", 20, rbt_flood(b, 0, 20, &ff));
	ring_buffer_free(b);

	/* Garbage where the bookkeeping was: empty, recording again. */
	memset(range, 0xa5, PAGE_SIZE);
	b = rbt_range_boot(range, size);
	if (!RBT_EXPECT(b, "ring_buffer_alloc_range failed on garbage"))
		goto out;
	RBT_EXPECT(ring_buffer_empty(b), "events kept from a broken range");
	RBT_EQ("writes accepted", 3, rbt_flood(b, 0, 3, &ff));
	ring_buffer_free(b);
out:
	vfree(range);
	return rbt_verdict();
}

static const struct rbt_case rbt_cases[] = {
	{ "event_sizes",		rbt_test_event_sizes },
	{ "time_extend",		rbt_test_time_extend },
	{ "abs_timestamps",		rbt_test_abs_timestamps },
	{ "discard",			rbt_test_discard },
	{ "nested_irq_work",		rbt_test_nested_irq_work },
	{ "nested_ipi",			rbt_test_nested_ipi },
	{ "overwrite_wrap",		rbt_test_overwrite_wrap },
	{ "producer_consumer",		rbt_test_producer_consumer },
	{ "iterator",			rbt_test_iterator },
	{ "iterator_concurrent",	rbt_test_iterator_concurrent },
	{ "read_page",			rbt_test_read_page },
	{ "resize_live",		rbt_test_resize_live },
	{ "swap_cpu",			rbt_test_swap_cpu },
	{ "subbuf_order",		rbt_test_subbuf_order },
	{ "record_on_off",		rbt_test_record_on_off },
	{ "reset_empty",		rbt_test_reset_empty },
	{ "counters",			rbt_test_counters },
	{ "bad_cpu",			rbt_test_bad_cpu },
	{ "recursion_nest",		rbt_test_recursion_nest },
	{ "persistent",			rbt_test_persistent },
	{ "hammer",			rbt_test_hammer },
};

static enum rbt_result rbt_run_case(const struct rbt_case *tc, int nr)
{
	enum rbt_result res;
	ktime_t start;

	rbt.name = tc->name;
	rbt.nr_fail = 0;
	rbt.first[0] = '\0';
	rbt.skip[0] = '\0';
	start = ktime_get();
	res = tc->run();
	if (res == RBT_PASS && rbt.nr_fail)
		res = RBT_FAIL;
	pr_info("# %s: %lld ms\n", tc->name, ktime_ms_delta(ktime_get(), start));
	if (res == RBT_SKIP)
		pr_info("ok %d %s # SKIP %s\n", nr, tc->name, rbt.skip);
	else if (res == RBT_PASS)
		pr_info("ok %d %s\n", nr, tc->name);
	else
		pr_info("not ok %d %s # %s\n", nr, tc->name, rbt.first);
	return res;
}

static void rbt_run_all(struct rbt_worker *self)
{
	int i, passed = 0, failed = 0;
	ktime_t start = ktime_get();
	enum rbt_result res;

	pr_info("KTAP version 1\n");
	pr_info("# Subtest: ring_buffer_selftest\n");
	pr_info("1..%zu\n", ARRAY_SIZE(rbt_cases));
	for (i = 0; i < ARRAY_SIZE(rbt_cases); i++) {
		res = rbt_run_case(&rbt_cases[i], i + 1);
		if (res == RBT_PASS)
			passed++;
		else if (res == RBT_FAIL)
			failed++;
	}
	pr_info("# elapsed %lld ms\n", ktime_ms_delta(ktime_get(), start));
	pr_info("# ring_buffer_selftest: %d passed, %d failed\n", passed, failed);
}

static int __init rbt_init(void)
{
	struct rbt_worker runner = { };

	rbt.cpu = cpumask_first(cpu_online_mask);
	rbt.other = cpumask_next(rbt.cpu, cpu_online_mask);
	if (rbt.other >= nr_cpu_ids)
		rbt.other = -1;
	if (rbt_worker_start(&runner, rbt.cpu, rbt_run_all)) {
		pr_info("KTAP version 1\n");
		pr_info("# Subtest: ring_buffer_selftest\n");
		pr_info("1..1\n");
		pr_info("not ok 1 setup # cannot create the test thread\n");
		pr_info("# ring_buffer_selftest: 0 passed, 1 failed\n");
		return 0;
	}
	wait_for_completion(&runner.done);
	return 0;
}
late_initcall(rbt_init);
