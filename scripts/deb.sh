#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# deb.sh [--modules RELEASE=DIR]... [--test-extras] OUTDIR
#
# Builds ERI's Debian packages into OUTDIR (make deb):
#
#   eri-dkms            the sources of eri.ko and eri_sim.ko with a dkms.conf
#                       (packaging/eri-dkms/): built for every kernel with
#                       headers, and for each new one (AUTOINSTALL)
#   eri-utils           links that come back after a reboot: eri-link, its
#                       systemd unit template and udev rule, /etc/eri/links.conf
#                       (packaging/eri-utils/)
#   eri-modules-RELEASE eri.ko and eri_sim.ko built for one kernel (the
#                       modules of DIR, from scripts/build-modules.sh), in
#                       /lib/modules/RELEASE/updates/eri/: for machines without
#                       compilers, and for tests that cannot afford a DKMS build
#   rdma-core 56.1-1+eri1 with liberi (scripts/rdma-core-deb.sh, cached)
#
# --test-extras also puts into OUTDIR/extra/ what tests/vm/install.sh needs
# that the host does not have installed: Debian 12's dkms, and Debian 12's
# own rdma-core packages (to show that going back works), fetched with
# apt-get download once and cached in $ERI_CACHE/debs/.
#
# ERI's version is 0.1~git<commit time>.<commit>, from HEAD.  Everything
# but the rdma-core packages takes seconds.  The last line of stdout is
# OUTDIR.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ERI_CACHE=${ERI_CACHE:-/var/cache/eri}
export ERI_CACHE

log() { echo "deb: $*" >&2; }
die() { log "error: $*"; exit 1; }

mods=()
extras=0
while [ $# -gt 0 ]; do
	case $1 in
	--modules) [[ ${2:-} == ?*=?* ]] || die "--modules RELEASE=DIR"; mods+=("$2"); shift 2 ;;
	--test-extras) extras=1; shift ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# = 1 ] || { sed -n '4s/^# //p' "$0" >&2; exit 2; }
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)

ver=0.1~git$(git -C "$top" log -1 --format=%cd --date=format:%Y%m%d%H%M%S).$(git -C "$top" log -1 --format=%h)
arch=$(dpkg --print-architecture)
maint="ERI developers <eri@localhost>"
stage=$(mktemp -d "${TMPDIR:-/tmp}/eri-deb.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# Old ERI packages out of OUTDIR (the rdma-core ones are replaced below).
rm -f "$out"/eri-*.deb

# build_deb DIR: DIR/DEBIAN/control is there; md5sums, then the .deb.
build_deb() {
	local d=$1
	(cd "$d" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' |
		LC_ALL=C sort -z | xargs -0r md5sum) > "$d/DEBIAN/md5sums"
	[ -s "$d/DEBIAN/md5sums" ] || rm -f "$d/DEBIAN/md5sums"
	dpkg-deb --root-owner-group -Zxz --build "$d" "$out" >&2
}

# ---------------------------------------------------------------- eri-dkms
d=$stage/eri-dkms
src=$d/usr/src/eri-$ver
mkdir -p "$d/DEBIAN" "$src"
(cd "$top" && find drivers/infiniband/hw/eri drivers/infiniband/sw/eri_sim include/linux/eri \
	-maxdepth 1 -type f \( -name '*.[ch]' -o -name Makefile \) -print0 |
	cpio -0 -pdm --quiet "$src")
mkdir -p "$src/include/uapi/rdma"
cp "$top/include/uapi/rdma/eri-abi.h" "$src/include/uapi/rdma/"
cp "$top/packaging/eri-dkms/Kbuild" "$src/Kbuild"
cp "$top/packaging/eri-dkms/dkms-make.sh" "$src/dkms-make.sh"
mkdir -p "$src/compat"
cp "$top/compat/eri-compat.sh" "$top/compat/eri_compat.h" "$src/compat/"
sed "s/@VERSION@/$ver/" "$top/packaging/eri-dkms/dkms.conf" > "$src/dkms.conf"
for s in postinst prerm; do
	sed "s/@VERSION@/$ver/" "$top/packaging/eri-dkms/$s" > "$d/DEBIAN/$s"
	chmod 755 "$d/DEBIAN/$s"
done
mkdir -p "$d/usr/share/doc/eri-dkms"
cat > "$d/DEBIAN/control" <<EOF
Package: eri-dkms
Version: $ver
Architecture: all
Maintainer: $maint
Section: kernel
Priority: optional
Depends: dkms (>= 2.1.0.0)
Recommends: eri-utils, ibverbs-providers (>= 56.1-1+eri1)
Conflicts: $(for m in "${mods[@]}"; do printf 'eri-modules-%s, ' "${m%%=*}"; done | sed 's/, $//')
Installed-Size: $(du -sk "$d" | cut -f1)
Description: ERI RDMA driver (eri.ko) and software device (eri_sim.ko), DKMS
 ERI, the Elastic RDMA Interface: the ib_core driver eri.ko and eri_sim.ko,
 the software ERI device that carries RDMA over UDP on any netdev.  DKMS
 builds both for every installed kernel with headers and again after a
 kernel upgrade, into /lib/modules/<release>/updates/dkms/.
 .
 Then: modprobe eri_sim; rdma link add eri0 type eri netdev eth0.
EOF
sed -i '/^Conflicts: $/d' "$d/DEBIAN/control"
echo "ERI $ver, DKMS sources in /usr/src/eri-$ver.  See README.md of the ERI repository." \
	> "$d/usr/share/doc/eri-dkms/README"
build_deb "$d"

# ---------------------------------------------------------------- eri-utils
d=$stage/eri-utils
p=$top/packaging/eri-utils
install -D -m 755 "$p/eri-link" "$d/usr/lib/eri/eri-link"
install -D -m 644 "$p/eri-link@.service" "$d/lib/systemd/system/eri-link@.service"
install -D -m 644 "$p/90-eri-link.rules" "$d/lib/udev/rules.d/90-eri-link.rules"
install -D -m 644 "$p/links.conf" "$d/etc/eri/links.conf"
install -D -m 644 "$p/README" "$d/usr/share/doc/eri-utils/README"
mkdir -p "$d/DEBIAN"
install -m 755 "$p/postinst" "$p/postrm" "$d/DEBIAN/"
echo /etc/eri/links.conf > "$d/DEBIAN/conffiles"
cat > "$d/DEBIAN/control" <<EOF
Package: eri-utils
Version: $ver
Architecture: all
Maintainer: $maint
Section: net
Priority: optional
Depends: iproute2, kmod
Recommends: eri-dkms | eri-modules
Installed-Size: $(du -sk "$d" | cut -f1)
Description: ERI links that come back after a reboot
 Declare "ERI on eth0" in /etc/eri/links.conf ("eri0 eth0"): a udev rule
 starts eri-link@eth0.service when eth0 appears, at boot too, and it runs
 modprobe eri_sim and rdma link add eri0 type eri netdev eth0.
EOF
build_deb "$d"

# ---------------------------------------------------------------- eri-modules-RELEASE
for m in "${mods[@]}"; do
	rel=${m%%=*} dir=${m#*=}
	d=$stage/eri-modules-$rel
	for k in eri eri_sim; do
		ko=$(find "$dir" -name "$k.ko" -type f | head -n1)
		[ -n "$ko" ] || die "no $k.ko under $dir"
		install -D -m 644 "$ko" "$d/lib/modules/$rel/updates/eri/$k.ko"
		# As the kernel's modules_install with INSTALL_MOD_STRIP=1
		# (Debian's own modules): 9 MB of DWARF less.
		strip --strip-debug "$d/lib/modules/$rel/updates/eri/$k.ko"
	done
	mkdir -p "$d/DEBIAN" "$d/usr/share/doc/eri-modules-$rel"
	echo "ERI $ver modules for Linux $rel." > "$d/usr/share/doc/eri-modules-$rel/README"
	for s in postinst postrm; do
		cat > "$d/DEBIAN/$s" <<EOF
#!/bin/sh
set -e
# modules.dep and friends for $rel, if that kernel is (still) there.
if [ -d /lib/modules/$rel/kernel ]; then
	depmod -a $rel
fi
exit 0
EOF
		chmod 755 "$d/DEBIAN/$s"
	done
	cat > "$d/DEBIAN/control" <<EOF
Package: eri-modules-$rel
Version: $ver
Architecture: $arch
Maintainer: $maint
Section: kernel
Priority: optional
Provides: eri-modules
Conflicts: eri-dkms
Recommends: ibverbs-providers (>= 56.1-1+eri1)
Installed-Size: $(du -sk "$d" | cut -f1)
Description: ERI RDMA driver and software device for Linux $rel
 eri.ko and eri_sim.ko built for Linux $rel, in
 /lib/modules/$rel/updates/eri/.  eri-dkms builds the same for any kernel.
EOF
	build_deb "$d"
done

# ---------------------------------------------------------------- rdma-core
rc=$("$top/scripts/rdma-core-deb.sh" | tail -n1)
[ -d "$rc" ] || die "scripts/rdma-core-deb.sh printed no directory"
find "$out" -maxdepth 1 -name '*_56.1-1+eri*.deb' -delete
ln -f "$rc"/*.deb "$out/" 2>/dev/null || cp "$rc"/*.deb "$out/"

# ---------------------------------------------------------------- test extras
if [ "$extras" = 1 ]; then
	cache=$ERI_CACHE/debs
	mkdir -p "$cache" "$out/extra"
	rm -f "$out"/extra/*.deb
	# Debian 12's versions: dkms, and the rdma-core packages that ours replace.
	want=(dkms ibverbs-providers libibverbs1 libibverbs-dev librdmacm1 libibumad3
	      ibverbs-utils rdmacm-utils rdma-core)
	for p in "${want[@]}"; do
		v=$(apt-cache madison "$p" | awk -F' *[|] *' '$2 !~ /eri/ && $3 ~ /bookworm/ { print $2; exit }')
		[ -n "$v" ] || die "apt knows no Debian 12 version of $p"
		f=$(compgen -G "$cache/${p}_${v/*:/}_*.deb" | head -n1 || true)
		if [ -z "$f" ]; then
			log "apt-get download $p=$v"
			(cd "$cache" && chown _apt . 2>/dev/null; apt-get download -q "$p=$v") >&2 ||
				die "cannot download $p=$v"
			f=$(compgen -G "$cache/${p}_${v/*:/}_*.deb" | head -n1 || true)
			[ -n "$f" ] || die "apt-get download left no $p deb"
		fi
		cp "$f" "$out/extra/"
	done
fi

log "packages in $out: $(cd "$out" && echo *.deb)"
echo "$out"
