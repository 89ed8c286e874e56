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
#include <sys/wait.h>
#include <time.h>

/* The case running now, for the watchdog's message. */
static const char *t_cur_case = "";

/*
 * The watchdog: a case fails when it has used more than its limit of CPU
 * time (a livelock spins), or three times that in wall time (a deadlock
 * sleeps).  CPU time, not wall time, because make test runs the harness
 * niced beside kernel builds, where a sweep may get a tenth of a core.
 * A thread of its own checks every 10 s, so that no signal reaches the
 * cases.  Its state is read and written with atomics (TSan runs it too).
 */
static long t_limit, t_cpu0, t_wall0, t_gen;
static const char *t_wd_case = "";

static long t_now(clockid_t clk)
{
	struct timespec now;

	clock_gettime(clk, &now);
	return now.tv_sec;
}

static void *t_watchdog(void *arg)
{
	static const char msg[] = "# watchdog: no result within the case's time limit\nnot ok - timeout: ";
	(void)arg;
	for (;;) {
		long gen, limit;
		const char *name;

		sleep(10);
		gen = __atomic_load_n(&t_gen, __ATOMIC_ACQUIRE);
		limit = __atomic_load_n(&t_limit, __ATOMIC_RELAXED);
		if (!limit ||
		    (t_now(CLOCK_PROCESS_CPUTIME_ID) - __atomic_load_n(&t_cpu0, __ATOMIC_RELAXED) <= limit &&
		     t_now(CLOCK_MONOTONIC) - __atomic_load_n(&t_wall0, __ATOMIC_RELAXED) <= 3 * limit))
			continue;
		name = __atomic_load_n(&t_wd_case, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (gen != __atomic_load_n(&t_gen, __ATOMIC_RELAXED))
			continue;	/* the next case started meanwhile */
		write(1, msg, sizeof(msg) - 1);
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

/* Does the case fork once per instruction (a sweep)? */
static int t_fresh(const char *name)
{
	static const char *const sweeps[] = { "irq_at_each_instruction", "crash_sweep",
					      "nmi_dump_in_", "_irq_in_", "_ipi_in_" };

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

static void t_launch(struct t_job *j)
{
	char tmpl[4096], nr[16];
	char *argv[] = { "rbtest", "--case", (char *)j->c->name, "--nr", nr,
			 rb_opt_keep_going ? "--keep-going" : NULL, NULL };
	const char *dir = getenv("TMPDIR");

	snprintf(nr, sizeof(nr), "%d", j->nr);
	snprintf(tmpl, sizeof(tmpl), "%s/rbtest.XXXXXX", dir && *dir ? dir : "/tmp");
	j->fd = mkstemp(tmpl);
	if (j->fd >= 0)
		unlink(tmpl);
	fflush(NULL);
	j->pid = j->fd < 0 ? -1 : fork();
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
					   rb_map_cases, rb_attack_cases };
	const int sizes[] = { rb_nr_range_cases, rb_nr_unit_cases,
			      rb_nr_map_cases, rb_nr_attack_cases };

	for (int g = 0; g < 4; g++)
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
	const char *corpus = NULL, *only = NULL, *skip = NULL, *one = NULL;
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
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--skip") && i + 1 < argc)
			skip = argv[++i];
		else if (!strcmp(argv[i], "--list"))
			list = 1;
		else if (!strcmp(argv[i], "--fail-fast"))
			fail_fast = 1;
		else if (!strcmp(argv[i], "--jobs") && i + 1 < argc)
			t_max_jobs = t_num(argv[i], argv[i + 1]), i++;
		else if (!strcmp(argv[i], "--case") && i + 1 < argc)
			one = argv[++i];
		else if (!strcmp(argv[i], "--nr") && i + 1 < argc)
			one_nr = t_num(argv[i], argv[i + 1]), i++;
		else {
			fprintf(stderr, "rbtest: unknown argument '%s'\n", argv[i]);
			return 2;
		}
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
out:
	/* --fail-fast: the cases after the first failure did not run. */
	if (skipped)
		printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	else
		printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
