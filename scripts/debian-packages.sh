#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# debian-packages.sh PACKAGE...
#
# Installs those of the Debian packages that are not installed yet (apt-get
# install --no-install-recommends; apt-get update first only when one of
# them is unknown to apt).  Quick when all are present; needs root only when
# something is missing.  Logs to stderr.
set -euo pipefail

[ $# -gt 0 ] || { sed -n '4p' "$0" | sed 's/^# //' >&2; exit 2; }

log() { echo "debian-packages: $*" >&2; }
die() { log "error: $*"; exit 1; }

# dpkg-query prints nothing for unknown packages, and fails when it meets one
# (under set -e and pipefail that would end the script before it printed
# anything): compare against the list instead.
installed=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "$@" 2>/dev/null |
	awk '$1 == "ii" { print $2 }') || true
missing=()
for p in "$@"; do
	grep -qxF "$p" <<<"$installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

[ "$(id -u)" = 0 ] || die "need root to install: ${missing[*]}"
for p in "${missing[@]}"; do
	if ! apt-cache show "$p" >/dev/null 2>&1; then
		log "$p unknown to apt: apt-get update"
		apt-get update -qq >&2
		break
	fi
done
log "installing ${missing[*]}"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	-o Dpkg::Use-Pty=0 "${missing[@]}" </dev/null >&2
