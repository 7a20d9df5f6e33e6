#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# kernel-tree.sh VERSION     prepare a kernel source tree with ERI placed in-tree
#                            (as the upstream patch would) and print its path
#
# VERSION is 6.12 or 6.1 (Debian's linux-source-VERSION package, installed with
# apt-get if missing).  The tarball is unpacked once into
#   $ERI_CACHE/linux-src/<VERSION>/          (ERI_CACHE defaults to /var/cache/eri)
# and re-unpacked only when the package version (dpkg-query) changes; the
# package version is recorded in <tree>/.eri-pkgversion.  Build outputs never go
# into this tree: callers build with O=/--build_dir (see kunit.sh, debug-kernel.sh).
#
# Every run then copies, only where the content changed (so kbuild stays
# incremental), from this repo:
#   drivers/infiniband/hw/eri/  drivers/infiniband/sw/eri_sim/
#   include/linux/eri/          include/uapi/rdma/eri-abi.h
#   Documentation/infiniband/eri.rst
#   Documentation/ABI/testing/sysfs-class-infiniband-eri
# and patches idempotently include/uapi/rdma/ib_user_ioctl_verbs.h (the
# driver id), drivers/infiniband/Kconfig,
# drivers/infiniband/{hw,sw}/Makefile and the toctree of
# Documentation/infiniband/index.rst (eri.rst is a document of its own; see
# Documentation/infiniband/index.rst.eri).
# For 6.1 the drivers' files go through the compat layer (compat/) first.
set -euo pipefail

ERI_CACHE=${ERI_CACHE:-/var/cache/eri}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() { echo "kernel-tree.sh: $*" >&2; exit 1; }
log() { echo "kernel-tree.sh: $*" >&2; }

[ $# -eq 1 ] || { sed -n '3,25s/^# \{0,1\}//p' "$0" >&2; exit 2; }
VERSION=$1
case $VERSION in
6.12|6.1) ;;
*) die "unknown version '$VERSION' (known: 6.12 6.1)" ;;
esac
PKG=linux-source-$VERSION
TARBALL=/usr/src/$PKG.tar.xz

pkg_version() { dpkg-query -W -f='${Status} ${Version}\n' "$PKG" 2>/dev/null |
	sed -n 's/^install ok installed //p'; }

PKGVER=$(pkg_version || true)
if [ -z "$PKGVER" ] || [ ! -f "$TARBALL" ]; then
	log "installing $PKG"
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$PKG" >&2; then
		log "retrying after apt-get update"
		apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$PKG" >&2
	fi
	PKGVER=$(pkg_version)
fi
[ -f "$TARBALL" ] || die "$TARBALL missing after installing $PKG"

SRC=$ERI_CACHE/linux-src/$VERSION
mkdir -p "$ERI_CACHE/linux-src"

# Serialise concurrent callers (kunit.sh and debug-kernel.sh may run together).
exec 9>"$ERI_CACHE/linux-src/.lock-$VERSION"
flock 9

# --- 1. the pristine tree, keyed by package version ---------------------------
if [ "$(cat "$SRC/.eri-pkgversion" 2>/dev/null || true)" != "$PKGVER" ]; then
	log "unpacking $TARBALL ($PKGVER) into $SRC"
	tmp=$(mktemp -d "$ERI_CACHE/linux-src/.unpack-$VERSION.XXXXXX")
	trap 'rm -rf "${tmp:-}"' EXIT
	tar -xJf "$TARBALL" -C "$tmp"
	[ -d "$tmp/$PKG" ] || die "$TARBALL has no top directory $PKG/"
	echo "$PKGVER" > "$tmp/$PKG/.eri-pkgversion"
	rm -rf "$SRC"
	mv "$tmp/$PKG" "$SRC"
	rm -rf "$tmp"
	trap - EXIT
fi

# --- 2. ERI sources, copied only where changed ---------------------------------
# They are written for 6.12.  Older kernels get them through the compat layer
# (compat/eri-compat.sh), as an out-of-tree build does: the drivers' files
# as it edits them, and its flags added to their Makefiles.
# The driver id is an entry of the kernel's enum rdma_driver_id, as the
# series adds it (with the value liberi matches out of tree).
UAPI_VERBS=$SRC/include/uapi/rdma/ib_user_ioctl_verbs.h
if ! grep -q RDMA_DRIVER_ERI "$UAPI_VERBS"; then
	"$REPO/compat/eri-compat.sh" driver-id "$UAPI_VERBS"
	log "added RDMA_DRIVER_ERI to $UAPI_VERBS"
fi
COMPAT=
[ "$VERSION" = 6.12 ] || COMPAT=$("$REPO/compat/eri-compat.sh" cflags "$SRC")
COMPAT_TMP=$(mktemp)
trap 'rm -f "$COMPAT_TMP"' EXIT
# sync_src SRC DST: sync_file of SRC as the compat layer has it, if any.
sync_src() {
	case ${COMPAT:+$2} in
	*/drivers/infiniband/*/Makefile)
		{ cat "$1"; echo; echo "ccflags-y += $COMPAT"; } > "$COMPAT_TMP" ;;
	*/drivers/infiniband/*.[ch])
		"$REPO/compat/eri-compat.sh" source "$SRC" "$1" > "$COMPAT_TMP" ;;
	*)
		sync_file "$1" "$2"
		return ;;
	esac
	sync_file "$COMPAT_TMP" "$2"
}
# sync_file SRC DST: copy when the content differs (mtime of untouched files kept).
CHANGED=0
sync_file() {
	if ! cmp -s "$1" "$2"; then
		mkdir -p "$(dirname "$2")"
		cp -f "$1" "$2"
		CHANGED=$((CHANGED + 1))
	fi
}
# sync_dir SRC DST: mirror a directory (regular files, recursively), deleting
# files that are no longer in SRC; leaves build leftovers of an out-of-tree
# build in the repo (*.o, .*.cmd, ...) behind.
sync_dir() {
	local s=$1 d=$2 f
	[ -d "$s" ] || die "$s missing"
	mkdir -p "$d"
	while IFS= read -r -d '' f; do
		case ${f##*/} in
		*.o|*.ko|*.mod|*.mod.c|.*.cmd|*.a|modules.order|Module.symvers|*.dwo|.*.d) continue ;;
		esac
		sync_src "$s/$f" "$d/$f"
	done < <(cd "$s" && find . -type f -printf '%P\0')
	while IFS= read -r -d '' f; do
		if [ ! -e "$s/$f" ]; then
			rm -f "$d/$f"
			CHANGED=$((CHANGED + 1))
		fi
	done < <(cd "$d" && find . -type f ! -name '*.o' ! -name '.*.cmd' -printf '%P\0')
}
sync_dir "$REPO/drivers/infiniband/hw/eri"     "$SRC/drivers/infiniband/hw/eri"
sync_dir "$REPO/drivers/infiniband/sw/eri_sim" "$SRC/drivers/infiniband/sw/eri_sim"
sync_dir "$REPO/include/linux/eri"             "$SRC/include/linux/eri"
sync_file "$REPO/include/uapi/rdma/eri-abi.h"  "$SRC/include/uapi/rdma/eri-abi.h"
sync_file "$REPO/Documentation/infiniband/eri.rst" "$SRC/Documentation/infiniband/eri.rst"
sync_file "$REPO/Documentation/ABI/testing/sysfs-class-infiniband-eri" \
	"$SRC/Documentation/ABI/testing/sysfs-class-infiniband-eri"

# --- 3. idempotent Kconfig / Makefile hooks -------------------------------------
# add_after FILE ANCHOR_REGEX LINE: insert LINE after the last line matching
# ANCHOR_REGEX unless LINE is already there.
add_after() {
	local file=$1 anchor=$2 line=$3
	grep -qxF "$line" "$file" && return 0
	grep -qE "$anchor" "$file" || die "no line matching '$anchor' in $file"
	# via ENVIRON, not -v: awk would process the backslashes of -v values
	ANCHOR=$anchor LINE=$line awk '
		BEGIN { anchor = ENVIRON["ANCHOR"]; line = ENVIRON["LINE"] }
		{ lines[NR] = $0; if ($0 ~ anchor) last = NR }
		END { for (i = 1; i <= NR; i++) { print lines[i]; if (i == last) print line } }
	' "$file" > "$file.eri-tmp"
	mv "$file.eri-tmp" "$file"
	CHANGED=$((CHANGED + 1))
}
IB=$SRC/drivers/infiniband
# hw providers are sourced inside "if !UML"; eri (depends on 64BIT) goes there
# after the last hw provider, eri_sim after siw.
add_after "$IB/Kconfig" '^source "drivers/infiniband/hw/[a-z0-9_]+/Kconfig"' \
	'source "drivers/infiniband/hw/eri/Kconfig"'
add_after "$IB/Kconfig" '^source "drivers/infiniband/sw/siw/Kconfig"' \
	'source "drivers/infiniband/sw/eri_sim/Kconfig"'
# shellcheck disable=SC2016 # a make variable, written literally
add_after "$IB/hw/Makefile" '^obj-\$\(CONFIG_' \
	'obj-$(CONFIG_INFINIBAND_ERI)		+= eri/'
# shellcheck disable=SC2016 # a make variable, written literally
add_after "$IB/sw/Makefile" '^obj-\$\(CONFIG_' \
	'obj-$(CONFIG_INFINIBAND_ERI_SIM)	+= eri_sim/'
# The toctree is in alphabetical order: eri after core_locking.
add_after "$SRC/Documentation/infiniband/index.rst" '^   core_locking$' \
	'   eri'

[ "$CHANGED" -eq 0 ] || log "$CHANGED file(s) updated in $SRC"
echo "$SRC"
