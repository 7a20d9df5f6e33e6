#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# check-layering.sh: the driver and the simulated device share nothing but
# the device-ABI headers (include/linux/eri/).  The simulator includes no
# driver header, and the driver neither includes nor calls anything of the
# simulator's, its wire protocol (eri_wire_defs.h) included.
set -euo pipefail
cd "$(dirname "$0")/.."
bad=0

# Local includes of the simulator must be its own headers.
while IFS=: read -r file line text; do
	hdr=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"$text")
	if [ ! -e "drivers/infiniband/sw/eri_sim/$hdr" ]; then
		echo "$file:$line: includes a header that is not the simulator's: $hdr"
		bad=1
	fi
done < <(grep -Hn '#include "' drivers/infiniband/sw/eri_sim/*.[ch] || true)

# Neither side reaches into the other's directory.
if grep -Hn 'hw/eri\|eri_verbs\.h\|eri_com\.h\|"eri\.h"' drivers/infiniband/sw/eri_sim/*.[ch] |
	grep -vE '^[^:]+:[0-9]+:\s*(/?\*|//)'; then
	echo "the simulator refers to the driver"
	bad=1
fi
# (Comments may name it.)
if grep -Hn 'eri_sim' drivers/infiniband/hw/eri/*.[ch] |
	grep -vE '^[^:]+:[0-9]+:\s*(/?\*|//)' |
	grep -v 'eri_aux\.c:.*"eri_sim\." ERI_AUX_DEV_NAME'; then
	echo "the driver refers to the simulator (only the auxiliary id in eri_aux.c may)"
	bad=1
fi
# The wire protocol is between devices; the device interface holds none of it.
if grep -Hn 'eri_wire_defs\.h' drivers/infiniband/hw/eri/*.[ch] include/linux/eri/*.h |
	grep -vE '^[^:]+:[0-9]+:\s*(/?\*|//)'; then
	echo "the driver or the device interface uses the wire protocol"
	bad=1
fi
if [ -e include/linux/eri/eri_wire_defs.h ]; then
	echo "include/linux/eri/eri_wire_defs.h: the wire protocol is the simulator's"
	bad=1
fi
[ "$bad" = 0 ] && echo "layering: ok"
exit "$bad"
