"""bench/pcap_global.py: the oracle that counted the global limit from a packet capture reads requests and their
times out of a pcap file, leaves the interaction endpoints and non-requests out, and counts every sliding second."""

from __future__ import annotations

import struct

from bench.pcap_global import count, requests


def _frame(payload: bytes) -> bytes:
    """An Ethernet + IPv4 + TCP frame carrying ``payload`` (the fields read: versions, lengths, protocol)."""
    tcp = struct.pack(">HHIIBBHHH", 40000, 8080, 1, 1, 5 << 4, 0x18, 65535, 0, 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0, 64, 6, 0, b"\x7f\0\0\1", b"\x7f\0\0\1") + tcp
    return b"\0" * 12 + b"\x08\x00" + ip


def _pcap(packets: list[tuple[float, bytes]]) -> bytes:
    out = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    for at, payload in packets:
        frame = _frame(payload)
        out += struct.pack("<IIII", int(at), round((at % 1) * 1e6), len(frame), len(frame)) + frame
    return out


def test_requests_are_counted_by_capture_time_and_interaction_endpoints_left_out() -> None:
    post = b"POST /api/v10/channels/1/messages HTTP/1.1\r\nHost: x\r\n\r\n"
    answer = b"POST /api/v10/interactions/5/tok/callback HTTP/1.1\r\n\r\n"
    packets = [
        (100.0, post),
        (100.4, b"--boundary\r\nContent-Disposition: form-data\r\n"),  # a body's later segment, not a request
        (100.5, answer),  # exempt
        (100.6, b"GET /api/v10/users/@me HTTP/1.1\r\n\r\n"),
        (100.95, b"PATCH /api/v10/channels/1/messages/2 HTTP/1.1\r\n\r\n"),
        (101.5, post),  # 100.6, 100.95 and 101.5 share a second; 100.0 is outside it
        (103.0, b"HTTP/1.1 200 OK\r\n\r\n"),  # an answer
    ]
    data = _pcap(packets)
    assert [(round(t, 2), m) for t, m, _ in requests(data)] == [
        (100.0, "POST"),
        (100.5, "POST"),
        (100.6, "GET"),
        (100.95, "PATCH"),
        (101.5, "POST"),
    ]
    total, counted, busiest, per_second = count(data)
    assert (total, counted, busiest) == (5, 4, 3)
    assert per_second == {0: 3, 1: 1}
