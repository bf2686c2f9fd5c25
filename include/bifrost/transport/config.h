#pragma once
// How one Bifröst connection behaves: its mode (the paper's Table 3), chunking, the layout of
// the immediate data, ACK coalescing and the resources it reserves. Defaults follow the paper.
#include <cstdint>

#include "bifrost/core/time.h"
#include "bifrost/transport/cc/cc_config.h"

namespace bifrost::transport {

// Who makes a connection reliable: the NIC (RC QPs, a small retry count, backup QPs on
// failure) or bifrost's software (UC QPs, software ACKs and selective retransmission).
enum class Reliability : uint8_t { hardware_rc, software_uc };
// Who controls congestion: the NIC (DCQCN on the QPs, no software window) or a software
// algorithm chosen by kind (see cc/cc_config.h).
enum class CcLocation : uint8_t { nic, software };
// Where software ACKs go (software_uc): on the endpoint's UD QP, whose CQ is polled first and
// whose traffic class is the endpoint's ack_traffic_class (Bifröst's design), or as SENDs on
// the connection's data QP behind its data (the alternative A.4 / Fig. 4(b) compares against).
enum class AckPath : uint8_t { ud, data_qp };

// The 32-bit immediate data of a WRITE chunk: bit 31 is the hint (the last WQE the window
// allows, so the receiver ACKs at once), then `message_id_bits` of WRITE reliable number, then
// `chunk_offset_bits` of chunk offset in units. The two widths must sum to 31.
struct ImmLayout {
  uint8_t message_id_bits = 21;
  uint8_t chunk_offset_bits = 10;
};

struct TransportConfig {
  Reliability reliability = Reliability::software_uc;
  CcLocation cc_location = CcLocation::software;
  // Software CC: its kind (dcqcn: software_uc only, its ECN echo rides on the software ACKs)
  // and parameter blocks, whose path-dependent fields follow cc_params() unless overridden.
  CcConfig cc{};
  bool chunking = true;  // false: a large message is one WRITE of its whole length

  // Chunking: WRITE chunks are multiples of unit_size (the minimum chunk) up to
  // max_chunk; messages up to send_threshold bytes go by SEND.
  uint32_t unit_size = 4096;
  uint32_t max_chunk = 64 * 1024;
  uint32_t send_threshold = 32 * 1024;
  // While losses are seen, chunks shrink so that about this fraction of the bytes goes again
  // because a chunk was lost (LoadAwareChunking; not in the paper). 0: chunks ignore loss.
  double chunk_loss_budget = 0.05;
  // Over UC, while losses are seen, a message goes by SEND only if it is within twice that
  // budget (a SEND is lost whole with any of its packets, and goes again whole, but as
  // chunks it would pay a request and grant round trip); larger ones go
  // as WRITE chunks, a lost one costing its chunk. Never below two units (a message of one unit
  // and an RPC header gains nothing from a grant round trip). false: send_threshold alone, as
  // §3.2 says.
  bool send_threshold_follows_loss = true;
  ImmLayout imm{};
  uint32_t mtu = 4096;

  // The path, for the window's upper bound (BDP) and the CC's target.
  Time base_rtt = Time::us(50);
  uint64_t line_rate_bps = 100'000'000'000;
  // After the CC puts a new pacing rate on the QP's limiter, the WQEs posted before it and in
  // the next this-many bytes still queue under the old limit: their RTT samples go to the RTO
  // estimate but not to the CC (RoGUE holds samples off for 160 KB). 0: every sample counts.
  uint64_t rtt_holdoff_after_rate_change = 0;

  // Software ACK coalescing (A.1.2): an ACK goes after this many WQEs or bytes, at once for a
  // hint bit or an out-of-order reliable number, and at the latest after ack_timer.
  uint32_t ack_every_wqes = 32;
  uint32_t ack_every_bytes = 32 * 1024;
  Time ack_timer = Time::us(120);
  AckPath ack_path = AckPath::ud;
  // true: the hint bit also marks a WQE after which nothing is queued to post, so the tail of
  // a burst (and a lone RPC) is acknowledged at once and a lost tail is found by the tail probe
  // after 2 srtt; false: only the last WQE the window allows, as A.1.2 says, and a tail waits
  // for the receiver's ack_timer.
  bool hint_when_idle = true;
  // true: the hint bit also marks the second-to-last WQE the window allows. If the last is
  // lost, the one before it is acknowledged at once (not at the ack_timer), the WQE that ACK
  // lets go follows the lost one, and its ACK reveals the hole by the in-order rule within a
  // round trip instead of the tail probe. false: A.1.2's last WQE only.
  bool hint_last_two = true;
  // Software retransmission timeout: max(min_rto, srtt + 4 rttvar).
  Time min_rto = Time::us(500);
  // true: the late ACK of a WQE declared lost (a timeout, a probe, a gap) still gives an RTT
  // sample: every transmission has its own global number, so the sample is exact (A.1.1), and
  // it is the one that measures the queue which made the verdict wrong. false: such an ACK is
  // stale and ignored, and srtt cannot learn a queue longer than the RTO (Fig. 9's start).
  bool rtt_from_late_acks = true;
  // true: a UC primary is given up after 3 timeouts in a row with no ACK at all for anything it
  // carried (RtoClock::silent_timeouts; a late ACK of a WQE declared lost proves the path
  // delivers). false: after 3 timeouts in a row without new data acknowledged, which failed
  // over thousands of queued, healthy QPs in Fig. 9's incast (experiments/bifrost-incast).
  bool failover_needs_silence = true;
  // true: a hinted WQE arms the tail-loss probe when it leaves the NIC (Sender::arm_tail_probe):
  // if neither it nor anything after it is acknowledged within ~2 srtt, it is declared lost and
  // resent, as TCP's tail loss probe. false: the paper's sender (§3.4.2, A.1): a lost tail is
  // found by the RTO alone.
  bool tail_probe = true;
  // true: the tail probe learns from its outcome (reliability/tail_probe.h). Once a probe has
  // proved needed (the ACK of its copy came, none of the original), it waits 2 srtt + the
  // receiver's delay in acknowledging hinted WQEs as the ACKs report it (eq. (1)'s T3' - T2,
  // smoothed like the RTT), at least tail_probe_floor, and a lost copy is probed again after
  // twice the delay instead of waiting for the RTO, until a probe proves spurious (the
  // original's ACK comes after all). Until then, and with false: max(2 srtt + ack_timer,
  // min_rto / 4) and one probe until new data is acknowledged (RFC 8985 §7).
  bool tail_probe_learns = true;
  Time tail_probe_floor = Time::zero();

  // Resources per connection.
  uint32_t max_outstanding_wqes = 128;      // data WQEs in flight; below receive_slots
  uint32_t receive_slots = 256;             // posted receives on each data QP
  uint64_t arena_bytes = 16 * 1024 * 1024;  // where large messages land
  uint32_t backup_qps = 2;                  // pre-connected, beside the primary

  // Background reconnect (A.3): a primary QP given up (RC: retries exhausted; UC: 3 silent
  // timeouts in a row, above) is replaced by a fresh QP with a new first PSN and a new UDP source
  // port, so ECMP hashes it onto another path; the peers agree on the new pair by control messages
  // on the UD QP, the request repeated every reconnect_interval, at most reconnect_attempts times.
  // Off: a failed RC QP stays failed and a UC primary rejoins the rotation unchanged.
  // Remote-parameter requests (Connection::set_remote_parameter) are repeated on the same schedule.
  bool reconnect = true;
  Time reconnect_interval = Time::ms(1);
  uint32_t reconnect_attempts = 10;

  // RC mode: the NIC's retry count before a QP fails over (A.2).
  uint8_t rc_retry_cnt = 2;
  uint8_t rc_timeout = 8;  // 4.096 us * 2^timeout

  // The Bifröst paper's configuration exactly (§4.1, §3.4): ACK coalescing 120 us / 32 WQEs /
  // 32 KB, chunks 4-64 KB, SEND up to 32 KB, base RTT 50 us, Swift-like CC whose window drops to
  // its minimum on any loss with the target fixed at the base RTT, the hint bit only on the last
  // WQE the window allows (A.1.2), and no loss-aware chunk cap. The product default (a plain
  // TransportConfig{}) adds our own choices; docs/transport.md, "Two configurations", lists
  // each with the paper's behaviour beside it. line_rate_bps and mtu are the setup's to set.
  static TransportConfig paper();

  // What the CC derives its path-dependent parameters from: base_rtt, the BDP at
  // line_rate_bps, unit_size as the mss, the line rate.
  CcParams cc_params() const;
  // The largest message: unit_size * 2^chunk_offset_bits (4 KB units, 10 bits: 4 MiB).
  uint64_t max_message_size() const;
  // The smallest message a sender with this configuration may send as WRITE chunks: above
  // send_threshold, or above two units while send_threshold_follows_loss lowers it.
  uint64_t smallest_large_message() const;
  // Throws Error naming the first inconsistent value.
  void validate() const;
};

}  // namespace bifrost::transport
