#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# install.sh install|uninstall RELEASE MODULES_DIR
#
# make install / make uninstall.
#
# install: eri.ko and eri_sim.ko of MODULES_DIR (scripts/build-modules.sh)
# into $DESTDIR/lib/modules/RELEASE/updates/eri/ and depmod; then
# rdma-core 56.1-1+eri1 with liberi (scripts/rdma-core-deb.sh) and
# eri-utils (scripts/deb.sh): with no DESTDIR installed by apt (they replace
# Debian 12's rdma-core 44 packages: every verbs application then finds
# liberi); with DESTDIR unpacked into it (a staging tree, no dpkg database).
#
# uninstall: the modules out again and depmod; eri-utils purged and
# Debian 12's versions of the rdma-core packages back (apt-get install
# PACKAGE/bookworm); with DESTDIR the unpacked files deleted.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ERI_CACHE=${ERI_CACHE:-/var/cache/eri}
export ERI_CACHE
DESTDIR=${DESTDIR:-}

log() { echo "install: $*" >&2; }
die() { log "error: $*"; exit 1; }

[ $# = 3 ] || { sed -n '4s/^# //p' "$0" >&2; exit 2; }
what=$1 rel=$2 mods=$3
upd=$DESTDIR/lib/modules/$rel/updates/eri
# The rdma-core packages make install puts in: what an RDMA machine of
# Debian 12 has (the libraries, the providers, the tools, the headers).
rc_pkgs=(rdma-core ibverbs-providers libibverbs1 libibverbs-dev librdmacm1
	 librdmacm-dev libibumad3 ibverbs-utils rdmacm-utils)

run_depmod() {
	if [ -n "$DESTDIR" ]; then
		# Only with the kernel's own module tree there too.
		if [ -d "$DESTDIR/lib/modules/$rel/kernel" ]; then
			depmod -b "$DESTDIR" "$rel"
		else
			log "no kernel modules under $DESTDIR/lib/modules/$rel: depmod left to the target"
		fi
	elif [ -d "/lib/modules/$rel/kernel" ]; then
		depmod -a "$rel"
	fi
}

# The .debs to install: rdma-core's and eri-utils.
debs() {
	local rc d
	rc=$("$top/scripts/rdma-core-deb.sh" | tail -n1)
	for p in "${rc_pkgs[@]}"; do
		compgen -G "$rc/${p}_56.1-1+eri*_*.deb" | head -n1
	done
	d=$("$top/scripts/deb.sh" "$top/build/deb" | tail -n1)
	compgen -G "$d/eri-utils_*.deb" | head -n1
}

case $what in
install)
	for k in eri eri_sim; do
		ko=$(find "$mods" -name "$k.ko" -type f | head -n1)
		[ -n "$ko" ] || die "no $k.ko under $mods (make modules)"
		install -D -m 644 "$ko" "$upd/$k.ko"
		log "$upd/$k.ko"
	done
	run_depmod
	mapfile -t files < <(debs)
	if [ -n "$DESTDIR" ]; then
		mkdir -p "$DESTDIR/var/lib/eri"
		: > "$DESTDIR/var/lib/eri/unpacked-files"
		for f in "${files[@]}"; do
			log "unpacking ${f##*/} into $DESTDIR"
			dpkg-deb -x "$f" "$DESTDIR"
			dpkg-deb --fsys-tarfile "$f" | tar -t | sed 's|^\./|/|' |
				grep -v '/$' >> "$DESTDIR/var/lib/eri/unpacked-files"
		done
	else
		log "apt-get install ${files[*]##*/}"
		DEBIAN_FRONTEND=noninteractive apt-get install -y --allow-downgrades \
			--no-install-recommends "${files[@]}"
		ldconfig
	fi
	;;
uninstall)
	rm -f "$upd/eri.ko" "$upd/eri_sim.ko"
	rmdir "$upd" 2>/dev/null || true
	run_depmod
	if [ -n "$DESTDIR" ]; then
		lst=$DESTDIR/var/lib/eri/unpacked-files
		if [ -f "$lst" ]; then
			while read -r f; do
				rm -f "$DESTDIR$f"
			done < "$lst"
			rm -f "$lst"
			rmdir "$DESTDIR/var/lib/eri" 2>/dev/null || true
		fi
	else
		if dpkg-query -W eri-utils >/dev/null 2>&1; then
			DEBIAN_FRONTEND=noninteractive apt-get purge -y eri-utils
		fi
		back=()
		for p in "${rc_pkgs[@]}"; do
			v=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || true)
			[[ $v == *+eri* ]] && back+=("$p/bookworm")
		done
		if [ ${#back[@]} -gt 0 ]; then
			log "back to Debian 12's ${back[*]}"
			DEBIAN_FRONTEND=noninteractive apt-get install -y --allow-downgrades \
				--no-install-recommends "${back[@]}"
		fi
	fi
	;;
*) die "install or uninstall, not $what" ;;
esac
