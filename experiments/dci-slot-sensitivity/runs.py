"""Scenarios of the time-slot sweep (Fig. 11), made by dci-workload-fct's own code (its
scenario.py sizes the buffers and fills its template); this file only changes Bifrost's slot T
and asks bifrost-sim for the buffer each T needs.

  runs.py size TOOL LENGTH SIZING_JSON SLOT...
      dci-workload-fct's sizing of the link, plus Bifrost's H + k S for every slot (read from the
      error bifrost-sim gives for a 64-byte buffer: the code's number, not a copy of its
      formula), or the configuration error that rejects the slot. Every switch gets 10 MB + the
      largest long-haul need over all slots.
  runs.py make SCHEME SLOT CDF LOAD LENGTH SIZING_JSON FLOWS SEED DCQCN OUT_TOML
      One scenario; SLOT is ignored for pfc. Bifrost's buffer is left to the code's minimum.
"""
import json
import pathlib
import re
import subprocess
import sys
import tempfile

FCT = pathlib.Path(__file__).resolve().parent.parent / "dci-workload-fct"
sys.path.insert(0, str(FCT))
import scenario as fct  # noqa: E402  (experiments/dci-workload-fct/scenario.py)

PAPER_SLOT = 'slot = "10us"'  # what dci-workload-fct's template sets


def with_slot(text, slot):
    if PAPER_SLOT not in text:
        raise SystemExit("dci-workload-fct's Bifrost table no longer sets slot = \"10us\"")
    return text.replace(PAPER_SLOT, f'slot = "{slot}"')


def scenario_text(scheme, slot, cdf, load, length, sizing, flows, seed, dcqcn):
    v = fct.values(scheme, cdf, load, length, sizing, flows, seed, dcqcn, "2s")
    if scheme == "bifrost":
        v["FLOW_CONTROL"] = with_slot(v["FLOW_CONTROL"], slot)
    return fct.fill(v)


def slot_need(tool, length, sizing, slot):
    """Bifrost's H + k S for one slot, or the error that rejects the slot."""
    probe_sizing = dict(sizing, switch_buffer=10**10)
    text = scenario_text("bifrost", slot, "fb_hadoop", 0.1, length, probe_sizing, 1, 1, True)
    text = text.replace("leak_every = 1", 'leak_every = 1\nbuffer = "64B"')
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "probe.toml"
        path.write_text(text)
        r = subprocess.run([tool, "run", str(path), "--out", tmp + "/out", "--quiet"],
                           capture_output=True, text=True)
    m = re.search(r"k x MTU = (\d+) bytes \(Delta (\d+), Rs x T (\d+)\)", r.stderr)
    if m:
        need, delta, per_slot = (int(g) for g in m.groups())
        return {"slot": slot, "h_plus_ks": need, "delta": delta, "rs_t": per_slot,
                "k_s": need - delta - 2 * per_slot}
    # Anything else is the configuration check that rejects this slot; keep its message.
    return {"slot": slot, "error": r.stderr.strip().splitlines()[-1] if r.stderr else "?"}


def size(tool, length, out_json, slots):
    s = fct.size(tool, length, out_json)
    s["slots"] = [slot_need(tool, length, s, slot) for slot in slots]
    needs = [x["h_plus_ks"] for x in s["slots"] if "h_plus_ks" in x]
    s["switch_buffer"] = fct.SHARED + max(needs + [s["pfc_xoff"] + s["pfc_headroom"]])
    pathlib.Path(out_json).write_text(json.dumps(s, indent=1) + "\n")


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "size" and len(sys.argv) >= 6:
        size(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    elif cmd == "make" and len(sys.argv) == 12:
        scheme, slot, cdf, load, length, sizing, flows, seed, dcqcn, out = sys.argv[2:]
        s = json.loads(pathlib.Path(sizing).read_text())
        text = scenario_text(scheme, slot, cdf, load, length, s, flows, seed, dcqcn == "1")
        pathlib.Path(out).write_text(text)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
