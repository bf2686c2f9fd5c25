# Sourced by every experiment's run.sh (bash): the paths it works with and a helper that builds
# the Release tools it needs, configuring build/release first on a fresh checkout.
#   source "$(dirname "$0")/../common.sh"
#   build_tools bifrost-rnic-loss
# BIFROST_BUILD picks another build folder (it must be configured already).
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${BIFROST_BUILD:-$root/build/release}"

build_tools() {
  if [ "$build" = "$root/build/release" ] && [ ! -f "$build/CMakeCache.txt" ]; then
    (cd "$root" && cmake --preset release >/dev/null)
  fi
  cmake --build "$build" --target "$@" >/dev/null
}

# Builds the Release tool $1 from the repository root, sets $tool to it and $tmp to a scratch
# folder removed on exit.
tool_and_tmp() {
  cd "$root"
  build_tools "$1"
  tool="$build/tools/$1"
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
}

# Builds bifrost-sim (Release, one job) unless NO_BUILD=1, and sets $tool to it.
build_sim() {
  if [ "${NO_BUILD:-0}" != 1 ]; then
    echo "building bifrost-sim in $build ..." >&2
    CMAKE_BUILD_PARALLEL_LEVEL=1 build_tools bifrost-sim
  fi
  tool="$build/tools/bifrost-sim"
}

# The start of a real-runtime script: exits 77 without root (network namespaces), builds
# bifrost-perf and sets $perf, $tmp (removed on exit), $line (Mbit/s: LINE_MBIT, default $1) and
# $gbps (the same in Gb/s, for --line_rate).
perf_setup() {
  [ "$(id -u)" -eq 0 ] || { echo "real rows need root (network namespaces): skipped" >&2; exit 77; }
  line="${LINE_MBIT:-$1}"
  cd "$root"
  CMAKE_BUILD_PARALLEL_LEVEL=1 build_tools bifrost-perf
  perf="$build/tools/bifrost-perf"
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  gbps=$(/usr/bin/python3 -c "print($line / 1000)")
}

# One bifrost-perf run on the namespace testbed (root): the server in namespace b, the client in
# a, a tbf of $line Mbit/s on each side's veth. Needs $perf (the tool), $tmp and $line; the
# client's JSON lands in $tmp/NAME.json, each side's output in $tmp/NAME.{server,client}.txt.
#   perf_pair NAME read_lat -s 64 -m 2048 ...
perf_pair() {
  local name=$1
  shift
  scripts/testbed.sh --rate "${line}mbit" \
    --b "$perf $* -B \$BF_B_IP > $tmp/$name.server.txt 2>&1" \
    --a "$perf $* \$BF_B_IP --out_json $tmp/$name.json > $tmp/$name.client.txt 2>&1" \
    >/dev/null || { cat "$tmp/$name".*.txt >&2; exit 1; }
}
