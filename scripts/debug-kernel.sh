#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# debug-kernel.sh [--rebuild]   build (or reuse) the ERI debug kernel; the
#                               release is printed on the last line
# debug-kernel.sh --release     print the release it builds, build nothing
#
# Source: linux-source-6.12 prepared by scripts/kernel-tree.sh.  Config, minimal
# like kunit.py's: "make allnoconfig" with KCONFIG_ALLCONFIG = the fragments
# scripts/kconfig/*.config (base system, what the VM harness needs, KASAN,
# lockdep, kmemleak, UBSAN, debugobjects, fault injection, KUnit framework);
# every value they ask for is checked to have taken effect before building.
# ERI itself is not in this kernel: it is built out of tree against it.
#
# Paths (ERI_CACHE defaults to /var/cache/eri):
#   $ERI_CACHE/debug-kernel/6.12/build/      kbuild output dir (O=), kept, so a
#                                            rebuild is incremental; also KDIR
#   $ERI_CACHE/debug-kernel/6.12/build.log   log of the last make
#   $ERI_CACHE/kernels/<release>/            laid out like scripts/kernel.sh's
#       vmlinuz config System.map .package .complete lib/modules/<release>/
#       build -> the kbuild output dir (as is lib/modules/<release>/build)
#
# A second run is a no-op when the package version and the fragments are
# unchanged (key in .eri-key); --rebuild runs make anyway.  JOBS (default:
# nproc) sets make -j.
set -euo pipefail

ERI_CACHE=${ERI_CACHE:-/var/cache/eri}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VERSION=6.12
JOBS=${JOBS:-$(nproc)}
FRAGMENTS=(base.config vm.config debug.config kunit.config)

die() { echo "debug-kernel.sh: $*" >&2; exit 1; }
log() { echo "debug-kernel.sh: $*" >&2; }

REBUILD=0 RELEASE_ONLY=0
case ${1:-} in
"") ;;
--rebuild) REBUILD=1 ;;
--release) RELEASE_ONLY=1 ;;
*) sed -n '3,26s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac

SRC=$("$REPO/scripts/kernel-tree.sh" "$VERSION")
if [ "$RELEASE_ONLY" = 1 ]; then
	# kernelversion + LOCALVERSION (LOCALVERSION_AUTO is off, see vm.config)
	lv=$(sed -n 's/^CONFIG_LOCALVERSION="\(.*\)"$/\1/p' "$REPO/scripts/kconfig/vm.config")
	echo "$(make -s -C "$SRC" kernelversion)$lv"
	exit 0
fi
PKGVER=$(cat "$SRC/.eri-pkgversion")
WORK=$ERI_CACHE/debug-kernel/$VERSION
B=$WORK/build
mkdir -p "$WORK"
exec 8>"$WORK/.lock"
flock -n 8 || { log "another debug-kernel.sh holds $WORK/.lock; waiting"; flock 8; }

frag_paths=()
for f in "${FRAGMENTS[@]}"; do frag_paths+=("$REPO/scripts/kconfig/$f"); done

# What the kernel depends on: the source package and the fragments (ERI's own
# sources are not compiled into it).
KEY=$( { echo "$PKGVER"; echo "${FRAGMENTS[*]}"; cat "${frag_paths[@]}"; } |
	sha256sum | cut -c1-16)

release() { make -s -C "$SRC" O="$B" kernelrelease; }

if [ "$REBUILD" = 0 ] && [ -f "$B/.eri-key" ] && [ "$(cat "$B/.eri-key")" = "$KEY" ]; then
	rel=$(release)
	out=$ERI_CACHE/kernels/$rel
	if [ -f "$out/.complete" ] && [ "$(cat "$out/.eri-key" 2>/dev/null)" = "$KEY" ]; then
		log "up to date: $out (key $KEY)"
		echo "$rel"
		exit 0
	fi
fi

# A new package version means a re-unpacked tree: start the build dir afresh.
if [ -f "$B/.eri-pkgversion" ] && [ "$(cat "$B/.eri-pkgversion")" != "$PKGVER" ]; then
	log "source package changed: wiping $B"
	rm -rf "$B"
fi
mkdir -p "$B"
echo "$PKGVER" > "$B/.eri-pkgversion"

LOG=$WORK/build.log
: > "$LOG"
t0=$(date +%s)
log "configuring in $B (log: $LOG)"
# allnoconfig + KCONFIG_ALLCONFIG: the fragments' values, everything else no
# (or its default when it has no prompt).
cat "${frag_paths[@]}" > "$B/eri-fragments.config"
make -C "$SRC" O="$B" KCONFIG_ALLCONFIG="$B/eri-fragments.config" allnoconfig >> "$LOG" 2>&1 ||
	{ tail -n 30 "$LOG" >&2; die "configuration failed"; }

# Every value the fragments ask for must have taken effect: a symbol this
# kernel does not know, or one a Kconfig dependency overrode, is fatal.
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) sym=${line%%=*}; want=$line ;;
	"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}; want=$line ;;
	*) continue ;;
	esac
	got=$(grep -E "^($sym=|# $sym is not set)" "$B/.config" || true)
	if [ -z "$got" ]; then
		case $want in
		"#"*) ;; # unset and unknown (or invisible): same thing
		*) log "ERROR: $sym unknown to this kernel or its dependencies are off (wanted: $want)"; bad=1 ;;
		esac
	elif [ "$got" != "$want" ]; then
		log "ERROR: $want did not take effect (got: $got)"
		bad=1
	fi
done < "$B/eri-fragments.config"
[ "$bad" = 0 ] || die "the config does not have what scripts/kconfig/*.config ask for (see above; $B/.config)"
log "config: $(grep -c '=y' "$B/.config") built in, $(grep -c '=m' "$B/.config") modules"

log "building bzImage and modules with -j$JOBS (log: $LOG)"
make -C "$SRC" O="$B" -j"$JOBS" olddefconfig bzImage modules >> "$LOG" 2>&1 ||
	{ tail -n 40 "$LOG" >&2; die "build failed, see $LOG"; }
t1=$(date +%s)
log "build took $((t1 - t0)) s"

rel=$(release)
out=$ERI_CACHE/kernels/$rel
mkdir -p "$ERI_CACHE/kernels"
stage=$(mktemp -d "$ERI_CACHE/kernels/.stage-$rel.XXXXXX")
trap 'rm -rf "${stage:-}"' EXIT
make -C "$SRC" O="$B" INSTALL_MOD_PATH="$stage" modules_install >> "$LOG" 2>&1 ||
	{ tail -n 20 "$LOG" >&2; die "modules_install failed"; }
[ -d "$stage/lib/modules/$rel" ] || die "modules_install made no lib/modules/$rel"
cp "$B/arch/x86/boot/bzImage" "$stage/vmlinuz"
cp "$B/.config" "$stage/config"
cp "$B/System.map" "$stage/System.map"
# KDIR for out-of-tree builds: the kbuild output dir itself.
ln -sfn "$B" "$stage/lib/modules/$rel/build"
ln -sfn "$B" "$stage/build"
echo "linux-source-$VERSION $PKGVER + scripts/kconfig/{${FRAGMENTS[*]}} (debug-kernel.sh)" > "$stage/.package"
echo "$KEY" > "$stage/.eri-key"
touch "$stage/.complete"
rm -rf "$out"
mv "$stage" "$out"
trap - EXIT
echo "$KEY" > "$B/.eri-key"
log "installed $out ($(du -sh "$out/lib/modules/$rel" | cut -f1) of modules; total $(( $(date +%s) - t0 )) s)"
echo "$rel"
