#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cross-link.sh ARCH [KIND]: compile and link build/src-KIND (default ours,
# made by apply-tree.sh) for another architecture, as the kernel's build
# bots would, and fail on any warning in our files.
#
#   ARCH  arm      ARMv7 (multi-platform, "virt"), gcc-arm-linux-gnueabihf
#         riscv64  RV64 without efficient unaligned access, so that
#                  CONFIG_HAVE_64BIT_ALIGNED_ACCESS=y; gcc-riscv64-linux-gnu
#
# The config is the arch's tinyconfig + config/cross.config (the tracing
# and boot-time test options of base.config, the self-test among them) +
# the arch's lines below; every line is checked in the final .config.  The
# build is W=1 of kernel/trace/, lib/ and arch/ARCH/lib/ (a quarter of a
# vmlinux), then the part of the link that can fail for our files alone:
# every symbol our objects need from libgcc (a u64 division, say) must be
# defined by the kernel's own lib/ or arch/ARCH/lib/ objects, since the
# kernel does not link libgcc.  The rest of the link is the same for every
# arch and is done by the kernels make test boots.  Our objects are rebuilt
# every time (ccache replays a cached compiler's warnings), so a warning in
# kernel/trace/ring_buffer.c, ring_buffer_range.c, ring_buffer_internal.h,
# ring_buffer_selftest.c or include/linux/ring_buffer.h is never missed
# because make had nothing to do.
#
# Objects and the log: build/obj-KIND-cross-ARCH/ (build.log).
# Environment: JOBS (default 2), CCACHE_DIR (default ~/.cache/ccache).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: cross-link.sh ARCH [KIND]}
kind=${2:-ours}
src=$BUILD/src-$kind
obj=$BUILD/obj-$kind-cross-$arch
case $arch in
arm)
	karch=arm cross=arm-linux-gnueabihf- pkg=gcc-arm-linux-gnueabihf
	lines=(CONFIG_ARCH_MULTI_V7=y CONFIG_ARCH_VIRT=y CONFIG_CPU_V7=y
		CONFIG_AEABI=y CONFIG_HIST_TRIGGERS=y)
	;;
riscv64)
	karch=riscv cross=riscv64-linux-gnu- pkg=gcc-riscv64-linux-gnu
	# The arch default, probing at boot, is not "efficient": 64-bit
	# accesses must then be 8-byte aligned.  No ARCH_HAVE_NMI_SAFE_CMPXCHG
	# (so no HIST_TRIGGERS).
	lines=(CONFIG_ARCH_RV64I=y CONFIG_64BIT=y
		"# CONFIG_ARCH_HAVE_NMI_SAFE_CMPXCHG is not set"
		"# CONFIG_RISCV_EFFICIENT_UNALIGNED_ACCESS is not set"
		CONFIG_HAVE_64BIT_ALIGNED_ACCESS=y)
	;;
*) die "unknown arch '$arch' (arm or riscv64)" ;;
esac
[ -f "$src/Makefile" ] || die "$src missing: run apply-tree.sh first"

need_pkgs "${KERNEL_BUILD_PKGS[@]}" "$pkg"

export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache}
export CCACHE_BASEDIR=$BUILD
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
export KBUILD_BUILD_TIMESTAMP="2024-11-17"
export KBUILD_BUILD_USER=rb KBUILD_BUILD_HOST=vm
kargs=(ARCH="$karch" CROSS_COMPILE="$cross" "CC=ccache ${cross}gcc"
	"HOSTCC=ccache gcc")

# --- configure ------------------------------------------------------------------
stage_start "configure obj-$kind-cross-$arch"
cfg=$obj.cfg
mkdir -p "$cfg" "$obj"
frag=$cfg/arch.config
printf '%s\n' "${lines[@]}" > "$frag.new"
cmp -s "$frag.new" "$frag" || mv "$frag.new" "$frag"
rm -f "$frag.new"
frags=("$VM_DIR/config/cross.config" "$frag")
# Kept when neither the fragments nor the Kconfig files changed.
inputs=$( (cat "${frags[@]}"; cd "$src" && find . -name 'Kconfig*' -type f -print0 |
	LC_ALL=C sort -z | xargs -0 cat) | sha1sum | cut -d' ' -f1)
if [ -f "$obj/.config" ] && [ "$(cat "$cfg/.inputs" 2>/dev/null)" = "$inputs" ] &&
	cmp -s "$cfg/.config" "$obj/.config"; then
	stage_end "unchanged"
else
	rm -f "$cfg/.inputs"
	make -s -C "$src" "${kargs[@]}" O="$cfg" tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$cfg" "$cfg/.config" \
		"${frags[@]}" >/dev/null
	make -s -C "$src" "${kargs[@]}" O="$cfg" olddefconfig >/dev/null
	bad=0
	while IFS='|' read -r opt want; do
		have=$(grep -E "^(# )?$opt[= ]" "$cfg/.config" || true)
		if [ "$want" = n ]; then
			case $have in "$opt="*) msg "config: wanted $opt off, got '$have'"; bad=1 ;; esac
		elif [ "$have" != "$opt=$want" ]; then
			msg "config: wanted '$opt=$want', got '${have:-nothing}'"
			bad=1
		fi
	done < <(cat "${frags[@]}" | sed -nE -e 's/^(CONFIG_[A-Za-z0-9_]+)=(.*)$/\1|\2/p' \
			-e 's/^# (CONFIG_[A-Za-z0-9_]+) is not set$/\1|n/p')
	if [ $bad -ne 0 ]; then
		stage_end FAILED
		die "some requested options are missing from the $arch .config"
	fi
	cmp -s "$cfg/.config" "$obj/.config" || cp "$cfg/.config" "$obj/.config"
	echo "$inputs" > "$cfg/.inputs"
	stage_end
fi

# --- build ---------------------------------------------------------------------
stage_start "build obj-$kind-cross-$arch (W=1 kernel/trace/ lib/ arch/$karch/lib/, -j${JOBS:-2})"
log=$obj/build.log
rm -f "$obj"/kernel/trace/ring_buffer.o "$obj"/kernel/trace/ring_buffer_range.o \
	"$obj"/kernel/trace/ring_buffer_map.o \
	"$obj"/kernel/trace/ring_buffer_selftest.o
t0=$(date +%s)
set +e
make -C "$src" O="$obj" "${kargs[@]}" W=1 -j"${JOBS:-2}" \
	kernel/trace/ lib/ "arch/$karch/lib/" 2>&1 | tee "$log" |
	awk -v t0="$t0" '/^  (CC|AS|LD|AR)/ { n++; if (n % 100 == 0) {
			cmd = "date +%s"; cmd | getline now; close(cmd)
			printf "    ... %d objects, %ds\n", n, now - t0; fflush() } }
		END { printf "    ... %d objects built\n", n }'
rc=${PIPESTATUS[0]}
set -e
ours='(^|/)(kernel/trace/ring_buffer(_selftest|_range|_map)?\.c|kernel/trace/ring_buffer_internal\.h|include/linux/ring_buffer\.h):[0-9]+(:[0-9]+)?: (warning|error)'
nwarn=$(grep -cE '(warning|error):' "$log" || true)
nours=$(grep -cE "$ours" "$log" || true)
msg "$arch: $nwarn warning/error lines in the whole W=1 build, $nours in our files"
if [ "$nours" -ne 0 ]; then
	grep -E -A3 "$ours" "$log" | head -60
fi
if [ "$rc" -ne 0 ]; then
	msg "$arch: build failed; last lines of $log:"
	grep -E 'error' "$log" | head -20
	tail -n 20 "$log"
	stage_end FAILED
	exit 1
fi
# Our objects must really have been built: a config that lost them would
# pass with nothing checked.
for o in ring_buffer.o ring_buffer_range.o ring_buffer_map.o ring_buffer_selftest.o; do
	[ -f "$obj/kernel/trace/$o" ] || { stage_end FAILED; die "$arch: no kernel/trace/$o built"; }
done
if [ "$nours" -ne 0 ]; then
	stage_end FAILED
	exit 1
fi
# The link, for what only our objects can break: a libgcc helper they call
# must be one the kernel defines itself.
libgcc=$("${cross}gcc" -print-libgcc-file-name)
nm -g --defined-only "$libgcc" 2> /dev/null | awk '$2 ~ /^[TWD]$/ { print $3 }' |
	sort -u > "$obj/libgcc.syms"
find "$obj/lib" "$obj/arch/$karch/lib" -name '*.o' -print0 |
	xargs -0 "${cross}nm" -g --defined-only 2> /dev/null |
	awk 'NF == 3 { print $3 }' | sort -u > "$obj/kernel-lib.syms"
[ -s "$obj/libgcc.syms" ] && [ -s "$obj/kernel-lib.syms" ] ||
	{ stage_end FAILED; die "$arch: no symbols read from libgcc or the kernel's lib/"; }
# helpers_missing OBJ...: the libgcc helpers OBJ... need that the kernel lacks.
helpers_missing() {
	"${cross}nm" -u "$@" | awk '$1 == "U" { print $2 }' | sort -u |
		comm -12 - "$obj/libgcc.syms" | comm -23 - "$obj/kernel-lib.syms"
}
# The check must see a division the kernel cannot link: the widest one the
# arch has no instruction for.
probe=$obj/link-probe
case $arch in
arm) ptype='unsigned long long' ;;
*) ptype='unsigned __int128' ;;
esac
echo "$ptype rb_probe($ptype a, $ptype b) { return a / b; }" > "$probe.c"
"${cross}gcc" -O2 -c -o "$probe.o" "$probe.c"
if [ -z "$(helpers_missing "$probe.o")" ]; then
	stage_end FAILED
	die "$arch: the link check does not see the libgcc call of a $ptype division"
fi
missing=$(helpers_missing "$obj/kernel/trace/ring_buffer.o" \
	"$obj/kernel/trace/ring_buffer_range.o" \
	"$obj/kernel/trace/ring_buffer_map.o" \
	"$obj/kernel/trace/ring_buffer_selftest.o")
if [ -n "$missing" ]; then
	msg "$arch: our objects need libgcc helpers the kernel does not have:" $missing
	stage_end FAILED
	exit 1
fi
stage_end
