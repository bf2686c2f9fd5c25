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
