#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# dkms-build.sh ERI_DKMS_DEB RELEASE
#
# Builds the eri-dkms package's sources for kernel RELEASE the way dkms
# does, without dkms on the host: the package unpacked, its
# /usr/src/eri-<version> copied to <tree>/eri/<version>/build (dkms's
# layout), dkms.conf read with kernel_source_dir and dkms_tree set, its
# MAKE[0] run there, and each BUILT_MODULE_NAME looked for at its
# BUILT_MODULE_LOCATION, with vermagic RELEASE.  make check runs it for one
# kernel (a DKMS build in a TCG guest takes 7 minutes: tests/vm/install.sh
# does that with ERI_INSTALL_MODE=dkms).
set -euo pipefail

[ $# = 2 ] || { sed -n '4s/^# //p' "$0" >&2; exit 2; }
deb=$(realpath "$1") rel=$2
kdir=/lib/modules/$rel/build
[ -d "$kdir" ] || { echo "dkms-build: no headers at $kdir" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/eri-dkms.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp/root"
src=$(compgen -G "$tmp/root/usr/src/eri-*" | head -n1)
[ -f "$src/dkms.conf" ] || { echo "dkms-build: no dkms.conf in $deb" >&2; exit 1; }

# dkms.conf is shell, evaluated by dkms with these set.
# shellcheck disable=SC1090,SC2034
(
	kernel_source_dir=$kdir
	kernelver=$rel
	dkms_tree=$tmp/dkms
	. "$src/dkms.conf"
	build=$dkms_tree/$PACKAGE_NAME/$PACKAGE_VERSION/build
	mkdir -p "$(dirname "$build")"
	cp -a "$src" "$build"
	[ "$AUTOINSTALL" = yes ] || { echo "dkms-build: AUTOINSTALL is not yes"; exit 1; }
	echo "dkms-build: $PACKAGE_NAME $PACKAGE_VERSION for $rel: ${MAKE[0]}"
	cd "$build"
	eval "${MAKE[0]}"
	for i in "${!BUILT_MODULE_NAME[@]}"; do
		ko=$build/${BUILT_MODULE_LOCATION[$i]}/${BUILT_MODULE_NAME[$i]}.ko
		[ -f "$ko" ] || { echo "dkms-build: no $ko"; exit 1; }
		vm=$(modinfo -F vermagic "$ko")
		[ "${vm%% *}" = "$rel" ] || { echo "dkms-build: $ko has vermagic $vm"; exit 1; }
		case ${DEST_MODULE_LOCATION[$i]} in
		/updates*) ;;
		*) echo "dkms-build: ${BUILT_MODULE_NAME[$i]} goes to ${DEST_MODULE_LOCATION[$i]}, not /updates"; exit 1 ;;
		esac
		echo "dkms-build: ok: ${BUILT_MODULE_NAME[$i]}.ko ($vm) -> ${DEST_MODULE_LOCATION[$i]}"
	done
)
