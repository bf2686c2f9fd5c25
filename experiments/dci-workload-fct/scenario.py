"""Writes the scenarios of run.sh from scenario.toml.in, and sizes each scheme's long-haul buffer
from the scaled link.

  scenario.py size TOOL LENGTH SIZING_JSON
      Buffers of the DCI link of length LENGTH (e.g. "8km"): Bifrost's H + k S and SWING's relay
      buffer are what bifrost-sim derives (read from the error it gives for a 64-byte buffer, so
      the numbers are the code's, not a copy of its formula); PFC's headroom is the documented
      bound (docs/net.md, pfc_headroom_bound) for the largest frame the soft RNIC sends.
  scenario.py make SCHEME CDF LOAD LENGTH SIZING_JSON FLOWS SEED DCQCN OUT_TOML
      One scenario. SCHEME is bifrost, pfc, cbfc, swing or irn.

Scaling rules (README.md, "Scaling"): everything that depends on the long link is computed
from it here; the intra-DC settings are the paper's section VI-B values.
"""
import json
import math
import os
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent

DCI_RATE = 400e9           # bit/s, the paper's DCI link
HOST_RATE = 100e9          # bit/s
MTU = 1024                 # RoCE path MTU of the soft RNIC
# Largest data frame a flow source sends: WRITE ONLY with immediate (RETH + ImmDt) plus the
# selective engines' 24-byte SR extension, 1130 bytes (Network::max_data_frame, which also sizes
# PFC's built-in default headroom and every other flow control).
SR_EXTENSION = 24
MAX_FRAME = 14 + 20 + 8 + 12 + 16 + 4 + MTU + 4 + 4 + SR_EXTENSION
WIRE_OVERHEAD = 20         # preamble, SFD, inter-frame gap
PAUSE_FRAME = 64
PAPER_ONE_WAY_S = 3e-3     # 600 km
PAPER_PFC_XOFF = 1_000_000  # the paper's "threshold 1 MB" on the long-haul PFC ports
INTRA_XOFF = 288_000       # paper: intra-DC PFC XOFF = XON = 288 KB
SWING_XOFF = "198KB"       # paper: SWING relay XON/XOFF
SHARED = 10_000_000        # paper: 10 MB shared buffer per switch
# DCI_BUFFER: "shared" (every switch one shared buffer of SHARED plus the largest long-haul port
# need, as before issue 21's last item) or "static" (the paper's section VI-B: the intra-DC
# switches SHARED, the border switches a static partition with no shared pool, [switch.border];
# README "The DCI switch's buffer"). BORDER_QUEUE_BUFFER (bytes): what each border egress queue
# reserves for lossy frames (IRN's); default the long-haul port's share of every lossless scheme,
# Bifrost's H + k S. INTRA_BUFFER (bytes) replaces the intra-DC SHARED (a sensitivity run).
DCI_BUFFER = os.environ.get("DCI_BUFFER", "shared")
if DCI_BUFFER not in ("shared", "static"):
    raise SystemExit(f"DCI_BUFFER={DCI_BUFFER!r}: use shared or static")
ECN = ("400KB", "1600KB", "0.2")  # DCQCN marking (kmin, kmax, pmax): our choice, see README
# The paper gives no CBFC update period (section VI-B, "CBFC-ideal settings"): ours is 1 us,
# README "CBFC's update period"; CBFC_UPDATE_PERIOD changes it for the sensitivity rows.
CBFC_UPDATE_PERIOD = os.environ.get("CBFC_UPDATE_PERIOD", "1us")
# SWING's trigger (docs/net.md, "SWING"): "relay" (ours, the default) or "threshold" (the
# paper's: the relay's own 198 KB XON/XOFF on its long-link queue).
SWING_TRIGGER = os.environ.get("SWING_TRIGGER", "relay")
# IRN_PAPER=1: IRN with the paper's bitmap (50,134 packets) and its RTOs scaled with the link
# (6,017 / 7,075 us at 600 km); default: one host-rate round trip of packets, RTOs 100 / 320 us.
IRN_PAPER = os.environ.get("IRN_PAPER", "0") == "1"
PAPER_IRN_BITMAP = 50_134
# DCQCN_PROFILE: the NICs' DCQCN constants. "mlx5" (the simulator's defaults: minimum rate
# 1 Mb/s, increase timer 300 us, AI 5 Mb/s, HAI 50 Mb/s, g 5/1024, five fast-recovery stages);
# "hpcc": those of the ns-3 RDMA simulator of the HPCC paper and its derivatives, which section
# VI-B's "ns-3 simulations" with "DCQCN [44]" may have used (our guess, the paper names none):
# minimum rate 100 Mb/s, AI 50 Mb/s, HAI 100 Mb/s, g 1/256, one fast-recovery stage, the 300 us
# timer and the 4 us decrease period kept. README of dci-throughput-stability, "DCQCN".
DCQCN_PROFILE = os.environ.get("DCQCN_PROFILE", "mlx5")
# FLOW_SAMPLES (a time such as "100us"): also write flow_throughput.csv, each running flow's
# goodput and its sender QP's DCQCN rate and alpha per interval; default: not written.
FLOW_SAMPLES = os.environ.get("FLOW_SAMPLES", "")
DCQCN_PROFILES = {
    "mlx5": "",
    "hpcc": ('\ndcqcn_min_rate = "100Mbps"\ndcqcn_additive_increase = "50Mbps"\n'
             'dcqcn_hyper_increase = "100Mbps"\ndcqcn_g = 0.00390625\n'
             'dcqcn_fast_recovery_stages = 1'),
}


def one_way_s(length):
    """Propagation of a fibre length such as "8km" or "500m": 5 ns per metre (docs/scenarios.md)."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(km|m)", length)
    if not m:
        raise SystemExit(f"bad length {length!r}: use e.g. 8km")
    metres = float(m.group(1)) * (1000 if m.group(2) == "km" else 1)
    return metres * 5e-9


def ser_ps(nbytes, rate):
    # serialization_time: rounded up to the next picosecond.
    return math.ceil(nbytes * 8 * 1e12 / rate)


def pfc_headroom(one_way, rate, frame=MAX_FRAME):
    """pfc_headroom_bound: 2 S + bytes_in(2 P + T(S) + T(pause), R), switch latency 0."""
    window_ps = (2 * round(one_way * 1e12) + ser_ps(frame + WIRE_OVERHEAD, rate)
                 + ser_ps(PAUSE_FRAME + WIRE_OVERHEAD, rate))
    return 2 * frame + int(window_ps * rate // (8 * 10**12))


def fill(values):
    text = (HERE / "scenario.toml.in").read_text()
    for key, value in values.items():
        text = text.replace(f"@{key}@", str(value))
    left = re.findall(r"@[A-Z_]+@", text)
    if left:
        raise SystemExit(f"template fields not filled: {left}")
    return text


INTRA_PFC = f'''[switch.pfc]                  # inside each datacenter (paper: XOFF = XON = 288 KB)
threshold = "static"
xoff = "{INTRA_XOFF}B"
xon = "{INTRA_XOFF}B"
'''


def flow_control(scheme, sizing):
    """The flow-control tables of one scheme."""
    if scheme == "bifrost":
        return INTRA_PFC + '''
[switch.flow_control.dci]     # H + k S derived by the code from the link
kind = "dci"
slot = "10us"
leak_every = 1
'''
    if scheme == "pfc":
        return INTRA_PFC + f'''
[switch.flow_control.dci]     # XOFF scaled with the link (README), headroom = pfc_headroom_bound
kind = "pfc"
threshold = "static"
xoff = "{sizing['pfc_xoff']}B"
xon = "{sizing['pfc_xoff']}B"
headroom = "{sizing['pfc_headroom']}B"
'''
    if scheme == "cbfc":
        # Ideal credits (no 12-bit field) on every link; per port the buffer the other schemes
        # give that port: XOFF + headroom inside the DCs, Bifrost's H + k S on the long link.
        intra = INTRA_XOFF + sizing["intra_headroom"]
        tables = []
        for cls, buf in (("host", intra), ("fabric", intra), ("dci", sizing["bifrost_buffer"])):
            tables.append(f'''[switch.flow_control.{cls}]
kind = "cbfc"
buffer = "{buf}B"
update_period = "{CBFC_UPDATE_PERIOD}"
field_bits = 0
''')
        return "\n".join(tables)
    if scheme == "swing":
        return INTRA_PFC + f'''
[switch.flow_control.dci]     # relay buffer: SWING's rule (swing_relay_buffer), the default
kind = "swing"
trigger = "{SWING_TRIGGER}"
xoff = "{SWING_XOFF}"
xon = "{SWING_XOFF}"
relay_delay = "1us"
'''
    if scheme == "irn":
        return "# IRN: no PFC and no flow control anywhere (lossy); the NICs recover selectively."
    raise SystemExit(f"unknown scheme {scheme!r}: use bifrost, pfc, cbfc, swing or irn")


def nic_extra(scheme, sizing):
    # ACKs and the RC timeout at the simulator's defaults (ack_every_packets 8 with the 8 us
    # ack_delay bound, timeout 14 = 67 ms): the paper sets neither. Until issue 20 this set
    # ack_every_packets = 1 and timeout = 14 as a workaround for QPs that DCQCN slowed below 8
    # packets per 1.05 ms timeout (README, "Before and after the ACK-delay bound").
    extra = ""
    if scheme == "irn":
        if IRN_PAPER:
            # Section VI-B literally: a 50,134-packet bitmap and RTO_low / RTO_high 6,017 /
            # 7,075 us at 600 km, the RTOs scaled with the link as experiments/dci-distance does
            # (round trip + 17 us / + 1,075 us).
            rtt_us = 2 * one_way_s(sizing["length"]) * 1e6
            extra += (f'recovery = "irn"\nbdp_packets = {PAPER_IRN_BITMAP}\n'
                      f'rto_low = "{round(rtt_us + 17)}us"\nrto_high = "{round(rtt_us + 1075)}us"')
        else:
            extra += f'recovery = "irn"\nbdp_packets = {sizing["irn_bdp_packets"]}'
    return extra


def switch_buffers(sizing):
    """[switch] buffer and the [switch.border] table (empty: the border switches share it)."""
    if DCI_BUFFER == "shared":
        return f"{sizing['switch_buffer']}B", ""
    intra = int(os.environ.get("INTRA_BUFFER", SHARED))
    queue = int(os.environ.get("BORDER_QUEUE_BUFFER", sizing["bifrost_buffer"]))
    return f"{intra}B", f'''
[switch.border]               # no shared pool: each port's share is its own (README)
partition = "static"
queue_buffer = "{queue}B"  # per egress queue, for lossy frames (IRN)
'''


def values(scheme, cdf, load, length, sizing, flows, seed, dcqcn, duration="500ms"):
    buffer, border = switch_buffers(sizing)
    return {
        "SEED": seed, "DURATION": duration, "DCI_LENGTH": length,
        "BUFFER": buffer, "BORDER": border,
        "ECN_KMIN": ECN[0], "ECN_KMAX": ECN[1], "ECN_PMAX": ECN[2],
        "FLOW_CONTROL": flow_control(scheme, sizing),
        "DCQCN": "true" if dcqcn else "false",
        "NIC_EXTRA": nic_extra(scheme, sizing) + (DCQCN_PROFILES[DCQCN_PROFILE] if dcqcn else ""),
        "CDF": cdf, "LOAD": load, "FLOWS": flows,
        "FLOW_SAMPLES": (f'flow_throughput_interval = "{FLOW_SAMPLES}"  # per-QP DCQCN rates'
                         if FLOW_SAMPLES else ""),
    }


def probe(tool, text, what):
    """Runs bifrost-sim on a scenario whose buffer is too small and returns the minimum the error
    message states."""
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "probe.toml"
        path.write_text(text)
        r = subprocess.run([tool, "run", str(path), "--out", tmp + "/out", "--quiet"],
                           capture_output=True, text=True)
    pattern = {"dci": r"k x MTU = (\d+) bytes", "swing": r"below the (\d+) bytes"}[what]
    m = re.search(pattern, r.stderr)
    if not m:
        raise SystemExit(f"probe {what}: unexpected answer from bifrost-sim:\n{r.stderr}")
    return int(m.group(1))


def size(tool, length, out_json):
    p = one_way_s(length)
    s = {"length": length, "one_way_us": p * 1e6}
    s["pfc_headroom"] = pfc_headroom(p, DCI_RATE)
    s["intra_headroom"] = pfc_headroom(1e-6, HOST_RATE)  # 1 us, 100 Gb/s links inside the DCs
    # The paper's 1 MB threshold against its 3 ms link, kept in proportion to the round trip.
    s["pfc_xoff"] = max(2 * MAX_FRAME, round(PAPER_PFC_XOFF * p / PAPER_ONE_WAY_S))
    if os.environ.get("PFC_XOFF"):  # a sensitivity run: the long-haul PFC XOFF in bytes
        s["pfc_xoff"] = int(os.environ["PFC_XOFF"])
    # A provisional sizing to build the probes (buffers large enough for every other check).
    s.update(bifrost_buffer=10**6, switch_buffer=10**9, irn_bdp_packets=1)
    base = values("bifrost", "fb_hadoop", 0.1, length, s, 1, 1, True)
    text = fill(base).replace('leak_every = 1', 'leak_every = 1\nbuffer = "64B"')
    s["bifrost_buffer"] = probe(tool, text, "dci")
    text = fill(values("swing", "fb_hadoop", 0.1, length, s, 1, 1, True)).replace(
        'relay_delay = "1us"', 'relay_delay = "1us"\nbuffer = "64B"')
    s["swing_relay_buffer"] = probe(tool, text, "swing")
    # Every switch: 10 MB shared plus the largest long-haul port need of the schemes.
    s["switch_buffer"] = SHARED + max(s["bifrost_buffer"], s["pfc_xoff"] + s["pfc_headroom"])
    # IRN's in-flight cap: one host-rate round trip of the path in MTU packets (the paper's
    # 50,134-packet bitmap is that at 600 km in 1,500-byte packets, 75.2 MB = 6.016 ms at
    # 100 Gb/s; ours counts 1,024-byte MTUs); 2 x 3 us of intra-DC propagation each way.
    rtt = 2 * (p + 6e-6)
    s["irn_bdp_packets"] = math.ceil(HOST_RATE * rtt / 8 / MTU)
    pathlib.Path(out_json).write_text(json.dumps(s, indent=1) + "\n")
    return s


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "size" and len(sys.argv) == 5:
        size(*sys.argv[2:])
    elif cmd == "make" and len(sys.argv) == 11:
        scheme, cdf, load, length, sizing, flows, seed, dcqcn, out = sys.argv[2:]
        s = json.loads(pathlib.Path(sizing).read_text())
        text = fill(values(scheme, cdf, load, length, s, flows, seed, dcqcn == "1"))
        pathlib.Path(out).write_text(text)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
