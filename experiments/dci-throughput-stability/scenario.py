"""Writes the scenarios of run.sh: the two-DC network, buffers and schemes of
experiments/dci-workload-fct (its scenario.py, imported through ../dci_common.py) under a
sustained load on the DCI link, with the DCI link's throughput sampled.

  scenario.py make SCHEME LENGTH SIZING_JSON SEED DCQCN DURATION INTERVAL BG_CDF BG_LOAD OUT_TOML

SCHEME is bifrost, pfc, cbfc, swing or irn; SIZING_JSON comes from
`experiments/dci-workload-fct/scenario.py size`. The load (README.md, "Setup"):

- sustained: every server of DC 0 (hosts 0..15) runs one long flow to its peer in DC 1
  (host i to 16 + i), started at 0 and too long to end within DURATION: 16 x 100 Gb/s of demand
  on the 400 Gb/s DCI link, which is therefore saturated unless flow control idles it;
- downstream disturbance: Poisson traffic among the servers of DC 1 (BG_CDF at BG_LOAD of each
  server's host link), which congests DC 1's receivers now and then, so that intra-DC PFC pauses
  reach the DCI switch of DC 1 and its long-haul flow control must stop and restart the link.

The run stops at DURATION (`stop = "duration"`); the DCI link's throughput is sampled every
INTERVAL (`[metrics] throughput_interval`, `throughput_links`), with the fabric links (to see
where DC 1's border sends it) and the switch queues.
"""
import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import dci_common  # noqa: E402

HOSTS_PER_DC = 16
# 4 GB: 16 flows sharing 400 Gb/s need 1.3 s, far beyond any run. Not more than about 8.5 GB:
# the soft RNIC stalls a flow posted as more than 2^23 packets (half the 24-bit PSN space;
# README, "Simulator").
LONG_FLOW_BYTES = 4 * 10**9


def long_flows_csv():
    """The sustained flows as a bifrost flow CSV (docs/scenarios.md, "bifrost flow CSV")."""
    lines = ["id,src,dst,size_bytes,start_ps,priority,tag"]
    for i in range(HOSTS_PER_DC):
        lines.append(f"{i},{i},{HOSTS_PER_DC + i},{LONG_FLOW_BYTES},0,0,long_haul")
    return "\n".join(lines) + "\n"


def background(duration, bg_cdf, bg_load):
    """The Poisson traffic inside DC 1; none at load 0 (the control: nothing downstream)."""
    if float(bg_load) == 0:
        return "# No downstream disturbance (background load 0).\n"
    dc1 = f"{HOSTS_PER_DC}..{2 * HOSTS_PER_DC - 1}"
    return f'''# Downstream disturbance: {bg_cdf} among the servers of DC 1 at {bg_load} of each host link.
[[workload]]
kind = "poisson"
name = "dc1_background"
cdf = "{bg_cdf}"
load = {bg_load}
sources = "{dc1}"
destinations = "{dc1}"
duration = "{duration}"
'''


def workload(duration, interval, bg_cdf, bg_load):
    return f'''# Sustained load: one long flow from every server of DC 0 to its peer in DC 1 (long_flows.csv).
[[workload]]
kind = "file"
name = "long_haul"
format = "csv"
path = "long_flows.csv"

{background(duration, bg_cdf, bg_load)}
[metrics]
throughput_interval = "{interval}"
throughput_links = ["dci", "fabric"]
queue_interval = "{interval}"
flow_throughput_interval = "{interval}"  # per-flow goodput and the sender QP's DCQCN rate, CNPs
size_buckets = ["100KB", "1MB"]
percentiles = [50, 99]
'''


def make(scheme, length, sizing, seed, dcqcn, duration, interval, bg_cdf, bg_load):
    network = dci_common.two_dc_network(scheme, length, sizing, seed, dcqcn, duration=duration)
    # Run for DURATION whatever is still running: the long flows never finish.
    network, n = re.subn(r'^stop = "flows_done".*$', 'stop = "duration"', network, flags=re.M)
    if n != 1:
        raise SystemExit("dci-workload-fct's template has no stop = \"flows_done\" line to replace")
    header = ("# Fig. 15 of the Bifrost DCI paper, scaled (experiments/dci-throughput-stability/"
              "README.md):\n# the network of experiments/dci-workload-fct under a sustained load "
              "on the DCI link.\n\n")
    return header + network + workload(duration, interval, bg_cdf, bg_load)


def main():
    if len(sys.argv) != 12 or sys.argv[1] != "make":
        raise SystemExit(__doc__)
    scheme, length, sizing, seed, dcqcn, duration, interval, bg_cdf, bg_load, out = sys.argv[2:]
    s = json.loads(pathlib.Path(sizing).read_text())
    out = pathlib.Path(out)
    out.write_text(make(scheme, length, s, seed, dcqcn == "1", duration, interval, bg_cdf,
                        bg_load))
    (out.parent / "long_flows.csv").write_text(long_flows_csv())


if __name__ == "__main__":
    main()
