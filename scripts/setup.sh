#!/usr/bin/env bash
# Installs bifrost's build and test dependencies from Debian packages. Idempotent: when every
# package is already installed it does nothing and says so.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  clang-14 libclang-rt-14-dev           # libFuzzer targets
  libfmt-dev libcli11-dev libtomlplusplus-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  tshark                                # interoperability test of our RoCEv2 frames
  python3 python3-matplotlib            # ICRC cross-check, plots
  iproute2 nftables                     # the real-world testbed: namespaces, veth, random loss
  libibverbs-dev ibverbs-utils perftest  # libbifrost-verbs.so: rdma-core 44's verbs.h, its clients
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=sudo
  else
    echo "setup: missing packages (${missing[*]}) and not root; run as root or install them" >&2
    exit 1
  fi
else
  SUDO=
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
