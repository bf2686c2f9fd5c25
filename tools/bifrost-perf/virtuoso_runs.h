#pragma once
// The test loops over Virtuoso (--transport virtuoso): every iteration is one MP WR of -s bytes
// on a multi-path connection (one per -q), which the library splits over its --paths QPs.
//  - write_bw: MP WRITE into the server's slot; the server stays passive. With --verify the
//    message carries its index k in its first 8 bytes and pattern message_seed(c, k) after
//    them; once the MP WRITE completed (every part acknowledged, so placed) an 8-byte MP SEND
//    names the slot (an MP WRITE has no immediate), the server checks it and answers with an
//    8-byte MP SEND, and only then may the slot be written again. (A slot freed at the notice's
//    own completion could be overwritten before the server saw the notice: MP SENDs reach MP
//    RECVs in posting order, so a notice acknowledged on one path may wait for an earlier one
//    still on another.)
//  - send_bw: MP SEND into the server's next MP RECV (one SEND up to the library's small-SEND
//    limit, WRITEs across the paths and an empty SEND above it), indexed as write_bw's.
//  - read_bw: MP READ of the server's slot, checked by the client against the pattern the
//    server filled it with.
// A slot is reused only after its MP WR completed (write_bw --verify: was checked): the NIC
// reads it in place.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

#include "results.h"
#include "runner.h"
#include "session.h"

namespace bifrost::perf {

// Verified here: read_bw's READs.
ClientOutcome run_virtuoso_client(Session& session, uint32_t size);

// The server of one size: keeps MP RECVs posted where the test needs them (send_bw, write_bw
// --verify; posted once and kept across sizes), checks what arrives and answers notices,
// serves until the client speaks on the control connection.
class VirtuosoServer final : public Runner {
 public:
  VirtuosoServer(Session& s, uint32_t size);
  ~VirtuosoServer() override;
  // Waits (at most 2 s) until the `expected` MP SENDs the client completed were taken here:
  // the client's completion is the NIC's ACK, this side's MP RECV completion may come a loop
  // turn later.
  void settle(uint64_t expected);
  PeerStats stats() const { return verify_stats(received_); }

 private:
  void on_receive(size_t c, const transport::virtuoso::MpReceive& r);
  void post_more() override {}
  bool done() const override { return s_.channel().readable(); }
  uint64_t progress_bytes() const override { return received_ * size_; }
  uint64_t received_ = 0;
};

// The library's counters of every connection, summed, and each path's capacity estimate.
nlohmann::json virtuoso_counters(Session& session);

}  // namespace bifrost::perf
