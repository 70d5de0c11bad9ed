# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by tests/abi/check and tests/abi/update: the libraries whose ABI
# is kept, how their ABI is dumped, and the libtool version rule.

. .ci/bootstrap.sh
dc_need_pkgs abigail-tools

# library, its libtool version's variable in configure.ac
ABI_LIBS="libdaxcache:DC_LT_VERSION libdaxcache-sim:DC_SIM_LT_VERSION"
ABI_DIR=tests/abi
ABI_VERSIONS=$ABI_DIR/versions

# lt_version VAR [FILE]: current:revision:age of VAR in configure.ac (or FILE).
lt_version() {
	sed -n "s/^AC_SUBST(\[$1\], \[\([0-9]*:[0-9]*:[0-9]*\)\])$/\1/p" "${2:-configure.ac}"
}

# so_file LIB C:R:A: the file name libtool gives LIB.so at that version.
so_file() {
	local c r a
	IFS=: read -r c r a <<<"$2"
	echo "$1.so.$((c - a)).$a.$r"
}

# recorded LIB [FILE]: the version line of LIB in the versions file
# ("LIB C:R:A" or "LIB C:R:A unreleased").
recorded() {
	awk -v l="$1" '$1 == l { print $2, $3 }' "${2:-$ABI_VERSIONS}" 2>/dev/null
}

# dump BUILDDIR LIB OUT: the ABI of BUILDDIR's shared library LIB.so as
# abidw sees it, restricted to the types of the public headers (of the
# source tree BUILDDIR was configured from), without paths or line numbers
# (so that the baseline does not change with every edit or build directory),
# and with only what the library exports: no declaration of a symbol it does
# not define (--drop-undefined-syms), nothing internal (dci_*:
# tests/abi/internal.supp).
# Type ids are hashes of the types (--type-id-style hash), not their
# order of appearance: a member appended to a structure changes its
# size and adds its own lines, and renumbers nothing else.
dump() {
	local so=$1/lib/.libs/$2.so src
	src=$(sed -n 's/^abs_top_srcdir = //p' "$1/Makefile")
	if ! grep -q '\.debug_info' <<<"$(readelf -S "$so")"; then
		echo "abi: $so has no debug information (configure with CFLAGS containing -g)" >&2
		return 1
	fi
	abidw --no-corpus-path --no-comp-dir-path --no-show-locs --drop-private-types --type-id-style hash \
		--drop-undefined-syms --suppressions "$src/tests/abi/internal.supp" \
		--headers-dir "$src/include/daxcache" --out-file "$3.tmp" "$so" || return 1
	# The compilation units' names: relative to the source tree.
	sed "s|path='$src/|path='|" "$3.tmp" > "$3" && rm -f "$3.tmp"
}

# appendable OUT: an abidiff suppression file for the structures that
# travel with their size (each has a DC_..._SIZE_VER0 made with
# DC_OFFSETOFEND() in include/daxcache): members appended at their end are
# what the library's sized copies are for (see daxcache/daxcache.h), so an
# old caller's smaller struct still works.  Read from the headers, so a new
# sized structure is covered the day it is declared.
appendable() {
	local name
	: > "$1"
	for name in $(grep -rhoE 'DC_OFFSETOFEND\(struct dc_[a-z0-9_]+' include/daxcache |
		      sed 's/.*struct //' | LC_ALL=C sort -u); do
		printf '[suppress_type]\n  type_kind = struct\n  name = %s\n  has_data_member_inserted_at = end\n\n' \
			"$name" >> "$1"
	done
}

# compare OLD NEW REPORT: abidiff's report into REPORT, and on stdout the
# verdict: "same", "compatible" (functions or variables added, or members
# appended to a structure that travels with its size, nothing else),
# "incompatible" (anything else removed or changed: abidiff calls a
# changed structure layout an "ABI change" that needs review, not an
# incompatible one, so every change it reports counts), or "error".
compare() {
	local verdict
	verdict=$(abidiff_verdict "$1" "$2" "$3")
	if [ "$verdict" = incompatible ]; then
		appendable "$3.supp"
		[ "$(abidiff_verdict "$1" "$2" "$3.appended" --suppressions "$3.supp")" = same ] &&
			verdict=compatible
		rm -f "$3.supp" "$3.appended"
	fi
	echo "$verdict"
}

abidiff_verdict() {
	local st old=$1 new=$2 report=$3
	shift 3
	abidiff --no-show-locs "$@" "$old" "$new" > "$report" 2>&1
	st=$?
	if [ $((st & 3)) -ne 0 ]; then
		echo error
	elif [ $((st & 8)) -ne 0 ]; then
		echo incompatible
	elif [ $((st & 4)) -eq 0 ]; then
		echo same
	elif grep -qE '[1-9][0-9]* (Removed|Changed)' <<<"$(grep -E \
			'^(Function|Variable)s? (symbols )?changes summary:' "$report")"; then
		echo incompatible
	else
		echo compatible
	fi
}

# bumped_for_break OLDVER NEWVER: whether NEWVER is the version after an
# incompatible change from OLDVER (current + 1 or more, age 0).
bumped_for_break() {
	local oc nc na
	oc=${1%%:*}
	nc=${2%%:*}
	na=${2##*:}
	[ "$nc" -gt "$oc" ] && [ "$na" -eq 0 ]
}

# symvers ABIFILE: "NAME NODE" of each function symbol of a baseline, sorted.
symvers() {
	sed -n "s/.*<elf-symbol name='\([^']*\)' version='\([^']*\)'.*type='func-type'.*/\1 \2/p" "$1" |
		LC_ALL=C sort -u
}
