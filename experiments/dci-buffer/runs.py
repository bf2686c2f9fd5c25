"""Scenarios, sizing probes and the CSVs of experiments/dci-buffer (run.sh calls it).

  runs.py make TEMPLATE OUT.toml SEED N FLOW_CONTROL   # one topology A scenario (dci-fct's 9b)
  runs.py probe TOOL TEMPLATE SLOT                     # Bifrost H + k S the code derives for SLOT
  runs.py arithmetic SIZING.json ARITHMETIC.csv XOFF.csv
  runs.py summarize OUT_DIR RESULTS.csv

The arithmetic is the paper's (section III-B: one BDP = 2 Rs D; section VI-A1: PFC XOFF 6 MB +
9.5 MB headroom = 15.5 MB, Bifrost H = Delta + 3 Rs T = 9.72 MB, "37% less"), in bytes and MiB;
the paper's MB are MiB (its 9.5 MB BDP is 10^7 bytes = 9.54 MiB, its 286 MB BDP at 600 km /
400 Gb/s is 3 x 10^8 bytes = 286.1 MiB).
"""
import csv
import json
import pathlib
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "dci-fct"))
import cases  # noqa: E402  (experiments/dci-fct/cases.py)

MIB = 2**20
RATE_BPS = 100e9  # each long link of topology A
ONE_WAY_S = 400e-6  # 80 km
BDP = round(2 * RATE_BPS / 8 * ONE_WAY_S)  # 2 Rs D = 10^7 bytes
PAPER = {"xoff_mib": 6.0, "headroom_mib": 9.5, "pfc_total_mib": 15.5, "h_mib": 9.72,
         "saving": 0.37, "slot_us": 10.0}


def rs_t(slot_us):
    return round(RATE_BPS / 8 * slot_us * 1e-6)


def fill(template, seed, n, flow_control):
    """Topology A with n bandwidth flows: dci-fct's Fig. 9b scenario."""
    return cases.scenario("9b", str(n), template, str(seed), flow_control)


def dci_table(slot, buffer=None):
    text = f'[switch.flow_control.dci]\nkind = "dci"\nslot = "{slot}"\nleak_every = 1\n'
    return text + (f'buffer = "{buffer}"\n' if buffer else "")


def probe(tool, template, slot):
    """H + k S for `slot`, read from the error a 64-byte buffer gets: the code's number."""
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "probe.toml"
        path.write_text(fill(template, 1, 2, dci_table(slot, "64B")))
        p = subprocess.run([tool, "run", str(path), "--out", tmp + "/out", "--quiet"],
                           capture_output=True, text=True)
    m = re.search(r"k x MTU = (\d+) bytes", p.stderr)
    if not m:
        sys.exit(f"probe for {slot}: no size in {p.stderr + p.stdout!r}")
    return int(m.group(1))


def arithmetic(sizing_path, arithmetic_csv, xoff_csv):
    ours = json.loads(pathlib.Path(sizing_path).read_text())
    rows = []

    def add(quantity, formula, value_bytes, paper_mib=""):
        rows.append({"quantity": quantity, "formula": formula, "bytes": round(value_bytes),
                     "mib": round(value_bytes / MIB, 3), "mb": round(value_bytes / 1e6, 3),
                     "paper_mb": paper_mib})

    add("one BDP (paper's Delta)", "2 Rs D, 100 Gb/s, 400 us", BDP, 9.5)
    add("Rs T, T = 10 us", "Rs T", rs_t(10))
    add("Rs T, T = 5 us", "Rs T", rs_t(5))
    add("PFC total (paper)", "XOFF 6 MiB + headroom 9.5 MiB", 15.5 * MIB, 15.5)
    add("PFC total, exact BDP", "XOFF 6 MiB + 2 Rs D", 6 * MIB + BDP)
    add("Bifrost minimum H, T = 10 us", "Delta + 2 Rs T", BDP + 2 * rs_t(10))
    add("Bifrost H as configured, T = 10 us", "Delta + 3 Rs T", BDP + 3 * rs_t(10), 9.72)
    add("Bifrost H, T = 5 us", "Delta + 3 Rs T", BDP + 3 * rs_t(5), 9.72)
    add("Bifrost H, T = 10 us, Delta = 9.5 MiB", "9.5 MiB + 3 Rs T", 9.5 * MIB + 3 * rs_t(10))
    add("Bifrost H, T = 10 us, Delta = 9.5 MiB, 2 slots", "9.5 MiB + 2 Rs T",
        9.5 * MIB + 2 * rs_t(10))
    add("paper's H (printed)", "9.72 MiB", 9.72 * MIB, 9.72)
    # The T that would give 9.72 MiB from Delta + 3 Rs T (Delta = 10^7 bytes).
    t_for_paper = (9.72 * MIB - BDP) / 3 / (RATE_BPS / 8) * 1e6
    rows.append({"quantity": "T that makes Delta + 3 Rs T = 9.72 MiB", "formula":
                 "(9.72 MiB - 2 Rs D) / 3 Rs", "bytes": "", "mib": "", "mb": "",
                 "paper_mb": f"{t_for_paper:.2f} us"})
    for slot, size in sorted(ours.items(), key=lambda kv: float(kv[0][:-2])):
        add(f"ours: Bifrost H + k S, T = {slot}", "dci_min_buffer (frames, k = 1)", size)
    add("ours: PFC XOFF, one round trip", "2 Rs D", BDP)
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "dci-workload-fct"))
    import scenario as wfct  # its copy of pfc_headroom_bound (S = 1,130, latency 0)
    add("ours: PFC headroom", "pfc_headroom_bound", wfct.pfc_headroom(ONE_WAY_S, RATE_BPS))
    with open(arithmetic_csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)

    # Sensitivity: the saving against PFC's XOFF, with the paper's 9.5 MiB headroom.
    bifrost = {"paper_9.72MiB": 9.72 * MIB, "delta_3rst_T10": BDP + 3 * rs_t(10),
               "delta_2rst_T10": BDP + 2 * rs_t(10), "ours_T10": ours["10us"]}
    with open(xoff_csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["xoff_mib", "pfc_total_mib"] + [f"saving_{k}" for k in bifrost])
        for xoff in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9.5, 10]:
            total = xoff * MIB + 9.5 * MIB
            w.writerow([xoff, round(total / MIB, 3)] +
                       [round(1 - h / total, 4) for h in bifrost.values()])


def summarize(out, results):
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "dci-fct"))
    import summarize as fct  # dci-fct's row(): FCT, receiver throughput, border queue
    rows = []
    for run_dir in sorted(p for p in pathlib.Path(out).iterdir() if p.is_dir()):
        meta = run_dir / "meta.json"
        if not meta.exists():
            continue
        m = json.loads(meta.read_text())
        if (run_dir / "summary.json").exists():
            r = fct.row(run_dir, m["scheme"], m["n"])
        else:
            r = {"scheme": m["scheme"], "bandwidth_flows": m["n"]}
        r.pop("wall_s", None)
        r = {"run": run_dir.name, **r, "reserved_mib": m["reserved_mib"],
             "note": m.get("note", "")}
        rows.append(r)
    fields = []
    for r in rows:
        fields += [k for k in r if k not in fields]
    with open(results, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)


def main():
    cmd = sys.argv[1]
    if cmd == "make":
        template, dst, seed, n, fc = sys.argv[2:]
        pathlib.Path(dst).write_text(fill(template, int(seed), int(n), fc))
    elif cmd == "probe":
        print(probe(*sys.argv[2:]))
    elif cmd == "arithmetic":
        arithmetic(*sys.argv[2:])
    elif cmd == "summarize":
        summarize(*sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
