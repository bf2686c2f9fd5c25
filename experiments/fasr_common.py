"""Python shared by the experiments/fasr-* plots: the finishing touches every panel gets.

Import from a script in experiments/<name>/ with
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
    import fasr_common
"""
import os


def finish(fig, axes, here, name, dpi=110, legend_size=8):
    """Grids and legends on every axis, then a tight layout saved as here/name."""
    for ax in axes:
        ax.title.set_fontsize(10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=legend_size)
    fig.tight_layout()
    fig.savefig(os.path.join(here, name), dpi=dpi)
