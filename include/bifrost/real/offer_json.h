#pragma once
// A Bifröst ConnectionOffer as JSON, for the TCP bootstrap: what one side of a connection
// tells the other (address, UD QPN and Q_Key for software ACKs, the connection id the peer's
// ACKs carry, mode, MTU, QPN + first PSN of every QP and, for a multi-path connection, every
// QP's own address and GID index), and a Virtuoso MpOffer (that plus the probe target).
#include <nlohmann/json.hpp>

#include "bifrost/transport/endpoint.h"
#include "bifrost/transport/virtuoso/mp_connection.h"

namespace bifrost::real {

nlohmann::json to_json(const transport::ConnectionOffer& offer);
// Throws Error naming the field for a malformed offer or values that cannot be valid
// (QPN/PSN beyond 24 bits, QPN 0/1, no QP, unknown mode).
transport::ConnectionOffer offer_from_json(const nlohmann::json& j);

nlohmann::json to_json(const transport::virtuoso::MpOffer& offer);
// Throws Error as offer_from_json, and for an MP offer without one address per QP.
transport::virtuoso::MpOffer mp_offer_from_json(const nlohmann::json& j);

}  // namespace bifrost::real
