#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gen-stubs.sh OUTDIR FILE...: create an empty header in OUTDIR for every
# header FILE includes, except the ones the harness provides for real
# (the ring buffer's own headers, linux/ring_buffer.h and the private
# ring_buffer_internal.h next to the sources, and the uapi mmap header).
# rb_kernel.h is force-included, so the kernel headers themselves are not
# needed.
set -e
out=$1
shift
mkdir -p "$out"
sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p' "$@" |
sort -u | while read -r h; do
	case "$h" in
	linux/ring_buffer.h|ring_buffer_internal.h|uapi/linux/trace_mmap.h) continue ;;
	esac
	mkdir -p "$out/$(dirname "$h")"
	[ -f "$out/$h" ] || printf '/* empty: provided by rb_kernel.h */\n' > "$out/$h"
done
