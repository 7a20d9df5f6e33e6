// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_mr_test: memory region registration through liberi and the device.
 *
 * Registers regions of odd sizes and offsets, a large one, and one on huge
 * pages where the machine has them; checks keys (lkey == rkey, all distinct,
 * a reused index gets a new variant); checks that bad requests fail cleanly;
 * and cycles registrations to catch leaks of keys or pages.
 *
 * Usage: eri_mr_test DEVICE.  Prints TAP-style lines; exits 0 when all pass.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <infiniband/verbs.h>

#include "tap.h"
#include "verbs_util.h"

static const int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		      IBV_ACCESS_REMOTE_WRITE;

int main(int argc, char **argv)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device_attr dattr = {};
	struct ibv_mr *mrs[8], *mr, *again;
	struct ibv_pd *pd;
	size_t sizes[] = { 1, 4096, 10000, 8 << 20 };
	size_t offsets[] = { 0, 0, 123, 4095 };
	char *buf;
	int i, j, n;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}
	ctx = open_device_by_name(argv[1]);
	report(ctx, "open %s", argv[1]);
	if (!ctx)
		return 1;
	report(!ibv_query_device(ctx, &dattr), "query device (atomic_cap %d)",
	       dattr.atomic_cap);
	pd = ibv_alloc_pd(ctx);
	report(pd, "alloc PD");
	if (!pd)
		return 1;
	buf = aligned_alloc(4096, (8 << 20) + 8192);
	memset(buf, 0x5a, (8 << 20) + 8192);

	for (i = 0; i < 4; i++) {
		mrs[i] = ibv_reg_mr(pd, buf + offsets[i], sizes[i], rw);
		report(mrs[i] && mrs[i]->lkey == mrs[i]->rkey &&
		       mrs[i]->length == sizes[i],
		       "register %zu bytes at offset %zu (lkey %#x)", sizes[i],
		       offsets[i], mrs[i] ? mrs[i]->lkey : 0);
		if (!mrs[i])
			return 1;
		for (j = 0; j < i; j++)
			if (mrs[j]->lkey == mrs[i]->lkey)
				break;
		report(j == i, "key %#x is unique", mrs[i]->lkey);
	}

	/* Huge pages, where the machine has them: the device takes 2 MiB pages. */
	mr = NULL;
	{
		void *huge = mmap(NULL, 4 << 20, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);

		if (huge != MAP_FAILED) {
			memset(huge, 1, 4 << 20);
			mr = ibv_reg_mr(pd, huge, 4 << 20, rw);
			report(mr, "register 4 MiB of huge pages");
			if (mr)
				ibv_dereg_mr(mr);
			munmap(huge, 4 << 20);
		} else {
			printf("# no huge pages here: skipped\n");
		}
	}

	/* Bad requests. */
	mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_REMOTE_WRITE);
	report(!mr && errno == EINVAL,
	       "remote write without local write is refused (errno %d)", errno);
	mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_REMOTE_ATOMIC);
	report(!mr && errno == EINVAL,
	       "remote atomic without local write is refused (errno %d)", errno);
	/* Remote atomics: granted where the device has them, refused else. */
	mr = ibv_reg_mr(pd, buf, 4096,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	if (dattr.atomic_cap != IBV_ATOMIC_NONE) {
		report(mr, "remote atomic is granted (atomic_cap %d)",
		       dattr.atomic_cap);
		if (mr)
			report(!ibv_dereg_mr(mr), "deregister the atomic region");
	} else {
		report(!mr && errno == EOPNOTSUPP,
		       "remote atomic is refused: no atomics (errno %d)", errno);
	}
	mr = ibv_reg_mr(pd, (void *)4096, 4096, rw);
	report(!mr && errno == EFAULT, "unmapped memory is refused (errno %d)",
	       errno);
	mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_MW_BIND | rw);
	report(!mr, "memory window binding is refused (errno %d)", errno);

	/* A freed index comes back with another variant. */
	{
		unsigned int old = mrs[0]->lkey;

		report(!ibv_dereg_mr(mrs[0]), "deregister %#x", old);
		mrs[0] = ibv_reg_mr(pd, buf, 1, rw);
		report(mrs[0] && mrs[0]->lkey != old,
		       "re-registration gets a new key (%#x, was %#x)",
		       mrs[0] ? mrs[0]->lkey : 0, old);
	}

	/* Many cycles: keys and pinned pages are given back. */
	for (i = 0, n = 0; i < 2000; i++) {
		mr = ibv_reg_mr(pd, buf + (i % 4096), 5000 + i, rw);
		if (!mr)
			break;
		again = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
		if (!again || ibv_dereg_mr(again) || ibv_dereg_mr(mr))
			break;
		n++;
	}
	report(n == 2000, "2000 registration cycles (%d done)", n);

	for (i = 0; i < 4; i++)
		report(mrs[i] && !ibv_dereg_mr(mrs[i]), "deregister region %d",
		       i);
	report(!ibv_dealloc_pd(pd), "dealloc PD");
	report(!ibv_close_device(ctx), "close device");
	free(buf);
	printf("# %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
