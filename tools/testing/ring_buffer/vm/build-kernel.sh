#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kernel.sh KIND FLAVOUR: configure and build build/src-KIND out of tree.
#
#   KIND     ours | stock            (the tree made by apply-tree.sh)
#   FLAVOUR  normal | debug          x86_64 kernels
#            arm64                   cross-built (gcc-aarch64-linux-gnu)
#            i386                    ARCH=i386, the native gcc
#
# Objects go to build/obj-KIND (normal), build/obj-KIND-debug,
# build/obj-KIND-arm64 or build/obj-KIND-i386; the image is the .../bzImage
# (x86) or .../arch/arm64/boot/Image of that directory (flavour_setup in
# lib.sh names both).
#
# The config is the arch's tinyconfig + config/base.config + the arch's
# fragments (x86.config, i386.config, arm64.config; debug.config for debug),
# a later fragment winning over an earlier one.  It is generated in a
# scratch directory and copied over the real .config only when it changed,
# so an unchanged config does not force a rebuild.  Every option of the
# fragments is then checked in the final .config: one that silently vanished
# (missing dependency) fails the build.
#
# Environment: JOBS (default 2), VERBOSE=1 (show every make line; otherwise
# a progress line every 250 objects), CCACHE_DIR (default ~/.cache/ccache).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kind=${1:?usage: build-kernel.sh KIND FLAVOUR}
flavour=${2:?usage: build-kernel.sh KIND FLAVOUR}
src=$BUILD/src-$kind
flavour_setup "$flavour"
obj=$BUILD/obj-$kind$K_OBJ_SUFFIX
frags=("${K_FRAGS[@]}")
[ -f "$src/Makefile" ] || die "$src missing: run apply-tree.sh first"

need_pkgs "${KERNEL_BUILD_PKGS[@]}" "${K_PKGS[@]}"

# ccache: the per-user cache ccache itself defaults to (~/.cache/ccache),
# so that a fresh clone, or `make clean`, does not start cold; set
# CCACHE_DIR=build/ccache for a cache private to this checkout.  With
# base_dir set, paths under build/ are hashed relative, so a clone in
# another directory still hits the cache.
export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache}
export CCACHE_BASEDIR=$BUILD
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Fixed build stamps keep init/version.c identical from build to build.
export KBUILD_BUILD_TIMESTAMP="2024-11-17"
export KBUILD_BUILD_USER=rb KBUILD_BUILD_HOST=vm
# The compiler and the arch, for every make below.
kargs=(ARCH="$K_ARCH" "CC=ccache ${K_CROSS}gcc" "HOSTCC=ccache gcc")
[ -z "$K_CROSS" ] || kargs+=(CROSS_COMPILE="$K_CROSS")
kmake() {
	make -s -C "$src" "${kargs[@]}" "$@"
}

# --- configure ----------------------------------------------------------------
stage_start "configure obj-${obj##*/obj-}"
cfg=$obj.cfg
mkdir -p "$cfg" "$obj"
# The config depends only on the fragments and the Kconfig files: when none
# changed since the last run, keep it (saves a minute on a loaded machine).
inputs=$( (cat "${frags[@]}"; cd "$src" && find . -name 'Kconfig*' -type f -print0 |
	LC_ALL=C sort -z | xargs -0 cat) | sha1sum | cut -d' ' -f1)
if [ -f "$obj/.config" ] && [ "$(cat "$cfg/.inputs" 2>/dev/null)" = "$inputs" ] &&
	cmp -s "$cfg/.config" "$obj/.config"; then
	stage_end "unchanged"
else
rm -f "$cfg/.inputs"
kmake O="$cfg" tinyconfig >/dev/null
# merge_config.sh -m: merge only, then olddefconfig resolves dependencies.
"$src/scripts/kconfig/merge_config.sh" -m -O "$cfg" "$cfg/.config" \
	"${frags[@]}" >/dev/null
kmake O="$cfg" olddefconfig >/dev/null
# Check the result, not the fragment: every "CONFIG_X=v" line must be in
# .config verbatim, every "# CONFIG_X is not set" must not be enabled.  When
# fragments disagree the later one wins, as in merge_config.sh.
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
		-e 's/^# (CONFIG_[A-Za-z0-9_]+) is not set$/\1|n/p' |
	awk -F'|' '{ want[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
		END { for (i = 0; i < n; i++) print order[i] "|" want[order[i]] }')
[ $bad -eq 0 ] || die "some requested options are missing from the .config (dependencies?)"
if ! cmp -s "$cfg/.config" "$obj/.config"; then
	cp "$cfg/.config" "$obj/.config"
	msg "new .config for $obj"
fi
echo "$inputs" > "$cfg/.inputs"
stage_end
fi

# --- build --------------------------------------------------------------------
stage_start "build obj-${obj##*/obj-} ($K_TARGET, -j${JOBS:-2})"
log=$obj/build.log
t0=$(date +%s)
set +e
if [ "${VERBOSE:-0}" = 1 ]; then
	make -C "$src" O="$obj" "${kargs[@]}" -j"${JOBS:-2}" "$K_TARGET" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
else
	# Kbuild prints one "  CC ..." line per object: count them and print a
	# progress line every 250 objects.
	make -C "$src" O="$obj" "${kargs[@]}" -j"${JOBS:-2}" "$K_TARGET" 2>&1 | tee "$log" |
		awk -v t0="$t0" '/^  (CC|AS|LD|AR)/ { n++; if (n % 250 == 0) {
				cmd = "date +%s"; cmd | getline now; close(cmd)
				printf "    ... %d objects, %ds\n", n, now - t0; fflush() } }
			END { printf "    ... %d objects built\n", n }'
	rc=${PIPESTATUS[0]}
fi
set -e
if [ "$rc" -ne 0 ]; then
	msg "build failed; last lines of $log:"
	grep -E 'error|Error' "$log" | head -40
	tail -n 30 "$log"
	stage_end FAILED
	exit 1
fi
[ -f "$obj/$K_IMAGE" ] || die "no $K_IMAGE in $obj"
stage_end
command -v ccache >/dev/null && msg "ccache: $(ccache -s 2>/dev/null |
	grep -iE 'hits:' | head -1 | tr -s ' ')"
true
