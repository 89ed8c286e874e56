/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test-facing API of the CPU simulator (sim.c): threads that are
 * simulated CPUs, interrupts and NMIs delivered as signals, failure
 * accounting for WARN_ON and friends.
 */
#ifndef RB_SIM_H
#define RB_SIM_H

#include <pthread.h>
#include <sys/types.h>

enum sim_level { SIM_TASK, SIM_SOFTIRQ, SIM_IRQ, SIM_NMI, SIM_NR_LEVELS };

struct sim_thread {
	pthread_t th;
	int cpu;
	int tid;
	void *(*fn)(void *arg);
	void *arg;
	/* run in interrupt context when the thread takes a simulated irq/NMI */
	void (*irq_fn)(struct sim_thread *t, enum sim_level lvl);
	void *irq_arg;
	volatile int irq_pending;
	volatile int sig_pending;
	volatile int running;
	unsigned long nr_irqs, nr_nmis;
};

void sim_init(int nr_cpus);
/* Bind the calling (main) thread to a simulated CPU. */
void sim_bind(int cpu);
int sim_cpu(void);
int sim_thread_start(struct sim_thread *t, int cpu, void *(*fn)(void *), void *arg);
void sim_thread_join(struct sim_thread *t);
void sim_raise_irq(struct sim_thread *t);
void sim_raise_nmi(struct sim_thread *t);

/* failures reported through WARN_ON() and friends inside the code under test */
unsigned long sim_warnings(void);
/* forget n warnings a harness self-test provoked on purpose */
void sim_warn_absorb(unsigned long n);
/* warnings of the calling thread are counted but not printed (expected ones) */
void sim_warn_hush(int on);
/* fail the next n-th allocation (1 = next one); 0 disables */
void sim_fail_alloc_after(long n);
/*
 * An interrupt after every instruction (x86-64 trap flag): from
 * sim_step_sweep() on, each instruction of the calling thread forks; the
 * child runs fn as an interrupt there and carries on, the parent steps on.
 * sim_step_end() stops it; it returns 1 in a child, which then checks what
 * it sees and _exit()s 0 for good.  In the parent, sim_step_results()
 * gives the number of children, the first failing one and its wait status,
 * and how many exited with the code @tolerate (non-zero): a known defect
 * of the code under test, counted rather than failed.
 * sim_step_sweep() returns 0 where single-stepping is not available.
 */
int sim_step_sweep(void (*fn)(void), int tolerate);
/*
 * In a child, from its interrupt: once the interrupt returns, go on
 * stepping and call @fn after each of the next @steps instructions in
 * ring_buffer.c's code (an observer on another CPU that looks after every
 * store), then stop.  @fn may _exit() with a failure.
 */
void sim_step_watch(void (*fn)(void), long steps);
/*
 * Sampling: when set, the sweep forks only at the points (1, 2, ... in
 * rb_text) for which it returns non-zero; sim_step_seen counts them all.
 */
extern int (*sim_step_filter)(long point);
extern long sim_step_seen;
extern int sim_step_quiet;
/*
 * The stepping thread stops stepping (1) and starts again (0), nested:
 * for test code outside rb_text (payload fills and checks, page parsing),
 * where no point is; never around a call into the code under test.
 */
void sim_step_hold(int hold);	/* sim_step_results() prints nothing */
/* in a forked child: a kworker and an irq_work thread of its own */
void sim_child_workers(void);
int sim_step_end(void);
long sim_step_results(long *first_bad, int *status, long *tolerated);
/*
 * CPU hotplug: down clears the CPU from the online mask (the ring buffer
 * has no teardown step); up runs trace_rb_cpu_prepare() for every buffer
 * in existence, then sets it online.  Returns the first error.
 */
void sim_cpu_down(int cpu);
int sim_cpu_up(int cpu);
/*
 * fork() for the tests and the sweeps: it waits until no other thread is
 * inside an allocation of the shim, so that the child never inherits an
 * allocator lock held by a thread it does not have.  Threads of a test
 * that run while it forks must allocate through the shim (kmalloc() and
 * friends), not with malloc().
 */
pid_t sim_fork(void);
/* exclusive CPUs: atomic sections of threads on one simulated CPU do not overlap */
void sim_set_exclusive(int on);
/* Called once (then cleared) at the end of the next synchronize_rcu(). */
extern void (*sim_after_gp_fn)(void);
void sim_quiet(int on);

/*
 * User mappings: an mm is its mmap_lock (taken for writing by one
 * thread); sim_vm_setup() makes a vma of nr_pages with an empty page
 * table, vm_insert_pages() fills it, sim_vm_addr() reads through it (NULL
 * where no page is present) and sim_vm_zap() empties and frees it, as
 * munmap does before the vma's close.  Freeing a page that is still
 * mapped warns.
 */
struct mm_struct;
struct vm_area_struct;
void sim_mmap_lock(struct mm_struct *mm);
void sim_mmap_unlock(struct mm_struct *mm);
void sim_vm_setup(struct vm_area_struct *vma, struct mm_struct *mm, unsigned long start,
		  unsigned long nr_pages, unsigned long pgoff, unsigned long flags);
void sim_vm_zap(struct vm_area_struct *vma);
void *sim_vm_addr(const struct vm_area_struct *vma, unsigned long off);
/* Called once (then cleared) when vm_insert_pages() is entered next. */
extern void (*sim_vm_insert_fn)(struct vm_area_struct *vma);

/*
 * Persistent buffers.  sim_log_capture() collects printk() output in buf
 * (size 0 stops); sim_panic() calls the panic notifiers; sim_flush_*
 * count arch_ring_buffer_flush_range() and keep its last ranges
 * (sim_flush_count(): calls since a count that overlapped a range);
 * moving sim_text/sim_sdata (rb_kernel.h: _text, _sdata) plays the next
 * boot's KASLR; sim_reserve_range() marks memory that free_pages()/kfree() must
 * never be given; sim_reboot_ctx() forgets what the calling thread was
 * doing (preemption, interrupt level, CPUs held) as a reboot would;
 * sim_seq_read_all() reads a whole seq_file, returns its length or -1.
 */
void sim_log_capture(char *buf, size_t size);
void sim_panic(const char *msg);
extern unsigned long sim_flush_calls, sim_flush_start, sim_flush_end;
unsigned long sim_flush_count(unsigned long since, unsigned long start, unsigned long end,
			      unsigned long *exact);
struct atomic_notifier_head;
int sim_notifier_count(struct atomic_notifier_head *h);
void sim_reserve_range(unsigned long start, unsigned long size);
int sim_in_reserved(const void *p);
void sim_reboot_ctx(void);
struct file;
long sim_seq_read_all(struct file *f, char *buf, size_t size);

#endif /* RB_SIM_H */
