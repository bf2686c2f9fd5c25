// TransportConfig::paper(): the Bifröst paper's own settings (§4.1, §3.4), and exactly which of
// the product default's choices it turns off, so docs/transport.md's list of the two
// configurations stays true.
#include <gtest/gtest.h>

#include "bifrost/transport/config.h"

namespace bifrost::transport {
namespace {

TEST(PaperConfig, HasTheSettingsOfSection41) {
  const TransportConfig c = TransportConfig::paper();
  EXPECT_NO_THROW(c.validate());
  EXPECT_EQ(c.ack_timer, Time::us(120));
  EXPECT_EQ(c.ack_every_wqes, 32u);
  EXPECT_EQ(c.ack_every_bytes, 32u * 1024);
  EXPECT_EQ(c.unit_size, 4096u);  // the minimum chunk
  EXPECT_EQ(c.max_chunk, 64u * 1024);
  EXPECT_EQ(c.send_threshold, 32u * 1024);  // §3.2: SEND up to 32 KB
  EXPECT_EQ(c.base_rtt, Time::us(50));
  EXPECT_EQ(c.cc.kind, CcKind::swift);
  EXPECT_TRUE(c.cc.swift.params.loss_to_minimum);  // §3.4.3: the minimum window on a drop
  EXPECT_FALSE(c.cc.swift.params.loss_gate);       // ... on every drop
  EXPECT_FALSE(c.cc.swift.params.loss_needs_queuing);
}

TEST(PaperConfig, DiffersFromTheProductDefaultOnlyInTheListedChoices) {
  const TransportConfig ours;
  TransportConfig paper = TransportConfig::paper();
  EXPECT_NE(paper.hint_when_idle, ours.hint_when_idle);
  EXPECT_NE(paper.hint_last_two, ours.hint_last_two);
  EXPECT_NE(paper.chunk_loss_budget, ours.chunk_loss_budget);
  EXPECT_NE(paper.send_threshold_follows_loss, ours.send_threshold_follows_loss);
  EXPECT_NE(paper.tail_probe, ours.tail_probe);
  EXPECT_NE(paper.tail_probe_learns, ours.tail_probe_learns);
  EXPECT_NE(paper.cc.swift.params.target_follows_min_rtt,
            ours.cc.swift.params.target_follows_min_rtt);
  EXPECT_NE(paper.cc.swift.params.loss_gate, ours.cc.swift.params.loss_gate);
  // Put those back: everything else is the same, field by field.
  paper.hint_when_idle = ours.hint_when_idle;
  paper.hint_last_two = ours.hint_last_two;
  paper.chunk_loss_budget = ours.chunk_loss_budget;
  paper.send_threshold_follows_loss = ours.send_threshold_follows_loss;
  paper.tail_probe = ours.tail_probe;
  paper.tail_probe_learns = ours.tail_probe_learns;
  paper.cc.swift.params.target_follows_min_rtt = ours.cc.swift.params.target_follows_min_rtt;
  paper.cc.swift.params.loss_gate = ours.cc.swift.params.loss_gate;
  EXPECT_EQ(paper.ack_timer, ours.ack_timer);
  EXPECT_EQ(paper.ack_every_wqes, ours.ack_every_wqes);
  EXPECT_EQ(paper.ack_every_bytes, ours.ack_every_bytes);
  EXPECT_EQ(paper.unit_size, ours.unit_size);
  EXPECT_EQ(paper.max_chunk, ours.max_chunk);
  EXPECT_EQ(paper.send_threshold, ours.send_threshold);
  EXPECT_EQ(paper.base_rtt, ours.base_rtt);
  EXPECT_EQ(paper.min_rto, ours.min_rto);
  EXPECT_EQ(paper.tail_probe_floor, ours.tail_probe_floor);
  EXPECT_EQ(paper.max_outstanding_wqes, ours.max_outstanding_wqes);
  EXPECT_EQ(paper.backup_qps, ours.backup_qps);
  EXPECT_EQ(paper.rc_retry_cnt, ours.rc_retry_cnt);
  EXPECT_EQ(paper.cc.kind, ours.cc.kind);
  EXPECT_EQ(paper.cc.swift.params.loss_to_minimum, ours.cc.swift.params.loss_to_minimum);
  EXPECT_EQ(paper.cc.swift.params.loss_needs_queuing, ours.cc.swift.params.loss_needs_queuing);
}

}  // namespace
}  // namespace bifrost::transport
