#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Guest side of `make bench`: run by scripts/bench.sh through scripts/vm-run,
# never on the host.  Arguments go to tests/bench/guest.py (--mode, --out,
# --budget, --contenders).
set -euo pipefail
[ "${ERI_IN_VM:-}" = 1 ] || { echo "guest.sh: run me in the VM (scripts/bench.sh)" >&2; exit 2; }
exec python3 "$(dirname "$0")/guest.py" "$@"
