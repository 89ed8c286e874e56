// SPDX-License-Identifier: GPL-2.0
/*
 * rb-sysloop N: make N getppid() system calls and print
 * "N total-ns ns-per-call".  The fixed syscall workload of `make bench`
 * (vm/bench.sh builds it static, guest/bench.sh runs it with the function
 * tracer off and on).  getppid is about the cheapest system call there is,
 * so with the function tracer on its time is mostly tracing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, i;
	struct timespec a, b;
	double ns;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("%ld %.0f %.1f\n", n, ns, ns / (n ? n : 1));
	return 0;
}
