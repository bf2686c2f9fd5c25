"""Writes the scenarios of run.sh: the two-DC network, buffers and schemes of
experiments/dci-workload-fct (its scenario.py, imported through ../dci_common.py) with an
all-to-all workload.

  scenario.py make SCHEME CDF LOAD LENGTH SIZING_JSON FLOWS SEED DCQCN OUT_TOML

SCHEME is bifrost, pfc, cbfc, swing or irn. SIZING_JSON comes from
`experiments/dci-workload-fct/scenario.py size` (the long-haul buffers derived from the link).
LOAD is the offered inter-DC load of each direction of the DCI link (0.5 for Fig. 14); the
workload's own `load` key is derived from it (dci_workload_load below). FLOWS is the total
number of flows of the run (intra- and inter-DC together).
"""
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import dci_common  # noqa: E402

HOSTS_PER_DC = 16  # the topology of dci-workload-fct: 2 DCs x 4 leaves x 4 hosts


def dci_workload_load(inter_dc_load, hosts_per_dc=HOSTS_PER_DC):
    """The `load` of one Poisson workload over all hosts, relative to the DCI link
    (`reference = "dci"`: all sources together offer load x DCI rate), such that each direction
    of the DCI link is offered `inter_dc_load` x its rate of inter-DC traffic.

    Each of the 2h sources offers load x R / 2h; a uniform destination is in the other DC with
    probability h / (2h - 1); so one direction carries h x load x R / 2h x h / (2h - 1)
    = load x R x h / (2 (2h - 1)). Setting that to inter_dc_load x R gives the factor below
    (1.9375 for 16 hosts per DC and 50 %)."""
    h = hosts_per_dc
    return inter_dc_load * 2 * (2 * h - 1) / h


def workload(cdf, inter_dc_load, flows):
    load = dci_workload_load(float(inter_dc_load))
    return f'''# Fig. 14: every server sends to every other server of both DCs. One Poisson workload over all
# 32 hosts; each flow's destination is uniform over the 31 others (16 in the other DC).
# load = {load:g} x 400 Gb/s over all sources = {inter_dc_load} x 400 Gb/s of inter-DC traffic
# on each direction of the DCI link (scenario.py, dci_workload_load).
[[workload]]
kind = "poisson"
name = "all_to_all"
cdf = "{cdf}"
load = {load:g}
reference = "dci"
sources = "all"
destinations = "all"
flows = {flows}

[metrics]
size_buckets = ["100KB", "1MB"]
percentiles = [50, 99]
queue_interval = "50us"
throughput_interval = "1ms"   # the DCI link's throughput in these runs: Fig. 15 (summarize.py)
throughput_links = ["dci"]
'''


def make(scheme, cdf, inter_dc_load, length, sizing, flows, seed, dcqcn):
    # dci-workload-fct's network, switches, flow control and NICs; its workloads replaced.
    network = dci_common.two_dc_network(scheme, length, sizing, seed, dcqcn)
    header = ("# Fig. 14 of the Bifrost DCI paper, scaled (experiments/dci-all-to-all/README.md):\n"
              "# the network of experiments/dci-workload-fct with an all-to-all workload.\n\n")
    return header + network + workload(cdf, inter_dc_load, flows)


def main():
    if len(sys.argv) != 11 or sys.argv[1] != "make":
        raise SystemExit(__doc__)
    scheme, cdf, load, length, sizing, flows, seed, dcqcn, out = sys.argv[2:]
    s = json.loads(pathlib.Path(sizing).read_text())
    text = make(scheme, cdf, load, length, s, flows, seed, dcqcn == "1")
    pathlib.Path(out).write_text(text)


if __name__ == "__main__":
    main()
