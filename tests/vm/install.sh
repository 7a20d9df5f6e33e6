#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# ERI installed like a product, in one boot: the packages of scripts/deb.sh
# (ERI_DEBS: a directory of .debs, with extra/ from --test-extras) installed
# with dpkg -i into the guest's overlay, used with no environment variable
# (no LD_LIBRARY_PATH, Debian's /usr/bin tools), then removed, and nothing
# of them left behind.
#
#  1. rdma-core 56.1-1+eri1 (replacing Debian 12's 44.0-2) and eri-utils;
#     the modules from eri-modules-<release>, or with ERI_INSTALL_MODE=dkms
#     from eri-dkms: Debian 12's dkms installed too, and a real DKMS build
#     in the guest (7 to 8 minutes under TCG: make check does not afford it
#     and builds eri-dkms's sources as dkms does on the host instead,
#     scripts/dkms-build.sh);
#  2. modprobe eri_sim, rdma link add, ibv_devinfo, ibv_rc_pingpong and
#     ib_write_bw (Debian 12's perftest, built against rdma-core 44) between
#     two namespaces;
#  3. eri-link (eri-utils) makes the link declared in /etc/eri/links.conf;
#     the udev rule asks for eri-link@<netdev>.service (udevadm test; the
#     guest runs no systemd and no udevd, so the unit's ExecStart helper is
#     run directly);
#  4. dpkg --purge of ERI's packages, Debian 12's rdma-core packages back
#     (dpkg -i of extra/*: what "apt install" of the bookworm versions does),
#     and a search for anything left: modules, the dkms tree, the provider,
#     its driver file, ld.so's cache.
#
# make check runs it on all three kernels, the host's root over virtiofs
# (vm-run --fs virtiofs): over 9p, dpkg and depmod take 7 minutes a kernel
# under TCG.  Over virtiofs (2026-12-04): 6.1-cloud 89 s, 6.1 148 s (dpkg -i
# of rdma-core 37 s, of eri-modules with its depmod 36 s, removal 46 s), 6.12
# 232 s (rdma-core 24 s, eri-modules 57 s, removal 123 s: depmod reads its
# xz-compressed modules whole, once to install and once to remove).
# check-fs: virtiofs
# check-packages: yes
# check-timeout: 900
set -u
. "$(dirname "$0")/lib.sh"

[ "${ERI_IN_VM:-}" = 1 ] || { echo "run me in the VM (scripts/vm-run)" >&2; exit 2; }
debs=${ERI_DEBS:-}
if [ -z "$debs" ] || ! compgen -G "$debs/eri-utils_*.deb" >/dev/null; then
	echo "# skip: no packages (ERI_DEBS=$debs; scripts/deb.sh builds them)"
	exit 77
fi
kver=$(uname -r)
mode=${ERI_INSTALL_MODE:-modules}
echo "# kernel $kver, modules from $([ "$mode" = dkms ] && echo eri-dkms || echo "eri-modules-$kver")"

# What the harness gives other tests goes: the packages must do without.
unset LD_LIBRARY_PATH ERI_RDMA_CORE
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
check "no ERI modules before the packages" \
	sh -c "! find /lib/modules/$kver -name 'eri*.ko*' | grep -q ."

rc_pkgs=(ibverbs-providers libibverbs1 libibverbs-dev librdmacm1 libibumad3
	 ibverbs-utils rdmacm-utils rdma-core)
rc_debs=()
for p in "${rc_pkgs[@]}"; do
	f=$(compgen -G "$debs/${p}_56.1-1+eri*_*.deb" | head -n1)
	[ -n "$f" ] || { not_ok "no $p package in $debs"; finish; exit 1; }
	rc_debs+=("$f")
done
ndeb() { compgen -G "$1" | head -n1; }

# man-db's trigger rebuilds its index for every package with man pages: a
# minute or two under TCG, and nothing this test looks at (what
# /var/lib/man-db/auto-update turns on; the overlay is the guest's).
rm -f /var/lib/man-db/auto-update

# ------------------------------------------------------------------ install
t0=$(date +%s.%N)
check "dpkg -i rdma-core 56.1-1+eri1 and eri-utils" \
	dpkg -i "${rc_debs[@]}" "$(ndeb "$debs/eri-utils_*.deb")"
sed 's/^/#   /' /tmp/t.out | tail -n 5
t_rc=$(echo "$(date +%s.%N) - $t0" | bc)
check "ibverbs-providers is ours" sh -c \
	"dpkg-query -W -f='\${Version}' ibverbs-providers | grep -q '+eri'"
check "liberi in ibverbs-providers" sh -c "dpkg -L ibverbs-providers | grep -q '/libibverbs/liberi-rdmav[0-9]*\.so$'"
check "eri.driver in /etc/libibverbs.d" test -f /etc/libibverbs.d/eri.driver

t0=$(date +%s.%N)
if [ "$mode" = dkms ]; then
	dk=$(ndeb "$debs/extra/dkms_*.deb")
	check "dpkg -i dkms (Debian 12's)" dpkg -i "$dk"
	# The kernel's module tree here is vm-run's copy of the image package,
	# which has no build link: what linux-headers-<release> installs.
	[ -e "/lib/modules/$kver/build" ] ||
		ln -s "/usr/src/linux-headers-$kver" "/lib/modules/$kver/build"
	t1=$(date +%s.%N)
	check "dpkg -i eri-dkms (DKMS builds eri and eri_sim for $kver)" \
		dpkg -i "$(ndeb "$debs/eri-dkms_*.deb")"
	sed 's/^/#   /' /tmp/t.out | tail -n 12
	t_dkms=$(echo "$(date +%s.%N) - $t1" | bc)
	printf '# DKMS build and install in the guest (TCG): %.0f s\n' "$t_dkms"
	check "dkms status: installed for $kver" sh -c "dkms status eri | grep -q '$kver.*: installed'"
	dkms status | sed 's/^/#   /'
	check "AUTOINSTALL=yes in the installed dkms.conf" \
		grep -qx 'AUTOINSTALL="yes"' /usr/src/eri-*/dkms.conf
else
	check "dpkg -i eri-modules-$kver" dpkg -i "$(ndeb "$debs/eri-modules-${kver}_*.deb")"
fi
t_mod=$(echo "$(date +%s.%N) - $t0" | bc)
printf '# dpkg -i: rdma-core %.0f s, modules %.0f s\n' "$t_rc" "$t_mod"
check "modinfo eri_sim: under updates/" sh -c "modinfo -n eri_sim | grep -q '^/lib/modules/$kver/updates/'"
check "modinfo eri: under updates/" sh -c "modinfo -n eri | grep -q '^/lib/modules/$kver/updates/'"
echo "# eri_sim: $(modinfo -n eri_sim 2>&1)"

# ------------------------------------------------------------------ use
check "modprobe eri_sim" modprobe eri_sim
check "eri loaded with it" test -d /sys/module/eri
ip netns add ins0
ip netns add ins1
ip link add iveth0 netns ins0 type veth peer name iveth1 netns ins1
ip -n ins0 addr add 198.18.0.1/24 dev iveth0
ip -n ins1 addr add 198.18.0.2/24 dev iveth1
for n in 0 1; do
	ip -n ins$n link set lo up
	ip -n ins$n link set iveth$n up
done
check "rdma link add eri0 type eri netdev iveth0" \
	ip netns exec ins0 rdma link add eri0 type eri netdev iveth0
check "rdma link add eri1 type eri netdev iveth1" \
	ip netns exec ins1 rdma link add eri1 type eri netdev iveth1
check "ibv_devinfo -d eri0 (no LD_LIBRARY_PATH)" sh -c \
	"ibv_devinfo -d eri0 > /tmp/devinfo.txt && grep -q 'hca_id:.*eri0' /tmp/devinfo.txt && grep -q PORT_ACTIVE /tmp/devinfo.txt"
sed 's/^/#   /' /tmp/devinfo.txt | head -n 8
check "ibv_devinfo is Debian's path: /usr/bin" test "$(command -v ibv_devinfo)" = /usr/bin/ibv_devinfo
check "liberi found through /etc/libibverbs.d (ltrace-free: the device is there)" \
	sh -c "ibv_devices | grep -qw eri0"
gids() { gid_index eri0 198.18.0.1 && gid_index eri1 198.18.0.2; }
check "GIDs of 198.18.0.1 and .2" wait_for 5 gids
g0=$(gid_index eri0 198.18.0.1 || echo 1)
g1=$(gid_index eri1 198.18.0.2 || echo 1)

# pingpong CLIENT_CMD SERVER_CMD: server in ins1, client in ins0.
pingpong() {
	local srv=$1 cli=$2 spid rc
	ip netns exec ins1 timeout 60 $srv > /tmp/srv.txt 2>&1 &
	spid=$!
	sleep 1.5
	ip netns exec ins0 timeout 60 $cli > /tmp/cli.txt 2>&1
	rc=$?
	wait "$spid" || rc=1
	cat /tmp/cli.txt /tmp/srv.txt
	return $rc
}
check "ibv_rc_pingpong eri0 <-> eri1 (-c: data checked)" pingpong \
	"ibv_rc_pingpong -d eri1 -g $g1 -n 200 -s 4096 -c" \
	"ibv_rc_pingpong -d eri0 -g $g0 -n 200 -s 4096 -c 198.18.0.2"
grep -E 'bytes in|iters' /tmp/cli.txt | sed 's/^/#   /'
check "ib_write_bw (Debian 12's perftest) eri0 -> eri1" pingpong \
	"ib_write_bw -d eri1 -x $g1 -s 65536 -n 200" \
	"ib_write_bw -d eri0 -x $g0 -s 65536 -n 200 198.18.0.2"
grep -E '^ *65536' /tmp/cli.txt | sed 's/^/#   /'
ip netns exec ins0 rdma link delete eri0
ip netns exec ins1 rdma link delete eri1

# ------------------------------------------------------------------ links.conf
ip link add lnk0 type veth peer name lnk1
ip link set lnk0 up
ip link set lnk1 up
cp /etc/eri/links.conf /tmp/links.conf.orig
echo "erilnk0 lnk0" >> /etc/eri/links.conf
check "eri-link match lnk0: ERI_LINK=erilnk0" sh -c \
	"/usr/lib/eri/eri-link match lnk0 | grep -qx ERI_LINK=erilnk0"
check "eri-link match lnk1: nothing" sh -c "[ -z \"\$(/usr/lib/eri/eri-link match lnk1)\" ]"
# udevadm test runs the rules on the device in-process (no udevd needed):
# the rule must import ERI_LINK and want the unit.
udevadm test /sys/class/net/lnk0 > /tmp/udev.txt 2>&1 || true
check "udev rule: lnk0 wants eri-link@lnk0.service" \
	grep -q 'SYSTEMD_WANTS=.*eri-link@lnk0.service' /tmp/udev.txt
grep -E 'ERI_LINK|SYSTEMD_WANTS|90-eri' /tmp/udev.txt | sed 's/^/#   /' | head -n 6
udevadm test /sys/class/net/lnk1 > /tmp/udev1.txt 2>&1 || true
check "udev rule: lnk1 (not declared) wants nothing" \
	sh -c "! grep -q 'eri-link@' /tmp/udev1.txt"
# The unit's ExecStart, as systemd would run it for eri-link@lnk0.
cmd=$(sed -n 's/^ExecStart=//p' /lib/systemd/system/eri-link@.service | sed 's/%I/lnk0/')
check "unit ExecStart ($cmd) makes erilnk0 on lnk0" sh -c \
	"$cmd && rdma link show | grep -q 'link erilnk0/1 .*netdev lnk0'"
check "again: nothing to do" sh -c "$cmd | grep -q 'there already'"
rdma link delete erilnk0
# After a reboot nothing is there: eri-link up (all declared) brings it back.
check "eri-link up (every declared link) brings erilnk0 back" sh -c \
	"/usr/lib/eri/eri-link up && rdma link show | grep -q 'link erilnk0/1 .*netdev lnk0'"
cmd=$(sed -n 's/^ExecStop=//p' /lib/systemd/system/eri-link@.service | sed 's/%I/lnk0/')
check "unit ExecStop deletes it" sh -c "$cmd && ! rdma link show | grep -q erilnk0"
ip link del lnk0
cp /tmp/links.conf.orig /etc/eri/links.conf

check "modprobe -r eri_sim eri" sh -c \
	"modprobe -r eri_sim; modprobe -r eri 2>/dev/null; ! grep -q '^eri' /proc/modules"

# ------------------------------------------------------------------ remove
# installed_eri: ERI's packages dpkg has installed, or their conffiles
# (dpkg-query also lists names it only heard of, as eri-modules).
installed_eri() {
	dpkg-query -W -f='${Status} ${Package}\n' 'eri-*' 2>/dev/null |
		awk '$3 != "not-installed" { print $4 }'
}
eri_pkgs=$(installed_eri | tr '\n' ' ')
echo "# ERI packages installed: $eri_pkgs"
t0=$(date +%s.%N)
check "dpkg --purge $eri_pkgs" dpkg --purge $eri_pkgs
sed 's/^/#   /' /tmp/t.out | tail -n 6
ex=()
for f in "$debs"/extra/*.deb; do
	case ${f##*/} in dkms_*) ;; *) ex+=("$f") ;; esac
done
check "back to Debian 12's rdma-core (dpkg -i of its packages)" dpkg -i "${ex[@]}"
sed 's/^/#   /' /tmp/t.out | tail -n 3
[ "$mode" = dkms ] && check "dpkg --purge dkms" dpkg --purge dkms
printf '# removal: %.0f s\n' "$(echo "$(date +%s.%N) - $t0" | bc)"
check "ibverbs-providers is Debian 12's again" sh -c \
	"dpkg-query -W -f='\${Version}' ibverbs-providers | grep -vq '+eri'"
check "no eri*.ko left under /lib/modules/$kver" \
	sh -c "! find /lib/modules/$kver -name 'eri*.ko*' | grep ."
check "modinfo eri_sim fails" sh -c "! modinfo eri_sim"
check "no dkms tree left (/var/lib/dkms/eri)" test ! -e /var/lib/dkms/eri
check "no DKMS sources left (/usr/src/eri-*)" bash -c "! compgen -G '/usr/src/eri-*'"
# (no find over /usr: its thousands of directories over 9p take minutes)
check "no liberi left" bash -c "! compgen -G '/usr/lib/*/libibverbs/liberi*' && ! compgen -G '/usr/lib/*/liberi*'"
check "no eri.driver left" test ! -e /etc/libibverbs.d/eri.driver
check "no /etc/eri left" test ! -e /etc/eri
check "no eri-link unit or udev rule left" sh -c \
	"! ls /lib/systemd/system/eri-link@.service /lib/udev/rules.d/90-eri-link.rules 2>/dev/null | grep ."
check "ld.so: no ERI entry in /etc/ld.so.conf.d, none in its cache" sh -c \
	"! grep -rl eri /etc/ld.so.conf.d/ && ! ldconfig -p | grep -i liberi"
check "dpkg has no ERI package, nor its conffiles" test -z "$(installed_eri)"
check "no package at 56.1-1+eri" sh -c "! dpkg-query -W -f='\${Version}\n' | grep -q '+eri'"
ip netns del ins0
ip netns del ins1
finish
