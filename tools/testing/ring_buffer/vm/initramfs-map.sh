# SPDX-License-Identifier: GPL-2.0
# initramfs-map.sh: the guest checks of the user-space mapping of
# trace_pipe_raw (guest/map.sh) and the two programs they run.  Sourced by
# mkinitramfs.sh (after the busybox tree is in place, before the cpio is
# written) with root set to the initramfs tree and arch to its
# architecture; never run on its own.
#
# Builds, static, with the compiler for that arch (the host's gcc for
# x86_64, Debian's aarch64-linux-gnu-gcc and i686-linux-gnu-gcc, with their
# static C libraries, for arm64 and i386):
#   - 6.12's tools/testing/selftests/ring-buffer/map_test.c, compiled where
#     it is in the pristine tree (it includes ../kselftest_harness.h and
#     ../user_events/user_events_selftests.h), to build/map/ARCH/map_test,
#     installed as /opt/map_test/map_test,
#   - guest/rb-map.c to build/map/ARCH/rb-map, installed as /bin/rb-map,
# and installs guest/map.sh into /lib/rb-checks.d/.
# Both programs include <linux/trace_mmap.h> (new in 6.10; Debian 12's
# kernel headers are 6.1): build/map-include/linux/trace_mmap.h is a link
# to the pristine tree's include/uapi/linux/trace_mmap.h, every other
# header comes with the compiler's C library.

case $arch in
x86_64) map_cc=gcc map_pkgs=(gcc libc6-dev) ;;
arm64) map_cc=aarch64-linux-gnu-gcc
	map_pkgs=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross) ;;
i386) map_cc=i686-linux-gnu-gcc map_pkgs=(gcc-i686-linux-gnu libc6-dev-i386-cross) ;;
esac
need_pkgs "${map_pkgs[@]}"

map_inc=$BUILD/map-include
map_out=$BUILD/map/$arch
map_src=$PRISTINE/tools/testing/selftests/ring-buffer/map_test.c
[ -f "$map_src" ] || die "no $map_src in the pristine tree"
[ -f "$PRISTINE/include/uapi/linux/trace_mmap.h" ] ||
	die "no include/uapi/linux/trace_mmap.h in the pristine tree"
mkdir -p "$map_inc/linux" "$map_out"
ln -sfn "$PRISTINE/include/uapi/linux/trace_mmap.h" "$map_inc/linux/trace_mmap.h"
# -D_GNU_SOURCE= as the selftests' lib.mk adds it (CPU_SET, asprintf).
"$map_cc" -static -O2 -Wall -D_GNU_SOURCE= -I"$map_inc" -o "$map_out/map_test" "$map_src" ||
	die "map_test.c did not build for $arch"
"$map_cc" -static -O2 -Wall -Wextra -I"$map_inc" -o "$map_out/rb-map" \
	"$VM_DIR/guest/rb-map.c" || die "guest/rb-map.c did not build for $arch"

mkdir -p "$root/opt/map_test" "$root/lib/rb-checks.d"
install -m 755 "$map_out/map_test" "$root/opt/map_test/map_test"
install -m 755 "$map_out/rb-map" "$root/bin/rb-map"
install -m 644 "$VM_DIR/guest/map.sh" "$root/lib/rb-checks.d/map.sh"
