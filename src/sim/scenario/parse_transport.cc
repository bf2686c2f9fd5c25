// [transport]: which transport carries the flows, and the Bifröst knobs worth a scenario key.
// The checks mirror transport::TransportConfig::validate() (this library does not link the
// transport), so a bad value is reported at its key rather than when the run starts.
#include <fmt/format.h>

#include <array>
#include <utility>

#include "parsers.h"

namespace bifrost::sim::scenario::detail {

namespace {

constexpr std::array<std::string_view, 7> kKinds = {
    "rc", "uc", "bifrost-uc", "bifrost-rc", "rogue-rc", "rogue-uc", "virtuoso"};
// The keys of both Bifröst kinds, then each kind's own.
constexpr std::array<std::string_view, 18> kBifrostKeys = {"kind",
                                                           "profile",
                                                           "cc",
                                                           "chunking",
                                                           "unit_size",
                                                           "max_chunk",
                                                           "chunk_loss_budget",
                                                           "send_threshold",
                                                           "base_rtt",
                                                           "min_rto",
                                                           "rtt_from_late_acks",
                                                           "failover_needs_silence",
                                                           "ack_timer",
                                                           "ack_every_wqes",
                                                           "ack_every_bytes",
                                                           "hint_when_idle",
                                                           "tail_probe",
                                                           "backup_qps"};
template <size_t N>
constexpr std::array<std::string_view, kBifrostKeys.size() + N> bifrost_keys_and(
    const std::array<std::string_view, N>& own) {
  std::array<std::string_view, kBifrostKeys.size() + N> all{};
  for (size_t i = 0; i < kBifrostKeys.size(); ++i) all[i] = kBifrostKeys[i];
  for (size_t i = 0; i < N; ++i) all[kBifrostKeys.size() + i] = own[i];
  return all;
}
constexpr auto kUcKeys = bifrost_keys_and(
    std::array<std::string_view, 3>{"ack_path", "ack_priority", "completion_cost"});
constexpr std::array<std::string_view, 2> kAckPaths = {"ud", "data_qp"};
// Over RC the NIC retries before a connection fails over to a backup QP.
constexpr auto kRcBackedKeys =
    bifrost_keys_and(std::array<std::string_view, 2>{"rc_retry_cnt", "rc_timeout"});
constexpr std::array<std::string_view, 2> kProfiles = {"default", "paper"};
constexpr std::array<std::string_view, 1> kRcKeys = {"kind"};
constexpr std::array<std::string_view, 2> kPlainUcKeys = {"kind", "uc_message"};
// clang-format off
constexpr std::array<std::string_view, 23> kRogueKeys = {"kind",           "cc",
                                                         "segment",        "batch",
                                                         "alpha",          "beta",
                                                         "literal_vegas",  "initial_window",
                                                         "rate_step",      "holdoff",
                                                         "base_rtt_floor", "uc_sample_timeout",
                                                         "rc_timeout",     "shadow_qp",
                                                         "pace",           "verb",
                                                         "rtt_noise",      "rc_idle_start_floor",
                                                         "signal_cost",    "clock_read_cost",
                                                         "rate_basis",     "sample_applied_rate",
                                                         "rc_anchor_every"};
// clang-format on
// The transport's default immediate layout: 10 bits of chunk offset (docs/transport.md).
constexpr uint64_t kChunkOffsetBits = 10;

void chunk_sizes(const TableReader& r, TransportSpec& t) {
  if (auto unit = r.positive_bytes("unit_size")) {
    if (unit->count() < 256 || (unit->count() & (unit->count() - 1)) != 0) {
      r.fail("unit_size", fmt::format("{} is not valid; valid values: a power of two of at least "
                                      "256 bytes",
                                      bytes_text(*unit)));
    }
    t.unit_size = *unit;
  }
  if (auto max_chunk = r.positive_bytes("max_chunk")) t.max_chunk = *max_chunk;
  if (t.max_chunk < t.unit_size || t.max_chunk.count() % t.unit_size.count() != 0) {
    r.fail(r.has("max_chunk") ? "max_chunk" : "unit_size",
           fmt::format("max_chunk ({}) must be a multiple of unit_size ({})",
                       bytes_text(t.max_chunk), bytes_text(t.unit_size)));
  }
  if (auto budget = r.number("chunk_loss_budget")) {
    if (*budget < 0 || *budget > 1) {
      r.fail("chunk_loss_budget",
             fmt::format("{} is not a fraction; use 0 (chunks ignore loss) .. 1", *budget));
    }
    t.chunk_loss_budget = *budget;
  }
  const Bytes largest(t.unit_size.count() << kChunkOffsetBits);
  if (auto threshold = r.positive_bytes("send_threshold")) t.send_threshold = *threshold;
  if (t.send_threshold >= largest) {
    r.fail(r.has("send_threshold") ? "send_threshold" : "unit_size",
           fmt::format("send_threshold ({}) must be below the largest message, unit_size x "
                       "2^{} = {}",
                       bytes_text(t.send_threshold), kChunkOffsetBits, bytes_text(largest)));
  }
}

// profile = "paper": the values of transport::TransportConfig::paper() (§4.1, §3.4) that a
// scenario key can hold, set before the keys so that each key still overrides its own. This
// library does not link the transport, so they are spelt here; tests/sim's
// ScenarioTransport.PaperProfileIsTransportConfigPaper holds them equal to paper().
void apply_paper_profile(TransportSpec& t) {
  t.paper_profile = true;
  t.unit_size = Bytes(4096);
  t.max_chunk = Bytes(64 * 1024);
  t.send_threshold = Bytes(32 * 1024);
  t.chunk_loss_budget = 0;
  t.base_rtt = Time::us(50);
  t.ack_timer = Time::us(120);
  t.ack_every_wqes = 32;
  t.ack_every_bytes = Bytes(32 * 1024);
  t.hint_when_idle = false;
  t.tail_probe = false;  // a lost tail waits for the RTO
  t.cc.kind = transport::CcKind::swift;
  t.cc.swift.params.loss_to_minimum = true;
  t.cc.swift.params.target_follows_min_rtt = false;
  t.cc.swift.params.loss_gate = false;  // §3.4.3: the minimum window on any drop
}

void ack_coalescing(const TableReader& r, TransportSpec& t) {
  if (auto timer = r.positive_time("ack_timer")) t.ack_timer = *timer;
  if (auto wqes = r.integer("ack_every_wqes", 1, 32))
    t.ack_every_wqes = static_cast<uint32_t>(*wqes);
  if (auto bytes = r.positive_bytes("ack_every_bytes")) {
    if (bytes->count() > 0xFFFF'FFFFu) {
      r.fail("ack_every_bytes",
             fmt::format("{} does not fit the transport's 32-bit counter", bytes_text(*bytes)));
    }
    t.ack_every_bytes = *bytes;
  }
  if (auto hint = r.boolean("hint_when_idle")) t.hint_when_idle = *hint;
  if (auto probe = r.boolean("tail_probe")) t.tail_probe = *probe;
}

void rogue_keys(const TableReader& r, TransportSpec& t) {
  RogueSpec& g = t.rogue;
  r.allow_only(kRogueKeys, " for RoGUE (docs/transport.md, \"RoGUE\")");
  g.segment = r.positive_bytes("segment");
  g.batch = r.positive_bytes("batch");
  if (g.segment && g.batch && *g.batch < *g.segment) {
    r.fail("batch", fmt::format("{} is below the segment ({}): a batch holds whole segments",
                                bytes_text(*g.batch), bytes_text(*g.segment)));
  }
  g.rate_step = r.positive_rate("rate_step");
  if (auto h = r.bytes("holdoff")) g.holdoff = *h;
  if (auto timeout = r.positive_time("uc_sample_timeout")) g.uc_sample_timeout = *timeout;
  if (auto timeout = r.integer("rc_timeout", 0, 31)) g.rc_timeout = static_cast<uint8_t>(*timeout);
  if (auto shadow = r.boolean("shadow_qp")) g.shadow_qp = *shadow;
  if (auto pace = r.boolean("pace")) g.pace = *pace;
  if (auto floor = r.boolean("rc_idle_start_floor")) g.rc_idle_start_floor = *floor;
  if (auto every = r.integer("rc_anchor_every", 0, 1 << 20)) {
    g.rc_anchor_every = static_cast<uint32_t>(*every);
  }
  if (auto applied = r.boolean("sample_applied_rate")) g.sample_applied_rate = *applied;
  if (auto noise = r.time("rtt_noise")) {
    if (*noise < Time::zero()) r.fail("rtt_noise", "must not be negative");
    g.rtt_noise = *noise;
  }
  for (const auto& [key, field] : {std::pair{"signal_cost", &RogueSpec::signal_cost},
                                   std::pair{"clock_read_cost", &RogueSpec::clock_read_cost}}) {
    if (auto cost = r.time(key)) {
      if (*cost < Time::zero()) r.fail(key, "must not be negative");
      g.*field = *cost;
    }
  }
  if (auto verb = r.positive_bytes("verb")) {
    if (verb->count() > (uint64_t{1} << 31)) {
      r.fail("verb", fmt::format("{} is above the 2 GiB an RDMA verb can be", bytes_text(*verb)));
    }
    g.verb = *verb;
  }
}

}  // namespace

TransportSpec parse_transport(const TableReader& r, const NicConfig& nic) {
  TransportSpec t;
  const std::string kind = r.choice("kind", kKinds).value_or("rc");
  if (kind == "rc") {
    r.allow_only(kRcKeys, " for kind \"rc\" (the other keys are Bifröst's)");
    return t;
  }
  if (nic.model != NicModel::rnic) {
    r.fail("kind", fmt::format("\"{}\" runs over soft RNICs: set model = \"rnic\" in [nic]", kind));
  }
  if (kind == "uc") {
    r.allow_only(kPlainUcKeys, " for kind \"uc\" (plain UC WRITEs; the other keys are Bifröst's)");
    t.kind = TransportKind::uc;
    if (auto message = r.positive_bytes("uc_message")) {
      if (message->count() > (uint64_t{1} << 31)) {
        r.fail("uc_message",
               fmt::format("{} is above the 2 GiB an RDMA verb can be", bytes_text(*message)));
      }
      t.uc_message = *message;
    }
    return t;
  }
  if (kind == "virtuoso") {
    t.kind = TransportKind::virtuoso;
    t.virtuoso = parse_virtuoso(r);
    return t;
  }
  if (kind == "rogue-rc" || kind == "rogue-uc") {
    t.kind = kind == "rogue-rc" ? TransportKind::rogue_rc : TransportKind::rogue_uc;
    rogue_keys(r, t);
    t.cc = parse_cc(r, nic, t.kind);
    return t;
  }
  t.kind = kind == "bifrost-uc" ? TransportKind::bifrost_uc : TransportKind::bifrost_rc;
  const std::string context = fmt::format(" for kind \"{}\"", kind);
  if (t.kind == TransportKind::bifrost_uc) {
    r.allow_only(kUcKeys, context);
  } else {
    r.allow_only(kRcBackedKeys, context);
  }
  if (r.choice("profile", kProfiles).value_or("default") == "paper") apply_paper_profile(t);
  t.cc = parse_cc(r, nic, t.kind, t.cc);
  if (auto chunking = r.boolean("chunking")) t.chunking = *chunking;
  chunk_sizes(r, t);
  if (auto base_rtt = r.positive_time("base_rtt")) t.base_rtt = *base_rtt;
  if (auto min_rto = r.positive_time("min_rto")) t.min_rto = *min_rto;
  if (auto late = r.boolean("rtt_from_late_acks")) t.rtt_from_late_acks = *late;
  if (auto silence = r.boolean("failover_needs_silence")) t.failover_needs_silence = *silence;
  ack_coalescing(r, t);
  if (auto path = r.choice("ack_path", kAckPaths)) t.acks_on_data_qp = *path == "data_qp";
  if (auto priority = r.boolean("ack_priority")) t.ack_priority = *priority;
  if (auto cost = r.non_negative_time("completion_cost")) t.completion_cost = *cost;
  if (t.acks_on_data_qp && r.has("ack_priority")) {
    r.fail("ack_priority",
           "applies to ACKs on the UD QP; ack_path = \"data_qp\" sends them "
           "in the data's class on the data QP");
  }
  if (auto backups = r.integer("backup_qps", 0, 16)) t.backup_qps = static_cast<uint32_t>(*backups);
  if (auto retry = r.integer("rc_retry_cnt", 0, 7)) t.rc_retry_cnt = static_cast<uint8_t>(*retry);
  if (auto timeout = r.integer("rc_timeout", 0, 31)) t.rc_timeout = static_cast<uint8_t>(*timeout);
  return t;
}

}  // namespace bifrost::sim::scenario::detail
