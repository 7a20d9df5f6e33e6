#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# live_migration.sh: a guest live-migrated while ERI moves data.  Two
# instances as in two_instances.sh, each with its own kernel and a
# virtio-net NIC, on a datagram network through tests/pair/udp_relay.py on
# the host's loopback.  The client runs migratable (vm-run --migratable:
# nothing of the host mounted), a second QEMU waits for it (vm-run
# --incoming), and once tests/pair/migration_instance.sh says its
# transfers are under way the host migrates the client there through
# QEMU's monitor and quits the source.  Run on the host; two VMs run at a
# time (the destination only waits until the source stops).
#
#   tests/pair/live_migration.sh [options] OUTDIR
#     --server FLAVOUR=MODULES  kernel flavour of the instance that stays and
#                               the directory of ERI's modules built for it
#                               (default 6.1-cloud=build/<its release>)
#     --client FLAVOUR=MODULES  the same for the one that migrates; its root
#                               must come over 9p (default 6.12=...)
#     --rdma-core PREFIX        rdma-core with liberi (vm-run --rdma-core)
#     --perftest DIR            perftest's bin directory, for the guests
#     --secs N                  how long the transfers run (default 30)
#     --timeout SEC             each guest's time limit (default 900)
#
# Prints both instances' checks (TAP lines, prefixed with the role), the
# migration's figures from QEMU ("info migrate") and the relay's, then
# "# live migration: passed" or "failed".  Exit status 0 only when the
# migration completed while the transfers ran (their checks are printed by
# the destination), every check passed and every kernel log is clean.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/pair/host_lib.sh"

secs=30
while [ $# -gt 1 ]; do
	pair_option "$1" "$2" && { shift 2; continue; }
	case $1 in
	--secs)      secs=$2 ;;
	*)           echo "live_migration.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift 2
done
[ $# -eq 1 ] || { sed -n '3,29s/^# \{0,1\}//p' "$0" >&2; exit 2; }
out=$1
pair_defaults

mkdir -p "$out"
out=$(realpath "$out")
rm -f "$out"/*.log "$out"/*.sock "$out"/*.mon "$out/migration.txt"
# Five UDP ports of the loopback nobody uses now: the relay's two, the
# server's and the client's at its source and at its destination.
read -r relay_mobile relay_peer port_srv port_src port_dst < <(free_ports 5)

pids=()
relay_pid=
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	[ -z "$relay_pid" ] || kill "$relay_pid" 2>/dev/null || true
	return 0
}
trap cleanup EXIT

python3 "$top/tests/pair/udp_relay.py" --mobile-port "$relay_mobile" \
	--peer-port "$relay_peer" --peer "$port_srv" > "$out/relay.log" 2>&1 &
relay_pid=$!

addr_s=198.18.6.1 addr_c=198.18.6.2
# guest ROLE FLAVOUR=MODULES OUTNAME NETDEV MAC SELF PEER VM-RUN-OPTIONS...:
# one guest, in the background; its vm-run output goes to OUT/OUTNAME.log.
guest() {
	local role=$1 fl=${2%%=*} mods=${2#*=} name=$3 nd=$4 mac=$5 self=$6 peer=$7
	shift 7
	"$top/scripts/vm-run" --kernel "$fl" --timeout "$timeout" --out "$out/$name" \
		--modules "$mods" --rdma-core "$rdma_core" --netdev "$nd" --mac "$mac" \
		--env "ERI_ROLE=$role" --env "ERI_SELF=$self" --env "ERI_PEER=$peer" \
		--env "ERI_PERFTEST=$perftest" --env "ERI_MIG_SECS=$secs" "$@" \
		"$top/tests/pair/migration_instance.sh" > "$out/$name.log" 2>&1
}
# What the migrating client needs (the same at its source and destination:
# QEMU migrates between equal machines).
mobile=(--migratable --mem 1024 --preload virtio_net --preload rdma_ucm
	--preload eri --preload eri_sim --keep "$top/tests/vm/lib.sh" --keep "$perftest")
guest server "$server" server "$(dgram "$port_srv" "$relay_peer")" 52:54:00:e7:06:01 \
	"$addr_s" "$addr_c" &
pids+=("$!")
guest client "$client" client "$(dgram "$port_src" "$relay_mobile")" 52:54:00:e7:06:02 \
	"$addr_c" "$addr_s" "${mobile[@]}" --monitor "$out/source.mon" &
src_pid=$!
pids+=("$src_pid")
guest client "$client" client-dest "$(dgram "$port_dst" "$relay_mobile")" 52:54:00:e7:06:02 \
	"$addr_c" "$addr_s" "${mobile[@]}" --monitor "$out/dest.mon" \
	--incoming "unix:$out/migration.sock" &
dst_pid=$!
pids+=("$dst_pid")

hmp() { python3 "$top/tests/pair/hmp.py" "$@"; }
# migrate: waits for the client's "ready", migrates it, quits the source.
migrate() {
	local deadline=$((SECONDS + timeout)) status=
	until grep -q '^eri-out: # ready for migration' "$out/client/console.log" 2>/dev/null; do
		kill -0 "$src_pid" 2>/dev/null || { echo "# the client stopped before it was ready"; return 1; }
		[ "$SECONDS" -lt "$deadline" ] || { echo "# the client never got ready"; return 1; }
		sleep 0.5
	done
	until [ -S "$out/migration.sock" ]; do
		kill -0 "$dst_pid" 2>/dev/null || { echo "# the destination QEMU did not start"; return 1; }
		sleep 0.2
	done
	echo "# migrating the client at $(sed -n 's/^eri-out: # ready for migration at \([0-9.]*\)s.*/\1/p' \
		"$out/client/console.log") s of its uptime"
	hmp "$out/source.mon" "migrate_set_parameter max-bandwidth 1G" \
		"migrate -d unix:$out/migration.sock" > "$out/hmp.log" || return 1
	while :; do
		hmp "$out/source.mon" "info migrate" > "$out/migration.txt" || return 1
		status=$(sed -n 's/^Migration status: \([a-z-]*\).*/\1/p' "$out/migration.txt")
		case $status in
		'')	# QEMU refused to start it (a migration blocker, say).
			echo "# no migration: $(grep -v '^$' "$out/hmp.log" | tr '\n' ' ')"
			return 1 ;;
		completed) break ;;
		failed|cancelled) echo "# migration $status"; sed 's/^/#   /' "$out/migration.txt"; return 1 ;;
		esac
		[ "$SECONDS" -lt "$deadline" ] || { echo "# migration still $status"; return 1; }
		sleep 0.5
	done
	grep -E '^(total time|downtime|setup|transferred ram|throughput|total ram|zero pages|normal|dirty sync count):' \
		"$out/migration.txt" | tr '\n' ';' | sed 's/;$//; s/;/, /g; s/^/# migration completed: /'
	echo
	touch "$out/client/migrated-away"
	hmp "$out/source.mon" quit > /dev/null 2>&1 || true
}
rc=0
migrate || rc=1
if [ "$rc" != 0 ]; then
	kill "$src_pid" "$dst_pid" 2>/dev/null || true
fi
for p in "${pids[@]}"; do
	wait "$p" || rc=1
done
kill "$relay_pid" 2>/dev/null || true
wait "$relay_pid" 2>/dev/null || true
relay_pid=

echo "# server instance: kernel flavour ${server%%=*}"
sed "s/^\(not \)\{0,1\}ok - /&[server] /" "$out/server/stdout.txt" 2>/dev/null || true
echo "# client instance: kernel flavour ${client%%=*}, before the migration"
sed "s/^\(not \)\{0,1\}ok - /&[client] /" "$out/client/stdout.txt" 2>/dev/null || true
echo "# client instance, after the migration (the destination QEMU)"
sed "s/^\(not \)\{0,1\}ok - /&[client] /" "$out/client-dest/stdout.txt" 2>/dev/null || true
for name in server client client-dest; do
	grep -E '^vm-run: ' "$out/$name.log" | sed "s/^/# $name: /"
done
sed 's/^/# /' "$out/relay.log"
# The transfers must have ended after the migration, on the destination.
if ! grep -q '^ok - byte-checked RC transfer across the migration' "$out/client-dest/stdout.txt" 2>/dev/null; then
	echo "# the byte-checked transfer did not end on the destination"
	rc=1
fi
if [ "$rc" = 0 ]; then
	echo "# live migration: passed"
else
	echo "# live migration: failed"
fi
exit "$rc"
