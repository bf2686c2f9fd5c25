#pragma once
// perftest-style output: the banner, the result table, and bifrost's extra lines
// (retransmissions, drops seen, verification, CPU time); and the JSON result file.
#include <string>

#include "results.h"
#include "session.h"

namespace bifrost::perf {

void print_banner(Session& session);
void print_table_header(const Options& options);
void print_row(const Options& options, const SizeResult& r);
void print_footer(const Options& options, const RunResults& results);
void write_json(const std::string& path, const Options& options, const RunResults& results);

}  // namespace bifrost::perf
