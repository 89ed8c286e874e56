// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU simulator behind rb_kernel.h.
 *
 * A simulated CPU is a thread that carries a CPU id in thread-local
 * storage.  Several threads may carry the same id (a writer and the
 * kworker that resizes its buffer, say): when "exclusive" mode is on, the
 * non-preemptible sections of threads on one simulated CPU never overlap,
 * as on a real CPU.  synchronize_rcu() waits for every CPU to leave the
 * section it was in.  Interrupts are SIGUSR1, NMIs SIGUSR2.
 */
#define _GNU_SOURCE
#include "rb_kernel.h"
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <ucontext.h>
#include <sys/wait.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

__thread struct sim_thread *sim_self;
__thread struct sim_ctx sim_ctx;
__thread struct task_struct sim_task;
static __thread int sim_my_tid;

int sim_nr_cpus = 1;
int oops_in_progress;
int sim_exclusive = 1;
struct cpumask sim_online_mask, sim_possible_mask;
struct atomic_notifier_head panic_notifier_list;
static pthread_mutex_t sim_notifier_lock = PTHREAD_MUTEX_INITIALIZER;
static char sim_image[2];
char *sim_text = &sim_image[0], *sim_sdata = &sim_image[1];
enum system_states system_state = SYSTEM_RUNNING;

static unsigned long sim_warn_count;
static int sim_tid_next;
static int sim_is_quiet;
static long sim_alloc_countdown;

struct sim_cpu {
	int owner;		/* tid of the thread in a non-preemptible section */
	int waiters;		/* threads from other contexts waiting for it */
	unsigned long gen;	/* bumped on every acquisition */
} __aligned(64);
static struct sim_cpu sim_cpus[NR_CPUS];

_Static_assert(sizeof(((struct mutex *)0)->opaque) >= sizeof(pthread_mutex_t), "mutex");
#define SIM_MC_SIZE (sizeof(pthread_mutex_t) + sizeof(pthread_cond_t))
_Static_assert(sizeof(((struct completion *)0)->opaque) >= SIM_MC_SIZE, "completion");
_Static_assert(sizeof(((struct wait_queue_head *)0)->opaque) >= SIM_MC_SIZE, "wq");

/* ---------------------------------------------------------------- */
/* reporting                                                        */
/* ---------------------------------------------------------------- */
void sim_quiet(int on)
{
	sim_is_quiet = on;
}

static int sim_log_vprintf(const char *fmt, va_list ap);

void sim_printk(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (sim_log_vprintf(fmt, ap)) {
		va_end(ap);
		return;
	}
	va_end(ap);
	if (sim_is_quiet)
		return;
	va_start(ap, fmt);
	fputs("# kernel: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/*
 * Capture of printk(): while a buffer is set, messages are appended to it
 * (truncated when full) instead of printed.
 */
static char *sim_log_buf;
static size_t sim_log_size, sim_log_len;
static pthread_mutex_t sim_log_lock = PTHREAD_MUTEX_INITIALIZER;

void sim_log_capture(char *buf, size_t size)
{
	pthread_mutex_lock(&sim_log_lock);
	sim_log_buf = size ? buf : NULL;
	sim_log_size = size;
	sim_log_len = 0;
	if (sim_log_buf)
		sim_log_buf[0] = 0;
	pthread_mutex_unlock(&sim_log_lock);
}

static int sim_log_vprintf(const char *fmt, va_list ap)
{
	int n;

	pthread_mutex_lock(&sim_log_lock);
	if (!sim_log_buf) {
		pthread_mutex_unlock(&sim_log_lock);
		return 0;
	}
	if (sim_log_len + 1 < sim_log_size) {
		n = vsnprintf(sim_log_buf + sim_log_len, sim_log_size - sim_log_len, fmt, ap);
		if (n > 0)
			sim_log_len += n;
		if (sim_log_len >= sim_log_size)
			sim_log_len = sim_log_size - 1;
	}
	pthread_mutex_unlock(&sim_log_lock);
	return 1;
}

static __thread int sim_warn_hushed;

void sim_warn_hush(int on)
{
	sim_warn_hushed = on;
}

void sim_warn(const char *file, int line, const char *cond, int once)
{
	unsigned long n = __atomic_add_fetch(&sim_warn_count, 1, __ATOMIC_SEQ_CST);

	(void)once;
	if (n <= 20 && !sim_warn_hushed)
		fprintf(stderr, "# WARNING: %s:%d: %s (cpu %d, pc %#x)\n",
			file, line, cond, sim_ctx.cpu, sim_ctx.pc);
}

void sim_bug(const char *file, int line, const char *cond)
{
	fprintf(stderr, "# BUG: %s:%d: %s\n", file, line, cond);
	abort();
}

void sim_warn_absorb(unsigned long n)
{
	__atomic_sub_fetch(&sim_warn_count, n, __ATOMIC_SEQ_CST);
}

unsigned long sim_warnings(void)
{
	return __atomic_load_n(&sim_warn_count, __ATOMIC_SEQ_CST);
}

int sim_tid(void)
{
	if (!sim_my_tid)
		sim_my_tid = __atomic_add_fetch(&sim_tid_next, 1, __ATOMIC_RELAXED);
	return sim_my_tid;
}

void sim_might_sleep(const char *what)
{
	if (sim_ctx.depth > 0 || sim_ctx.pc)
		fprintf(stderr, "# sleeping call %s in atomic context\n", what),
		sim_warn(__FILE__, __LINE__, "might_sleep", 0);
}

/* ---------------------------------------------------------------- */
/* simulated CPUs                                                   */
/* ---------------------------------------------------------------- */
void sim_set_exclusive(int on)
{
	sim_exclusive = on;
}

/*
 * Take simulated CPU c.  A thread that has waited a while (or at once, if
 * not polite: an interrupt) registers as a waiter; polite takers yield to
 * registered waiters, so a writer that keeps re-entering atomic sections
 * cannot starve the kworker or an interrupt of its CPU.
 */
static void sim_cpu_take(struct sim_cpu *c, int tid, int polite)
{
	int zero, waiting = 0;

	for (int spins = 0;; spins++) {
		if (!waiting && (!polite || spins > 50)) {
			waiting = 1;
			__atomic_add_fetch(&c->waiters, 1, __ATOMIC_SEQ_CST);
		}
		if (!waiting && __atomic_load_n(&c->waiters, __ATOMIC_RELAXED)) {
			sched_yield();
			continue;
		}
		zero = 0;
		if (__atomic_compare_exchange_n(&c->owner, &zero, tid, false,
						__ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			break;
		if (spins > 50)
			sched_yield();
		else
			cpu_relax();
	}
	if (waiting)
		__atomic_sub_fetch(&c->waiters, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&c->gen, 1, __ATOMIC_RELAXED);
}

/* A thread's base context starts a non-preemptible section. */
void sim_atomic_enter(void)
{
	struct sim_cpu *c;
	int tid = sim_tid();

	if (!sim_exclusive)
		return;
	c = &sim_cpus[sim_ctx.cpu];
	if (__atomic_load_n(&c->owner, __ATOMIC_RELAXED) == tid)
		return;
	sim_cpu_take(c, tid, 1);
}

void sim_atomic_exit(void)
{
	struct sim_cpu *c;

	if (!sim_exclusive)
		return;
	c = &sim_cpus[sim_ctx.cpu];
	if (__atomic_load_n(&c->owner, __ATOMIC_RELAXED) == sim_tid())
		__atomic_store_n(&c->owner, 0, __ATOMIC_SEQ_CST);
}

/* Interrupt entry: take the CPU unless the interrupted code holds it. */
static int sim_intr_take(void)
{
	struct sim_cpu *c = &sim_cpus[sim_ctx.cpu];
	int tid = sim_tid();

	if (!sim_exclusive || __atomic_load_n(&c->owner, __ATOMIC_RELAXED) == tid)
		return 0;
	sim_cpu_take(c, tid, 0);
	return 1;
}

static void sim_intr_give(int taken)
{
	if (taken)
		__atomic_store_n(&sim_cpus[sim_ctx.cpu].owner, 0, __ATOMIC_SEQ_CST);
}

/* Run fn on simulated CPU cpu from another thread (kworker). */
static void sim_run_on(int cpu, void (*fn)(void *), void *arg)
{
	int saved = sim_ctx.cpu;

	sim_ctx.cpu = cpu;
	fn(arg);
	sim_ctx.cpu = saved;
}

/*
 * An IPI: fn runs on simulated CPU cpu as an interrupt, irqs off, between
 * the non-preemptible sections of the threads on that CPU (exclusive mode).
 */
int smp_call_function_single(int cpu, smp_call_func_t fn, void *info, int wait)
{
	struct sim_ctx saved = sim_ctx;
	int taken;

	(void)wait;
	if (!cpu_online(cpu))
		return -ENXIO;
	sim_ctx.cpu = cpu;
	sim_ctx.pc = HARDIRQ_OFFSET;
	sim_ctx.irqs_off = 1;
	sim_ctx.depth++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	taken = sim_intr_take();
	fn(info);
	sim_intr_give(taken);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	sim_ctx = saved;
	return 0;
}

__thread void *sim_local_split_at;
__thread void (*sim_local_split_fn)(void);
void (*sim_after_gp_fn)(void);

void synchronize_rcu(void)
{
	int tid = sim_tid();

	sim_might_sleep("synchronize_rcu");
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!sim_exclusive)
		return;
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct sim_cpu *c = &sim_cpus[cpu];
		int o = __atomic_load_n(&c->owner, __ATOMIC_SEQ_CST);
		unsigned long g = __atomic_load_n(&c->gen, __ATOMIC_SEQ_CST);

		if (!o || o == tid)
			continue;
		while (__atomic_load_n(&c->owner, __ATOMIC_SEQ_CST) == o &&
		       __atomic_load_n(&c->gen, __ATOMIC_SEQ_CST) == g)
			sched_yield();
	}
	/* A test's step that must land right after a grace period. */
	if (sim_after_gp_fn) {
		void (*fn)(void) = sim_after_gp_fn;

		sim_after_gp_fn = NULL;
		fn();
	}
}

/* ---------------------------------------------------------------- */
/* interrupts                                                       */
/* ---------------------------------------------------------------- */
static void sim_intr_run(struct sim_thread *t, unsigned int offset, int irqs_off,
			 enum sim_level lvl)
{
	unsigned int pc = sim_ctx.pc;
	int off = sim_ctx.irqs_off;
	int taken;

	sim_ctx.pc = pc + offset;
	sim_ctx.irqs_off = irqs_off;
	sim_ctx.depth++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	taken = sim_intr_take();
	t->irq_fn(t, lvl);
	sim_intr_give(taken);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	sim_ctx.depth--;
	sim_ctx.irqs_off = off;
	sim_ctx.pc = pc;
}

static void sim_on_irq(int sig)
{
	struct sim_thread *t = sim_self;
	int saved_errno = errno;
	sigset_t set;

	(void)sig;
	if (!t || !t->irq_fn)
		goto out;
	if (sim_ctx.irqs_off) {
		t->irq_pending = 1;
		goto out;
	}
	t->nr_irqs++;
	sim_intr_run(t, HARDIRQ_OFFSET, 1, SIM_IRQ);
	if (sim_ctx.pc & (SOFTIRQ_MASK | HARDIRQ_MASK | NMI_MASK))
		goto out;
	/* softirq on the way out, with interrupts enabled again */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	sim_intr_run(t, SOFTIRQ_OFFSET, 0, SIM_SOFTIRQ);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
out:
	errno = saved_errno;
}

static void sim_on_nmi(int sig)
{
	struct sim_thread *t = sim_self;
	int saved_errno = errno;

	(void)sig;
	if (t && t->irq_fn) {
		t->nr_nmis++;
		sim_intr_run(t, NMI_OFFSET + HARDIRQ_OFFSET, 1, SIM_NMI);
	}
	errno = saved_errno;
}

void sim_irq_enable_hook(void)
{
	struct sim_thread *t = sim_self;

	if (t && t->irq_pending) {
		t->irq_pending = 0;
		pthread_kill(pthread_self(), SIGUSR1);
	}
}

void sim_raise_irq(struct sim_thread *t)
{
	if (__atomic_load_n(&t->running, __ATOMIC_ACQUIRE))
		pthread_kill(t->th, SIGUSR1);
}

void sim_raise_nmi(struct sim_thread *t)
{
	if (__atomic_load_n(&t->running, __ATOMIC_ACQUIRE))
		pthread_kill(t->th, SIGUSR2);
}

bool sim_signal_pending(void)
{
	return sim_self && sim_self->sig_pending;
}

/* ---------------------------------------------------------------- */
/* threads                                                          */
/* ---------------------------------------------------------------- */
void sim_bind(int cpu)
{
	sim_ctx.cpu = cpu;
	sim_task.pid = sim_tid();
}

int sim_cpu(void)
{
	return sim_ctx.cpu;
}

static void *sim_thread_main(void *arg)
{
	struct sim_thread *t = arg;
	void *ret;

	sim_self = t;
	sim_bind(t->cpu);
	t->tid = sim_tid();
	__atomic_store_n(&t->running, 1, __ATOMIC_RELEASE);
	ret = t->fn(t->arg);
	__atomic_store_n(&t->running, 0, __ATOMIC_RELEASE);
	return ret;
}

int sim_thread_start(struct sim_thread *t, int cpu, void *(*fn)(void *), void *arg)
{
	void (*irq_fn)(struct sim_thread *, enum sim_level) = t->irq_fn;
	void *irq_arg = t->irq_arg;

	/* callers set irq_fn/irq_arg (or zero them) before starting */
	memset(t, 0, sizeof(*t));
	t->irq_fn = irq_fn;
	t->irq_arg = irq_arg;
	t->cpu = cpu;
	t->fn = fn;
	t->arg = arg;
	t->running = 0;
	return pthread_create(&t->th, NULL, sim_thread_main, t);
}

void sim_thread_join(struct sim_thread *t)
{
	pthread_join(t->th, NULL);
}

/* ---------------------------------------------------------------- */
/* spinning and sleeping locks                                      */
/* ---------------------------------------------------------------- */
void arch_spin_lock(arch_spinlock_t *l)
{
	int tid = sim_tid();

	if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == tid)
		sim_warn(__FILE__, __LINE__, "spinlock recursion", 0);
	for (int spins = 0; !arch_spin_trylock(l); spins++) {
		if (spins > 100)
			sched_yield();
		else
			cpu_relax();
	}
}

int arch_spin_trylock(arch_spinlock_t *l)
{
	int zero = 0;

	if (!__atomic_compare_exchange_n(&l->locked, &zero, 1, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return 0;
	__atomic_store_n(&l->owner, sim_tid(), __ATOMIC_RELAXED);
	return 1;
}

void arch_spin_unlock(arch_spinlock_t *l)
{
	if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) != sim_tid())
		sim_warn(__FILE__, __LINE__, "unlock of a spinlock not held", 0);
	__atomic_store_n(&l->owner, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

bool sim_arch_lock_held(arch_spinlock_t *l)
{
	return __atomic_load_n(&l->locked, __ATOMIC_RELAXED) &&
		__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == sim_tid();
}

static pthread_mutex_t *sim_pm(struct mutex *m)
{
	return (pthread_mutex_t *)m->opaque;
}

void mutex_init(struct mutex *m)
{
	pthread_mutex_init(sim_pm(m), NULL);
	m->owner = 0;
}

void mutex_lock(struct mutex *m)
{
	sim_might_sleep("mutex_lock");
	if (sim_held_mutex(m))
		sim_warn(__FILE__, __LINE__, "mutex recursion", 0);
	pthread_mutex_lock(sim_pm(m));
	__atomic_store_n(&m->owner, sim_tid(), __ATOMIC_RELAXED);
}

int mutex_trylock(struct mutex *m)
{
	if (pthread_mutex_trylock(sim_pm(m)))
		return 0;
	__atomic_store_n(&m->owner, sim_tid(), __ATOMIC_RELAXED);
	return 1;
}

void mutex_unlock(struct mutex *m)
{
	if (!sim_held_mutex(m))
		sim_warn(__FILE__, __LINE__, "unlock of a mutex not held", 0);
	__atomic_store_n(&m->owner, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(sim_pm(m));
}

bool mutex_is_locked(struct mutex *m)
{
	return __atomic_load_n(&m->owner, __ATOMIC_RELAXED) != 0;
}

/* ---------------------------------------------------------------- */
/* completions, wait queues                                         */
/* ---------------------------------------------------------------- */
struct sim_mc { pthread_mutex_t m; pthread_cond_t c; };

static struct sim_mc *sim_mc(u64 *opaque)
{
	return (struct sim_mc *)opaque;
}

static void sim_mc_init(u64 *opaque)
{
	struct sim_mc *mc = sim_mc(opaque);

	pthread_mutex_init(&mc->m, NULL);
	pthread_cond_init(&mc->c, NULL);
}

void init_completion(struct completion *c)
{
	sim_mc_init(c->opaque);
	c->done = 0;
}

void complete(struct completion *c)
{
	struct sim_mc *mc = sim_mc(c->opaque);

	pthread_mutex_lock(&mc->m);
	c->done++;
	pthread_cond_broadcast(&mc->c);
	pthread_mutex_unlock(&mc->m);
}

void wait_for_completion(struct completion *c)
{
	struct sim_mc *mc = sim_mc(c->opaque);

	sim_might_sleep("wait_for_completion");
	pthread_mutex_lock(&mc->m);
	while (!c->done)
		pthread_cond_wait(&mc->c, &mc->m);
	c->done--;
	pthread_mutex_unlock(&mc->m);
}

void init_waitqueue_head(wait_queue_head_t *q)
{
	sim_mc_init(q->opaque);
	raw_spin_lock_init(&q->lock);
	q->gen = 0;
}

unsigned long sim_wq_gen(wait_queue_head_t *q)
{
	return __atomic_load_n(&q->gen, __ATOMIC_SEQ_CST);
}

void wake_up_all(wait_queue_head_t *q)
{
	struct sim_mc *mc = sim_mc(q->opaque);

	pthread_mutex_lock(&mc->m);
	__atomic_add_fetch(&q->gen, 1, __ATOMIC_SEQ_CST);
	pthread_cond_broadcast(&mc->c);
	pthread_mutex_unlock(&mc->m);
}

int sim_wq_sleep(wait_queue_head_t *q, unsigned long gen)
{
	struct sim_mc *mc = sim_mc(q->opaque);
	struct timespec ts;
	int ret = 0;

	pthread_mutex_lock(&mc->m);
	while (__atomic_load_n(&q->gen, __ATOMIC_SEQ_CST) == gen) {
		if (sim_signal_pending()) {
			ret = -ERESTARTSYS;
			break;
		}
		/* the timeout only lets a simulated signal be noticed */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 20 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&mc->c, &mc->m, &ts);
	}
	pthread_mutex_unlock(&mc->m);
	return ret;
}

void prepare_to_wait(wait_queue_head_t *q, struct wait_queue_entry *w, int state)
{
	(void)state;
	w->q = q;
	w->gen = sim_wq_gen(q);
	sim_task.wait = w;
}

void finish_wait(wait_queue_head_t *q, struct wait_queue_entry *w)
{
	(void)q;
	(void)w;
	sim_task.wait = NULL;
}

void schedule(void)
{
	struct wait_queue_entry *w = sim_task.wait;

	sim_might_sleep("schedule");
	if (w && w->q)
		sim_wq_sleep(w->q, w->gen);
	else
		sched_yield();
}

long schedule_timeout(long t)
{
	sim_udelay(t * (1000000 / HZ));
	return 0;
}

void sim_udelay(unsigned long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/* ---------------------------------------------------------------- */
/* kworker (schedule_work_on) and irq_work                          */
/* ---------------------------------------------------------------- */
static pthread_mutex_t sim_wk_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sim_wk_cond = PTHREAD_COND_INITIALIZER;
static struct work_struct *sim_wk_head, **sim_wk_tail = &sim_wk_head;

static void sim_work_call(void *arg)
{
	struct work_struct *w = arg;

	w->func(w);
}

static void *sim_kworker(void *arg)
{
	struct work_struct *w;

	(void)arg;
	sim_bind(0);
	for (;;) {
		pthread_mutex_lock(&sim_wk_lock);
		while (!sim_wk_head)
			pthread_cond_wait(&sim_wk_cond, &sim_wk_lock);
		w = sim_wk_head;
		sim_wk_head = w->next;
		if (!sim_wk_head)
			sim_wk_tail = &sim_wk_head;
		pthread_mutex_unlock(&sim_wk_lock);
		sim_run_on(w->cpu, sim_work_call, w);
	}
	return NULL;
}

bool schedule_work_on(int cpu, struct work_struct *w)
{
	pthread_mutex_lock(&sim_wk_lock);
	w->cpu = cpu;
	w->next = NULL;
	*sim_wk_tail = w;
	sim_wk_tail = &w->next;
	pthread_cond_signal(&sim_wk_cond);
	pthread_mutex_unlock(&sim_wk_lock);
	return true;
}

#define SIM_IW_PENDING 1
#define SIM_IW_BUSY 2
static struct irq_work *sim_iw_head;
static sem_t sim_iw_sem;

bool irq_work_queue(struct irq_work *w)
{
	struct irq_work *head;
	int old = __atomic_fetch_or(&w->flags, SIM_IW_PENDING | SIM_IW_BUSY, __ATOMIC_SEQ_CST);

	if (old & SIM_IW_PENDING)
		return false;
	w->cpu = sim_ctx.cpu;
	head = __atomic_load_n(&sim_iw_head, __ATOMIC_RELAXED);
	do {
		w->next = head;
	} while (!__atomic_compare_exchange_n(&sim_iw_head, &head, w, true,
					      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	sem_post(&sim_iw_sem);
	return true;
}

static void sim_iw_run(struct irq_work *w)
{
	int busy = SIM_IW_BUSY;

	__atomic_fetch_and(&w->flags, ~SIM_IW_PENDING, __ATOMIC_SEQ_CST);
	w->func(w);
	__atomic_compare_exchange_n(&w->flags, &busy, 0, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

static void *sim_irq_worker(void *arg)
{
	struct irq_work *w, *next;

	(void)arg;
	/* interrupt context; runs beside CPU 0 without taking it */
	sim_bind(0);
	sim_ctx.pc = HARDIRQ_OFFSET;
	sim_ctx.irqs_off = 1;
	sim_ctx.depth = 1;
	for (;;) {
		while (sem_wait(&sim_iw_sem))
			;
		w = __atomic_exchange_n(&sim_iw_head, NULL, __ATOMIC_ACQUIRE);
		for (; w; w = next) {
			next = w->next;
			sim_iw_run(w);
		}
	}
	return NULL;
}

/*
 * In a child of sim_fork(), which has none of the parent's other threads:
 * a kworker and an irq_work thread of its own (work queued in the parent
 * and not yet run is dropped).
 */
void sim_child_workers(void)
{
	pthread_t th;

	pthread_mutex_init(&sim_wk_lock, NULL);
	pthread_cond_init(&sim_wk_cond, NULL);
	sim_wk_head = NULL;
	sim_wk_tail = &sim_wk_head;
	sim_iw_head = NULL;
	sem_init(&sim_iw_sem, 0, 0);
	pthread_create(&th, NULL, sim_irq_worker, NULL);
	pthread_detach(th);
	pthread_create(&th, NULL, sim_kworker, NULL);
	pthread_detach(th);
}

void irq_work_sync(struct irq_work *w)
{
	while (__atomic_load_n(&w->flags, __ATOMIC_SEQ_CST) & SIM_IW_BUSY)
		sched_yield();
}

/* allocations in progress on this thread: see sim_fork() */
static __thread int sim_gate_depth;

/* ---------------------------------------------------------------- */
/* an interrupt after the n-th instruction (single-stepping)        */
/* ---------------------------------------------------------------- */
#if defined(__x86_64__)
#define SIM_TF 0x100UL
static __thread void (*sim_step_fn)(void);
static __thread int sim_step_child;
static __thread long sim_step_points, sim_step_first_bad, sim_step_tolerated;
static __thread int sim_step_status, sim_step_tolerate;
static __thread long sim_step_steps;
static __thread void (*sim_watch_fn)(void);
static __thread long sim_watch_left;
int (*sim_step_filter)(long point);
long sim_step_seen;
int sim_step_quiet;

/*
 * The Makefile renames rb_wrap.o's .text (the file under test and the
 * inline kernel primitives of rb_kernel.h) to rb_text.  An interrupt only
 * lands there: one inside a shim function, a test function or libc (a
 * memcpy of a payload, say) finds the same state as one at the call or at
 * the return in the file under test.  RB_SWEEP_EVERY=1 takes every
 * instruction; without the section (another build) so does the sweep.
 */
extern const char __start_rb_text[] __attribute__((weak));
extern const char __stop_rb_text[] __attribute__((weak));

static int sim_step_every = -1;

static bool sim_step_here(const ucontext_t *uc)
{
	unsigned long ip = uc->uc_mcontext.gregs[REG_RIP];

	return sim_step_every || (ip >= (unsigned long)__start_rb_text &&
				  ip < (unsigned long)__stop_rb_text);
}

/*
 * Every instruction: fork.  The child stops stepping and takes the
 * interrupt here; the parent waits for its verdict and steps on.
 */
static void sim_on_trap(int sig, siginfo_t *si, void *ucp)
{
	ucontext_t *uc = ucp;
	void (*fn)(void) = sim_step_fn;
	pid_t pid;
	int st;

	(void)sig;
	(void)si;
	if (sim_step_child) {
		/* a child watching after its interrupt (sim_step_watch()) */
		if (sim_watch_left > 0 && sim_step_here(uc)) {
			sim_watch_left--;
			sim_watch_fn();
		}
		if (sim_watch_left <= 0)
			uc->uc_mcontext.gregs[REG_EFL] &= ~SIM_TF;
		return;
	}
	if (!fn)
		return;
	sim_step_steps++;
	/* inside the allocator, an interrupt finds what one at its return finds */
	if (!sim_step_here(uc) || sim_gate_depth)
		return;
	/* a sampled sweep: only the points the filter picks fork */
	sim_step_seen++;
	if (sim_step_filter && !sim_step_filter(sim_step_seen))
		return;
	pid = sim_fork();
	if (pid == 0) {
		sim_step_fn = NULL;
		sim_step_child = 1;
		sim_watch_left = 0;
		fn();
		if (sim_watch_left <= 0)
			uc->uc_mcontext.gregs[REG_EFL] &= ~SIM_TF;
		return;
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		st = -1;
	sim_step_points++;
	if (sim_step_tolerate && WIFEXITED(st) &&
	    WEXITSTATUS(st) == sim_step_tolerate)
		sim_step_tolerated++;
	else if (st != 0 && !sim_step_first_bad) {
		sim_step_first_bad = sim_step_points;
		sim_step_status = st;
	}
}

int sim_step_sweep(void (*fn)(void), int tolerate)
{
	static int done;

	if (!done) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = sim_on_trap;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGTRAP, &sa, NULL);
		done = 1;
	}
	if (sim_step_every < 0) {
		const char *e = getenv("RB_SWEEP_EVERY");

		sim_step_every = (e && *e == '1') || !__start_rb_text;
	}
	fflush(NULL);
	sim_step_points = 0;
	sim_step_steps = 0;
	sim_step_first_bad = 0;
	sim_step_tolerated = 0;
	sim_step_tolerate = tolerate;
	sim_step_seen = 0;
	sim_step_child = 0;
	sim_step_fn = fn;
	__asm__ volatile("pushfq; orq %0, (%%rsp); popfq" : : "i"(SIM_TF) : "memory", "cc");
	return 1;
}

static __thread int sim_hold_depth;

void sim_step_hold(int hold)
{
	if (!sim_step_fn || sim_step_child)
		return;
	if (hold && sim_hold_depth++ == 0)
		__asm__ volatile("pushfq; andq %0, (%%rsp); popfq" : : "i"(~SIM_TF) : "memory", "cc");
	else if (!hold && --sim_hold_depth == 0)
		__asm__ volatile("pushfq; orq %0, (%%rsp); popfq" : : "i"(SIM_TF) : "memory", "cc");
}

void sim_step_watch(void (*fn)(void), long steps)
{
	sim_watch_fn = fn;
	sim_watch_left = steps;
}

int sim_step_end(void)
{
	__asm__ volatile("pushfq; andq %0, (%%rsp); popfq" : : "i"(~SIM_TF) : "memory", "cc");
	sim_step_fn = NULL;
	sim_watch_left = 0;
	if (sim_step_child)
		fflush(NULL);
	return sim_step_child;
}

long sim_step_results(long *first_bad, int *status, long *tolerated)
{
	*first_bad = sim_step_first_bad;
	*status = sim_step_status;
	*tolerated = sim_step_tolerated;
	if (!sim_step_quiet)
		fprintf(stdout, "# sweep: %ld instructions stepped, %ld interrupt points in rb_text\n",
			sim_step_steps, sim_step_points);
	return sim_step_points;
}
#else
int sim_step_sweep(void (*fn)(void), int tolerate)
{
	return 0;
}

void sim_step_watch(void (*fn)(void), long steps)
{
}

int sim_step_end(void)
{
	return 0;
}

void sim_step_hold(int hold)
{
	(void)hold;
}

/* nothing to sample where there is no single-stepping */
int (*sim_step_filter)(long point);
long sim_step_seen;
int sim_step_quiet;

long sim_step_results(long *first_bad, int *status, long *tolerated)
{
	*first_bad = 0;
	*status = 0;
	*tolerated = 0;
	return 0;
}
#endif

/* ---------------------------------------------------------------- */
/* CPU hotplug                                                      */
/* ---------------------------------------------------------------- */
static struct hlist_head sim_cpuhp_list;
static pthread_mutex_t sim_cpuhp_lock = PTHREAD_MUTEX_INITIALIZER;

int sim_cpuhp_add(struct hlist_node *n, bool call)
{
	int cpu, ret = 0;

	pthread_mutex_lock(&sim_cpuhp_lock);
	if (call) {
		for_each_online_cpu(cpu) {
			ret = trace_rb_cpu_prepare(cpu, n);
			if (ret)
				goto out;
		}
	}
	n->next = sim_cpuhp_list.first;
	if (n->next)
		n->next->pprev = &n->next;
	n->pprev = &sim_cpuhp_list.first;
	sim_cpuhp_list.first = n;
out:
	pthread_mutex_unlock(&sim_cpuhp_lock);
	return ret;
}

void sim_cpuhp_remove(struct hlist_node *n)
{
	pthread_mutex_lock(&sim_cpuhp_lock);
	if (n->pprev) {
		*n->pprev = n->next;
		if (n->next)
			n->next->pprev = n->pprev;
		n->next = NULL;
		n->pprev = NULL;
	}
	pthread_mutex_unlock(&sim_cpuhp_lock);
}

void sim_cpu_down(int cpu)
{
	cpumask_clear_cpu(cpu, &sim_online_mask);
}

int sim_cpu_up(int cpu)
{
	struct hlist_node *n;
	int ret = 0;

	pthread_mutex_lock(&sim_cpuhp_lock);
	for (n = sim_cpuhp_list.first; n && !ret; n = n->next)
		ret = trace_rb_cpu_prepare(cpu, n);
	pthread_mutex_unlock(&sim_cpuhp_lock);
	if (!ret)
		cpumask_set_cpu(cpu, &sim_online_mask);
	return ret;
}

/* ---------------------------------------------------------------- */
/* memory                                                           */
/* ---------------------------------------------------------------- */

/*
 * The fork gate.  fork() copies only the calling thread: an allocator
 * lock that another thread holds at that moment (ASan's size-class and
 * stack-depot locks, taken inside every malloc() and free()) stays locked
 * in the child for ever, and the child's first allocation sleeps on it.
 * Every allocation of the shim goes through the gate, with the simulated
 * interrupts blocked (a handler that waits for the forking thread must
 * not hold the gate); sim_fork() closes the gate, waits until no other
 * thread is inside, forks and opens it again.  Entering is a Dekker pair
 * with sim_fork(): users is raised, then closed is read; closed is set,
 * then users is read (all sequentially consistent).
 */
static int sim_gate_closed;
static long sim_gate_users;
static __thread sigset_t sim_gate_old;

static void sim_gate_enter(void)
{
	sigset_t irqs;

	if (sim_gate_depth++)
		return;
	sigemptyset(&irqs);
	sigaddset(&irqs, SIGUSR1);
	sigaddset(&irqs, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &irqs, &sim_gate_old);
	for (;;) {
		__atomic_add_fetch(&sim_gate_users, 1, __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&sim_gate_closed, __ATOMIC_SEQ_CST))
			return;
		__atomic_sub_fetch(&sim_gate_users, 1, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&sim_gate_closed, __ATOMIC_SEQ_CST))
			sched_yield();
	}
}

static void sim_gate_exit(void)
{
	if (--sim_gate_depth)
		return;
	__atomic_sub_fetch(&sim_gate_users, 1, __ATOMIC_SEQ_CST);
	pthread_sigmask(SIG_SETMASK, &sim_gate_old, NULL);
}

static void *sim_gated_alloc(size_t align, size_t size)
{
	void *p;

	sim_gate_enter();
	/* aligned_alloc() wants a multiple of the alignment */
	p = aligned_alloc(align, ALIGN(size ? size : 1, align));
	sim_gate_exit();
	return p;
}

static void sim_gated_free(void *p)
{
	sim_gate_enter();
	free(p);
	sim_gate_exit();
}

unsigned long sim_fork_waits;

pid_t sim_fork(void)
{
	long mine = sim_gate_depth ? 1 : 0;
	sigset_t all, old;
	int open = 0;
	pid_t pid;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	while (!__atomic_compare_exchange_n(&sim_gate_closed, &open, 1, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		open = 0;
		sched_yield();
	}
	/* another thread inside an allocation leaves it within microseconds */
	while (__atomic_load_n(&sim_gate_users, __ATOMIC_SEQ_CST) != mine) {
		__atomic_add_fetch(&sim_fork_waits, 1, __ATOMIC_RELAXED);
		sched_yield();
	}
	pid = fork();
	if (pid == 0)
		__atomic_store_n(&sim_gate_users, mine, __ATOMIC_SEQ_CST);
	__atomic_store_n(&sim_gate_closed, 0, __ATOMIC_SEQ_CST);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return pid;
}

void sim_fail_alloc_after(long n)
{
	__atomic_store_n(&sim_alloc_countdown, n, __ATOMIC_SEQ_CST);
}

static bool sim_alloc_fails(void)
{
	long n = __atomic_load_n(&sim_alloc_countdown, __ATOMIC_SEQ_CST);

	while (n > 0) {
		if (__atomic_compare_exchange_n(&sim_alloc_countdown, &n, n - 1, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return n == 1;
	}
	return false;
}

void *sim_kmalloc(size_t size, gfp_t f)
{
	size_t align;
	void *p;

	if (sim_alloc_fails())
		return NULL;
	/*
	 * The slab caches hand out objects at multiples of their size, so a
	 * struct padded to a cache line comes cache-line aligned (UBSan checks
	 * the alignment the type declares): align to the size's lowest set
	 * bit, from 16 up to a page.  malloc() alone gives 16 bytes.
	 */
	align = size & -size;
	align = align < 16 ? 16 : align > PAGE_SIZE ? PAGE_SIZE : align;
	p = sim_gated_alloc(align, size ? ALIGN(size, align) : align);
	if (p)
		memset(p, (f & __GFP_ZERO) ? 0 : 0x6b, size);
	return p;
}

void sim_kfree(const void *p)
{
	if (sim_in_reserved(p)) {
		sim_warn(__FILE__, __LINE__, "kfree() of reserved memory", 0);
		return;
	}
	sim_gated_free((void *)p);
}

struct page *sim_alloc_pages(gfp_t f, unsigned int order)
{
	size_t size = PAGE_SIZE << order;
	void *p;

	if (sim_alloc_fails())
		return NULL;
	/* the buddy allocator aligns a block to its size: so do we */
	p = sim_gated_alloc(size, size);
	if (p)
		memset(p, (f & __GFP_ZERO) ? 0 : 0x5a, size);
	return p;
}

/* ---------------------------------------------------------------- */
/* user mappings                                                    */
/* ---------------------------------------------------------------- */
struct page sim_zero_page __aligned(PAGE_SIZE);

/*
 * Pages present in some vma's page table, with repeats: a page the
 * kernel frees while user space still maps it is a bug of the code under
 * test (the kernel would keep the page alive by its reference, but user
 * space would go on reading a page the ring buffer no longer owns).
 */
static struct {
	pthread_mutex_t lock;
	struct page **pg;
	unsigned long n, cap;
} sim_user = { PTHREAD_MUTEX_INITIALIZER };

static void sim_user_add(struct page *pg)
{
	pthread_mutex_lock(&sim_user.lock);
	if (sim_user.n == sim_user.cap) {
		sim_user.cap = sim_user.cap ? 2 * sim_user.cap : 256;
		sim_user.pg = realloc(sim_user.pg, sim_user.cap * sizeof(*sim_user.pg));
		if (!sim_user.pg)
			sim_bug(__FILE__, __LINE__, "out of memory");
	}
	sim_user.pg[sim_user.n] = pg;
	/* read without the lock by sim_user_check_free() */
	__atomic_store_n(&sim_user.n, sim_user.n + 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&sim_user.lock);
}

static void sim_user_del(struct page *pg)
{
	pthread_mutex_lock(&sim_user.lock);
	for (unsigned long i = 0; i < sim_user.n; i++) {
		if (sim_user.pg[i] == pg) {
			sim_user.pg[i] = sim_user.pg[sim_user.n - 1];
			__atomic_store_n(&sim_user.n, sim_user.n - 1, __ATOMIC_RELAXED);
			break;
		}
	}
	pthread_mutex_unlock(&sim_user.lock);
}

static void sim_user_check_free(void *addr, unsigned int order)
{
	unsigned long a = (unsigned long)addr, end = a + (PAGE_SIZE << order);
	int mapped = 0;

	if (!__atomic_load_n(&sim_user.n, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&sim_user.lock);
	for (unsigned long i = 0; i < sim_user.n; i++)
		if ((unsigned long)sim_user.pg[i] >= a && (unsigned long)sim_user.pg[i] < end)
			mapped = 1;
	pthread_mutex_unlock(&sim_user.lock);
	if (mapped)
		sim_warn(__FILE__, __LINE__, "page freed while mapped to user space", 0);
}

void sim_mmap_lock(struct mm_struct *mm)
{
	if (mm->sim_locker)
		sim_bug(__FILE__, __LINE__, "mmap_lock taken twice");
	mm->sim_locker = sim_tid();
}

void sim_mmap_unlock(struct mm_struct *mm)
{
	if (mm->sim_locker != sim_tid())
		sim_bug(__FILE__, __LINE__, "mmap_lock released by another thread");
	mm->sim_locker = 0;
}

void sim_mmap_assert_locked(struct mm_struct *mm)
{
	if (!mm || mm->sim_locker != sim_tid())
		sim_warn(__FILE__, __LINE__, "mmap_lock not held", 1);
}

void sim_vm_setup(struct vm_area_struct *vma, struct mm_struct *mm, unsigned long start,
		  unsigned long nr_pages, unsigned long pgoff, vm_flags_t flags)
{
	memset(vma, 0, sizeof(*vma));
	vma->vm_start = start;
	vma->vm_end = start + nr_pages * PAGE_SIZE;
	vma->vm_pgoff = pgoff;
	vma->vm_flags = flags;
	vma->vm_mm = mm;
	vma->sim_pte = sim_gated_alloc(16, (nr_pages + 1) * sizeof(*vma->sim_pte));
	if (vma->sim_pte)
		memset(vma->sim_pte, 0, (nr_pages + 1) * sizeof(*vma->sim_pte));
	if (!vma->sim_pte)
		sim_bug(__FILE__, __LINE__, "out of memory");
}

void sim_vm_zap(struct vm_area_struct *vma)
{
	for (unsigned long i = 0; i < vma_pages(vma); i++) {
		if (vma->sim_pte[i] && vma->sim_pte[i] != &sim_zero_page)
			sim_user_del(vma->sim_pte[i]);
		vma->sim_pte[i] = NULL;
	}
	sim_gated_free(vma->sim_pte);
	vma->sim_pte = NULL;
}

void *sim_vm_addr(const struct vm_area_struct *vma, unsigned long off)
{
	unsigned long i = off >> PAGE_SHIFT;

	if (!vma->sim_pte || off >= vma->vm_end - vma->vm_start || !vma->sim_pte[i])
		return NULL;
	return (char *)vma->sim_pte[i] + (off & ~PAGE_MASK);
}

/*
 * As mm/memory.c: the range must lie in the vma, the first insertion
 * marks it VM_MIXEDMAP (under mmap_lock), a present entry is -EBUSY, the
 * zero page only where the mapping can never become writable; on an error
 * *num is the number of pages not inserted.
 */
void (*sim_vm_insert_fn)(struct vm_area_struct *vma);

int vm_insert_pages(struct vm_area_struct *vma, unsigned long addr,
		    struct page **pages, unsigned long *num)
{
	unsigned long idx = (addr - vma->vm_start) >> PAGE_SHIFT;
	void (*fn)(struct vm_area_struct *vma) = sim_vm_insert_fn;

	if (fn) {
		sim_vm_insert_fn = NULL;
		fn(vma);
	}

	if (addr & ~PAGE_MASK)
		sim_bug(__FILE__, __LINE__, "vm_insert_pages: unaligned address");
	if (addr < vma->vm_start || addr + *num * PAGE_SIZE > vma->vm_end ||
	    addr + *num * PAGE_SIZE < addr)
		return -EFAULT;
	if (!(vma->vm_flags & VM_MIXEDMAP)) {
		if (vma->vm_flags & VM_PFNMAP)
			sim_bug(__FILE__, __LINE__, "vm_insert_pages: VM_PFNMAP");
		vm_flags_set(vma, VM_MIXEDMAP);
	}
	for (unsigned long i = 0; *num; i++, idx++, (*num)--) {
		struct page *pg = pages[i];

		if (!pg || ((unsigned long)pg & ~PAGE_MASK))
			sim_bug(__FILE__, __LINE__, "vm_insert_pages: not a page");
		if (pg == &sim_zero_page && (vma->vm_flags & (VM_WRITE | VM_MAYWRITE)))
			return -EINVAL;
		if (vma->sim_pte[idx])
			return -EBUSY;
		vma->sim_pte[idx] = pg;
		if (pg != &sim_zero_page)
			sim_user_add(pg);
	}
	return 0;
}

int vm_insert_page(struct vm_area_struct *vma, unsigned long addr, struct page *page)
{
	unsigned long one = 1;

	return vm_insert_pages(vma, addr, &page, &one);
}

void sim_free_pages(void *addr, unsigned int order)
{
	if (sim_in_reserved(addr)) {
		sim_warn(__FILE__, __LINE__, "free_pages() of reserved memory", 0);
		return;
	}
	sim_user_check_free(addr, order);
	sim_gated_free(addr);
}

void *sim_alloc_percpu(size_t size)
{
	char *p;

	if (size > SIM_PCPU_UNIT)
		sim_bug(__FILE__, __LINE__, "per-CPU object larger than the unit");
	if (sim_alloc_fails())
		return NULL;
	p = sim_gated_alloc(64, (size_t)sim_nr_cpus * SIM_PCPU_UNIT);
	if (!p)
		return NULL;
	for (int cpu = 0; cpu < sim_nr_cpus; cpu++)
		memset(p + cpu * SIM_PCPU_UNIT, 0, size);
	return p;
}

void sim_free_percpu(void *p)
{
	sim_gated_free(p);
}

unsigned long *bitmap_zalloc(unsigned int nbits, gfp_t f)
{
	return sim_kmalloc(BITS_TO_LONGS(nbits) * sizeof(long), f | __GFP_ZERO);
}

void bitmap_free(const unsigned long *b)
{
	sim_gated_free((void *)b);
}

long si_mem_available(void)
{
	return SIM_RAM_PAGES;
}

/* ---------------------------------------------------------------- */
/* clock, seq_file, trace_seq                                       */
/* ---------------------------------------------------------------- */
u64 sim_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

u64 trace_clock_local(void)
{
	return sim_clock_ns();
}

u64 trace_clock(void)
{
	return sim_clock_ns();
}

/* ---------------------------------------------------------------- */
/* notifier chains, panic, cache flushes                            */
/* ---------------------------------------------------------------- */
int atomic_notifier_chain_register(struct atomic_notifier_head *h, struct notifier_block *n)
{
	struct notifier_block **pp;

	pthread_mutex_lock(&sim_notifier_lock);
	for (pp = &h->head; *pp; pp = &(*pp)->next) {
		if (*pp == n) {
			pthread_mutex_unlock(&sim_notifier_lock);
			sim_warn(__FILE__, __LINE__, "notifier registered twice", 0);
			return -EEXIST;
		}
		if (n->priority > (*pp)->priority)
			break;
	}
	n->next = *pp;
	*pp = n;
	pthread_mutex_unlock(&sim_notifier_lock);
	return 0;
}

int atomic_notifier_chain_unregister(struct atomic_notifier_head *h, struct notifier_block *n)
{
	struct notifier_block **pp;

	pthread_mutex_lock(&sim_notifier_lock);
	for (pp = &h->head; *pp; pp = &(*pp)->next) {
		if (*pp == n) {
			*pp = n->next;
			pthread_mutex_unlock(&sim_notifier_lock);
			return 0;
		}
	}
	pthread_mutex_unlock(&sim_notifier_lock);
	return -ENOENT;
}

/* As the kernel's: no lock taken (RCU there), callbacks in chain order. */
int atomic_notifier_call_chain(struct atomic_notifier_head *h, unsigned long val, void *v)
{
	struct notifier_block *n = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
	int ret = NOTIFY_DONE;

	while (n) {
		struct notifier_block *next = n->next;

		ret = n->notifier_call(n, val, v);
		if (ret & NOTIFY_STOP_MASK)
			break;
		n = next;
	}
	return ret;
}

int sim_notifier_count(struct atomic_notifier_head *h)
{
	int nr = 0;

	pthread_mutex_lock(&sim_notifier_lock);
	for (struct notifier_block *n = h->head; n; n = n->next)
		nr++;
	pthread_mutex_unlock(&sim_notifier_lock);
	return nr;
}

/* What panic() does for the ring buffer: call the panic notifiers. */
void sim_panic(const char *msg)
{
	atomic_notifier_call_chain(&panic_notifier_list, 0, (void *)msg);
}

unsigned long sim_flush_calls, sim_flush_start, sim_flush_end;
static unsigned long sim_flush_log[64][2];

void sim_flush_range(unsigned long start, unsigned long end)
{
	unsigned long n = __atomic_fetch_add(&sim_flush_calls, 1, __ATOMIC_SEQ_CST);

	sim_flush_start = start;
	sim_flush_end = end;
	sim_flush_log[n % 64][0] = start;
	sim_flush_log[n % 64][1] = end;
}

/* Of the flushes from call number @since on, how many overlapped [start, end), how many were exactly it. */
unsigned long sim_flush_count(unsigned long since, unsigned long start, unsigned long end,
			      unsigned long *exact)
{
	unsigned long n = 0;

	*exact = 0;
	for (unsigned long i = since; i < sim_flush_calls && i < since + 64; i++) {
		unsigned long s = sim_flush_log[i % 64][0], e = sim_flush_log[i % 64][1];

		if (s < end && e > start)
			n++;
		if (s == start && e == end)
			(*exact)++;
	}
	return n;
}

/*
 * Memory reserved for a persistent buffer: not the page allocator's.
 * Freeing a page of it, or kfree() of an address in it, warns.
 */
static unsigned long sim_resv_start, sim_resv_end;

void sim_reserve_range(unsigned long start, unsigned long size)
{
	sim_resv_start = start;
	sim_resv_end = size ? start + size : 0;
}

int sim_in_reserved(const void *p)
{
	unsigned long a = (unsigned long)p;

	return sim_resv_end && a >= sim_resv_start && a < sim_resv_end;
}

/*
 * A new boot on the calling thread: whatever it was in the middle of is
 * forgotten (preemption, interrupt level, the simulated CPUs it held).
 */
void sim_reboot_ctx(void)
{
	sim_ctx.pc = 0;
	sim_ctx.irqs_off = 0;
	sim_ctx.depth = 0;
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		__atomic_store_n(&sim_cpus[cpu].owner, 0, __ATOMIC_SEQ_CST);
}

/*
 * Read a seq_file as read(2) would, all of it, into buf (NUL-terminated);
 * returns its length or -1 if it did not fit.
 */
long sim_seq_read_all(struct file *f, char *buf, size_t size)
{
	struct seq_file *m = f->private_data;
	loff_t pos = 0;
	void *v;
	long ret;

	m->buf = buf;
	m->size = size;
	m->count = 0;
	buf[0] = 0;
	v = m->op->start(m, &pos);
	while (v) {
		if (m->op->show(m, v) < 0)
			break;
		v = m->op->next(m, v, &pos);
	}
	m->op->stop(m, v);
	ret = m->count < size ? (long)m->count : -1;
	m->buf = NULL;
	m->size = 0;
	return ret;
}

int seq_release(struct inode *inode, struct file *f)
{
	(void)inode;
	sim_gated_free(f->private_data);
	f->private_data = NULL;
	return 0;
}

int seq_open(struct file *f, const struct seq_operations *op)
{
	struct seq_file *m = sim_gated_alloc(16, ALIGN(sizeof(*m), 16));

	if (!m)
		return -ENOMEM;
	memset(m, 0, sizeof(*m));
	m->op = op;
	f->private_data = m;
	return 0;
}

void seq_printf(struct seq_file *m, const char *fmt, ...)
{
	va_list ap;

	if (!m->buf)
		return;
	va_start(ap, fmt);
	if (m->count < m->size)
		m->count += vsnprintf(m->buf + m->count, m->size - m->count, fmt, ap);
	va_end(ap);
}

static void sim_ts_vprintf(struct trace_seq *s, const char *fmt, va_list ap)
{
	size_t room = sizeof(s->buffer) - s->len;
	int n = vsnprintf(s->buffer + s->len, room, fmt, ap);

	if (n < 0 || (size_t)n >= room) {
		s->buffer[s->len] = 0;
		s->full = 1;
		return;
	}
	s->len += n;
}

void trace_seq_printf(struct trace_seq *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sim_ts_vprintf(s, fmt, ap);
	va_end(ap);
}

void trace_seq_puts(struct trace_seq *s, const char *str)
{
	trace_seq_printf(s, "%s", str);
}

void trace_seq_putc(struct trace_seq *s, unsigned char c)
{
	trace_seq_printf(s, "%c", c);
}

/* ---------------------------------------------------------------- */
/* start-up                                                         */
/* ---------------------------------------------------------------- */
void sim_init(int nr_cpus)
{
	static int done;
	struct sigaction sa;
	pthread_t th;

	if (nr_cpus < 1 || nr_cpus > NR_CPUS - 2)
		nr_cpus = 4;
	sim_nr_cpus = nr_cpus;
	memset(&sim_online_mask, 0, sizeof(sim_online_mask));
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		cpumask_set_cpu(cpu, &sim_online_mask);
	sim_possible_mask = sim_online_mask;
	sim_bind(0);
	if (done)
		return;
	done = 1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sim_on_irq;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR1);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = sim_on_nmi;
	sigaddset(&sa.sa_mask, SIGUSR2);
	sigaction(SIGUSR2, &sa, NULL);

	sem_init(&sim_iw_sem, 0, 0);
	pthread_create(&th, NULL, sim_irq_worker, NULL);
	pthread_detach(th);
	pthread_create(&th, NULL, sim_kworker, NULL);
	pthread_detach(th);
}
