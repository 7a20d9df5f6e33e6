/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* ERI verbs. */
#ifndef _ERI_VERBS_H_
#define _ERI_VERBS_H_

#include <rdma/ib_verbs.h>

#include "eri.h"

struct eri_ucontext {
	struct ib_ucontext ibucontext;
};

struct eri_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

struct eri_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;	/* NULL for a DMA MR */
};

/*
 * DMA-coherent memory shared with userspace through mmap().  The entry owns
 * the buffer: it is freed when the last mapping and the object are gone.
 */
struct eri_user_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	struct eri_dev *edev;
	struct eri_com_buf buf;
};

static inline struct eri_pd *to_eri_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct eri_pd, ibpd);
}

static inline struct eri_mr *to_eri_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct eri_mr, ibmr);
}

static inline struct eri_user_mmap_entry *
to_eri_mmap_entry(struct rdma_user_mmap_entry *rdma_entry)
{
	return container_of(rdma_entry, struct eri_user_mmap_entry, rdma_entry);
}

int eri_query_device(struct ib_device *ibdev, struct ib_device_attr *props,
		     struct ib_udata *udata);
int eri_query_port(struct ib_device *ibdev, u32 port,
		   struct ib_port_attr *props);
int eri_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey);
int eri_get_port_immutable(struct ib_device *ibdev, u32 port,
			   struct ib_port_immutable *immutable);
enum rdma_link_layer eri_get_link_layer(struct ib_device *ibdev, u32 port);
void eri_get_dev_fw_str(struct ib_device *ibdev, char *str);
int eri_alloc_ucontext(struct ib_ucontext *ibucontext, struct ib_udata *udata);
void eri_dealloc_ucontext(struct ib_ucontext *ibucontext);
int eri_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int eri_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int eri_mmap(struct ib_ucontext *ibucontext, struct vm_area_struct *vma);
void eri_mmap_free(struct rdma_user_mmap_entry *rdma_entry);

/* eri_mr.c */
struct ib_mr *eri_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *eri_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata);
int eri_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

#endif /* _ERI_VERBS_H_ */
