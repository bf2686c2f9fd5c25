// [transport] kind = "virtuoso": Virtuoso's knobs (docs/scenarios.md, docs/transport.md
// "Virtuoso"). The checks mirror transport::virtuoso::VirtuosoConfig::validate(), so a bad value
// is reported at its key.
#include <fmt/format.h>

#include <array>

#include "parsers.h"

namespace bifrost::sim::scenario::detail {

namespace {

constexpr std::array<std::string_view, 13> kKeys = {
    "kind",       "paths",        "block",         "small_send", "probe",
    "probe_size", "chunk_search", "chunk_initial", "chunk_step", "max_send_wr",
    "rc_timeout", "rc_retry_cnt", "pace_paths"};
constexpr uint64_t kMinProbe = 512 * 1024;  // the paper's "at least 512 KB"

}  // namespace

VirtuosoSpec parse_virtuoso(const TableReader& r) {
  r.allow_only(kKeys, " for kind \"virtuoso\" (docs/transport.md, \"Virtuoso\")");
  VirtuosoSpec v;
  if (auto paths = r.integer("paths", 1, 64)) v.paths = static_cast<uint32_t>(*paths);
  if (auto block = r.positive_bytes("block")) v.block = *block;
  if (auto small = r.positive_bytes("small_send")) {
    if (small->count() >= (uint64_t{1} << 31)) {
      r.fail("small_send",
             fmt::format("{} does not fit one SEND; use less than 2 GiB", bytes_text(*small)));
    }
    v.small_send = *small;
  }
  if (auto probe = r.boolean("probe")) v.probe = *probe;
  if (auto size = r.positive_bytes("probe_size")) {
    if (size->count() < kMinProbe) {
      r.fail("probe_size", fmt::format("{} is below the paper's 512 KB per path; use at least "
                                       "524288 bytes",
                                       bytes_text(*size)));
    }
    v.probe_size = *size;
  }
  if (auto pace = r.boolean("pace_paths")) v.pace_paths = *pace;
  // Pacing sets each path QP to its probed capacity: without probing there is none.
  if (v.pace_paths && !v.probe) {
    r.fail("pace_paths", "needs probe = true (each path QP is paced at its probed capacity)");
  }
  if (auto search = r.boolean("chunk_search")) v.chunk_search = *search;
  if (auto initial = r.positive_bytes("chunk_initial")) v.chunk_initial = *initial;
  if (auto step = r.positive_bytes("chunk_step")) v.chunk_step = *step;
  for (const auto& [key, value] :
       {std::pair{"chunk_initial", v.chunk_initial}, std::pair{"chunk_step", v.chunk_step}}) {
    if (value < v.block) {
      r.fail(r.has(key) ? key : "block", fmt::format("{} ({}) is below the block ({})", key,
                                                     bytes_text(value), bytes_text(v.block)));
    }
  }
  if (auto wr = r.integer("max_send_wr", 1, 1 << 16)) v.max_send_wr = static_cast<uint32_t>(*wr);
  if (auto timeout = r.integer("rc_timeout", 0, 31)) v.rc_timeout = static_cast<uint8_t>(*timeout);
  if (auto retry = r.integer("rc_retry_cnt", 0, 7)) v.rc_retry_cnt = static_cast<uint8_t>(*retry);
  return v;
}

void check_virtuoso_addressing(const TableReader& r, const VirtuosoSpec& spec,
                               const Addressing& addressing) {
  if (spec.paths > addressing.host_aliases) {
    r.fail(r.has("paths") ? "paths" : "kind",
           fmt::format("{} paths need {} host aliases (path i sends from alias i); [topology] "
                       "has host_aliases = {}",
                       spec.paths, spec.paths, addressing.host_aliases));
  }
}

}  // namespace bifrost::sim::scenario::detail
