/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ERI wire protocol, version 1: what ERI devices send each other.
 *
 * Every packet is one UDP datagram to port ERI_UDP_PORT carrying struct
 * eri_wire_hdr and then the payload (at most the path MTU).  Fields are in
 * network byte order.  Documentation/infiniband/eri.rst describes the
 * protocol; only devices use this header, never the driver.
 */
#ifndef _ERI_WIRE_DEFS_H_
#define _ERI_WIRE_DEFS_H_

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>

/* Not assigned by IANA; RoCEv2's 4791 is taken by RoCE devices. */
#define ERI_UDP_PORT		4793

#define ERI_WIRE_VERSION	1

/* PSNs are 24-bit and wrap. */
#define ERI_PSN_MASK		GENMASK(23, 0)

enum eri_wire_opcode {
	ERI_OP_SEND = 1,
	ERI_OP_SEND_IMM = 2,
	ERI_OP_SEND_INV = 3,
	ERI_OP_WRITE = 4,
	ERI_OP_WRITE_IMM = 5,
	ERI_OP_READ_REQ = 6,
	ERI_OP_READ_RESP = 7,
	ERI_OP_ACK = 8,
	/* Unreliable datagrams: one packet each, no PSN, never answered. */
	ERI_OP_UD_SEND = 9,
	ERI_OP_UD_SEND_IMM = 10,
};

/* Flags of struct eri_wire_hdr. */
#define ERI_WIRE_FIRST		BIT(0)	/* first packet of a message */
#define ERI_WIRE_LAST		BIT(1)	/* last packet of a message */
#define ERI_WIRE_SOLICITED	BIT(2)
#define ERI_WIRE_ACK_REQ	BIT(3)	/* the responder acknowledges now */

/* Syndromes of ERI_OP_ACK. */
enum eri_wire_syndrome {
	ERI_SYN_ACK = 0,
	ERI_SYN_RNR_NAK = 1,		/* @aux: IB RNR timer encoding */
	ERI_SYN_SEQ_NAK = 2,		/* resend from @psn */
	ERI_SYN_INV_REQ_NAK = 3,
	ERI_SYN_ACCESS_NAK = 4,
	ERI_SYN_OP_NAK = 5,
};

/**
 * struct eri_wire_hdr - header of every ERI packet
 * @version: ERI_WIRE_VERSION; packets of other versions are dropped
 * @opcode: enum eri_wire_opcode
 * @flags: ERI_WIRE_*
 * @syndrome: enum eri_wire_syndrome (ACK only)
 * @dqpn: destination queue pair
 * @sqpn: source queue pair
 * @psn: requests and READ responses: the packet's PSN; a READ request
 *	takes one PSN per response packet it asks for.  ACK: the PSN the
 *	NAK is about (unused for a plain ACK)
 * @ack_psn: ACK: every PSN before this one was received
 * @msg_len: requests: bytes of the whole message (READ_REQ: of this
 *	request)
 * @offset: byte offset of this packet's payload within the message
 * @rkey: WRITE, WRITE_IMM, READ_REQ: the remote key; UD_SEND and
 *	UD_SEND_IMM: the Q_Key
 * @raddr: WRITE, WRITE_IMM, READ_REQ: remote address of byte 0 of the
 *	message (READ_REQ: of the request)
 * @imm: SEND_IMM and WRITE_IMM: immediate data; SEND_INV: key to
 *	invalidate
 * @aux: ACK: RNR timer of an RNR NAK
 */
struct eri_wire_hdr {
	u8 version;
	u8 opcode;
	u8 flags;
	u8 syndrome;
	__be32 dqpn;
	__be32 sqpn;
	__be32 psn;
	__be32 ack_psn;
	__be32 msg_len;
	__be32 offset;
	__be32 rkey;
	__be64 raddr;
	__be32 imm;
	__be32 aux;
};

static_assert(sizeof(struct eri_wire_hdr) == 48);

/* Bytes on top of the payload in the worst case (IPv6). */
#define ERI_WIRE_OVERHEAD	(40 + 8 + 64)

#endif /* _ERI_WIRE_DEFS_H_ */
