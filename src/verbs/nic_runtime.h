#pragma once
// One soft RNIC running inside an application: the event loop, the UDP port on the GID table's
// addresses, the rnic::Device, and a progress thread of its own, all behind one mutex.
//
// Who moves the NIC: the progress thread sleeps on the loop's epoll descriptor (and an eventfd)
// until a socket is ready or the next timer is due, then takes the lock for one pass; so
// ACKs, retransmissions and READ responses go on while the application polls its own memory
// (ib_write_lat) or sleeps. The application's verbs calls take the same lock: a post runs
// what it made due (the port's flush) at once, and poll_cq runs a pass itself when its CQ is
// empty, so a busy application does not wait for the thread. A post that makes a timer due
// before the thread's planned wake-up writes the eventfd; otherwise nothing costs a system
// call unless something is due.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bifrost/real/event_loop.h"
#include "bifrost/real/gid_table.h"
#include "bifrost/real/udp_port.h"
#include "bifrost/rnic/device.h"
#include "config.h"

namespace bifrost::verbs {

class NicRuntime {
 public:
  // Binds UDP 4791 on every GID and starts the progress thread. Throws Error naming what
  // failed (no IPv4 address, an address already bound by another process, ...).
  explicit NicRuntime(const VerbsConfig& config);
  ~NicRuntime();
  NicRuntime(const NicRuntime&) = delete;
  NicRuntime& operator=(const NicRuntime&) = delete;

  std::unique_lock<std::mutex> lock() { return std::unique_lock(mutex_); }
  std::mutex& mutex() { return mutex_; }

  // The rest is called with the lock held.
  rnic::Device& device() { return *device_; }
  const VerbsConfig& config() const { return config_; }
  const std::vector<real::GidEntry>& gids() const { return gids_; }
  uint32_t active_mtu() const { return active_mtu_; }
  // After the application posted work: runs what became due (the send flush) and makes sure
  // the progress thread wakes in time for the timers the work armed.
  void after_post();
  // One non-blocking pass: sockets, timers, deferred work (poll_cq with nothing to return).
  void progress();
  // The NIC's and the port's counters in one line, for the log.
  std::string counters_line() const;

 private:
  void progress_loop();
  void wake_thread_if_late();

  VerbsConfig config_;
  std::vector<real::GidEntry> gids_;
  uint32_t active_mtu_ = 4096;
  std::mutex mutex_;
  std::unique_ptr<real::EventLoop> loop_;
  std::unique_ptr<real::UdpPort> port_;
  std::unique_ptr<rnic::Device> device_;
  int wake_fd_ = -1;
  std::atomic<int64_t> planned_wake_ps_{0};  // when the thread will look next, if nothing wakes it
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace bifrost::verbs
