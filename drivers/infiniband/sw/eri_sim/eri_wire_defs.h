/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ERI wire protocol, version 3: what ERI devices send each other.
 *
 * Every packet is one UDP datagram to port ERI_UDP_PORT carrying struct
 * eri_wire_hdr and then the payload (at most the path MTU).  Fields are in
 * network byte order.  Documentation/infiniband/eri.rst describes the
 * protocol.  Only devices use this header, never the driver: it lives with
 * the software device.
 */
#ifndef _ERI_WIRE_DEFS_H_
#define _ERI_WIRE_DEFS_H_

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>

/* Not assigned by IANA; RoCEv2's 4791 is taken by RoCE devices. */
#define ERI_UDP_PORT		4793

#define ERI_WIRE_VERSION	3

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
	/* RC atomics: one PSN, answered by ATOMIC_RESP (or a NAK). */
	ERI_OP_ATOMIC_REQ = 11,
	ERI_OP_ATOMIC_RESP = 12,
};

/* @aux of ERI_OP_ATOMIC_REQ. */
enum eri_wire_atomic_op {
	ERI_ATOMIC_CMP_SWP = 0,
	ERI_ATOMIC_FETCH_ADD = 1,
};

/* Flags of struct eri_wire_hdr. */
#define ERI_WIRE_FIRST		BIT(0)	/* first packet of a message */
#define ERI_WIRE_LAST		BIT(1)	/* last packet of a message */
#define ERI_WIRE_SOLICITED	BIT(2)
#define ERI_WIRE_ACK_REQ	BIT(3)	/* the responder acknowledges now */
#define ERI_WIRE_ECE		BIT(4)	/* ACK: a request arrived marked CE */
#define ERI_WIRE_RETX		BIT(5)	/* request: sent again */
#define ERI_WIRE_PROBE		BIT(6)	/* request: tail-loss probe */
#define ERI_WIRE_INORDER	BIT(7)	/* request: place only in PSN order */

/*
 * Payloads larger than the path MTU come in steps of this many bytes
 * (struct eri_wire_hdr's seg_max; a READ_REQ's aux of
 * ERI_WIRE_READ_SEG_MIN and more).
 */
#define ERI_WIRE_SEG_ALIGN	64
/* A READ_REQ's aux from this value on is its responses' payload in bytes. */
#define ERI_WIRE_READ_SEG_MIN	256
/* PSNs an ACK's SACK words cover (from ack_psn + 1 + offset). */
#define ERI_WIRE_SACK_BITS	128

/* Syndromes of ERI_OP_ACK. */
enum eri_wire_syndrome {
	ERI_SYN_ACK = 0,
	ERI_SYN_RNR_NAK = 1,		/* @aux: IB RNR timer encoding */
	ERI_SYN_SEQ_NAK = 2,		/* version 1 only: never sent */
	ERI_SYN_INV_REQ_NAK = 3,
	ERI_SYN_ACCESS_NAK = 4,
	ERI_SYN_OP_NAK = 5,
	ERI_SYN_VERSION_NAK = 6,	/* @aux: the versions accepted */
};

/*
 * The versions a VERSION_NAK's sender accepts, in @aux.  Every version
 * keeps the header's first 12 bytes (@version to @sqpn) as they are here:
 * a device reads a packet of any version that far, and takes a VERSION_NAK
 * of any version (Documentation/infiniband/eri.rst, "Versions").
 */
#define ERI_WIRE_NAK_VERSION_MIN	GENMASK(15, 8)
#define ERI_WIRE_NAK_VERSION_MAX	GENMASK(7, 0)

/**
 * struct eri_wire_hdr - header of every ERI packet
 * @version: ERI_WIRE_VERSION
 * @opcode: enum eri_wire_opcode
 * @flags: ERI_WIRE_*
 * @syndrome: enum eri_wire_syndrome (ACK only)
 * @dqpn: destination queue pair
 * @sqpn: source queue pair
 * @psn: requests, READ and ATOMIC responses: the packet's PSN (ATOMIC_RESP:
 *	its request's); a READ request takes one PSN per response packet it
 *	asks for.  ACK: the PSN of the request that triggered it, or that a
 *	NAK is about
 * @ack_psn: ACK: every PSN before this one arrived (the responder's next
 *	expected PSN)
 * @msg_len: requests: bytes of the whole message (READ_REQ: of this
 *	request)
 * @offset: requests, READ responses: byte offset of this packet's payload
 *	within the message; ACK: where the SACK words start (below)
 * @rkey: WRITE, WRITE_IMM, READ_REQ, ATOMIC_REQ: the remote key; UD_SEND and
 *	UD_SEND_IMM: the Q_Key
 * @raddr: WRITE, WRITE_IMM, READ_REQ: remote address of byte 0 of the
 *	message (READ_REQ: of the request; ATOMIC_REQ: of the 8-byte word)
 * @imm: SEND_IMM and WRITE_IMM: immediate data; SEND_INV: key to
 *	invalidate
 * @aux: ACK: RNR timer of an RNR NAK, the versions a VERSION_NAK's sender
 *	accepts (ERI_WIRE_NAK_VERSION_*); READ_REQ: log2 of the MTU;
 *	ATOMIC_REQ: enum eri_wire_atomic_op
 * @ts: requests: the low 32 bits of the sender's clock in ns when it sent
 *	the packet; ACK, READ_RESP and ATOMIC_RESP: 0, ignored
 * @ts_echo: ACK, READ_RESP and ATOMIC_RESP: @ts of the request that
 *	triggered it
 * @msn: SEND, SEND_IMM, SEND_INV, WRITE_IMM: the message's number among
 *	the messages that consume a receive WQE (0 for the first after
 *	RESET, 32 bits, wraps)
 * @seg_max: ACK: the largest payload, in bytes, the sender takes in one
 *	request or READ response packet (a multiple of ERI_WIRE_SEG_ALIGN), or
 *	0: no more than the path MTU.  Zero in every other packet
 * @sack: ACK: bit j (least significant first) of word j / 64 is set when
 *	PSN ack_psn + 1 + offset + j arrived
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
	__be32 ts;
	__be32 ts_echo;
	__be32 msn;
	__be32 seg_max;
	__be64 sack[ERI_WIRE_SACK_BITS / 64];
};

static_assert(sizeof(struct eri_wire_hdr) == 80);

/*
 * Payload of ERI_OP_ATOMIC_REQ: the swap value (CMP_SWP) or the addend
 * (FETCH_ADD), and CMP_SWP's compare value.
 */
struct eri_wire_atomic {
	__be64 swap_add;
	__be64 compare;
};

static_assert(sizeof(struct eri_wire_atomic) == 16);

/* Payload of ERI_OP_ATOMIC_RESP: the word's value before the atomic. */
struct eri_wire_atomic_resp {
	__be64 orig;
};

static_assert(sizeof(struct eri_wire_atomic_resp) == 8);

#endif /* _ERI_WIRE_DEFS_H_ */
