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

finish() {
	echo "# $T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" -eq 0 ]
}
