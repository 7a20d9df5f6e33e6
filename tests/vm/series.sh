#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Several VM tests in one boot of the guest, one after the other: what make
# check does on every kernel, where a boot and vm-run's checks cost as much
# as a short test (10-25 s under TCG, well over a minute on the debug kernel
# with its leak scan).
#
#   scripts/vm-run ... tests/vm/series.sh SCRIPT[:ARG...] ...
#
# Each test runs under `timeout` (its "# check-timeout:" header, else
# ERI_TEST_TIMEOUT, else 900 s; status 124 when it runs out) with its
# output in $ERI_OUT/series/NAME/ (stdout.txt, stderr.txt, status, seconds,
# and dmesg.txt: the kernel lines it caused), NAME being the script's base
# name.  After each, as vm-run does after a single test:
# every RDMA link, network namespace and veth is deleted and the modules
# vm-run installed are unloaded; a test after which they cannot be is
# failed (status 1, "unload-failed").  A test whose kernel lines show a
# problem (scripts/dmesg-problems, as vm-run's dmesg check) is failed too
# ("dmesg-failed").  scripts/check.sh reports each as its own step; the
# series itself exits 0 once all ran (vm-run's own dmesg check and, on the
# debug kernel, its kmemleak scan at the end still apply to the whole).
set -u

[ "${ERI_IN_VM:-}" = 1 ] || { echo "series: run me in the VM (scripts/vm-run)" >&2; exit 2; }
top=$(cd "$(dirname "$0")/../.." && pwd)

# unload_all: what vm-init's leak check does before it scans.
unload_all() {
	local l m left tries=0
	for l in $(rdma link show 2>/dev/null | sed -n 's|^link \([^/]*\)/.*|\1|p' | sort -u); do
		rdma link delete "$l" || true
	done
	ip -all netns delete 2>/dev/null || true
	for l in $(ip -o link show type veth 2>/dev/null | sed -n 's/^[0-9]*: \([^@:]*\).*/\1/p'); do
		ip link delete "$l" 2>/dev/null || true
	done
	while :; do
		left=
		for m in "$ERI_OUT"/modules/*.ko; do
			[ -e "$m" ] || continue
			m=$(basename "$m" .ko)
			[ -d "/sys/module/$m" ] && left="$left $m"
		done
		[ -z "$left" ] && return 0
		tries=$((tries + 1))
		if [ "$tries" -gt 5 ]; then
			echo "modules still loaded:$left"
			return 1
		fi
		for m in $left; do rmmod "$m" 2>/dev/null || true; done
		sleep 0.5
	done
}

for entry in "$@"; do
	IFS=: read -r -a argv <<<"$entry"
	script=${argv[0]}
	name=$(basename "$script" .sh)
	d=$ERI_OUT/series/$name
	mkdir -p "$d"
	case $script in /*) ;; *) script=$top/$script ;; esac
	tmo=$(sed -n 's/^# check-timeout: *//p' "$script" | head -n 1)
	# The kernel lines of this test: from this mark on.
	echo "eri-series: start of $name" > /dev/kmsg
	t0=$SECONDS
	echo "series: $name: ${argv[*]:1}" > /dev/console
	(cd "$top" && timeout -k 10 "${tmo:-${ERI_TEST_TIMEOUT:-900}}" bash "$script" "${argv[@]:1}") \
		< /dev/null > "$d/stdout.txt" 2> "$d/stderr.txt"
	status=$?
	echo $((SECONDS - t0)) > "$d/seconds"
	if ! unload_all > "$d/unload.txt" 2>&1; then
		cat "$d/unload.txt" > "$d/unload-failed"
		[ "$status" = 0 ] && status=1
	fi
	dmesg | sed -n "/eri-series: start of $name\$/,\$p" > "$d/dmesg.txt"
	if grep -E -f "$top/scripts/dmesg-problems" "$d/dmesg.txt" > "$d/dmesg-failed"; then
		[ "$status" = 0 ] && status=1
	else
		rm -f "$d/dmesg-failed"
	fi
	echo "$status" > "$d/status"
	echo "series: $name: status $status after $((SECONDS - t0))s" > /dev/console
done
exit 0
