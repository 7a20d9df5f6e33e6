#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# rdma-core-deb.sh
#
# Builds Debian binary packages of rdma-core 56.1 with liberi added, for
# Debian 12, from Debian trixie's source package (the orig tarball that
# scripts/rdma-core.sh uses and trixie's debian/ directory), at version
# 56.1-1+eri1 (packaging/rdma-core/README.md says why that version and what
# is changed).  The .debs are cached in $ERI_CACHE/rdma-core-deb/<key>/,
# keyed by a hash of every input (the two tarballs, liberi's sources, the
# ABI header, this script and packaging/rdma-core/): a warm run costs a
# hash.  Logs to stderr; the last line of stdout is the directory of the
# .debs.
#
#   debs=$(scripts/rdma-core-deb.sh | tail -n1)
#
# Environment: ERI_RDMA_CORE_DEB_JOBS (default: nproc) parallel jobs.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ver=56.1
debver=56.1-1
ourver=56.1-1+eri1
orig_sha256=63ce7f2baa7242c2dbc76375dac957c420187dd27f8c5e148efc07971ee522a8
# As trixie's signed Sources index lists it.
debian_sha256=4e27344a0ecfd591bd1081486a2006d2edb52782d209cd744da7faf3b8f0ded4
ERI_CACHE=${ERI_CACHE:-/var/cache/eri}
# The orig tarball is shared with scripts/rdma-core.sh (read only here).
orig=$ERI_CACHE/rdma-core/rdma-core_$ver.orig.tar.gz
cache=$ERI_CACHE/rdma-core-deb
debtar=$cache/rdma-core_$debver.debian.tar.xz

log() { echo "rdma-core-deb: $*" >&2; }
die() { log "error: $*"; exit 1; }

# 1. Sources, verified (a no-op when cached).
"$top/scripts/debian-source.sh" rdma-core "$debver" "${orig##*/}" \
	"$orig_sha256" "${orig%/*}" >&2 || die "cannot fetch rdma-core $debver's orig tarball"
"$top/scripts/debian-source.sh" rdma-core "$debver" "${debtar##*/}" \
	"$debian_sha256" "$cache" >&2 || die "cannot fetch rdma-core $debver's debian tarball"

# 2. The key: everything that goes into the packages.
key=$( {
	echo "$orig_sha256 $debian_sha256 $ourver"
	cat "$0"
	cd "$top"
	find rdma-core/providers/eri packaging/rdma-core include/uapi/rdma/eri-abi.h \
		include/linux/eri/eri_io_defs.h include/linux/eri/eri_ring.h \
		compat/eri-compat.sh \
		-path rdma-core/providers/eri/test -prune -o -type f -print | LC_ALL=C sort |
		while read -r f; do echo "$f"; cat "$f"; done
} | sha256sum | cut -c1-16)
out=$cache/$key
if [ -f "$out/.eri-complete" ]; then
	log "cached: $out"
	echo "$out"
	exit 0
fi

# 3. Build dependencies: trixie's Build-Depends as Debian 12 has them
# (pandoc is not needed: the tarball ships its man pages prebuilt).
deps=(build-essential debhelper dh-python cmake cython3 dpkg-dev libnl-3-dev
      libnl-route-3-dev libsystemd-dev libudev-dev ninja-build pkgconf
      python3-dev python3-docutils valgrind)
"$top/scripts/debian-packages.sh" "${deps[@]}" || die "cannot install ${deps[*]}"

# 4. A fresh tree.
build=$cache/build
rm -rf "$build"
mkdir -p "$build"
src=$build/rdma-core-$ver
mkdir -p "$src"
tar -xzf "$orig" -C "$src" --strip-components=1
# Upstream's tarball has a debian/ of its own: trixie's replaces it.
rm -rf "$src/debian"
tar -xJf "$debtar" -C "$src"

# 5. liberi and its ABI header, added to rdma-core's CMake lists as
# scripts/rdma-core.sh does.
mkdir -p "$src/providers/eri"
(cd "$top/rdma-core/providers/eri" && find . -path ./test -prune -o -type f -print0 |
	cpio -0 -pdm --quiet "$src/providers/eri")
# The device formats, the kernel's files verbatim (eri_hw.h includes them).
cp "$top/include/linux/eri/eri_io_defs.h" "$top/include/linux/eri/eri_ring.h" \
	"$src/providers/eri/"
cp "$top/include/uapi/rdma/eri-abi.h" "$src/kernel-headers/rdma/eri-abi.h"
# liberi's driver id, an entry of enum rdma_driver_id in rdma-core's copy of
# the kernel's ib_user_ioctl_verbs.h, as scripts/rdma-core.sh adds it.
"$top/compat/eri-compat.sh" driver-id "$src/kernel-headers/rdma/ib_user_ioctl_verbs.h"
grep -q '^add_subdirectory(providers/efa)$' "$src/CMakeLists.txt" ||
	die "cannot find the providers block in CMakeLists.txt"
sed -i 's|^add_subdirectory(providers/efa)$|&\nadd_subdirectory(providers/eri)|' "$src/CMakeLists.txt"
grep -q '^ *rdma/efa-abi\.h$' "$src/kernel-headers/CMakeLists.txt" ||
	die "cannot find rdma/efa-abi.h in kernel-headers/CMakeLists.txt"
sed -i 's|^\( *\)rdma/efa-abi\.h$|&\n\1rdma/eri-abi.h|' "$src/kernel-headers/CMakeLists.txt"
# Debian builds the static libraries too (ENABLE_STATIC): libibverbs' list
# of static providers needs liberi's declaration beside the others'.
grep -q '^extern const struct verbs_device_ops verbs_provider_efa;$' "$src/libibverbs/verbs.h" ||
	die "cannot find verbs_provider_efa in libibverbs/verbs.h"
sed -i 's|^extern const struct verbs_device_ops verbs_provider_efa;$|&\nextern const struct verbs_device_ops verbs_provider_eri;|' \
	"$src/libibverbs/verbs.h"

# 6. debian/ for Debian 12 (packaging/rdma-core/debian.py): the t64
# renames reverted, no python3-pyverbs, our changelog entry.
python3 "$top/packaging/rdma-core/debian.py" "$src/debian" "$ourver" \
	"$top/packaging/rdma-core/changelog" || die "cannot adapt debian/"

# 7. Build the binary packages.
jobs=${ERI_RDMA_CORE_DEB_JOBS:-$(nproc)}
log "building $ourver in $src ($jobs jobs; several minutes when cold)"
(
	cd "$src"
	export DEB_BUILD_OPTIONS="nocheck nodoc noddebs parallel=$jobs"
	export DEB_BUILD_PROFILES="nocheck nodoc"
	export EXTRA_CMAKE_FLAGS=-DNO_PYVERBS=1
	dpkg-buildpackage -b -uc -us -j"$jobs" > "$build/build.log" 2>&1 || {
		tail -n 60 "$build/build.log"
		exit 1
	}
) >&2 || die "dpkg-buildpackage failed (log: $build/build.log)"

tmp=$cache/.$key.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
cp "$build"/*.deb "$tmp/"
cp "$build/build.log" "$tmp/build.log"
touch "$tmp/.eri-complete"
rm -rf "$out"
mv "$tmp" "$out"
rm -rf "$build"
# Older builds (inputs changed): keep the last two.
ls -1dt "$cache"/*/ 2>/dev/null | while read -r d; do
	[ -f "$d/.eri-complete" ] && echo "$d"
done | tail -n +3 | xargs -r rm -rf
log "packages in $out: $(cd "$out" && echo *.deb)"
echo "$out"
