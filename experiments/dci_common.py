"""Python shared by the experiments/dci-* folders that build on experiments/dci-workload-fct:
its scenario generator (imported, not copied) and the statistics of its summaries.

Import from a script in experiments/<name>/ with
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
    import dci_common
"""
import csv
import importlib.util
import math
import pathlib
import re

EXPERIMENTS = pathlib.Path(__file__).resolve().parent


def fct_scenario():
    """experiments/dci-workload-fct/scenario.py as a module (its folder name has a hyphen): the
    two-DC network, the DCQCN marking and every scheme's long-haul flow control and sizing."""
    path = EXPERIMENTS / "dci-workload-fct" / "scenario.py"
    spec = importlib.util.spec_from_file_location("dci_workload_fct_scenario", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def two_dc_network(scheme, length, sizing, seed, dcqcn, duration="500ms"):
    """dci-workload-fct's scenario for `scheme` up to its workloads: [simulation], [topology],
    [switch] (buffers, ECN, flow control) and [nic]. The caller appends its own [[workload]]
    and [metrics] tables."""
    fct = fct_scenario()
    text = fct.fill(fct.values(scheme, "fb_hadoop", 0.1, length, sizing, 1, seed, dcqcn,
                               duration=duration))
    # From [simulation] (the template's header comment describes its own figure) to the
    # first [[workload]].
    start = text.index("[simulation]")
    return text[start:].split("[[workload]]", 1)[0].rstrip() + "\n\n"


def nearest_rank(sorted_values, p):
    """The k-th smallest, k = max(1, ceil(p/100 n)), as bifrost's own statistics."""
    return sorted_values[max(1, math.ceil(p / 100 * len(sorted_values))) - 1]


def log_counter(text, name):
    """A count from bifrost-sim's summary line, e.g. "NIC retransmissions 0, timeouts 0"."""
    m = re.search(rf"{name} (\d+)", text)
    return int(m.group(1)) if m else ""


def run_dirs(out, run_pattern, needs):
    """The finished runs under `out`, laid out as <cc>_<length>/<run>/ (cc dcqcn or nodcqcn):
    (run folder, cc, length, the groups of `run_pattern` matched against the run's name) for
    every run whose folder holds the file `needs`."""
    for set_dir in sorted(p for p in pathlib.Path(out).iterdir() if p.is_dir()):
        m = re.fullmatch(r"(dcqcn|nodcqcn)_(.+)", set_dir.name)
        if not m:
            continue
        for run_dir in sorted(p for p in set_dir.iterdir() if p.is_dir()):
            r = re.fullmatch(run_pattern, run_dir.name)
            if r and (run_dir / needs).exists():
                yield (run_dir, m.group(1), m.group(2), *r.groups())


def write_csv(path, rows):
    """rows (dicts with the same keys) as a CSV with a header."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
