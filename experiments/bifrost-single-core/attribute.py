#!/usr/bin/python3
"""Splits one process's CPU samples (a `perf record` file) by the layer they ran in, so the
software cost of a transport can be told from the soft NIC's: the paper's NIC is hardware, ours
is host code. Prints one CSV row: the sampled share (%) of each layer.

  kernel     the kernel: UDP sockets (the soft NIC's wire), scheduling, page faults
  nic        the soft NIC and its runtime: bifrost::rnic, wire, verbs, world, real (UDP ports,
             event loop), and libc's memcpy/memset (the NIC's DMA copies)
  transport  bifrost::transport: the RPC channel and Bifröst's control path
  app        bifrost::perf: the benchmark itself
  other      everything else (allocator, std::, dynamic linking)

Usage: attribute.py PERF_DATA [PERF_DATA ...] (one row per file, after a header with -H)."""
import re
import subprocess
import sys

LAYERS = ["kernel", "nic", "transport", "app", "other"]
NIC_NAMESPACES = {"rnic", "wire", "verbs", "world", "real"}
ROW = re.compile(r"\s*([\d.]+)%\s+\[(.)\]\s+(.*)")


def layer_of(kind, symbol):
    if kind == "k":
        return "kernel"
    m = re.search(r"bifrost::(\w+)", symbol)
    if m:
        name = m.group(1)
        if name in NIC_NAMESPACES:
            return "nic"
        if name == "transport":
            return "transport"
        if name == "perf":
            return "app"
        return "other"
    if re.match(r"__(memmove|memcpy|memset)", symbol):
        return "nic"
    return "other"


def shares(path):
    report = subprocess.run(["perf", "report", "-i", path, "--stdio", "--sort", "sym"],
                            capture_output=True, text=True, check=True).stdout
    total = dict.fromkeys(LAYERS, 0.0)
    for line in report.splitlines():
        m = ROW.match(line)
        if m:
            total[layer_of(m.group(2), m.group(3))] += float(m.group(1))
    return total


def main():
    args = sys.argv[1:]
    if args and args[0] == "-H":
        print(",".join(LAYERS))
        args = args[1:]
    for path in args:
        s = shares(path)
        print(",".join(f"{s[k]:.2f}" for k in LAYERS))


if __name__ == "__main__":
    main()
