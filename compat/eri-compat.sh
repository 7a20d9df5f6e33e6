#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# eri-compat.sh cflags KDIR        the compiler flags of ERI's compat layer
# eri-compat.sh source KDIR FILE   FILE as it is compiled against KDIR
#
# ERI's kernel sources are written for Linux 6.12 alone, as the upstream
# series carries them.  Out-of-tree builds for older kernels (Debian's 6.1)
# go through this layer, and only they: scripts/build-modules.sh and
# scripts/kernel-tree.sh (6.1) call it.  It has two parts:
#
# - eri_compat.h, force-included into every file (-include), supplies what
#   an older kernel lacks as inline functions and macros.  Which parts apply
#   is decided here, by looking for each feature in the kernel's headers
#   (Debian backports features to its stable kernels; a version number
#   would not tell), and passed as -DERI_COMPAT_* flags.
# - What the preprocessor cannot do, such as dropping an initializer of an
#   ib_device_ops member the kernel does not have, is done by editing the
#   source as it is copied into the build tree ("source" below).
#
# KDIR is a kernel build tree (/lib/modules/RELEASE/build) or source tree.
set -euo pipefail

compat=$(cd "$(dirname "$0")" && pwd)

usage() { sed -n '3,5s/^# \{0,1\}//p' "$0" >&2; exit 2; }
[ $# -ge 2 ] || usage
mode=$1 kdir=$2

# The kernel's source tree: KDIR itself, or what its Makefile includes (a
# Debian headers package or an O= build directory).
srctree=$kdir
if [ ! -f "$srctree/include/rdma/ib_verbs.h" ]; then
	srctree=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' "$kdir/Makefile" | head -n1)
fi
[ -f "$srctree/include/rdma/ib_verbs.h" ] ||
	{ echo "eri-compat.sh: no include/rdma/ib_verbs.h in $kdir or its source tree" >&2; exit 1; }
verbs=$srctree/include/rdma/ib_verbs.h

# has PATTERN FILE: the kernel's FILE (under include/) contains PATTERN.
has() { grep -q -e "$1" "$srctree/include/$2"; }

# Linux 6.11 passes create_cq the uverbs attribute bundle instead of udata.
create_cq_udata() { ! grep -A1 '(\*create_cq)' "$verbs" | grep -q uverbs_attr_bundle; }

case $mode in
cflags)
	flags=(-include "$compat/eri_compat.h")
	create_cq_udata && flags+=(-DERI_COMPAT_CREATE_CQ_UDATA)
	# Linux 6.2 names the FLUSH access rights.
	has IB_ACCESS_FLUSH_GLOBAL rdma/ib_verbs.h || flags+=(-DERI_COMPAT_NO_ACCESS_FLUSH)
	# Linux 6.12 lets ULPs (net/smc) ask the core for a port's netdev.
	has ib_device_get_netdev rdma/ib_verbs.h || flags+=(-DERI_COMPAT_GET_NETDEV)
	# Linux 6.3 writes a VMA's flags through vm_flags_mod() and friends.
	has 'void vm_flags_mod' linux/mm.h || flags+=(-DERI_COMPAT_NO_VM_FLAGS_MOD)
	# Linux 6.6 marks slow KUnit cases.
	has KUNIT_CASE_SLOW kunit/test.h || flags+=(-DERI_COMPAT_NO_KUNIT_CASE_SLOW)
	echo "${flags[*]}"
	;;
source)
	[ $# -eq 3 ] || usage
	file=$3
	edits=()
	# Linux 6.5 lets drivers add attributes to "rdma resource show srq".
	if [ "$(basename "$file")" = eri_main.c ] && ! has fill_res_srq_entry rdma/ib_verbs.h; then
		edits+=(-e '/^\t\.fill_res_srq_entry = /d')
	fi
	if [ ${#edits[@]} -eq 0 ]; then
		cat "$file"
	else
		sed "${edits[@]}" "$file"
	fi
	;;
*)
	usage
	;;
esac
