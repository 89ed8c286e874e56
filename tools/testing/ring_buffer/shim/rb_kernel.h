/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for the kernel API used by kernel/trace/ring_buffer.c.
 *
 * Force-included (-include) before the ring buffer source, so every
 * <linux/...> header it names can be an empty stub.  Simulated CPUs are
 * threads (see sim.c); preemption and interrupt state live in the thread,
 * interrupts and NMIs are signals.  Atomics are __atomic builtins so that
 * ThreadSanitizer sees every one of them.
 */
#ifndef RB_KERNEL_H
#define RB_KERNEL_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdarg.h>
#include <string.h>
#include <limits.h>
#include <errno.h>

/* Take the guards of headers that must not be parsed. */
#define _LINUX_KERNEL_TRACE_H		/* kernel/trace/trace.h */
#define _LINUX_TRACE_RECURSION_H

/* ------------------------------------------------------------------ */
/* configuration                                                      */
/* ------------------------------------------------------------------ */
#if __SIZEOF_LONG__ == 8
#define CONFIG_64BIT 1
#define BITS_PER_LONG 64
#else
#define BITS_PER_LONG 32
#endif
#define CONFIG_SMP 1
#define CONFIG_RING_BUFFER 1
#define CONFIG_TRACING 1
#define CONFIG_RING_BUFFER_ALLOW_SWAP 1
#define CONFIG_ARCH_HAVE_NMI_SAFE_CMPXCHG 1
#define CONFIG_MMU 1
#define CONFIG_NR_CPUS 64
#define NR_CPUS 64
#define HZ 100

#define IS_ENABLED(opt) __rb_enabled_##opt
/* Every config symbol tested with IS_ENABLED() must be listed here. */
#define __rb_enabled_CONFIG_MITIGATION_RETPOLINE 0
/*
 * RB_CFG_WEAK builds the file as for a 64-bit arch that must align 64-bit
 * loads and whose 64-bit atomics are lib/atomic64.c's (not NMI-safe).
 */
#ifdef RB_CFG_WEAK
#define CONFIG_HAVE_64BIT_ALIGNED_ACCESS 1
#define __rb_enabled_CONFIG_GENERIC_ATOMIC64 1
#define __rb_enabled_CONFIG_HAVE_64BIT_ALIGNED_ACCESS 1
#else
#define __rb_enabled_CONFIG_GENERIC_ATOMIC64 0
#define __rb_enabled_CONFIG_HAVE_64BIT_ALIGNED_ACCESS 0
#endif
#define __rb_enabled_CONFIG_ARCH_HAVE_NMI_SAFE_CMPXCHG 1
#define __rb_enabled_CONFIG_RING_BUFFER_ALLOW_SWAP 1
#define __rb_enabled_CONFIG_MMU 1
#define __rb_enabled_CONFIG_64BIT (BITS_PER_LONG == 64)
#define __rb_enabled_CONFIG_SMP 1
#define __rb_enabled_CONFIG_RING_BUFFER_RECORD_RECURSION 0
#define __rb_enabled_CONFIG_RING_BUFFER_VALIDATE_TIME_DELTAS 0
#define __rb_enabled_CONFIG_RING_BUFFER_STARTUP_TEST 0
#define __rb_enabled_CONFIG_PREEMPTION 1
#define __rb_enabled_CONFIG_PREEMPT_RT 0
#define __rb_enabled_CONFIG_LOCKDEP 0
#define __rb_enabled_CONFIG_PROVE_LOCKING 0
#define __rb_enabled_CONFIG_DEBUG_ATOMIC_SLEEP 0
#define __rb_enabled_CONFIG_TRACE_IRQFLAGS 0
#define __rb_enabled_CONFIG_HAVE_UNSTABLE_SCHED_CLOCK 0

/* ------------------------------------------------------------------ */
/* types                                                              */
/* ------------------------------------------------------------------ */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef int32_t __s32;
typedef int64_t __s64;
/* the types glibc gives them, so that its headers may follow */
#if BITS_PER_LONG == 64
typedef long loff_t;
typedef long ssize_t;
#else
typedef long long loff_t;
typedef int ssize_t;
#endif
typedef unsigned int gfp_t;
typedef unsigned int __poll_t;
typedef unsigned long phys_addr_t;
typedef unsigned long pgoff_t;
typedef unsigned long vm_flags_t;
typedef int pid_t;

/* ------------------------------------------------------------------ */
/* compiler                                                           */
/* ------------------------------------------------------------------ */
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#undef __always_inline
#define __always_inline inline __attribute__((always_inline))
#define noinline __attribute__((noinline))
#define notrace
#define __init
#define __initdata
#define __exit
#define __read_mostly
#define __force
#define __user
#define __rcu
#define __percpu
#define __iomem
#define __must_check
#define __cold __attribute__((cold))
#define __maybe_unused __attribute__((unused))
#define __used __attribute__((used))
#define __packed __attribute__((packed))
#define __aligned(x) __attribute__((aligned(x)))
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define fallthrough __attribute__((fallthrough))
#define noinstr
#define __no_sanitize_address
#define EXPORT_SYMBOL(s)
#define EXPORT_SYMBOL_GPL(s)
#define late_initcall(fn) static int (*__rb_initcall_##fn)(void) __used = fn
#define core_initcall(fn) late_initcall(fn)
#define device_initcall(fn) late_initcall(fn)
#define __stringify_1(x) #x
#define __stringify(x) __stringify_1(x)
#define __RB_CAT2(a, b) a##b
#define __RB_CAT(a, b) __RB_CAT2(a, b)
#define __UNIQUE_ID(p) __RB_CAT(__rb_uniq_##p, __COUNTER__)

#define barrier() __asm__ __volatile__("" ::: "memory")
#define __same_type(a, b) __builtin_types_compatible_p(typeof(a), typeof(b))
#define is_signed_type(t) (((t)(-1)) < (t)1)
#define BUILD_BUG_ON(c) _Static_assert(!(c), "BUILD_BUG_ON: " #c)
#define BUILD_BUG_ON_MSG(c, m) _Static_assert(!(c), m)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#ifndef offsetof
#define offsetof(t, m) __builtin_offsetof(t, m)
#endif
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#ifdef RB_TSAN
/* Marked accesses: TSan does not model fences, so give them acq/rel. */
#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#define RB_ORD_LOAD __ATOMIC_ACQUIRE
#define RB_ORD_STORE __ATOMIC_RELEASE
#define RB_ORD_RMW __ATOMIC_ACQ_REL
#else
#define READ_ONCE(x) (*(const volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v) do { *(volatile typeof(x) *)&(x) = (v); } while (0)
#define RB_ORD_LOAD __ATOMIC_RELAXED
#define RB_ORD_STORE __ATOMIC_RELAXED
#define RB_ORD_RMW __ATOMIC_RELAXED
#endif

/*
 * data_race(): an access whose race is intended (seqcount-style copies).
 * TSan is told to ignore the reads inside; elsewhere it is the plain
 * expression, as in the kernel without KCSAN.
 */
#ifdef RB_TSAN
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
#define data_race(expr) ({					\
	AnnotateIgnoreReadsBegin(__FILE__, __LINE__);		\
	__auto_type __dr_v = (expr);				\
	AnnotateIgnoreReadsEnd(__FILE__, __LINE__);		\
	__dr_v;							\
})
#else
#define data_race(expr) (expr)
#endif

/* sparse lock annotations: nothing at compile time */
#ifndef __acquires
#define __acquires(x)
#define __releases(x)
#define __acquire(x) ((void)0)
#define __release(x) ((void)0)
#endif

#define mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_mb() mb()
#define smp_rmb() rmb()
#define smp_wmb() wmb()
#define smp_mb__before_atomic() mb()
#define smp_mb__after_atomic() mb()
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_store_mb(x, v) __atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)

#define min(a, b) ({ typeof(a) __a = (a); typeof(b) __b = (b); __a < __b ? __a : __b; })
#define max(a, b) ({ typeof(a) __a = (a); typeof(b) __b = (b); __a > __b ? __a : __b; })
#define max3(a, b, c) max(max(a, b), c)
#define min_t(t, a, b) ({ t __a = (a); t __b = (b); __a < __b ? __a : __b; })
#define max_t(t, a, b) ({ t __a = (a); t __b = (b); __a > __b ? __a : __b; })
#define clamp(v, lo, hi) min(max(v, lo), hi)
#define swap(a, b) do { typeof(a) __t = (a); (a) = (b); (b) = __t; } while (0)
#define ALIGN(x, a) (((x) + ((typeof(x))(a) - 1)) & ~((typeof(x))(a) - 1))
#define IS_ALIGNED(x, a) (((x) & ((typeof(x))(a) - 1)) == 0)
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define round_up(x, y) ((((x) - 1) | ((typeof(x))(y) - 1)) + 1)
#define round_down(x, y) ((x) & ~((typeof(x))(y) - 1))
#define BIT(n) (1UL << (n))
#define BIT_ULL(n) (1ULL << (n))
#define U64_MAX UINT64_MAX
#define U32_MAX UINT32_MAX
#define S64_MAX INT64_MAX
#define lower_32_bits(n) ((u32)(n))
#define upper_32_bits(n) ((u32)(((n) >> 16) >> 16))
#define do_div(n, base) ({ u32 __rem = (u64)(n) % (base); (n) = (u64)(n) / (base); __rem; })
#define div64_u64(a, b) ((a) / (b))
#define div_u64(a, b) ((a) / (b))
static inline u64 div_u64_rem(u64 a, u32 b, u32 *rem) { *rem = a % b; return a / b; }

/* ------------------------------------------------------------------ */
/* errors                                                             */
/* ------------------------------------------------------------------ */
#define ERESTARTSYS 512
#define ENOTSUPP 524
#define MAX_ERRNO 4095
#define IS_ERR_VALUE(x) unlikely((unsigned long)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *ERR_PTR(long e) { return (void *)e; }
static inline long PTR_ERR(const void *p) { return (long)p; }
static inline bool IS_ERR(const void *p) { return IS_ERR_VALUE(p); }
static inline bool IS_ERR_OR_NULL(const void *p) { return !p || IS_ERR_VALUE(p); }

/* ------------------------------------------------------------------ */
/* printing and warnings: a WARN fails the test                       */
/* ------------------------------------------------------------------ */
#define KERN_EMERG ""
#define KERN_ERR ""
#define KERN_WARNING ""
#define KERN_INFO ""
#define KERN_DEBUG ""
#define KERN_CONT ""
void sim_printk(const char *fmt, ...) __printf(1, 2);
void sim_warn(const char *file, int line, const char *cond, int once);
void sim_bug(const char *file, int line, const char *cond) __attribute__((noreturn));
#define printk(fmt, ...) sim_printk(fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...) sim_printk(fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...) sim_printk(fmt, ##__VA_ARGS__)
#define pr_warn_once(fmt, ...) sim_printk(fmt, ##__VA_ARGS__)
#define pr_warn_ratelimited(fmt, ...) sim_printk(fmt, ##__VA_ARGS__)
#define pr_err(fmt, ...) sim_printk(fmt, ##__VA_ARGS__)
#define pr_cont(fmt, ...) sim_printk(fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...) do { } while (0)
#define pr_notice(fmt, ...) sim_printk(fmt, ##__VA_ARGS__)
#define WARN_ON(c) ({ int __w = !!(c); if (unlikely(__w)) sim_warn(__FILE__, __LINE__, #c, 0); unlikely(__w); })
#define WARN_ON_ONCE(c) ({ int __w = !!(c); if (unlikely(__w)) sim_warn(__FILE__, __LINE__, #c, 1); unlikely(__w); })
#define WARN(c, fmt, ...) ({ int __w = !!(c); if (unlikely(__w)) { sim_printk(fmt, ##__VA_ARGS__); sim_warn(__FILE__, __LINE__, #c, 0); } unlikely(__w); })
#define WARN_ONCE(c, fmt, ...) WARN(c, fmt, ##__VA_ARGS__)
#define BUG_ON(c) do { if (unlikely(c)) sim_bug(__FILE__, __LINE__, #c); } while (0)
#define BUG() sim_bug(__FILE__, __LINE__, "BUG")
#define dump_stack() do { } while (0)

/* ------------------------------------------------------------------ */
/* simulated CPU / context                                            */
/* ------------------------------------------------------------------ */
#define PREEMPT_BITS 8
#define SOFTIRQ_BITS 8
#define HARDIRQ_BITS 4
#define NMI_BITS 4
#define PREEMPT_SHIFT 0
#define SOFTIRQ_SHIFT 8
#define HARDIRQ_SHIFT 16
#define NMI_SHIFT 20
#define PREEMPT_MASK 0x000000ffU
#define SOFTIRQ_MASK 0x0000ff00U
#define HARDIRQ_MASK 0x000f0000U
#define NMI_MASK 0x00f00000U
#define PREEMPT_OFFSET (1U << PREEMPT_SHIFT)
#define SOFTIRQ_OFFSET (1U << SOFTIRQ_SHIFT)
#define SOFTIRQ_DISABLE_OFFSET (2 * SOFTIRQ_OFFSET)
#define HARDIRQ_OFFSET (1U << HARDIRQ_SHIFT)
#define NMI_OFFSET (1U << NMI_SHIFT)

struct sim_thread;
extern __thread struct sim_thread *sim_self;
struct sim_ctx {
	int cpu;		/* simulated CPU id */
	unsigned int pc;	/* preempt_count, kernel layout */
	int irqs_off;		/* local irqs disabled */
	int depth;		/* non-zero: not preemptible */
};
extern __thread struct sim_ctx sim_ctx;
extern int sim_nr_cpus;
extern int sim_exclusive;

void sim_atomic_enter(void);
void sim_atomic_exit(void);
void sim_irq_enable_hook(void);
void sim_might_sleep(const char *what);

static inline int raw_smp_processor_id(void) { return sim_ctx.cpu; }
#define smp_processor_id() raw_smp_processor_id()
#define get_cpu() ({ preempt_disable(); smp_processor_id(); })
#define put_cpu() preempt_enable()
static inline unsigned int preempt_count(void)
{
	return __atomic_load_n(&sim_ctx.pc, __ATOMIC_RELAXED);
}

static inline void sim_depth_inc(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (sim_ctx.depth++ == 0 && sim_exclusive)
		sim_atomic_enter();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline void sim_depth_dec(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (--sim_ctx.depth == 0 && sim_exclusive)
		sim_atomic_exit();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline void preempt_disable(void)
{
	sim_ctx.pc += PREEMPT_OFFSET;
	sim_depth_inc();
}

static inline void preempt_enable(void)
{
	sim_depth_dec();
	sim_ctx.pc -= PREEMPT_OFFSET;
}
#define preempt_disable_notrace() preempt_disable()
#define preempt_enable_notrace() preempt_enable()
#define preempt_enable_no_resched() preempt_enable()
#define preempt_enable_no_resched_notrace() preempt_enable()
/* simulated tasks never migrate */
#define migrate_disable() do { } while (0)
#define migrate_enable() do { } while (0)
#define preemptible() (sim_ctx.depth == 0)

static inline unsigned long sim_irq_save(void)
{
	unsigned long was = sim_ctx.irqs_off;

	if (!was) {
		sim_depth_inc();
		sim_ctx.irqs_off = 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	}
	return was;
}

static inline void sim_irq_restore(unsigned long was)
{
	if (!was && sim_ctx.irqs_off) {
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		sim_ctx.irqs_off = 0;
		sim_depth_dec();
		sim_irq_enable_hook();
	}
}
#define local_irq_save(f) do { (f) = sim_irq_save(); } while (0)
#define local_irq_restore(f) sim_irq_restore(f)
#define local_irq_disable() ((void)sim_irq_save())
#define local_irq_enable() sim_irq_restore(0)
#define irqs_disabled() (sim_ctx.irqs_off != 0)
#define raw_local_irq_save(f) local_irq_save(f)
#define raw_local_irq_restore(f) local_irq_restore(f)
#define lockdep_assert_irqs_disabled() WARN_ON_ONCE(!irqs_disabled())

#define nmi_count(pc) (((pc) & NMI_MASK) >> NMI_SHIFT)
#define in_nmi() (preempt_count() & NMI_MASK)
/* set by an oops or a panic (bust_spinlocks()) */
extern int oops_in_progress;
#define in_hardirq() (preempt_count() & HARDIRQ_MASK)
#define in_irq() in_hardirq()
#define in_serving_softirq() (preempt_count() & SOFTIRQ_OFFSET)
#define in_softirq() (preempt_count() & SOFTIRQ_MASK)
#define in_interrupt() (preempt_count() & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_MASK))
#define in_task() (!(preempt_count() & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET)))
static inline unsigned char interrupt_context_level(void)
{
	unsigned int pc = preempt_count();
	unsigned char lvl = 0;

	if (pc & NMI_MASK)
		lvl++;
	if (pc & (NMI_MASK | HARDIRQ_MASK))
		lvl++;
	if (pc & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET))
		lvl++;
	return lvl;
}
#define local_bh_disable() do { sim_ctx.pc += SOFTIRQ_DISABLE_OFFSET; sim_depth_inc(); } while (0)
#define local_bh_enable() do { sim_depth_dec(); sim_ctx.pc -= SOFTIRQ_DISABLE_OFFSET; } while (0)

#define might_sleep() sim_might_sleep(__func__)
#define cond_resched() ({ sim_might_sleep(__func__); 0; })
#define cpu_relax() __builtin_ia32_pause()

/* ------------------------------------------------------------------ */
/* CPU masks                                                          */
/* ------------------------------------------------------------------ */
struct cpumask { unsigned long bits[NR_CPUS / BITS_PER_LONG]; };
typedef struct cpumask cpumask_t;
typedef struct cpumask cpumask_var_t[1];
/* possible = present = CPUs 0 .. nr_cpu_ids - 1; sim_cpu_down/up change online */
extern struct cpumask sim_online_mask, sim_possible_mask;
#define cpu_online_mask ((const struct cpumask *)&sim_online_mask)
#define cpu_possible_mask ((const struct cpumask *)&sim_possible_mask)
#define cpu_present_mask cpu_possible_mask
#define nr_cpu_ids ((unsigned int)sim_nr_cpus)
#define NUMA_NO_NODE (-1)
static inline int cpu_to_node(int cpu) { (void)cpu; return 0; }
static inline bool cpumask_test_cpu(int cpu, const struct cpumask *m)
{
#ifndef RB_STOCK
	/*
	 * CONFIG_DEBUG_PER_CPU_MAPS's cpumask_check() where NR_CPUS exceeds
	 * BITS_PER_LONG (distribution kernels): a CPU number at or above
	 * nr_cpu_ids warns.  Stock's API functions test the mask before any
	 * bound, so for STOCK=1 the shim only answers false, as a kernel
	 * without that option does.
	 */
	if (WARN_ON_ONCE((unsigned int)cpu >= nr_cpu_ids))
		return false;
#endif
	return cpu >= 0 && cpu < NR_CPUS &&
		((__atomic_load_n(&m->bits[cpu / BITS_PER_LONG], __ATOMIC_RELAXED)
		  >> (cpu % BITS_PER_LONG)) & 1);
}
static inline void cpumask_set_cpu(int cpu, struct cpumask *m)
{
	__atomic_fetch_or(&m->bits[cpu / BITS_PER_LONG], 1UL << (cpu % BITS_PER_LONG), __ATOMIC_RELAXED);
}
static inline void cpumask_clear_cpu(int cpu, struct cpumask *m)
{
	__atomic_fetch_and(&m->bits[cpu / BITS_PER_LONG], ~(1UL << (cpu % BITS_PER_LONG)), __ATOMIC_RELAXED);
}
static inline int sim_mask_next(int cpu, const struct cpumask *m)
{
	for (cpu++; cpu < (int)nr_cpu_ids; cpu++)
		if (cpumask_test_cpu(cpu, m))
			return cpu;
	return nr_cpu_ids;
}
static inline int sim_mask_next_and(int cpu, const struct cpumask *a, const struct cpumask *b)
{
	for (cpu++; cpu < (int)nr_cpu_ids; cpu++)
		if (cpumask_test_cpu(cpu, a) && cpumask_test_cpu(cpu, b))
			return cpu;
	return nr_cpu_ids;
}
#define cpumask_next(n, m) sim_mask_next((n), (m))
#define cpumask_first(m) sim_mask_next(-1, (m))
#define for_each_cpu(cpu, mask) \
	for ((cpu) = sim_mask_next(-1, (mask)); (cpu) < (int)nr_cpu_ids; (cpu) = sim_mask_next((cpu), (mask)))
#define for_each_cpu_and(cpu, a, b) \
	for ((cpu) = sim_mask_next_and(-1, (a), (b)); (cpu) < (int)nr_cpu_ids; (cpu) = sim_mask_next_and((cpu), (a), (b)))
#define for_each_online_cpu(cpu) for_each_cpu((cpu), cpu_online_mask)
#define for_each_possible_cpu(cpu) for_each_cpu((cpu), cpu_possible_mask)
#define for_each_present_cpu(cpu) for_each_cpu((cpu), cpu_possible_mask)
#define cpu_online(cpu) cpumask_test_cpu((cpu), cpu_online_mask)
#define cpu_possible(cpu) cpumask_test_cpu((cpu), cpu_possible_mask)
#define num_online_cpus() ({ int __c, __n = 0; for_each_online_cpu(__c) __n++; __n; })
#define num_possible_cpus() nr_cpu_ids
static inline bool zalloc_cpumask_var(cpumask_var_t *m, gfp_t f)
{
	(void)f;
	memset(*m, 0, sizeof(**m));
	return true;
}
#define alloc_cpumask_var(m, f) zalloc_cpumask_var((m), (f))
static inline void free_cpumask_var(cpumask_var_t m) { (void)m; }
static inline void cpumask_copy(struct cpumask *d, const struct cpumask *s) { *d = *s; }
#define cpus_read_lock() do { } while (0)
#define cpus_read_unlock() do { } while (0)
#define get_online_cpus() do { } while (0)
#define put_online_cpus() do { } while (0)

/*
 * Per-CPU data.  A per-CPU pointer is the CPU 0 copy; the copy of CPU n
 * lies n * SIM_PCPU_UNIT bytes further (one unit per CPU, no false sharing
 * between simulated CPUs).  DEFINE_PER_CPU variables are plain arrays,
 * reached with per_cpu() only.
 */
#define SIM_PCPU_UNIT (1UL << 16)
void *sim_alloc_percpu(size_t size);
void sim_free_percpu(void *p);
#define alloc_percpu(type) ((typeof(type) *)sim_alloc_percpu(sizeof(type)))
#define alloc_percpu_gfp(type, gfp) alloc_percpu(type)
#define free_percpu(p) sim_free_percpu((void *)(p))
#define per_cpu_ptr(p, cpu) ((typeof(p))((char *)(p) + (unsigned long)(cpu) * SIM_PCPU_UNIT))
#define this_cpu_ptr(p) per_cpu_ptr(p, smp_processor_id())
#define raw_cpu_ptr(p) this_cpu_ptr(p)
#define DEFINE_PER_CPU(type, name) typeof(type) name[NR_CPUS]
#define DECLARE_PER_CPU(type, name) extern typeof(type) name[NR_CPUS]
#define per_cpu(var, cpu) ((var)[cpu])

/*
 * CPU hotplug, the one state the ring buffer has: an added instance is
 * kept on a list (sim.c); with calls, it is prepared on every online CPU
 * first.  sim_cpu_up() prepares every listed instance for the CPU, then
 * sets it online, as the kernel's CPUHP_TRACE_RB_PREPARE step does.
 */
struct hlist_node { struct hlist_node *next, **pprev; };
struct hlist_head { struct hlist_node *first; };
enum cpuhp_state { CPUHP_TRACE_RB_PREPARE = 1 };
int trace_rb_cpu_prepare(unsigned int cpu, struct hlist_node *node);
int sim_cpuhp_add(struct hlist_node *n, bool call);
void sim_cpuhp_remove(struct hlist_node *n);
#define cpuhp_state_add_instance(s, n) ((void)(s), sim_cpuhp_add((n), true))
#define cpuhp_state_add_instance_nocalls(s, n) ((void)(s), sim_cpuhp_add((n), false))
#define cpuhp_state_add_instance_nocalls_cpuslocked(s, n) cpuhp_state_add_instance_nocalls(s, n)
#define cpuhp_state_remove_instance(s, n) ({ (void)(s); sim_cpuhp_remove(n); 0; })
#define cpuhp_state_remove_instance_nocalls(s, n) cpuhp_state_remove_instance(s, n)
#define cpuhp_state_remove_instance_nocalls_cpuslocked(s, n) cpuhp_state_remove_instance(s, n)
#define hlist_entry(p, t, m) container_of(p, t, m)
#define hlist_entry_safe(p, t, m) ({ typeof(p) __p = (p); __p ? hlist_entry(__p, t, m) : NULL; })

/* ------------------------------------------------------------------ */
/* atomics                                                            */
/* ------------------------------------------------------------------ */
typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic_long_t;
/* 8-byte aligned as in the kernel: i386 aligns a plain s64 to 4 only */
typedef struct { s64 counter __aligned(8); } atomic64_t;
#define ATOMIC_INIT(i) { (i) }

#define __RB_ATOMIC_OPS(pfx, T, V)							\
static inline V pfx##_read(const T *v) { return __atomic_load_n(&v->counter, RB_ORD_LOAD); } \
static inline V pfx##_read_acquire(const T *v) { return __atomic_load_n(&v->counter, __ATOMIC_ACQUIRE); } \
static inline void pfx##_set(T *v, V i) { __atomic_store_n(&v->counter, i, RB_ORD_STORE); } \
static inline void pfx##_set_release(T *v, V i) { __atomic_store_n(&v->counter, i, __ATOMIC_RELEASE); } \
static inline void pfx##_add(V i, T *v) { __atomic_fetch_add(&v->counter, i, RB_ORD_RMW); } \
static inline void pfx##_sub(V i, T *v) { __atomic_fetch_sub(&v->counter, i, RB_ORD_RMW); } \
static inline void pfx##_inc(T *v) { __atomic_fetch_add(&v->counter, 1, RB_ORD_RMW); } \
static inline void pfx##_dec(T *v) { __atomic_fetch_sub(&v->counter, 1, RB_ORD_RMW); } \
static inline void pfx##_or(V i, T *v) { __atomic_fetch_or(&v->counter, i, RB_ORD_RMW); } \
static inline void pfx##_and(V i, T *v) { __atomic_fetch_and(&v->counter, i, RB_ORD_RMW); } \
static inline void pfx##_andnot(V i, T *v) { __atomic_fetch_and(&v->counter, ~i, RB_ORD_RMW); } \
static inline V pfx##_fetch_or(V i, T *v) { return __atomic_fetch_or(&v->counter, i, __ATOMIC_SEQ_CST); } \
static inline V pfx##_fetch_and(V i, T *v) { return __atomic_fetch_and(&v->counter, i, __ATOMIC_SEQ_CST); } \
static inline V pfx##_fetch_andnot(V i, T *v) { return __atomic_fetch_and(&v->counter, ~i, __ATOMIC_SEQ_CST); } \
static inline V pfx##_add_return(V i, T *v) { return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST); } \
static inline V pfx##_sub_return(V i, T *v) { return __atomic_sub_fetch(&v->counter, i, __ATOMIC_SEQ_CST); } \
static inline V pfx##_inc_return(T *v) { return __atomic_add_fetch(&v->counter, 1, __ATOMIC_SEQ_CST); } \
static inline V pfx##_dec_return(T *v) { return __atomic_sub_fetch(&v->counter, 1, __ATOMIC_SEQ_CST); } \
static inline V pfx##_fetch_add(V i, T *v) { return __atomic_fetch_add(&v->counter, i, __ATOMIC_SEQ_CST); } \
static inline V pfx##_fetch_inc(T *v) { return __atomic_fetch_add(&v->counter, 1, __ATOMIC_SEQ_CST); } \
static inline V pfx##_fetch_inc_release(T *v) { return __atomic_fetch_add(&v->counter, 1, __ATOMIC_RELEASE); } \
static inline V pfx##_fetch_dec(T *v) { return __atomic_fetch_sub(&v->counter, 1, __ATOMIC_SEQ_CST); } \
static inline bool pfx##_dec_and_test(T *v) { return __atomic_sub_fetch(&v->counter, 1, __ATOMIC_SEQ_CST) == 0; } \
static inline bool pfx##_inc_and_test(T *v) { return __atomic_add_fetch(&v->counter, 1, __ATOMIC_SEQ_CST) == 0; } \
static inline V pfx##_xchg(T *v, V n) { return __atomic_exchange_n(&v->counter, n, __ATOMIC_SEQ_CST); } \
static inline V pfx##_cmpxchg(T *v, V o, V n) \
{ __atomic_compare_exchange_n(&v->counter, &o, n, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); return o; } \
static inline bool pfx##_try_cmpxchg(T *v, V *o, V n) \
{ return __atomic_compare_exchange_n(&v->counter, o, n, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); } \
static inline bool pfx##_try_cmpxchg_relaxed(T *v, V *o, V n) \
{ return __atomic_compare_exchange_n(&v->counter, o, n, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); }

__RB_ATOMIC_OPS(atomic, atomic_t, int)
__RB_ATOMIC_OPS(atomic_long, atomic_long_t, long)
__RB_ATOMIC_OPS(atomic64, atomic64_t, s64)

/*
 * local_t: atomic with respect to the owning CPU (and its interrupts) in
 * the kernel; here a real atomic without ordering, as on most arches.
 */
typedef struct { long counter; } local_t;
typedef struct { s64 counter __aligned(8); } local64_t;
/*
 * Test hook: an add to the counter at sim_local_split_at, from the thread
 * that set it, is a load, a call of sim_local_split_fn(), then a store -
 * what a remote store landing inside a CPU-local increment sees.
 */
#ifdef RB_BENCH
#define RB_LOCAL_SPLIT(l) 0
#define sim_local_split_fn() do { } while (0)
#else
extern __thread void *sim_local_split_at;
extern __thread void (*sim_local_split_fn)(void);
#define RB_LOCAL_SPLIT(l) __builtin_expect(sim_local_split_at == (void *)(l), 0)
#endif
#define LOCAL_INIT(i) { (i) }
#define __RB_LOCAL_OPS(pfx, T, V)							\
static inline V pfx##_read(const T *l) { return __atomic_load_n(&l->counter, RB_ORD_LOAD); } \
static inline void pfx##_set(T *l, V i) { __atomic_store_n(&l->counter, i, RB_ORD_STORE); } \
static inline void pfx##_add(V i, T *l)							\
{											\
	if (RB_LOCAL_SPLIT(l)) {							\
		V __v = pfx##_read(l);							\
		sim_local_split_fn();							\
		pfx##_set(l, __v + i);							\
		return;									\
	}										\
	__atomic_fetch_add(&l->counter, i, RB_ORD_RMW);					\
}											\
static inline void pfx##_sub(V i, T *l) { __atomic_fetch_sub(&l->counter, i, RB_ORD_RMW); } \
static inline void pfx##_inc(T *l) { pfx##_add(1, l); } \
static inline void pfx##_dec(T *l) { __atomic_fetch_sub(&l->counter, 1, RB_ORD_RMW); } \
static inline V pfx##_add_return(V i, T *l) { return __atomic_add_fetch(&l->counter, i, RB_ORD_RMW); } \
static inline V pfx##_sub_return(V i, T *l) { return __atomic_sub_fetch(&l->counter, i, RB_ORD_RMW); } \
static inline V pfx##_inc_return(T *l) { return __atomic_add_fetch(&l->counter, 1, RB_ORD_RMW); } \
static inline V pfx##_dec_return(T *l) { return __atomic_sub_fetch(&l->counter, 1, RB_ORD_RMW); } \
static inline V pfx##_xchg(T *l, V n) { return __atomic_exchange_n(&l->counter, n, RB_ORD_RMW); } \
static inline V pfx##_cmpxchg(T *l, V o, V n) \
{ __atomic_compare_exchange_n(&l->counter, &o, n, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED); return o; } \
static inline bool pfx##_try_cmpxchg(T *l, V *o, V n) \
{ return __atomic_compare_exchange_n(&l->counter, o, n, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED); }

__RB_LOCAL_OPS(local, local_t, long)
__RB_LOCAL_OPS(local64, local64_t, s64)

#define cmpxchg(p, o, n) ({ typeof(*(p)) __o = (o); \
	__atomic_compare_exchange_n((p), &__o, (n), false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); __o; })
#define try_cmpxchg(p, po, n) \
	__atomic_compare_exchange_n((p), (po), (n), false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define cmpxchg_local(p, o, n) cmpxchg(p, o, n)
#define cmpxchg64(p, o, n) cmpxchg(p, o, n)
#define xchg(p, v) __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)

/* bit operations */
#define BITS_TO_LONGS(n) DIV_ROUND_UP(n, BITS_PER_LONG)
#define DECLARE_BITMAP(name, bits) unsigned long name[BITS_TO_LONGS(bits)]
static inline void set_bit(long nr, volatile unsigned long *a)
{
	__atomic_fetch_or((unsigned long *)&a[nr / BITS_PER_LONG], 1UL << (nr % BITS_PER_LONG), __ATOMIC_SEQ_CST);
}
static inline void clear_bit(long nr, volatile unsigned long *a)
{
	__atomic_fetch_and((unsigned long *)&a[nr / BITS_PER_LONG], ~(1UL << (nr % BITS_PER_LONG)), __ATOMIC_SEQ_CST);
}
static inline bool test_bit(long nr, const volatile unsigned long *a)
{
	return (__atomic_load_n((unsigned long *)&a[nr / BITS_PER_LONG], __ATOMIC_RELAXED) >> (nr % BITS_PER_LONG)) & 1;
}
static inline bool test_and_set_bit(long nr, volatile unsigned long *a)
{
	unsigned long m = 1UL << (nr % BITS_PER_LONG);

	return __atomic_fetch_or((unsigned long *)&a[nr / BITS_PER_LONG], m, __ATOMIC_SEQ_CST) & m;
}
static inline bool test_and_clear_bit(long nr, volatile unsigned long *a)
{
	unsigned long m = 1UL << (nr % BITS_PER_LONG);

	return __atomic_fetch_and((unsigned long *)&a[nr / BITS_PER_LONG], ~m, __ATOMIC_SEQ_CST) & m;
}
#define __set_bit(nr, a) set_bit(nr, a)
#define __clear_bit(nr, a) clear_bit(nr, a)
unsigned long *bitmap_zalloc(unsigned int nbits, gfp_t f);
#define bitmap_alloc(n, f) bitmap_zalloc((n), (f))
void bitmap_free(const unsigned long *b);
static inline void bitmap_clear(unsigned long *b, unsigned int start, unsigned int n)
{
	while (n--)
		clear_bit(start++, b);
}
static inline void bitmap_set(unsigned long *b, unsigned int start, unsigned int n)
{
	while (n--)
		set_bit(start++, b);
}
#define fls(x) ((x) ? 32 - __builtin_clz(x) : 0)
#define fls64(x) ((x) ? 64 - __builtin_clzll(x) : 0)
#define ilog2(n) (63 - __builtin_clzll(n))
#define is_power_of_2(n) ((n) != 0 && (((n) & ((n) - 1)) == 0))
#define roundup_pow_of_two(n) (1UL << fls64((unsigned long)(n) - 1))

/* ------------------------------------------------------------------ */
/* locks                                                              */
/* ------------------------------------------------------------------ */
typedef struct { int locked; int owner; } arch_spinlock_t;
#define __ARCH_SPIN_LOCK_UNLOCKED { 0, 0 }
typedef struct { arch_spinlock_t l; } raw_spinlock_t;
typedef raw_spinlock_t spinlock_t;
#define __RAW_SPIN_LOCK_UNLOCKED(n) { __ARCH_SPIN_LOCK_UNLOCKED }
#define DEFINE_RAW_SPINLOCK(n) raw_spinlock_t n = __RAW_SPIN_LOCK_UNLOCKED(n)
#define DEFINE_SPINLOCK(n) DEFINE_RAW_SPINLOCK(n)
void arch_spin_lock(arch_spinlock_t *l);
void arch_spin_unlock(arch_spinlock_t *l);
int arch_spin_trylock(arch_spinlock_t *l);
bool sim_arch_lock_held(arch_spinlock_t *l);
#define raw_spin_lock_init(p) do { *(p) = (raw_spinlock_t)__RAW_SPIN_LOCK_UNLOCKED(x); } while (0)
#define spin_lock_init(p) raw_spin_lock_init(p)
static inline void raw_spin_lock(raw_spinlock_t *l) { preempt_disable(); arch_spin_lock(&l->l); }
static inline void raw_spin_unlock(raw_spinlock_t *l) { arch_spin_unlock(&l->l); preempt_enable(); }
static inline int raw_spin_trylock(raw_spinlock_t *l)
{
	preempt_disable();
	if (arch_spin_trylock(&l->l))
		return 1;
	preempt_enable();
	return 0;
}
static inline void raw_spin_lock_irq(raw_spinlock_t *l) { local_irq_disable(); raw_spin_lock(l); }
static inline void raw_spin_unlock_irq(raw_spinlock_t *l) { raw_spin_unlock(l); local_irq_enable(); }
#define raw_spin_lock_irqsave(l, f) do { local_irq_save(f); raw_spin_lock(l); } while (0)
#define raw_spin_unlock_irqrestore(l, f) do { raw_spin_unlock(l); local_irq_restore(f); } while (0)
#define spin_lock(l) raw_spin_lock(l)
#define spin_unlock(l) raw_spin_unlock(l)
#define spin_lock_irq(l) raw_spin_lock_irq(l)
#define spin_unlock_irq(l) raw_spin_unlock_irq(l)
#define spin_lock_irqsave(l, f) raw_spin_lock_irqsave(l, f)
#define spin_unlock_irqrestore(l, f) raw_spin_unlock_irqrestore(l, f)

struct mutex { long opaque[6]; int owner; };
#define DEFINE_MUTEX(n) struct mutex n = { { 0 }, 0 }
void mutex_init(struct mutex *m);
void mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);
int mutex_trylock(struct mutex *m);
bool mutex_is_locked(struct mutex *m);
#define mutex_lock_interruptible(m) ({ mutex_lock(m); 0; })
#define mutex_destroy(m) do { } while (0)
int sim_tid(void);

struct lock_class_key { char unused; };
#define lockdep_set_class(l, k) do { (void)(k); } while (0)
#define lockdep_set_class_and_name(l, k, n) do { (void)(k); } while (0)
static inline bool sim_held_raw(raw_spinlock_t *l) { return sim_arch_lock_held(&l->l); }
static inline bool sim_held_mutex(struct mutex *m) { return __atomic_load_n(&m->owner, __ATOMIC_RELAXED) == sim_tid(); }
#define lockdep_assert_held(l) WARN_ON_ONCE(!_Generic((l),			\
	raw_spinlock_t *: sim_held_raw,						\
	arch_spinlock_t *: sim_arch_lock_held,					\
	struct mutex *: sim_held_mutex)(l))
#define lockdep_assert_held_once(l) lockdep_assert_held(l)
#define lockdep_assert_preemption_disabled() WARN_ON_ONCE(preemptible())

/* scope-based cleanup: guard(), scoped_guard(), __free() */
#define __cleanup(f) __attribute__((cleanup(f)))
#define __free(n) __cleanup(__rb_free_##n)
static inline void __rb_free_kfree(void *p);
#define no_free_ptr(p) ({ typeof(p) __p = (p); (p) = NULL; __p; })
#define return_ptr(p) return no_free_ptr(p)

typedef struct { struct mutex *m; } rb_guard_t_mutex;
static inline rb_guard_t_mutex rb_guard_in_mutex(struct mutex *m) { mutex_lock(m); return (rb_guard_t_mutex){ m }; }
static inline void rb_guard_out_mutex(rb_guard_t_mutex *g) { mutex_unlock(g->m); }
typedef struct { raw_spinlock_t *l; unsigned long f; } rb_guard_t_raw_spinlock_irqsave;
static inline rb_guard_t_raw_spinlock_irqsave rb_guard_in_raw_spinlock_irqsave(raw_spinlock_t *l)
{
	rb_guard_t_raw_spinlock_irqsave g = { l, 0 };

	raw_spin_lock_irqsave(l, g.f);
	return g;
}
static inline void rb_guard_out_raw_spinlock_irqsave(rb_guard_t_raw_spinlock_irqsave *g)
{
	raw_spin_unlock_irqrestore(g->l, g->f);
}
typedef struct { raw_spinlock_t *l; } rb_guard_t_raw_spinlock;
static inline rb_guard_t_raw_spinlock rb_guard_in_raw_spinlock(raw_spinlock_t *l) { raw_spin_lock(l); return (rb_guard_t_raw_spinlock){ l }; }
static inline void rb_guard_out_raw_spinlock(rb_guard_t_raw_spinlock *g) { raw_spin_unlock(g->l); }
typedef struct { raw_spinlock_t *l; } rb_guard_t_raw_spinlock_irq;
static inline rb_guard_t_raw_spinlock_irq rb_guard_in_raw_spinlock_irq(raw_spinlock_t *l) { raw_spin_lock_irq(l); return (rb_guard_t_raw_spinlock_irq){ l }; }
static inline void rb_guard_out_raw_spinlock_irq(rb_guard_t_raw_spinlock_irq *g) { raw_spin_unlock_irq(g->l); }
typedef struct { arch_spinlock_t *l; } rb_guard_t_arch_spinlock;
static inline rb_guard_t_arch_spinlock rb_guard_in_arch_spinlock(arch_spinlock_t *l) { arch_spin_lock(l); return (rb_guard_t_arch_spinlock){ l }; }
static inline void rb_guard_out_arch_spinlock(rb_guard_t_arch_spinlock *g) { arch_spin_unlock(g->l); }
typedef struct { int unused; } rb_guard_t_cpus_read_lock;
static inline rb_guard_t_cpus_read_lock rb_guard_in_cpus_read_lock(void) { return (rb_guard_t_cpus_read_lock){ 0 }; }
static inline void rb_guard_out_cpus_read_lock(rb_guard_t_cpus_read_lock *g) { (void)g; }
typedef struct { int unused; } rb_guard_t_preempt;
static inline rb_guard_t_preempt rb_guard_in_preempt(void) { preempt_disable(); return (rb_guard_t_preempt){ 0 }; }
static inline void rb_guard_out_preempt(rb_guard_t_preempt *g) { (void)g; preempt_enable(); }
#define rb_guard_in_preempt_notrace rb_guard_in_preempt
#define rb_guard_out_preempt_notrace rb_guard_out_preempt
#define rb_guard_t_preempt_notrace rb_guard_t_preempt
typedef struct { unsigned long f; } rb_guard_t_irqsave;
static inline rb_guard_t_irqsave rb_guard_in_irqsave(void) { rb_guard_t_irqsave g; local_irq_save(g.f); return g; }
static inline void rb_guard_out_irqsave(rb_guard_t_irqsave *g) { local_irq_restore(g->f); }

#define guard(name) \
	rb_guard_t_##name __UNIQUE_ID(guard) __cleanup(rb_guard_out_##name) = rb_guard_in_##name
#define scoped_guard(name, ...)							\
	for (rb_guard_t_##name __rb_sg __cleanup(rb_guard_out_##name) =		\
		rb_guard_in_##name(__VA_ARGS__), *__rb_sg_done = NULL;		\
	     !__rb_sg_done; __rb_sg_done = (void *)1)

/* ------------------------------------------------------------------ */
/* RCU                                                                */
/* ------------------------------------------------------------------ */
void synchronize_rcu(void);
#define synchronize_rcu_tasks() synchronize_rcu()
#define synchronize_sched() synchronize_rcu()
#define rcu_read_lock() preempt_disable()
#define rcu_read_unlock() preempt_enable()
#define rcu_read_lock_sched_notrace() preempt_disable()
#define rcu_read_unlock_sched_notrace() preempt_enable()
#define rcu_dereference(p) READ_ONCE(p)
#define rcu_dereference_sched(p) READ_ONCE(p)
#define rcu_dereference_raw(p) READ_ONCE(p)
#define rcu_assign_pointer(p, v) smp_store_release(&(p), (v))
#define RCU_INIT_POINTER(p, v) WRITE_ONCE(p, v)

/* ------------------------------------------------------------------ */
/* lists                                                              */
/* ------------------------------------------------------------------ */
struct list_head { struct list_head *next, *prev; };
#define LIST_HEAD_INIT(n) { &(n), &(n) }
#define LIST_HEAD(n) struct list_head n = LIST_HEAD_INIT(n)
static inline void INIT_LIST_HEAD(struct list_head *h)
{
	WRITE_ONCE(h->next, h);
	WRITE_ONCE(h->prev, h);
}
static inline void __rb_list_link(struct list_head *n, struct list_head *p, struct list_head *nx)
{
	nx->prev = n;
	n->next = nx;
	n->prev = p;
	WRITE_ONCE(p->next, n);
}
static inline void list_add(struct list_head *n, struct list_head *h) { __rb_list_link(n, h, h->next); }
static inline void list_add_tail(struct list_head *n, struct list_head *h) { __rb_list_link(n, h->prev, h); }
static inline void __rb_list_unlink(struct list_head *e)
{
	e->next->prev = e->prev;
	WRITE_ONCE(e->prev->next, e->next);
}
static inline void list_del(struct list_head *e)
{
	__rb_list_unlink(e);
	e->next = (struct list_head *)0x100;
	e->prev = (struct list_head *)0x122;
}
static inline void list_del_init(struct list_head *e) { __rb_list_unlink(e); INIT_LIST_HEAD(e); }
static inline void list_move(struct list_head *e, struct list_head *h) { __rb_list_unlink(e); list_add(e, h); }
static inline void list_move_tail(struct list_head *e, struct list_head *h) { __rb_list_unlink(e); list_add_tail(e, h); }
static inline int list_empty(const struct list_head *h) { return READ_ONCE(h->next) == h; }
static inline int list_is_singular(const struct list_head *h) { return !list_empty(h) && h->next == h->prev; }
static inline void list_replace(struct list_head *o, struct list_head *n)
{
	n->next = o->next;
	n->next->prev = n;
	n->prev = o->prev;
	n->prev->next = n;
}
static inline void list_splice_init(struct list_head *l, struct list_head *h)
{
	if (!list_empty(l)) {
		struct list_head *f = l->next, *la = l->prev, *at = h->next;

		f->prev = h;
		h->next = f;
		la->next = at;
		at->prev = la;
		INIT_LIST_HEAD(l);
	}
}
static inline void list_splice_tail_init(struct list_head *l, struct list_head *h)
{
	if (!list_empty(l)) {
		struct list_head *f = l->next, *la = l->prev, *at = h->prev;

		f->prev = at;
		at->next = f;
		la->next = h;
		h->prev = la;
		INIT_LIST_HEAD(l);
	}
}
#define list_entry(p, t, m) container_of(p, t, m)
#define list_first_entry(h, t, m) list_entry((h)->next, t, m)
#define list_last_entry(h, t, m) list_entry((h)->prev, t, m)
#define list_next_entry(p, m) list_entry((p)->m.next, typeof(*(p)), m)
#define list_prev_entry(p, m) list_entry((p)->m.prev, typeof(*(p)), m)
#define list_first_entry_or_null(h, t, m) (list_empty(h) ? NULL : list_first_entry(h, t, m))
#define list_for_each(p, h) for ((p) = (h)->next; (p) != (h); (p) = (p)->next)
#define list_for_each_safe(p, n, h) for ((p) = (h)->next, (n) = (p)->next; (p) != (h); (p) = (n), (n) = (p)->next)
#define list_for_each_entry(p, h, m) \
	for ((p) = list_first_entry(h, typeof(*(p)), m); &(p)->m != (h); (p) = list_next_entry(p, m))
#define list_for_each_entry_safe(p, n, h, m) \
	for ((p) = list_first_entry(h, typeof(*(p)), m), (n) = list_next_entry(p, m); \
	     &(p)->m != (h); (p) = (n), (n) = list_next_entry(n, m))
#define list_for_each_entry_reverse(p, h, m) \
	for ((p) = list_last_entry(h, typeof(*(p)), m); &(p)->m != (h); (p) = list_prev_entry(p, m))
#define list_for_each_entry_continue(p, h, m) \
	for ((p) = list_next_entry(p, m); &(p)->m != (h); (p) = list_next_entry(p, m))

/* ------------------------------------------------------------------ */
/* memory                                                             */
/* ------------------------------------------------------------------ */
#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))
#define PAGE_ALIGN(x) ALIGN((x), PAGE_SIZE)
#define PAGE_ALIGNED(x) (((unsigned long)(x) & (PAGE_SIZE - 1)) == 0)
#ifndef rounddown
#define rounddown(x, y) ((x) - ((x) % (y)))
#endif
/* The kernel image (asm/sections.h); tests move them to play KASLR. */
extern char *sim_text, *sim_sdata;
#define _text sim_text
#define _sdata sim_sdata
#define SMP_CACHE_BYTES 64
#define L1_CACHE_BYTES 64
#define ____cacheline_aligned __aligned(SMP_CACHE_BYTES)
#define ____cacheline_aligned_in_smp __aligned(SMP_CACHE_BYTES)
#define __cacheline_aligned_in_smp __aligned(SMP_CACHE_BYTES)
static inline int cache_line_size(void) { return SMP_CACHE_BYTES; }
#define MAX_PAGE_ORDER 10

#define ___GFP_BIT(n) (1U << (n))
#define __GFP_ZERO ___GFP_BIT(0)
#define __GFP_NORETRY ___GFP_BIT(1)
#define __GFP_RETRY_MAYFAIL ___GFP_BIT(2)
#define __GFP_COMP ___GFP_BIT(3)
#define __GFP_NOWARN ___GFP_BIT(4)
#define __GFP_ATOMIC ___GFP_BIT(5)
#define __GFP_HIGH ___GFP_BIT(6)
#define __GFP_NOFAIL ___GFP_BIT(7)
#define __GFP_ACCOUNT ___GFP_BIT(8)
#define __GFP_DIRECT_RECLAIM ___GFP_BIT(9)
#define GFP_KERNEL (___GFP_BIT(10) | __GFP_DIRECT_RECLAIM)
#define GFP_USER (___GFP_BIT(11) | __GFP_DIRECT_RECLAIM)
#define GFP_ATOMIC (__GFP_ATOMIC | __GFP_HIGH)
#define GFP_NOWAIT ___GFP_BIT(12)
#define GFP_NOFS GFP_KERNEL
static inline bool gfpflags_allow_blocking(gfp_t f) { return f & __GFP_DIRECT_RECLAIM; }

/*
 * A struct page is the page itself: page_address() is the identity, and
 * the pages of a higher-order block are consecutive struct pages.
 */
struct page { char bytes[PAGE_SIZE]; };
struct folio { struct page page; };
void *sim_kmalloc(size_t size, gfp_t f);
void sim_kfree(const void *p);
struct page *sim_alloc_pages(gfp_t f, unsigned int order);
void sim_free_pages(void *addr, unsigned int order);
#define kmalloc(s, f) sim_kmalloc((s), (f))
#define kzalloc(s, f) sim_kmalloc((s), (f) | __GFP_ZERO)
#define kmalloc_node(s, f, n) kmalloc(s, f)
#define kzalloc_node(s, f, n) kzalloc(s, f)
#define kcalloc(n, s, f) kzalloc((size_t)(n) * (s), f)
#define kmalloc_array(n, s, f) kmalloc((size_t)(n) * (s), f)
/* lib/sort.c: the order is all that matters here */
void qsort(void *base, size_t nmemb, size_t size, int (*cmp)(const void *, const void *));
#define sort(base, num, size, cmp, swap) qsort((base), (num), (size), (cmp))
#define kcalloc_node(n, s, f, nd) kcalloc(n, s, f)
#define kvmalloc(s, f) kmalloc(s, f)
#define kvzalloc(s, f) kzalloc(s, f)
#define kvcalloc(n, s, f) kcalloc(n, s, f)
#define kvmalloc_array(n, s, f) kmalloc_array(n, s, f)
#define kzalloc_obj(o, ...) kzalloc(sizeof(o), GFP_KERNEL)
#define kfree(p) sim_kfree(p)
#define kvfree(p) sim_kfree(p)
#define vfree(p) sim_kfree(p)
static inline void __rb_free_kfree(void *p)
{
	void *q = *(void **)p;

	if (!IS_ERR_OR_NULL(q))
		sim_kfree(q);
}
#define alloc_pages_node(n, f, o) sim_alloc_pages((f), (o))
#define alloc_pages(f, o) sim_alloc_pages((f), (o))
#define alloc_page(f) sim_alloc_pages((f), 0)
#define __get_free_pages(f, o) ((unsigned long)sim_alloc_pages((f), (o)))
#define __get_free_page(f) __get_free_pages((f), 0)
#define get_zeroed_page(f) __get_free_pages((f) | __GFP_ZERO, 0)
#define free_pages(a, o) sim_free_pages((void *)(a), (o))
#define free_page(a) free_pages((a), 0)
#define __free_pages(p, o) sim_free_pages((void *)(p), (o))
#define __free_page(p) __free_pages((p), 0)
static inline void *page_address(const struct page *p) { return (void *)p; }
#define page_to_virt(p) page_address(p)
#define virt_to_page(a) ((struct page *)((unsigned long)(a) & PAGE_MASK))
#define virt_to_folio(a) ((struct folio *)virt_to_page(a))
#define page_ref_count(p) ({ (void)(p); 1; })
#define get_page(p) do { (void)(p); } while (0)
#define put_page(p) do { (void)(p); } while (0)
static inline int get_order(unsigned long size)
{
	int o = 0;

	size = (size - 1) >> PAGE_SHIFT;
	while (size) {
		o++;
		size >>= 1;
	}
	return o;
}
long si_mem_available(void);
/* a machine of 4 GiB; 1 GiB on 32-bit, which must fit an address space */
#define SIM_RAM_PAGES (BITS_PER_LONG == 64 ? 1L << 20 : 1L << 18)
#define totalram_pages() ((unsigned long)SIM_RAM_PAGES)
#define set_current_oom_origin() do { } while (0)
#define clear_current_oom_origin() do { } while (0)
#define flush_kernel_vmap_range(a, s) do { (void)(a); (void)(s); } while (0)
#define flush_dcache_folio(f) do { (void)(f); } while (0)
/* <asm/ring_buffer.h>: counted, so that a test sees what a panic flushed */
void sim_flush_range(unsigned long start, unsigned long end);
#define arch_ring_buffer_flush_range(s, e) sim_flush_range((unsigned long)(s), (unsigned long)(e))
#define vmap(p, n, f, pr) NULL
#define vunmap(p) do { } while (0)

/* ------------------------------------------------------------------ */
/* tasks, sleeping, completions, work, irq_work, wait queues          */
/* ------------------------------------------------------------------ */
struct mm_struct;
struct wait_queue_entry;
struct task_struct { int pid; char comm[16]; struct mm_struct *mm; struct wait_queue_entry *wait; };
extern __thread struct task_struct sim_task;
#define current (&sim_task)
#define TASK_RUNNING 0
#define TASK_INTERRUPTIBLE 1
#define TASK_UNINTERRUPTIBLE 2
#define set_current_state(s) do { (void)(s); } while (0)
#define __set_current_state(s) do { (void)(s); } while (0)
bool sim_signal_pending(void);
#define signal_pending(t) ((void)(t), sim_signal_pending())
#define fatal_signal_pending(t) ((void)(t), false)
void schedule(void);
long schedule_timeout(long t);
void sim_udelay(unsigned long us);
#define udelay(us) sim_udelay(us)
#define ndelay(ns) sim_udelay(1)
#define msleep(ms) sim_udelay((ms) * 1000UL)
#define usleep_range(a, b) sim_udelay(a)
#define yield() schedule()

struct completion { u64 opaque[16]; int done; };
void init_completion(struct completion *c);
#define reinit_completion(c) init_completion(c)
void complete(struct completion *c);
void wait_for_completion(struct completion *c);

struct work_struct;
typedef void (*work_func_t)(struct work_struct *w);
struct work_struct { work_func_t func; struct work_struct *next; int cpu; };
#define INIT_WORK(w, f) do { (w)->func = (f); (w)->next = NULL; (w)->cpu = -1; } while (0)
bool schedule_work_on(int cpu, struct work_struct *w);
#define schedule_work(w) schedule_work_on(smp_processor_id(), (w))
void flush_work(struct work_struct *w);

struct irq_work;
struct irq_work {
	int flags;
	int cpu;
	struct irq_work *next;
	void (*func)(struct irq_work *w);
};
#define IRQ_WORK_INIT(f) { .flags = 0, .next = NULL, .func = (f) }
static inline void init_irq_work(struct irq_work *w, void (*f)(struct irq_work *))
{
	w->flags = 0;
	w->cpu = -1;
	w->next = NULL;
	w->func = f;
}
bool irq_work_queue(struct irq_work *w);
void irq_work_sync(struct irq_work *w);
#define irq_work_queue_on(w, cpu) irq_work_queue(w)
typedef void (*smp_call_func_t)(void *info);
/* fn in interrupt context on simulated CPU cpu; -ENXIO when it is offline */
int smp_call_function_single(int cpu, smp_call_func_t fn, void *info, int wait);

/* wait queues: a generation counter bumped by every wake-up */
struct wait_queue_head { spinlock_t lock; u64 opaque[16]; unsigned long gen; };
typedef struct wait_queue_head wait_queue_head_t;
void init_waitqueue_head(wait_queue_head_t *q);
void wake_up_all(wait_queue_head_t *q);
#define wake_up(q) wake_up_all(q)
#define wake_up_interruptible(q) wake_up_all(q)
#define wake_up_interruptible_all(q) wake_up_all(q)
unsigned long sim_wq_gen(wait_queue_head_t *q);
/* returns -ERESTARTSYS when the simulated task has a signal pending */
int sim_wq_sleep(wait_queue_head_t *q, unsigned long gen);
#define wait_event_interruptible(wq, cond) ({					\
	int __ret = 0;								\
	sim_might_sleep("wait_event");						\
	for (;;) {								\
		unsigned long __g = sim_wq_gen(&(wq));				\
		if (cond)							\
			break;							\
		__ret = sim_wq_sleep(&(wq), __g);				\
		if (__ret)							\
			break;							\
	}									\
	__ret;									\
})
/* open-coded waits: schedule() sleeps until the queue was woken since prepare */
struct wait_queue_entry { wait_queue_head_t *q; unsigned long gen; };
typedef struct wait_queue_entry wait_queue_entry_t;
#define DEFINE_WAIT(name) struct wait_queue_entry name = { NULL, 0 }
#define init_wait(w) do { (w)->q = NULL; (w)->gen = 0; } while (0)
void prepare_to_wait(wait_queue_head_t *q, struct wait_queue_entry *w, int state);
#define prepare_to_wait_exclusive(q, w, s) prepare_to_wait(q, w, s)
void finish_wait(wait_queue_head_t *q, struct wait_queue_entry *w);
#define wait_event(wq, cond) do { (void)wait_event_interruptible(wq, cond); } while (0)

/* poll */
struct file { void *private_data; };
typedef struct poll_table_struct { wait_queue_head_t *wq[4]; int n; } poll_table;
static inline void poll_wait(struct file *f, wait_queue_head_t *q, poll_table *p)
{
	(void)f;
	if (p && p->n < 4)
		p->wq[p->n++] = q;
}
#define EPOLLIN 0x00000001U
#define EPOLLPRI 0x00000002U
#define EPOLLOUT 0x00000004U
#define EPOLLERR 0x00000008U
#define EPOLLRDNORM 0x00000040U

/* notifiers */
struct notifier_block {
	int (*notifier_call)(struct notifier_block *nb, unsigned long a, void *d);
	struct notifier_block *next;
	int priority;
};
struct atomic_notifier_head { struct notifier_block *head; };
extern struct atomic_notifier_head panic_notifier_list;
#define NOTIFY_DONE 0
#define NOTIFY_OK 1
#define NOTIFY_STOP_MASK 0x8000
int atomic_notifier_chain_register(struct atomic_notifier_head *h, struct notifier_block *n);
int atomic_notifier_chain_unregister(struct atomic_notifier_head *h, struct notifier_block *n);
int atomic_notifier_call_chain(struct atomic_notifier_head *h, unsigned long val, void *v);

/* misc */
enum system_states { SYSTEM_BOOTING, SYSTEM_SCHEDULING, SYSTEM_RUNNING };
extern enum system_states system_state;
#define LOCKDOWN_TRACEFS 1
#define security_locked_down(w) ({ (void)(w); 0; })
u64 sim_clock_ns(void);
u64 trace_clock_local(void);
u64 trace_clock(void);
#define sched_clock() sim_clock_ns()
#define local_clock() sim_clock_ns()
#define ktime_get_ns() sim_clock_ns()
static inline unsigned long hash_long(unsigned long v, unsigned int bits)
{
#if BITS_PER_LONG == 64
	return (v * 0x61C8864680B583EBUL) >> (64 - bits);
#else
	return (v * 0x61C88647UL) >> (32 - bits);
#endif
}
#define hash_ptr(p, b) hash_long((unsigned long)(p), (b))

/* seq_file and trace_seq */
struct seq_operations;
struct seq_file { char *buf; size_t size, count; void *private; const struct seq_operations *op; };
struct seq_operations {
	void *(*start)(struct seq_file *m, loff_t *pos);
	void (*stop)(struct seq_file *m, void *v);
	void *(*next)(struct seq_file *m, void *v, loff_t *pos);
	int (*show)(struct seq_file *m, void *v);
};
int seq_open(struct file *f, const struct seq_operations *op);
struct inode;
int seq_release(struct inode *inode, struct file *f);
void seq_printf(struct seq_file *m, const char *fmt, ...) __printf(2, 3);
#define seq_puts(m, s) seq_printf((m), "%s", (s))

struct trace_seq { char buffer[PAGE_SIZE]; size_t len; int full; };
void trace_seq_printf(struct trace_seq *s, const char *fmt, ...) __printf(2, 3);
void trace_seq_puts(struct trace_seq *s, const char *str);
void trace_seq_putc(struct trace_seq *s, unsigned char c);
static inline void trace_seq_init(struct trace_seq *s) { s->len = 0; s->full = 0; s->buffer[0] = 0; }
static inline bool trace_seq_has_overflowed(struct trace_seq *s) { return s->full; }

/*
 * User mappings (see sim.c).  An address space is its mmap_lock, held for
 * writing by one thread; a vma carries its page table: one page pointer
 * per PAGE_SIZE page from vm_start, filled by vm_insert_pages().
 */
struct mm_struct { int sim_locker; };	/* sim_tid() of the mmap_lock holder */
struct vm_area_struct {
	unsigned long vm_start, vm_end, vm_pgoff;
	vm_flags_t vm_flags;
	struct mm_struct *vm_mm;
	struct page **sim_pte;
};
#define VM_READ 0x1UL
#define VM_WRITE 0x2UL
#define VM_EXEC 0x4UL
#define VM_SHARED 0x8UL
#define VM_MAYREAD 0x10UL
#define VM_MAYWRITE 0x20UL
#define VM_MAYEXEC 0x40UL
#define VM_MAYSHARE 0x80UL
#define VM_PFNMAP 0x400UL
#define VM_DONTCOPY 0x20000UL
#define VM_DONTEXPAND 0x40000UL
#define VM_DONTDUMP 0x4000000UL
#define VM_MIXEDMAP 0x10000000UL
#define vma_pages(v) (((v)->vm_end - (v)->vm_start) >> PAGE_SHIFT)
void sim_mmap_assert_locked(struct mm_struct *mm);
#define mmap_assert_locked(mm) sim_mmap_assert_locked(mm)
#define mmap_assert_write_locked(mm) sim_mmap_assert_locked(mm)
/* changing vm_flags takes the vma write lock: mmap_lock held for writing */
static inline void vm_flags_mod(struct vm_area_struct *v, vm_flags_t set, vm_flags_t clear)
{
	sim_mmap_assert_locked(v->vm_mm);
	v->vm_flags = (v->vm_flags | set) & ~clear;
}
#define vm_flags_set(v, f) vm_flags_mod((v), (f), 0)
#define vm_flags_clear(v, f) vm_flags_mod((v), 0, (f))
int vm_insert_pages(struct vm_area_struct *vma, unsigned long addr,
		    struct page **pages, unsigned long *num);
int vm_insert_page(struct vm_area_struct *vma, unsigned long addr, struct page *page);
extern struct page sim_zero_page;
#define ZERO_PAGE(a) ((void)(a), &sim_zero_page)

/* kthreads are only used by the stock startup test, which is not built */

/* trace.h (kernel/trace) bits used by the ring buffer */
#define TRACE_FLAG_IRQS_OFF 0x01
#define TRACE_FLAG_NEED_RESCHED 0x02
#define TRACE_FLAG_HARDIRQ 0x08
#define TRACE_FLAG_SOFTIRQ 0x10
#define TRACE_FLAG_PREEMPT_RESCHED 0x20
#define TRACE_FLAG_NMI 0x40
#define TRACE_FLAG_BH_OFF 0x80
struct trace_buffer;
int ring_buffer_meta_seq_init(struct file *file, struct trace_buffer *buffer, int cpu);

#endif /* RB_KERNEL_H */
