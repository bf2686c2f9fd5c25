#pragma once
// The test loops: bandwidth (a window of posted messages per QP) and latency (ping-pong on
// QP 0), each with a client that drives and a server that answers. Every loop gives up with
// an Error when the peer dies (control connection closed, work requests failing) or when
// nothing progresses for the configured timeout.
#include "results.h"
#include "session.h"

namespace bifrost::perf {

// One size on the client; the server's answer is folded into `results`.
SizeResult run_client_size(Session& session, uint32_t size, RunResults& results);
// Serves sizes until the client says goodbye; returns the results the client reported.
RunResults run_server(Session& session);
// Counters of this side's NIC and port, for reports.
nlohmann::json local_counters(Session& session);

}  // namespace bifrost::perf
