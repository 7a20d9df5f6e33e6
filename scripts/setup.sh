#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# setup.sh: install what building and testing ERI needs on a Debian 12 host.
# Idempotent and quick when everything is present.
#
#  - Debian packages (apt-get install --no-install-recommends, only the missing
#    ones; apt-get update only when one of them is unknown to apt)
#  - linux-headers-<release> and the unpacked image of each kernel flavour
#    (scripts/kernel.sh fetch; images are never installed on the host)
#  - checkpatch.pl and its data files from linux-source-6.12, in
#    $ERI_CACHE/checkpatch/
#  - scripts/kernel-doc from linux-source-6.12, in $ERI_CACHE/kernel-doc/
#
# rdma-core is not installed here: scripts/rdma-core.sh builds it into a prefix.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ERI_CACHE=${ERI_CACHE:-/var/cache/eri}
export ERI_CACHE
FLAVOURS="6.1 6.1-cloud 6.12"

PKGS=(
	build-essential bc flex bison libelf-dev libssl-dev kmod cpio xz-utils
	busybox-static qemu-system-x86 sparse dpkg-dev perl
	cmake ninja-build pkg-config libnl-3-dev libnl-route-3-dev libudev-dev python3
	perftest rdmacm-utils ibverbs-utils iproute2 iputils-ping
	# tests/vm/gso.sh: the veths' offloads
	ethtool
	# tests/vm/cc.sh: the TCP (cubic) flow beside an ERI QP
	iperf3
	# tests/vm/apps.sh: the applications, run in the guest from the host's root
	ucx-utils openmpi-bin libopenmpi-dev libfabric-bin fio nvme-cli
	nfs-kernel-server
)

say() { echo "setup: $*"; }
die() { echo "setup: $*" >&2; exit 1; }

ensure_pkgs() {
	"$top/scripts/debian-packages.sh" "$@"
}

t0=$SECONDS
ensure_pkgs "${PKGS[@]}"
# The C virtiofsd comes with qemu-system-common on Debian 12; newer releases
# ship it as package virtiofsd (needed by the 6.1-cloud kernel, which has no 9p).
if [ ! -x /usr/lib/qemu/virtiofsd ] && [ ! -x /usr/libexec/virtiofsd ]; then
	ensure_pkgs virtiofsd
fi

for fl in $FLAVOURS; do
	dir=$("$top/scripts/kernel.sh" fetch "$fl") || die "cannot fetch kernel flavour $fl"
	ver=$(basename "$dir")
	[ -d "/lib/modules/$ver/build" ] || die "linux-headers-$ver installed but /lib/modules/$ver/build missing"
	say "kernel $fl: $ver (image in $dir)"
done

cp_dir=$ERI_CACHE/checkpatch
if [ ! -f "$cp_dir/.complete" ]; then
	src=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n1 || true)
	if [ -z "$src" ]; then
		ensure_pkgs linux-source-6.12
		src=$(ls /usr/src/linux-source-6.12.tar.* | head -n1)
	fi
	say "extracting checkpatch from $src"
	tmp=$(mktemp -d)
	tar -xf "$src" -C "$tmp" --wildcards --no-anchored \
		'scripts/checkpatch.pl' 'scripts/spelling.txt' 'scripts/const_structs.checkpatch'
	mkdir -p "$cp_dir"
	for f in checkpatch.pl spelling.txt const_structs.checkpatch; do
		p=$(find "$tmp" -mindepth 3 -maxdepth 3 -path "$tmp/*/scripts/$f" | head -n1)
		[ -n "$p" ] || { rm -rf "$tmp"; die "$f not found in $src"; }
		cp "$p" "$cp_dir/$f"
	done
	chmod +x "$cp_dir/checkpatch.pl"
	rm -rf "$tmp"
	touch "$cp_dir/.complete"
fi
say "checkpatch in $cp_dir"

kd_dir=$ERI_CACHE/kernel-doc
if [ ! -f "$kd_dir/.complete" ]; then
	src=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n1 || true)
	if [ -z "$src" ]; then
		ensure_pkgs linux-source-6.12
		src=$(ls /usr/src/linux-source-6.12.tar.* | head -n1)
	fi
	say "extracting kernel-doc from $src"
	tmp=$(mktemp -d)
	tar -xf "$src" -C "$tmp" --wildcards --no-anchored 'scripts/kernel-doc'
	p=$(find "$tmp" -mindepth 3 -maxdepth 3 -path "$tmp/*/scripts/kernel-doc" | head -n1)
	[ -n "$p" ] || { rm -rf "$tmp"; die "scripts/kernel-doc not found in $src"; }
	mkdir -p "$kd_dir"
	cp "$p" "$kd_dir/kernel-doc"
	rm -rf "$tmp"
	touch "$kd_dir/.complete"
fi
say "kernel-doc in $kd_dir"
say "done in $((SECONDS - t0))s"
