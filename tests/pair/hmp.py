#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""hmp.py SOCKET COMMAND...: runs each COMMAND on the QEMU human monitor
listening on the UNIX socket SOCKET (vm-run --monitor) and prints its
output, without the monitor's prompt, echo and terminal sequences.  Exit
status 1 when the monitor cannot be reached within 10 s; an error when it
stops answering for 60 s."""
import re
import socket
import sys
import time

PROMPT = b"(qemu) "
ESC = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


def read_prompt(s):
    buf = b""
    while not ESC.sub(b"", buf).endswith(PROMPT):
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
    return ESC.sub(b"", buf).decode(errors="replace")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    deadline = time.time() + 10
    while True:
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sys.argv[1])
            break
        except OSError:
            if time.time() > deadline:
                print("hmp.py: cannot connect to %s" % sys.argv[1], file=sys.stderr)
                sys.exit(1)
            time.sleep(0.2)
    # A monitor that stops answering fails the caller, not hangs it.
    s.settimeout(60)
    read_prompt(s)
    for cmd in sys.argv[2:]:
        s.sendall(cmd.encode() + b"\n")
        out = read_prompt(s).replace("\r", "")
        # The monitor echoes the command line as it is typed (one line,
        # redrawn per character); the prompt ends the answer.
        lines = out.split("\n")[1:]
        if lines and lines[-1].startswith(PROMPT.decode().strip()):
            lines = lines[:-1]
        sys.stdout.write("".join(line + "\n" for line in lines))
    s.close()


if __name__ == "__main__":
    main()
