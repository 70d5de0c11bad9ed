# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# The boot machinery of the kernel scripts, sourced by tests/kernel/run
# (the shared cases) and bench/kernel/run (the in-kernel benchmark), from
# the repository root after .ci/bootstrap.sh:
#
#   kernel_series_list      the series of tests/kernel/series, one a line
#   kernel_series_suites SERIES
#                           its Debian suites ("machine": the machine's own)
#   kernel_mirror RELEASE   the URI of the machine's apt repository for
#                           RELEASE (bookworm: its archive mirror)
#   kernel_prepare SERIES   packages, the kernel build tree (KDIR), its
#                           image (IMAGE) and the module build's arguments
#                           (kbuild_args); SERIES "" is the machine's own
#                           Debian headers (or KDIR= and DC_KERNEL_IMAGE=)
#   kernel_make MAKE-ARGS...
#                           make -C kshim MAKE-ARGS with the kernel's own
#                           compiler: in a chroot of the kernel's Debian
#                           release where the machine does not have it
#   kernel_initramfs WORK CONF MODULE.ko...
#                           WORK/initramfs.cpio: busybox, tests/kernel/init,
#                           the modules and CONF as /dc-test.conf (init
#                           loads the modules CONF's DC_MODULES names)
#   kernel_boot WORK SMP    boot IMAGE with it under qemu with SMP CPUs,
#                           serial console to WORK/serial.log; sets
#                           boot_rc (qemu's exit status: 33 pass, 35 the
#                           guest reported a failure), t_boot and accel
#
# Variables read: ROOT, CACHE (downloads), TIMEOUT (boot bound, seconds),
# DC_KERNEL_ACCEL, DC_KERNEL_APPEND, KDIR, DC_KERNEL_IMAGE, and
# KERNEL_SLUB_DEBUG (default slub_debug=FZPU; a benchmark sets it empty).

now() { date +%s.%N; }

kernel_series_list() {
	awk '!/^#/ && NF { print $1 }' tests/kernel/series
}

kernel_series_suites() {
	awk -v s="$1" '!/^#/ && $1 == s { $1 = ""; sub(/^ +/, ""); print }' tests/kernel/series
}

kernel_mirror() {
	apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' |
		awk -v r="$1" '$2 == r { print $1; exit }'
}

since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
say() { echo ">> $*" >&2; }

# The image must be the ABI the modules are built for (vermagic,
# modversions): take the linux-image package named after the headers, and
# only its vmlinuz (installing the package would build an initrd).
kernel_image() {
	local abi=${KDIR##*/linux-headers-} dir deb
	dir=$CACHE/image-$abi
	mkdir -p "$dir"
	# One download at a time (runs in other work directories share it).
	exec 9>"$dir/lock"
	flock 9
	if [ ! -f "$dir/vmlinuz" ]; then
		say "fetching linux-image-$abi"
		mkdir -p "$dir/dl"
		rm -f "$dir"/dl/*.deb
		# apt's _apt user must be able to write the download directory.
		chmod 0777 "$dir/dl"
		if ! (cd "$dir/dl" && apt-get download -q "linux-image-$abi" >/dev/null 2>&1); then
			apt-get update -qq
			(cd "$dir/dl" && apt-get download -q "linux-image-$abi" >/dev/null)
		fi
		deb=$(ls "$dir"/dl/linux-image-"$abi"_*.deb)
		dpkg-deb --fsys-tarfile "$deb" |
			tar -x -O "./boot/vmlinuz-$abi" > "$dir/vmlinuz.part"
		mv "$dir/vmlinuz.part" "$dir/vmlinuz"
		rm -f "$deb"
	fi
	exec 9>&-
	echo "$dir/vmlinuz"
}

kernel_prepare() {
	local series=$1 t0 fetched kcc kver hver

	dc_need_pkgs linux-headers-amd64 qemu-system-x86 busybox-static cpio make gcc

	kernel_release=
	case $(kernel_series_suites "$series") in
	""|machine) ;;
	*)
		# The Debian release the series was built for: that of its
		# first suite (trixie-backports: trixie).
		kernel_release=$(kernel_series_suites "$series" | awk '{ print $1 }')
		kernel_release=${kernel_release%%-*}
		t0=$(now)
		fetched=$(bash tests/kernel/fetch-series "$series" "$CACHE") || fetched=
		KDIR=$(sed -n 1p <<<"$fetched")
		DC_KERNEL_IMAGE=$(sed -n 2p <<<"$fetched")
		[ -n "$DC_KERNEL_IMAGE" ] || { echo "kernel: 0 passed, 1 failed (fetching $series)"; exit 1; }
		say "kernel $series: $(basename "$KDIR") (ready in $(since "$t0")s)"
		;;
	esac

	if [ -z "${KDIR:-}" ]; then
		KDIR=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)
	fi
	[ -f "$KDIR/Makefile" ] || { echo "no kernel build tree in '$KDIR'" >&2; exit 1; }

	if [ -n "${DC_KERNEL_IMAGE:-}" ]; then
		IMAGE=$DC_KERNEL_IMAGE
	else
		IMAGE=$(kernel_image)
	fi

	# The compiler: the one the kernel was built with (its .config names
	# it), or where that one is not packaged for this machine (5.10's
	# gcc-10 on Debian 12) the machine's gcc, if it is at least as new;
	# where the kernel's compiler is newer than the machine's (gcc-14 of
	# trixie's 6.12 and 7.x on Debian 12), that compiler in a chroot of
	# the kernel's Debian release (kernel_toolchain).
	# That is safe for an out-of-tree module: what the module shares with
	# the kernel, the calling convention and the structure layouts, is
	# fixed by the x86-64 ABI, the kernel's flags (-mcmodel=kernel,
	# -mno-red-zone, retpoline and return thunks) and the .config, not by
	# the compiler's version; Debian's kernels have no GCC plugins (whose
	# randstruct would tie layouts to one compiler); a newer gcc accepts
	# every option Kconfig found the older one to take; and neither
	# vermagic nor the modversions CRCs (genksyms, from the preprocessed
	# headers) name the compiler.
	kbuild_args=(KDIR="$KDIR" DC_WERROR=1)
	kchroot=
	kcc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p' "$KDIR/.config" 2>/dev/null || true)
	if [ -n "$kcc" ] && ! command -v "$kcc" >/dev/null; then
		kver=$(sed -n 's/^CONFIG_GCC_VERSION=//p' "$KDIR/.config")
		hver=$(gcc -dumpfullversion | awk -F. '{ printf "%d%02d%02d\n", $1, $2, $3 }')
		if [ "${kver:-0}" -gt 0 ] && [ "$hver" -ge "$kver" ]; then
			say "$kcc (the kernel's compiler) is not on this machine: gcc $(gcc -dumpfullversion) instead"
			kbuild_args+=(CC=gcc)
		elif [ -n "$kernel_release" ] && [[ ${kcc##*-linux-gnu-} =~ ^gcc-[0-9]+$ ]]; then
			t0=$(now)
			# With dkms: the chroot tests/package/run builds with DKMS in
			# (one debootstrap for both).
			kernel_toolchain "$kernel_release" "${kcc##*-linux-gnu-}" dkms
			say "$kcc (the kernel's compiler): in a $kernel_release chroot, $kchroot (ready in $(since "$t0")s)"
		else
			echo "kernel: 0 passed, 1 failed (no compiler for $KDIR: it names $kcc)"
			exit 1
		fi
	fi
	# Module BTF is made (with pahole) where the headers ship the vmlinux
	# it is based on (6.12; 6.1's do not, and kbuild skips it there).
	if [ -e "$KDIR/vmlinux" ] && grep -q '^CONFIG_DEBUG_INFO_BTF_MODULES=y' "$KDIR/.config"; then
		dc_need_pkgs dwarves
	fi
}

# kernel_toolchain RELEASE GCC [PACKAGE...]: kchroot, a minimal chroot of
# Debian RELEASE with GCC (gcc-14), make, pahole and the PACKAGEs
# (tests/package/run: dkms), made once by debootstrap and cached under CACHE
# like the images.  Building in it is building on a machine of
# that release, as a user of that kernel does: the compiler is the
# kernel's own (same package, same flags accepted), and the prebuilt
# helpers of the kernel's linux-kbuild package (fixdep, modpost, objtool),
# linked against that release's C library, run against it.  Only the
# headers and the sources come from outside, bind-mounted read-write at
# the same paths (kernel_make).
# (root for debootstrap and the mounts: sudo when not root)
kernel_sudo() { [ "$(id -u)" -eq 0 ] || echo sudo; }

kernel_toolchain() {
	local release=$1 cc=$2 dir mirror extra
	shift 2
	extra=
	[ $# -eq 0 ] || extra=$(printf ',%s' "$@")
	dir=$CACHE/toolchain-$release-$cc${extra//,/+}
	kchroot=$dir/root
	mkdir -p "$dir"
	# One debootstrap at a time (runs in other work directories share it).
	exec 8>"$dir/lock"
	flock 8
	if [ ! -f "$dir/.complete" ]; then
		dc_need_pkgs debootstrap debian-archive-keyring >&2
		mirror=$(kernel_mirror bookworm)
		[ -n "$mirror" ] || { echo "kernel: 0 passed, 1 failed (no bookworm repository in apt's sources)"; exit 1; }
		say "debootstrap --variant=minbase $release with $cc, make, dwarves${extra//,/, } ($mirror)"
		rm -rf "$kchroot"
		if ! $(kernel_sudo) debootstrap --variant=minbase --include="$cc,make,dwarves$extra" \
			"$release" "$kchroot" "$mirror" > "$dir/debootstrap.log" 2>&1; then
			tail -20 "$dir/debootstrap.log" >&2
			rm -rf "$kchroot"
			echo "kernel: 0 passed, 1 failed (debootstrap $release, see $dir/debootstrap.log)"
			exit 1
		fi
		rm -rf "$kchroot"/var/cache/apt/archives/*.deb
		touch "$dir/.complete"
	fi
	exec 8>&-
}

kernel_make() {
	local d binds=()
	if [ -z "${kchroot:-}" ]; then
		make -C kshim "$@"
		return
	fi
	# The tree, the downloads and the work directory at their own paths,
	# so that every path of the build means the same inside.  A mount
	# namespace of its own: the mounts end with the command.
	for d in "$ROOT" "$CACHE" "$WORK"; do binds+=("$(realpath -m "$d")"); done
	$(kernel_sudo) unshare --mount --propagation private -- sh -ec '
		root=$1 n=$2
		shift 2
		mount -t proc proc "$root/proc"
		mount --bind /dev "$root/dev"
		while [ "$n" -gt 0 ]; do
			mkdir -p "$1" "$root$1"
			mount --bind "$1" "$root$1"
			shift
			n=$((n - 1))
		done
		exec chroot "$root" "$@"' sh "$kchroot" "${#binds[@]}" "${binds[@]}" \
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C \
		make -C "$ROOT/kshim" "$@"
}

kernel_initramfs() {
	local work=$1 conf=$2 rd=$1/initramfs
	shift 2
	rm -rf "$rd"
	mkdir -p "$rd"/{bin,dev,proc,sys}
	cp /bin/busybox "$rd/bin/busybox"
	cp tests/kernel/init "$rd/init"
	chmod 0755 "$rd/init"
	cp "$@" "$rd/"
	cp "$conf" "$rd/dc-test.conf"
	(cd "$rd" && find . -print0 | cpio --null -o -H newc -R 0:0 --quiet) > "$work/initramfs.cpio"
}

kvm_usable() {
	[ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ] &&
		grep -qE '^flags.*\b(vmx|svm)\b' /proc/cpuinfo
}

kernel_boot() {
	local work=$1 smp=$2 cpu=max append t0

	accel=${DC_KERNEL_ACCEL:-}
	if [ -z "$accel" ]; then
		if kvm_usable; then accel=kvm; else accel=tcg; fi
	fi
	[ "$accel" = kvm ] && cpu=host

	# panic_on_warn, oops=panic and softlockup_panic turn every kernel
	# splat into a panic; panic=-1 reboots at once and -no-reboot makes
	# that an exit.  preempt=full: kthreads that spin on a flag (the
	# readers of itree_rcu_readers_vs_writer) must not starve the one
	# they wait for.
	append="console=ttyS0 quiet panic=-1 oops=panic panic_on_warn=1"
	append+=" softlockup_panic=1 ${KERNEL_SLUB_DEBUG-slub_debug=FZPU} preempt=full"
	# Expedited grace periods: same guarantee, but itree removal under
	# failing allocations waits for one per call (thousands in a case),
	# and a normal grace period takes several ticks.
	append+=" rcupdate.rcu_expedited=1"
	# A log buffer that holds a whole run: /init checks the kernel
	# messages since the modules were loaded (tests/kernel/init).
	append+=" log_buf_len=4M"
	# No check that the IO-APIC delivers timer interrupts within a few
	# ticks of boot: under TCG on a loaded host it may not, and the
	# kernel panics ("IO-APIC + timer doesn't work!": seen in CI with
	# stress-ng beside it).  Virtual machines' kernels are booted so.
	append+=" no_timer_check"
	append+=" ${DC_KERNEL_APPEND:-}"

	say "booting $(basename "$(dirname "$IMAGE")") under qemu ($accel, $smp CPU(s), timeout ${TIMEOUT}s)"
	t0=$(now)
	boot_rc=0
	# sockets=N: one CPU per socket, found through the MP table by a
	# kernel without ACPI (the debug kernel).
	# KERNEL_QEMU_ARGS: more qemu options (bench/kernel/run's -icount).
	# shellcheck disable=SC2086
	timeout -k 10 "$TIMEOUT" qemu-system-x86_64 -accel "$accel" -cpu "$cpu" ${KERNEL_QEMU_ARGS:-} \
		-smp "$smp,sockets=$smp" -m 512M -display none -monitor none -no-reboot \
		-nic none -serial "file:$work/serial.log" \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-kernel "$IMAGE" -initrd "$work/initramfs.cpio" -append "$append" \
		</dev/null || boot_rc=$?
	t_boot=$(since "$t0")
}
