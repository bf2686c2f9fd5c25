#include <fmt/format.h>

#include <array>

#include "parsers.h"

namespace bifrost::sim::scenario::detail {

namespace {
constexpr std::array<std::string_view, 6> kKeys = {
    "model", "recovery", "dcqcn", "ack_every_packets", "timeout", "retry_cnt"};
constexpr std::array<std::string_view, 2> kModels = {"line_rate", "rnic"};
constexpr std::array<std::string_view, 4> kEngines = {"gbn", "irn", "srnic", "fasr"};

bool roce_mtu(uint64_t mtu) {
  return mtu >= 256 && mtu <= 4096 && (mtu & (mtu - 1)) == 0;
}
}  // namespace

NicConfig parse_nic(const TableReader& r, Bytes mtu) {
  r.allow_only(kKeys);
  NicConfig n;
  if (auto model = r.choice("model", kModels)) {
    n.model = *model == "rnic" ? NicModel::rnic : NicModel::line_rate;
    if (n.model == NicModel::rnic && !roce_mtu(mtu.count())) {
      r.fail("model",
             fmt::format("the rnic model needs a RoCE path MTU: set simulation.mtu to 256, 512, "
                         "1024, 2048 or 4096 bytes (it is {})",
                         mtu.count()));
    }
  }
  if (auto engine = r.choice("recovery", kEngines)) n.recovery = *engine;
  if (auto dcqcn = r.boolean("dcqcn")) n.dcqcn = *dcqcn;
  if (auto every = r.integer("ack_every_packets", 0, 1 << 20)) {
    n.ack_every_packets = static_cast<uint32_t>(*every);
  }
  if (auto timeout = r.integer("timeout", 0, 31)) n.timeout = static_cast<uint8_t>(*timeout);
  if (auto retry = r.integer("retry_cnt", 0, 7)) n.retry_cnt = static_cast<uint8_t>(*retry);
  return n;
}

}  // namespace bifrost::sim::scenario::detail
