#include "bifrost/sim/workload/flow_files.h"
#include "bifrost/sim/workload/text_file.h"

namespace bifrost::sim::workload {

std::vector<Flow> load_flow_file(const std::filesystem::path& path, FlowFileFormat format,
                                 const FlowFileOptions& options) {
  const std::string text = read_text_file(path);
  const std::string name = path.string();
  switch (format) {
    case FlowFileFormat::htsim:
      return parse_htsim_flows(text, name, options);
    case FlowFileFormat::hpcc:
      return parse_hpcc_flows(text, name, options);
    case FlowFileFormat::csv:
      break;
  }
  return parse_flow_csv(text, name, options);
}

void write_flow_csv(const std::vector<Flow>& flows, const std::filesystem::path& path) {
  write_text_file(path, format_flow_csv(flows));
}

}  // namespace bifrost::sim::workload
