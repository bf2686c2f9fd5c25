"""What the RoGUE experiments' scripts share: the whole per-flow samples of a run by sender
host, and a figure of lines with markers against one x axis, with the paper's reference as a
dotted vertical line."""
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def append_flow_samples(out, series, samples_path):
    """Appends `series,sender,start_s,end_s,gbps` rows for every whole sample of the run in
    OUT (flow_throughput.csv), the flow named by its sender host (flows.csv)."""
    source = {row["id"]: row["src"] for row in csv.DictReader(open(f"{out}/flows.csv"))}
    with open(samples_path, "a") as f:
        for row in csv.DictReader(open(f"{out}/flow_throughput.csv")):
            if row["whole"] != "1":
                continue
            f.write("{},{},{:.6f},{:.6f},{:.4f}\n".format(
                series, source[row["flow"]], int(row["start_ps"]) / 1e12,
                int(row["end_ps"]) / 1e12, float(row["gbps"])))


def line_plot(lines, xlabel, ylabel, reference, out, xscale="linear"):
    """lines: {label: [(x, y), ...]}; reference: (x, label) of the paper's marker."""
    fig, ax = plt.subplots(figsize=(5, 3.4))
    for name, pts in sorted(lines.items()):
        pts = sorted(pts)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
    ax.axvline(reference[0], color="grey", linestyle=":", label=reference[1])
    ax.set_xscale(xscale)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")
