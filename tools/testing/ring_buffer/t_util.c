// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the tests and the fuzzer: clock, payloads, page decoder. */
#include "rb_test.h"

int rb_opt_tsan;
int rb_opt_keep_going;
double rb_opt_stress_secs = 200;
unsigned long rb_opt_stress_events = 100000000UL;
u64 t_clock_now;

u64 t_clock(void)
{
	return __atomic_load_n(&t_clock_now, __ATOMIC_RELAXED);
}

void t_clock_set(u64 v)
{
	__atomic_store_n(&t_clock_now, v, __ATOMIC_RELAXED);
}

void t_fill(void *p, unsigned int len, u32 seed)
{
	u8 *b = p;

	for (unsigned int i = 0; i < len; i++)
		b[i] = (u8)(seed * 31 + i * 7 + (seed >> 8));
}

int t_check(const void *p, unsigned int len, u32 seed)
{
	const u8 *b = p;

	for (unsigned int i = 0; i < len; i++)
		if (b[i] != (u8)(seed * 31 + i * 7 + (seed >> 8)))
			return 0;
	return 1;
}

static u32 t_word(const u8 *p)
{
	u32 v;

	memcpy(&v, p, 4);
	return v;
}

int t_parse_page(const void *page, size_t size, struct t_pevent *ev, int max,
		 int *missed)
{
	const u8 *base = page;
	u64 ts;
	unsigned long commit_word;
	size_t commit, off = 0;
	const u8 *data = base + T_SB_HDR;
	int n = 0;

	memcpy(&ts, base, 8);
	memcpy(&commit_word, base + 8, sizeof(commit_word));
	commit = commit_word & 0xfffff;
	if (missed)
		*missed = !!(commit_word & (1UL << 31));
	if (commit > size - T_SB_HDR) {
		printf("# page: commit %zu beyond the sub-buffer (%zu)\n", commit, size);
		return -1;
	}
	while (off < commit) {
		u32 hdr = t_word(data + off);
		u32 type_len = hdr & 31, delta = hdr >> 5;
		size_t elen;

		if (commit - off < 4) {
			printf("# page: %zu stray bytes before commit\n", commit - off);
			return -1;
		}
		switch (type_len) {
		case RINGBUF_TYPE_PADDING:
			if (!delta) {
				printf("# page: null padding inside commit at %zu\n", off);
				return -1;
			}
			elen = t_word(data + off + 4) + 4;
			break;
		case RINGBUF_TYPE_TIME_EXTEND:
			ts += delta | ((u64)t_word(data + off + 4) << 27);
			elen = 8;
			break;
		case RINGBUF_TYPE_TIME_STAMP:
			ts = (delta | ((u64)t_word(data + off + 4) << 27)) |
				(ts & ~((1ULL << 59) - 1));
			elen = 8;
			break;
		default:
			ts += delta;
			if (n >= max) {
				printf("# page: more than %d events\n", max);
				return -1;
			}
			ev[n].ts = ts;
			if (type_len) {
				ev[n].len = type_len * 4;
				ev[n].data = data + off + 4;
			} else {
				ev[n].len = t_word(data + off + 4) - 4;
				ev[n].data = data + off + 8;
			}
			elen = (type_len ? 4 : 8) + ev[n].len;
			n++;
			break;
		}
		if (elen < 4 || off + elen > commit) {
			printf("# page: event at %zu of %zu bytes crosses commit %zu\n",
			       off, elen, commit);
			return -1;
		}
		off += elen;
	}
	return n;
}

