#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Hostile datagrams to an ERI device's UDP port, for tests/vm/hostile_net.sh.

  eri_spray.py mad ADDR COUNT
      COUNT datagrams to the GSI QP (QPN 1) with its Q_Key that are no MAD,
      in turn: a base version other than 1, a subnet management class
      (QP0's), a length other than 256 bytes.
  eri_spray.py flood ADDR SECONDS QPN:PSN...|-
      for SECONDS, or until SIGTERM, about 2000 datagrams a second of every kind a hostile
      network sends: random bytes, short and truncated headers, other wire
      versions, random opcodes, flags and keys to the QPNs given and to
      others, spoofed ACKs, NAKs, READ and atomic responses; every PSN and
      acknowledged PSN half the PSN space away from each PSN given (the
      live QPs' send and receive PSNs), so no datagram can be taken for a
      live one and end a connection by protocol.  "-": the QPN:PSN...
      targets are the first line of standard input, so that a caller can
      start the sprayer before it knows them (Python starts slowly).

The header is struct eri_wire_hdr of
drivers/infiniband/sw/eri_sim/eri_wire_defs.h
(version 3, 80 bytes).  Prints what it sent.
"""
import os
import random
import signal
import socket
import struct
import sys
import time

PORT = 4793
VERSION = 3
HDR_LEN = 80
GSI_QKEY = 0x80010000
OP_ACK, OP_READ_RESP, OP_UD_SEND, OP_ATOMIC_RESP = 8, 7, 9, 12
PSN_MASK = 0xFFFFFF


def hdr(opcode, dqpn, psn=0, ack_psn=0, msg_len=0, rkey=0, flags=3,
        syndrome=0, raddr=0, version=VERSION, sqpn=1, offset=0):
    """An ERI header: the fields of struct eri_wire_hdr, big-endian."""
    return struct.pack(">BBBBIIIIIIIQIIIIII16s", version, opcode, flags,
                       syndrome, dqpn, sqpn, psn, ack_psn, msg_len, offset,
                       rkey, raddr, 0, 0, 0, 0, 0, 0, bytes(16))


def spray_mad(sock, addr, count):
    kinds = {"base version 0x55": 0, "class SUBN_DR": 0, "200 bytes": 0}
    for i in range(count):
        mad = bytearray(os.urandom(256))
        if i % 3 == 0:
            mad[0], mad[1], kind = 0x55, 0x07, "base version 0x55"
        elif i % 3 == 1:
            mad[0], mad[1], kind = 1, 0x81, "class SUBN_DR"
        else:
            mad = mad[:200]
            mad[0], mad[1], kind = 1, 0x07, "200 bytes"
        pkt = hdr(OP_UD_SEND, 1, msg_len=len(mad), rkey=GSI_QKEY) + mad
        sock.sendto(pkt, (addr, PORT))
        kinds[kind] += 1
        if i % 50 == 49:
            time.sleep(0.01)
    for k, v in kinds.items():
        print("# sent %d non-MADs to QP1: %s" % (v, k))


def far_psn(psns):
    """A PSN half the PSN space away from every one of psns."""
    while True:
        p = random.randrange(PSN_MASK + 1)
        if all(min((p - q) & PSN_MASK, (q - p) & PSN_MASK) > 0x400000
               for q in psns):
            return p


STOP = []


def spray_flood(sock, addr, seconds, targets):
    qpns = [t[0] for t in targets] + [0, 1, 2, 0xFFFFFF, 0x7FFFFFFF]
    psns = [p for t in targets for p in t[1:]]
    sent = {}
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end and not STOP:
        spray_one(sock, addr, qpns, psns, sent)
        n += 1
    for k in sorted(sent):
        print("# sent %d datagrams: %s" % (sent[k], k))
    print("# sent %d datagrams in all" % n)


def spray_one(sock, addr, qpns, psns, sent):
    """One hostile datagram of a random kind, counted in sent."""
    kind = random.randrange(8)
    qpn = random.choice(qpns)
    psn, apsn = far_psn(psns), far_psn(psns)
    plen = random.choice([0, 1, 64, 1024, 1400])
    payload = os.urandom(plen)
    if kind == 0:
        name, pkt = "random bytes", os.urandom(random.randrange(1, 1500))
    elif kind == 1:
        name = "truncated header"
        pkt = hdr(random.randrange(1, 13), qpn, psn)[:random.randrange(HDR_LEN)]
    elif kind == 2:
        name = "other version"
        pkt = hdr(random.randrange(1, 13), qpn, psn,
                  version=random.choice([0, 1, 2, 4, 255])) + payload
    elif kind == 3:
        name = "random opcode, flags, keys"
        pkt = hdr(random.randrange(256), qpn, psn, apsn,
                  random.randrange(1 << 32), random.randrange(1 << 32),
                  random.randrange(256), random.randrange(256),
                  random.randrange(1 << 64),
                  offset=random.randrange(1 << 32)) + payload
    elif kind == 4:
        name = "spoofed ACK/NAK"
        pkt = hdr(OP_ACK, qpn, psn, apsn, flags=0,
                  syndrome=random.randrange(6))
    elif kind == 5:
        name = "spoofed READ response"
        pkt = hdr(OP_READ_RESP, qpn, psn, apsn, plen,
                  flags=random.randrange(4)) + payload
    elif kind == 6:
        name = "spoofed atomic response"
        pkt = hdr(OP_ATOMIC_RESP, qpn, psn, apsn, 8) + os.urandom(8)
    else:
        name = "UD to a QP with a wrong Q_Key"
        pkt = hdr(OP_UD_SEND, qpn, msg_len=plen,
                  rkey=random.randrange(1 << 31)) + payload
    sock.sendto(pkt, (addr, PORT))
    sent[name] = sent.get(name, 0) + 1
    if sum(sent.values()) % 20 == 0:
        time.sleep(0.01)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    signal.signal(signal.SIGTERM, lambda *_: STOP.append(1))
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    if sys.argv[1] == "mad":
        spray_mad(sock, sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "flood":
        args = sys.argv[4:]
        if args == ["-"]:
            args = sys.stdin.readline().split()
        targets = [tuple(int(x, 0) for x in t.split(":")) for t in args]
        spray_flood(sock, sys.argv[2], float(sys.argv[3]), targets)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
