#include "bifrost/rnic/recovery/engine.h"

#include "bifrost/core/error.h"
#include "bifrost/rnic/recovery/fasr.h"
#include "bifrost/rnic/recovery/gbn.h"
#include "bifrost/rnic/recovery/irn.h"

namespace bifrost::rnic::recovery {

std::string_view to_string(Arrival arrival) {
  switch (arrival) {
    case Arrival::in_order:
      return "in_order";
    case Arrival::out_of_order:
      return "out_of_order";
    case Arrival::duplicate:
      return "duplicate";
    case Arrival::drop:
      return "drop";
  }
  return "unknown";
}

Feedback selective_feedback(Arrival arrival) {
  switch (arrival) {
    case Arrival::in_order:
    case Arrival::duplicate:
      return Feedback::ack;
    case Arrival::out_of_order:
      return Feedback::sack;
    case Arrival::drop:
      break;
  }
  return Feedback::none;
}

std::string_view to_string(EngineKind kind) {
  switch (kind) {
    case EngineKind::gbn:
      return "gbn";
    case EngineKind::irn:
      return "irn";
    case EngineKind::srnic:
      return "srnic";
    case EngineKind::fasr:
      return "fasr";
  }
  return "unknown";
}

EngineKind parse_engine_kind(std::string_view text) {
  for (EngineKind kind : {EngineKind::gbn, EngineKind::irn, EngineKind::srnic, EngineKind::fasr}) {
    if (text == to_string(kind)) return kind;
  }
  throw Error("unknown recovery engine '{}': use gbn, irn, srnic or fasr", text);
}

std::unique_ptr<Engine> make_engine(const RecoveryConfig& config) {
  switch (config.kind) {
    case EngineKind::gbn:
      return std::make_unique<GbnEngine>(config);
    case EngineKind::irn:
      return std::make_unique<IrnEngine>(config, false);
    case EngineKind::srnic:
      return std::make_unique<IrnEngine>(config, true);
    case EngineKind::fasr:
      return std::make_unique<FasrEngine>(config);
  }
  throw Error("unknown recovery engine kind {}", static_cast<int>(config.kind));
}

}  // namespace bifrost::rnic::recovery
