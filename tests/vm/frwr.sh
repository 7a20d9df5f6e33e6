#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Fast-registration MRs, in the guest: tests/kmod/eri_frwr_test.ko runs its
# checks between eri0 (requester) and eri1 (responder) in module init (see
# kmod_lib.sh for the topology).
# make check runs it on 6.1 and 6.12 (6.1-cloud is 6.1 with fewer drivers).
# check-flavours: 6.1 6.12
set -u
. "$(dirname "$0")/kmod_lib.sh"

run_kmod_test eri_frwr_test eri_fr 40
finish
