// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer entry for persistent buffers: each input is a workload seed
 * and byte changes made to the range between two boots (see
 * rb_range_fuzz_one() in t_range.c).  A read outside the range faults on
 * a guard page; an event kept that does not decode, or a WARN from the
 * code under test, aborts so that libFuzzer keeps the input.
 */
#include "rb_test.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t len);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sim_init(4);
	sim_quiet(1);
	return 0;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t len)
{
	unsigned long w = sim_warnings();

	if (len > 4096)
		return -1;
	sim_bind(0);
	if (rb_range_fuzz_one(data, len) || sim_warnings() != w) {
		fprintf(stderr, "kept event that does not decode, or kernel warning\n");
		abort();
	}
	return 0;
}
