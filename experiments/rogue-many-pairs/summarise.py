"""Fig. 15's numbers per scheme and load: the median FCT of the 1 MB flows (Fig. 15a) and the
90th-percentile FCT of the 1 KB messages (Fig. 15b), and the latter over DCTCP's at the same
load (the paper: RoGUE's is "nearly one-third" of DCTCP's, section 1).
Usage: summarise.py ROWS_CSV"""
import csv
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
small = {(r["scheme"], r["load"]): r for r in rows if r["bucket"] == "<10KB"}
large = {(r["scheme"], r["load"]): r for r in rows if r["bucket"] != "<10KB"}


def num(x):
    return float(x) if x not in ("", "None") else float("nan")


print("scheme,load,flows,finished,large_fct_p50_us,small_fct_p90_us,small_p90_over_dctcp")
for key in sorted(small):
    scheme, load = key
    dctcp = small.get(("dctcp", load))
    ratio = num(small[key]["fct_p90_us"]) / num(dctcp["fct_p90_us"]) if dctcp else float("nan")
    print(f"{scheme},{load},{small[key]['flows']},{small[key]['finished']},"
          f"{num(large[key]['fct_p50_us']):.1f},{num(small[key]['fct_p90_us']):.1f},{ratio:.3f}")
