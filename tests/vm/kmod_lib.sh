# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Sourced by the kernel test module scripts (kverbs.sh, frwr.sh):
#
#   run_kmod_test MODULE NS_PREFIX MIN_OK
#
# A test module (tests/kmod/MODULE.ko, built by scripts/build-modules.sh and
# installed by vm-run --modules) runs its checks in module init between eri0
# and eri1 and fails to load unless all passed.  Its topology is fixed: eri0
# in namespace NS_PREFIX0 on veA (198.18.0.1/24), eri1 in NS_PREFIX1 on veB
# (198.18.0.2/24), a veth between.  The module must report at least MIN_OK
# "ok" lines and no "not ok".  Ends by removing everything it made and
# unloading eri_sim and eri.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

run_kmod_test() {
	local mod=$1 ns0=${2}0 ns1=${2}1 min_ok=$3
	local a=198.18.0.1 b=198.18.0.2 s0 rc secs nok

	check "modprobe eri_sim" modprobe eri_sim
	ip netns add "$ns0"
	ip netns add "$ns1"
	ip link add veA netns "$ns0" type veth peer name veB netns "$ns1"
	ip -n "$ns0" link set lo up
	ip -n "$ns1" link set lo up
	ip -n "$ns0" addr add "$a/24" dev veA
	ip -n "$ns1" addr add "$b/24" dev veB
	ip -n "$ns0" link set veA up
	ip -n "$ns1" link set veB up
	check "ping $b from $a" ip netns exec "$ns0" ping -c 1 -W 5 "$b"

	check "rdma link add eri0" ip netns exec "$ns0" rdma link add eri0 type eri netdev veA
	check "rdma link add eri1" ip netns exec "$ns1" rdma link add eri1 type eri netdev veB
	check "eri0 gets the GID of $a" wait_for 10 has_gid eri0 "$(gid_of $a)"
	check "eri1 gets the GID of $b" wait_for 10 has_gid eri1 "$(gid_of $b)"

	if [ "$T_FAIL" -eq 0 ]; then
		s0=$SECONDS
		timeout 240 modprobe "$mod" > /tmp/"$mod".out 2>&1
		rc=$?
		secs=$((SECONDS - s0))
		# The module's lines: it loads once per boot.
		dmesg | sed 's/^\[[ 0-9.]*\] //' | grep "^$mod: " > /tmp/"$mod".log
		sed "s/^$mod: /#   /" /tmp/"$mod".log
		sed 's/^/#   modprobe: /' /tmp/"$mod".out
		check "modprobe $mod: every check passed (exit $rc, ${secs} s)" test "$rc" = 0
		nok=$(grep -c "^$mod: ok - " /tmp/"$mod".log)
		check "... it reported $nok checks, none failed" \
			sh -c "test $nok -ge $min_ok && ! grep -q '^$mod: not ok' /tmp/$mod.log"
		# init failed: nothing to remove.
		if [ "$rc" = 0 ]; then
			check "rmmod $mod" rmmod "$mod"
		fi
	fi

	check "delete eri0" ip netns exec "$ns0" rdma link delete eri0
	check "delete eri1" ip netns exec "$ns1" rdma link delete eri1
	check "devices are gone" wait_for 10 sh -c "! test -e /sys/class/infiniband/eri0 && ! test -e /sys/class/infiniband/eri1"
	ip netns del "$ns0"
	ip netns del "$ns1"
	check "rmmod eri_sim" rmmod eri_sim
	check "rmmod eri" rmmod eri
}
