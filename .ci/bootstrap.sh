# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by tests/run and examples/run-demo: install what the build needs
# (Debian packages, only when missing; idempotent and non-interactive),
# generate the build system, and configure one build directory.

dc_need_pkgs() {
	local missing=() p
	for p in "$@"; do
		[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo ">> installing Debian packages: ${missing[*]}"
	local sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# systemtap-sdt-dev: <sys/sdt.h>, the library's USDT probes (build time only).
DC_BUILD_PKGS="autoconf automake libtool make gcc g++ pkg-config liburcu-dev libcmocka-dev libfuse3-dev fuse3 liburing-dev systemtap-sdt-dev"

# dc_autogen: (re)generate ./configure when it is missing or stale.
dc_autogen() {
	if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
		echo ">> autoreconf"
		autoreconf -fi >/dev/null
	fi
}

# dc_configure DIR [configure args...]: configure an out-of-tree build in DIR
# unless it is already configured with the same arguments.  With DC_WERROR=1
# (tests/run sets it) warnings are errors.
dc_configure() {
	local dir=$1; shift
	[ "${DC_WERROR:-0}" = 1 ] && set -- --enable-werror "$@"
	local args="$*"
	mkdir -p "$dir"
	if [ ! -f "$dir/Makefile" ] || [ "$(cat "$dir/.dc-args" 2>/dev/null)" != "$args" ] ||
	   [ configure -nt "$dir/Makefile" ]; then
		echo ">> configure $dir $args"
		(cd "$dir" && "$DC_SRCDIR/configure" -q "$@") || return 1
		echo "$args" > "$dir/.dc-args"
	fi
}

DC_SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DC_JOBS=$(nproc 2>/dev/null || echo 2)
# Compiling only: twice as many jobs as CPUs.  On a machine that other work
# keeps busy (a shared CI host) the scheduler shares the CPUs by runnable
# thread, so a build with as many jobs as CPUs gets a small part of them;
# on an idle machine the extra jobs cost nothing but memory.  Tests run
# DC_JOBS at a time.
DC_BUILD_JOBS=$((2 * DC_JOBS))
