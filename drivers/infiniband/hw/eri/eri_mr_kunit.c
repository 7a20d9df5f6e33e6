// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests of the MR translation table (eri_mr.c): the page size the
 * core picks from the device's page sizes for a region, and the page list
 * eri_mr_fill_pbl() writes, for regions starting and ending inside a page,
 * page-aligned ones, a single byte, many scattered pages, and physically
 * contiguous memory that larger pages cover.  The regions are made up:
 * a umem whose scatterlist holds chosen bus addresses, nothing mapped.
 */
#include <kunit/test.h>
#include <linux/sizes.h>
#include <rdma/ib_umem.h>

#include "eri_verbs.h"

/* What eri_sim offers (eri_sim_admin.c). */
#define CAP	(SZ_4K | SZ_64K | SZ_2M | SZ_1G)
#define VA	0x7f0000000000ULL

/* A umem of @len bytes at user address @va over @n DMA chunks. */
static struct ib_umem *umem(struct kunit *test, u64 va, size_t len,
			    const dma_addr_t *dma, const u32 *dlen,
			    unsigned int n)
{
	struct scatterlist *sg;
	struct ib_umem *u;
	unsigned int i;

	u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);
	sg = kunit_kcalloc(test, n, sizeof(*sg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, u);
	KUNIT_ASSERT_NOT_NULL(test, sg);
	sg_init_table(sg, n);
	for (i = 0; i < n; i++) {
		sg[i].length = dlen[i];
		sg_dma_address(&sg[i]) = dma[i];
		sg_dma_len(&sg[i]) = dlen[i];
	}
	u->address = va;
	u->length = len;
	u->iova = va;
	u->sgt_append.sgt.sgl = sg;
	u->sgt_append.sgt.nents = n;
	u->sgt_append.sgt.orig_nents = n;
	return u;
}

/*
 * What eri_reg_user_mr() does: the page size for @cap, then the list.
 * Return: the page size; *@n: entries written into @pbl (of @max).
 */
static unsigned long build(struct kunit *test, struct ib_umem *u,
			   unsigned long cap, __le64 *pbl, u32 max, u32 *n)
{
	unsigned long pgsz = ib_umem_find_best_pgsz(u, cap, u->address);

	KUNIT_ASSERT_NE(test, pgsz, 0UL);
	KUNIT_EXPECT_LE(test, ib_umem_num_dma_blocks(u, pgsz), (size_t)max);
	*n = eri_mr_fill_pbl(u, pgsz, pbl, max);
	KUNIT_EXPECT_EQ(test, (size_t)*n, ib_umem_num_dma_blocks(u, pgsz));
	return pgsz;
}

static void eri_mr_test_offset_first_page(struct kunit *test)
{
	static const dma_addr_t dma[] = { 0x10000, 0x30000 };
	static const u32 dlen[] = { SZ_4K, SZ_4K };
	__le64 pbl[4];
	u32 n;

	/* 0x100 into the first page, to the end of the second. */
	KUNIT_EXPECT_EQ(test, build(test, umem(test, VA + 0x1100, 0x1f00, dma,
					       dlen, 2), CAP, pbl, 4, &n),
			(unsigned long)SZ_4K);
	KUNIT_ASSERT_EQ(test, n, 2U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl[0]), 0x10000ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl[1]), 0x30000ULL);
}

static void eri_mr_test_end_mid_page(struct kunit *test)
{
	static const dma_addr_t dma[] = { 0x50000, 0x10000, 0x30000 };
	static const u32 dlen[] = { SZ_4K, SZ_4K, SZ_4K };
	__le64 pbl[4];
	u32 n;

	/* Page-aligned start, 0x800 into the third page at the end. */
	KUNIT_EXPECT_EQ(test, build(test, umem(test, VA, 0x2800, dma, dlen, 3),
				    CAP, pbl, 4, &n), (unsigned long)SZ_4K);
	KUNIT_ASSERT_EQ(test, n, 3U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl[0]), 0x50000ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl[1]), 0x10000ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl[2]), 0x30000ULL);
	/* Both ends inside pages. */
	KUNIT_EXPECT_EQ(test, build(test, umem(test, VA + 0xff0, 0x1020, dma,
					       dlen, 3), CAP, pbl, 4, &n),
			(unsigned long)SZ_4K);
	KUNIT_ASSERT_EQ(test, n, 3U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl[2]), 0x30000ULL);
}

static void eri_mr_test_page_aligned(struct kunit *test)
{
	static const dma_addr_t dma[] = { 0x10000, 0x30000, 0x70000 };
	static const u32 dlen[] = { SZ_4K, SZ_4K, SZ_4K };
	__le64 pbl[4] = {};
	u32 n;

	KUNIT_EXPECT_EQ(test, build(test, umem(test, VA, 3 * SZ_4K, dma, dlen,
					       3), CAP, pbl, 4, &n),
			(unsigned long)SZ_4K);
	KUNIT_ASSERT_EQ(test, n, 3U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl[0]), 0x10000ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl[1]), 0x30000ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl[2]), 0x70000ULL);
	/* No entry past the end. */
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl[3]), 0ULL);
}

static void eri_mr_test_single_byte(struct kunit *test)
{
	static const dma_addr_t dma[] = { 0x23000 };
	static const u32 dlen[] = { SZ_4K };
	unsigned long pgsz;
	__le64 pbl[2];
	u32 n;

	/* The last byte of a 4 KiB page. */
	pgsz = build(test, umem(test, VA + 0xfff, 1, dma, dlen, 1), SZ_4K, pbl,
		     2, &n);
	KUNIT_EXPECT_EQ(test, pgsz, (unsigned long)SZ_4K);
	KUNIT_ASSERT_EQ(test, n, 1U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl[0]), 0x23000ULL);
	/* One byte needs no larger page, even where the device has them. */
	pgsz = build(test, umem(test, VA + 0xfff, 1, dma, dlen, 1), CAP, pbl,
		     2, &n);
	KUNIT_EXPECT_EQ(test, pgsz, (unsigned long)SZ_4K);
	KUNIT_ASSERT_EQ(test, n, 1U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl[0]), 0x23000ULL);
}

static void eri_mr_test_many_pages(struct kunit *test)
{
	enum { N = 65 };
	dma_addr_t *dma = kunit_kcalloc(test, N, sizeof(*dma), GFP_KERNEL);
	u32 *dlen = kunit_kcalloc(test, N, sizeof(*dlen), GFP_KERNEL);
	__le64 *pbl = kunit_kcalloc(test, N, sizeof(*pbl), GFP_KERNEL);
	unsigned int i;
	u32 n;

	KUNIT_ASSERT_NOT_NULL(test, dma);
	KUNIT_ASSERT_NOT_NULL(test, dlen);
	KUNIT_ASSERT_NOT_NULL(test, pbl);
	/* Every other page of a range, in reverse order. */
	for (i = 0; i < N; i++) {
		dma[i] = 0x1000000 + (N - i) * 2 * SZ_4K;
		dlen[i] = SZ_4K;
	}
	/* From 0x800 into the first page to 0x100 into the last. */
	KUNIT_EXPECT_EQ(test, build(test, umem(test, VA + 0x800,
					       (N - 1) * SZ_4K - 0x700, dma,
					       dlen, N), CAP, pbl, N, &n),
			(unsigned long)SZ_4K);
	KUNIT_ASSERT_EQ(test, n, (u32)N);
	for (i = 0; i < N; i++)
		KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl[i]), (u64)dma[i]);
	/* A list too short for the region: filled, nothing past it. */
	pbl[10] = cpu_to_le64(1);
	KUNIT_EXPECT_EQ(test, eri_mr_fill_pbl(umem(test, VA + 0x800,
						   (N - 1) * SZ_4K - 0x700,
						   dma, dlen, N),
					      SZ_4K, pbl, 10), 10U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl[10]), 1ULL);
}

static void eri_mr_test_contiguous(struct kunit *test)
{
	/* 4 MiB, 2 MiB-aligned, in three chunks that follow each other. */
	static const dma_addr_t dma[] = { 0x40000000, 0x40100000, 0x40200000 };
	static const u32 dlen[] = { SZ_1M, SZ_1M, SZ_2M };
	static const dma_addr_t dma2[] = { 0x40001000, 0x40200000 };
	static const u32 dlen2[] = { SZ_2M - SZ_4K, SZ_8K };
	unsigned long pgsz;
	__le64 *pbl;
	unsigned int i;
	u32 n;

	pbl = kunit_kcalloc(test, SZ_4M / SZ_4K, sizeof(*pbl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pbl);
	/* VA and bus address agree up to bit 21: two 2 MiB pages. */
	pgsz = build(test, umem(test, VA + SZ_2M, SZ_4M, dma, dlen, 3), CAP,
		     pbl, SZ_4M / SZ_4K, &n);
	KUNIT_EXPECT_EQ(test, pgsz, (unsigned long)SZ_2M);
	KUNIT_ASSERT_EQ(test, n, 2U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl[0]), 0x40000000ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl[1]), 0x40200000ULL);

	/* A device of 4 KiB pages only: 1024 of them, in order. */
	pgsz = build(test, umem(test, VA + SZ_2M, SZ_4M, dma, dlen, 3), SZ_4K,
		     pbl, SZ_4M / SZ_4K, &n);
	KUNIT_EXPECT_EQ(test, pgsz, (unsigned long)SZ_4K);
	KUNIT_ASSERT_EQ(test, n, (u32)(SZ_4M / SZ_4K));
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl[i]),
				0x40000000ULL + (u64)i * SZ_4K);

	/* Only 64 KiB-aligned alike: 64 KiB pages. */
	pgsz = build(test, umem(test, VA + SZ_2M + SZ_64K, SZ_2M, dma, dlen, 3),
		     CAP, pbl, SZ_4M / SZ_4K, &n);
	KUNIT_EXPECT_EQ(test, pgsz, (unsigned long)SZ_64K);
	KUNIT_ASSERT_EQ(test, n, (u32)(SZ_2M / SZ_64K));
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl[i]),
				0x40000000ULL + (u64)i * SZ_64K);

	/*
	 * Starting 0x1800 into a 2 MiB page (the umem from the page that
	 * holds it): the first entry is the start of the 2 MiB page.
	 */
	pgsz = build(test, umem(test, VA + SZ_2M + 0x1800, SZ_2M, dma2, dlen2,
				2), CAP, pbl, SZ_4M / SZ_4K, &n);
	KUNIT_EXPECT_EQ(test, pgsz, (unsigned long)SZ_2M);
	KUNIT_ASSERT_EQ(test, n, 2U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl[0]), 0x40000000ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(pbl[1]), 0x40200000ULL);
}

static struct kunit_case eri_mr_test_cases[] = {
	KUNIT_CASE(eri_mr_test_offset_first_page),
	KUNIT_CASE(eri_mr_test_end_mid_page),
	KUNIT_CASE(eri_mr_test_page_aligned),
	KUNIT_CASE(eri_mr_test_single_byte),
	KUNIT_CASE(eri_mr_test_many_pages),
	KUNIT_CASE(eri_mr_test_contiguous),
	{}
};

static struct kunit_suite eri_mr_test_suite = {
	.name = "eri_mr",
	.test_cases = eri_mr_test_cases,
};

kunit_test_suite(eri_mr_test_suite);
