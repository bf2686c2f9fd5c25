#pragma once
// The text of data/workloads/{websearch,fb_hadoop}.cdf, embedded at configure time.
#include <string_view>

namespace bifrost::sim::workload::detail {

extern const std::string_view kWebSearchCdfText;
extern const std::string_view kFbHadoopCdfText;

}  // namespace bifrost::sim::workload::detail
