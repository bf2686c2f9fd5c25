#pragma once
// How large the next WRITE chunk of a message is. The policy sees the connection's load; a new
// policy is one class.
#include <cstdint>
#include <memory>

#include "bifrost/core/time.h"
#include "bifrost/transport/config.h"

namespace bifrost::transport {

struct ChunkContext {
  uint64_t remaining = 0;         // bytes of the message not yet chunked
  uint64_t window_available = 0;  // window minus bytes in flight
  uint64_t bdp = 0;               // line rate * base RTT
  Time rtt;                       // smoothed RTT (zero before the first sample)
  Time base_rtt;
  double loss_rate = 0;  // packets lost per packet sent, recently (PacketLossEstimate)
};

class ChunkPolicy {
 public:
  virtual ~ChunkPolicy() = default;
  // Bytes of the next chunk: a multiple of the unit size unless it ends the message, never 0.
  virtual uint64_t next_chunk(const ChunkContext& context) const = 0;
};

// Bifröst's load-aware chunking. The paper says the chunk follows the available window and
// shrinks with queuing delay but gives no formula; bifrost's is
//
//   cap   = min(max_chunk, bdp, window_available)
//   size  = cap * base_rtt / max(rtt, base_rtt)     (queuing delay q = rtt - base_rtt shrinks
//                                                    it by base / (base + q))
//   size  = min(size, mtu * loss_budget / loss_rate)  (while losses are seen: our extension)
//   chunk = max(unit, size rounded down to units), then at most `remaining`
//
// so an idle path gets max_chunk-sized chunks, a path whose RTT doubled gets half, and a window
// below one unit still gets one unit (no deadlock). The loss cap keeps the bytes sent again
// for lost chunks near loss_budget of the bytes sent: a chunk of n packets is lost with
// probability about n * loss_rate and then goes again whole (as pieces). On a lossless path the
// estimate is 0 and the cap is off.
class LoadAwareChunking final : public ChunkPolicy {
 public:
  LoadAwareChunking(uint32_t unit_size, uint32_t max_chunk, uint32_t mtu = 4096,
                    double loss_budget = 0);
  uint64_t next_chunk(const ChunkContext& context) const override;

 private:
  uint32_t unit_;
  uint32_t max_chunk_;
  uint32_t mtu_;
  double loss_budget_;
};

// Chunking off: the whole message in one WRITE.
class WholeMessage final : public ChunkPolicy {
 public:
  uint64_t next_chunk(const ChunkContext& context) const override { return context.remaining; }
};

std::unique_ptr<ChunkPolicy> make_chunk_policy(const TransportConfig& config);

}  // namespace bifrost::transport
