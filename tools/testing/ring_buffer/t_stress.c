// SPDX-License-Identifier: GPL-2.0
#include "rb_test.h"
const struct rb_case rb_stress_cases[] = { };
const int rb_nr_stress_cases = 0;
