#pragma once
// bifrost-perf's verbs over RoGUE (--transport rogue-rc|rogue-uc): the tests post the same work
// requests as over bare QPs; these translate them into RoGUE verbs, and RoGUE's completions
// back into work completions, so one set of test loops (runs.cc) serves both.
#include <nlohmann/json.hpp>

#include "bifrost/rnic/completion_queue.h"
#include "bifrost/rnic/work_request.h"
#include "bifrost/transport/rogue/rogue_connection.h"
#include "session.h"

namespace bifrost::perf {

// The RoGUE verb of a work request whose buffer is in `region` (throws Error for opcodes RoGUE
// does not take: atomics, UD).
transport::rogue::Work rogue_work(const rnic::SendWr& wr, const rnic::MemoryRegion& region);
// The work completion a RoGUE send completion or receive stands for.
rnic::WorkCompletion work_completion(const transport::rogue::Completion& c);
rnic::WorkCompletion work_completion(const transport::rogue::Receive& r);

// The RoGUE counters of every connection of the session, summed (RogueStats, resyncs), and
// the mean WRITE window and rate limit at the end, for the report and JSON.
nlohmann::json rogue_counters(Session& session);

}  // namespace bifrost::perf
