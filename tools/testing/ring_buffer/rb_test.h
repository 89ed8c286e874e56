/* SPDX-License-Identifier: GPL-2.0 */
/* Shared declarations of the ring buffer harness tests. */
#ifndef RB_TEST_H
#define RB_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>

#include "rb_kernel.h"
#include <linux/ring_buffer.h>
#include "sim.h"

struct rb_case {
	const char *name;
	int (*fn)(void);
};

#define T_FAIL(fmt, ...) do {						\
	printf("# %s:%d: " fmt "\n", __FILE__, __LINE__, ##__VA_ARGS__);	\
	return 1;							\
} while (0)
/* a case that does not apply to the file under test: KTAP SKIP with the reason */
#define T_SKIP_RET 77
extern const char *t_skip_reason;
#define T_SKIP(why) do { t_skip_reason = (why); return T_SKIP_RET; } while (0)
#define T_ASSERT(c) do { if (!(c)) T_FAIL("assertion failed: %s", #c); } while (0)
#define T_EQ(a, b) do {							\
	long long __a = (long long)(a), __b = (long long)(b);		\
	if (__a != __b)							\
		T_FAIL("%s = %lld, expected %s = %lld", #a, __a, #b, __b); \
} while (0)

extern const struct rb_case rb_unit_cases[];
extern const int rb_nr_unit_cases;
extern const struct rb_case rb_map_cases[];
extern const int rb_nr_map_cases;
extern const struct rb_case rb_attack_cases[];
extern const int rb_nr_attack_cases;
extern const struct rb_case rb_model_cases[];
extern const int rb_nr_model_cases;
extern const struct rb_case rb_range_cases[];
extern const int rb_nr_range_cases;
extern const struct rb_case rb_open_cases[];
extern const int rb_nr_open_cases;
extern const struct rb_case rb_stress_cases[];
extern const int rb_nr_stress_cases;

/* options */
extern int rb_opt_tsan;		/* smaller loads under ThreadSanitizer */
extern double rb_opt_stress_secs;
extern unsigned long rb_opt_stress_events;
extern int rb_opt_keep_going;	/* stress: do not stop at the first failure */

/* a clock the tests drive */
extern u64 t_clock_now;
u64 t_clock(void);
void t_clock_set(u64 v);

/*
 * Sub-buffer header as readers see it: a u64 time stamp, then the commit
 * word, a local_t (a long: 4 bytes on 32-bit, so the data starts at 12).
 */
#define T_SB_HDR (8 + sizeof(long))

/* payload helpers */
void t_fill(void *p, unsigned int len, u32 seed);
int t_check(const void *p, unsigned int len, u32 seed);

/* one event decoded from a raw sub-buffer */
struct t_pevent {
	u64 ts;
	const void *data;
	unsigned int len;	/* payload length as stored (rounded) */
	unsigned int off;	/* where its header starts in the data */
};
/*
 * Decode a sub-buffer of size bytes as handed out by read_page: checks the
 * format rules of the contract; returns the number of events or -1 and
 * prints why.  *missed gets the "events were missed" bit.
 */
int t_parse_page(const void *page, size_t size, struct t_pevent *ev, int max,
		 int *missed);

/* Decode the first commit bytes of a sub-buffer's data, as above. */
int t_parse_data(const void *page, size_t commit, struct t_pevent *ev, int max);

/* The commit word of a sub-buffer header: size, then the lost-events flags. */
#define T_COMMIT_MASK 0xfffffUL
#define T_MISSED_EVENTS (1UL << 31)
#define T_MISSED_STORED (1UL << 30)

/*
 * A CPU's ring mapped into a simulated address space, as the mmap() of
 * trace_pipe_raw does: map and unmap hold the mmap_lock; reads go through
 * the vma's page table (sim_vm_addr()).
 */
#include <uapi/linux/trace_mmap.h>
struct t_map {
	struct trace_buffer *b;
	int cpu;
	struct mm_struct mm;
	struct vm_area_struct vma;
	int live;		/* mapped: t_unmap() undoes it */
};
/* what mmap(PROT_READ, MAP_SHARED) of a file opened for reading gives */
#define T_VM_RO_SHARED (VM_READ | VM_MAYREAD | VM_SHARED | VM_MAYSHARE | VM_MAYWRITE)
int t_map_range(struct t_map *m, struct trace_buffer *b, int cpu, unsigned long nr_pages,
		unsigned long pgoff, unsigned long flags);
/* the whole mapping: meta page and every sub-buffer */
int t_map(struct t_map *m, struct trace_buffer *b, int cpu);
int t_unmap(struct t_map *m);
void t_map_dup(struct t_map *m);
/* sub-buffers in the ring of @cpu, the reader's not counted */
unsigned long t_map_ring_subbufs(struct trace_buffer *b, int cpu);
struct trace_buffer_meta *t_map_meta(const struct t_map *m);
unsigned long t_map_subbuf_off(const struct t_map *m, u32 id);
int t_map_copy(const struct t_map *m, unsigned long off, void *dst, size_t len);
/* the live commit word of sub-buffer @id (~0UL when not mapped) */
unsigned long t_map_commit(const struct t_map *m, u32 id);

/* white-box hooks (rb_wrap.c) */
raw_spinlock_t *t_reader_lock(struct trace_buffer *b, int cpu);
void *t_dropped_counter(struct trace_buffer *b, int cpu);
void t_seq_start(struct trace_buffer *b, int cpu, u64 base);
unsigned long t_room(struct trace_buffer *b, int cpu);
void t_map_ipi(struct trace_buffer *b, int cpu);
unsigned long t_guard_top(struct trace_buffer *b, int cpu);
long t_live_commit_lag(struct trace_buffer *b, int cpu);
u64 t_commit_pos(struct trace_buffer *b, int cpu);
void *t_overrun_counter(struct trace_buffer *b, int cpu);
int t_pages_distinct(struct trace_buffer *b, int cpu);
/* run once in the middle of the file's next memcpy() of 64 bytes or more */
extern void (*t_copy_hook)(void);

/* one input of the persistent-buffer fuzzer (t_range.c) */
int rb_range_fuzz_one(const u8 *data, size_t len);

/* the differential driver (t_diff.c): rbtest --diff SEED[:RUNS[:STEPS]] */
int rb_diff_main(const char *arg);

/* the interleaving matrix (t_matrix.c): rbtest --matrix */
int rb_matrix_main(void);

/* model sequence engine (t_model.c), also driven by the fuzzer */
int rb_model_run(const u8 *data, size_t len, int verbose);

/* A range for persistent buffers: guard page, area, guard page (t_util.c). */
struct t_area {
	u8 *map;
	u8 *start;
	size_t size;
};

int t_area_get(struct t_area *a, size_t pages);
void t_area_put(struct t_area *a);

/*
 * The oracle of the concurrency tests (t_oracle.c).  Writers go through
 * or_write()/or_reserve(): the payload (at least OR_MIN_LEN bytes) names
 * CPU, stream (the writer's context: 0 task, 1 softirq, 2 irq, 3 NMI) and
 * seq; each attempt's outcome is recorded.  Readers go through
 * or_consume(), or_peek(), or_read_page() (or or_parse_page() on a page
 * read by hand), or_iter_pass(): each returns 1 (0 for nothing, -1 for a
 * failure already printed).  or_judge() drains every CPU, accounts for
 * every event and counter, checks nothing is wedged; 0 when all is right.
 */
#define OR_MIN_LEN 8
#define OR_MAX_LEN 8192
enum { OR_NONE, OR_RESERVED, OR_COMMITTED, OR_DISCARDED, OR_REFUSED };
enum { OR_HOW_CONSUME, OR_HOW_PAGE, OR_HOW_ITER, OR_HOW_MAP };
#define OR_LOST_NONE (-1L)	/* the API reported no count (NULL lost_events) */
#define OR_LOST_FLAG (-2L)	/* a loss flagged, no count */
/* or_judge() flags */
#define OR_NO_COUNTERS 1	/* the test reset, resized or swapped: no counter checks */
#define OR_NO_LIVENESS 2
#define OR_TS 4			/* stamps never go back in a reader's order */
#define OR_CONTROL 8		/* also reset, resize, map/unmap afterwards */
#define OR_DRAIN_PAGE 16	/* drain with read_page first */
#define OR_MANY_READERS 32	/* loss reports checked in sum only */
#define OR_ITER_READS 64	/* read_events_cpu not checked */
#define OR_LOSS_UNREPORTED 128	/* losses with no report allowed (reset, swap) */
#define OR_TS_BACK 2		/* or_judge(): stamps went back, nothing else wrong */
struct or_handle {
	int cpu, stream;
	u32 seq;
	struct ring_buffer_event *ev;
};
extern unsigned int or_flags;
extern const char *or_name;
void or_reset(void);
int or_stream(void);
int or_write(struct trace_buffer *b, u32 len);
void *or_reserve(struct trace_buffer *b, u32 len, struct or_handle *h);
int or_commit(struct trace_buffer *b, struct or_handle *h);
void or_discard(struct trace_buffer *b, struct or_handle *h);
int or_consume(struct trace_buffer *b, int cpu);
int or_peek(struct trace_buffer *b, int cpu);
int or_read_page(struct trace_buffer *b, int cpu, struct buffer_data_read_page *rp,
		 size_t len, int full);
int or_parse_page(int cpu, const void *page, size_t size);
/* an iterator from start to finish, reading at most @max events (0: all) */
int or_iter_pass(struct trace_buffer *b, int cpu, int max);
/*
 * A read by ftrace_dump() from an NMI: without the reader lock it reads in
 * place and the reader reads the same events again; with it, it consumes.
 * or_judge() tells which from whether the drain read the event too.
 */
int or_dump_consume(struct trace_buffer *b, int cpu);
int or_judge(struct trace_buffer *b, unsigned int flags);
int or_self_test(void);
unsigned long or_written(int cpu, int stream);
unsigned long or_committed(int cpu);

/* t_clock.c */
int clock_back_nested(void);
int clock_back_nested_range(void);
int clock_change_offline_cpu(void);
int clock_step_back_held(void);
int clock_reset_stale_floor(void);
int clock_reset_step_back(void);
int clock_change_irq_in_move(void);
int clock_delta_past_2_59(void);
int clock_back_irq_nmi(void);
int clock_back_irq_nmi_move(void);
int clock_back_irq_nmi_reset(void);
int clock_change_irq_in_move_discard(void);
int clock_change_offline_lapped(void);
int clock_swap_other_clock(void);
int clock_switch_fastpath_back(void);
int clock_switch_swap_fastpath_back(void);
int clock_switch_producer_full(void);
int clock_far_jump_producer_full(void);
int clock_switch_irq_in_move(void);
int clock_far_jump_irq_in_move(void);
int clock_switch_producer_counts(void);
int clock_switch_irq_in_write(void);
int clock_switch_irq_in_move_ahead(void);
int clock_failed_move(void);
int clock_failed_move_range(void);
int clock_back_mover(void);
int clock_back_mover_range(void);
int clock_discard_zero_small_back(void);
int clock_discard_zero_big_ahead(void);
int clock_kaslr_stale_majority(void);
int clock_kaslr_tie_bad_record(void);
int clock_late_cpu_after_reset(void);

#endif /* RB_TEST_H */
