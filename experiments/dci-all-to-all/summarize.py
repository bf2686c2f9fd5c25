"""Collects the runs of run.sh into results.csv: per run three rows, the FCT of inter-DC flows,
of intra-DC flows and of all flows, each with its change against PFC and the paper's number.

usage: summarize.py OUT_DIR RESULTS_CSV

Sets are folders <cc>_<length> (cc: dcqcn or nodcqcn), runs <scheme>_<cdf>_<load>. Hosts
0..15 are DC 0 and 16..31 DC 1 (the two_dc topology of dci-workload-fct), so a flow is inter-DC
when its source and destination are on different sides of 16.
"""
import csv
import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from dci_common import log_counter, nearest_rank, run_dirs, write_csv  # noqa: E402

SCHEMES = ["pfc", "bifrost", "cbfc", "swing", "irn"]
CLASSES = ["inter", "intra", "all"]
HOSTS_PER_DC = 16
# Fig. 14a, Bifrost vs PFC, FB_Hadoop at 50 % (the paper's section VI-B 4); the text has no number
# for intra-DC flows, WebSearch, CBFC or IRN (vs SWING it gives 14.9/16.1 and 14.2/16.6, not
# written here). Note: applied per flow class, so the WebSearch rows get FB_Hadoop's numbers too.
PAPER_VS_PFC = {"inter": ("-46.8%", "-56.3%"), "all": ("-55.2%", "-63.5%")}


def flow_class(src, dst):
    return "inter" if (src < HOSTS_PER_DC) != (dst < HOSTS_PER_DC) else "intra"


def paused_ms(run_dir):
    """Paused time summed over ports (pauses.csv): on the long-haul side (between the border
    switches and their SWING relays) and inside the DCs (every other port, hosts included)."""
    long_haul, inside = 0, 0
    with open(run_dir / "pauses.csv") as f:
        for r in csv.DictReader(f):
            up, down = r["port"].rsplit("/prio", 1)[0].split("->")
            if "border" in up and "border" in down:
                long_haul += int(r["paused_ps"])
            else:
                inside += int(r["paused_ps"])
    return round(long_haul / 1e9, 1), round(inside / 1e9, 1)


def rows_of_run(run_dir, cc, length, scheme, cdf, load):
    fcts = {c: [] for c in CLASSES}
    counts = {c: 0 for c in CLASSES}
    inter_bytes, last_start = 0, 0
    with open(run_dir / "flows.csv") as f:
        for r in csv.DictReader(f):
            last_start = max(last_start, int(r["start_ps"]))
            c = flow_class(int(r["src"]), int(r["dst"]))
            if c == "inter":
                inter_bytes += int(r["size_bytes"])
            for k in (c, "all"):
                counts[k] += 1
                if r["fct_ps"]:
                    fcts[k].append(int(r["fct_ps"]) / 1e6)
    summary = json.loads((run_dir / "summary.json").read_text())
    log = (run_dir / "run.log").read_text() if (run_dir / "run.log").exists() else ""
    long_haul_paused, inside_paused = paused_ms(run_dir)
    rows = []
    for c in CLASSES:
        v = sorted(fcts[c])
        rows.append({
            "cc": cc, "dci_length": length, "scheme": scheme, "cdf": cdf, "load": load,
            "flows_class": c, "flows": counts[c], "finished": len(v),
            "mean_fct_us": round(sum(v) / len(v), 1) if v else "",
            "p50_fct_us": round(nearest_rank(v, 50), 1) if v else "",
            "p99_fct_us": round(nearest_rank(v, 99), 1) if v else "",
            "mean_vs_pfc": "", "p99_vs_pfc": "",
            "paper_mean_vs_pfc": PAPER_VS_PFC.get(c, ("", ""))[0] if scheme == "bifrost" else "",
            "paper_p99_vs_pfc": PAPER_VS_PFC.get(c, ("", ""))[1] if scheme == "bifrost" else "",
            "inter_dc_gbytes": round(inter_bytes / 1e9, 3),
            # What the workload offered each DCI direction: inter-DC bytes over both
            # directions, halved, over the arrival window (the target is LOAD x 400 Gb/s).
            "offered_gbps_per_direction": round(inter_bytes / 2 * 8 / (last_start / 1e12) / 1e9,
                                                1),
            "last_arrival_ms": round(last_start / 1e9, 2),
            "end_ms": round(summary["simulated_ps"] / 1e9, 2),
            "switch_drops": summary["drops"]["total"],
            "pauses": summary["pauses"]["count"],
            "long_haul_paused_ms": long_haul_paused,
            # Fig. 15: the long link's throughput in these runs, both directions' means
            # over the run (empty for runs made before the sampling was added).
            "dci_gbps_per_direction": dci_gbps(summary),
            "in_dc_paused_ms": inside_paused,
            "nic_retransmissions": log_counter(log, "NIC retransmissions"),
            "nic_timeouts": log_counter(log, "timeouts"),
            "wall_s": round(summary["wall_seconds"], 1),
        })
    return rows


def dci_gbps(summary):
    # With SWING the series is the long link between the relays (dc0.border/swing0->...).
    long_link = re.compile(r"dc([01])\.border(/swing\d+)?->dc([01])\.border(/swing\d+)?(#\d+)?")
    series = [v["mean_gbps"] for k, v in summary.get("throughput", {}).items()
              if (m := long_link.fullmatch(k)) and m.group(1) != m.group(3)]
    return round(sum(series) / len(series), 1) if series else ""


def add_vs_pfc(rows):
    key = lambda r: (r["cc"], r["dci_length"], r["cdf"], r["load"], r["flows_class"])  # noqa
    pfc = {key(r): r for r in rows if r["scheme"] == "pfc" and r["mean_fct_us"] != ""}
    for r in rows:
        base = pfc.get(key(r))
        if base is None or r["mean_fct_us"] == "" or r["scheme"] == "pfc":
            continue
        for col, ref in (("mean_vs_pfc", "mean_fct_us"), ("p99_vs_pfc", "p99_fct_us")):
            r[col] = f"{100 * (r[ref] / base[ref] - 1):+.1f}%"


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    out, results = pathlib.Path(sys.argv[1]), sys.argv[2]
    rows = []
    for run in run_dirs(out, r"([a-z]+)_(websearch|fb_hadoop)_([0-9.]+)", "summary.json"):
        rows += rows_of_run(*run)
    if not rows:
        raise SystemExit(f"no finished runs in {out}")
    add_vs_pfc(rows)
    rows.sort(key=lambda r: (r["cc"] != "dcqcn", r["cdf"], r["load"],
                             CLASSES.index(r["flows_class"]), SCHEMES.index(r["scheme"])))
    write_csv(results, rows)


if __name__ == "__main__":
    main()
