#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# build-siw.sh [FLAVOUR]   build siw.ko (soft-iWARP) for a Debian kernel flavour
#
# Debian's kernels are built without CONFIG_RDMA_SIW.  For the benchmark
# (scripts/bench.sh) siw is a peer to measure ERI against, so this script
# builds it out of tree from Debian's own linux-source-<major.minor> package
# (the same source the booted kernel was built from), against that kernel's
# headers.  Nothing of siw is copied into this repository: the source is
# unpacked and built under $ERI_CACHE/siw/<release>/ and only the module is
# kept there.  Prints the path of siw.ko on its last stdout line.
#
# FLAVOUR is 6.1 (default), 6.1-cloud or 6.12 (see scripts/kernel.sh).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ERI_CACHE=${ERI_CACHE:-/var/cache/eri}
export ERI_CACHE
flavour=${1:-6.1}

say() { echo "build-siw: $*" >&2; }
die() { echo "build-siw: $*" >&2; exit 1; }

rel=$("$top/scripts/kernel.sh" version "$flavour")
kdir=/lib/modules/$rel/build
[ -d "$kdir" ] || die "no headers for $rel at $kdir (run make setup)"
# Version of the kernel package (e.g. 6.1.192-3): the source must match it.
kpkg=$ERI_CACHE/kernels/$rel/.package
kpv=
[ -f "$kpkg" ] && kpv=$(sed -n 's/^linux-image-[^_]*_\([^_]*\)_.*/\1/p' "$kpkg")
mm=$(echo "$rel" | cut -d. -f1-2)
srcpkg=linux-source-$mm

out=$ERI_CACHE/siw/$rel
ko=$out/siw.ko
if [ -f "$out/.complete" ] && [ -f "$ko" ]; then
	say "cached: $ko ($(cat "$out/source-version" 2>/dev/null))"
	echo "$ko"
	exit 0
fi

# linux-source-<mm>: installed once, only if missing.
if ! dpkg-query -W -f='${Status}' "$srcpkg" 2>/dev/null | grep -q 'install ok installed'; then
	[ "$(id -u)" = 0 ] || die "need root to install $srcpkg"
	apt-cache show "$srcpkg" >/dev/null 2>&1 || apt-get update -qq >&2
	say "installing $srcpkg"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		-o Dpkg::Use-Pty=0 "$srcpkg" </dev/null >&2
fi
spv=$(dpkg-query -W -f='${Version}' "$srcpkg")
tarball=
for f in /usr/src/"$srcpkg".tar.*; do
	[ -f "$f" ] && { tarball=$f; break; }
done
[ -n "$tarball" ] || die "$srcpkg is installed but /usr/src/$srcpkg.tar.* is missing"
if [ -n "$kpv" ] && [ "$kpv" != "$spv" ]; then
	# Debian keeps one linux-source-<mm> installed: say so, build anyway
	# (siw is a peer in a benchmark; the version goes into the results).
	say "warning: $srcpkg is $spv but the $rel kernel package is $kpv"
fi

mkdir -p "$ERI_CACHE/siw"
exec 9>"$ERI_CACHE/siw/.lock-$rel"
flock 9
tmp=$(mktemp -d "$ERI_CACHE/siw/.build-$rel.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
say "extracting drivers/infiniband/sw/siw from $tarball ($spv)"
tar -xf "$tarball" -C "$tmp" --wildcards "$srcpkg/drivers/infiniband/sw/siw/*"
src=$tmp/$srcpkg/drivers/infiniband/sw/siw
[ -f "$src/siw_main.c" ] || die "siw sources not found in $tarball"
say "building siw.ko for $rel"
make -s -C "$kdir" M="$src" CONFIG_RDMA_SIW=m modules >&2 ||
	die "building siw.ko failed"
[ -f "$src/siw.ko" ] || die "no siw.ko after the build"
rm -rf "$out"
mkdir -p "$out"
cp "$src/siw.ko" "$ko"
echo "$srcpkg $spv" > "$out/source-version"
touch "$out/.complete"
say "built $ko"
echo "$ko"
