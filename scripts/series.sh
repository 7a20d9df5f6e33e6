#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# series.sh [generate|check] [linux|rdma-core]...
#
# ERI as patch series for upstream, made from this repository's files:
#   build/series/linux/       against Debian's linux-source-6.12
#   build/series/rdma-core/   against rdma-core 56.1 (Debian trixie's source)
# each a "git format-patch --cover-letter" series.  "generate" (make series)
# writes them; "check" (make check's step "series") also applies each to a
# pristine tree with "git am" and, after every patch, runs checkpatch.pl
# --strict on it and builds (see below); any warning fails.  Without a
# series name both are done.  Logs: build/series/logs/.
#
# Why generated, not kept as patches: the repository stays the one source
# of the code; packaging/series/*.manifest says which files go into which
# patch, in which order, with which commit message, and every file under
# the series' roots must be in exactly one patch, so a new file cannot be
# forgotten.  The commits are made without a work tree (git hash-object,
# update-index, commit-tree) in a git repository of the pristine tree,
#   $ERI_CACHE/series/linux       linux-source-6.12, branch "pristine"
#   $ERI_CACHE/series/rdma-core   rdma-core 56.1, branch "pristine"
# made once (cold: about 4 minutes for Linux; keyed by package version and
# tarball) and whose work tree "check" resets and applies the series in.
# The out-of-tree parts of the repository are not in the series: compat/,
# and the Makefiles' ERI_ROOT lines (filtered out here).
#
# The kernel build, after each patch: every .c file of the driver and the
# software device present so far, as an object, with W=1 C=1, in an O=
# build dir kept in $ERI_CACHE/series/linux-build (config: allnoconfig +
# packaging/series/linux.config).  C=1 rather than C=2: every file is
# rewritten by git am, so each is compiled, and checked by sparse, at the
# patch that adds it and whenever a header it includes changes, which is
# all C=2 would add except repeats.  Until a driver's Kconfig is sourced
# (the "hooks" patches come late, as in erdma's series) its symbols are
# given on make's command line (no C file tests them) and its obj- line is
# in drivers/infiniband/{hw,sw}/Makefile during the build only (kbuild
# reaches an object through the Makefiles above it); from then on they are
# set in the config and the modules (eri.ko, eri_sim.ko) are built and go
# through modpost.  No vmlinux is built, so modpost's undefined-symbol
# warnings are allowed exactly for symbols Debian's 6.12 kernel or KUnit
# exports (Module.symvers of linux-headers-6.12) and none other.
# rdma-core is configured with cmake and built with ninja (through ccache)
# after each patch; its warnings fail the check too.
#
# checkpatch.pl ($ERI_CACHE/checkpatch, as scripts/checkpatch.sh) runs with
# --strict --no-tree and one type ignored, FILE_PATH_CHANGES ("added, moved
# or deleted file(s), does MAINTAINERS need updating?"): it fires for every
# patch that adds files without touching MAINTAINERS, and the series adds
# the MAINTAINERS entries in its last patch, as erdma's did.  Instead, every
# file the series adds must be covered by an F: line of that patch.
#
# Time, "check" of both on 2 cores (2026-12-03): warm, as the series step of
# a make check with nothing beside it, 176 s; while a make check ran VMs
# beside it (load 7; this at nice 19) 7.5 minutes wall, 4 minutes of CPU
# (Linux 6 minutes: compiling and sparse of every file, make's prepare
# steps per patch; rdma-core 1.1 minutes).
# Cold it adds about 12 minutes: the pristine repositories (untar and git
# add, 4 for Linux, 1 for rdma-core), modules_prepare (1) and rdma-core's
# first build into ccache (6).  "generate" alone: about 30 s.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ERI_CACHE=${ERI_CACHE:-/var/cache/eri}
CACHE=$ERI_CACHE/series
OUT=$top/build/series
LOGS=$OUT/logs
JOBS=${JOBS:-$(nproc)}
MANIFESTS=$top/packaging/series

log() { echo "series.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

mode=generate
case ${1:-} in
generate|check) mode=$1; shift ;;
-h|--help) sed -n '3,12s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
which=("$@")
[ ${#which[@]} -gt 0 ] || which=(linux rdma-core)
for w in "${which[@]}"; do
	case $w in linux|rdma-core) ;; *) die "unknown series '$w'" ;; esac
done

mkdir -p "$CACHE" "$LOGS"
exec 7>"$CACHE/.lock"
flock -n 7 || { log "waiting for another series.sh ($CACHE/.lock)"; flock 7; }

# The author and sign-off of every patch: this repository's identity.
NAME=$(git -C "$top" config user.name || echo "ERI developers")
EMAIL=$(git -C "$top" config user.email || echo "eri@invalid")
DATE=$(git -C "$top" log -1 --format=%cI 2>/dev/null || date -R)
export GIT_AUTHOR_NAME=$NAME GIT_AUTHOR_EMAIL=$EMAIL GIT_AUTHOR_DATE=$DATE
export GIT_COMMITTER_NAME=$NAME GIT_COMMITTER_EMAIL=$EMAIL GIT_COMMITTER_DATE=$DATE

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# ----------------------------------------------------------------- pristine trees
# pristine_repo DIR KEY DIRNAME TARBALL TAROPTS...: DIR is a git repository of
# TARBALL's top directory DIRNAME, committed on branch "pristine"; made again
# when KEY changes.
pristine_repo() {
	local dir=$1 key=$2 name=$3 tarball=$4 tmp
	shift 4
	if [ -d "$dir/.git" ] && [ "$(cat "$dir.key" 2>/dev/null)" = "$key" ]; then
		return 0
	fi
	log "making the pristine repository $dir from $tarball"
	rm -rf "$dir" "$dir.key"
	tmp=$(mktemp -d "$CACHE/.unpack.XXXXXX")
	nice -n 19 ionice -c3 tar -x "$@" -f "$tarball" -C "$tmp"
	[ -d "$tmp/$name" ] || die "$tarball has no top directory $name/"
	(cd "$tmp/$name" && git init -q -b pristine . &&
		nice -n 19 ionice -c3 git add -A -f . &&
		git commit -q -m "$key" && git checkout -q --detach) ||
		die "cannot commit $tarball"
	mv "$tmp/$name" "$dir"
	rmdir "$tmp"
	echo "$key" > "$dir.key"
}

LINUX=$CACHE/linux
linux_pristine() {
	local pkg=linux-source-6.12 ver tarball=/usr/src/linux-source-6.12.tar.xz
	ver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
	if [ -z "$ver" ] || [ ! -f "$tarball" ]; then
		log "installing $pkg"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" >&2 ||
			{ apt-get update -qq >&2 &&
			  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" >&2; } ||
			die "cannot install $pkg"
		ver=$(dpkg-query -W -f='${Version}' "$pkg")
	fi
	pristine_repo "$LINUX" "$pkg $ver" "$pkg" "$tarball" -J
}

RC=$CACHE/rdma-core
RC_VER=56.1
rdma_core_pristine() {
	local debver=56.1-1 sha=63ce7f2baa7242c2dbc76375dac957c420187dd27f8c5e148efc07971ee522a8
	local tarball=$ERI_CACHE/rdma-core/rdma-core_$RC_VER.orig.tar.gz
	"$top/scripts/debian-source.sh" rdma-core "$debver" "${tarball##*/}" "$sha" \
		"$ERI_CACHE/rdma-core" >&2 || die "cannot fetch rdma-core $debver's source"
	pristine_repo "$RC" "rdma-core $RC_VER $sha" "rdma-core-$RC_VER" "$tarball" -z
}

# ----------------------------------------------------------------- edits
# Each edit reads a file of the tree on stdin and writes it changed; it
# fails when the file is not as expected.
# The next entry of enum rdma_driver_id (kernel and rdma-core alike).
edit_driver_id() {
	awk '
		/^enum rdma_driver_id \{/ { in_enum = 1 }
		in_enum && /^\};/ { print "\tRDMA_DRIVER_ERI,"; in_enum = 0; done = 1 }
		{ print }
		END { if (!done) exit 1 }
	'
}
# insert_after REGEX LINE: LINE after the last line matching REGEX.
insert_after() {
	ANCHOR=$1 LINE=$2 awk '
		BEGIN { anchor = ENVIRON["ANCHOR"]; line = ENVIRON["LINE"] }
		{ lines[NR] = $0; if ($0 ~ anchor) last = NR }
		END {
			if (!last) exit 1
			for (i = 1; i <= NR; i++) { print lines[i]; if (i == last) print line }
		}
	'
}
# insert_before REGEX TEXT: TEXT (lines) before the first line matching REGEX.
insert_before() {
	ANCHOR=$1 TEXT=$2 awk '
		BEGIN { anchor = ENVIRON["ANCHOR"]; text = ENVIRON["TEXT"] }
		!done && $0 ~ anchor { print text; done = 1 }
		{ print }
		END { if (!done) exit 1 }
	'
}

# apply_edit NAME: the files one edit changes, as "PATH" lines, and the
# function for each (edit_file PATH < old > new) through edit_one.
edit_paths() {
	case $1 in
	driver-id) echo include/uapi/rdma/ib_user_ioctl_verbs.h ;;
	kconfig-eri) printf '%s\n' drivers/infiniband/Kconfig drivers/infiniband/hw/Makefile ;;
	kconfig-eri-sim) printf '%s\n' drivers/infiniband/Kconfig drivers/infiniband/sw/Makefile ;;
	doc-index) echo Documentation/infiniband/index.rst ;;
	maintainers) echo MAINTAINERS ;;
	rc-driver-id) echo kernel-headers/rdma/ib_user_ioctl_verbs.h ;;
	rc-kernel-headers) echo kernel-headers/CMakeLists.txt ;;
	rc-provider) printf '%s\n' CMakeLists.txt libibverbs/verbs.h ;;
	rc-maintainers) echo MAINTAINERS ;;
	rc-tests) echo tests/CMakeLists.txt ;;
	rc-packaging) printf '%s\n' debian/control debian/copyright \
		redhat/rdma-core.spec suse/rdma-core.spec ;;
	*) die "unknown edit '$1'" ;;
	esac
}
# shellcheck disable=SC2016 # make variables, written literally
edit_one() {
	case $1:$2 in
	driver-id:*|rc-driver-id:*) edit_driver_id ;;
	kconfig-eri:*/Kconfig)
		insert_after '^source "drivers/infiniband/hw/erdma/Kconfig"$' \
			'source "drivers/infiniband/hw/eri/Kconfig"' ;;
	kconfig-eri:*/Makefile)
		insert_after '^obj-\$\(CONFIG_' 'obj-$(CONFIG_INFINIBAND_ERI)		+= eri/' ;;
	kconfig-eri-sim:*/Kconfig)
		insert_after '^source "drivers/infiniband/sw/siw/Kconfig"$' \
			'source "drivers/infiniband/sw/eri_sim/Kconfig"' ;;
	kconfig-eri-sim:*/Makefile)
		insert_after '^obj-\$\(CONFIG_' 'obj-$(CONFIG_INFINIBAND_ERI_SIM)	+= eri_sim/' ;;
	doc-index:*) insert_after '^   core_locking$' '   eri' ;;
	maintainers:*)
		# The entries of MAINTAINERS.eri: from its first entry name on.
		insert_before '^INFINIBAND SUBSYSTEM$' \
			"$(sed -n '/^[A-Z][A-Z0-9 ()_-]*$/,$p' "$top/MAINTAINERS.eri")"$'\n' ;;
	# rdma-core: beside erdma, in its sorted lists.
	rc-kernel-headers:*) sed 's|^\( *\)rdma/erdma-abi\.h$|&\n\1rdma/eri-abi.h|' ;;
	rc-provider:*/verbs.h)
		insert_after '^extern const struct verbs_device_ops verbs_provider_erdma;$' \
			'extern const struct verbs_device_ops verbs_provider_eri;' ;;
	rc-provider:*) insert_after '^add_subdirectory\(providers/erdma\)$' \
			'add_subdirectory(providers/eri)' ;;
	rc-packaging:*/control)
		insert_after '^  - erdma: ' '  - eri: Elastic RDMA Interface (ERI) devices' ;;
	rc-packaging:*/copyright)
		insert_before '^Files: providers/hfi1verbs/' "$(printf '%s\n' \
			'Files: providers/eri/*' 'Copyright: 2026, the ERI authors' \
			'License: BSD-MIT or GPL-2' '')" ;;
	rc-packaging:redhat/*)
		insert_after '^Obsoletes: liberdma ' "$(printf '%s\n' \
			'Provides: liberi = %{version}-%{release}' \
			'Obsoletes: liberi < %{version}-%{release}')" |
			insert_after '^- liberdma: ' '- liberi: Elastic RDMA Interface (ERI) devices' ;;
	rc-packaging:suse/*)
		insert_after '^- libefa: ' '- liberi: Elastic RDMA Interface (ERI) devices' ;;
	rc-tests:*) insert_after '^  test_efadv\.py$' '  test_eri.py' ;;
	rc-maintainers:*)
		insert_before '^HF1 USERSPACE PROVIDER' "$(printf '%s\n' \
			'ERI USERSPACE PROVIDER (for eri.ko)' \
			"$(sed -n 's/^M:/M:/p' "$top/MAINTAINERS.eri" | head -n1)" \
			'S:	Supported' 'F:	providers/eri/' '')" ;;
	esac
}

# filter_file PATH: a repository file as the series carries it.  The
# drivers' Makefiles lose their out-of-tree include path (ERI_ROOT).
filter_file() {
	case $1 in
	drivers/infiniband/*/Makefile)
		awk '
			/^# Out of tree/ { skip = 1 }
			skip && /^endif$/ { skip = 0; drop_blank = 1; next }
			skip { next }
			drop_blank && /^$/ { drop_blank = 0; next }
			{ drop_blank = 0; print }
		' "$top/$1" ;;
	*) cat "$top/$1" ;;
	esac
}

# ----------------------------------------------------------------- generate
# generate NAME REPO ROOTS...: the series of packaging/series/NAME.manifest
# on REPO's branch pristine, into build/series/NAME/.  ROOTS are the paths
# of this repository the series must carry all of.  A manifest line
# "+ SRC => DST" puts SRC at DST in the tree; "- PATH" leaves a file under
# the roots out on purpose (say why in a comment).
generate() {
	local name=$1 repo=$2 manifest=$MANIFESTS/$1.manifest out=$OUT/$1
	shift 2
	local -a subjects=() bodies=() specs=() excluded=()
	local line n=-1 spec
	[ -f "$manifest" ] || die "$manifest missing"
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		"#"*) continue ;;
		"- "*) excluded+=("${line#- }"); continue ;;
		"== "*) n=$((n + 1)); subjects[n]=${line#== }; bodies[n]=; specs[n]= ;;
		"+ "*|"! "*) [ "$n" -ge 0 ] || die "$manifest: '$line' before the first patch"
			specs[n]+=$line$'\n' ;;
		*) [ "$n" -ge 0 ] || { [ -z "$line" ] && continue; die "$manifest: text before the first patch"; }
			bodies[n]+=$line$'\n' ;;
		esac
	done < "$manifest"

	# Every file under the roots in exactly one patch, and nothing else.
	local -A seen=()
	local src f
	for src in "${excluded[@]}"; do seen[$src]=excluded; done
	for spec in "${specs[@]}"; do
		while IFS= read -r line; do
			case $line in "+ "*) ;; *) continue ;; esac
			src=${line#+ }; src=${src%% => *}
			[ -f "$top/$src" ] || die "$manifest: $src does not exist"
			[ -z "${seen[$src]:-}" ] || die "$manifest: $src is in two patches"
			seen[$src]=1
		done <<<"$spec"
	done
	while IFS= read -r f; do
		[ -n "${seen[$f]:-}" ] || die "$f is in no patch of $manifest"
	done < <(git -C "$top" ls-files -- "$@")

	local base parent tree commit blob dst i
	base=$(git -C "$repo" rev-parse pristine)
	export GIT_INDEX_FILE=$TMP/index-$name
	git -C "$repo" read-tree "$base"
	parent=$base
	for i in "${!subjects[@]}"; do
		while IFS= read -r line; do
			case $line in
			"+ "*)
				src=${line#+ }; dst=$src
				case $src in *" => "*) dst=${src#* => }; src=${src%% => *} ;; esac
				filter_file "$src" > "$TMP/file"
				blob=$(git -C "$repo" hash-object -w "$TMP/file")
				git -C "$repo" update-index --add --cacheinfo "100644,$blob,$dst" ;;
			"! "*)
				while IFS= read -r dst; do
					git -C "$repo" cat-file blob ":$dst" > "$TMP/old"
					edit_one "${line#! }" "$dst" < "$TMP/old" > "$TMP/file" ||
						die "edit ${line#! } does not apply to $dst"
					! cmp -s "$TMP/old" "$TMP/file" || die "edit ${line#! } changed nothing in $dst"
					blob=$(git -C "$repo" hash-object -w "$TMP/file")
					git -C "$repo" update-index --cacheinfo "100644,$blob,$dst"
				done < <(edit_paths "${line#! }") ;;
			esac
		done <<<"${specs[i]}"
		tree=$(git -C "$repo" write-tree)
		{
			echo "${subjects[i]}"
			echo
			# the body without leading and trailing blank lines
			printf '%s' "${bodies[i]}" | sed -e '/./,$!d' | sed -e ':a' -e '/^\n*$/{$d;N;ba' -e '}'
			echo
			echo "Signed-off-by: $NAME <$EMAIL>"
		} > "$TMP/msg"
		commit=$(git -C "$repo" commit-tree "$tree" -p "$parent" -F "$TMP/msg")
		parent=$commit
	done
	unset GIT_INDEX_FILE
	git -C "$repo" update-ref "refs/heads/series" "$parent"
	git -C "$repo" gc --auto --quiet

	rm -rf "$out"
	git -C "$repo" format-patch -q --cover-letter --no-signature -o "$out" "$base..$parent"
	cover "$out"/0000-cover-letter.patch "$MANIFESTS/cover-letter-$name.txt"
	log "$name: $(find "$out" -name '*.patch' | wc -l) files (cover letter included) in ${out#"$top"/}"
}

# cover FILE TEXT: format-patch's cover letter with TEXT's first line as
# subject and the rest (from its first non-blank line) as its blurb.
cover() {
	local subject blurb
	subject=$(sed -n '/^[^#]/{p;q}' "$2")
	blurb=$(sed '/^#/d' "$2" | sed '1d' | sed '/./,$!d')
	SUBJ=$subject BLURB=$blurb awk '
		{ sub(/\*\*\* SUBJECT HERE \*\*\*/, ENVIRON["SUBJ"]) }
		/^\*\*\* BLURB HERE \*\*\*$/ { print ENVIRON["BLURB"]; next }
		{ print }
	' "$1" > "$1.tmp"
	mv "$1.tmp" "$1"
}

# ----------------------------------------------------------------- check
CP=$ERI_CACHE/checkpatch/checkpatch.pl
# checkpatch_one PATCH LOG
checkpatch_one() {
	local outp
	outp=$(perl "$CP" --strict --no-tree --no-summary --terse --show-types --no-color \
		--ignore FILE_PATH_CHANGES "$1" 2>&1 || true)
	printf '%s\n' "$outp" >> "$2"
	if grep -Eq '(ERROR|WARNING|CHECK):' <<<"$outp"; then
		printf '%s\n' "$outp" | head -n 20 >&2
		return 1
	fi
}

# reset_tree REPO: its work tree at branch pristine, nothing else in it,
# on a detached HEAD (git am must not move the branch).
reset_tree() {
	git -C "$1" checkout -q -f --detach pristine
	git -C "$1" reset -q --hard pristine
	git -C "$1" clean -q -fdx
}

# apply_patch REPO PATCH
apply_patch() {
	git -C "$1" am -q --whitespace=error-all "$2" ||
		{ git -C "$1" am --abort || true; return 1; }
}

# --- Linux
LB=$CACHE/linux-build
linux_config() {
	local frag=$MANIFESTS/linux.config key
	key=$( { cat "$LINUX.key"; cat "$frag"; } | sha256sum | cut -c1-16)
	if [ "$(cat "$LB/.eri-key" 2>/dev/null)" = "$key" ]; then
		return 0
	fi
	log "configuring and preparing $LB (cold: a few minutes)"
	rm -rf "$LB"
	mkdir -p "$LB"
	nice -n 19 make -s -C "$LINUX" O="$LB" KCONFIG_ALLCONFIG="$frag" allnoconfig >&2
	local l sym
	while IFS= read -r l; do
		case $l in CONFIG_*=*) sym=${l%%=*} ;; *) continue ;; esac
		grep -qx "$l" "$LB/.config" || die "$l did not take effect in $LB/.config"
		: "$sym"
	done < "$frag"
	nice -n 19 make -s -C "$LINUX" O="$LB" -j"$JOBS" modules_prepare >&2
	echo "$key" > "$LB/.eri-key"
}

# The symbols modpost may find undefined: Debian 6.12's exports and KUnit's.
allowed_syms() {
	local symvers
	symvers=$(compgen -G '/usr/src/linux-headers-6.12*-amd64/Module.symvers' | head -n1 || true)
	[ -n "$symvers" ] || die "no Module.symvers of Debian's linux-headers-6.12 (scripts/setup.sh installs it)"
	{
		cut -f2 "$symvers"
		grep -rhoE 'EXPORT_SYMBOL(_GPL)?\([a-z0-9_]+\)' "$LINUX/lib/kunit" |
			sed -E 's/.*\(([a-z0-9_]+)\)/\1/'
	} | sort -u > "$TMP/allowed-syms"
}

# kbuild_check LOG [KO...]: no compiler, sparse or modpost finding in LOG
# other than undefined symbols, and none in the KOs but those allowed.
kbuild_check() {
	local bad
	bad=$(grep -E 'warning:|error:|WARNING:' "$1" |
		grep -vE '^WARNING: modpost: "[A-Za-z0-9_.]+" \[[^]]+\] undefined!$' |
		grep -vE '^WARNING: modpost: suppressed [0-9]+ unresolved symbol warnings' |
		grep -vE '^WARNING: vmlinux\.o is missing\.$' || true)
	# modpost stops listing them after ten: nm lists them all.
	local sym ko
	shift
	for ko in "$@"; do
		nm --defined-only "$LB/$ko" | awk '{ print $3 }' >> "$TMP/allowed-syms"
	done
	for ko in "$@"; do
		while IFS= read -r sym; do
			grep -qxF "$sym" "$TMP/allowed-syms" ||
				bad+=$'\n'"$ko: undefined, and exported by neither Debian's 6.12 nor KUnit: $sym"
		done < <(nm -u "$LB/$ko" | awk '{ print $2 }')
	done
	bad=$(sed '/^$/d' <<<"$bad")
	[ -z "$bad" ] || { printf '%s\n' "$bad" | head -n 20 >&2; return 1; }
}

# kconfig_on SYM...: set SYMs (=m for drivers, =y for tests) in $LB/.config.
kconfig_on() {
	local s v changed=0
	for s in "$@"; do
		case $s in *KUNIT_TEST) v=y ;; *) v=m ;; esac
		grep -qx "CONFIG_$s=$v" "$LB/.config" && continue
		sed -i "/^CONFIG_$s=/d; /^# CONFIG_$s is not set/d" "$LB/.config"
		echo "CONFIG_$s=$v" >> "$LB/.config"
		changed=1
	done
	[ "$changed" = 0 ] && return 0
	make -s -C "$LINUX" O="$LB" olddefconfig >&2
	for s in "$@"; do
		case $s in *KUNIT_TEST) v=y ;; *) v=m ;; esac
		grep -qx "CONFIG_$s=$v" "$LB/.config" || die "CONFIG_$s=$v did not take effect"
	done
}

build_linux_patch() {
	local log=$1 ib=$LINUX/drivers/infiniband vars=() targets=() kos=() f
	# A driver's symbols: in the config once its Kconfig is sourced, else
	# on make's command line.
	if grep -q '^source "drivers/infiniband/hw/eri/Kconfig"' "$ib/Kconfig"; then
		kconfig_on INFINIBAND_ERI INFINIBAND_ERI_KUNIT_TEST
		kos+=(drivers/infiniband/hw/eri/eri.ko)
	else
		vars+=(CONFIG_INFINIBAND_ERI=m CONFIG_INFINIBAND_ERI_KUNIT_TEST=y)
	fi
	if grep -q '^source "drivers/infiniband/sw/eri_sim/Kconfig"' "$ib/Kconfig"; then
		kconfig_on INFINIBAND_ERI_SIM INFINIBAND_ERI_SIM_KUNIT_TEST
		kos+=(drivers/infiniband/sw/eri_sim/eri_sim.ko)
	else
		vars+=(CONFIG_INFINIBAND_ERI_SIM=m CONFIG_INFINIBAND_ERI_SIM_KUNIT_TEST=y)
	fi
	while IFS= read -r f; do
		targets+=("${f%.c}.o")
	done < <(cd "$LINUX" && find drivers/infiniband/hw/eri drivers/infiniband/sw/eri_sim \
		-name '*.c' 2>/dev/null | sort)
	[ ${#targets[@]} -gt 0 ] || [ ${#kos[@]} -gt 0 ] || { echo "(nothing to compile)" >> "$log"; return 0; }
	# A patch that changes nothing a compiler reads (documentation,
	# MAINTAINERS) leaves the objects as they were: a make that would do
	# nothing costs its prepare steps, 5 to 15 s.
	if ! git -C "$LINUX" diff --name-only HEAD~1 HEAD | grep -qE '^(drivers|include)/'; then
		echo "(nothing compiled changed)" >> "$log"
		return 0
	fi
	# kbuild reaches a single object through the Makefiles above it: until
	# the hooks patch adds the driver's line to drivers/infiniband/hw or
	# sw/Makefile, the same line is there during the build only.
	local descend=() rc=0
	# shellcheck disable=SC2016 # make variables, written literally
	grep -q '^obj-$(CONFIG_INFINIBAND_ERI)[[:space:]]' "$ib/hw/Makefile" || {
		echo 'obj-$(CONFIG_INFINIBAND_ERI) += eri/' >> "$ib/hw/Makefile"
		descend+=(drivers/infiniband/hw/Makefile); }
	# shellcheck disable=SC2016
	grep -q '^obj-$(CONFIG_INFINIBAND_ERI_SIM)[[:space:]]' "$ib/sw/Makefile" || {
		echo 'obj-$(CONFIG_INFINIBAND_ERI_SIM) += eri_sim/' >> "$ib/sw/Makefile"
		descend+=(drivers/infiniband/sw/Makefile); }
	nice -n 19 make -C "$LINUX" O="$LB" -j"$JOBS" W=1 C=1 KBUILD_MODPOST_WARN=1 "${vars[@]}" \
		"${targets[@]}" "${kos[@]}" >> "$log" 2>&1 || rc=$?
	[ ${#descend[@]} -eq 0 ] || git -C "$LINUX" checkout -q -- "${descend[@]}"
	[ "$rc" = 0 ] || { tail -n 30 "$log" >&2; return 1; }
	for f in "${kos[@]}"; do
		[ -f "$LB/$f" ] || { echo "$f was not built" >&2; return 1; }
	done
	kbuild_check "$log" "${kos[@]}"
}

# maintainers_cover: every file the Linux series adds is under an F: line
# of its MAINTAINERS entries.
maintainers_cover() {
	local f pat ok
	mapfile -t pats < <(sed -n 's/^F:[[:space:]]*//p' "$top/MAINTAINERS.eri")
	while IFS= read -r f; do
		ok=0
		for pat in "${pats[@]}"; do
			case $pat in
			*/) [[ $f == "$pat"* ]] && ok=1 ;;
			*) [ "$f" = "$pat" ] && ok=1 ;;
			esac
		done
		[ "$ok" = 1 ] || { log "$f is under no F: line of MAINTAINERS.eri"; return 1; }
	done < <(git -C "$LINUX" diff --name-only --diff-filter=A pristine series)
}

check_series() {
	local name=$1 repo=$2 p n=0 t0 log
	reset_tree "$repo"
	for p in "$OUT/$name"/[0-9]*.patch; do
		case $p in */0000-cover-letter.patch) continue ;; esac
		n=$((n + 1))
		t0=$SECONDS
		log=$LOGS/$name-$(basename "$p" .patch).log
		: > "$log"
		log "$name: $(basename "$p")"
		apply_patch "$repo" "$p" >> "$log" 2>&1 || die "$p does not apply (see $log)"
		[ "$name" = rdma-core ] || checkpatch_one "$p" "$log" ||
			die "checkpatch.pl --strict finds the above in $p"
		"build_${name//-/_}_patch" "$log" || die "the build after $p fails or warns (see $log)"
		log "$name: $(basename "$p"): applied, checked and built ($((SECONDS - t0)) s)"
	done
	[ "$(git -C "$repo" rev-parse "HEAD^{tree}")" = "$(git -C "$repo" rev-parse "series^{tree}")" ] ||
		die "$name: the applied series differs from the generated one"
	log "$name: $n patches applied, checked and built"
}

# --- rdma-core
RB=$CACHE/rdma-core-build
# Every patch rewrites files that all of rdma-core includes (the kernel
# headers, libibverbs/verbs.h): ccache, keyed by content, makes the
# recompiles of a warm run cheap without trusting mtimes.
export CCACHE_DIR=$CACHE/ccache
build_rdma_core_patch() {
	local log=$1
	if [ ! -f "$RB/build.ninja" ]; then
		mkdir -p "$RB"
		(cd "$RB" && nice -n 19 cmake -GNinja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
			-DCMAKE_C_COMPILER_LAUNCHER=ccache \
			-DNO_MAN_PAGES=1 -DNO_PYVERBS=1 "$RC") >> "$log" 2>&1 ||
			{ tail -n 30 "$log" >&2; return 1; }
		echo 1 > "$RB/.eri-ccache"
	fi
	nice -n 19 ninja -C "$RB" -j"$JOBS" >> "$log" 2>&1 || { tail -n 30 "$log" >&2; return 1; }
	if grep -E 'warning:' "$log" | grep -q .; then
		grep -E 'warning:' "$log" | head -n 20 >&2
		return 1
	fi
}

# ----------------------------------------------------------------- main
for w in "${which[@]}"; do
	case $w in
	linux)
		linux_pristine
		generate linux "$LINUX" drivers/infiniband/hw/eri drivers/infiniband/sw/eri_sim \
			include/linux/eri include/uapi/rdma/eri-abi.h \
			Documentation/infiniband/eri.rst Documentation/ABI/testing/sysfs-class-infiniband-eri
		if [ "$mode" = check ]; then
			[ -f "$CP" ] || die "$CP missing (run scripts/setup.sh)"
			maintainers_cover
			linux_config
			allowed_syms
			check_series linux "$LINUX"
		fi ;;
	rdma-core)
		rdma_core_pristine
		generate rdma-core "$RC" rdma-core/providers/eri rdma-core/tests \
			include/uapi/rdma/eri-abi.h
		if [ "$mode" = check ]; then
			# rdma-core.sh's build dependencies, and ccache
			"$top/scripts/debian-packages.sh" cmake ninja-build pkg-config gcc \
				libnl-3-dev libnl-route-3-dev libudev-dev python3 ccache >&2 ||
				die "cannot install rdma-core's build dependencies"
			[ "$(cat "$RB/.eri-ccache" 2>/dev/null)" = 1 ] || rm -rf "$RB"
			check_series rdma-core "$RC"
		fi ;;
	esac
done
