#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# kernel.sh version FLAVOUR   print the kernel release of a Debian kernel flavour
# kernel.sh fetch FLAVOUR     unpack that kernel's image package into the cache
#                             (never installed on the host) and make sure its
#                             headers are installed; prints the unpacked directory
# kernel.sh flavours          list the known flavours
#
# FLAVOUR is one of 6.1 | 6.1-cloud | 6.12 | 6.12-debug.  Releases are resolved
# from Debian's metapackages, so an ABI bump in the archive is picked up without
# edits here; without apt metadata the newest matching tree in /lib/modules is
# used.  6.12-debug is not a Debian kernel: it is ERI's KASAN + lockdep +
# kmemleak kernel built from linux-source-6.12 by scripts/debug-kernel.sh
# (fetch builds it when it is missing or stale: ~25 min cold on 2 cores); its
# build tree for out-of-tree modules is <dir>/build.
#
# Cache layout: $ERI_CACHE/kernels/<release>/{vmlinuz,lib/modules/<release>/}
set -euo pipefail

ERI_CACHE=${ERI_CACHE:-/var/cache/eri}
FLAVOURS="6.1 6.1-cloud 6.12 6.12-debug"
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() { echo "kernel.sh: $*" >&2; exit 1; }

# Metapackage of the image for FLAVOUR, and a glob on releases for the fallback.
meta_of() {
	case $1 in
	6.1)       echo "linux-image-amd64" ;;
	6.1-cloud) echo "linux-image-cloud-amd64" ;;
	6.12)      echo "linux-image-6.12-amd64" ;;
	*) die "unknown flavour '$1' (known: $FLAVOURS)" ;;
	esac
}

glob_of() {
	case $1 in
	6.1)       echo "6.1.*-amd64" ;;
	6.1-cloud) echo "6.1.*-cloud-amd64" ;;
	6.12)      echo "6.12.*-amd64" ;;
	esac
}

# Does release $2 belong to flavour $1?  (6.1 must not match the cloud flavour.)
matches() {
	local fl=$1 rel=$2
	# shellcheck disable=SC2053
	[[ $rel == $(glob_of "$fl") ]] || return 1
	[ "$fl" = 6.1 ] && [[ $rel == *-cloud-amd64 ]] && return 1
	return 0
}

meta_dep() {
	apt-cache depends "$1" 2>/dev/null |
		sed -n 's/^ *Depends: *\(linux-image-[^ ]*\).*/\1/p' | head -n1 || true
}

version() {
	local fl=$1 meta dep rel
	if [ "$fl" = 6.12-debug ]; then
		"$REPO/scripts/debug-kernel.sh" --release
		return
	fi
	meta=$(meta_of "$fl")
	dep=$(meta_dep "$meta")
	# Fresh machine with empty apt lists and no kernel trees: update once.
	if [ -z "$dep" ] && [ "$(id -u)" = 0 ] &&
		! ls -1 /lib/modules "$ERI_CACHE/kernels" 2>/dev/null | grep -q "^${fl%%-*}\."; then
		echo "kernel.sh: $meta unknown to apt, running apt-get update" >&2
		apt-get update -qq >&2 || true
		dep=$(meta_dep "$meta")
	fi
	if [ -n "$dep" ]; then
		rel=${dep#linux-image-}
		rel=${rel%-unsigned}
		if matches "$fl" "$rel"; then
			echo "$rel"
			return 0
		fi
	fi
	# Fallback: what is installed (headers or modules) or already cached.
	rel=$( { ls -1 /lib/modules 2>/dev/null; ls -1 "$ERI_CACHE/kernels" 2>/dev/null; } |
		while read -r r; do if matches "$fl" "$r"; then echo "$r"; fi; done | sort -uV | tail -n1)
	[ -n "$rel" ] || die "cannot resolve flavour $fl: no apt metadata for $meta and nothing in /lib/modules (run apt-get update)"
	echo "$rel"
}

# apt-get install only what is missing; apt-get update only if a package is unknown.
ensure_pkgs() {
	local p missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	for p in "${missing[@]}"; do
		if ! apt-cache show "$p" >/dev/null 2>&1; then
			echo "kernel.sh: $p unknown to apt, running apt-get update" >&2
			apt-get update -qq >&2
			break
		fi
	done
	echo "kernel.sh: installing ${missing[*]}" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

fetch() {
	local fl=$1 rel dir deb
	if [ "$fl" = 6.12-debug ]; then
		rel=$("$REPO/scripts/debug-kernel.sh" | tail -n1)
		dir=$ERI_CACHE/kernels/$rel
		[ -f "$dir/.complete" ] || die "debug-kernel.sh did not install $dir"
		echo "$dir"
		return 0
	fi
	rel=$(version "$fl")
	dir=$ERI_CACHE/kernels/$rel
	ensure_pkgs "linux-headers-$rel"
	if [ -f "$dir/.complete" ]; then
		echo "$dir"
		return 0
	fi
	mkdir -p "$ERI_CACHE/kernels"
	TMPD=$(mktemp -d "$ERI_CACHE/kernels/.fetch-$rel.XXXXXX")
	trap 'rm -rf "${TMPD:-}"' EXIT
	local tmp=$TMPD
	download() {
		local pkg
		for pkg in "linux-image-$rel" "linux-image-$rel-unsigned"; do
			(cd "$tmp" && apt-get download -q "$pkg" >&2 2>/dev/null) && return 0
		done
		return 1
	}
	if ! download; then
		echo "kernel.sh: no image package found for $rel, running apt-get update" >&2
		apt-get update -qq >&2
		download || die "cannot download linux-image-$rel (or -unsigned)"
	fi
	deb=$(ls "$tmp"/*.deb | head -n1)
	mkdir -p "$tmp/root"
	dpkg-deb -x "$deb" "$tmp/root"
	# Debian 12 ships /lib/modules, later releases /usr/lib/modules.
	if [ ! -d "$tmp/root/lib/modules/$rel" ] && [ -d "$tmp/root/usr/lib/modules/$rel" ]; then
		mkdir -p "$tmp/root/lib"
		mv "$tmp/root/usr/lib/modules" "$tmp/root/lib/modules"
	fi
	[ -d "$tmp/root/lib/modules/$rel" ] || die "$deb has no lib/modules/$rel"
	[ -f "$tmp/root/boot/vmlinuz-$rel" ] || die "$deb has no boot/vmlinuz-$rel"
	rm -rf "$dir"
	mkdir -p "$dir/lib"
	mv "$tmp/root/lib/modules" "$dir/lib/modules"
	mv "$tmp/root/boot/vmlinuz-$rel" "$dir/vmlinuz"
	for f in config System.map; do
		[ -f "$tmp/root/boot/$f-$rel" ] && mv "$tmp/root/boot/$f-$rel" "$dir/$f"
	done
	# The package's postinst would generate modules.dep: do it here.
	depmod -b "$dir" "$rel"
	basename "$deb" > "$dir/.package"
	touch "$dir/.complete"
	echo "$dir"
}

usage() {
	sed -n '3,14s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

[ $# -ge 1 ] || usage
case $1 in
version) [ $# -eq 2 ] || usage; version "$2" ;;
fetch)   [ $# -eq 2 ] || usage; fetch "$2" ;;
flavours) echo "$FLAVOURS" ;;
*) usage ;;
esac
