// SPDX-License-Identifier: GPL-2.0
/*
 * rb-map: read one CPU's ring buffer through the user-space mapping of
 * per_cpu/cpuN/trace_pipe_raw and check it against trace_marker lines
 * written on that CPU.  Built static into the guest's initramfs
 * (initramfs-map.sh); run by the map_* guest checks (guest/map.sh).
 *
 *   rb-map read DIR CPU N        N markers, read once each and in order
 *                                through the mapping, half of them
 *                                written while the reader runs; the meta
 *                                page's counters checked after every
 *                                TRACE_MMAP_IOCTL_GET_READER
 *   rb-map resize DIR CPU        buffer_size_kb (all CPUs and this one)
 *                                and buffer_subbuf_size_kb refused with
 *                                EBUSY while mapped, accepted after
 *   rb-map unmapped DIR CPU N    map, read, unmap; then N markers come
 *                                out of read() of trace_pipe_raw
 *   rb-map concurrent DIR CPU N  N markers read through the mapping while
 *                                another reader consumes the same CPU
 *                                (trace_pipe, started by the caller):
 *                                counters only, as events go to either
 *
 * DIR is a tracefs instance (or the top level) whose buffer holds nothing
 * but these markers.  Exit status 0 when every assertion held; otherwise
 * 1 with the reason on the last line of stdout ("rb-map: FAIL: ...").
 * Lines starting with "# " are notes for the test log.
 *
 * The mapping (include/uapi/linux/trace_mmap.h): file offset 0 is the meta
 * page (struct trace_buffer_meta, meta_page_size bytes), then nr_subbufs
 * sub-buffers of subbuf_size bytes; sub-buffer k at meta_page_size +
 * k * subbuf_size.  A sub-buffer starts with a u64 time stamp and a long
 * commit word (low 20 bits: bytes of events, bit 31: events were lost
 * before it, bit 30: their count follows the events), then the events.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <linux/trace_mmap.h>

/* The sub-buffer header: u64 time stamp, then the commit word (a long). */
#define SUBBUF_HDR	(sizeof(uint64_t) + sizeof(long))
#define COMMIT_BYTES	0xfffffUL
#define COMMIT_MISSED	0x80000000UL

/* The event header's type_len values beyond data. */
#define TYPE_DATA_MAX	28
#define TYPE_PADDING	29
#define TYPE_TIME_EXT	30
#define TYPE_TIME_STAMP	31

/* A print entry: struct trace_entry (8 bytes), unsigned long ip, text. */
#define PRINT_TEXT	(8 + sizeof(unsigned long))

#define PREFIX		"rbmap-"

#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define __noreturn	__attribute__((noreturn))

static const char *dir;
static int cpu;

static void __noreturn __printf(1, 2) fail(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	printf("rb-map: FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(1);
}

static void __printf(1, 2) note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pin(int c)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(c, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		fail("sched_setaffinity to CPU %d: %s", c, strerror(errno));
}

/* path_of NAME: DIR/NAME, in a static buffer. */
static const char *path_of(const char *name)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

/* write_file: write TEXT to DIR/NAME; 0 or the errno. */
static int write_file(const char *name, const char *text)
{
	int fd = open(path_of(name), O_WRONLY | O_TRUNC);
	int err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, text, strlen(text)) < 0)
		err = errno;
	close(fd);
	return err;
}

/* read_long: the first number in DIR/NAME. */
static long read_long(const char *name)
{
	FILE *f = fopen(path_of(name), "r");
	long v;

	if (!f)
		fail("cannot open %s: %s", path_of(name), strerror(errno));
	if (fscanf(f, "%ld", &v) != 1)
		fail("no number in %s", path_of(name));
	fclose(f);
	return v;
}

/* stat_field: a "NAME: value" line of per_cpu/cpuN/stats. */
static long stat_field(const char *field)
{
	char name[64], line[256];
	size_t len = strlen(field);
	FILE *f;
	long v = -1;

	snprintf(name, sizeof(name), "per_cpu/cpu%d/stats", cpu);
	f = fopen(path_of(name), "r");
	if (!f)
		fail("cannot open %s: %s", path_of(name), strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, field, len) && line[len] == ':') {
			v = strtol(line + len + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	if (v < 0)
		fail("no '%s' in %s", field, path_of(name));
	return v;
}

static int print_id;		/* the type of print entries */
static int marker_fd = -1;

/* marker: write PREFIX<n> into DIR/trace_marker. */
static void marker(long n)
{
	char buf[32];
	int len = snprintf(buf, sizeof(buf), PREFIX "%ld\n", n);

	if (write(marker_fd, buf, len) != len)
		fail("trace_marker write %ld: %s", n, strerror(errno));
}

/* open_markers: the print event's type (from its format) and trace_marker. */
static void open_markers(void)
{
	const char *fmt = "/sys/kernel/tracing/events/ftrace/print/format";
	FILE *f = fopen(fmt, "r");
	char line[256];

	if (!f)
		fail("cannot open %s: %s", fmt, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ID: %d", &print_id) == 1)
			break;
	fclose(f);
	if (print_id <= 0)
		fail("no ID in %s", fmt);
	marker_fd = open(path_of("trace_marker"), O_WRONLY);
	if (marker_fd < 0)
		fail("cannot open %s: %s", path_of("trace_marker"),
		     strerror(errno));
}

/* ------------------------------------------------------------------------ */
/* The mapping. */

struct rbmap {
	int fd;
	struct trace_buffer_meta *meta;
	size_t meta_len;
	char *data;
	size_t data_len;
};

static int open_raw(int flags)
{
	char name[64];
	int fd;

	snprintf(name, sizeof(name), "per_cpu/cpu%d/trace_pipe_raw", cpu);
	fd = open(path_of(name), O_RDONLY | flags);
	if (fd < 0)
		fail("cannot open %s: %s", path_of(name), strerror(errno));
	return fd;
}

/*
 * map_cpu: map the meta page (one page first, then all of meta_page_size),
 * check its fields against the buffer's files, then map every sub-buffer.
 */
static void map_cpu(struct rbmap *m)
{
	long page = sysconf(_SC_PAGESIZE), kb, subbuf_kb, capacity;
	struct trace_buffer_meta *meta;
	char name[64];
	void *p;

	m->fd = open_raw(O_NONBLOCK);
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, m->fd, 0);
	if (p == MAP_FAILED)
		fail("mmap of the meta page: %s", strerror(errno));
	meta = p;
	m->meta_len = meta->meta_page_size;
	if (m->meta_len < (size_t)page || m->meta_len % page)
		fail("meta_page_size %zu is not a multiple of the %ld-byte page",
		     m->meta_len, page);
	munmap(p, page);
	p = mmap(NULL, m->meta_len, PROT_READ, MAP_SHARED, m->fd, 0);
	if (p == MAP_FAILED)
		fail("mmap of the %zu-byte meta page: %s", m->meta_len,
		     strerror(errno));
	meta = p;
	m->meta = meta;

	subbuf_kb = read_long("buffer_subbuf_size_kb");
	snprintf(name, sizeof(name), "per_cpu/cpu%d/buffer_size_kb", cpu);
	kb = read_long(name);
	if (meta->meta_struct_len != sizeof(*meta))
		fail("meta_struct_len %u, want %zu", meta->meta_struct_len,
		     sizeof(*meta));
	if ((long)meta->subbuf_size != subbuf_kb * 1024)
		fail("subbuf_size %u, buffer_subbuf_size_kb is %ld",
		     meta->subbuf_size, subbuf_kb);
	if (meta->meta_page_size != meta->subbuf_size)
		fail("meta_page_size %u, subbuf_size %u", meta->meta_page_size,
		     meta->subbuf_size);
	/* buffer_size_kb counts the ring's sub-buffers, less their headers. */
	capacity = (long)(meta->nr_subbufs - 1) *
		   (long)(meta->subbuf_size - SUBBUF_HDR) / 1024;
	if (meta->nr_subbufs < 3 || capacity != kb)
		fail("nr_subbufs %u of %u bytes (%ld KiB of data in the ring), but buffer_size_kb is %ld",
		     meta->nr_subbufs, meta->subbuf_size, capacity, kb);
	if (meta->reader.id >= meta->nr_subbufs)
		fail("reader.id %u, nr_subbufs %u", meta->reader.id,
		     meta->nr_subbufs);
	if (meta->flags)
		fail("meta flags %llu, want 0", (unsigned long long)meta->flags);

	m->data_len = (size_t)meta->subbuf_size * meta->nr_subbufs;
	p = mmap(NULL, m->data_len, PROT_READ, MAP_SHARED, m->fd, m->meta_len);
	if (p == MAP_FAILED)
		fail("mmap of %u sub-buffers: %s", meta->nr_subbufs,
		     strerror(errno));
	m->data = p;
	note("mapped cpu%d: %u sub-buffers of %u bytes, meta page %u bytes, reader id %u",
	     cpu, meta->nr_subbufs, meta->subbuf_size, meta->meta_page_size,
	     meta->reader.id);
}

static void unmap_cpu(struct rbmap *m)
{
	if (munmap(m->data, m->data_len) || munmap(m->meta, m->meta_len))
		fail("munmap: %s", strerror(errno));
	close(m->fd);
}

static const unsigned char *subbuf(struct rbmap *m, unsigned int id)
{
	return (const unsigned char *)m->data + (size_t)id * m->meta->subbuf_size;
}

/* The commit word of sub-buffer ID, read once (the writer may move it). */
static unsigned long subbuf_commit(struct rbmap *m, unsigned int id)
{
	const long *commit = (const long *)(subbuf(m, id) + sizeof(uint64_t));

	return (unsigned long)__atomic_load_n(commit, __ATOMIC_ACQUIRE);
}

static void get_reader(struct rbmap *m)
{
	if (ioctl(m->fd, TRACE_MMAP_IOCTL_GET_READER) < 0)
		fail("TRACE_MMAP_IOCTL_GET_READER: %s", strerror(errno));
	if (m->meta->reader.id >= m->meta->nr_subbufs)
		fail("reader.id %u, nr_subbufs %u", m->meta->reader.id,
		     m->meta->nr_subbufs);
	if (m->meta->read + m->meta->overrun > m->meta->entries)
		fail("meta read %llu + overrun %llu > entries %llu",
		     (unsigned long long)m->meta->read,
		     (unsigned long long)m->meta->overrun,
		     (unsigned long long)m->meta->entries);
}

/* ------------------------------------------------------------------------ */
/* Events. */

struct reader {
	unsigned int id;	/* the sub-buffer being read */
	unsigned long off;	/* bytes of its events already parsed */
	unsigned long events;	/* data events parsed, in all */
	long next;		/* the marker number expected next */
	int strict;		/* every event must be the next marker */
	unsigned long others;	/* events that were not our markers */
	unsigned long torn;	/* views that could not be parsed */
};

#define BROKEN	(~0UL)
static char why[256];

/* broken: keep the reason why events cannot be parsed; BROKEN. */
static unsigned long __printf(1, 2) broken(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return BROKEN;
}

/*
 * parse_events: the events of DATA between FROM (an event boundary) and
 * TO.  Returns the offset reached: TO, or the end of a padding event that
 * fills the rest of the sub-buffer; BROKEN when they cannot be parsed.
 * Every data event must be a marker, the next in order, when strict.
 */
static unsigned long parse_events(struct reader *r,
				  const unsigned char *data,
				  unsigned long from, unsigned long to)
{
	unsigned long off = from, size, plen;
	const unsigned char *payload;
	unsigned int type_len;
	__u32 hdr, len;
	__u16 type;
	char *end;
	long n;

	while (off < to) {
		if (to - off < sizeof(hdr))
			return broken("sub-buffer %u: a %lu-byte event header at %lu",
			     r->id, to - off, off);
		memcpy(&hdr, data + off, sizeof(hdr));
		type_len = hdr & 0x1f;
		if (type_len == TYPE_PADDING && !(hdr >> 5))
			return to;
		if (type_len == 0 || type_len >= TYPE_PADDING) {
			if (to - off < 8)
				return broken("sub-buffer %u: event type %u cut at %lu",
				     r->id, type_len, off);
			memcpy(&len, data + off + 4, sizeof(len));
		}
		switch (type_len) {
		case 0:
			/* array[0] counts itself and the payload. */
			if (len < 4)
				return broken("sub-buffer %u: length word %u at %lu",
				     r->id, len, off);
			size = 4 + (unsigned long)len;
			payload = data + off + 8;
			plen = len - 4;
			break;
		case TYPE_PADDING:
			size = 4 + (unsigned long)len;
			payload = NULL;
			plen = 0;
			break;
		case TYPE_TIME_EXT:
		case TYPE_TIME_STAMP:
			size = 8;
			payload = NULL;
			plen = 0;
			break;
		default:
			size = 4 + 4 * type_len;
			payload = data + off + 4;
			plen = 4 * type_len;
			break;
		}
		if (size > to - off)
			return broken("sub-buffer %u: a %lu-byte event (type %u) at %lu passes the end %lu",
			     r->id, size, type_len, off, to);
		off += size;
		if (!payload)
			continue;
		r->events++;
		memcpy(&type, payload, sizeof(type));
		if (type != print_id || plen <= PRINT_TEXT ||
		    !memchr(payload + PRINT_TEXT, '\0', plen - PRINT_TEXT) ||
		    strncmp((const char *)payload + PRINT_TEXT, PREFIX,
			    strlen(PREFIX))) {
			if (r->strict)
				return broken("sub-buffer %u: event %lu (type %u, %lu bytes) is not a marker",
				     r->id, r->events, type, plen);
			r->others++;
			continue;
		}
		n = strtol((const char *)payload + PRINT_TEXT + strlen(PREFIX),
			   &end, 10);
		if (*end != '\n' && *end != '\0')
			return broken("sub-buffer %u: marker text '%.20s'", r->id,
			     (const char *)payload + PRINT_TEXT);
		if (r->strict && n != r->next)
			return broken("sub-buffer %u: marker %ld where %ld was due", r->id,
			     n, r->next);
		r->next = n + 1;
	}
	return off;
}

/*
 * parse: parse_events, which must succeed when strict; otherwise (another
 * reader may take the sub-buffer away meanwhile) a view that cannot be
 * parsed is counted and skipped.
 */
static unsigned long parse(struct reader *r, const unsigned char *data,
			   unsigned long from, unsigned long to)
{
	unsigned long off = parse_events(r, data, from, to);

	if (off != BROKEN)
		return off;
	if (r->strict)
		fail("%s", why);
	r->torn++;
	return to;
}

/* live: parse what the writer added to the reader's sub-buffer so far. */
static unsigned long live(struct rbmap *m, struct reader *r)
{
	unsigned long commit = subbuf_commit(m, r->id) & COMMIT_BYTES;
	unsigned long before = r->events;

	if (commit > m->meta->subbuf_size - SUBBUF_HDR)
		fail("sub-buffer %u: commit %lu beyond its %lu bytes", r->id,
		     commit, (unsigned long)(m->meta->subbuf_size - SUBBUF_HDR));
	if (commit > r->off)
		r->off = parse(r, subbuf(m, r->id) + SUBBUF_HDR, r->off, commit);
	return r->events - before;
}

/*
 * advance: GET_READER, then parse the reader sub-buffer up to reader.read
 * (what the kernel now counts as read).  When strict, the meta page's read
 * counter must then equal the events parsed.  Not strict, another reader
 * may have taken the sub-buffer away right after the ioctl: its commit
 * may then be reset, only reader.read bounds what is parsed.
 */
static void advance(struct rbmap *m, struct reader *r)
{
	const struct trace_buffer_meta *meta = m->meta;
	unsigned long commit, rd;

	get_reader(m);
	if (meta->reader.id != r->id) {
		r->id = meta->reader.id;
		r->off = 0;
		commit = subbuf_commit(m, r->id);
		if ((commit & COMMIT_MISSED) && r->strict)
			fail("sub-buffer %u: commit 0x%lx says events were lost",
			     r->id, commit);
	}
	rd = meta->reader.read;
	if (rd > m->meta->subbuf_size - SUBBUF_HDR)
		fail("reader.read %lu beyond the %lu bytes of a sub-buffer", rd,
		     (unsigned long)(m->meta->subbuf_size - SUBBUF_HDR));
	commit = subbuf_commit(m, r->id) & COMMIT_BYTES;
	if (r->strict && rd > commit)
		fail("reader.read %lu beyond the %lu bytes of sub-buffer %u",
		     rd, commit, r->id);
	if (rd < r->off) {
		if (r->strict)
			fail("reader.read %lu behind the %lu bytes of sub-buffer %u already read",
			     rd, r->off, r->id);
		r->torn++;
		r->off = rd;
	}
	if (rd > r->off)
		r->off = parse(r, subbuf(m, r->id) + SUBBUF_HDR, r->off, rd);
	if (r->strict && meta->read != r->events)
		fail("meta read %llu after GET_READER, %lu events in the sub-buffers it handed out",
		     (unsigned long long)meta->read, r->events);
	if (meta->reader.lost_events && r->strict)
		fail("reader.lost_events %llu",
		     (unsigned long long)meta->reader.lost_events);
}

/*
 * catch_up: GET_READER and parse until marker LAST (written already) is
 * read.  Markers that went on to the next sub-buffer take one GET_READER
 * more: the first only marks the rest of the held sub-buffer read.
 */
static void catch_up(struct rbmap *m, struct reader *r, long last)
{
	unsigned int tries = 0;

	while (r->next <= last && tries++ <= m->meta->nr_subbufs) {
		advance(m, r);
		live(m, r);
	}
	if (r->next != last + 1)
		fail("read up to marker %ld, written up to %ld", r->next - 1,
		     last);
}

/* drain: GET_READER and parse until nothing new comes for a while. */
static void drain(struct rbmap *m, struct reader *r, long want)
{
	double t0 = now();

	while (r->next <= want || r->events == 0) {
		unsigned long before = r->events;

		advance(m, r);
		live(m, r);
		if (r->events != before)
			t0 = now();
		if (now() - t0 > 20)
			break;
		usleep(1000);
	}
}

/* writer: a child pinned to the CPU writes markers FIRST..LAST. */
static pid_t writer(long first, long last)
{
	pid_t pid = fork();

	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid)
		return pid;
	pin(cpu);
	for (long n = first; n <= last; n++) {
		marker(n);
		/* Let the reader run in between, now and then. */
		if (!(n % 16))
			sched_yield();
	}
	_exit(0);
}

/* writer_done: whether the writer has finished; it must have succeeded. */
static int writer_done(pid_t pid)
{
	int status;
	pid_t got = waitpid(pid, &status, WNOHANG);

	if (got == 0)
		return 0;
	if (got != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		fail("the marker writer (pid %d) failed", (int)pid);
	return 1;
}

static void meta_counters(struct rbmap *m, long entries, long read)
{
	const struct trace_buffer_meta *meta = m->meta;

	if ((long)meta->entries != entries || meta->overrun ||
	    (long)meta->read != read)
		fail("meta entries/overrun/read %llu/%llu/%llu, want %ld/0/%ld",
		     (unsigned long long)meta->entries,
		     (unsigned long long)meta->overrun,
		     (unsigned long long)meta->read, entries, read);
}

/* ------------------------------------------------------------------------ */
/* The commands. */

static int cmd_read(long n)
{
	struct reader r = { .next = 1, .strict = 1 };
	const struct trace_buffer_meta *meta;
	long k, half = n / 2, appended = 0;
	struct rbmap m;
	pid_t pid;

	pin(cpu);
	open_markers();
	map_cpu(&m);
	meta = m.meta;
	r.id = meta->reader.id;
	if (meta->entries || meta->overrun || meta->read || meta->reader.read)
		fail("fresh buffer: entries/overrun/read/reader.read %llu/%llu/%llu/%u",
		     (unsigned long long)meta->entries,
		     (unsigned long long)meta->overrun,
		     (unsigned long long)meta->read, meta->reader.read);

	/* An empty buffer: GET_READER returns at once and finds nothing. */
	advance(&m, &r);
	if (live(&m, &r) || r.events)
		fail("events in an empty buffer");

	/*
	 * A few markers, handed out by GET_READER; then more, which the
	 * writer appends to the very sub-buffer the reader holds.
	 */
	for (k = 1; k <= 5; k++)
		marker(k);
	advance(&m, &r);
	live(&m, &r);
	if (r.events != 5)
		fail("%lu of the first 5 markers after GET_READER", r.events);
	meta_counters(&m, 5, 5);
	for (; k <= 8; k++)
		marker(k);
	appended = live(&m, &r);
	if (appended != 3)
		fail("%ld of 3 markers appeared in the reader sub-buffer %u after it was handed out (commit now %lu)",
		     appended, r.id, subbuf_commit(&m, r.id) & COMMIT_BYTES);
	advance(&m, &r);
	meta_counters(&m, 8, 8);
	note("markers 6-8 appeared in reader sub-buffer %u after GET_READER",
	     r.id);

	/* The first half: bursts written here, read in between. */
	while (k <= half) {
		long burst = 1 + k % 37;

		for (; burst-- && k <= half; k++)
			marker(k);
		if (k % 2)
			live(&m, &r);
		catch_up(&m, &r, k - 1);
	}

	/* The second half: a writer on the same CPU while the reader reads. */
	pid = writer(k, n);
	while (!writer_done(pid)) {
		advance(&m, &r);
		live(&m, &r);
		usleep(200);
	}
	if (r.next <= n)
		drain(&m, &r, n);
	if (r.next != n + 1)
		fail("read %ld of %ld markers through the mapping", r.next - 1,
		     n);
	advance(&m, &r);
	meta_counters(&m, n, n);
	if (live(&m, &r))
		fail("events after the last marker");
	if (stat_field("entries") || stat_field("overrun"))
		fail("stats: entries %ld, overrun %ld after reading everything",
		     stat_field("entries"), stat_field("overrun"));
	note("%ld markers read once each and in order through the mapping; meta entries/overrun/read %llu/%llu/%llu, reader id %u of %u",
	     n, (unsigned long long)meta->entries,
	     (unsigned long long)meta->overrun,
	     (unsigned long long)meta->read, meta->reader.id,
	     meta->nr_subbufs);
	unmap_cpu(&m);
	return 0;
}

static int cmd_resize(void)
{
	long kb = read_long("buffer_size_kb"), sub = read_long("buffer_subbuf_size_kb");
	char cpu_kb[64], want[32];
	struct rbmap m;
	unsigned int nr;
	int err;

	snprintf(cpu_kb, sizeof(cpu_kb), "per_cpu/cpu%d/buffer_size_kb", cpu);
	map_cpu(&m);
	nr = m.meta->nr_subbufs;
	snprintf(want, sizeof(want), "%ld", kb * 2);
	err = write_file("buffer_size_kb", want);
	if (err != EBUSY)
		fail("buffer_size_kb %ld -> %s while mapped: %s, want EBUSY", kb,
		     want, err ? strerror(err) : "accepted");
	err = write_file(cpu_kb, want);
	if (err != EBUSY)
		fail("%s %ld -> %s while mapped: %s, want EBUSY", cpu_kb, kb,
		     want, err ? strerror(err) : "accepted");
	snprintf(want, sizeof(want), "%ld", sub * 2);
	err = write_file("buffer_subbuf_size_kb", want);
	if (err != EBUSY)
		fail("buffer_subbuf_size_kb %ld -> %s while mapped: %s, want EBUSY",
		     sub, want, err ? strerror(err) : "accepted");
	if (read_long("buffer_size_kb") != kb || read_long(cpu_kb) != kb ||
	    read_long("buffer_subbuf_size_kb") != sub)
		fail("sizes changed by refused writes: %ld/%ld/%ld, were %ld/%ld/%ld",
		     read_long("buffer_size_kb"), read_long(cpu_kb),
		     read_long("buffer_subbuf_size_kb"), kb, kb, sub);
	if (m.meta->nr_subbufs != nr)
		fail("nr_subbufs %u, was %u", m.meta->nr_subbufs, nr);
	unmap_cpu(&m);

	/* Unmapped, the same resize goes through. */
	snprintf(want, sizeof(want), "%ld", kb * 2);
	err = write_file("buffer_size_kb", want);
	if (err)
		fail("buffer_size_kb -> %s after munmap: %s", want,
		     strerror(err));
	if (read_long(cpu_kb) < kb * 2)
		fail("%s is %ld after resizing to %ld KiB", cpu_kb,
		     read_long(cpu_kb), kb * 2);
	snprintf(want, sizeof(want), "%ld", kb);
	err = write_file("buffer_size_kb", want);
	if (err)
		fail("buffer_size_kb back to %s: %s", want, strerror(err));
	note("resize refused (EBUSY) while cpu%d was mapped, %ld -> %ld KiB done after munmap",
	     cpu, kb, kb * 2);
	return 0;
}

static int cmd_unmapped(long n)
{
	struct reader r = { .next = 1, .strict = 1 };
	unsigned char *buf;
	struct rbmap m;
	size_t size;
	long k, pages = 0;
	ssize_t got;
	int fd;

	pin(cpu);
	open_markers();
	map_cpu(&m);
	size = m.meta->subbuf_size;
	r.id = m.meta->reader.id;
	/* Some markers read through the mapping, then unmap and close. */
	for (k = 1; k <= 10; k++)
		marker(k);
	catch_up(&m, &r, 10);
	unmap_cpu(&m);

	/* The rest through read(), whole sub-buffers in the same layout. */
	for (; k <= n; k++)
		marker(k);
	buf = malloc(size);
	if (!buf)
		fail("out of memory");
	fd = open_raw(O_NONBLOCK);
	for (;;) {
		unsigned long commit;

		got = read(fd, buf, size);
		if (got < 0 && errno == EAGAIN)
			break;
		if (got < 0)
			fail("read of trace_pipe_raw after munmap: %s",
			     strerror(errno));
		if (got == 0)
			break;
		if ((size_t)got != size)
			fail("read of trace_pipe_raw gave %zd bytes, want %zu",
			     got, size);
		memcpy(&commit, buf + sizeof(uint64_t), sizeof(commit));
		commit &= COMMIT_BYTES;
		if (commit > size - SUBBUF_HDR)
			fail("read sub-buffer %ld: commit %lu", pages, commit);
		r.id = pages++;
		parse(&r, buf + SUBBUF_HDR, 0, commit);
	}
	close(fd);
	free(buf);
	if (r.next != n + 1)
		fail("read() of trace_pipe_raw after munmap: markers 11-%ld, got up to %ld",
		     n, r.next - 1);
	note("after munmap, read() of trace_pipe_raw gave markers 11-%ld in %ld sub-buffers",
	     n, pages);
	return 0;
}

static int cmd_concurrent(long n)
{
	struct reader r = { .next = 1, .strict = 0 };
	unsigned long long base_entries, base_read;
	const struct trace_buffer_meta *meta;
	struct rbmap m;
	double t0;
	pid_t pid;

	pin(cpu);
	open_markers();
	map_cpu(&m);
	meta = m.meta;
	r.id = meta->reader.id;
	advance(&m, &r);
	base_entries = meta->entries;
	base_read = meta->read;
	if (base_read + meta->overrun != base_entries)
		fail("unread events before the start: entries %llu, read %llu",
		     base_entries, base_read);

	pid = writer(1, n);
	while (!writer_done(pid)) {
		advance(&m, &r);
		live(&m, &r);
		usleep(500);
	}
	/* Until both readers have taken everything (entries = read). */
	t0 = now();
	do {
		advance(&m, &r);
		live(&m, &r);
		if (meta->read + meta->overrun == meta->entries &&
		    meta->entries == base_entries + n)
			break;
		usleep(10000);
	} while (now() - t0 < 30);
	if (meta->entries != base_entries + n || meta->overrun ||
	    meta->read != meta->entries)
		fail("meta entries/overrun/read %llu/%llu/%llu, want %llu/0/%llu",
		     (unsigned long long)meta->entries,
		     (unsigned long long)meta->overrun,
		     (unsigned long long)meta->read, base_entries + n,
		     base_entries + n);
	if (stat_field("entries") || stat_field("overrun"))
		fail("stats: entries %ld, overrun %ld with both readers done",
		     stat_field("entries"), stat_field("overrun"));
	if (r.others)
		fail("%lu events through the mapping were not markers",
		     r.others);
	note("%ld markers, %lu events seen through the mapping (%lu views cut short), meta entries/overrun/read %llu/%llu/%llu",
	     n, r.events, r.torn, (unsigned long long)meta->entries,
	     (unsigned long long)meta->overrun,
	     (unsigned long long)meta->read);
	unmap_cpu(&m);
	return 0;
}

int main(int argc, char **argv)
{
	long n = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 4)
		goto usage;
	dir = argv[2];
	cpu = atoi(argv[3]);
	if (!strcmp(argv[1], "resize") && argc == 4)
		return cmd_resize();
	if (argc != 5)
		goto usage;
	n = atol(argv[4]);
	if (n < 32)
		goto usage;
	if (!strcmp(argv[1], "read"))
		return cmd_read(n);
	if (!strcmp(argv[1], "unmapped"))
		return cmd_unmapped(n);
	if (!strcmp(argv[1], "concurrent"))
		return cmd_concurrent(n);
usage:
	fprintf(stderr,
		"usage: rb-map read|unmapped|concurrent DIR CPU N (N >= 32)\n"
		"       rb-map resize DIR CPU\n");
	return 2;
}
