// Fuzz target: arbitrary bytes as a software ACK, a control message, a SEND header and an RPC
// header with its read descriptor, the transport formats a peer (or anyone who can reach the
// UD QP) controls. Decoding must never
// crash or read out of bounds, and whatever decodes must re-encode to the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "bifrost/transport/wire/control_message.h"
#include "bifrost/transport/wire/rpc_header.h"
#include "bifrost/transport/wire/send_header.h"
#include "bifrost/transport/wire/soft_ack.h"

namespace {

using namespace bifrost::transport;

void require(bool condition) {
  if (!condition) std::abort();
}

void check_soft_ack(std::span<const std::byte> bytes) {
  const auto ack = decode_soft_ack(bytes);
  if (!ack) return;
  std::vector<std::byte> out(kSoftAckMaxSize);
  const auto size = encode_soft_ack(ack.value, out);
  require(size.ok() && size.value == bytes.size());
  // The base global is recomputed as the least SEND entry, which is what a valid ACK carries;
  // an ACK whose base is below all its entries re-encodes with the entries' offsets shifted.
  const auto again = decode_soft_ack(std::span(out).first(size.value));
  require(again.ok() && again.value.count == ack.value.count &&
          again.value.ecn_echo == ack.value.ecn_echo &&
          again.value.send_cumulative == ack.value.send_cumulative &&
          again.value.write_cumulative == ack.value.write_cumulative);
  for (size_t i = 0; i < ack.value.count; ++i) {
    const AckedWqe& a = ack.value.entries[i];
    const AckedWqe& b = again.value.entries[i];
    require(a.is_send == b.is_send && a.global == b.global && a.write_imm == b.write_imm);
  }
}

void check_control_message(std::span<const std::byte> bytes) {
  const auto message = decode_control_message(bytes);
  if (!message) return;
  require(is_control_message(bytes));
  std::vector<std::byte> out(kControlMessageSize);
  require(encode_control_message(message.value, out).ok());
  require(std::memcmp(out.data(), bytes.data(), kControlMessageSize) == 0);
  // Every kind (reconnect, parameter set and ack) decodes its own fields back the same.
  const auto again = decode_control_message(out);
  require(again.ok() && again.value == message.value);
}

void check_send_header(std::span<const std::byte> bytes) {
  const auto header = decode_send_header(bytes);
  if (!header) return;
  std::vector<std::byte> out(kSendHeaderSize);
  require(encode_send_header(header.value, out).ok());
  require(std::memcmp(out.data(), bytes.data(), kSendHeaderSize) == 0);
  // The receiver reads a one-sided trailer from whatever follows a notice or read request.
  const auto trailer = decode_one_sided_trailer(bytes.subspan(kSendHeaderSize));
  if (!trailer) return;
  require(encode_one_sided_trailer(trailer.value, out).ok());
  require(std::memcmp(out.data(), bytes.data() + kSendHeaderSize, kOneSidedTrailerSize) == 0);
}

// An RPC header and, behind it, a read descriptor (what RpcChannel reads from a delivery).
void check_rpc_header(std::span<const std::byte> bytes) {
  const auto header = decode_rpc_header(bytes);
  if (!header) return;
  std::vector<std::byte> out(kRpcHeaderBytes);
  require(encode_rpc_header(header.value, out).ok());
  require(std::memcmp(out.data(), bytes.data(), kRpcHeaderBytes) == 0);
  require(header.value.status != RpcStatus::failed);  // local only
  const auto descriptor = decode_rpc_read_descriptor(bytes.subspan(kRpcHeaderBytes));
  if (!descriptor) return;
  require(descriptor.value.length > 0);
  require(encode_rpc_read_descriptor(descriptor.value, out).ok());
  require(std::memcmp(out.data(), bytes.data() + kRpcHeaderBytes, kRpcReadDescriptorBytes) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span bytes(reinterpret_cast<const std::byte*>(data), size);
  check_soft_ack(bytes);
  check_control_message(bytes);
  check_send_header(bytes);
  check_rpc_header(bytes);
  return 0;
}
