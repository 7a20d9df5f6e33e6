#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# perftest.sh RDMA_CORE_PREFIX
#
# Builds perftest 25.01.0 (Debian trixie's source) against the rdma-core of
# RDMA_CORE_PREFIX (scripts/rdma-core.sh) and installs it into a private
# prefix in the cache; the last line of stdout is its bin directory.  Built
# once per rdma-core prefix; a second run only checks the stamp.
#
# Why a second perftest: Debian 12's (4.5-0.17) resolves the addresses of
# -R (rdma_cm) as IPv4 only; this one takes --ipv6-addr.  The tests use it
# for rdma_cm over IPv6 alone (tests/vm/ipv6.sh); everything else keeps
# the distribution's perftest.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ver=25.01.0+0.80
debver=25.01.0+0.80-1
# As trixie's signed Sources index lists it.
sha256=54e86b131f0b06862b8b9cd692739737295463cfef467bdda5f5aa3dae8c5b05
cache=${ERI_CACHE:-/var/cache/eri}/perftest
tarball=$cache/perftest_$ver.orig.tar.gz

log() { echo "perftest: $*" >&2; }
die() { log "error: $*"; exit 1; }

[ $# = 1 ] || { sed -n '4s/^# //p' "$0" >&2; exit 2; }
rdma=$(realpath "$1")
[ -f "$rdma/include/infiniband/verbs.h" ] || die "no rdma-core under $rdma"
key=$(echo "$rdma" | sha256sum | cut -c1-12)
base=$cache/$ver/$key
prefix=$base/prefix
stamp=$prefix/.eri-built

if [ -f "$stamp" ] && [ -x "$prefix/bin/ib_send_lat" ]; then
	echo "$prefix/bin"
	exit 0
fi

# 1. Build dependencies: the tarball ships its configure script.
"$top/scripts/debian-packages.sh" gcc make libpci-dev || die "cannot install its build dependencies"

# 2. Source tarball, verified.
"$top/scripts/debian-source.sh" perftest "$debver" "${tarball##*/}" \
	"$sha256" "$cache" >&2 || die "cannot fetch perftest $debver's source"

# 3. A fresh tree, configured against RDMA_CORE_PREFIX's headers and
# libraries (found at run time through the rpath).
log "building against $rdma in $base"
rm -rf "$base"
mkdir -p "$base/src"
tar -xzf "$tarball" -C "$base/src" --strip-components=1
(
	cd "$base/src"
	./configure --prefix="$prefix" CPPFLAGS="-I$rdma/include" \
		LDFLAGS="-L$rdma/lib -Wl,-rpath,$rdma/lib" > "$base/configure.log" 2>&1 ||
		{ tail -n 20 "$base/configure.log"; exit 1; }
	make -j"$(nproc)" > "$base/make.log" 2>&1 ||
		{ tail -n 30 "$base/make.log"; exit 1; }
	make install > "$base/install.log" 2>&1 ||
		{ tail -n 20 "$base/install.log"; exit 1; }
) >&2 || die "the build failed (logs in $base)"
rm -rf "$base/src"
touch "$stamp"
echo "$prefix/bin"
