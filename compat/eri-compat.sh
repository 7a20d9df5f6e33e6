#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# eri-compat.sh cflags KDIR        the compiler flags of ERI's compat layer
# eri-compat.sh source KDIR FILE   FILE as it is compiled against KDIR
# eri-compat.sh place KDIR FILE DST
#                                  DST made FILE as compiled against KDIR:
#                                  a link to FILE where the layer leaves it
#                                  as it is, else a copy (DST may be FILE:
#                                  edited in place); DST's timestamp is kept
#                                  when its content is already that
# eri-compat.sh kbuild KDIR        drivers/infiniband/Kbuild of an
#                                  out-of-tree build: the flags, the drivers
# eri-compat.sh driver-id FILE     add RDMA_DRIVER_ERI to the enum
#                                  rdma_driver_id of FILE, a copy of
#                                  ib_user_ioctl_verbs.h (idempotent)
#
# ERI's kernel sources are written for Linux 6.12 alone, as the upstream
# series carries them.  Out-of-tree builds for older kernels (Debian's 6.1)
# go through this layer, and only they: scripts/build-modules.sh, the
# eri-dkms package's build and scripts/kernel-tree.sh (6.1) call it.  It has
# two parts:
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

usage() { sed -n '4,16s/^# \{0,1\}//p' "$0" >&2; exit 2; }
[ $# -ge 2 ] || usage
mode=$1 kdir=$2

# ERI's entry of enum rdma_driver_id, the driver id ib_core reports and
# rdma-core matches liberi by.  The upstream series adds RDMA_DRIVER_ERI as
# the next entry of the enum; out of tree it is 64, far above the densely
# allocated entries (Linux 6.12 ends at 20), so that it cannot collide with
# a driver merged meanwhile.  The same value is in eri_compat.h.  The entry
# is skipped where an older eri-abi.h defined RDMA_DRIVER_ERI itself.
if [ "$mode" = driver-id ]; then
	f=$kdir
	grep -q RDMA_DRIVER_ERI "$f" && exit 0
	awk '
		/^enum rdma_driver_id \{/ { in_enum = 1 }
		in_enum && /^\};/ {
			print "#ifndef RDMA_DRIVER_ERI"
			print "\tRDMA_DRIVER_ERI = 64,\t/* out of tree: see ERI'"'"'s compat/ */"
			print "#endif"
			in_enum = 0
			done = 1
		}
		{ print }
		END { if (!done) exit 1 }
	' "$f" > "$f.eri-tmp" || { rm -f "$f.eri-tmp"; echo "eri-compat.sh: no enum rdma_driver_id in $f" >&2; exit 1; }
	mv "$f.eri-tmp" "$f"
	exit 0
fi

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

# cflags: the compiler flags of the layer for this kernel.
cflags() {
	local flags=(-include "$compat/eri_compat.h")

	create_cq_udata && flags+=(-DERI_COMPAT_CREATE_CQ_UDATA)
	# Linux 6.2 names the FLUSH access rights.
	has IB_ACCESS_FLUSH_GLOBAL rdma/ib_verbs.h || flags+=(-DERI_COMPAT_NO_ACCESS_FLUSH)
	# Linux 6.12 lets ULPs (net/smc) ask the core for a port's netdev.
	has ib_device_get_netdev rdma/ib_verbs.h || flags+=(-DERI_COMPAT_GET_NETDEV)
	# Linux 6.3 writes a VMA's flags through vm_flags_mod() and friends.
	has 'void vm_flags_mod' linux/mm.h || flags+=(-DERI_COMPAT_NO_VM_FLAGS_MOD)
	# The kernel's enum rdma_driver_id has no entry for ERI yet.
	has RDMA_DRIVER_ERI uapi/rdma/ib_user_ioctl_verbs.h || flags+=(-DERI_COMPAT_NO_DRIVER_ID)
	# Linux 6.6 marks slow KUnit cases.
	has KUNIT_CASE_SLOW kunit/test.h || flags+=(-DERI_COMPAT_NO_KUNIT_CASE_SLOW)
	# Linux 6.11 names the cast from a route's dst_entry to its rtable.
	has 'define dst_rtable' net/route.h || flags+=(-DERI_COMPAT_NO_DST_RTABLE)
	echo "${flags[*]}"
}

# adapt FILE: FILE as it is compiled against this kernel.
adapt() {
	local file=$1 edits=()

	# Linux 6.5 lets drivers add attributes to "rdma resource show srq".
	if [ "$(basename "$file")" = eri_main.c ] && ! has fill_res_srq_entry rdma/ib_verbs.h; then
		edits+=(-e '/^\t\.fill_res_srq_entry = /d')
	fi
	if [ ${#edits[@]} -eq 0 ]; then
		cat "$file"
	else
		sed "${edits[@]}" "$file"
	fi
}

case $mode in
cflags)
	cflags
	;;
source)
	[ $# -eq 3 ] || usage
	adapt "$3"
	;;
place)
	[ $# -eq 4 ] || usage
	file=$3 dst=$4
	adapt "$file" > "$dst.compat"
	if cmp -s "$file" "$dst.compat" && [ "$file" -ef "$dst" ]; then
		rm -f "$dst.compat"
	elif cmp -s "$file" "$dst.compat"; then
		rm -f "$dst.compat"
		ln -sfn "$file" "$dst"
	elif [ ! -L "$dst" ] && cmp -s "$dst" "$dst.compat"; then
		# Unchanged since the last build: keep its timestamp.
		rm -f "$dst.compat"
	else
		rm -f "$dst"
		mv "$dst.compat" "$dst"
	fi
	;;
kbuild)
	echo "subdir-ccflags-y += $(cflags)"
	echo "obj-m += hw/eri/ sw/eri_sim/"
	;;
*)
	usage
	;;
esac
