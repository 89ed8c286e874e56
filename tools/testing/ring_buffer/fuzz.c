// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer entry: the input bytes are a model sequence (see t_model.c).
 * A divergence between the ring buffer and the model, or a WARN from the
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
	if (rb_model_run(data, len, 0) || sim_warnings() != w) {
		fprintf(stderr, "model divergence or kernel warning\n");
		abort();
	}
	return 0;
}
