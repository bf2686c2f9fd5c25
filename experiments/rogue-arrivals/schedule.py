"""Writes the arrivals' flow file: flow 0 (host 1) runs the whole time; flow k = 1..4 (host
k + 1) starts at k T and is sized so that, sharing the server's link fairly, it ends at
(9 - k) T. So 1, 2, 3, 4, 5 flows share the link, then 4, 3, 2, 1 again, each for T.
Usage: schedule.py RATE_GBPS MTU PHASE_S OUT_CSV"""
import sys

rate, mtu, phase, out = float(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
FRAME_OVERHEAD, GAP = 62, 20  # RoCEv2 headers and Ethernet FCS; preamble and gap
goodput = rate * mtu / (mtu + FRAME_OVERHEAD + GAP)  # Gb/s of payload the link carries
VERB = 1 << 20  # flows are cut into 1 MB verbs (scenario: verb = "1MB")


def active(t):
    """Flows sharing the link in phase t (0 .. 8)."""
    return t + 1 if t <= 4 else 9 - t


with open(out, "w") as f:
    f.write("id,src,dst,size_bytes,start_ps,priority,tag\n")
    # Flow 0 outlasts the run even alone at the link's goodput (and stays under the 65,536
    # verbs a host may have outstanding).
    long_size = round(goodput * 1e9 * 9 * phase / 8 * 1.1 / VERB) * VERB
    f.write(f"0,1,0,{long_size},1000000,0,long\n")
    for k in range(1, 5):
        bits = sum(goodput * 1e9 * phase / active(t) for t in range(k, 9 - k))
        size = round(bits / 8 / VERB) * VERB
        f.write(f"{k},{k + 1},0,{size},{round(k * phase * 1e12)},0,added{k}\n")
print(f"{goodput:.3f}")
