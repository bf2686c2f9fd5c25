// Fuzz target: arbitrary bytes as the bootstrap message a peer sends over TCP before any RoCE
// traffic (a PeerInfo with its Bifröst connection offers). Whatever arrives must either parse
// or be refused with bifrost::Error (the clear error the peer is shown); no other exception,
// no crash. What parses must survive a round trip through to_json unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "bifrost/core/error.h"
#include "bifrost/real/bootstrap.h"

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto message = nlohmann::json::parse(data, data + size, nullptr, false);
  if (message.is_discarded()) return 0;
  bifrost::real::PeerInfo info;
  try {
    info = bifrost::real::peer_info_from_json(message);
  } catch (const bifrost::Error&) {
    return 0;
  }
  if (info.version != bifrost::real::kBootstrapVersion) return 0;  // refused by the caller
  const nlohmann::json again = bifrost::real::to_json(info);
  require(bifrost::real::to_json(bifrost::real::peer_info_from_json(again)) == again);
  return 0;
}
