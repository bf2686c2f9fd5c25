#include "bifrost/transport/path.h"

namespace bifrost::transport {

std::string_view to_string(PathRole role) {
  switch (role) {
    case PathRole::primary:
      return "primary";
    case PathRole::backup:
      return "backup";
    case PathRole::shadow:
      return "shadow";
    case PathRole::active:
      return "active";
    case PathRole::reconnecting:
      return "reconnecting";
    case PathRole::failed:
      return "failed";
  }
  return "unknown";
}

}  // namespace bifrost::transport
