#include "bifrost/rnic/access.h"

namespace bifrost::rnic {

std::string to_string(Access access) {
  static constexpr struct {
    Access bit;
    const char* name;
  } kNames[] = {{Access::local_write, "local_write"},
                {Access::remote_write, "remote_write"},
                {Access::remote_read, "remote_read"},
                {Access::remote_atomic, "remote_atomic"}};
  std::string out;
  for (const auto& n : kNames) {
    if (!allows(access, n.bit)) continue;
    if (!out.empty()) out += '|';
    out += n.name;
  }
  return out.empty() ? "none" : out;
}

}  // namespace bifrost::rnic
