# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Helpers for guest-side test scripts: sourced, not run.
#
# Each check prints "ok - NAME" or "not ok - NAME" (TAP style); finish()
# prints the counts and exits non-zero when a check failed.

T_PASS=0
T_FAIL=0

ok() { T_PASS=$((T_PASS + 1)); echo "ok - $*"; }
not_ok() { T_FAIL=$((T_FAIL + 1)); echo "not ok - $*"; }

# check NAME CMD...: CMD must succeed.
check() {
	local name=$1
	shift
	if "$@" >/tmp/t.out 2>&1; then ok "$name"; else not_ok "$name"; sed 's/^/#   /' /tmp/t.out; fi
}

# check_todo REASON NAME CMD...: a check known to fail for now (REASON: the
# issue that will make it pass).  Failing, it prints "not ok - NAME # TODO
# REASON" (TAP's known failure) and is not counted as a failure.
check_todo() {
	local reason=$1 name=$2
	shift 2
	if "$@" >/tmp/t.out 2>&1; then
		ok "$name"
	else
		echo "not ok - $name # TODO $reason"
		sed 's/^/#   /' /tmp/t.out
	fi
}

# check_fails NAME CMD...: CMD must fail.
check_fails() {
	local name=$1
	shift
	if "$@" >/tmp/t.out 2>&1; then not_ok "$name (succeeded)"; else ok "$name"; sed 's/^/#   /' /tmp/t.out; fi
}

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds.
wait_for() {
	local deadline=$(($(date +%s) + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -ge "$deadline" ] && return 1
		sleep 0.1
	done
}

# gid_of ADDR: the GID of an address as sysfs prints it: an IPv4 address
# IPv4-mapped, an IPv6 one in full.
gid_of() {
	case $1 in
	*:*) python3 -c 'import ipaddress, sys
print(ipaddress.IPv6Address(sys.argv[1]).exploded)' "$1" ;;
	*) printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${1//./ } ;;
	esac
}
# has_gid DEV GID: DEV's port 1 lists GID.
has_gid() { cat /sys/class/infiniband/"$1"/ports/1/gids/* 2>/dev/null | grep -qx "$2"; }
# gid_index DEV ADDR: prints the index of DEV's RoCEv2 GID for ADDR (IPv4
# or IPv6).
gid_index() {
	local f i want
	want=$(gid_of "$2")
	for f in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		i=${f##*/}
		[ "$(cat "$f" 2>/dev/null)" = "$want" ] || continue
		if [ "$(cat /sys/class/infiniband/"$1"/ports/1/gid_attrs/types/"$i" 2>/dev/null)" = "RoCE v2" ]; then
			echo "$i"
			return 0
		fi
	done
	return 1
}

finish() {
	echo "# $T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" -eq 0 ]
}
