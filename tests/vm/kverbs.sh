#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Kernel verbs, in the guest: tests/kmod/eri_kverbs_test.ko runs its checks
# between eri0 and eri1 in module init (see kmod_lib.sh for the topology).
set -u
. "$(dirname "$0")/kmod_lib.sh"

run_kmod_test eri_kverbs_test eri_kv 40
finish
