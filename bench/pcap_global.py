"""Discord's global limit counted from a packet capture: an oracle for the fake's own count.

    tcpdump -i lo -s 256 -w /tmp/cap.pcap 'tcp and not port 5432' &   # beside a bench.cluster run
    .venv/bin/python -m bench.pcap_global /tmp/cap.pcap

Every HTTP request to the Discord API in the capture (a TCP segment whose payload starts ``GET /api/``,
``POST /api/`` …) is stamped with its capture time, the kernel's; those bound to the global limit (every route but the
interaction endpoints: ``pancog.infra.rest.exempt``) are counted over every sliding second with the fake's own meter
(``tests.fakediscord.server.busiest_window``). Used on 5 December to settle whether the bench's 52-63 in one second were
the bot's sending or the fake's reading (docs/performance.md, "The global limit counted at arrival"). Reads classic
pcap files (microsecond or nanosecond) of Ethernet, Linux cooked (v1, v2) or raw IPv4 frames.
"""

from __future__ import annotations

import argparse
import collections
import struct
from collections.abc import Iterator
from pathlib import Path

from pancog.infra.rest import exempt, route_of
from tests.fakediscord.server import busiest_window

_METHODS = tuple(f"{m} /api/".encode() for m in ("GET", "POST", "PATCH", "PUT", "DELETE"))
_LINK_HEADER = {1: 14, 113: 16, 276: 20, 101: 0}  # Ethernet, Linux cooked v1, v2, raw IP


def requests(data: bytes) -> Iterator[tuple[float, str, str]]:
    """(capture time, method, path) of each API request's first segment, in capture order."""
    magic = struct.unpack_from("<I", data, 0)[0]
    if magic not in (0xA1B2C3D4, 0xA1B23C4D):
        raise SystemExit("not a little-endian classic pcap file (tcpdump -w writes one)")
    scale = 1e9 if magic == 0xA1B23C4D else 1e6
    link = struct.unpack_from("<I", data, 20)[0]
    if link not in _LINK_HEADER:
        raise SystemExit(f"link type {link} not read here")
    offset = 24
    while offset + 16 <= len(data):
        seconds, fraction, length, _ = struct.unpack_from("<IIII", data, offset)
        packet = data[offset + 16 : offset + 16 + length]
        offset += 16 + length
        ip = packet[_LINK_HEADER[link] :]
        if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6:  # IPv4, TCP
            continue
        tcp = ip[(ip[0] & 15) * 4 :]
        if len(tcp) < 20:
            continue
        payload = tcp[(tcp[12] >> 4) * 4 :]
        if payload.startswith(_METHODS):
            method, path = payload.split(b"\r\n", 1)[0].decode("latin-1").split(" ")[:2]
            yield seconds + fraction / scale, method, path


def count(data: bytes) -> tuple[int, int, int, dict[int, int]]:
    """(API requests, those bound to the global limit, the most of those in any one second, counted ones per whole
    second from the first)."""
    counted: list[float] = []
    total = 0
    for at, _method, path in requests(data):
        total += 1
        if not exempt(route_of(path.split("?", 1)[0])):
            counted.append(at)
    counted.sort()
    per_second = collections.Counter(int(at - counted[0]) for at in counted) if counted else collections.Counter()
    return total, len(counted), busiest_window(counted), dict(sorted(per_second.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("capture", type=Path)
    args = parser.parse_args()
    total, counted, busiest, per_second = count(args.capture.read_bytes())
    print(f"{total} API requests, {counted} bound to the global limit; the busiest 1 s window: {busiest}")
    print("counted per second:", " ".join(f"{s}:{n}" for s, n in per_second.items()))


if __name__ == "__main__":
    main()
