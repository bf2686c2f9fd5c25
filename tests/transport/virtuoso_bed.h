#pragma once
// The multipath test bed (bifrost/sim/virtuoso_bed.h) under the names Virtuoso's tests use.
#include "bifrost/sim/virtuoso_bed.h"

namespace bifrost::transport::testing {
using sim::VirtuosoBed;
using sim::VirtuosoBedConfig;
}  // namespace bifrost::transport::testing
