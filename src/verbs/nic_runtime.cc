#include "nic_runtime.h"

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "bifrost/core/error.h"
#include "bifrost/real/clock.h"
#include "bifrost/real/device_settings.h"
#include "bifrost/world/packet.h"
#include "log.h"

namespace bifrost::verbs {

namespace {

// The longest the thread sleeps with nothing due: it also notices stopping_ this often.
constexpr Time kLongestSleep = Time::ms(50);

std::vector<world::Ipv4> addresses_of(const std::vector<real::GidEntry>& gids) {
  std::vector<world::Ipv4> out;
  for (const auto& g : gids) out.push_back(g.ip);
  return out;
}

// Like a NIC's own engine (or rxe's softirq), the progress thread should run the moment a packet
// arrives, not when the scheduler ends the time slice of an application thread spinning on
// its memory (ib_write_lat): on 2 cores that slice is milliseconds. A real-time priority does
// it where the process may have one (root, or RLIMIT_RTPRIO); elsewhere the thread stays an
// ordinary one. The thread sleeps whenever nothing is ready, and the kernel's real-time
// throttling bounds what it could take.
void raise_priority() {
  sched_param param{};
  param.sched_priority = 1;
  const int rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
  log(LogLevel::info, "progress thread: {}",
      rc == 0 ? "real-time priority (SCHED_FIFO 1)" : "ordinary priority");
}

}  // namespace

NicRuntime::NicRuntime(const VerbsConfig& config)
    : config_(config),
      gids_(config.gids.empty() ? real::interface_gid_table() : real::gid_table_of(config.gids)) {
  if (gids_.empty()) throw Error("no IPv4 address on any interface of this network namespace");
  // The application's threads and the progress thread all make and free packets.
  world::share_packet_pool_between_threads();
  active_mtu_ = real::roce_mtu_for_interface(gids_.front().interface_mtu);
  loop_ = std::make_unique<real::EventLoop>();
  port_ = std::make_unique<real::UdpPort>(
      *loop_,
      real::UdpPortConfig{
          .local_addresses = addresses_of(gids_), .gso = config.gso, .lend_payloads = true});
  rnic::DeviceConfig dc;
  dc.name = config.device_name;
  dc.seed = static_cast<uint64_t>(real::monotonic_now().picoseconds()) ^ uint64_t(::getpid());
  dc.gids = addresses_of(gids_);
  dc.max_mtu = active_mtu_;
  dc.recovery.kind = config.recovery;
  dc.recovery.rto_low = config.rto_low;
  dc.recovery.rto_high = config.rto_high;
  dc.recovery.bdp_packets = config.bdp_packets;
  // Go-back-N too sends at most a window ahead (ConnectX-5's roce_tx_window_en): without one,
  // perftest's 128 WQEs of 64 KiB (8 MiB) sat in the 16 MiB socket buffers, took longer than
  // the QP's 67 ms timeout to drain at 1 Gb/s, and the spurious go-back-N of the whole window
  // ran the QP out of retries.
  dc.recovery.gbn_tx_window = config.bdp_packets;
  if (config.dcqcn) {
    dc.dcqcn = rnic::DcqcnConfig{};
    dc.data_path.ecn_capable = true;
  }
  real::apply_real_world_settings(dc);
  device_ = std::make_unique<rnic::Device>(*loop_, dc);
  device_->attach(*port_);
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) throw Error("eventfd failed: {}", std::strerror(errno));
  thread_ = std::thread([this] { progress_loop(); });
  log(LogLevel::info, "{} up: {} GIDs (first {}), MTU {}, recovery {}", config.device_name,
      gids_.size(), world::to_string(gids_.front().ip), active_mtu_,
      rnic::recovery::to_string(config.recovery));
}

std::string NicRuntime::counters_line() const {
  const rnic::DataPathCounters& c = device_->data_path_counters();
  const real::UdpPortCounters& p = port_->counters();
  return fmt::format(
      "tx {} packets ({} retransmitted, {} ACK-class), rx {} ({} out of order, {} dropped after a "
      "gap, {} duplicates), NAKs {}, SACKs {}, timeouts {}; UDP tx {} rx {} dropped {} kernel "
      "drops {}",
      c.tx_packets, c.tx_retransmitted, c.tx_acks, c.rx_packets, c.rx_out_of_order,
      c.rx_dropped_sequence, c.rx_duplicates, c.naks_sent, c.sacks_sent, c.timeouts, p.tx_datagrams,
      p.rx_datagrams, p.rx_dropped(), p.rx_kernel_drops);
}

NicRuntime::~NicRuntime() {
  stopping_ = true;
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_fd_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
  {
    auto held = lock();
    log(LogLevel::info, "{} closing: {}", config_.device_name, counters_line());
    loop_->run_due();  // hand what the port still holds to the kernel
    device_.reset();   // detaches from the port
    port_.reset();
    loop_.reset();
  }
  ::close(wake_fd_);
}

void NicRuntime::after_post() {
  loop_->run_due();
  wake_thread_if_late();
}

void NicRuntime::progress() {
  loop_->run_once(Time::zero());
  wake_thread_if_late();
}

void NicRuntime::wake_thread_if_late() {
  const Time due = loop_->next_due();
  if (due.picoseconds() >= planned_wake_ps_.load(std::memory_order_relaxed)) return;
  planned_wake_ps_.store(due.picoseconds(), std::memory_order_relaxed);
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_fd_, &one, sizeof one);
}

void NicRuntime::progress_loop() {
  raise_priority();
  pollfd fds[2] = {{.fd = loop_->wait_fd(), .events = POLLIN, .revents = 0},
                   {.fd = wake_fd_, .events = POLLIN, .revents = 0}};
  Time next_report;
  while (!stopping_) {
    Time due;
    {
      auto held = lock();
      try {
        loop_->run_once(Time::zero());
      } catch (const std::exception& e) {
        log(LogLevel::error, "progress: {}", e.what());
      }
      due = std::min(loop_->next_due(), loop_->now() + kLongestSleep);
      if (log_level() >= LogLevel::debug && loop_->now() >= next_report) {
        log(LogLevel::debug, "{}", counters_line());
        next_report = loop_->now() + Time::s(1);
      }
      planned_wake_ps_.store(due.picoseconds(), std::memory_order_relaxed);
    }
    const int64_t wait_ns =
        std::max<int64_t>((due - real::monotonic_now()).picoseconds() / 1000, 0);
    const timespec timeout{.tv_sec = wait_ns / 1'000'000'000, .tv_nsec = wait_ns % 1'000'000'000};
    if (::ppoll(fds, 2, &timeout, nullptr) > 0 && (fds[1].revents & POLLIN) != 0) {
      uint64_t drained = 0;
      [[maybe_unused]] const ssize_t n = ::read(wake_fd_, &drained, sizeof drained);
    }
  }
}

}  // namespace bifrost::verbs
