"""The workloads of Fig. 9's four testbed cases (section VI-A2 of the Bifrost DCI paper) and the
scenario of one run, filled into testbed.toml.in. Hosts 0..3 are DC 0's, 4..7 DC 1's; the
paper's host letters are placed as README.md says ("The four cases").

  cases.py points CASE
      The points run.sh sweeps for CASE by default (one per line).
  cases.py make CASE POINT TEMPLATE OUT_TOML SEED FLOW_CONTROL_TOML
      One scenario.
"""
import sys

# 8 KB latency flows, one every 20 us: 3000 from 5 ms as a warm-up (not counted), 3000 from
# 65 ms measured (README.md, "Setup").
LATENCY = """[[workload]]
kind = "incast"
name = "{name}"
senders = [{src}]
receiver = {dst}
size = "8KB"
start = "{start}"
rounds = 3000
period = "20us"
"""

# Each bandwidth flow carries twice what one flow's share of a 100 Gb/s host link sends in the
# 130 ms run (1625 MB), so none finishes.
HOST_LINK_RUN_MB = 1625

SIZES_9A = ["64KB", "128KB", "256KB", "512KB", "1MB", "2MB", "4MB"]
# 9a's bandwidth flows: each of A and B starts an S-byte flow every S / 45 Gb/s, at a random
# moment within its period, so together they offer 90 % of C's link and their bursts overlap at
# random (README.md, "Fig. 9a").
FIG9A_RATE_GBPS_PER_HOST = 45


def latency(src, dst):
    return (LATENCY.format(name="warmup", src=src, dst=dst, start="5ms") + "\n" +
            LATENCY.format(name="latency", src=src, dst=dst, start="65ms"))


def bandwidth(name, senders, receiver, flows_per_sender, size=None, period="1ns", jitter=None):
    size = size or f"{2 * HOST_LINK_RUN_MB // flows_per_sender}MB"
    text = (f'[[workload]]\nkind = "incast"\nname = "{name}"\n'
            f"senders = [{', '.join(str(s) for s in senders)}]\nreceiver = {receiver}\n"
            f'size = "{size}"\nrounds = {flows_per_sender}\nperiod = "{period}"\n')
    if jitter:
        text += f'jitter = "{jitter}"\n'
    return text + "\n"


def size_bytes(size):
    units = {"KB": 10**3, "MB": 10**6}
    return int(size[:-2]) * units[size[-2:]]


def fig9a(size):
    """Case A, one bandwidth flow each from A (0) and B (1) to C (4), as S-byte flows; latency
    flows from A to C."""
    period_ns = size_bytes(size) * 8 / FIG9A_RATE_GBPS_PER_HOST
    period = f"{round(period_ns)}ns"
    rounds = int(130e6 // period_ns) + 1
    return (bandwidth("bandwidth", [0, 1], 4, rounds, size=size, period=period, jitter=period)
               + latency(0, 4))


def fig9b(n):
    """Case A, N bandwidth flows from A (0) and B (1) to C (4) (N = 1: one, from A); latency
    flows from a third host of DC 0 (2) to C."""
    n = int(n)
    if n == 1:
        return bandwidth("bandwidth", [0], 4, 1) + latency(2, 4)
    return bandwidth("bandwidth", [0, 1], 4, n // 2) + latency(2, 4)


def fig9c(reading):
    """Case B: inter-DC background A (0) -> C (4), intra-DC background C -> D (5) as the text
    says ("c2d"), or D -> C ("d2c", the reading in which it meets the inter-DC flow at C's
    port); latency flows B (1) -> C."""
    intra = {"c2d": (4, 5), "d2c": (5, 4)}[reading]
    return (bandwidth("bandwidth", [0], 4, 1)
               + bandwidth("intra_dc", [intra[0]], intra[1], 1)
               + latency(1, 4))


def fig9d(n):
    """Case C, three long links: N bandwidth flows from A, B, C (0, 1, 2) to E (4), spread as
    evenly as N allows; victim latency flows D (3) -> F (5)."""
    n = int(n)
    text = ""
    for i, host in enumerate([0, 1, 2]):
        k = n // 3 + (1 if i < n % 3 else 0)
        if k:
            text += bandwidth(f"bandwidth{i}", [host], 4, k)
    return text + latency(3, 5)


# case: (workloads of a point, the points run.sh sweeps, parallel long links)
CASES = {
    "9a": (fig9a, SIZES_9A, 2),
    "9b": (fig9b, ["1", "8", "32", "128"], 2),
    "9c": (fig9c, ["c2d", "d2c"], 2),
    "9d": (fig9d, ["3", "8", "32", "128"], 3),
}


def scenario(case, point, template, seed, flow_control):
    """The scenario text of one run (experiments/dci-buffer uses 9b's too)."""
    text = open(template).read()
    for key, value in {"SEED": seed, "DCI_LINKS": str(CASES[case][2]),
                       "WORKLOADS": CASES[case][0](point),
                       "DCI_FLOW_CONTROL": flow_control}.items():
        text = text.replace(f"@{key}@", value)
    return text


def make(case, point, template, out, seed, flow_control):
    open(out, "w").write(scenario(case, point, template, seed, flow_control))


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "points":
        print("\n".join(CASES[args[1]][1]))
    elif len(args) == 7 and args[0] == "make":
        make(*args[1:])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
