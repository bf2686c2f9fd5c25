"""Scenarios of the distance sweep (Fig. 12), made by dci-workload-fct's own code: its
scenario.py sizes every long-haul buffer from the link and fills its template; this file only
adds what that experiment did not need, IRN's retransmission timeouts scaled with the link.

  runs.py size TOOL LENGTH SIZING_JSON
      dci-workload-fct's sizing of one link length (scenario.py size).
  runs.py make SCHEME CDF LOAD LENGTH SIZING_JSON FLOWS SEED DCQCN OUT_TOML
      One scenario: dci-workload-fct's, plus [nic] rto_low / rto_high for IRN.
"""
import json
import pathlib
import sys

FCT = pathlib.Path(__file__).resolve().parent.parent / "dci-workload-fct"
sys.path.insert(0, str(FCT))
import scenario as fct  # noqa: E402  (experiments/dci-workload-fct/scenario.py)

# The paper's IRN timeouts for its 600 km link (3 ms one way): RTO_low 6,017 us and RTO_high
# 7,075 us, i.e. the 6 ms round trip of the DCI link plus 17 us and plus 1,075 us. We keep the
# two offsets and scale the round trip with the link.
PAPER_RTO_LOW_OFFSET_US = 6017 - 6000
PAPER_RTO_HIGH_OFFSET_US = 7075 - 6000


def irn_rtos_us(length):
    rtt_us = 2 * fct.one_way_s(length) * 1e6
    return round(rtt_us + PAPER_RTO_LOW_OFFSET_US), round(rtt_us + PAPER_RTO_HIGH_OFFSET_US)


def scenario_text(scheme, cdf, load, length, sizing, flows, seed, dcqcn, duration="2s"):
    v = fct.values(scheme, cdf, load, length, sizing, flows, seed, dcqcn, duration)
    if scheme == "irn" and not fct.IRN_PAPER:  # IRN_PAPER=1: scenario.py sets the same RTOs
        low, high = irn_rtos_us(length)
        v["NIC_EXTRA"] += f'\nrto_low = "{low}us"\nrto_high = "{high}us"'
    return fct.fill(v)


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "size" and len(sys.argv) == 5:
        fct.size(*sys.argv[2:])
    elif cmd == "make" and len(sys.argv) == 11:
        scheme, cdf, load, length, sizing, flows, seed, dcqcn, out = sys.argv[2:]
        s = json.loads(pathlib.Path(sizing).read_text())
        text = scenario_text(scheme, cdf, load, length, s, flows, seed, dcqcn == "1")
        pathlib.Path(out).write_text(text)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
