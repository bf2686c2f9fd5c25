"""Collects one row per run of run.sh (FCT of the inter-DC flows, which are all the flows of
these runs) and the long-haul buffer sizing of each link length.

usage: summarize.py OUT_DIR RESULTS_CSV SIZING_CSV

Sets are folders <cc>_<length> (cc: dcqcn or nodcqcn), runs <scheme>_<cdf>_<load>. Each row
also gives the scheme's change against PFC at the same set, CDF and load.
"""
import csv
import json
import math
import pathlib
import re
import sys

SCHEMES = ["pfc", "bifrost", "cbfc", "swing", "irn"]
SMALL = 100_000  # bytes


def nearest_rank(sorted_values, p):
    # The k-th smallest, k = max(1, ceil(p/100 n)), as bifrost's own statistics.
    return sorted_values[max(1, math.ceil(p / 100 * len(sorted_values))) - 1]


def log_counter(text, name):
    # "NIC retransmissions 0, timeouts 0" in bifrost-sim's summary line (rnic carriers only).
    m = re.search(rf"{name} (\d+)", text)
    return int(m.group(1)) if m else ""


def row(run_dir, cc, length, scheme, cdf, load):
    fcts, small, starts, total = [], [], [], 0
    with open(run_dir / "flows.csv") as f:
        for r in csv.DictReader(f):
            total += 1
            starts.append(int(r["start_ps"]))
            if r["fct_ps"]:
                fcts.append(int(r["fct_ps"]) / 1e6)
                if int(r["size_bytes"]) < SMALL:
                    small.append(fcts[-1])
    fcts.sort()
    small.sort()
    summary = json.loads((run_dir / "summary.json").read_text())
    log = (run_dir / "run.log").read_text() if (run_dir / "run.log").exists() else ""
    # Bytes standing in the two border (DCI) switches: the sum of their egress queues' means.
    border = sum(q["mean_bytes"] or 0 for name, q in summary["queues"].items()
                 if ".border:" in name)
    return {
        "cc": cc, "dci_length": length, "scheme": scheme, "cdf": cdf, "load": load,
        "flows": total, "finished": len(fcts),
        "mean_fct_us": round(sum(fcts) / len(fcts), 1) if fcts else "",
        "p50_fct_us": round(nearest_rank(fcts, 50), 1) if fcts else "",
        "p99_fct_us": round(nearest_rank(fcts, 99), 1) if fcts else "",
        "mean_vs_pfc": "", "p99_vs_pfc": "",
        # Flows below 100 KB: their FCT is latency (queueing), not bandwidth.
        "small_flows": len(small),
        "small_mean_fct_us": round(sum(small) / len(small), 1) if small else "",
        "small_p99_fct_us": round(nearest_rank(small, 99), 1) if small else "",
        "last_arrival_ms": round(max(starts) / 1e9, 2),
        "end_ms": round(summary["simulated_ps"] / 1e9, 2),
        "border_queue_mean_kb": round(border / 1e3, 1),
        # Switch drops only: SWING relays' drops do not reach summary.json yet.
        "switch_drops": summary["drops"]["total"],
        "pauses": summary["pauses"]["count"],
        "nic_retransmissions": log_counter(log, "NIC retransmissions"),
        "nic_timeouts": log_counter(log, "timeouts"),
        "nic_delayed_acks": summary.get("nic", {}).get("delayed_acks", ""),
        "wall_s": round(summary["wall_seconds"], 1),
    }


def add_vs_pfc(rows):
    key = lambda r: (r["cc"], r["dci_length"], r["cdf"], r["load"])  # noqa: E731
    pfc = {key(r): r for r in rows if r["scheme"] == "pfc" and r["mean_fct_us"] != ""}
    for r in rows:
        base = pfc.get(key(r))
        if base is None or r["mean_fct_us"] == "":
            continue
        for col, ref in (("mean_vs_pfc", "mean_fct_us"), ("p99_vs_pfc", "p99_fct_us")):
            r[col] = f"{100 * (r[ref] / base[ref] - 1):+.1f}%"


def sizing_rows(out):
    rows = []
    for path in sorted(out.glob("sizing_*.json")):
        s = json.loads(path.read_text())
        rows.append({
            "dci_length": s["length"], "one_way_us": round(s["one_way_us"], 1),
            "bifrost_h_plus_ks": s["bifrost_buffer"], "pfc_xoff": s["pfc_xoff"],
            "pfc_headroom": s["pfc_headroom"], "pfc_total": s["pfc_xoff"] + s["pfc_headroom"],
            "swing_relay": s["swing_relay_buffer"], "cbfc_dci": s["bifrost_buffer"],
            "intra_dc_headroom": s["intra_headroom"], "switch_buffer": s["switch_buffer"],
            "irn_bdp_packets": s["irn_bdp_packets"],
        })
    return rows


def write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def main():
    out, results, sizing = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    rows = []
    for set_dir in sorted(p for p in out.iterdir() if p.is_dir()):
        m = re.fullmatch(r"(dcqcn|nodcqcn)_(.+)", set_dir.name)
        if not m:
            continue
        for run_dir in sorted(p for p in set_dir.iterdir() if p.is_dir()):
            r = re.fullmatch(r"([a-z]+)_(websearch|fb_hadoop)_([0-9.]+)", run_dir.name)
            if r and (run_dir / "summary.json").exists():
                rows.append(row(run_dir, m.group(1), m.group(2), r.group(1), r.group(2),
                                r.group(3)))
    if not rows:
        raise SystemExit(f"no finished runs in {out}")
    add_vs_pfc(rows)
    length_km = lambda r: float(re.sub(r"[a-z]+$", "", r["dci_length"])) * (  # noqa: E731
        1 if r["dci_length"].endswith("km") else 1e-3)
    rows.sort(key=lambda r: (r["cc"] != "dcqcn", -length_km(r), r["cdf"], r["load"],
                             SCHEMES.index(r["scheme"])))
    write(results, rows)
    sizes = sizing_rows(out)
    if sizes:
        write(sizing, sizes)


if __name__ == "__main__":
    main()
