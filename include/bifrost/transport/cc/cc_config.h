#pragma once
// Which congestion control a connection runs and with what parameters: a kind, and one block
// per algorithm holding that algorithm's own parameter struct.
//
// Some fields of each struct depend on the path (base RTT, BDP, unit size, line rate: the
// CcParams a connection derives from its TransportConfig). Those are filled in from the
// connection when the parameters are resolved, exactly as swift_params_for /
// dcqcn_params_for / vegas_params_for do, unless the block's matching std::optional override
// is set: an override is the only way to set such a field, and validate() refuses a block
// whose `params` has one changed (it would be silently replaced). Every other field of
// `params` is used as given, its default being the algorithm's.
//
// The scenario parser reads this header without linking the transport: the kind names and
// to_string stay inline.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "bifrost/transport/cc/congestion_control.h"
#include "bifrost/transport/cc/dcqcn.h"
#include "bifrost/transport/cc/dctcp.h"
#include "bifrost/transport/cc/swift.h"
#include "bifrost/transport/cc/timely.h"
#include "bifrost/transport/cc/vegas.h"

namespace bifrost::transport {

// swift: RTT AIMD, the minimum window on loss (the default; its loss gate spares random loss);
// swift_md: the same with a multiplicative decrease on loss (the swift block, loss_to_minimum
// forced off); dcqcn: a rate from ECN echoes; vegas: RoGUE's Vegas with pacing; timely: a rate
// from the RTT gradient (a baseline); dctcp: DCTCP's window from ECN echoes (a baseline); none:
// an unlimited window.
enum class CcKind : uint8_t { swift, swift_md, dcqcn, vegas, timely, dctcp, none };

// Indexed by CcKind.
inline constexpr std::array<std::string_view, 7> kCcKindNames = {
    "swift", "swift-md", "dcqcn", "vegas", "timely", "dctcp", "none"};

constexpr std::string_view to_string(CcKind kind) {
  return kCcKindNames[static_cast<std::size_t>(kind)];
}
// Throws Error naming the known kinds for any other name.
CcKind parse_cc_kind(std::string_view name);

// The kinds that react to ECN marks, which reach software only through Bifröst UC's software
// ACKs (RC's hardware ACKs do not carry them).
constexpr bool needs_ecn_echo(CcKind kind) {
  return kind == CcKind::dcqcn || kind == CcKind::dctcp;
}

struct SwiftBlock {
  SwiftParams params{};                    // mss is always the unit size, packet_bytes the MTU
  std::optional<Time> target_delay;        // derived: the base RTT
  std::optional<Time> target_slack;        // derived: base RTT / 5
  std::optional<uint64_t> min_window;      // derived: the unit size
  std::optional<uint64_t> initial_window;  // derived: one BDP, at least the unit size
  std::optional<uint64_t> max_window;      // derived: two BDPs (twice the derived initial)
};

struct DcqcnBlock {
  DcqcnParams params{};          // rp.line_rate is always the line rate, mss the unit size
  std::optional<Rate> min_rate;  // derived: mlx5's 1 Mb/s, at most the line rate
  std::optional<Time> base_rtt;  // derived: the connection's (sizes the window)
};

struct VegasBlock {
  VegasParams params{};           // packet_bytes is always the unit size, line_rate the line rate
  std::optional<Rate> rate_step;  // derived: a tenth of the line rate
  std::optional<uint64_t> max_window_bytes;  // derived: four BDPs, at least the initial window
};

struct TimelyBlock {
  TimelyParams params{};  // line_rate and base_rtt are always the path's, mss the unit size
  std::optional<Rate> additive_increase;  // derived: a thousandth of the line rate
  std::optional<Rate> min_rate;           // derived: a hundredth of the line rate
};

struct DctcpBlock {
  DctcpParams params{};                      // mss is always the unit size
  std::optional<uint64_t> max_window_bytes;  // derived: four BDPs, at least the initial window
};

struct CcConfig {
  CcKind kind = CcKind::swift;
  SwiftBlock swift{};
  DcqcnBlock dcqcn{};
  VegasBlock vegas{};
  TimelyBlock timely{};
  DctcpBlock dctcp{};

  // The parameters in force for a connection on `path`: derived from it, then the block's
  // own fields and overrides. swift_params gives swift-md's when kind is swift_md.
  SwiftParams swift_params(const CcParams& path) const;
  DcqcnParams dcqcn_params(const CcParams& path) const;
  VegasParams vegas_params(const CcParams& path) const;
  TimelyParams timely_params(const CcParams& path) const;
  DctcpParams dctcp_params(const CcParams& path) const;
  // Throws Error for the block in force (the kind's) with an impossible value on `path`, or
  // with a path-derived field set in its params instead of through its override.
  void validate(const CcParams& path) const;
};

}  // namespace bifrost::transport
