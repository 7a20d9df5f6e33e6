#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# rdma-core.sh
#
# Builds rdma-core 56.1 (Debian trixie's source) with our provider liberi
# (rdma-core/providers/eri) added, and installs it into a private prefix.
# Idempotent and incremental: a second run with nothing changed only lets
# ninja check its tree.  Everything is logged to stderr; the last line of
# stdout is the install prefix, for example
#
#   prefix=$(scripts/rdma-core.sh | tail -n1)
#   LD_LIBRARY_PATH=$prefix/lib $prefix/bin/ibv_devinfo
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ver=56.1
debver=56.1-1
sha256=63ce7f2baa7242c2dbc76375dac957c420187dd27f8c5e148efc07971ee522a8
cache=${ERI_CACHE:-/var/cache/eri}/rdma-core
tarball=$cache/rdma-core_$ver.orig.tar.gz
base=$cache/$ver
src=$base/src
build=$base/build
prefix=$base/prefix

log() { echo "rdma-core: $*" >&2; }
die() { log "error: $*"; exit 1; }

# 1. Build dependencies.
deps=(cmake ninja-build pkg-config gcc libnl-3-dev libnl-route-3-dev
      libudev-dev python3 dpkg-dev cython3)
"$top/scripts/debian-packages.sh" "${deps[@]}" || die "cannot install ${deps[*]}"

# 2. Source tarball, from Debian trixie's source package, verified.
"$top/scripts/debian-source.sh" rdma-core "$debver" "${tarball##*/}" \
	"$sha256" "$cache" >&2 || die "cannot fetch rdma-core $debver's source"

# 3. Unpack once.
if [ ! -f "$src/.eri-unpacked" ]; then
	log "unpacking into $src"
	rm -rf "$src"
	mkdir -p "$src"
	tar -xzf "$tarball" -C "$src" --strip-components=1
	touch "$src/.eri-unpacked"
fi

# 4. Our provider and ABI header, copied only when changed so that ninja
# rebuilds only what changed.
sync_file() {
	if ! cmp -s "$1" "$2"; then
		log "updating ${2#"$src"/}"
		mkdir -p "$(dirname "$2")"
		cp "$1" "$2"
	fi
}
ours=$top/rdma-core/providers/eri
[ -f "$ours/CMakeLists.txt" ] || die "no provider sources in $ours"
while IFS= read -r -d '' f; do
	sync_file "$f" "$src/providers/eri/${f#"$ours"/}"
done < <(find "$ours" -type f -print0)
# The device formats, the kernel's files verbatim (eri_hw.h includes them).
shared=(eri_io_defs.h eri_ring.h)
for f in "${shared[@]}"; do
	sync_file "$top/include/linux/eri/$f" "$src/providers/eri/$f"
done
while IFS= read -r -d '' f; do
	[[ " ${shared[*]} " == *" ${f##*/} "* ]] && continue
	[ -e "$ours/${f#"$src/providers/eri"/}" ] || {
		log "removing stale ${f#"$src"/}"
		rm -f "$f"
	}
done < <(find "$src/providers/eri" -type f -print0)
sync_file "$top/include/uapi/rdma/eri-abi.h" "$src/kernel-headers/rdma/eri-abi.h"
# liberi's pyverbs tests, in rdma-core's tests/ and in its list there (after
# EFA's, in the sorted list).
sync_file "$top/rdma-core/tests/test_eri.py" "$src/tests/test_eri.py"
tl=$src/tests/CMakeLists.txt
if ! grep -q '^  test_eri\.py$' "$tl"; then
	grep -q '^  test_efadv\.py$' "$tl" || die "cannot find test_efadv.py in $tl"
	log "adding test_eri.py to tests/CMakeLists.txt"
	sed -i 's|^  test_efadv\.py$|&\n  test_eri.py|' "$tl"
fi
# liberi's driver id, RDMA_DRIVER_ERI, is an entry of enum rdma_driver_id in
# rdma-core's copy of the kernel's ib_user_ioctl_verbs.h, as the kernel series
# adds it; out of tree with the value compat/eri-compat.sh gives it.
uv=$src/kernel-headers/rdma/ib_user_ioctl_verbs.h
if ! grep -q RDMA_DRIVER_ERI "$uv"; then
	log "adding RDMA_DRIVER_ERI to ${uv#"$src"/}"
	"$top/compat/eri-compat.sh" driver-id "$uv"
fi

# add_subdirectory(providers/eri) right before the first provider, in the
# same (sorted) block.
cm=$src/CMakeLists.txt
if ! grep -q '^add_subdirectory(providers/eri)' "$cm"; then
	grep -q '^add_subdirectory(providers/efa)' "$cm" ||
		die "cannot find the providers block in $cm"
	log "adding providers/eri to CMakeLists.txt"
	sed -i 's|^add_subdirectory(providers/efa)$|&\nadd_subdirectory(providers/eri)|' "$cm"
fi

# rdma/eri-abi.h next to rdma/efa-abi.h, in both lists that name it
# (publish_internal_headers and rdma_kernel_provider_abi).
kh=$src/kernel-headers/CMakeLists.txt
if ! grep -q 'rdma/eri-abi\.h' "$kh"; then
	[ "$(grep -c '^ *rdma/efa-abi\.h$' "$kh")" -ge 1 ] ||
		die "cannot find rdma/efa-abi.h in $kh"
	log "adding rdma/eri-abi.h to kernel-headers/CMakeLists.txt"
	sed -i 's|^\( *\)rdma/efa-abi\.h$|&\n\1rdma/eri-abi.h|' "$kh"
fi

# 5. Configure once, then build and install incrementally.
if [ ! -f "$build/build.ninja" ]; then
	opts=()
	if ! command -v cython3 >/dev/null 2>&1; then
		opts+=(-DNO_PYVERBS=1)
	fi
	log "configuring in $build"
	mkdir -p "$build"
	(cd "$build" && cmake -GNinja \
		-DCMAKE_INSTALL_PREFIX="$prefix" \
		-DCMAKE_INSTALL_LIBDIR=lib \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DNO_MAN_PAGES=1 \
		-DPYTHON_EXECUTABLE=/usr/bin/python3 \
		"${opts[@]}" "$src") >&2
fi
log "building"
ninja -C "$build" >&2
log "installing into $prefix"
if ! ninja -C "$build" install > "$build/install.log" 2>&1; then
	cat "$build/install.log" >&2
	die "ninja install failed"
fi
grep -v '^-- Up-to-date:' "$build/install.log" >&2 || true

echo "$prefix"
