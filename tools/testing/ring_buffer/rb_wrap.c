// SPDX-License-Identifier: GPL-2.0
/*
 * The ring buffer under test, compiled unchanged: RB_SRC names either the
 * repository's kernel/trace/ring_buffer.c or a copy of the stock 6.12 file.
 * rb_kernel.h stands in for the kernel around it.
 */
#include "rb_kernel.h"

#include RB_SRC
