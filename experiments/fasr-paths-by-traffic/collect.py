#!/usr/bin/env python3
"""Reads the runs listed by run.sh's manifest and writes results.csv (see README.md).

Episodes are FaSR's receiver counters (fasr_pool.csv, fast_recoveries / slow_recoveries): a
QP's recovery episode is counted by the NIC that RECEIVES the QP's data (the responder holds
the state unit), when the episode ends. Incast: host 0's row. Websearch: every NIC's row.
With a warm-up, every count is (run to the end) - (same run stopped at the warm-up).
"""
import csv
import json
import math
import os
import re
import sys
from collections import OrderedDict

FRAME = 1086  # bytes of a full 1,024 B data frame on the wire, without preamble and gap
# Star runs, whose receiver is host 0, and their base RTT (make_scenario.py): the 100 Gb/s
# series' 6 us, the paper setting's ~20.4 us (5 us per link, four links a round trip).
STAR_KINDS = {"incast": 6.0, "paper-random": 20.4, "paper-incast": 20.4}
# Senders of each star kind (x is N senders for "incast", QPs per sender for the paper's).
PAPER_SENDERS = {"paper-random": 1, "paper-incast": 3}


def receiver_qps(kind, x):
    """QPs into host 0: N for our incast, senders x QPs per sender for the paper's."""
    return int(x) * PAPER_SENDERS.get(kind, 1)


def read_run(d):
    with open(os.path.join(d, "out", "fasr_pool.csv")) as f:
        pool = {r["nic"]: r for r in csv.DictReader(f)}
    with open(os.path.join(d, "out", "summary.json")) as f:
        summary = json.load(f)
    text = open(os.path.join(d, "stdout.txt")).read()
    with open(os.path.join(d, "out", "throughput.csv")) as f:
        tput = {}
        for r in csv.DictReader(f):
            tput[r["link"]] = tput.get(r["link"], 0) + int(r["bytes"])
    return {
        "pool": pool,
        "drops": summary["drops"]["total"],
        "resent": int(re.search(r"NIC retransmissions (\d+)", text).group(1)),
        "timeouts": int(re.search(r"timeouts (\d+)", text).group(1)),
        "wall": float(re.search(r"in ([\d.]+) s wall", text).group(1)),
        "tput": tput,
        "dir": d,
    }


def nic_count(run, nics, key):
    return sum(int(run["pool"][n][key]) for n in nics)


def concurrency(run_dir, w_ps, t_ps):
    """Mean number of active flows per destination over (w, t]: the time each flow is active
    inside the window (start to finish, or to t if unfinished), summed by destination."""
    busy = {}
    with open(os.path.join(run_dir, "out", "flows.csv")) as f:
        for r in csv.DictReader(f):
            start = int(r["start_ps"])
            end = int(r["finish_ps"]) if r["finish_ps"] else t_ps
            overlap = min(end, t_ps) - max(start, w_ps)
            if overlap > 0:
                busy[f"h{r['dst']}"] = busy.get(f"h{r['dst']}", 0) + overlap
    return {n: b / (t_ps - w_ps) for n, b in busy.items()}


def main():
    manifest, out = sys.argv[1:]
    groups = OrderedDict()
    with open(manifest) as f:
        for m in csv.DictReader(f):
            groups.setdefault((m["series"], m["x"]), []).append(m)
    rows = []
    for (series, x), runs in groups.items():
        acc = {k: 0 for k in ("fast", "slow", "fallbacks", "unit_fallbacks", "allocations",
                              "drops", "resent", "timeouts", "delivered", "other_nic_episodes", "window_ps")}
        wall = 0.0
        conc_plain, conc_weighted, peak_units = [], [], 0
        for m in runs:
            w_us, t_us = int(m["warmup_us"]), int(m["duration_us"])
            d = m["dir"]
            acc["window_ps"] += (t_us - w_us) * 10**6
            end = read_run(os.path.join(d, str(t_us)))
            start = read_run(os.path.join(d, str(w_us))) if w_us > 0 else None
            wall += end["wall"] + (start["wall"] if start else 0)
            star = m["kind"] in STAR_KINDS
            nics = ["h0"] if star else list(end["pool"])

            def delta(f):
                return f(end) - (f(start) if start else 0)

            acc["fast"] += delta(lambda r: nic_count(r, nics, "fast_recoveries"))
            acc["slow"] += delta(lambda r: nic_count(r, nics, "slow_recoveries"))
            acc["fallbacks"] += delta(lambda r: nic_count(r, nics, "fallbacks"))
            acc["unit_fallbacks"] += delta(lambda r: nic_count(r, nics, "unit_fallbacks"))
            acc["allocations"] += delta(lambda r: nic_count(r, nics, "unit_allocations"))
            acc["drops"] += delta(lambda r: r["drops"])
            acc["resent"] += delta(lambda r: r["resent"])
            acc["timeouts"] += delta(lambda r: r["timeouts"])
            peak_units = max(peak_units, max(int(end["pool"][n]["peak_units"]) for n in nics))
            others = [n for n in end["pool"] if n not in nics]
            acc["other_nic_episodes"] += nic_count(end, others, "fast_recoveries") + \
                nic_count(end, others, "slow_recoveries")
            if star:
                acc["delivered"] += delta(lambda r: r["tput"].get("switch->h0", 0)) / FRAME
                conc_plain.append(receiver_qps(m["kind"], x))
                conc_weighted.append(receiver_qps(m["kind"], x))
            else:
                c = concurrency(os.path.join(d, str(t_us)), w_us * 10**6, t_us * 10**6)
                ep = {n: delta(lambda r: nic_count(r, [n], "fast_recoveries") +
                               nic_count(r, [n], "slow_recoveries")) for n in nics}
                conc_plain.append(sum(c.get(n, 0) for n in nics) / len(nics))
                tot = sum(ep.values())
                conc_weighted.append(sum(ep[n] * c.get(n, 0) for n in nics) / tot if tot else 0)
        n_ep = acc["fast"] + acc["slow"]
        share = acc["fast"] / n_ep if n_ep else float("nan")
        m0 = runs[0]
        star = m0["kind"] in STAR_KINDS
        loss = acc["drops"] / (acc["drops"] + acc["delivered"]) if star and acc["delivered"] else None
        gbps = acc["delivered"] * FRAME * 8 / acc["window_ps"] * 1000 if star else None
        # Packets one QP sends per base RTT at its share of the receiver's downlink.
        per_rtt = (gbps * 1e3 * STAR_KINDS[m0["kind"]] / (8 * FRAME) /
                   receiver_qps(m0["kind"], x) if star else None)
        rows.append({
            "series": series,
            "kind": m0["kind"],
            "x": x,
            "qps_per_sender": x if m0["kind"] in PAPER_SENDERS else (1 if star else ""),
            "cc": m0["cc"],
            "pool": m0["pool"],
            "seeds": len(runs),
            "window_us": f"{m0['warmup_us']}-{m0['duration_us']}",
            "concurrency": round(sum(conc_plain) / len(conc_plain), 3),
            "concurrency_episode_weighted": round(sum(conc_weighted) / len(conc_weighted), 3),
            "episodes": n_ep,
            "fast_recoveries": acc["fast"],
            "slow_recoveries": acc["slow"],
            "fast_fraction": round(share, 4) if n_ep else "",
            "fast_stderr": round(math.sqrt(share * (1 - share) / n_ep), 4) if n_ep else "",
            "enough_episodes": int(n_ep >= 50),
            "unit_allocations": acc["allocations"],
            "fallbacks": acc["fallbacks"],
            "unit_fallbacks": acc["unit_fallbacks"],
            "peak_units": peak_units,
            "drops": acc["drops"],
            "bottleneck_loss": round(loss, 4) if loss is not None else "",
            # Star runs only: the receiver's downlink, frame bytes over the window (summed seeds).
            "receiver_gbps": round(gbps, 1) if gbps is not None else "",
            "drops_per_episode": round(acc["drops"] / n_ep, 2) if n_ep else "",
            # Star runs only: what the fast share would be if the port's loss rate hit the QP's
            # packets independently, with k packets of the QP per base RTT: (1-p)^(k-1).
            "independent_formula": (round((1 - loss) ** max(0.0, per_rtt - 1), 4)
                                    if loss is not None and per_rtt else ""),
            "nic_retransmissions": acc["resent"],
            "timeouts": acc["timeouts"],
            "other_nic_episodes": acc["other_nic_episodes"],
            "wall_seconds": round(wall, 2),
        })
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
