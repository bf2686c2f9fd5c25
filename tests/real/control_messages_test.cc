// In-band control messages in the real world: two Bifröst endpoints on soft RNICs exchanging
// RoCEv2 over loopback UDP agree on a remote parameter through the UD QP, as they do in
// simulation (tests/transport/remote_parameter_test.cc), and messages flow on afterwards.
#include <gtest/gtest.h>

#include <optional>

#include "bifrost/transport/endpoint.h"
#include "bifrost/transport/remote_parameter.h"
#include "loopback_pair.h"

namespace bifrost::real {
namespace {

TEST(RealControlMessages, ARemoteParameterIsAppliedOverUdp) {
  for (const transport::Reliability mode :
       {transport::Reliability::software_uc, transport::Reliability::hardware_rc}) {
    testing::LoopbackPair pair;
    transport::Endpoint a(*pair.a().device, {.memory = transport::MemoryKind::bytes});
    transport::Endpoint b(*pair.b().device, {.memory = transport::MemoryKind::bytes, .seed = 2});
    transport::TransportConfig config;
    config.reliability = mode;
    transport::Connection& ca = a.create_connection(config);
    transport::Connection& cb = b.create_connection(config);
    a.connect(ca, b.offer(cb));
    b.connect(cb, a.offer(ca));

    std::optional<transport::ParameterStatus> status;
    ca.set_remote_parameter(transport::RemoteParameter::ack_every_wqes, 1,
                            [&](transport::ParameterStatus s) { status = s; });
    ASSERT_TRUE(pair.run_until([&] { return status.has_value(); }));
    EXPECT_EQ(*status, transport::ParameterStatus::applied);
    EXPECT_EQ(cb.config().ack_every_wqes, 1u);
    EXPECT_EQ(ca.config().ack_every_wqes, config.ack_every_wqes) << "only the peer changes";

    int delivered = 0;
    cb.set_delivery_handler([&](const transport::Delivery&) { ++delivered; });
    bool sent = false;
    rnic::ByteMemory memory(0x100000, 4096);
    const rnic::MemoryRegion& region =
        pair.a().device->reg_mr(a.pd(), 0x100000, 4096, rnic::Access::local_write, &memory);
    ca.send(transport::MessageBuffer{&region, region.base, 1000},
            [&](const transport::SendCompletion& done) {
              sent = done.status == transport::SendStatus::delivered;
            });
    ASSERT_TRUE(pair.run_until([&] { return sent && delivered == 1; }));
  }
}

}  // namespace
}  // namespace bifrost::real
