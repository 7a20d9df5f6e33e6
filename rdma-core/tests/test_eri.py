# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
# Copyright 2026 the ERI authors
"""
Tests of ERI devices (the eri kernel driver and liberi) beyond the generic
tests: rings that wrap many times under every RC opcode with scatter and
gather, a CQ deeper than 2^15 entries whose index passes 16 bits,
solicited completion events, the SRQ limit event, UD's GRH and source QP,
the extended QP's batches and abort, the extended CQ's fields, and the
errors a wrong work request gets (a return value, or an error completion).
"""

import errno
import os
import random
import signal
import socket
import time
import unittest

from pyverbs.cq import CQ, CQEX, CompChannel, CqInitAttrEx, PollCqAttr
from pyverbs.mr import MR
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPEx, QPInitAttr, QPInitAttrEx
from pyverbs.srq import SrqAttr
from pyverbs.wr import RecvWR, SendWR, SGE
import pyverbs.enums as e

from tests.base import RCResources, RDMATestCase, UDResources
import tests.utils as u

GRH_SIZE = 40
IMM = 0x1234abcd
# Under emulation a completion can take a while: the bound of any wait.
POLL_TIMEOUT = 60


def is_eri_dev(dev_name):
    """An ERI device is one the eri kernel module drives."""
    module = f'/sys/class/infiniband/{dev_name}/device/driver/module'
    return os.path.basename(os.path.realpath(module)) == 'eri'


class EriRDMATestCase(RDMATestCase):
    def setUp(self):
        super().setUp()
        if not is_eri_dev(self.dev_name):
            raise unittest.SkipTest('Not an ERI device')


def poll(cq, count, timeout=POLL_TIMEOUT):
    """
    The next @count completions of @cq, whatever their status (where
    tests.utils.poll_cq stops at the first error and bounds the wait at
    10 s, short under emulation).
    """
    wcs = []
    deadline = time.monotonic() + timeout
    while len(wcs) < count:
        _, got = cq.poll(count - len(wcs))
        wcs += got
        if not got and time.monotonic() > deadline:
            raise PyverbsError(f'{count - len(wcs)} of {count} completions '
                               'did not come')
    return wcs


def poll_ok(test, cq, count):
    wcs = poll(cq, count)
    for wc in wcs:
        test.assertEqual(wc.status, e.IBV_WC_SUCCESS,
                         f'wr_id {wc.wr_id}: status {wc.status}')
    return wcs


def wait_event(get, secs):
    """
    What @get (a blocking wait for an event) returns, or None when it has
    not returned within @secs seconds: a timer signal interrupts the wait
    (Python installs its handlers without SA_RESTART).
    """
    fired = []
    old = signal.signal(signal.SIGALRM, lambda signum, frame: fired.append(1))
    signal.setitimer(signal.ITIMER_REAL, secs)
    try:
        return get()
    except PyverbsError:
        if fired:
            return None
        raise
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def split(length, parts):
    """@length cut into @parts lengths, any of them possibly 0."""
    cuts = sorted(random.randint(0, length) for _ in range(parts - 1))
    return [b - a for a, b in zip([0] + cuts, cuts + [length])]


class EriRC(RCResources):
    """
    An RC QP with rings of @depth WQEs and @max_sge SGEs, a CQ of @cqe
    entries (with a completion channel on request), an MR of @mr_size bytes
    the peer may read, write and update atomically, and on request an SRQ
    of @srq_depth WQEs or an extended QP (@send_ops_flags).
    """
    def __init__(self, dev_name, ib_port, gid_index, depth=16, cqe=None,
                 max_sge=1, max_inline=0, mr_size=65536, send_ops_flags=0,
                 channel=False, srq_depth=0, cq_ex_flags=0):
        self.depth = depth
        self.cqe = cqe if cqe else 2 * depth
        self.max_sge = max_sge
        self.max_inline = max_inline
        self.send_ops_flags = send_ops_flags
        self.use_channel = channel
        self.srq_depth = srq_depth
        self.cq_ex_flags = cq_ex_flags
        self.channel = None
        super().__init__(dev_name, ib_port, gid_index,
                         with_srq=bool(srq_depth), msg_size=mr_size)

    def create_cq(self):
        if self.use_channel:
            self.channel = CompChannel(self.ctx)
        if self.cq_ex_flags:
            self.cq = CQEX(self.ctx, CqInitAttrEx(cqe=self.cqe,
                                                  wc_flags=self.cq_ex_flags))
        else:
            self.cq = CQ(self.ctx, self.cqe, None, self.channel, 0)

    def create_mr(self):
        self.mr = MR(self.pd, self.msg_size,
                     e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
                     e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)

    def create_srq_attr(self):
        return SrqAttr(max_wr=self.srq_depth, max_sge=self.max_sge)

    def create_qp_cap(self):
        return QPCap(max_send_wr=self.depth, max_recv_wr=self.depth,
                     max_send_sge=self.max_sge, max_recv_sge=self.max_sge,
                     max_inline_data=self.max_inline)

    def create_qp_attr(self):
        attr = QPAttr(port_num=self.ib_port)
        attr.qp_access_flags = (e.IBV_ACCESS_REMOTE_WRITE |
                                e.IBV_ACCESS_REMOTE_READ |
                                e.IBV_ACCESS_REMOTE_ATOMIC)
        return attr

    def create_qps(self):
        if not self.send_ops_flags:
            return super().create_qps()
        cap = self.create_qp_cap()
        if self.srq:
            cap.max_recv_wr = 0
        qia = QPInitAttrEx(cap=cap, qp_type=e.IBV_QPT_RC, scq=self.cq,
                           rcq=self.cq, srq=self.srq, pd=self.pd,
                           send_ops_flags=self.send_ops_flags,
                           comp_mask=e.IBV_QP_INIT_ATTR_PD |
                           e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
        qp = QPEx(self.ctx, qia, self.create_qp_attr())
        self.qps.append(qp)
        self.qps_num.append(qp.qp_num)
        self.psns.append(random.getrandbits(24))

    def sges(self, offset, lengths, gap=8):
        """SGEs of @lengths in the MR from @offset on, @gap bytes apart."""
        sges = []
        for length in lengths:
            sges.append(SGE(self.mr.buf + offset, length, self.mr.lkey))
            offset += length + gap
        return sges

    def gather(self, offset, lengths, gap=8):
        """The bytes of sges(@offset, @lengths, @gap), in order."""
        data = b''
        for length in lengths:
            data += self.mr.read(length, offset) if length else b''
            offset += length + gap
        return data

    def scatter(self, offset, lengths, data, gap=8):
        """Write @data into sges(@offset, @lengths, @gap)."""
        for length in lengths:
            if length:
                self.mr.write(data[:length], length, offset)
            data = data[length:]
            offset += length + gap


class EriUD(UDResources):
    """UD QPs whose sends may carry @max_inline bytes inline and 2 SGEs."""
    def __init__(self, dev_name, ib_port, gid_index, max_inline=0):
        self.max_inline = max_inline
        super().__init__(dev_name, ib_port, gid_index, msg_size=1024)

    def create_qp_cap(self):
        return QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=2,
                     max_recv_sge=2, max_inline_data=self.max_inline)

    def create_mr(self):
        self.mr = MR(self.pd, 8192, e.IBV_ACCESS_LOCAL_WRITE)


class EriTestCase(EriRDMATestCase):
    def players(self, **kwargs):
        self.create_players(EriRC, **kwargs)
        return self.client, self.server

    def post_recv(self, player, sges, wr_id=0):
        sges = [s for s in sges if s.length] or sges[:1]
        wr = RecvWR(wr_id=wr_id, num_sge=len(sges), sg=sges)
        if player.srq:
            player.srq.post_recv(wr)
        else:
            player.qp.post_recv(wr)

    def test_eri_rc_rings_wrap(self):
        """
        80 RC operations of every kind through rings of 8 WQEs and a CQ of
        16 entries: each message gathered from 3 SGEs and scattered into 3,
        cut at random places, every byte and every completion checked.
        """
        client, server = self.players(depth=8, cqe=16, max_sge=3,
                                      max_inline=64)
        attr, _ = client.qp.query(e.IBV_QP_CAP)
        self.assertGreaterEqual(attr.cap.max_inline_data, 64)
        self.assertGreaterEqual(attr.cap.max_send_sge, 3)
        ops = [e.IBV_WR_SEND, e.IBV_WR_SEND_WITH_IMM,
               e.IBV_WR_RDMA_WRITE_WITH_IMM, e.IBV_WR_RDMA_WRITE,
               e.IBV_WR_RDMA_READ]
        # Client: gathers from 0, reads into 16 KiB.  Server: receives at 0,
        # is written and read at 32 KiB.
        src, rd, rcv, rmt = 0, 16384, 0, 32768
        for i in range(80):
            op = ops[i % len(ops)]
            length = random.randint(1, 8192)
            inline = op == e.IBV_WR_SEND and i % 10 == 0
            if inline:
                length = random.randint(1, 64)
            data = os.urandom(length)
            lens = split(length, 3)
            flags = e.IBV_SEND_SIGNALED | (e.IBV_SEND_INLINE if inline else 0)
            consumes_recv = op in (e.IBV_WR_SEND, e.IBV_WR_SEND_WITH_IMM,
                                   e.IBV_WR_RDMA_WRITE_WITH_IMM)
            rlens = split(length, 3)
            if consumes_recv:
                rlens[-1] += random.randint(0, 64)
                self.post_recv(server, server.sges(rcv, rlens), wr_id=1000 + i)
            if op == e.IBV_WR_RDMA_READ:
                server.mr.write(data, length, rmt)
                sges = client.sges(rd, lens)
            else:
                client.scatter(src, lens, data)
                sges = client.sges(src, lens)
            sges = [s for s in sges if s.length] or sges[:1]
            wr = SendWR(wr_id=i, opcode=op, num_sge=len(sges), sg=sges,
                        send_flags=flags)
            if op in (e.IBV_WR_SEND_WITH_IMM, e.IBV_WR_RDMA_WRITE_WITH_IMM):
                wr.imm_data = socket.htonl(IMM + i)
            if op != e.IBV_WR_SEND and op != e.IBV_WR_SEND_WITH_IMM:
                wr.set_wr_rdma(server.mr.rkey, server.mr.buf + rmt)
            client.qp.post_send(wr)
            if consumes_recv:
                rwc = poll_ok(self, server.cq, 1)[0]
                self.assertEqual(rwc.wr_id, 1000 + i)
                self.assertEqual(rwc.byte_len, length)
                if op == e.IBV_WR_RDMA_WRITE_WITH_IMM:
                    self.assertEqual(rwc.opcode, e.IBV_WC_RECV_RDMA_WITH_IMM)
                else:
                    self.assertEqual(rwc.opcode, e.IBV_WC_RECV)
                if op == e.IBV_WR_SEND:
                    self.assertFalse(rwc.wc_flags & e.IBV_WC_WITH_IMM)
                else:
                    self.assertTrue(rwc.wc_flags & e.IBV_WC_WITH_IMM)
                    self.assertEqual(socket.ntohl(rwc.imm_data), IMM + i)
            swc = poll_ok(self, client.cq, 1)[0]
            self.assertEqual(swc.wr_id, i)
            if op == e.IBV_WR_RDMA_READ:
                self.assertEqual(swc.opcode, e.IBV_WC_RDMA_READ)
                self.assertEqual(client.gather(rd, lens), data, f'op {i}')
            elif op in (e.IBV_WR_SEND, e.IBV_WR_SEND_WITH_IMM):
                self.assertEqual(server.gather(rcv, rlens)[:length], data,
                                 f'op {i}')
            else:
                self.assertEqual(server.mr.read(length, rmt), data, f'op {i}')

    def test_eri_cq_past_16bit_index(self):
        """
        70,000 completions through a CQ of 65,536 entries (40,000 asked):
        its index passes 2^16 and the owner bit flips, every completion in
        order.
        """
        depth, batch, total = 1024, 512, 70000
        client, server = self.players(depth=depth, cqe=40000,
                                      send_ops_flags=e.IBV_QP_EX_WITH_RDMA_WRITE)
        # Fewer entries than completions: the ring wraps.
        self.assertTrue(40000 <= client.cq.cqe < total, client.cq.cqe)
        qp = client.qp
        posted = polled = 0
        while polled < total:
            n = min(batch, total - posted, depth - (posted - polled))
            if n:
                qp.wr_start()
                for i in range(posted, posted + n):
                    qp.wr_id = i
                    qp.wr_flags = e.IBV_SEND_SIGNALED
                    qp.wr_rdma_write(server.mr.rkey,
                                     server.mr.buf + 8 * (i % 4096))
                    qp.wr_set_sge(SGE(client.mr.buf + 8 * (i % 4096), 8,
                                      client.mr.lkey))
                qp.wr_complete()
                posted += n
            for wc in poll(client.cq, min(batch, posted - polled)):
                self.assertEqual(wc.status, e.IBV_WC_SUCCESS)
                self.assertEqual(wc.wr_id, polled)
                self.assertEqual(wc.opcode, e.IBV_WC_RDMA_WRITE)
                polled += 1
        self.assertEqual(client.cq.poll(1)[0], 0)
        # And one more, which lands.
        client.mr.write(b'\x5a' * 8, 8, 0)
        qp.wr_start()
        qp.wr_id = total
        qp.wr_flags = e.IBV_SEND_SIGNALED
        qp.wr_rdma_write(server.mr.rkey, server.mr.buf)
        qp.wr_set_sge(SGE(client.mr.buf, 8, client.mr.lkey))
        qp.wr_complete()
        self.assertEqual(poll_ok(self, client.cq, 1)[0].wr_id, total)
        self.assertEqual(server.mr.read(8, 0), b'\x5a' * 8)

    def test_eri_solicited_events(self):
        """
        A CQ armed for solicited completions: an unsolicited SEND gives no
        event, a solicited one does; armed for any, any does.
        """
        client, server = self.players(channel=True)
        cq, channel = server.cq, server.channel

        def send(flags):
            self.post_recv(server, server.sges(0, [64]))
            client.qp.post_send(SendWR(opcode=e.IBV_WR_SEND, num_sge=1,
                                       sg=client.sges(0, [64]),
                                       send_flags=e.IBV_SEND_SIGNALED | flags))
            poll_ok(self, client.cq, 1)

        events = []

        def event(secs):
            got = wait_event(lambda: channel.get_cq_event(cq) or True, secs)
            events.extend([got] if got else [])
            return got

        try:
            cq.req_notify(solicited_only=True)
            send(0)
            poll_ok(self, cq, 1)
            self.assertIsNone(event(1),
                              'an unsolicited completion gave an event')
            send(e.IBV_SEND_SOLICITED)
            self.assertTrue(event(POLL_TIMEOUT), 'no event for a solicited one')
            poll_ok(self, cq, 1)
            cq.req_notify()
            send(0)
            self.assertTrue(event(POLL_TIMEOUT), 'no event with the CQ armed')
            poll_ok(self, cq, 1)
        finally:
            # A CQ with events not acknowledged cannot be destroyed.
            if events:
                cq.ack_events(len(events))

    def test_eri_srq_limit(self):
        """
        An SRQ of 16 WQEs with its limit at 4: no event while 4 are left,
        IBV_EVENT_SRQ_LIMIT_REACHED once 3 are, and the limit disarmed.
        """
        client, server = self.players(srq_depth=16)
        srq = server.srq
        for i in range(16):
            self.post_recv(server, server.sges(64 * i, [64]), wr_id=i)
        srq.modify(SrqAttr(srq_limit=4), e.IBV_SRQ_LIMIT)
        self.assertEqual(srq.query().srq_limit, 4)

        def send(count):
            for _ in range(count):
                client.qp.post_send(SendWR(opcode=e.IBV_WR_SEND, num_sge=1,
                                           sg=client.sges(0, [64])))
                poll_ok(self, client.cq, 1)
                poll_ok(self, server.cq, 1)

        def event(secs):
            # Acknowledged at once: an SRQ with an event not acknowledged
            # cannot be destroyed.
            ev = wait_event(server.ctx.get_async_event, secs)
            if ev is None:
                return None
            ev.ack()
            return ev.event_type

        send(12)
        self.assertIsNone(event(1), 'an event with the limit not crossed')
        send(1)
        self.assertEqual(event(POLL_TIMEOUT), e.IBV_EVENT_SRQ_LIMIT_REACHED)
        self.assertEqual(srq.query().srq_limit, 0)

    def test_eri_ud_grh(self):
        """
        UD: an inline send of the largest inline size and a send of 2 SGEs
        arrive after a 40-byte GRH holding the sender's IP header, with
        the sender's QP number; a buffer too small for GRH and payload
        completes with a length error.
        """
        self.create_players(EriUD, max_inline=64)
        client, server = self.client, self.server
        attr, _ = client.qp.query(e.IBV_QP_CAP)
        inline = attr.cap.max_inline_data
        self.assertGreaterEqual(inline, 64)
        gid = client.ctx.query_gid(self.ib_port, self.gid_index)
        ah = u.get_global_ah(client, self.gid_index, self.ib_port)
        sgid = bytes.fromhex(str(gid).replace(':', ''))
        for i, (lens, flags) in enumerate([([inline], e.IBV_SEND_INLINE),
                                           ([300, 700], 0)]):
            length = sum(lens)
            data = os.urandom(length)
            client.mr.write(data[:lens[0]], lens[0], 0)
            if len(lens) > 1:
                client.mr.write(data[lens[0]:], lens[1], 4096)
            sges = [SGE(client.mr.buf, lens[0], client.mr.lkey)]
            if len(lens) > 1:
                sges.append(SGE(client.mr.buf + 4096, lens[1], client.mr.lkey))
            # The GRH and 100 bytes in one SGE, the rest in another.
            server.qp.post_recv(RecvWR(wr_id=i, num_sge=2, sg=[
                SGE(server.mr.buf, GRH_SIZE + 100, server.mr.lkey),
                SGE(server.mr.buf + 4096, 2048, server.mr.lkey)]))
            wr = SendWR(wr_id=i, num_sge=len(sges), sg=sges,
                        send_flags=e.IBV_SEND_SIGNALED | flags)
            wr.set_wr_ud(ah, server.qp.qp_num, server.UD_QKEY)
            client.qp.post_send(wr)
            poll_ok(self, client.cq, 1)
            wc = poll_ok(self, server.cq, 1)[0]
            self.assertEqual(wc.byte_len, GRH_SIZE + length)
            self.assertEqual(wc.src_qp, client.qp.qp_num)
            self.assertTrue(wc.wc_flags & e.IBV_WC_GRH)
            got = server.mr.read(min(length, 100), GRH_SIZE)
            if length > 100:
                got += server.mr.read(length - 100, 4096)
            self.assertEqual(got, data)
            grh = server.mr.read(GRH_SIZE, 0)
            if sgid[:12] == b'\0' * 10 + b'\xff\xff':
                # RoCEv2's layout for IPv4: the IPv4 header in the last 20.
                self.assertEqual(grh[20] >> 4, 4)
                self.assertEqual(grh[32:36], sgid[12:])
            else:
                self.assertEqual(grh[0] >> 4, 6)
                self.assertEqual(grh[8:24], sgid)
        server.qp.post_recv(RecvWR(wr_id=9, num_sge=1, sg=[
            SGE(server.mr.buf, GRH_SIZE + 10, server.mr.lkey)]))
        wr = SendWR(wr_id=9, num_sge=1,
                    sg=[SGE(client.mr.buf, 11, client.mr.lkey)])
        wr.set_wr_ud(ah, server.qp.qp_num, server.UD_QKEY)
        client.qp.post_send(wr)
        poll_ok(self, client.cq, 1)
        self.assertEqual(poll(server.cq, 1)[0].status, e.IBV_WC_LOC_LEN_ERR)

    def test_eri_qp_ex_batch_abort(self):
        """
        ibv_qp_ex: an aborted batch sends nothing; a batch of 5 sends, 3
        of them signaled, delivers all 5 in order and completes the 3.
        """
        client, server = self.players(send_ops_flags=e.IBV_QP_EX_WITH_SEND)
        qp = client.qp
        for i in range(5):
            self.post_recv(server, server.sges(64 * i, [64]), wr_id=i)
            client.mr.write(bytes([i + 1]) * 64, 64, 64 * i)
        qp.wr_start()
        for i in range(3):
            qp.wr_id = 100 + i
            qp.wr_flags = e.IBV_SEND_SIGNALED
            qp.wr_send()
            qp.wr_set_sge(client.sges(64 * i, [64])[0])
        qp.wr_abort()
        time.sleep(0.5)
        self.assertEqual(client.cq.poll(1)[0], 0, 'an aborted WR completed')
        self.assertEqual(server.cq.poll(1)[0], 0, 'an aborted WR arrived')
        qp.wr_start()
        for i in range(5):
            qp.wr_id = i
            qp.wr_flags = e.IBV_SEND_SIGNALED if i % 2 == 0 else 0
            qp.wr_send()
            qp.wr_set_sge(client.sges(64 * i, [64])[0])
        qp.wr_complete()
        self.assertEqual([wc.wr_id for wc in poll_ok(self, client.cq, 3)],
                         [0, 2, 4])
        self.assertEqual([wc.wr_id for wc in poll_ok(self, server.cq, 5)],
                         list(range(5)))
        for i in range(5):
            self.assertEqual(server.mr.read(64, 64 * i), bytes([i + 1]) * 64)

    def test_eri_cq_ex(self):
        """
        ibv_cq_ex: nothing to poll is ENOENT; a SEND with immediate and a
        WRITE with immediate read back with their opcodes, lengths,
        immediates and QP numbers.
        """
        flags = (e.IBV_WC_EX_WITH_BYTE_LEN | e.IBV_WC_EX_WITH_IMM |
                 e.IBV_WC_EX_WITH_QP_NUM)
        client, server = self.players(cq_ex_flags=flags)
        self.assertEqual(server.cq.start_poll(PollCqAttr()), errno.ENOENT)
        for i, op in enumerate([e.IBV_WR_SEND_WITH_IMM,
                                e.IBV_WR_RDMA_WRITE_WITH_IMM]):
            self.post_recv(server, server.sges(0, [256]), wr_id=i)
            wr = SendWR(wr_id=i, opcode=op, num_sge=1,
                        sg=client.sges(0, [200]))
            wr.imm_data = socket.htonl(IMM + i)
            if op == e.IBV_WR_RDMA_WRITE_WITH_IMM:
                wr.set_wr_rdma(server.mr.rkey, server.mr.buf + 4096)
            client.qp.post_send(wr)
            for cq, want in ((server.cq, e.IBV_WC_RECV if i == 0 else
                              e.IBV_WC_RECV_RDMA_WITH_IMM),
                             (client.cq, e.IBV_WC_SEND if i == 0 else
                              e.IBV_WC_RDMA_WRITE)):
                deadline = time.monotonic() + POLL_TIMEOUT
                while cq.start_poll(PollCqAttr()) == errno.ENOENT:
                    self.assertLess(time.monotonic(), deadline, 'no completion')
                self.assertEqual(cq.status, e.IBV_WC_SUCCESS)
                self.assertEqual(cq.wr_id, i)
                self.assertEqual(cq.read_opcode(), want)
                if cq is server.cq:
                    self.assertEqual(cq.read_byte_len(), 200)
                    self.assertTrue(cq.read_wc_flags() & e.IBV_WC_WITH_IMM)
                    self.assertEqual(socket.ntohl(cq.read_imm_data()), IMM + i)
                    self.assertEqual(cq.read_qp_num(), server.qp.qp_num)
                else:
                    self.assertEqual(cq.read_qp_num(), client.qp.qp_num)
                self.assertEqual(cq.poll_next(), errno.ENOENT)
                cq.end_poll()

    def test_eri_post_errors(self):
        """
        Work requests the provider refuses (a QP not ready, more SGEs or
        inline bytes than the QP has, a full send queue) and those the
        device fails (a wrong lkey, a remote key without the right, a
        remote address past the region) with the right errors.
        """
        client, server = self.players(depth=4, max_sge=2, max_inline=32)
        attr, _ = client.qp.query(e.IBV_QP_CAP)
        cap = attr.cap

        def post(qp, wr):
            with self.assertRaises(PyverbsRDMAError) as ex:
                qp.post_send(wr)
            return ex.exception.error_code

        qp = QP(client.pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=client.cq,
                                      rcq=client.cq,
                                      cap=client.create_qp_cap()))
        wr = SendWR(num_sge=1, sg=client.sges(0, [8]))
        self.assertEqual(post(qp, wr), errno.EINVAL, 'a QP in RESET')
        sges = client.sges(0, [8] * (cap.max_send_sge + 1))
        self.assertEqual(post(client.qp, SendWR(num_sge=len(sges), sg=sges)),
                         errno.EINVAL, 'too many SGEs')
        big = client.sges(0, [cap.max_inline_data + 1])
        self.assertEqual(post(client.qp, SendWR(num_sge=1, sg=big,
                                                send_flags=e.IBV_SEND_INLINE)),
                         errno.EINVAL, 'too much inline data')
        write = SendWR(opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                       sg=client.sges(0, [8]))
        write.set_wr_rdma(server.mr.rkey, server.mr.buf)
        for _ in range(cap.max_send_wr):
            client.qp.post_send(write)
        self.assertEqual(post(client.qp, write), errno.ENOMEM, 'a full SQ')
        poll_ok(self, client.cq, cap.max_send_wr)

        # Errors the device reports: each in a QP of its own, which it
        # moves to the error state, flushing what follows.
        def wrong_lkey(client, server):
            return (client.mr.lkey ^ 0x100, server.mr.rkey, server.mr.buf)

        def no_remote_write(client, server):
            mr = MR(server.pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
            server.local_only = mr  # lives as long as the server's PD
            return client.mr.lkey, mr.rkey, mr.buf

        def past_the_end(client, server):
            return (client.mr.lkey, server.mr.rkey,
                    server.mr.buf + server.msg_size - 4)

        for what, status, target in (
                ('a wrong lkey', e.IBV_WC_LOC_PROT_ERR, wrong_lkey),
                ('an rkey without remote write', e.IBV_WC_REM_ACCESS_ERR,
                 no_remote_write),
                ('past the region', e.IBV_WC_REM_ACCESS_ERR, past_the_end)):
            with self.subTest(what):
                client, server = self.players(depth=4)
                lkey, rkey, raddr = target(client, server)
                bad = SendWR(wr_id=1, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                             sg=[SGE(client.mr.buf, 8, lkey)])
                bad.set_wr_rdma(rkey, raddr)
                client.qp.post_send(bad)
                after = SendWR(wr_id=2, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                               sg=client.sges(0, [8]))
                after.set_wr_rdma(server.mr.rkey, server.mr.buf)
                client.qp.post_send(after)
                wcs = poll(client.cq, 2)
                self.assertEqual([(w.wr_id, w.status) for w in wcs],
                                 [(1, status), (2, e.IBV_WC_WR_FLUSH_ERR)])
