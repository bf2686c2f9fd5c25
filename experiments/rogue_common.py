"""What the RoGUE experiments' plot scripts share: a figure of lines with markers against one x
axis, with the paper's reference as a dotted vertical line."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


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
