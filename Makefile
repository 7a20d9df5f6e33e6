# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# ERI top-level Makefile.  See README.md.
#
#   make                 build eri.ko and eri_sim.ko for Debian's 6.1 kernel
#   make KFLAVOUR=6.12   ... for another installed Debian kernel flavour
#   make KDIR=/path      ... against any kernel build tree
#   make check           everything CI runs (see scripts/check.sh)
#   make demo            boot a VM and show ibv_devinfo -v for eri0
#   make kunit           run the KUnit suites (kunit.py, Debian's 6.12 source;
#                        KUNIT_VERSIONS="6.12 6.1 debug" picks where)
#   make bench           ERI vs rdma_rxe, siw and TCP in one VM (QUICK=1: under ten minutes)
#   make install         the modules into /lib/modules/<release>/updates/eri and
#                        depmod, rdma-core 56.1 with liberi as Debian packages
#                        (replacing Debian 12's 44) and eri-utils (DESTDIR:
#                        unpacked there instead); make uninstall undoes it
#   make deb             eri-dkms, eri-utils, eri-modules-<release> and
#                        rdma-core 56.1-1+eri1 with liberi, into build/deb/
#   make series          the upstream patch series, made from this tree by
#                        packaging/series/*.manifest: build/series/linux/
#                        (against linux-source-6.12) and
#                        build/series/rdma-core/ (against rdma-core 56.1)
#                        (scripts/series.sh; make check applies and builds them)
#
# Slow artefacts (kernel images, rdma-core) live in $(ERI_CACHE).

ERI_CACHE ?= /var/cache/eri
KFLAVOUR ?= 6.1
export ERI_CACHE

ifeq ($(KDIR),)
KVER := $(shell scripts/kernel.sh version $(KFLAVOUR) 2>/dev/null)
KDIR := /lib/modules/$(KVER)/build
else
KVER := $(shell $(MAKE) -s -C $(KDIR) kernelrelease 2>/dev/null)
endif
BUILD := build/$(KVER)

.PHONY: all modules setup rdma-core check demo clean kunit bench install uninstall deb series

all: modules

modules:
	scripts/build-modules.sh $(KDIR) $(BUILD) $(KBUILD_EXTRA)

setup:
	scripts/setup.sh

rdma-core: setup
	scripts/rdma-core.sh

check:
	scripts/check.sh

demo:
	scripts/demo.sh

kunit:
	scripts/kunit.sh $(KUNIT_VERSIONS)

bench: setup modules
	scripts/bench.sh $(if $(filter 1 y yes true,$(QUICK)),--quick) --kernel $(KFLAVOUR) $(BENCH_ARGS)

install: modules
	scripts/install.sh install $(KVER) $(BUILD)

uninstall:
	scripts/install.sh uninstall $(KVER) $(BUILD)

deb: modules
	scripts/deb.sh --modules $(KVER)=$(BUILD) build/deb

series:
	scripts/series.sh generate

clean:
	rm -rf build
