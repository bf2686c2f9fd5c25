#pragma once
// What QP state changes cost in time on a real RNIC, defined once so that every transport that
// swaps QPs pays the same modelled price: Bifröst's backup QPs, RoGUE's shadow QPs, Virtuoso's
// reset of a path's QP. The device only holds the values (DeviceConfig::qp_transitions); the
// transport that performs the switch or the recovery waits them out.
//
// The Bifröst paper (bifrost-control-path, §3 reliability): "Turning the error states of the QPs
// into the working states takes a long time, e.g., 5ms", and "Compared to QP reconnecting,
// switching to backup QPs requires less time, i.e., ~60 us".
#include "bifrost/core/time.h"

namespace bifrost::rnic {

struct QpTransitionCosts {
  // ERR back to a working RTS QP: RESET, INIT, RTR (with the PSNs resynchronised) and RTS.
  Time recover = Time::ms(5);
  // Moving traffic to an already connected (ready) backup or shadow QP.
  Time activate_ready = Time::us(60);
};

}  // namespace bifrost::rnic
