// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim network side: UDP sockets on ERI_UDP_PORT, one for IPv4 and one
 * for IPv6, per network namespace that has ERI devices, the transmit path,
 * and the receive path that hands each packet to its queue pair in softirq
 * context.  The family of a path follows from its GIDs (eri_sim_qp.c):
 * IPv4-mapped ones go over IPv4, the others over IPv6.
 *
 * A namespace's sockets go away with its last device or with the
 * namespace, whichever comes first; senders and receivers reach them under
 * RCU.
 */
#include <kunit/visibility.h>
#include <linux/bitfield.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/inet_ecn.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/route.h>
#include <net/udp_tunnel.h>

#include "eri_sim_qp.h"
#include "eri_sim_trace.h"

/* Sockets of a namespace, by family. */
enum {
	ERI_SIM_SOCK_IPV4,
	ERI_SIM_SOCK_IPV6,
	ERI_SIM_NSOCKS,
};

/**
 * struct eri_sim_net - ERI in one network namespace
 * @node: in eri_sim_nets while @net is alive
 * @net: the namespace; not a reference, valid while in eri_sim_nets
 * @sock: the UDP sockets, NULL once the namespace is going away; the IPv6
 *	one also when the namespace has no IPv6
 * @devs: devices of the namespace (RCU; changed under eri_sim_net_lock)
 * @ndevs: length of @devs
 * @listed: on eri_sim_nets
 * @rcu: frees it
 */
struct eri_sim_net {
	struct list_head node;
	struct net *net;
	struct socket __rcu *sock[ERI_SIM_NSOCKS];
	struct list_head devs;
	u32 ndevs;
	bool listed;
	struct rcu_head rcu;
};

/*
 * Receive buffer of a socket: buffers leave its queue as they arrive, so it
 * holds a burst at most (sock_set_rcvbuf() doubles it).
 */
#define ERI_SIM_SOCK_RCVBUF	(2 * 1024 * 1024)

/* Protects eri_sim_nets and every eri_sim_net's @devs, @ndevs, @listed. */
static DEFINE_MUTEX(eri_sim_net_lock);
static LIST_HEAD(eri_sim_nets);
#define eri_sim_net_locked()	lockdep_is_held(&eri_sim_net_lock)

/**
 * eri_sim_gid_family - the address family of a path
 * @sgid: its source GID
 * @dgid: its destination GID
 *
 * Return: AF_INET when both are IPv4-mapped, AF_INET6 when neither is and
 * the kernel has IPv6, 0 for anything else (GIDs of two families).
 */
int eri_sim_gid_family(const u8 *sgid, const u8 *dgid)
{
	bool v4 = ipv6_addr_v4mapped((const struct in6_addr *)sgid);

	if (v4 != ipv6_addr_v4mapped((const struct in6_addr *)dgid))
		return 0;
	if (v4)
		return AF_INET;
	return IS_ENABLED(CONFIG_IPV6) ? AF_INET6 : 0;
}

/**
 * eri_sim_local_addr - is @addr an address of @sdev's netdev?
 * @sdev: the device
 * @addr: an IPv6 address, or an IPv4 one mapped
 *
 * Any context.
 *
 * Return: true when @addr is one of the netdev's addresses.
 */
bool eri_sim_local_addr(struct eri_sim_dev *sdev, const struct in6_addr *addr)
{
	struct net *net = dev_net(sdev->netdev);
	bool ok;

	if (ipv6_addr_v4mapped(addr)) {
		rcu_read_lock();
		ok = __ip_dev_find(net, addr->s6_addr32[3], false) ==
		     sdev->netdev;
		rcu_read_unlock();
		return ok;
	}
	/* Strict: the address must be on this very netdev. */
	return IS_ENABLED(CONFIG_IPV6) &&
	       ipv6_chk_addr(net, addr, sdev->netdev, 1);
}

/*
 * The device whose netdev owns the packet's destination address.  Per
 * packet: an IPv4 address is looked up once, not once per device.
 */
static struct eri_sim_dev *eri_sim_net_find_dev(struct eri_sim_net *en,
						const struct in6_addr *daddr)
{
	struct net_device *ndev = NULL;
	struct eri_sim_dev *sdev;
	bool v4 = ipv6_addr_v4mapped(daddr);

	if (v4) {
		ndev = __ip_dev_find(en->net, daddr->s6_addr32[3], false);
		if (!ndev)
			return NULL;
	}
	list_for_each_entry_rcu(sdev, &en->devs, net_node)
		if (v4 ? sdev->netdev == ndev :
			 eri_sim_local_addr(sdev, daddr))
			return sdev;
	return NULL;
}

/**
 * eri_sim_hdr_check - check a received packet before any QP sees it
 * @buf: the packet after its UDP header: the ERI header, then the payload
 * @len: bytes at @buf
 * @version: the wire protocol version the device accepts
 *
 * Only what the bytes alone tell: whether the header is whole and of our
 * version, and which part of which kind of QP it is for.  A UD datagram
 * must say its whole length in @msg_len and fit in one packet.  The fields
 * the QPs check against their state (PSNs, MSN, keys, offsets) and those
 * they ignore for the opcode (@sack outside an ACK, flags a packet does not
 * use) pass.  Pure: reads @buf and nothing else.
 *
 * Return: an enum eri_sim_rx_verdict.
 */
VISIBLE_IF_KUNIT enum eri_sim_rx_verdict
eri_sim_hdr_check(const void *buf, unsigned int len, u8 version)
{
	const struct eri_wire_hdr *hdr = buf;
	u32 plen;

	if (len < sizeof(*hdr))
		return ERI_SIM_RX_DROP_SHORT;
	if (hdr->version != version)
		return ERI_SIM_RX_DROP_VERSION;
	plen = len - sizeof(*hdr);
	switch (hdr->opcode) {
	case ERI_OP_ACK:
	case ERI_OP_READ_RESP:
	case ERI_OP_ATOMIC_RESP:
		return ERI_SIM_RX_RC_RESP;
	case ERI_OP_UD_SEND:
	case ERI_OP_UD_SEND_IMM:
		if (plen > ERI_SIM_UD_MAX_PAYLOAD ||
		    be32_to_cpu(hdr->msg_len) != plen)
			return ERI_SIM_RX_UD_BAD_LEN;
		return ERI_SIM_RX_UD;
	default:
		return ERI_SIM_RX_RC_REQ;
	}
}

/*
 * The end of a received batch: the ACK the responder owes and the run of
 * the requester that its packets asked for, once for all of them.
 */
static void eri_sim_rx_batch_end_locked(struct eri_sim_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	qp->rx_batch = false;
	eri_sim_req_rx_batch_end_locked(qp);
	if (qp->ack_due) {
		qp->ack_due = false;
		eri_sim_resp_batch_ack_locked(qp);
	}
	if (qp->run_due) {
		qp->run_due = false;
		eri_sim_req_run_at_locked(qp, qp->run_due_ns);
	}
	eri_sim_mr_cache_drop(&qp->rx_mrc);
}

/*
 * Packet @i of a buffer eri_sim_rx_split() accepted, of @seg_len-byte
 * packets, read through @cur, after packet @i - 1: its payload into @pkt,
 * its header copied into @buf.  Return: @buf.
 */
static const struct eri_wire_hdr *
eri_sim_rx_seg(struct eri_sim_skb_cur *cur, u32 seg_len, u32 i, bool ce,
	       struct eri_wire_hdr *buf, struct eri_sim_rx_pkt *pkt)
{
	u32 off = i * seg_len;

	pkt->cur = cur;
	pkt->off = off + sizeof(*buf);
	pkt->len = min(seg_len, cur->root->len - off) - sizeof(*buf);
	pkt->ce = ce;
	/* eri_sim_rx_split() found every header whole: no failure. */
	eri_sim_skb_cur_copy(cur, off, buf, sizeof(*buf));
	return buf;
}

/*
 * Give the @nsegs packets of @skb, @seg_len bytes each but the last, to
 * the RC QP @qp as one batch, from the peer at @saddr.  qp->lock held.
 */
static void eri_sim_rx_rc_locked(struct eri_sim_qp *qp, struct sk_buff *skb,
				 const struct eri_wire_hdr *first,
				 const struct in6_addr *saddr, u32 seg_len,
				 u32 nsegs, bool ce)
{
	struct eri_sim_dev *sdev = qp->sdev;
	struct eri_sim_skb_cur cur;
	u32 i;

	lockdep_assert_held(&qp->lock);
	if (qp->dead || !ipv6_addr_equal(saddr, &qp->daddr) ||
	    be32_to_cpu(first->sqpn) != qp->dest_qpn) {
		eri_sim_stat_add(sdev, ERI_STAT_RX_DROPS, nsegs);
		return;
	}
	eri_sim_stat_add(sdev, ERI_STAT_RX_SKBS, 1);
	eri_sim_stat_add(sdev, ERI_STAT_RX_PKTS, nsegs);
	qp->rx_skbs++;
	qp->rx_pkts += nsegs;
	qp->rx_batch = true;
	eri_sim_skb_cur_init(&cur, skb);
	for (i = 0; i < nsegs; i++) {
		struct eri_wire_hdr buf;
		struct eri_sim_rx_pkt pkt;
		const struct eri_wire_hdr *hdr =
			eri_sim_rx_seg(&cur, seg_len, i, ce, &buf, &pkt);

		if (eri_sim_hdr_check(hdr, sizeof(*hdr) + pkt.len,
				      first->version) == ERI_SIM_RX_RC_RESP) {
			eri_sim_req_rx_locked(qp, hdr, &pkt);
		} else {
			eri_sim_stat_add(sdev, ERI_STAT_RX_BYTES, pkt.len);
			qp->sq_rx_seen = true;
			eri_sim_resp_rx_locked(qp, hdr, &pkt);
		}
	}
	eri_sim_rx_batch_end_locked(qp);
}

/*
 * The @nsegs datagrams of @skb, @seg_len bytes each but the last, for the
 * UD or GSI QP @qp: UD messages travel as single datagrams, which UDP GRO
 * may have merged.  qp->lock held.
 */
static void eri_sim_rx_ud_locked(struct eri_sim_qp *qp, struct sk_buff *skb,
				 u32 seg_len, u32 nsegs, bool ce)
{
	struct eri_sim_skb_cur cur;
	u32 i;

	lockdep_assert_held(&qp->lock);
	eri_sim_stat_add(qp->sdev, ERI_STAT_RX_SKBS, 1);
	qp->rx_skbs++;
	eri_sim_skb_cur_init(&cur, skb);
	for (i = 0; i < nsegs; i++) {
		struct eri_wire_hdr buf;
		struct eri_sim_rx_pkt pkt;
		const struct eri_wire_hdr *hdr =
			eri_sim_rx_seg(&cur, seg_len, i, ce, &buf, &pkt);

		if (eri_sim_rx_takes(eri_sim_hdr_check(hdr, sizeof(*hdr) +
						       pkt.len, hdr->version),
				     qp->type))
			eri_sim_ud_rx_locked(qp, hdr, &pkt);
		else
			eri_sim_stat_add(qp->sdev, ERI_STAT_RX_DROPS, 1);
	}
}

/*
 * @nsegs packets of a version the device does not accept, for @qp (or for
 * no QP: NULL) from @saddr; @first is the header of the first, of which
 * only the 12 bytes every version keeps are read
 * (Documentation/infiniband/eri.rst, "Versions").  Drops the reference on
 * @qp.  The RCU read lock held (it keeps @sdev).
 */
static void eri_sim_rx_version(struct eri_sim_dev *sdev,
			       struct eri_sim_qp *qp,
			       const struct eri_wire_hdr *first,
			       const struct in6_addr *saddr, u32 nsegs)
{
	bool nak = first->opcode == ERI_OP_ACK &&
		   first->syndrome == ERI_SYN_VERSION_NAK;
	u8 version = READ_ONCE(sdev->wire_version);
	u64 now;

	if (!nak)
		eri_sim_stat_add(sdev, ERI_STAT_RX_VERSION_DROPS, nsegs);
	if (!qp)
		return;
	spin_lock(&qp->lock);
	if (qp->type != ERI_QPT_RC || qp->dead ||
	    !ipv6_addr_equal(saddr, &qp->daddr) ||
	    be32_to_cpu(first->sqpn) != qp->dest_qpn)
		goto out;
	if (nak) {
		eri_sim_stat_add(sdev, ERI_STAT_VERSION_NAKS, 1);
		eri_sim_req_version_nak_locked(qp);
		goto out;
	}
	/* Never an answer to an answer; one a millisecond at most. */
	now = ktime_get_ns();
	if (first->opcode == ERI_OP_ACK ||
	    (qp->state != ERI_QPS_RTR && qp->state != ERI_QPS_RTS &&
	     qp->state != ERI_QPS_SQD) ||
	    now - qp->version_nak_ns < NSEC_PER_MSEC)
		goto out;
	qp->version_nak_ns = now;
	eri_sim_send_ack_locked(qp, ERI_SYN_VERSION_NAK, 0,
				FIELD_PREP(ERI_WIRE_NAK_VERSION_MIN, version) |
				FIELD_PREP(ERI_WIRE_NAK_VERSION_MAX, version));
out:
	spin_unlock(&qp->lock);
	eri_sim_qp_put(qp);
}

/*
 * The addresses of a received buffer, IPv4 ones mapped, and whether its
 * outer header's ECN field says congestion was seen on the way here.
 */
static bool eri_sim_rx_addrs(const struct sk_buff *skb, struct in6_addr *saddr,
			     struct in6_addr *daddr)
{
	if (IS_ENABLED(CONFIG_IPV6) && skb->protocol == htons(ETH_P_IPV6)) {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		*saddr = ip6h->saddr;
		*daddr = ip6h->daddr;
		return INET_ECN_is_ce(ipv6_get_dsfield(ip6h));
	}
	ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr, saddr);
	ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr, daddr);
	return INET_ECN_is_ce(ip_hdr(skb)->tos);
}

/*
 * A buffer the stack received on a socket of @sk's namespace: a datagram,
 * or a super-packet kept whole.  Softirq context; its data starts at the
 * first ERI header (the stack pulled the UDP header).
 */
static void eri_sim_rx_skb(struct sock *sk, struct sk_buff *skb)
{
	struct sk_buff_head held;
	struct in6_addr saddr, daddr;
	struct eri_wire_hdr first;
	struct eri_sim_dev *sdev;
	struct eri_sim_net *en;
	struct eri_sim_qp *qp;
	u32 seg_len, nsegs;
	bool ce;

	/*
	 * What the stack leaves to the reader of a UDP socket (udp_recvmsg()
	 * elsewhere): the checksum, and the counts of netstat -su.
	 */
	if (udp_lib_checksum_complete(skb)) {
		__UDPX_INC_STATS(sk, UDP_MIB_CSUMERRORS);
		__UDPX_INC_STATS(sk, UDP_MIB_INERRORS);
		goto drop;
	}
	__SNMP_ADD_STATS(__UDPX_MIB(sk, sk->sk_family == AF_INET),
			 UDP_MIB_INDATAGRAMS,
			 max_t(u32, skb_shinfo(skb)->gso_segs, 1));
	ce = eri_sim_rx_addrs(skb, &saddr, &daddr);

	rcu_read_lock();
	en = rcu_dereference_sk_user_data(sk);
	sdev = en ? eri_sim_net_find_dev(en, &daddr) : NULL;
	if (!sdev) {
		rcu_read_unlock();
		goto drop;
	}
	if (!eri_sim_rx_split(skb, &seg_len, &nsegs, &first)) {
		eri_sim_stat_add(sdev, ERI_STAT_RX_DROPS,
				 max_t(u32, skb_shinfo(skb)->gso_segs, 1));
		rcu_read_unlock();
		goto drop;
	}
	qp = eri_sim_qp_get(sdev, be32_to_cpu(first.dqpn));
	if (first.version != READ_ONCE(sdev->wire_version)) {
		eri_sim_rx_version(sdev, qp, &first, &saddr, nsegs);
		rcu_read_unlock();
		goto drop;
	}
	if (!qp) {
		eri_sim_stat_add(sdev, ERI_STAT_RX_DROPS, nsegs);
		rcu_read_unlock();
		goto drop;
	}
	rcu_read_unlock();
	trace_eri_sim_rx(sdev->ibdev_name, qp->qpn, nsegs, skb->len);

	__skb_queue_head_init(&held);
	spin_lock(&qp->lock);
	if (qp->type == ERI_QPT_RC) {
		qp->ack_held = &held;
		eri_sim_rx_rc_locked(qp, skb, &first, &saddr, seg_len, nsegs,
				     ce);
		qp->ack_held = NULL;
	} else {
		eri_sim_rx_ud_locked(qp, skb, seg_len, nsegs, ce);
	}
	spin_unlock(&qp->lock);
	eri_sim_pkt_xmit_held(qp->sdev, &held);
	eri_sim_qp_put(qp);
	consume_skb(skb);
	return;

drop:
	kfree_skb(skb);
}

/*
 * The socket has data: take every buffer queued.  Called by the stack in
 * softirq context as it queues one; the socket holds none for long.
 */
static void eri_sim_sk_data_ready(struct sock *sk)
{
	struct sk_buff *skb;
	int err, errors = 0;

	for (;;) {
		skb = skb_recv_udp(sk, MSG_DONTWAIT, &err);
		if (skb)
			eri_sim_rx_skb(sk, skb);
		/* A socket error (an ICMP report) is taken once: go on. */
		else if (err == -EAGAIN || ++errors > 1)
			return;
	}
}

static struct socket *eri_sim_net_sock_create(struct eri_sim_net *en,
					      int family)
{
	struct udp_port_cfg udp_cfg = {};
	struct socket *sock;
	int one = 1, ret;

	udp_cfg.family = family;
	/* IPv4 has its own socket: the IPv6 one takes only IPv6. */
	udp_cfg.ipv6_v6only = family == AF_INET6;
	udp_cfg.local_udp_port = htons(ERI_UDP_PORT);
	ret = udp_sock_create(en->net, &udp_cfg, &sock);
	if (ret)
		return ERR_PTR(ret);
	/*
	 * Buffers of several packets stay whole (no encapsulation hook, which
	 * would have them cut): a local peer's super-packets as it built them,
	 * and a NIC's datagrams as UDP GRO merges them.
	 */
	ret = sock->ops->setsockopt(sock, SOL_UDP, UDP_GRO,
				    KERNEL_SOCKPTR(&one), sizeof(one));
	if (ret) {
		udp_tunnel_sock_release(sock);
		return ERR_PTR(ret);
	}
	/* Buffers leave the queue as they arrive: room for bursts only. */
	sock_set_rcvbuf(sock->sk, ERI_SIM_SOCK_RCVBUF);
	write_lock_bh(&sock->sk->sk_callback_lock);
	rcu_assign_sk_user_data(sock->sk, en);
	sock->sk->sk_data_ready = eri_sim_sk_data_ready;
	write_unlock_bh(&sock->sk->sk_callback_lock);
	return sock;
}

/*
 * Create @en's sockets.  The IPv6 one is left out when the namespace has
 * no IPv6 (the kernel lacks it, or booted with ipv6.disable=1): the
 * device's IPv6 paths then lead nowhere, as without a route.
 */
static int eri_sim_net_socks_create(struct eri_sim_net *en)
{
	struct socket *sock4, *sock6 = NULL;

	sock4 = eri_sim_net_sock_create(en, AF_INET);
	if (IS_ERR(sock4))
		return PTR_ERR(sock4);
	if (IS_ENABLED(CONFIG_IPV6)) {
		sock6 = eri_sim_net_sock_create(en, AF_INET6);
		if (IS_ERR(sock6)) {
			if (PTR_ERR(sock6) != -EAFNOSUPPORT) {
				udp_tunnel_sock_release(sock4);
				return PTR_ERR(sock6);
			}
			sock6 = NULL;
		}
	}
	/* Not yet published: no reader sees them before the list does. */
	RCU_INIT_POINTER(en->sock[ERI_SIM_SOCK_IPV4], sock4);
	RCU_INIT_POINTER(en->sock[ERI_SIM_SOCK_IPV6], sock6);
	return 0;
}

/**
 * eri_sim_net_attach - connect a new device to its namespace's socket
 * @sdev: the device, with its netdev set
 *
 * Process context.
 *
 * Return: 0 or a negative errno (-EADDRINUSE when something else holds the
 * port).
 */
int eri_sim_net_attach(struct eri_sim_dev *sdev)
{
	struct net *net = dev_net(sdev->netdev);
	struct eri_sim_net *en;
	int ret;

	mutex_lock(&eri_sim_net_lock);
	list_for_each_entry(en, &eri_sim_nets, node)
		if (net_eq(en->net, net))
			goto found;
	en = kzalloc(sizeof(*en), GFP_KERNEL);
	if (!en) {
		mutex_unlock(&eri_sim_net_lock);
		return -ENOMEM;
	}
	en->net = net;
	INIT_LIST_HEAD(&en->devs);
	ret = eri_sim_net_socks_create(en);
	if (ret) {
		mutex_unlock(&eri_sim_net_lock);
		kfree(en);
		return ret;
	}
	list_add(&en->node, &eri_sim_nets);
	en->listed = true;
found:
	list_add_tail_rcu(&sdev->net_node, &en->devs);
	en->ndevs++;
	sdev->net = en;
	mutex_unlock(&eri_sim_net_lock);
	return 0;
}

/*
 * Take @en's sockets into @socks, to be released after a grace period;
 * eri_sim_net_lock held, @en unlisted.
 */
static void eri_sim_net_take_socks_locked(struct eri_sim_net *en,
					  struct socket **socks)
{
	int i;

	lockdep_assert_held(&eri_sim_net_lock);
	for (i = 0; i < ERI_SIM_NSOCKS; i++)
		socks[i] = rcu_replace_pointer(en->sock[i], NULL,
					       eri_sim_net_locked());
}

/* Release what eri_sim_net_take_socks_locked() took, after synchronize_rcu(). */
static void eri_sim_net_release_socks(struct socket **socks)
{
	int i;

	for (i = 0; i < ERI_SIM_NSOCKS; i++)
		if (socks[i])
			udp_tunnel_sock_release(socks[i]);
}

/**
 * eri_sim_net_detach - disconnect a device that has no QP left
 * @sdev: the device
 *
 * Process context.  Returns once no packet can reach @sdev.
 */
void eri_sim_net_detach(struct eri_sim_dev *sdev)
{
	struct socket *socks[ERI_SIM_NSOCKS] = {};
	struct eri_sim_net *en = sdev->net;
	bool last;

	if (!en)
		return;
	mutex_lock(&eri_sim_net_lock);
	list_del_rcu(&sdev->net_node);
	last = !--en->ndevs;
	if (last) {
		if (en->listed) {
			list_del(&en->node);
			en->listed = false;
		}
		eri_sim_net_take_socks_locked(en, socks);
	}
	mutex_unlock(&eri_sim_net_lock);
	sdev->net = NULL;
	/* Receivers that found @sdev (or @socks) are done after this. */
	synchronize_rcu();
	eri_sim_net_release_socks(socks);
	if (last)
		kfree_rcu(en, rcu);
}

/* A namespace goes away: its socket goes with it, devices or not. */
static void __net_exit eri_sim_net_exit_net(struct net *net)
{
	struct socket *socks[ERI_SIM_NSOCKS] = {};
	struct eri_sim_net *en;
	bool found = false;

	mutex_lock(&eri_sim_net_lock);
	list_for_each_entry(en, &eri_sim_nets, node) {
		if (net_eq(en->net, net)) {
			list_del(&en->node);
			en->listed = false;
			eri_sim_net_take_socks_locked(en, socks);
			found = true;
			break;
		}
	}
	mutex_unlock(&eri_sim_net_lock);
	if (found) {
		synchronize_rcu();
		eri_sim_net_release_socks(socks);
	}
}

static struct pernet_operations eri_sim_net_ops = {
	.exit = eri_sim_net_exit_net,
};

int eri_sim_net_init(void)
{
	return register_pernet_subsys(&eri_sim_net_ops);
}

void eri_sim_net_exit(void)
{
	unregister_pernet_subsys(&eri_sim_net_ops);
}

/**
 * eri_sim_pkt_alloc - a packet for @qp with room for headers
 * @qp: the sending QP
 * @payload_len: bytes of payload that will follow the ERI header
 * @hdr: the zeroed ERI header, version set; the payload follows it
 *
 * Any context.
 *
 * Return: the skb, or NULL.
 */
struct sk_buff *eri_sim_pkt_alloc(struct eri_sim_qp *qp, u32 payload_len,
				  struct eri_wire_hdr **hdr)
{
	/* Room for either family: a UD QP picks it per datagram, later. */
	u32 room = LL_RESERVED_SPACE(qp->sdev->netdev) +
		   sizeof(struct ipv6hdr) + sizeof(struct udphdr);
	struct sk_buff *skb;

	skb = alloc_skb(room + sizeof(**hdr) + payload_len, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, room);
	*hdr = skb_put(skb, sizeof(**hdr) + payload_len);
	memset(*hdr, 0, sizeof(**hdr));
	(*hdr)->version = READ_ONCE(qp->sdev->wire_version);
	return skb;
}

/* The outer header's traffic class: ECN-capable, so routers mark, not drop. */
static u8 eri_sim_pkt_tos(const struct eri_sim_qp *qp)
{
	return (qp->tclass & ~INET_ECN_MASK) | INET_ECN_ECT_0;
}

/* The UDP source port: per QP, for the path's ECMP hash. */
static __be16 eri_sim_pkt_sport(const struct eri_sim_qp *qp)
{
	return htons(0xc000 | (qp->qpn & 0x3fff));
}

/*
 * An ACK routed while qp->lock was held, in its skb->cb until
 * eri_sim_pkt_xmit_held() hands it to the stack: the route (with its
 * reference) and what the tunnel's headers take from the QP.
 */
struct eri_sim_held_ack {
	struct dst_entry *dst;
	struct in6_addr saddr;
	struct in6_addr daddr;
	__be32 label;
	__be16 sport;
	u8 tos;
	u8 ttl;
};

static_assert(sizeof(struct eri_sim_held_ack) <=
	      sizeof_field(struct sk_buff, cb));

/* Keep @skb, routed by @dst from @saddr, for eri_sim_pkt_xmit_held(). */
static void eri_sim_pkt_hold(struct eri_sim_qp *qp, struct sk_buff *skb,
			     struct dst_entry *dst,
			     const struct in6_addr *saddr, __be32 label)
{
	struct eri_sim_held_ack *h = (struct eri_sim_held_ack *)skb->cb;

	lockdep_assert_held(&qp->lock);
	h->dst = dst;
	h->saddr = *saddr;
	h->daddr = qp->daddr;
	h->label = label;
	h->sport = eri_sim_pkt_sport(qp);
	h->tos = eri_sim_pkt_tos(qp);
	h->ttl = qp->ttl;
	__skb_queue_tail(qp->ack_held, skb);
}

#if IS_ENABLED(CONFIG_IPV6)
/*
 * The route of @qp's IPv6 path, through the device's netdev (which a
 * link-local destination needs), from the QP's route cache; *@saddr is its
 * source.  qp->lock held.  Return: the route with a reference, or NULL.
 */
static struct dst_entry *eri_sim_route6(struct eri_sim_qp *qp,
					struct socket *sock,
					struct in6_addr *saddr)
{
	__be32 label = cpu_to_be32(qp->flow_label) & IPV6_FLOWLABEL_MASK;
	struct dst_entry *dst;
	struct flowi6 fl6 = {
		.daddr = qp->daddr,
		.saddr = qp->saddr,
		.flowi6_oif = qp->sdev->netdev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.flowlabel = ip6_make_flowinfo(qp->tclass, label),
	};

	*saddr = qp->saddr;
	dst = dst_cache_get_ip6(&qp->dst_cache, saddr);
	if (dst)
		return dst;
	dst = ip6_dst_lookup_flow(sock_net(sock->sk), sock->sk, &fl6, NULL);
	if (IS_ERR(dst))
		return NULL;
	*saddr = fl6.saddr;
	dst_cache_set_ip6(&qp->dst_cache, dst, saddr);
	return dst;
}

/*
 * eri_sim_pkt_xmit() over IPv6, with the flow label and a UDP checksum,
 * which IPv6 requires.  qp->lock and the RCU read lock held.  Return:
 * false when there is no socket or no route (@skb untouched).
 */
static bool eri_sim_pkt_xmit6(struct eri_sim_qp *qp, struct eri_sim_net *en,
			      struct sk_buff *skb, bool hold)
{
	struct socket *sock = rcu_dereference(en->sock[ERI_SIM_SOCK_IPV6]);
	__be32 label = cpu_to_be32(qp->flow_label) & IPV6_FLOWLABEL_MASK;
	struct in6_addr saddr, daddr = qp->daddr;
	struct dst_entry *dst;

	if (!sock)
		return false;
	dst = eri_sim_route6(qp, sock, &saddr);
	if (!dst)
		return false;
	if (hold) {
		eri_sim_pkt_hold(qp, skb, dst, &saddr, label);
		return true;
	}
	udp_tunnel6_xmit_skb(dst, sock->sk, skb, NULL, &saddr, &daddr,
			     eri_sim_pkt_tos(qp), qp->ttl, label,
			     eri_sim_pkt_sport(qp),
			     htons(ERI_UDP_PORT), false);
	return true;
}
#else
static struct dst_entry *eri_sim_route6(struct eri_sim_qp *qp,
					struct socket *sock,
					struct in6_addr *saddr)
{
	return NULL;
}

static bool eri_sim_pkt_xmit6(struct eri_sim_qp *qp, struct eri_sim_net *en,
			      struct sk_buff *skb, bool hold)
{
	return false;
}
#endif

/*
 * The route of @qp's IPv4 path, from the QP's route cache; *@saddr is its
 * source.  qp->lock held.  Return: the route with a reference, or NULL.
 */
static struct rtable *eri_sim_route4(struct eri_sim_qp *qp, struct net *net,
				     __be32 *saddr)
{
	struct rtable *rt;
	struct flowi4 fl4 = {
		.daddr = qp->daddr.s6_addr32[3],
		.saddr = qp->saddr.s6_addr32[3],
		.flowi4_proto = IPPROTO_UDP,
	};

	*saddr = fl4.saddr;
	rt = dst_cache_get_ip4(&qp->dst_cache, saddr);
	if (rt)
		return rt;
	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return NULL;
	*saddr = fl4.saddr;
	dst_cache_set_ip4(&qp->dst_cache, &rt->dst, *saddr);
	return rt;
}

/*
 * eri_sim_pkt_xmit() over IPv4.  qp->lock and the RCU read lock held.
 * Return: false when there is no socket or no route (@skb untouched).
 */
static bool eri_sim_pkt_xmit4(struct eri_sim_qp *qp, struct eri_sim_net *en,
			      struct sk_buff *skb, bool hold)
{
	struct socket *sock = rcu_dereference(en->sock[ERI_SIM_SOCK_IPV4]);
	__be32 daddr = qp->daddr.s6_addr32[3];
	struct in6_addr saddr6;
	struct rtable *rt;
	__be32 saddr;

	if (!sock)
		return false;
	rt = eri_sim_route4(qp, en->net, &saddr);
	if (!rt)
		return false;
	if (hold) {
		ipv6_addr_set_v4mapped(saddr, &saddr6);
		eri_sim_pkt_hold(qp, skb, &rt->dst, &saddr6, 0);
		return true;
	}
	udp_tunnel_xmit_skb(rt, sock->sk, skb, saddr, daddr,
			    eri_sim_pkt_tos(qp), qp->ttl, htons(IP_DF),
			    eri_sim_pkt_sport(qp),
			    htons(ERI_UDP_PORT), false, false);
	return true;
}

/**
 * eri_sim_pkt_max_segs - packets one super-packet of @qp may carry
 * @qp: the QP
 * @seg_len: bytes of each packet, ERI header and payload
 *
 * qp->lock held.  As many as one IP datagram's length field allows (with
 * the IP and UDP headers), within the route device's gso_max_size (its
 * buffers' whole length) and gso_max_segs and ERI_SIM_GSO_MAX_SEGS.  Keeps
 * the device's gso_max_segs in qp->route_segs.
 *
 * Return: 1 at least.
 */
u32 eri_sim_pkt_max_segs(struct eri_sim_qp *qp, u32 seg_len)
{
	u32 hdrs = (qp->ipv6 ? 0 : sizeof(struct iphdr)) + sizeof(struct udphdr);
	struct eri_sim_net *en = qp->sdev->net;
	struct dst_entry *dst = NULL;
	struct in6_addr saddr6;
	u32 n, segs, room, ll;
	struct socket *sock;
	__be32 saddr;

	lockdep_assert_held(&qp->lock);
	rcu_read_lock();
	if (en && qp->ipv6) {
		sock = rcu_dereference(en->sock[ERI_SIM_SOCK_IPV6]);
		dst = sock ? eri_sim_route6(qp, sock, &saddr6) : NULL;
	} else if (en) {
		struct rtable *rt = eri_sim_route4(qp, en->net, &saddr);

		dst = rt ? &rt->dst : NULL;
	}
	rcu_read_unlock();
	if (!dst)
		return 1;
	segs = READ_ONCE(dst->dev->gso_max_segs);
	/* For the requester's send quantum, which takes no route lookup. */
	qp->route_segs = clamp_t(u32, segs, 1, ERI_SIM_GSO_MAX_SEGS);
	/*
	 * The device segments in software a buffer of gso_max_size bytes or
	 * more, its link-layer header counted, and IPv6's header, which hdrs
	 * leaves out.
	 */
	room = READ_ONCE(dst->dev->gso_max_size);
	ll = dst->dev->hard_header_len + 1 +
	     (qp->ipv6 ? sizeof(struct ipv6hdr) : 0);
	n = eri_sim_gso_max_segs(seg_len, hdrs, room > ll ? room - ll : 0,
				 segs);
	dst_release(dst);
	return n;
}

/*
 * eri_sim_pkt_xmit(), or with @hold, routed and counted but kept on
 * @qp->ack_held.
 */
static void eri_sim_pkt_send(struct eri_sim_qp *qp, struct sk_buff *skb,
			     bool hold)
{
	u32 npkts = skb_is_gso(skb) ? skb_shinfo(skb)->gso_segs : 1;
	struct eri_sim_net *en = qp->sdev->net;
	u32 len = skb->len;
	bool sent;

	lockdep_assert_held(&qp->lock);
	if (skb_is_gso(skb)) {
		/*
		 * Segmentation offload checksums each datagram: the UDP
		 * checksum is partial from the UDP header the tunnel code
		 * pushes in front of the data.
		 */
		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb_headroom(skb) - sizeof(struct udphdr);
		skb->csum_offset = offsetof(struct udphdr, check);
	}
	/*
	 * ECN-capable transport in either family: routers mark congestion
	 * instead of dropping.
	 */
	rcu_read_lock();
	sent = en && (qp->ipv6 ? eri_sim_pkt_xmit6(qp, en, skb, hold) :
				 eri_sim_pkt_xmit4(qp, en, skb, hold));
	rcu_read_unlock();
	if (!sent) {
		kfree_skb(skb);
		return;
	}
	trace_eri_sim_xmit(qp->sdev->ibdev_name, qp->qpn, npkts, len);
	eri_sim_stat_add(qp->sdev, ERI_STAT_TX_PKTS, npkts);
	eri_sim_stat_add(qp->sdev, ERI_STAT_TX_SKBS, 1);
	qp->tx_pkts += npkts;
	qp->tx_skbs++;
}

/**
 * eri_sim_pkt_xmit - send a packet, or a super-packet, of @qp to its peer
 * @qp: the QP
 * @skb: from eri_sim_pkt_alloc(), header filled in, or a super-packet
 *	(eri_sim_txb_flush(): GSO fields set)
 *
 * qp->lock held (it covers the route cache).  Consumes @skb; a packet
 * without a socket or a route is dropped, as on a wire.
 */
void eri_sim_pkt_xmit(struct eri_sim_qp *qp, struct sk_buff *skb)
{
	eri_sim_pkt_send(qp, skb, false);
}

/**
 * eri_sim_pkt_xmit_ack - send an ACK or NAK of @qp's responder
 * @qp: the QP
 * @skb: from eri_sim_pkt_alloc(), header filled in
 *
 * qp->lock held.  As eri_sim_pkt_xmit(); while the receive path holds the
 * lock (@qp->ack_held), the ACK is routed and counted now, and waits
 * there to be handed to the stack once the lock is released.
 */
void eri_sim_pkt_xmit_ack(struct eri_sim_qp *qp, struct sk_buff *skb)
{
	eri_sim_pkt_send(qp, skb, !!qp->ack_held);
}

/**
 * eri_sim_pkt_xmit_held - hand the ACKs a receive batch held to the stack
 * @sdev: the device of their QP
 * @held: the ACKs, in the order they were sent
 *
 * Softirq context, no lock held.  Consumes every ACK on @held.
 */
void eri_sim_pkt_xmit_held(struct eri_sim_dev *sdev, struct sk_buff_head *held)
{
	struct eri_sim_net *en;
	struct sk_buff *skb;

	rcu_read_lock();
	en = sdev->net;
	while ((skb = __skb_dequeue(held))) {
		struct eri_sim_held_ack h;
		struct socket *sock;
		bool ipv6;

		/* The stack's own control block takes its place. */
		memcpy(&h, skb->cb, sizeof(h));
		ipv6 = h.dst->ops->family == AF_INET6;
		sock = en ? rcu_dereference(en->sock[ipv6 ? ERI_SIM_SOCK_IPV6 :
							   ERI_SIM_SOCK_IPV4]) :
			    NULL;
		if (!sock) {
			dst_release(h.dst);
			kfree_skb(skb);
			continue;
		}
#if IS_ENABLED(CONFIG_IPV6)
		if (ipv6) {
			udp_tunnel6_xmit_skb(h.dst, sock->sk, skb, NULL,
					     &h.saddr, &h.daddr, h.tos, h.ttl,
					     h.label, h.sport,
					     htons(ERI_UDP_PORT), false);
			continue;
		}
#endif
		udp_tunnel_xmit_skb(dst_rtable(h.dst), sock->sk, skb,
				    h.saddr.s6_addr32[3], h.daddr.s6_addr32[3],
				    h.tos, h.ttl, htons(IP_DF), h.sport,
				    htons(ERI_UDP_PORT), false, false);
	}
	rcu_read_unlock();
}

/**
 * eri_sim_send_ack_locked - send an ACK or NAK for the responder
 * @qp: the QP
 * @syndrome: enum eri_wire_syndrome
 * @psn: the PSN it is about
 * @aux: RNR timer of an RNR NAK
 *
 * qp->lock held.  An ACK carries the next expected PSN, the SACK words of
 * the receive map, the timestamp of the latest request and whether a
 * request arrived marked CE since the last ACK; a NAK says that every PSN
 * before @psn arrived.
 */
void eri_sim_send_ack_locked(struct eri_sim_qp *qp, u8 syndrome, u32 psn,
			     u32 aux)
{
	struct eri_wire_hdr *hdr;
	struct sk_buff *skb;

	lockdep_assert_held(&qp->lock);
	skb = eri_sim_pkt_alloc(qp, 0, &hdr);
	if (!skb)
		return;	/* the requester's timer covers a lost ACK */
	hdr->opcode = ERI_OP_ACK;
	hdr->syndrome = syndrome;
	hdr->dqpn = cpu_to_be32(qp->dest_qpn);
	hdr->sqpn = cpu_to_be32(qp->qpn);
	hdr->psn = cpu_to_be32(psn);
	hdr->aux = cpu_to_be32(aux);
	hdr->ts_echo = qp->ts_recent;
	if (qp->ce_seen)
		hdr->flags |= ERI_WIRE_ECE;
	qp->ce_seen = false;
	qp->unacked = 0;
	hrtimer_try_to_cancel(&qp->ack_timer);
	if (syndrome == ERI_SYN_ACK) {
		hdr->seg_max = cpu_to_be32(eri_sim_dev_seg_max(qp->sdev));
		hdr->ack_psn = cpu_to_be32(qp->rmap.base);
		hdr->offset = cpu_to_be32(eri_sim_sack_encode(&qp->rmap,
							      hdr->sack));
	} else {
		hdr->ack_psn = cpu_to_be32(psn);
	}
	trace_eri_sim_ack_tx(qp->sdev->ibdev_name, qp->qpn,
			     be32_to_cpu(hdr->ack_psn), syndrome);
	eri_sim_pkt_xmit_ack(qp, skb);
}
