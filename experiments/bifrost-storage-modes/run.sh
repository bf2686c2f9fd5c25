#!/usr/bin/env bash
# Fig. 13 / Table 3 of the Bifröst paper: ARDMA and the three Bifröst modes in a block storage
# service (ESSD on EBS, cluster E: CX-5 100 Gb/s dual port): (a) single-operation latency,
# (b) IOPS of 4 KB operations, (c) throughput of 1 MB operations, each for Read and Write,
# normalized to ARDMA. Modes (Table 3's module choices, §4.6.3's names):
#   ardma   the NIC alone: RC reliability, no software CC, one WRITE per message up to 32 KB and
#           an RDMA READ by the server above (§4.2.1: ARDMA "uses RDMA READ operation to transfer
#           the large requests"; our proxy: the same RPC library with Bifröst's chunking and
#           software CC off)
#   hw_rc   Bifröst HW R/C: RC (hardware reliability), no software CC (hardware CC), chunking
#   hw_r    Bifröst HW R: RC, software CC (Swift), chunking
#   sw      Bifröst SW: UC with software reliability, software CC, chunking
# Bifröst modes run the paper's configuration (--config paper). The real runtime on loopback
# (two bifrost-perf rpc_bw processes, one per core), since the differences are the software's
# cost per operation, which the simulator does not charge. Operations as RPCs: a Write sends
# the data and gets a 128 B answer; a Read sends 128 B and gets the data. Latency: 4 KB, one
# connection, depth 1; IOPS: 4 KB, 8 connections x depth 8; throughput: 1 MB, one connection,
# depth 8. Writes results.csv and modes.png here.
#
#   experiments/bifrost-storage-modes/run.sh         # 3 reps x 24 runs x 3 s: about 5 min
#   REPS=1 SECONDS_PER_RUN=1 experiments/bifrost-storage-modes/run.sh
set -euo pipefail
source "$(dirname "$0")/../common.sh"
source "$(dirname "$0")/../bifrost_rpc_bw.sh"
reps="${REPS:-3}"
seconds="${SECONDS_PER_RUN:-3}"
modes="${MODES:-ardma hw_rc hw_r sw}"
ops="${OPS:-read_lat write_lat read_iops write_iops read_tput write_tput}"

mode_flags() {
  case "$1" in
    ardma) echo "--transport bifrost-rc --config paper --cc none --chunking 0 --read_threshold 32768" ;;
    hw_rc) echo "--transport bifrost-rc --config paper --cc none" ;;
    hw_r) echo "--transport bifrost-rc --config paper" ;;
    sw) echo "--transport bifrost-uc --config paper" ;;
    *) echo "unknown mode $1" >&2; exit 2 ;;
  esac
}

op_flags() {
  case "$1" in
    read_lat) echo "-s 128 --response_size 4096 --depth 1 -q 1" ;;
    write_lat) echo "-s 4096 --response_size 128 --depth 1 -q 1" ;;
    read_iops) echo "-s 128 --response_size 4096 --depth 8 -q 8" ;;
    write_iops) echo "-s 4096 --response_size 128 --depth 8 -q 8" ;;
    read_tput) echo "-s 128 --response_size 1048576 --depth 8 -q 1" ;;
    write_tput) echo "-s 1048576 --response_size 128 --depth 8 -q 1" ;;
    *) echo "unknown operation $1" >&2; exit 2 ;;
  esac
}

out="${OUT:-$here/results.csv}"
rpc_bw_start
for rep in $(seq 1 "$reps"); do
  for op in $ops; do
    for mode in $modes; do
      read -r -a flags <<<"$(mode_flags "$mode") $(op_flags "$op")"
      rpc_bw_run "$mode/$op" "$rep" -D "$seconds" "${flags[@]}"
    done
  done
done
[ "${PLOT:-1}" = 1 ] && /usr/bin/python3 "$here/plot.py" "$out" "$here/modes.png"
exit 0
