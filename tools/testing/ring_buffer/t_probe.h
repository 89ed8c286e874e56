#define PROBE(n) int n(void);
#include "t_probe_list.h"
#undef PROBE
