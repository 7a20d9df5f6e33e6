/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the verbs test programs share: the monotonic clock, opening a
 * device by name, and taking an RC QP from RESET to RTS over a RoCEv2
 * path.
 */
#ifndef ERI_TESTS_VERBS_UTIL_H
#define ERI_TESTS_VERBS_UTIL_H

#include <stdint.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

/* CLOCK_MONOTONIC in milliseconds. */
static inline int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* CLOCK_MONOTONIC in microseconds. */
static inline int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The device named @name, opened; NULL when there is none or it fails. */
static inline struct ibv_context *open_device_by_name(const char *name)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

/* One end of an RC connection: what INIT, RTR and RTS take, on port 1. */
struct rc_path {
	unsigned int access;		/* qp_access_flags */
	int sgid_index;			/* the local GID */
	union ibv_gid dgid;		/* the peer's GID */
	uint32_t dest_qpn;
	uint32_t rq_psn;		/* the peer's first send PSN */
	uint32_t sq_psn;
	enum ibv_mtu mtu;
	uint8_t max_dest_rd_atomic;
	uint8_t max_rd_atomic;
	uint8_t min_rnr_timer;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
};

/*
 * A path to QP @dest_qpn at @dgid from local GID @sgid_index with the
 * usual settings: MTU 1024, one RDMA READ or atomic each way, RNR timer 1
 * (0.01 ms), local ACK timeout 14 (67 ms), 7 retries and 7 RNR retries,
 * both PSNs 0, no access right.
 */
static inline void rc_path_init(struct rc_path *p, int sgid_index,
				const union ibv_gid *dgid, uint32_t dest_qpn)
{
	memset(p, 0, sizeof(*p));
	p->sgid_index = sgid_index;
	p->dgid = *dgid;
	p->dest_qpn = dest_qpn;
	p->mtu = IBV_MTU_1024;
	p->max_dest_rd_atomic = 1;
	p->max_rd_atomic = 1;
	p->min_rnr_timer = 1;
	p->timeout = 14;
	p->retry_cnt = 7;
	p->rnr_retry = 7;
}

/*
 * RESET -> INIT -> RTR -> RTS along @p.  Return: 0, or the errno of the
 * transition that failed, which @stage (unless NULL) then names.
 */
static inline int rc_connect(struct ibv_qp *qp, const struct rc_path *p,
			     const char **stage)
{
	struct ibv_qp_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = p->access;
	if (stage)
		*stage = "INIT";
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (err)
		return err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = p->mtu;
	a.dest_qp_num = p->dest_qpn;
	a.rq_psn = p->rq_psn;
	a.max_dest_rd_atomic = p->max_dest_rd_atomic;
	a.min_rnr_timer = p->min_rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = p->dgid;
	a.ah_attr.grh.sgid_index = p->sgid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (stage)
		*stage = "RTR";
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (err)
		return err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = p->timeout;
	a.retry_cnt = p->retry_cnt;
	a.rnr_retry = p->rnr_retry;
	a.sq_psn = p->sq_psn;
	a.max_rd_atomic = p->max_rd_atomic;
	if (stage)
		*stage = "RTS";
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

#endif
