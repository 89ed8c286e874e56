// SPDX-License-Identifier: GPL-2.0
/*
 * Test runner: KTAP output, one result per case, then "N passed, M failed".
 * A case fails when it says so or when the code under test issued a
 * WARN while it ran.
 */
#include "rb_test.h"

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
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

int main(int argc, char **argv)
{
	const char *corpus = NULL, *only = NULL, *skip = NULL;
	int passed = 0, failed = 0, skipped = 0, nr = 0, total;
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
	/*
	 * The instruction sweeps fork once per instruction: they come first,
	 * while the process is small (forking it later costs ten times more).
	 */
	if (!rb_opt_tsan) {
		RUN_GROUP(rb_range_cases, rb_nr_range_cases)
		RUN_GROUP(rb_unit_cases, rb_nr_unit_cases)
		RUN_GROUP(rb_map_cases, rb_nr_map_cases)
		RUN_GROUP(rb_attack_cases, rb_nr_attack_cases)
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
