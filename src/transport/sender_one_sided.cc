// One-sided WRITE and READ on the peer's memory (docs/transport.md "One-sided WRITE and READ").
//
// hardware_rc: the NIC's own RDMA WRITE and READ, in chunks under the window; a QP failover
// posts the unfinished chunks again on the new primary.
// software_uc: a WRITE is a notice SEND (target address, rkey, length) followed at once by
// WRITE_WITH_IMM chunks, acknowledged and repaired like a large message's; UC has no READ, so a
// READ is a read request SEND that the peer answers with a one-sided WRITE of its own into our
// buffer followed by a read_done SEND.
#include "bifrost/core/error.h"
#include "bifrost/transport/endpoint.h"
#include "sender.h"

namespace bifrost::transport {

uint64_t Sender::write(const MessageBuffer& local, RemoteAddress remote, SendCallback done) {
  check_buffer(local, "write");
  OutMessage& m = add_message(Op::write, local, std::move(done));
  m.granted = true;
  m.remote_addr = remote.addr;
  m.rkey = remote.rkey;
  // software_uc: the notice goes first and queues the chunks (post_small_or_request).
  (config_.reliability == Reliability::software_uc ? small_queue_ : write_queue_)
      .push_back(m.number);
  return m.number;
}

uint64_t Sender::read(const MessageBuffer& local, RemoteAddress remote, SendCallback done) {
  check_buffer(local, "read");
  const bool software = config_.reliability == Reliability::software_uc;
  if (software && !rnic::allows(local.region->access, rnic::Access::remote_write)) {
    throw Error(
        "read: over UC the peer writes the data back, so the local buffer's region needs "
        "remote_write access");
  }
  OutMessage& m = add_message(Op::read, local, std::move(done));
  m.granted = true;
  m.remote_addr = remote.addr;
  m.rkey = remote.rkey;
  if (software) {
    m.read_id = next_read_id_++;
    reads_.add(m.read_id) = m.number;
    small_queue_.push_back(m.number);
  } else {
    write_queue_.push_back(m.number);
  }
  return m.number;
}

void Sender::serve_read(uint32_t read_id, const MessageBuffer& source, RemoteAddress destination) {
  // The data goes back as our own one-sided WRITE; when it is in place (or refused), read_done
  // tells the reader.
  OutMessage& m = add_message(Op::write, source, [this, read_id](const SendCompletion& c) {
    const ReadStatus status = c.status == SendStatus::delivered ? ReadStatus::ok
                              : c.status == SendStatus::remote_access_error
                                  ? ReadStatus::remote_access_error
                                  : ReadStatus::failed;
    if (c.status != SendStatus::failed) {
      send_reply(SendHeader{.type = SendType::read_done,
                            .message_id = read_id,
                            .argument = static_cast<uint32_t>(status)});
    }
  });
  m.granted = true;
  m.remote_addr = destination.addr;
  m.rkey = destination.rkey;
  small_queue_.push_back(m.number);
}

void Sender::on_write_refused(uint32_t message_id) {
  const uint64_t* number = message_of_write_.find(write_seq_of(message_id));
  if (number == nullptr) return;  // a repeated refusal
  OutMessage& m = messages_.at(*number);
  if (m.op != Op::write) return;  // not a notice of ours: ignore a confused peer
  end_operation(m, SendStatus::remote_access_error);
  pump();
}

void Sender::on_read_done(uint32_t read_id, ReadStatus status) {
  const uint64_t* number = reads_.find(read_id);
  if (number == nullptr) return;
  OutMessage& m = messages_.at(*number);
  if (m.acked) return;
  if (status == ReadStatus::ok) {
    m.acked = true;
    try_finish(m);
  } else {
    end_operation(m, status == ReadStatus::remote_access_error ? SendStatus::remote_access_error
                                                               : SendStatus::failed);
  }
  pump();
}

void Sender::end_operation(OutMessage& m, SendStatus status) {
  if (m.acked) return;
  m.status = status;
  m.acked = true;
  // Its chunks will never be acknowledged (the target's NIC dropped them): stop waiting for
  // them, without the congestion signal a loss would give.
  window_.for_each_open([this, &m](InFlight& wqe) {
    if (wqe.key == m.number && wqe.kind != Kind::reply) window_.settle(wqe);
  });
  window_.retire();
  try_finish(m);
}

}  // namespace bifrost::transport
