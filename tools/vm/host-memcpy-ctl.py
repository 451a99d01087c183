#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The host's side of wddmseg-bench -C (tools/bench.sh).

usage: host-memcpy-ctl.py CTL_SOCKET HOST_MEMCPY_PROGRAM TIMEOUT

Connects to run-vm.sh's --ctl socket (the guest's /dev/ttyS2), retrying
until QEMU listens or TIMEOUT seconds have passed, and answers every line
"memcpy" from the guest with one line: what HOST_MEMCPY_PROGRAM prints
(the host's memcpy bandwidth now, in MiB/s), or 0 if it failed. The
guest waits for the answer, so the VM idles while the host copies. Exits
0 when QEMU closes the socket, 1 if it never could connect.
"""
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from screendump import connect_unix  # noqa: E402 (after the line above)


def sample(program):
    r = subprocess.run([program], capture_output=True, text=True,
                       check=False)
    out = r.stdout.strip()
    return out if r.returncode == 0 and out else "0"


def main():
    if len(sys.argv) != 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    path, program, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
    try:
        s = connect_unix(path, timeout)
    except OSError as e:
        print(f"host-memcpy-ctl: cannot connect to {path}: {e}",
              file=sys.stderr)
        return 1
    buf = b""
    with s:
        while True:
            data = s.recv(4096)
            if not data:
                return 0
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if line.strip() == b"memcpy":
                    s.sendall(sample(program).encode() + b"\n")


if __name__ == "__main__":
    sys.exit(main())
