#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# dkms-make.sh KDIR: eri.ko and eri_sim.ko for the kernel whose build tree
# is KDIR, in the directory this script is in (dkms's build directory): the
# sources adapted to that kernel by the compat layer, as
# scripts/build-modules.sh adapts them (compat/eri-compat.sh: files it must
# edit are edited in place, its header is force-included through
# drivers/infiniband/Kbuild), then Kbuild.  dkms.conf's MAKE[0].
set -euo pipefail
kdir=$1
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
for f in drivers/infiniband/hw/eri/*.[ch] drivers/infiniband/sw/eri_sim/*.[ch]; do
	bash compat/eri-compat.sh place "$kdir" "$f" "$f"
done
bash compat/eri-compat.sh kbuild "$kdir" > drivers/infiniband/Kbuild
exec make -C "$kdir" M="$here" ERI_ROOT="$here" \
	CONFIG_INFINIBAND_ERI=m CONFIG_INFINIBAND_ERI_SIM=m modules
