#!/usr/bin/env python3
"""Checks the RoCEv2 ICRC of every frame in a pcap file, independently of bifrost's C++.

Written from the IBTA RoCEv2 annex (A17) masking rules: CRC-32 (zlib.crc32, the IEEE 802.3
CRC) over 8 bytes of 0xFF standing in for the LRH, the IPv4 header with TOS, TTL and header
checksum set to 0xFF bytes, the UDP header with its checksum set to 0xFF bytes, the BTH with
byte 4 set to 0xFF, then the rest of the packet up to the ICRC. The ICRC is carried least
significant byte first.

Usage: icrc_check.py FILE.pcap
Prints one line per frame and a summary "checked N frames: M ok, K mismatched, E unparsable";
exits 0 only if there is at least one frame and every frame is ok.
"""
import struct
import sys
import zlib

ETHERTYPE_IPV4 = 0x0800
ROCEV2_PORT = 4791


def records(data):
    magic = data[:4]
    if magic in (b"\x4d\x3c\xb2\xa1", b"\xd4\xc3\xb2\xa1"):
        order = "<"
    elif magic in (b"\xa1\xb2\x3c\x4d", b"\xa1\xb2\xc3\xd4"):
        order = ">"
    else:
        raise ValueError("not a pcap file")
    linktype = struct.unpack(order + "I", data[20:24])[0] & 0x0FFFFFFF
    if linktype != 1:
        raise ValueError("link type %d is not Ethernet" % linktype)
    offset = 24
    while offset < len(data):
        _, _, captured, _ = struct.unpack(order + "IIII", data[offset:offset + 16])
        offset += 16
        yield data[offset:offset + captured]
        offset += captured


def check(frame):
    """Returns (computed, carried) ICRC values or raises ValueError."""
    if len(frame) < 14 or struct.unpack("!H", frame[12:14])[0] != ETHERTYPE_IPV4:
        raise ValueError("not IPv4")
    ip_start = 14
    ihl = (frame[ip_start] & 0x0F) * 4
    total = struct.unpack("!H", frame[ip_start + 2:ip_start + 4])[0]
    packet = frame[ip_start:ip_start + total]
    udp = packet[ihl:ihl + 8]
    if packet[9] != 17 or struct.unpack("!H", udp[2:4])[0] != ROCEV2_PORT:
        raise ValueError("not RoCEv2")
    ip_header = bytearray(packet[:ihl])
    ip_header[1] = 0xFF      # TOS: DSCP and ECN
    ip_header[8] = 0xFF      # TTL
    ip_header[10:12] = b"\xff\xff"  # header checksum
    udp_header = bytearray(udp)
    udp_header[6:8] = b"\xff\xff"   # UDP checksum
    transport = bytearray(packet[ihl + 8:len(packet) - 4])
    transport[4] = 0xFF      # BTH: FECN, BECN, reserved
    computed = zlib.crc32(b"\xff" * 8 + bytes(ip_header) + bytes(udp_header) + bytes(transport))
    carried = int.from_bytes(packet[-4:], "little")
    return computed, carried


def main():
    if len(sys.argv) != 2:
        print("usage: icrc_check.py FILE.pcap", file=sys.stderr)
        return 2
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    ok = bad = unparsable = 0
    for number, frame in enumerate(records(data), start=1):
        try:
            computed, carried = check(frame)
        except (ValueError, IndexError, struct.error) as error:
            print("frame %d: unparsable: %s" % (number, error))
            unparsable += 1
            continue
        if computed == carried:
            print("frame %d: ok 0x%08x" % (number, computed))
            ok += 1
        else:
            print("frame %d: MISMATCH computed 0x%08x carried 0x%08x" % (number, computed, carried))
            bad += 1
    total = ok + bad + unparsable
    print("checked %d frames: %d ok, %d mismatched, %d unparsable" % (total, ok, bad, unparsable))
    return 0 if total > 0 and ok == total else 1


if __name__ == "__main__":
    sys.exit(main())
