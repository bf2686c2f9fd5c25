#include "results.h"

#include "bifrost/real/json_fields.h"

namespace bifrost::perf {

nlohmann::json to_json(const SizeResult& r) {
  return {{"bytes", r.bytes},
          {"iterations", r.iterations},
          {"seconds", r.seconds},
          {"bw_peak_MBps", r.bw_peak_mbps},
          {"bw_avg_MBps", r.bw_avg_mbps},
          {"bw_avg_Gbps", r.bw_avg_mbps * 8 / 1000},
          {"msg_rate_Mpps", r.msg_rate_mpps},
          {"t_min_us", r.t_min},
          {"t_max_us", r.t_max},
          {"t_typical_us", r.t_typical},
          {"t_avg_us", r.t_avg},
          {"t_stdev_us", r.t_stdev},
          {"t_p10_us", r.t_p10},
          {"t_p90_us", r.t_p90},
          {"t_p99_us", r.t_p99},
          {"t_p999_us", r.t_p999},
          {"eq1_rtt_samples", r.eq1_samples},
          {"eq1_rtt_p50_us", r.eq1_p50},
          {"eq1_rtt_p99_us", r.eq1_p99},
          {"eq1_rtt_p999_us", r.eq1_p999},
          {"acks_timed", r.acks_timed},
          {"ack_delay_p50_us", r.ack_delay_p50},
          {"ack_delay_p99_us", r.ack_delay_p99},
          {"local_delay_p50_us", r.local_delay_p50},
          {"local_delay_p99_us", r.local_delay_p99}};
}

SizeResult size_result_from_json(const nlohmann::json& j) {
  SizeResult r;
  r.bytes = real::integer_field<uint32_t>(j, "bytes");
  r.iterations = real::integer_field<uint64_t>(j, "iterations");
  r.seconds = j.at("seconds").get<double>();
  r.bw_peak_mbps = j.at("bw_peak_MBps").get<double>();
  r.bw_avg_mbps = j.at("bw_avg_MBps").get<double>();
  r.msg_rate_mpps = j.at("msg_rate_Mpps").get<double>();
  r.t_min = j.at("t_min_us").get<double>();
  r.t_max = j.at("t_max_us").get<double>();
  r.t_typical = j.at("t_typical_us").get<double>();
  r.t_avg = j.at("t_avg_us").get<double>();
  r.t_stdev = j.at("t_stdev_us").get<double>();
  r.t_p10 = j.at("t_p10_us").get<double>();
  r.t_p90 = j.at("t_p90_us").get<double>();
  r.t_p99 = j.at("t_p99_us").get<double>();
  r.t_p999 = j.at("t_p999_us").get<double>();
  r.eq1_samples = real::integer_field<uint64_t>(j, "eq1_rtt_samples");
  r.eq1_p50 = j.at("eq1_rtt_p50_us").get<double>();
  r.eq1_p99 = j.at("eq1_rtt_p99_us").get<double>();
  r.eq1_p999 = j.at("eq1_rtt_p999_us").get<double>();
  r.acks_timed = real::integer_field<uint64_t>(j, "acks_timed");
  r.ack_delay_p50 = j.at("ack_delay_p50_us").get<double>();
  r.ack_delay_p99 = j.at("ack_delay_p99_us").get<double>();
  r.local_delay_p50 = j.at("local_delay_p50_us").get<double>();
  r.local_delay_p99 = j.at("local_delay_p99_us").get<double>();
  return r;
}

}  // namespace bifrost::perf
