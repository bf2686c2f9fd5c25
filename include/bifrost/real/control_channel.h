#pragma once
// The out-of-band TCP connection two real peers use to set up (like rdma_cm's exchange of QPN,
// PSN, rkey and address) and to coordinate test phases. Messages are JSON objects, one per
// line. Every wait has a timeout, and a peer that vanishes or sends garbage is a clear Error.
#include <nlohmann/json.hpp>

#include <string>

#include "bifrost/core/time.h"
#include "bifrost/world/address.h"

namespace bifrost::real {

class ControlChannel {
 public:
  // Connects to host:port, retrying every 100 ms while the server is not listening yet, for
  // at most `timeout`. Throws Error naming the address and the last failure.
  static ControlChannel connect(const std::string& host, uint16_t port, Time timeout);
  // Listens on bind_ip:port (0.0.0.0 for any) and accepts one client within `timeout`.
  static ControlChannel accept(const std::string& bind_ip, uint16_t port, Time timeout);

  ControlChannel(ControlChannel&& other) noexcept;
  ControlChannel& operator=(ControlChannel&& other) noexcept;
  ~ControlChannel();

  // Sends one message; throws Error if the peer has gone.
  void send(const nlohmann::json& message);
  // Waits up to `timeout` for one message. Throws Error on timeout, on EOF (the peer closed or
  // died) and on a line that is not a JSON object. A message {"error": text} from the peer is
  // thrown as Error("peer: text").
  nlohmann::json receive(Time timeout);
  // True if a whole message or EOF is waiting (non-blocking).
  bool readable();
  // Tells the peer why we give up, ignoring failures: it is about to be closed anyway.
  void send_error(const std::string& text) noexcept;

  int fd() const { return fd_; }
  // This side's and the peer's addresses on this connection: the local one is the address the
  // RoCE traffic leaves from by default.
  world::Ipv4 local_ip() const;
  world::Ipv4 peer_ip() const;
  const std::string& peer_name() const { return peer_name_; }

 private:
  ControlChannel(int fd, std::string peer_name);

  int fd_ = -1;
  std::string peer_name_;
  std::string buffer_;  // bytes received after the last complete line
};

}  // namespace bifrost::real
