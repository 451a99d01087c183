#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Host side of the KMS display checks: QEMU screendumps over QMP.

Python 3 standard library only.

Subcommands:
  dump QMP_SOCKET OUT.ppm [--device QDEV_ID] [--png OUT.png]
      one screendump of a running VM (run-vm.sh --qmp makes the socket)
  png IN.ppm OUT.png
      convert a binary PPM (P6, maxval 255) to an RGB PNG
  check-png FILE.png
      validate a PNG: signature, IHDR, chunk CRCs, IDAT inflates to
      exactly height * (1 + 3 * width) bytes; prints "WxH"
  expect --format XR24|RG16 --width W --height H --seed S OUT.ppm
      write the pattern of tools/wddmseg/wddmseg-pattern.c as QEMU should
      show it
  compare IN.ppm --format F --width W --height H --seed S
      compare a screendump with the expected pattern, pixel-exactly;
      prints the first mismatching pixel
  rgb565-table
      print the 8-bit expansion this script assumes for every RGB565 value
      (tools/vm/pixman-rgb565.c checks it against pixman, whose
      conversion QEMU's screendump uses)
  watch --qmp SOCK --ctl SOCK --log GUEST_OUTPUT --out DIR [--tap FILE]
        [--expect DRIVER:FORMAT]... [--timeout SECS]
      follow the guest's output; on each "WDDMSEG-PATTERN READY" line
      take a screendump of the QEMU console named by its qdev=ID tag,
      compare it with the pattern the line describes, write DIR/NAME.ppm
      and .png, print TAP results, then send a newline to the guest over
      the --ctl socket (its ttyS2) so wddmseg-pattern stops holding the
      mode. On "WDDMSEG-SCREEN name=NAME qdev=ID" lines: a screendump to
      DIR/NAME.png, no comparison. Ends when the guest prints
      "WDDMSEG-KMS END", QEMU exits, or after --timeout seconds.
"""

import argparse
import json
import os
import re
import socket
import struct
import sys
import time
import zlib

# ---------------------------------------------------------------- pattern
# Must match tools/wddmseg/wddmseg-pattern.c (its header comment).

M32 = 0xFFFFFFFF
BARS = (7, 6, 3, 2, 5, 4, 1, 0)  # bit 2 red, bit 1 green, bit 0 blue

FORMATS = {
    "XR24": (255, 255, 255),
    "RG16": (31, 63, 31),
}


def expand5(v):
    """5-bit channel to 8 bits, as pixman converts r5g6b5 (bit replication)."""
    return (v << 3) | (v >> 2)


def expand6(v):
    """6-bit channel to 8 bits, as pixman converts r5g6b5 (bit replication)."""
    return (v << 2) | (v >> 4)


def rgb565_to_rgb888(p):
    return (expand5(p >> 11), expand6((p >> 5) & 63), expand5(p & 31))


def pattern_rgb(fmt, w, h, seed):
    """The pattern as 8-bit RGB bytes, as the screendump should show it."""
    mr, mg, mb = FORMATS[fmt]
    kr, kg, kb = (mr + 1) // 8 - 1, (mg + 1) // 8 - 1, (mb + 1) // 8 - 1
    if fmt == "XR24":
        lr = lg = lb = bytes(range(256))
    else:
        lr = lb = bytes(expand5(v) for v in range(32))
        lg = bytes(expand6(v) for v in range(64))
    xs = [(x * 0x9E3779B1) & M32 for x in range(w)]
    sterm = (seed * 0xC2B2AE3D) & M32
    bar_base = []
    ramp_base = []
    for x in range(w):
        b = BARS[x * 8 // w]
        bar_base.append((mr if b & 4 else 0, mg if b & 2 else 0,
                         mb if b & 1 else 0))
        ramp_base.append((x * mr // (w - 1) if w > 1 else 0,
                          (w - 1 - x) * mg // (w - 1) if w > 1 else 0))
    out = bytearray(w * h * 3)
    pos = 0
    top = h * 3 // 4
    for y in range(h):
        yt = ((y * 0x85EBCA77) & M32) ^ sterm
        row = bytearray(w * 3)
        i = 0
        if y >= top:
            bb = y * mb // (h - 1) if h > 1 else 0
        for x in range(w):
            n = xs[x] ^ yt
            n ^= n >> 16
            n = (n * 0x7FEB352D) & M32
            n ^= n >> 15
            n = (n * 0x846CA68B) & M32
            n ^= n >> 16
            if y < top:
                br, bg, bbx = bar_base[x]
            else:
                br, bg = ramp_base[x]
                bbx = bb
            row[i] = lr[br ^ (n & kr)]
            row[i + 1] = lg[bg ^ ((n >> 8) & kg)]
            row[i + 2] = lb[bbx ^ ((n >> 16) & kb)]
            i += 3
        out[pos:pos + w * 3] = row
        pos += w * 3
    return bytes(out)


def blend_cursor(rgb, w, h, cx0, cy0):
    """wddmseg-pattern -C's 64x64 premultiplied cursor over rgb at
    (cx0, cy0), clipped, as the device blends it."""
    out = bytearray(rgb)
    alpha = (0, 0x55, 0xAA, 0xFF)
    for cy in range(64):
        y = cy0 + cy
        if y < 0 or y >= h:
            continue
        for cx in range(64):
            x = cx0 + cx
            if x < 0 or x >= w:
                continue
            a = alpha[(cx + cy) % 4]
            src = (cx * 4 * a // 255, cy * 4 * a // 255,
                   (((cx ^ cy) * 4) & 0xFF) * a // 255)
            i = 3 * (y * w + x)
            for k in range(3):
                v = src[k] + (out[i + k] * (255 - a) + 127) // 255
                out[i + k] = min(v, 255)
    return bytes(out)


# ---------------------------------------------------------------- images

def read_ppm(path):
    """(width, height, rgb bytes) of a binary PPM with maxval 255."""
    with open(path, "rb") as f:
        data = f.read()
    tokens = []
    i = 0
    while len(tokens) < 4:
        while i < len(data) and data[i:i + 1].isspace():
            i += 1
        if data[i:i + 1] == b"#":
            while i < len(data) and data[i:i + 1] != b"\n":
                i += 1
            continue
        j = i
        while j < len(data) and not data[j:j + 1].isspace():
            j += 1
        if j == i:
            raise ValueError(f"{path}: truncated PPM header")
        tokens.append(data[i:j])
        i = j
    i += 1  # the single whitespace after maxval
    if tokens[0] != b"P6" or tokens[3] != b"255":
        raise ValueError(f"{path}: not a P6 PPM with maxval 255")
    w, h = int(tokens[1]), int(tokens[2])
    pix = data[i:i + w * h * 3]
    if len(pix) != w * h * 3:
        raise ValueError(f"{path}: {len(pix)} bytes of pixels, expected {w * h * 3}")
    return w, h, pix


def write_ppm(path, w, h, rgb):
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (w, h))
        f.write(rgb)


def _chunk(kind, body):
    return (struct.pack(">I", len(body)) + kind + body +
            struct.pack(">I", zlib.crc32(kind + body) & M32))


PNG_SIG = b"\x89PNG\r\n\x1a\n"


def write_png(path, w, h, rgb):
    stride = w * 3
    raw = bytearray()
    for y in range(h):
        raw.append(0)  # filter: none
        raw += rgb[y * stride:(y + 1) * stride]
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8-bit RGB
    with open(path + ".tmp", "wb") as f:
        f.write(PNG_SIG)
        f.write(_chunk(b"IHDR", ihdr))
        f.write(_chunk(b"IDAT", zlib.compress(bytes(raw), 6)))
        f.write(_chunk(b"IEND", b""))
    os.replace(path + ".tmp", path)


def check_png(path):
    """Validate a PNG written by write_png (or any 8-bit RGB PNG)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != PNG_SIG:
        raise ValueError("bad PNG signature")
    pos = 8
    chunks = []
    while pos < len(data):
        if pos + 8 > len(data):
            raise ValueError("truncated chunk header")
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc = data[pos + 8 + length:pos + 12 + length]
        if len(body) != length or len(crc) != 4:
            raise ValueError(f"truncated {kind!r} chunk")
        if struct.unpack(">I", crc)[0] != zlib.crc32(kind + body) & M32:
            raise ValueError(f"bad CRC in {kind!r} chunk")
        chunks.append((kind, body))
        pos += 12 + length
    if not chunks or chunks[0][0] != b"IHDR" or chunks[-1][0] != b"IEND":
        raise ValueError("IHDR must come first and IEND last")
    w, h, depth, ctype, comp, filt, inter = struct.unpack(">IIBBBBB", chunks[0][1])
    if w == 0 or h == 0 or (depth, ctype, comp, filt, inter) != (8, 2, 0, 0, 0):
        raise ValueError(f"unexpected IHDR {w}x{h} depth {depth} type {ctype}")
    raw = zlib.decompress(b"".join(b for k, b in chunks if k == b"IDAT"))
    if len(raw) != h * (1 + 3 * w):
        raise ValueError(f"IDAT inflates to {len(raw)} bytes, expected {h * (1 + 3 * w)}")
    return w, h


def compare(w, h, got, fmt, ew, eh, seed, expected=None):
    """None if equal, else a message naming the first mismatching pixel."""
    if (w, h) != (ew, eh):
        return f"screendump is {w}x{h}, the pattern is {ew}x{eh}"
    if expected is None:
        expected = pattern_rgb(fmt, ew, eh, seed)
    if got == expected:
        return None
    i = next(k for k in range(len(got)) if got[k] != expected[k]) // 3
    x, y = i % w, i // w
    bad = sum(1 for k in range(0, len(got), 3) if got[k:k + 3] != expected[k:k + 3])
    g = got[3 * i:3 * i + 3]
    e = expected[3 * i:3 * i + 3]
    return (f"first mismatch at pixel ({x},{y}): got rgb({g[0]},{g[1]},{g[2]}) "
            f"expected rgb({e[0]},{e[1]},{e[2]}); {bad} of {w * h} pixels differ")


# ---------------------------------------------------------------- QMP

def connect_unix(path, timeout):
    """A stream socket connected to the unix socket @path, retried every
    0.2 s while QEMU has not created it or does not listen yet; the
    OSError of the last try once @timeout seconds have passed. Also used
    by host-memcpy-ctl.py."""
    end = time.monotonic() + timeout
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError:
            s.close()
            if time.monotonic() > end:
                raise
            time.sleep(0.2)


class QMP:
    def __init__(self, path, timeout=60):
        self.sock = connect_unix(path, timeout)
        self.buf = b""
        greeting = self._recv()
        if "QMP" not in greeting:
            raise RuntimeError(f"not a QMP greeting: {greeting}")
        self.command("qmp_capabilities")

    def _recv(self):
        while b"\n" not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError("QMP connection closed")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def command(self, name, **args):
        msg = {"execute": name}
        if args:
            msg["arguments"] = args
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            r = self._recv()
            if "return" in r:
                return r["return"]
            if "error" in r:
                raise RuntimeError(f"QMP {name}: {r['error'].get('desc', r['error'])}")
            self.event(r)

    def event(self, r):
        """Log an asynchronous event (SUSPEND, WAKEUP, RESET, SHUTDOWN and
        its reason tell how a VM that stopped early stopped)."""
        if "event" in r:
            print(f"# qmp event: {r['event']} {json.dumps(r.get('data', {}))}",
                  flush=True)

    def drain(self):
        """Log the events QEMU sent before it closed the connection."""
        try:
            while True:
                self.event(self._recv())
        except (OSError, EOFError, ValueError):
            pass

    def screendump(self, path, device=None):
        if os.path.exists(path):
            os.unlink(path)
        args = {"filename": os.path.abspath(path)}
        if device:
            args["device"] = device
        self.command("screendump", **args)
        return read_ppm(path)

    def alive(self):
        try:
            self.command("query-status")
            return True
        except (OSError, EOFError, RuntimeError):
            self.drain()
            return False


# ---------------------------------------------------------------- watch

class Tap:
    def __init__(self, path):
        self.n = 0
        self.f = open(path, "a") if path else None

    def line(self, ok, msg, skip=None, diag=()):
        self.n += 1
        s = f"{'ok' if ok else 'not ok'} {self.n} - {msg}"
        if skip:
            s += f" # SKIP {skip}"
        for out in (sys.stdout, self.f):
            if out:
                out.write(s + "\n")
                for d in diag:
                    out.write(f"# {d}\n")
                out.flush()


def parse_kv(text):
    return dict(m.groups() for m in re.finditer(r"(\w+)=(\S*)", text))


def watch(a):
    os.makedirs(a.out, exist_ok=True)
    tap = Tap(a.tap)
    expect = set(a.expect or ())
    seen = set()
    qmp = QMP(a.qmp, timeout=120)
    ctl = connect_unix(a.ctl, 60) if a.ctl else None

    def release():
        if ctl:
            try:
                ctl.sendall(b"\n")
            except OSError:
                pass

    pos = 0
    partial = b""
    deadline = time.time() + a.timeout
    finished = False
    while not finished:
        if time.time() > deadline:
            tap.line(False, f"screendump watcher: timeout after {a.timeout}s")
            break
        try:
            with open(a.log, "rb") as f:
                f.seek(pos)
                data = f.read()
        except FileNotFoundError:
            data = b""
        if not data:
            if not qmp.alive():
                break
            time.sleep(0.2)
            continue
        pos += len(data)
        partial += data
        *lines, partial = partial.split(b"\n")
        for raw in lines:
            line = raw.decode(errors="replace").replace("\r", "")
            if "WDDMSEG-KMS END" in line:
                finished = True
            elif "WDDMSEG-SCREEN " in line:
                kv = parse_kv(line)
                name = kv.get("name", "screen")
                try:
                    w, h, rgb = qmp.screendump(os.path.join(a.out, name + ".ppm"),
                                               kv.get("qdev"))
                    png = os.path.join(a.out, name + ".png")
                    write_png(png, w, h, rgb)
                    check_png(png)
                    print(f"screendump: {png} ({w}x{h})", flush=True)
                except (OSError, RuntimeError, ValueError) as e:
                    print(f"screendump: {name}: {e}", flush=True)
                release()
            elif "WDDMSEG-PATTERN " in line:
                handle_pattern(line, qmp, a, tap, seen)
                if " READY " in line:
                    release()
    for key in sorted(expect - seen):
        tap.line(False, f"screendump {key}: the guest never showed the pattern "
                 "(no READY, SKIP or FAIL line)")


def handle_pattern(line, qmp, a, tap, seen):
    """One "WDDMSEG-PATTERN READY|SKIP|FAIL driver=D format=F ..." line."""
    m = re.search(r"WDDMSEG-PATTERN (READY|SKIP|FAIL)\s*(.*)", line)
    if not m:
        return
    kind, rest = m.groups()
    kv = parse_kv(rest)
    driver, fmt = kv.get("driver", "?"), kv.get("format", "?")
    key = f"{driver}:{fmt}"
    if kind == "SKIP":
        seen.add(key)
        why = re.search(r"reason=(.*)", rest)
        tap.line(True, f"screendump {driver} {fmt}", skip=why.group(1) if why else rest)
        return
    if kind == "FAIL":
        seen.add(key)
        tap.line(False, f"screendump {driver} {fmt}: wddmseg-pattern failed in the guest: {rest}")
        return
    seen.add(key)
    w, h, seed = int(kv["width"]), int(kv["height"]), int(kv["seed"])
    name = f"{driver}-{fmt}"
    ppm = os.path.join(a.out, name + ".ppm")
    what = (f"screendump {driver} {fmt} {w}x{h} pitch {kv.get('pitch')} "
            f"flip {kv.get('flip')} seed {seed}")
    t0 = time.time()
    expected = pattern_rgb(fmt, w, h, seed)
    if "cursor" in kv:
        cx, cy = (int(v) for v in kv["cursor"].split(","))
        expected = blend_cursor(expected, w, h, cx, cy)
        what += f" cursor {cx},{cy}"
    tcomp = time.time() - t0
    err = None
    for attempt in range(1, 4):
        try:
            gw, gh, got = qmp.screendump(ppm, kv.get("qdev"))
        except (OSError, RuntimeError, ValueError) as e:
            err = f"screendump failed: {e}"
            got = None
        else:
            err = compare(gw, gh, got, fmt, w, h, seed, expected)
        if err is None:
            break
        time.sleep(1)
    diag = [f"pattern computed in {tcomp:.1f}s; {attempt} screendump(s); {ppm}"]
    if err is None:
        write_png(os.path.join(a.out, name + ".png"), w, h, got)
        tap.line(True, f"{what}: pixel-exact", diag=diag)
        # the comparison must see a one-pixel shift (wrong offset)
        shifted = compare(w, h, got[3:] + got[:3], fmt, w, h, seed, expected)
        tap.line(shifted is not None,
                 f"{what}: the same image shifted by one pixel is refused",
                 diag=[shifted or "the shifted image compared equal"])
    else:
        write_ppm(os.path.join(a.out, name + ".expected.ppm"), w, h, expected)
        if got is not None:
            write_png(os.path.join(a.out, name + ".png"), gw, gh, got)
        tap.line(False, f"{what}: {err}",
                 diag=diag + [f"expected image: {name}.expected.ppm in {a.out}"])


# ---------------------------------------------------------------- main

def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("qmp")
    d.add_argument("out")
    d.add_argument("--device")
    d.add_argument("--png")
    c = sub.add_parser("png")
    c.add_argument("ppm")
    c.add_argument("png")
    v = sub.add_parser("check-png")
    v.add_argument("png")
    for name in ("expect", "compare"):
        e = sub.add_parser(name)
        e.add_argument("file")
        e.add_argument("--format", choices=sorted(FORMATS), required=True)
        e.add_argument("--width", type=int, required=True)
        e.add_argument("--height", type=int, required=True)
        e.add_argument("--seed", type=int, default=1)
    sub.add_parser("rgb565-table")
    w = sub.add_parser("watch")
    w.add_argument("--qmp", required=True)
    w.add_argument("--ctl")
    w.add_argument("--log", required=True)
    w.add_argument("--out", required=True)
    w.add_argument("--tap")
    w.add_argument("--expect", action="append")
    w.add_argument("--timeout", type=int, default=600)
    a = p.parse_args()

    if a.cmd == "dump":
        w, h, rgb = QMP(a.qmp).screendump(a.out, a.device)
        if a.png:
            write_png(a.png, w, h, rgb)
        print(f"{w}x{h}")
    elif a.cmd == "png":
        w, h, rgb = read_ppm(a.ppm)
        write_png(a.png, w, h, rgb)
        print(f"{w}x{h}")
    elif a.cmd == "check-png":
        try:
            w, h = check_png(a.png)
        except (OSError, ValueError, zlib.error) as e:
            print(f"{a.png}: invalid PNG: {e}")
            return 1
        print(f"{w}x{h}")
    elif a.cmd == "expect":
        write_ppm(a.file, a.width, a.height,
                  pattern_rgb(a.format, a.width, a.height, a.seed))
    elif a.cmd == "compare":
        w, h, rgb = read_ppm(a.file)
        err = compare(w, h, rgb, a.format, a.width, a.height, a.seed)
        print(err or "pixel-exact")
        return 1 if err else 0
    elif a.cmd == "rgb565-table":
        for v in range(65536):
            print("%04x %02x%02x%02x" % ((v,) + rgb565_to_rgb888(v)))
    elif a.cmd == "watch":
        watch(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
