# SPDX-License-Identifier: GPL-2.0
# initramfs-clients.sh: the real ftrace clients for the guest.  Sourced by
# mkinitramfs.sh (after the busybox tree is in place, before the cpio is
# written) with root set to the initramfs tree and arch to its architecture;
# never run on its own.
#
# Adds:
#   - trace-cmd (Debian's trace-cmd 3.1.6) with the shared libraries ldd
#     names, the dynamic loader, and libtraceevent's plugins (they make
#     `trace-cmd report` print function and sched events in their usual form),
#   - ftracetest and its test cases from the pristine 6.12 tree
#     (tools/testing/selftests/ftrace) in /opt/ftrace,
#   - a second user and group in /etc/passwd and /etc/group (ftracetest's
#     test_ownership.tc chowns tracefs files to "another" user and group),
#   - the guest checks that use them, in /lib/rb-checks.d/ (rb-checks
#     sources every *.sh there): guest/tracecmd.sh and guest/ftracetest.sh.
# For arm64 and i386, trace-cmd and its libraries are the same Debian
# packages of that arch, unpacked (not installed) under build/foreign/ARCH;
# ftracetest is shell scripts and runs on every arch.

if [ "$arch" = x86_64 ]; then
need_pkgs trace-cmd libtraceevent1-plugin

# copy_with_libs FILE...: copy each ELF file to the same path under
# root, with every shared library it needs (ldd) and the loader.
# Debian 12 has a merged /usr, so a library may be named by its /lib or
# /usr/lib path; both are resolved to the real file.
copy_with_libs() {
	local f lib
	for f in "$@"; do
		cp -L --parents "$f" "$root/"
		# ldd prints "name => /path (addr)" for libraries and
		# "/lib64/ld-linux-x86-64.so.2 (addr)" for the loader.
		for lib in $(ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }
				$1 ~ /^\// { print $1 }'); do
			[ -e "$root$lib" ] || cp -L --parents "$lib" "$root/"
		done
	done
}

# The busybox tree has /bin as a real directory; trace-cmd goes to
# /usr/bin, its libraries to /lib/x86_64-linux-gnu (searched by the loader
# without an ld.so.cache), the loader to /lib64.
copy_with_libs /usr/bin/trace-cmd
plugins=/usr/lib/x86_64-linux-gnu/traceevent/plugins
if [ -d "$plugins" ]; then
	copy_with_libs "$plugins"/*.so
fi
# A busybox "sh" runs trace-cmd's workloads; PATH has /usr/bin in the guest
# only through this link.
ln -sf /usr/bin/trace-cmd "$root/bin/trace-cmd"
else
fr=$BUILD/foreign/$arch
case $arch in
arm64) triplet=aarch64-linux-gnu ;;
i386) triplet=i386-linux-gnu ;;
esac
for p in trace-cmd libtraceevent1 libtraceevent1-plugin libtracefs1 libzstd1 libc6; do
	foreign_deb_extract "$deb_arch" "$p" "$fr"
done

# fr_real PATH: the file PATH names inside the unpacked tree, following
# its symbolic links there (an absolute link points into the tree too).
fr_real() {
	local p=$fr$1 l n=0
	while [ -L "$p" ] && [ $n -lt 10 ]; do
		l=$(readlink "$p")
		case $l in /*) p=$fr$l ;; *) p=$(dirname "$p")/$l ;; esac
		n=$((n + 1))
	done
	echo "$p"
}

# copy_foreign FILE...: copy each ELF file (a path in the guest) from the
# unpacked tree, with the libraries its NEEDED entries name, recursively,
# into /lib/TRIPLET (the loader's default directory), and its loader.
copy_foreign() {
	local f lib interp src
	for f in "$@"; do
		[ -e "$root$f" ] && continue
		src=$(fr_real "$f")
		[ -f "$src" ] || die "$f: not in the unpacked $arch packages"
		mkdir -p "$root$(dirname "$f")"
		cp "$src" "$root$f"
		interp=$(LC_ALL=C readelf -l "$src" |
			sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
		if [ -n "$interp" ] && [ ! -e "$root$interp" ]; then
			mkdir -p "$root$(dirname "$interp")"
			cp "$(fr_real "$interp")" "$root$interp"
		fi
		for lib in $(LC_ALL=C readelf -d "$src" |
				sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
			if [ -e "$(fr_real "/lib/$triplet/$lib")" ]; then
				copy_foreign "/lib/$triplet/$lib"
			else
				copy_foreign "/usr/lib/$triplet/$lib"
			fi
		done
	done
}

copy_foreign /usr/bin/trace-cmd
for plugin in "$fr/usr/lib/$triplet/traceevent/plugins"/*.so; do
	copy_foreign "${plugin#"$fr"}"
done
ln -sf /usr/bin/trace-cmd "$root/bin/trace-cmd"
fi

# ftracetest, as shipped in the kernel tree.
ftsrc=$PRISTINE/tools/testing/selftests/ftrace
[ -x "$ftsrc/ftracetest" ] || die "no $ftsrc/ftracetest in the pristine tree"
mkdir -p "$root/opt"
cp -a "$ftsrc" "$root/opt/ftrace"

# Users: root and a second, unprivileged user with its own group.
cat > "$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
rbuser:x:1000:1000:ring buffer test user:/tmp:/bin/sh
EOF
cat > "$root/etc/group" <<'EOF'
root:x:0:
rbuser:x:1000:
EOF

# The guest checks that use them.
mkdir -p "$root/lib/rb-checks.d"
install -m 644 "$VM_DIR/guest/tracecmd.sh" "$root/lib/rb-checks.d/tracecmd.sh"
install -m 644 "$VM_DIR/guest/ftracetest.sh" "$root/lib/rb-checks.d/ftracetest.sh"
