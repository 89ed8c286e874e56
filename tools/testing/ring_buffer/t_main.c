// SPDX-License-Identifier: GPL-2.0
/*
 * Test runner: KTAP output, one result per case, then "N passed, M failed".
 * A case fails when it says so or when the code under test issued a
 * WARN while it ran.
 */
#include "rb_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

/* The case running now, for the watchdog's message. */
static const char *t_cur_case = "";

/*
 * The watchdog: a case fails when it has used more than its limit of CPU
 * time (a livelock spins), or three times that in wall time, or when
 * neither it nor any process it forked (t_in_child(), the sweeps'
 * children) has run at all for t_stall seconds of wall time (a deadlock
 * sleeps: a child stuck on a lock, a parent waiting for it).  CPU time,
 * not wall time, because make test runs the harness niced beside kernel
 * builds, where a sweep may get a tenth of a core; but a niced process
 * that can run still runs some every few seconds.  On a stall it prints
 * the stack of every thread of every process of the case (gdb), kills
 * them and exits.  A thread of its own checks every 10 s, so that no
 * signal reaches the cases; it allocates nothing (raw open/read/getdents
 * into static buffers: a thread inside malloc() when a case forks would
 * leave the child an allocator lock held for ever).  Its state is read
 * and written with atomics (TSan runs it too).
 */
static long t_limit, t_cpu0, t_wall0, t_gen, t_stall = 180;
static const char *t_wd_case = "";
static pid_t t_wd_tid;

static long t_now(clockid_t clk)
{
	struct timespec now;

	clock_gettime(clk, &now);
	return now.tv_sec;
}

static char t_wd_buf[8192];

/*
 * A number from /proc/@path, or -1: with @field < 0 the first one
 * (schedstat: ns on a CPU), else the @field-th after the command name of
 * a stat file (0 the state, 1 the parent, 11 utime, 12 stime).
 */
static long long t_wd_read(const char *path, int field)
{
	ssize_t n;
	char *p;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, t_wd_buf, sizeof(t_wd_buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	t_wd_buf[n] = 0;
	p = t_wd_buf;
	if (field >= 0) {
		/* stat: the fields after the ")" of the command name */
		p = strrchr(t_wd_buf, ')');
		if (!p)
			return -1;
		for (p++; field > 0 && *p; field--)
			p = strchr(p + 1, ' ') ? strchr(p + 1, ' ') : p + strlen(p);
	}
	return strtoll(p, NULL, 10);
}

/* The parent of @pid (stat's 4th field), or -1. */
static pid_t t_wd_ppid(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	return t_wd_read(path, 1);
}

static bool t_wd_is_job(pid_t pid);

#define T_WD_MAX 256
static pid_t t_wd_pids[T_WD_MAX];
static int t_wd_nr;
static char t_wd_dents[32768];

/*
 * The processes of the running case: this one and its descendants, but
 * the sweep jobs (other cases, with watchdogs of their own).
 */
static void t_wd_tree(void)
{
	int fd = open("/proc", O_RDONLY | O_DIRECTORY);
	bool grew = true;
	long n;

	t_wd_nr = 0;
	t_wd_pids[t_wd_nr++] = getpid();
	if (fd < 0)
		return;
	while (grew && t_wd_nr < T_WD_MAX) {
		grew = false;
		lseek(fd, 0, SEEK_SET);
		while ((n = syscall(SYS_getdents64, fd, t_wd_dents, sizeof(t_wd_dents))) > 0) {
			for (long off = 0; off < n; ) {
				struct { u64 ino; s64 off; unsigned short len; unsigned char type;
					 char name[]; } *d = (void *)(t_wd_dents + off);
				pid_t pid = atoi(d->name), pp;
				int i, known = 0;

				off += d->len;
				if (pid <= 0)
					continue;
				for (i = 0; i < t_wd_nr && !known; i++)
					known = t_wd_pids[i] == pid;
				if (known || t_wd_is_job(pid))
					continue;
				pp = t_wd_ppid(pid);
				for (i = 0; i < t_wd_nr; i++) {
					if (t_wd_pids[i] == pp && t_wd_nr < T_WD_MAX) {
						t_wd_pids[t_wd_nr++] = pid;
						grew = true;
						break;
					}
				}
			}
		}
	}
	close(fd);
}

/* ns on a CPU of /proc/@dir (schedstat), else its utime + stime */
static long long t_wd_ns(const char *dir)
{
	char path[96];
	long long v;

	snprintf(path, sizeof(path), "%s/schedstat", dir);
	v = t_wd_read(path, -1);
	if (v >= 0)
		return v;
	snprintf(path, sizeof(path), "%s/stat", dir);
	return (t_wd_read(path, 11) + t_wd_read(path, 12)) * 10000000LL;
}

/*
 * CPU time of the case's processes in ns: this process's threads but the
 * watchdog (whose own reads must not look like progress), then the rest.
 */
static long long t_wd_cpu(void)
{
	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY);
	long long sum = 0;
	char dir[64];
	long n;

	t_wd_tree();
	while (fd >= 0 && (n = syscall(SYS_getdents64, fd, t_wd_dents, sizeof(t_wd_dents))) > 0) {
		for (long off = 0; off < n; ) {
			struct { u64 ino; s64 off; unsigned short len; unsigned char type;
				 char name[]; } *d = (void *)(t_wd_dents + off);
			pid_t tid = atoi(d->name);

			off += d->len;
			if (tid <= 0 || tid == t_wd_tid)
				continue;
			snprintf(dir, sizeof(dir), "/proc/self/task/%d", tid);
			sum += t_wd_ns(dir);
		}
	}
	if (fd >= 0)
		close(fd);
	for (int i = 1; i < t_wd_nr; i++) {
		snprintf(dir, sizeof(dir), "/proc/%d", t_wd_pids[i]);
		sum += t_wd_ns(dir);
	}
	return sum;
}

/* Print the stacks of the case's processes, kill the others. */
static void t_wd_report(void)
{
	char cmd[256];

	for (int i = 0; i < t_wd_nr; i++) {
		snprintf(cmd, sizeof(cmd),
			 "timeout 60 gdb -batch -nx -p %d -ex 'thread apply all bt' </dev/null 2>&1 | grep -E '^(Thread|#)' | sed 's/^/# pid %d: /'",
			 t_wd_pids[i], t_wd_pids[i]);
		if (system(cmd))
			dprintf(1, "# pid %d: no stack (gdb)\n", t_wd_pids[i]);
	}
	for (int i = 1; i < t_wd_nr; i++)
		kill(t_wd_pids[i], SIGKILL);
}

static void *t_watchdog(void *arg)
{
	static const char msg[] = "# watchdog: no result within the case's time limit\nnot ok - timeout: ";
	static const char hang[] = "not ok - hang: ";
	long long cpu = -1, now;
	long gen, limit, seen = -1, moved = 0;
	const char *name;

	(void)arg;
	t_wd_tid = syscall(SYS_gettid);
	for (;;) {
		sleep(10);
		gen = __atomic_load_n(&t_gen, __ATOMIC_ACQUIRE);
		limit = __atomic_load_n(&t_limit, __ATOMIC_RELAXED);
		if (!limit) {
			seen = -1;
			continue;
		}
		now = t_wd_cpu();
		if (gen != seen || now != cpu) {
			seen = gen;
			cpu = now;
			moved = t_now(CLOCK_MONOTONIC);
		}
		name = __atomic_load_n(&t_wd_case, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (gen != __atomic_load_n(&t_gen, __ATOMIC_RELAXED))
			continue;	/* the next case started meanwhile */
		if (t_now(CLOCK_MONOTONIC) - moved > t_stall) {
			dprintf(1, "# watchdog: %s: no process of the case ran for %ld s (%d processes): a hang\n",
				name, t_stall, t_wd_nr);
			t_wd_report();
			write(1, hang, sizeof(hang) - 1);
		} else if (t_now(CLOCK_PROCESS_CPUTIME_ID) - __atomic_load_n(&t_cpu0, __ATOMIC_RELAXED) > limit ||
			   t_now(CLOCK_MONOTONIC) - __atomic_load_n(&t_wall0, __ATOMIC_RELAXED) > 3 * limit) {
			write(1, msg, sizeof(msg) - 1);
		} else {
			continue;
		}
		write(1, name, strlen(name));
		write(1, "\n", 1);
		_exit(2);
	}
	return NULL;
}

/* Start the watchdog's count for the case that runs next: @limit s of CPU. */
static void t_arm(const char *name, long limit)
{
	t_cur_case = name;
	__atomic_store_n(&t_wd_case, name, __ATOMIC_RELAXED);
	__atomic_store_n(&t_cpu0, t_now(CLOCK_PROCESS_CPUTIME_ID), __ATOMIC_RELAXED);
	__atomic_store_n(&t_wall0, t_now(CLOCK_MONOTONIC), __ATOMIC_RELAXED);
	__atomic_store_n(&t_limit, limit, __ATOMIC_RELAXED);
	__atomic_store_n(&t_gen, t_gen + 1, __ATOMIC_RELEASE);
}

/*
 * Stop the count when the case is done: the main process then waits for
 * the sweeps (each with a watchdog of its own), which may take longer
 * than three limits of wall time on a loaded machine.
 */
static void t_disarm(void)
{
	__atomic_store_n(&t_limit, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&t_gen, t_gen + 1, __ATOMIC_RELEASE);
}

static int t_run_case(int nr, const struct rb_case *c)
{
	unsigned long w = sim_warnings();
	struct timespec a, b;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &a);
	/*
	 * Each case gets its own limit: a hang is caught, while a run on a
	 * busy machine (make test runs the harness niced, next to kernel
	 * builds) may take as long as its cases need.
	 */
	t_arm(c->name, rb_opt_tsan ? 1500 : 1200);
	sim_bind(0);
	t_skip_reason = NULL;
	ret = c->fn();
	t_disarm();
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (ret == T_SKIP_RET && t_skip_reason && sim_warnings() == w) {
		printf("ok %d %s # SKIP %s\n", nr, c->name, t_skip_reason);
		fflush(stdout);
		return T_SKIP_RET;
	}
	if (sim_ctx.pc || sim_ctx.depth || sim_ctx.irqs_off) {
		printf("# %s: left preempt_count %#x, irqs_off %d: reset\n",
		       c->name, sim_ctx.pc, sim_ctx.irqs_off);
		sim_ctx.pc = 0;
		sim_ctx.irqs_off = 0;
		if (sim_ctx.depth) {
			sim_ctx.depth = 0;
			sim_atomic_exit();
		}
		ret = 1;
	}
	if (sim_warnings() != w) {
		printf("# %s: %lu warning(s) from the code under test\n",
		       c->name, sim_warnings() - w);
		ret = 1;
	}
	printf("%sok %d %s # %.2fs\n", ret ? "not " : "", nr, c->name,
	       (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	fflush(stdout);
	return ret;
}

/* Replay every file of the fuzzer corpus through the model. */
static int t_replay_corpus(const char *dir, int *count)
{
	char path[4096];
	struct dirent *de;
	u8 buf[4096];
	int bad = 0;
	DIR *d = opendir(dir);

	*count = 0;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		FILE *f;
		size_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "rb");
		if (!f)
			continue;
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		(*count)++;
		if (rb_model_run(buf, n, 1)) {
			printf("# corpus input %s diverges\n", de->d_name);
			if (getenv("RB_MODEL_TRACE"))
				rb_model_run(buf, n, 2);
			bad++;
		}
	}
	closedir(d);
	return bad;
}


/* Is @name one of the comma-separated name prefixes in @skip? */
static int t_skipped(const char *skip, const char *name)
{
	size_t n;

	while (skip && *skip) {
		n = strcspn(skip, ",");
		if (n && !strncmp(name, skip, n))
			return 1;
		skip += n + !!skip[n];
	}
	return 0;
}

/* Is @name one of the comma-separated names in @list, exactly? */
static int t_listed(const char *list, const char *name)
{
	size_t n, len = strlen(name);

	while (list && *list) {
		n = strcspn(list, ",");
		if (n == len && !strncmp(name, list, n))
			return 1;
		list += n + !!list[n];
	}
	return 0;
}

/* Does the case fork once per instruction (a sweep)? */
static int t_fresh(const char *name)
{
	static const char *const sweeps[] = { "irq_at_each_instruction", "crash_sweep",
					      "nmi_dump_in_", "_irq_in_", "_ipi_in_",
					      "_clock_back_", "_clock_failed_move",
					      "_discard_zero_" };

	for (unsigned int i = 0; i < ARRAY_SIZE(sweeps); i++)
		if (strstr(name, sweeps[i]))
			return 1;
	return 0;
}

/*
 * The sweeps of the range, unit, map and attack cases (t_fresh()) run
 * each in a process of its own (this program again, with --case NAME
 * --nr N), up to --jobs at once, their output printed in case order;
 * --jobs 0 runs them in this process (under qemu-i386, which cannot exec
 * the program again).  A fork costs what the process has grown to (ASan's
 * heap and quarantine): late in one long process, attack_nmi_dump_in_iter
 * took 604 s where a fresh process takes 81 s.
 */
struct t_job {
	const struct rb_case *c;	/* NULL: not selected */
	const char *name;
	int nr, fd, status, state;	/* state: 0 waiting, 1 running, 2 done */
	pid_t pid;
};

static struct t_job *t_jobs;
static int t_nr_jobs, t_next_job, t_running, t_max_jobs = 1;

/* Is @pid a sweep job's process (a case with a watchdog of its own)? */
static bool t_wd_is_job(pid_t pid)
{
	for (int i = 0; i < t_nr_jobs; i++)
		if (__atomic_load_n(&t_jobs[i].pid, __ATOMIC_RELAXED) == pid)
			return true;
	return false;
}

static void t_launch(struct t_job *j)
{
	char tmpl[4096], nr[16], stall[16];
	char *argv[] = { "rbtest", "--case", (char *)j->c->name, "--nr", nr,
			 "--stall", stall, rb_opt_keep_going ? "--keep-going" : NULL, NULL };
	const char *dir = getenv("TMPDIR");

	snprintf(nr, sizeof(nr), "%d", j->nr);
	snprintf(stall, sizeof(stall), "%ld", t_stall);
	snprintf(tmpl, sizeof(tmpl), "%s/rbtest.XXXXXX", dir && *dir ? dir : "/tmp");
	j->fd = mkstemp(tmpl);
	if (j->fd >= 0)
		unlink(tmpl);
	fflush(NULL);
	j->pid = j->fd < 0 ? -1 : sim_fork();
	if (j->pid == 0) {
		dup2(j->fd, 1);
		dup2(j->fd, 2);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	j->state = j->pid > 0 ? 1 : 2;
	j->status = -1;		/* no process: reported as a failure */
	t_running += j->state == 1;
}

/* Start waiting jobs until --jobs of them run. */
static void t_pool_fill(void)
{
	while (t_running < t_max_jobs && t_next_job < t_nr_jobs) {
		struct t_job *j = &t_jobs[t_next_job++];

		if (j->c && t_fresh(j->name))
			t_launch(j);
	}
}

/* Wait for @j, print its output; 0 passed, T_SKIP_RET skipped, 1 failed. */
static int t_pool_wait(struct t_job *j)
{
	char buf[4096];
	ssize_t n;
	int st;

	while (j->state != 2) {
		pid_t pid = waitpid(-1, &st, 0);

		for (int i = 0; pid > 0 && i < t_nr_jobs; i++) {
			if (t_jobs[i].state == 1 && t_jobs[i].pid == pid) {
				t_jobs[i].state = 2;
				t_jobs[i].status = st;
				t_running--;
			}
		}
		if (pid < 0 && errno != EINTR)
			break;
		t_pool_fill();
	}
	fflush(stdout);
	lseek(j->fd, 0, SEEK_SET);
	while (j->fd >= 0 && (n = read(j->fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, n, stdout);
	if (j->fd >= 0)
		close(j->fd);
	st = j->status;
	if (j->state == 2 && WIFEXITED(st) && !WEXITSTATUS(st))
		return 0;
	if (j->state == 2 && WIFEXITED(st) && WEXITSTATUS(st) == T_SKIP_RET)
		return T_SKIP_RET;
	/* 1: the case printed its "not ok"; anything else did not get there */
	if (j->state != 2 || !WIFEXITED(st) || WEXITSTATUS(st) != 1)
		printf("not ok %d %s # its process %s %d%s\n", j->nr, j->c->name,
		       st >= 0 && WIFSIGNALED(st) ? "died of signal" : "exited with",
		       st < 0 ? -1 : WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
		       st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 2 ?
		       " (the watchdog)" : "");
	return 1;
}

/* --fail-fast: the running jobs are not waited for. */
static void t_pool_stop(void)
{
	for (int i = 0; i < t_nr_jobs; i++) {
		if (t_jobs[i].state == 1) {
			kill(t_jobs[i].pid, SIGKILL);
			waitpid(t_jobs[i].pid, NULL, 0);
		}
	}
}

static const struct rb_case *t_find(const char *name)
{
	const struct rb_case *groups[] = { rb_range_cases, rb_unit_cases,
					   rb_map_cases, rb_attack_cases,
					   rb_open_cases };
	const int sizes[] = { rb_nr_range_cases, rb_nr_unit_cases,
			      rb_nr_map_cases, rb_nr_attack_cases,
			      rb_nr_open_cases };

	for (int g = 0; g < 5; g++)
		for (int i = 0; i < sizes[g]; i++)
			if (!strcmp(groups[g][i].name, name))
				return &groups[g][i];
	return NULL;
}

/* A whole number for @opt, or exit 2: a missing value must not pass as 0. */
static int t_num(const char *opt, const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < 0 || v > 1000000) {
		fprintf(stderr, "rbtest: %s wants a number, not '%s'\n", opt, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	const char *corpus = NULL, *only = NULL, *skip = NULL, *one = NULL, *cases = NULL;
	const char *diff = NULL;
	int matrix = 0;
	int passed = 0, failed = 0, skipped = 0, nr = 0, total, one_nr = 1;
	int nr_corpus = 0, corpus_bad, list = 0, fail_fast = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--corpus") && i + 1 < argc)
			corpus = argv[++i];
		else if (!strcmp(argv[i], "--keep-going"))
			rb_opt_keep_going = 1;
		else if (!strcmp(argv[i], "--tsan"))
			rb_opt_tsan = 1;
		else if (!strcmp(argv[i], "--stress-secs") && i + 1 < argc)
			rb_opt_stress_secs = atof(argv[++i]);
		else if (!strcmp(argv[i], "--stress-events") && i + 1 < argc)
			rb_opt_stress_events = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--matrix"))
			matrix = 1;
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--diff") && i + 1 < argc)
			diff = argv[++i];
		else if (!strcmp(argv[i], "--cases") && i + 1 < argc)
			cases = argv[++i];
		else if (!strcmp(argv[i], "--skip") && i + 1 < argc)
			skip = argv[++i];
		else if (!strcmp(argv[i], "--list-open"))
			list = 2;
		else if (!strcmp(argv[i], "--list"))
			list = 1;
		else if (!strcmp(argv[i], "--fail-fast"))
			fail_fast = 1;
		else if (!strcmp(argv[i], "--jobs") && i + 1 < argc)
			t_max_jobs = t_num(argv[i], argv[i + 1]), i++;
		else if (!strcmp(argv[i], "--stall") && i + 1 < argc)
			t_stall = t_num(argv[i], argv[i + 1]), i++;
		else if (!strcmp(argv[i], "--case") && i + 1 < argc)
			one = argv[++i];
		else if (!strcmp(argv[i], "--nr") && i + 1 < argc)
			one_nr = t_num(argv[i], argv[i + 1]), i++;
		else {
			fprintf(stderr, "rbtest: unknown argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (list == 2) {
		for (int i = 0; i < rb_nr_open_cases; i++)
			printf("%s\n", rb_open_cases[i].name);
		return 0;
	}
	if (list) {
		for (int i = 0; i < rb_nr_range_cases; i++)
			printf("%s\n", rb_range_cases[i].name);
		for (int i = 0; i < rb_nr_unit_cases; i++)
			printf("%s\n", rb_unit_cases[i].name);
		for (int i = 0; i < rb_nr_map_cases; i++)
			printf("%s\n", rb_map_cases[i].name);
		for (int i = 0; i < rb_nr_attack_cases; i++)
			printf("%s\n", rb_attack_cases[i].name);
		for (int i = 0; i < rb_nr_model_cases; i++)
			printf("%s\n", rb_model_cases[i].name);
		for (int i = 0; i < rb_nr_stress_cases; i++)
			printf("%s\n", rb_stress_cases[i].name);
		return 0;
	}
	{
		sigset_t all, old;
		pthread_t wd;
		int err;

		/* No signal of the simulated CPUs may land in the watchdog. */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		err = pthread_create(&wd, NULL, t_watchdog, NULL);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (err) {
			printf("Bail out! no watchdog thread\n");
			return 1;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sim_init(4);
	if (diff)
		return rb_diff_main(diff);
	if (matrix) {
		int ret;

		/* the watchdog: a pair that hangs past its alarms */
		t_arm("matrix", 7200);
		ret = rb_matrix_main();
		t_disarm();
		return ret;
	}
	if (one) {
		const struct rb_case *c = t_find(one);
		int ret;

		if (!c) {
			printf("not ok %d %s # no such case\n", one_nr, one);
			return 1;
		}
		ret = t_run_case(one_nr, c);
		return !ret ? 0 : ret == T_SKIP_RET ? T_SKIP_RET : 1;
	}

	total = rb_nr_unit_cases + rb_nr_map_cases + rb_nr_attack_cases + rb_nr_range_cases + rb_nr_model_cases + rb_nr_stress_cases + !!corpus;
	printf("KTAP version 1\n1..%d\n", total);
#define RUN_GROUP(arr, n)						\
	for (int i = 0; i < (n); i++) {					\
		nr++;							\
		if ((only && !strstr((arr)[i].name, only)) ||		\
		    (cases && !t_listed(cases, (arr)[i].name)) ||	\
		    t_skipped(skip, (arr)[i].name)) {			\
			printf("ok %d %s # SKIP not selected\n", nr, (arr)[i].name); \
			continue;					\
		}							\
		switch (t_run_case(nr, &(arr)[i])) {			\
		case 0:							\
			passed++;					\
			break;						\
		case T_SKIP_RET:					\
			skipped++;					\
			break;						\
		default:						\
			failed++;					\
			if (fail_fast)					\
				goto out;				\
		}							\
	}
	if (!rb_opt_tsan && !t_max_jobs) {
		RUN_GROUP(rb_range_cases, rb_nr_range_cases)
		RUN_GROUP(rb_unit_cases, rb_nr_unit_cases)
		RUN_GROUP(rb_map_cases, rb_nr_map_cases)
		RUN_GROUP(rb_attack_cases, rb_nr_attack_cases)
	} else if (!rb_opt_tsan) {
		const struct rb_case *groups[] = { rb_range_cases, rb_unit_cases,
						   rb_map_cases, rb_attack_cases };
		const int sizes[] = { rb_nr_range_cases, rb_nr_unit_cases,
				      rb_nr_map_cases, rb_nr_attack_cases };

		t_jobs = calloc(total, sizeof(*t_jobs));
		for (int g = 0; g < 4; g++) {
			for (int i = 0; i < sizes[g]; i++) {
				struct t_job *j = &t_jobs[t_nr_jobs++];

				j->nr = ++nr;
				j->name = groups[g][i].name;
				if ((!only || strstr(groups[g][i].name, only)) &&
				    (!cases || t_listed(cases, groups[g][i].name)) &&
				    !t_skipped(skip, groups[g][i].name))
					j->c = &groups[g][i];
			}
		}
		t_pool_fill();
		for (int i = 0; i < t_nr_jobs; i++) {
			struct t_job *j = &t_jobs[i];

			if (!j->c) {
				printf("ok %d %s # SKIP not selected\n", j->nr, j->name);
				continue;
			}
			switch (t_fresh(j->name) ? t_pool_wait(j) : t_run_case(j->nr, j->c)) {
			case 0:
				passed++;
				break;
			case T_SKIP_RET:
				skipped++;
				break;
			default:
				failed++;
				if (fail_fast) {
					t_pool_stop();
					goto out;
				}
			}
		}
	} else {
		for (int i = 0; i < rb_nr_range_cases; i++)
			printf("ok %d %s # SKIP unit tests run under ASan\n", ++nr, rb_range_cases[i].name);
		for (int i = 0; i < rb_nr_unit_cases; i++)
			printf("ok %d %s # SKIP unit tests run under ASan\n", ++nr, rb_unit_cases[i].name);
		for (int i = 0; i < rb_nr_map_cases; i++)
			printf("ok %d %s # SKIP unit tests run under ASan\n", ++nr, rb_map_cases[i].name);
		for (int i = 0; i < rb_nr_attack_cases; i++)
			printf("ok %d %s # SKIP unit tests run under ASan\n", ++nr, rb_attack_cases[i].name);
	}
	RUN_GROUP(rb_model_cases, rb_nr_model_cases)
	if (corpus) {
		nr++;
		t_arm("corpus_replay", 1200);
		corpus_bad = t_replay_corpus(corpus, &nr_corpus);
		t_disarm();
		printf("# corpus: %d inputs replayed\n", nr_corpus);
		/* an unreadable or empty corpus would pass by testing nothing */
		corpus_bad += !nr_corpus;
		printf("%sok %d corpus_replay\n", corpus_bad ? "not " : "", nr);
		if (corpus_bad)
			failed++;
		else
			passed++;
		if (corpus_bad && fail_fast)
			goto out;
	}
	RUN_GROUP(rb_stress_cases, rb_nr_stress_cases)
	/* a selection that matches nothing must not pass by running nothing */
	if (!passed && !failed && !skipped) {
		printf("# no case ran: --only/--cases/--skip select nothing\n");
		failed = 1;
	}
out:
	/* --fail-fast: the cases after the first failure did not run. */
	if (skipped)
		printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	else
		printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
