#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# debian-source.sh PACKAGE DEBVERSION TARBALL SHA256 DEST
#
# Fetches the upstream tarball TARBALL of Debian trixie's source package
# PACKAGE=DEBVERSION into DEST/TARBALL and checks it against SHA256 (the
# hash that trixie's signed Sources index lists for it).  Adds a deb-src
# entry for trixie (/etc/apt/sources.list.d/eri-trixie-src.sources) whose
# URI is the main Debian archive this machine already uses.  Does nothing
# when DEST/TARBALL is there with the right hash.  Logs to stderr; prints
# the tarball's path.
#
# apt-get source fetches the tarball and may then fail on the .dsc (the
# archive can lack it): the outcome is judged by the tarball and its hash.
set -euo pipefail

[ $# = 5 ] || { sed -n '4,5s/^# //p' "$0" >&2; exit 2; }
pkg=$1 debver=$2 file=$3 sha256=$4 dest=$5
tarball=$dest/$file

log() { echo "debian-source: $*" >&2; }
die() { log "error: $*"; exit 1; }

tarball_ok() {
	[ -f "$tarball" ] &&
		echo "$sha256  $tarball" | sha256sum --check --status
}

# The URIs of the Debian archives in the apt sources (deb822 files first,
# then the one-line format), ours excepted.
debian_uri() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		[ "${f##*/}" = eri-trixie-src.sources ] && continue
		awk 'tolower($1) == "uris:" {
			for (i = 2; i <= NF; i++) print $i }' "$f"
	done
	if [ -f /etc/apt/sources.list ]; then
		awk '$1 == "deb" {
			for (i = 2; i <= NF; i++)
				if ($i ~ /^[a-z+]+:\/\//) { print $i; break } }' \
			/etc/apt/sources.list
	fi
}

add_trixie_src() {
	local uri list entry keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	# The main archive, never the security one.
	uri=$(debian_uri | grep -v -- '-security' | grep -m1 '/debian/*$' || true)
	[ -n "$uri" ] || uri=$(debian_uri | grep -v -- '-security' | head -n1 || true)
	[ -n "$uri" ] || die "no Debian archive URI found in the apt sources"
	list=/etc/apt/sources.list.d/eri-trixie-src.sources
	entry="# Added by ERI scripts/debian-source.sh: Debian trixie's source packages.
Types: deb-src
URIs: $uri
Suites: trixie
Components: main"
	[ -f "$keyring" ] && entry+=$'\n'"Signed-By: $keyring"
	if [ "$(cat "$list" 2>/dev/null)" != "$entry" ]; then
		log "adding deb-src trixie ($uri) as $list"
		printf '%s\n' "$entry" > "$list"
		log "apt-get update"
		apt-get update >&2 || die "apt-get update failed"
	fi
}

if tarball_ok; then
	echo "$tarball"
	exit 0
fi
[ -f "$tarball" ] && { log "cached $file fails its hash, refetching"; rm -f "$tarball"; }

add_trixie_src
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Let apt's unprivileged downloader write there.
id _apt >/dev/null 2>&1 && chown _apt "$tmp"
fetch() {
	log "apt-get source --download-only $pkg=$debver"
	(cd "$tmp" && apt-get source --download-only "$pkg=$debver") >&2 ||
		log "apt-get source failed (tolerated, checking the tarball)"
}
fetch
if [ ! -f "$tmp/$file" ]; then
	# An index older than the entry may not know the version yet.
	log "apt-get update"
	apt-get update >&2 || die "apt-get update failed"
	fetch
fi
[ -f "$tmp/$file" ] || die "apt-get source did not fetch $file"
echo "$sha256  $tmp/$file" | sha256sum --check --status || {
	log "got:      $(sha256sum "$tmp/$file")"
	log "expected: $sha256"
	die "SHA-256 MISMATCH for $file"
}
mkdir -p "$dest"
mv "$tmp/$file" "$tarball.part"
mv "$tarball.part" "$tarball"
chown "$(id -u):$(id -g)" "$tarball"
echo "$tarball"
