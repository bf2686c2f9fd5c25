"""Fig. 7 as ours: (left) the mean READ completion time per verb size, RoCE (a bare RC QP) and
RoGUE with its modelled host CPU off and on, the paper's four points (4 us at 64 B for both,
944 us RoCE and 1040 us RoGUE at 1 MB) as crosses; (right) RoGUE / RoCE per size, with the
paper's 1.0 and 1.10, the one-batch-in-flight ratio (model on / off) at 1 MB, and the real
runtime's two ratios of medians where results.csv has them (its means are host stalls)."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(open(sys.argv[1])))


def series(label, scheme, costs_on=None):
    pts = {}
    for r in rows:
        if r["label"] != label or r["scheme"] != scheme:
            continue
        on = float(r["signal_cost_us"] or 0) > 0 or float(r["clock_read_cost_us"] or 0) > 0
        if costs_on is not None and on != costs_on:
            continue
        pts[int(r["bytes"])] = float(r["mean_us"])
    return pts


roce = series("headline", "roce")
curves = {"RoCE (bare RC QP)": roce,
          "RoGUE, host CPU model off": series("headline", "rogue", False),
          "RoGUE, model on (5 us/signal, 1 us/clock read)": series("headline", "rogue", True)}
fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
for name, pts in curves.items():
    xs = sorted(pts)
    left.plot(xs, [pts[x] for x in xs], marker="o", label=name)
left.scatter([64, 64, 1 << 20, 1 << 20], [4, 4, 944, 1040], marker="x", color="black", zorder=5,
             label="paper (RoCE / RoGUE)")
left.set_xscale("log", base=2)
left.set_yscale("log")
left.set_xlabel("READ size (bytes)")
left.set_ylabel("mean completion time (us)")
left.legend(fontsize=6)
for color, (name, pts) in zip(("C1", "C2"), list(curves.items())[1:]):
    xs = sorted(x for x in pts if x in roce)
    right.plot(xs, [pts[x] / roce[x] for x in xs], marker="o", color=color, label=name)
# One batch in flight at a time (min_batches 1, window below a batch): model on / model off.
serial = {float(r["signal_cost_us"]) > 0: float(r["mean_us"]) for r in rows
          if r["label"] == "one_batch"}
if len(serial) == 2:
    right.scatter([1 << 20], [serial[True] / serial[False]], marker="D", color="tab:purple",
                  zorder=5, label="one batch in flight: model on / off")
right.scatter([64, 1 << 20], [1.0, 1040 / 944], marker="x", color="black", zorder=5,
              label="paper")
real = [r for r in rows if r["label"].startswith("real")]
if real:
    by = {(r["scheme"], int(r["bytes"])): float(r["p50_us"]) for r in real}
    xs = sorted({b for s, b in by if ("roce", b) in by and ("rogue", b) in by})
    ratios = [by[("rogue", x)] / by[("roce", x)] for x in xs]
    right.scatter(xs, [min(q, 1.48) for q in ratios], marker="s", color="tab:red", zorder=5,
                  label=f"real runtime, medians ({real[0]['label']})")
    for x, q in zip(xs, ratios):
        if q > 1.48:  # off the axis: drawn at its top, the value written beside
            right.annotate(f"{q:.2f}", (x, 1.48), textcoords="offset points", xytext=(-28, -4),
                           fontsize=7, color="tab:red")
right.axhline(1.0, color="grey", linestyle=":")
right.set_xscale("log", base=2)
right.set_xlabel("READ size (bytes)")
right.set_ylabel("RoGUE / RoCE (mean; real: median)")
right.set_ylim(0.9, max(1.4, right.get_ylim()[1]) if not real else 1.5)
right.legend(fontsize=6)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
print(f"wrote {sys.argv[2]}")
