"""One row per run of run.sh: dci-workload-fct's summarize.py makes each row (FCT of the
inter-DC flows, changes against PFC); this adds the slot T and the buffer the code derived for
it (H + k S = Delta + 2 Rs T + k S, from the sizing file of runs.py).

usage: summarize.py OUT_DIR RESULTS_CSV
"""
import json
import pathlib
import re
import sys

FCT = pathlib.Path(__file__).resolve().parent.parent / "dci-workload-fct"
sys.path.insert(0, str(FCT))
import summarize as fct  # noqa: E402  (experiments/dci-workload-fct/summarize.py)

RUN = re.compile(r"(pfc|bifrost)(?:_T([0-9.]+us))?_(websearch|fb_hadoop)_([0-9.]+)")


def slot_us(slot):
    return float(slot[:-2]) if slot else ""


def main():
    out, results = pathlib.Path(sys.argv[1]), sys.argv[2]
    rows = []
    for set_dir in sorted(p for p in out.iterdir() if p.is_dir()):
        m = re.fullmatch(r"(dcqcn|nodcqcn)_(.+)", set_dir.name)
        if not m:
            continue
        cc, length = m.groups()
        sizing = json.loads((out / f"sizing_{length}.json").read_text())
        need = {x["slot"]: x for x in sizing["slots"] if "h_plus_ks" in x}
        for run_dir in sorted(p for p in set_dir.iterdir() if p.is_dir()):
            r = RUN.fullmatch(run_dir.name)
            if not r or not (run_dir / "summary.json").exists():
                continue
            scheme, slot, cdf, load = r.groups()
            row = fct.row(run_dir, cc, length, scheme, cdf, load)
            if scheme == "bifrost":
                n = need[slot]
                extra = {"slot_us": slot_us(slot), "buffer_bytes": n["h_plus_ks"],
                         "delta_bytes": n["delta"], "two_rs_t_bytes": 2 * n["rs_t"],
                         "k_s_bytes": n["k_s"]}
            else:
                extra = {"slot_us": "", "buffer_bytes": sizing["pfc_xoff"] + sizing["pfc_headroom"],
                         "delta_bytes": "", "two_rs_t_bytes": "", "k_s_bytes": ""}
            rows.append({**{k: row[k] for k in ("cc", "dci_length", "scheme")}, **extra,
                         **{k: v for k, v in row.items() if k not in ("cc", "dci_length",
                                                                      "scheme")}})
    if not rows:
        raise SystemExit(f"no finished runs in {out}")
    fct.add_vs_pfc(rows)
    rows.sort(key=lambda r: (r["cc"], r["dci_length"], r["scheme"] != "pfc",
                             r["slot_us"] or 0))
    fct.write(results, rows)


if __name__ == "__main__":
    main()
