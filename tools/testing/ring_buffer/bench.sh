#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench.sh OURS STOCK: run both benchmark binaries, print one table with the
# ratio ours/stock.  Instruction counts come from callgrind (deterministic);
# rates are medians of RUNS runs of SECS seconds, ours and stock alternating.
set -e
ours=$1
stock=$2
RUNS=${RUNS:-5}
SECS=${SECS:-2}
N=${N:-200000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# instructions of the measured loop, divided by $2
ipe() {
	bin=$1; div=$2; shift 2
	valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$tmp/cg" \
		"$bin" "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; echo nan; return; }
	awk -v d="$div" '/^(summary|totals):/ { printf "%.1f\n", $2 / d; exit }' "$tmp/cg"
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

row() {
	# name ours stock unit
	awk -v n="$1" -v o="$2" -v s="$3" -v u="$4" 'BEGIN {
		r = (s + 0 > 0) ? sprintf("%.2f", o / s) : "-";
		printf "| %-34s | %14s | %14s | %6s | %-12s |\n", n, o, s, r, u }'
}

top=$(cd "$(dirname "$0")/../../.." && pwd)
# Our sources (split into words on purpose below).
srcs="kernel/trace/ring_buffer.c kernel/trace/ring_buffer_range.c
	kernel/trace/ring_buffer_map.c kernel/trace/ring_buffer_internal.h"
rev=$(git -C "$top" log -1 --format=%h -- $srcs 2>/dev/null || echo '?')
git -C "$top" diff --quiet -- $srcs 2>/dev/null || rev="$rev+uncommitted changes"
echo "Ring buffer user-space benchmark (same shims, gcc -O2, x86_64, $(nproc) cores)"
echo "ours: kernel/trace/ring_buffer.c at $rev; stock: linux-source-6.12"
echo "instructions: callgrind, deterministic; rates: median of $RUNS x ${SECS}s runs"
echo
printf '| %-34s | %14s | %14s | %6s | %-12s |\n' measure ours stock ratio unit
echo '|------------------------------------|----------------|----------------|--------|--------------|'
for len in 8 24 64 200; do
	o=$(ipe "$ours" "$N" write "$len" "$N")
	s=$(ipe "$stock" "$N" write "$len" "$N")
	row "write ${len}-byte payload" "$o" "$s" "instr/event"
done
o=$(ipe "$ours" "$N" wc 24 "$N")
s=$(ipe "$stock" "$N" wc 24 "$N")
row "write+consume 24-byte" "$o" "$s" "instr/event"
o=$(ipe "$ours" 500 page 500)
s=$(ipe "$stock" 500 page 500)
row "read_page (full), per sub-buffer" "$o" "$s" "instr/subbuf"

for mode in rate1 ratemap ratepc; do
	: > "$tmp/o"; : > "$tmp/s"; : > "$tmp/or"; : > "$tmp/sr"
	i=0
	while [ $i -lt "$RUNS" ]; do
		"$ours" "$mode" "$SECS" > "$tmp/x"; awk '{ print $1 >> "'"$tmp/o"'"; print $2 >> "'"$tmp/or"'" }' "$tmp/x"
		"$stock" "$mode" "$SECS" > "$tmp/x"; awk '{ print $1 >> "'"$tmp/s"'"; print $2 >> "'"$tmp/sr"'" }' "$tmp/x"
		i=$((i + 1))
	done
	o=$(median < "$tmp/o"); s=$(median < "$tmp/s")
	if [ "$mode" = rate1 ]; then
		row "1 writer + 1 reader: written" "$o" "$s" "events/s"
		o=$(median < "$tmp/or"); s=$(median < "$tmp/sr")
		row "1 writer + 1 reader: consumed" "$o" "$s" "events/s"
	elif [ "$mode" = ratemap ]; then
		o=$(median < "$tmp/or"); s=$(median < "$tmp/sr")
		row "1 writer + mapped reader: read" "$o" "$s" "events/s"
	else
		row "writer per core (2), total" "$o" "$s" "events/s"
	fi
done
echo
echo "ratio = ours/stock: below 1 is better for instructions, above 1 for rates."
echo "Rates depend on the load of this shared machine; instruction counts do not."
