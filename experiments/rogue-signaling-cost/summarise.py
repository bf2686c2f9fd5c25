"""Figs. 2, 3, 6: sim.csv (bifrost-rogue-verbs) and real.csv (bifrost-perf) into results.csv,
one row per source, application pattern, scheme and verb size, and the table beside the paper's
CPU numbers printed. signal_cpu_pct prices the counted signals at 5 us and clock reads at 1 us
(RoGUE's model, RogueConfig) at the rate reached, for both schemes alike: what signalling alone
would cost a core; the real rows' cpu_* columns are getrusage of the whole processes."""
import csv
import os
import sys

SIGNAL_S, READ_S = 5e-6, 1e-6
here = sys.argv[1]
FIELDS = ["source", "pattern", "scheme", "op", "bytes", "gbps", "signals_per_gb", "wqes_per_gb",
          "clock_reads_per_gb", "signal_cpu_pct", "cpu_client_s_per_gb", "cpu_server_s_per_gb",
          "cpu_client_pct", "cpu_server_pct"]


def priced(signals, reads, gbps):
    return 100 * (signals * SIGNAL_S + reads * READ_S) * gbps / 8


rows = []
for r in csv.DictReader(open(f"{here}/sim.csv")):
    g, s, c = float(r["gbps"]), float(r["signals_per_gb"]), float(r["clock_reads_per_gb"])
    rows.append({"source": "sim", "pattern": r["label"], "scheme": r["scheme"], "op": r["op"],
                 "bytes": r["bytes"], "gbps": r["gbps"], "signals_per_gb": r["signals_per_gb"],
                 "wqes_per_gb": r["wqes_per_gb"], "clock_reads_per_gb": r["clock_reads_per_gb"],
                 "signal_cpu_pct": f"{priced(s, c, g):.2f}",
                 "cpu_client_s_per_gb": r["modelled_cpu_s_per_gb"] if r["scheme"] == "rogue" else "",
                 "cpu_server_s_per_gb": "", "cpu_client_pct":
                 r["modelled_cpu_pct"] if r["scheme"] == "rogue" else "", "cpu_server_pct": ""})
if os.path.exists(f"{here}/real.csv"):
    for r in csv.DictReader(open(f"{here}/real.csv")):
        g, s, c = float(r["gbps"]), float(r["signals_per_gb"]), float(r["clock_reads_per_gb"])
        rows.append({"source": f"real_{r['line_mbit']}mbit", "pattern": "every_verb",
                     "scheme": r["scheme"], "op": r["op"], "bytes": r["bytes"], "gbps": r["gbps"],
                     "signals_per_gb": r["signals_per_gb"], "wqes_per_gb": r["wqes_per_gb"],
                     "clock_reads_per_gb": r["clock_reads_per_gb"],
                     "signal_cpu_pct": f"{priced(s, c, g):.2f}",
                     **{k: r[k] for k in ("cpu_client_s_per_gb", "cpu_server_s_per_gb",
                                          "cpu_client_pct", "cpu_server_pct")}})
with open(f"{here}/results.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=FIELDS)
    w.writeheader()
    w.writerows(rows)
print(f"{'source':16} {'pattern':10} {'scheme':9} {'op':5} {'bytes':>8} {'Gb/s':>6} "
      f"{'sig/GB':>8} {'WQE/GB':>8} {'rd/GB':>8} {'sig cpu%':>8} {'cpu c/s s/GB':>14} "
      f"{'cpu c/s %':>12}")
for r in rows:
    print(f"{r['source']:16} {r['pattern']:10} {r['scheme']:9} {r['op']:5} {r['bytes']:>8} "
          f"{float(r['gbps']):6.2f} {float(r['signals_per_gb']):8.0f} "
          f"{float(r['wqes_per_gb']):8.0f} {float(r['clock_reads_per_gb']):8.0f} "
          f"{float(r['signal_cpu_pct']):8.2f} "
          f"{(r['cpu_client_s_per_gb'] or '-'):>6}/{(r['cpu_server_s_per_gb'] or '-'):<7} "
          f"{(r['cpu_client_pct'] or '-'):>5}/{(r['cpu_server_pct'] or '-'):<6}")
print(f"wrote {here}/results.csv")
