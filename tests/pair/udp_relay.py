#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""udp_relay.py: the network between a guest that live-migrates and its peer.

Two QEMU datagram netdevs on the host's loopback, one per guest, each sending
to one of the relay's ports: what arrives on --mobile-port goes to --peer;
what arrives on --peer-port goes to wherever the mobile guest last sent from.
A migration's destination QEMU has a socket of its own (its source's is still
bound), so the relay, like a switch learning a MAC address that moved,
follows it from its first frame (QEMU announces a migrated NIC at once).

  udp_relay.py --mobile-port N --peer-port M --peer PORT

Runs until SIGTERM, then prints the frames relayed each way and how many
times the mobile guest's address changed.
"""
import argparse
import selectors
import signal
import socket
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mobile-port", type=int, required=True)
    ap.add_argument("--peer-port", type=int, required=True)
    ap.add_argument("--peer", type=int, required=True, help="the peer's UDP port")
    args = ap.parse_args()

    mobile = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    mobile.bind(("127.0.0.1", args.mobile_port))
    peer = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    peer.bind(("127.0.0.1", args.peer_port))
    peer_addr = ("127.0.0.1", args.peer)
    for s in (mobile, peer):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
        s.setblocking(False)

    stats = {"to_peer": 0, "to_mobile": 0, "dropped": 0, "moves": 0}
    mobile_addr = None
    done = False

    def stop(_sig, _frame):
        nonlocal done
        done = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    sel = selectors.DefaultSelector()
    sel.register(mobile, selectors.EVENT_READ)
    sel.register(peer, selectors.EVENT_READ)
    while not done:
        for key, _ in sel.select(timeout=0.5):
            while True:
                try:
                    data, addr = key.fileobj.recvfrom(65536)
                except (BlockingIOError, InterruptedError):
                    break
                try:
                    if key.fileobj is mobile:
                        if addr != mobile_addr:
                            if mobile_addr is not None:
                                stats["moves"] += 1
                            mobile_addr = addr
                        peer.sendto(data, peer_addr)
                        stats["to_peer"] += 1
                    elif mobile_addr is not None:
                        mobile.sendto(data, mobile_addr)
                        stats["to_mobile"] += 1
                    else:
                        stats["dropped"] += 1
                except OSError:
                    # A full socket buffer, a QEMU that has gone (refused):
                    # a lossy network drops the frame.
                    stats["dropped"] += 1
    print("udp_relay: %d frames to the peer, %d to the mobile guest, %d dropped, "
          "the mobile guest moved %d time(s)" % (stats["to_peer"], stats["to_mobile"],
                                                 stats["dropped"], stats["moves"]))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
