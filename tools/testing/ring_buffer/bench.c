// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmarks of one ring_buffer.c (ours or stock, same shims, -O2).
 *
 *   rbbench write LEN N       N writes of LEN bytes (callgrind counts them)
 *   rbbench wc LEN N          N x (write one, consume one)
 *   rbbench page N            N sub-buffers filled, then read with read_page
 *   rbbench rate1 SECS        events/s: one writer, one concurrent reader
 *   rbbench ratemap SECS      events/s: one writer, a reader of the mapping
 *   rbbench ratepc SECS       events/s: one writer per core, no reader
 *
 * The counted part is bracketed with CALLGRIND_TOGGLE_COLLECT, so under
 * "valgrind --tool=callgrind --collect-atstart=no" the totals are the
 * instructions of the measured loop only.  The clock is a counter, so
 * the instruction counts are deterministic.
 */
#include "rb_test.h"

#include <time.h>
#include <valgrind/callgrind.h>

static u64 b_now;

static u64 b_clock(void)
{
	return b_now += 7;
}

static struct trace_buffer *b_alloc(unsigned long size)
{
	struct trace_buffer *b = ring_buffer_alloc(size, RB_FL_OVERWRITE);

	if (!b) {
		fprintf(stderr, "alloc failed\n");
		exit(1);
	}
	ring_buffer_set_clock(b, b_clock);
	return b;
}

static void b_fill(struct trace_buffer *b, int len, long n)
{
	u8 data[256] = { 1, 2, 3 };

	for (long i = 0; i < n; i++)
		ring_buffer_write(b, len, data);
}

static int b_write(int len, long n)
{
	struct trace_buffer *b = b_alloc(64 * PAGE_SIZE);

	b_fill(b, len, 100000);		/* warm: wrapped, steady state */
	CALLGRIND_TOGGLE_COLLECT;
	b_fill(b, len, n);
	CALLGRIND_TOGGLE_COLLECT;
	ring_buffer_free(b);
	return 0;
}

static int b_write_consume(int len, long n)
{
	struct trace_buffer *b = b_alloc(64 * PAGE_SIZE);
	u8 data[256] = { 1 };
	long got = 0;

	for (long i = 0; i < 1000; i++) {
		ring_buffer_write(b, len, data);
		ring_buffer_consume(b, 0, NULL, NULL);
	}
	CALLGRIND_TOGGLE_COLLECT;
	for (long i = 0; i < n; i++) {
		ring_buffer_write(b, len, data);
		got += ring_buffer_consume(b, 0, NULL, NULL) != NULL;
	}
	CALLGRIND_TOGGLE_COLLECT;
	ring_buffer_free(b);
	return got == n ? 0 : 1;
}

static int b_page(long n)
{
	struct trace_buffer *b = b_alloc((n + 8) * PAGE_SIZE);
	struct buffer_data_read_page *rp = NULL;
	long pages = 0;

	if (ring_buffer_alloc_read_page(b, 0, &rp))
		return 1;
	/* 24-byte events: about 146 per sub-buffer */
	b_fill(b, 24, n * 146);
	CALLGRIND_TOGGLE_COLLECT;
	while (pages < n && ring_buffer_read_page(b, rp, PAGE_SIZE, 0, 1) >= 0)
		pages++;
	CALLGRIND_TOGGLE_COLLECT;
	ring_buffer_free_read_page(b, 0, rp);
	ring_buffer_free(b);
	return pages >= n - 2 ? 0 : 1;
}

static double b_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct {
	struct trace_buffer *b;
	volatile int stop;
	unsigned long written[4], consumed;
	int map_err;
} R;

static void *b_writer(void *arg)
{
	u8 data[64] = { 5 };
	unsigned long n = 0;

	(void)arg;
	while (!R.stop) {
		for (int i = 0; i < 256; i++)
			n += ring_buffer_write(R.b, 24, data) == 0;
	}
	R.written[smp_processor_id()] = n;
	return NULL;
}

static void *b_reader(void *arg)
{
	unsigned long n = 0;

	(void)arg;
	while (!R.stop)
		n += ring_buffer_consume(R.b, 0, NULL, NULL) != NULL;
	R.consumed = n;
	return NULL;
}

/*
 * Data events in [from, to) of a sub-buffer's data, as user space walks
 * them; an event counts if its payload starts as b_writer() wrote it.
 */
static unsigned long b_walk(const u8 *data, u32 from, u32 to)
{
	unsigned long n = 0;
	u32 hdr, len;

	while (from + 4 <= to) {
		memcpy(&hdr, data + from, 4);
		switch (hdr & 31) {
		case RINGBUF_TYPE_PADDING:
			if (!(hdr >> 5))
				return n;
			memcpy(&len, data + from + 4, 4);
			len += 4;
			break;
		case RINGBUF_TYPE_TIME_EXTEND:
		case RINGBUF_TYPE_TIME_STAMP:
			len = 8;
			break;
		case 0:
			memcpy(&len, data + from + 4, 4);
			n += data[from + 8] == 5;
			len += 4;
			break;
		default:
			n += data[from + 4] == 5;
			len = (hdr & 31) * 4 + 4;
			break;
		}
		from += len;
	}
	return n;
}

/*
 * The reader of CPU 0's mapping, as user space runs one: GET_READER, then
 * the events of the reader sub-buffer not counted yet, from where the
 * last walk ended (0 for a new id) to reader.read, through the mapping.
 */
static void *b_map_reader(void *arg)
{
	struct t_map m;
	struct trace_buffer_meta *meta;
	unsigned long n = 0;
	u32 id = 0, pos = 0, rd;
	const u8 *page;

	(void)arg;
	if (t_map(&m, R.b, 0)) {
		R.map_err = 1;
		return NULL;
	}
	meta = t_map_meta(&m);
	while (!R.stop) {
		if (ring_buffer_map_get_reader(R.b, 0)) {
			R.map_err = 1;
			break;
		}
		rd = READ_ONCE(meta->reader.read);
		if (READ_ONCE(meta->reader.id) != id || rd < pos) {
			id = READ_ONCE(meta->reader.id);
			pos = 0;
		}
		/* order 0: a sub-buffer is one page */
		page = sim_vm_addr(&m.vma, t_map_subbuf_off(&m, id));
		if (!page) {
			R.map_err = 1;
			break;
		}
		n += b_walk(page + T_SB_HDR, pos, rd);
		pos = rd;
	}
	/* every event GET_READER handed over was counted, once */
	if (n != ring_buffer_read_events_cpu(R.b, 0))
		R.map_err = 1;
	R.consumed = n;
	t_unmap(&m);
	return NULL;
}

static int b_rate(void *(*reader)(void *), int writers, double secs)
{
	struct sim_thread th[4] = { { 0 } };
	unsigned long total = 0;
	int readers = !!reader;
	double t0;

	memset(&R, 0, sizeof(R));
	R.b = ring_buffer_alloc(256 * PAGE_SIZE, RB_FL_OVERWRITE);
	if (!R.b)
		return 1;
	t0 = b_secs();
	for (int i = 0; i < writers; i++)
		sim_thread_start(&th[i], i, b_writer, NULL);
	if (readers)
		sim_thread_start(&th[writers], writers, reader, NULL);
	usleep(secs * 1e6);
	R.stop = 1;
	for (int i = 0; i < writers + readers; i++)
		sim_thread_join(&th[i]);
	t0 = b_secs() - t0;
	for (int i = 0; i < writers; i++)
		total += R.written[i];
	ring_buffer_free(R.b);
	if (R.map_err) {
		fprintf(stderr, "mapped reader failed or miscounted\n");
		return 1;
	}
	printf("%.0f %.0f\n", total / t0, R.consumed / t0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: see bench.c\n");
		return 2;
	}
	sim_init(4);
	/* no simulated-CPU exclusion: bench runs no resize/reset under load */
	sim_set_exclusive(0);
	if (!strcmp(argv[1], "write") && argc == 4)
		return b_write(atoi(argv[2]), atol(argv[3]));
	if (!strcmp(argv[1], "wc") && argc == 4)
		return b_write_consume(atoi(argv[2]), atol(argv[3]));
	if (!strcmp(argv[1], "page"))
		return b_page(atol(argv[2]));
	if (!strcmp(argv[1], "rate1"))
		return b_rate(b_reader, 1, atof(argv[2]));
	if (!strcmp(argv[1], "ratemap"))
		return b_rate(b_map_reader, 1, atof(argv[2]));
	if (!strcmp(argv[1], "ratepc"))
		return b_rate(NULL, 2, atof(argv[2]));
	fprintf(stderr, "unknown mode %s\n", argv[1]);
	return 2;
}
