// Devices and contexts: the device list (one soft RNIC), open/close, and what the device, its
// port and its GID table say about themselves.
#include <arpa/inet.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include "bifrost/core/error.h"
#include "data_path_ops.h"
#include "device_limits.h"
#include "guard.h"
#include "nic_runtime.h"
#include "objects.h"

namespace bifrost::verbs {

LogLevel& log_level() {
  static LogLevel level = LogLevel::warn;
  return level;
}

namespace {

struct Registry {
  std::mutex mutex;
  ibv_device device{};
  bool device_named = false;
  std::unique_ptr<NicRuntime> nic;
  int open_contexts = 0;
};

Registry& registry() {
  static Registry r;
  return r;
}

void name_device(Registry& r) {
  if (r.device_named) return;
  const VerbsConfig config = config_from_environment();
  log_level() = config.log_level;
  r.device.node_type = IBV_NODE_CA;
  r.device.transport_type = IBV_TRANSPORT_IB;
  std::snprintf(r.device.name, sizeof r.device.name, "%s", config.device_name.c_str());
  std::snprintf(r.device.dev_name, sizeof r.device.dev_name, "uverbs0");
  std::snprintf(r.device.dev_path, sizeof r.device.dev_path, "/dev/null");
  std::snprintf(r.device.ibdev_path, sizeof r.device.ibdev_path, "/dev/null");
  r.device_named = true;
}

// A stable EUI-64-like identity from the first GID's address (0 without one).
__be64 guid_of(const std::vector<real::GidEntry>& gids) {
  if (gids.empty()) return 0;
  return htobe64(0x02B1F0FFFE000000 | (gids.front().ip.value & 0xFFFFFF));
}

ibv_mtu mtu_enum(uint32_t bytes) {
  switch (bytes) {
    case 256:
      return IBV_MTU_256;
    case 512:
      return IBV_MTU_512;
    case 1024:
      return IBV_MTU_1024;
    case 2048:
      return IBV_MTU_2048;
    default:
      return IBV_MTU_4096;
  }
}

int check_port(uint8_t port) {
  return port == 1 ? 0 : EINVAL;
}

}  // namespace

}  // namespace bifrost::verbs

using namespace bifrost;
using namespace bifrost::verbs;

BIFROST_VERBS_API ibv_device**(ibv_get_device_list)(int* num_devices) {
  auto* list = static_cast<ibv_device**>(std::calloc(2, sizeof(ibv_device*)));
  if (list == nullptr) {
    errno = ENOMEM;
    return nullptr;
  }
  Registry& r = registry();
  std::lock_guard held(r.mutex);
  try {
    name_device(r);
    list[0] = &r.device;
  } catch (const std::exception& e) {
    log(LogLevel::error, "ibv_get_device_list: {}", e.what());
  }
  if (num_devices != nullptr) *num_devices = list[0] != nullptr ? 1 : 0;
  return list;
}

BIFROST_VERBS_API void ibv_free_device_list(ibv_device** list) {
  std::free(list);
}

BIFROST_VERBS_API const char* ibv_get_device_name(ibv_device* device) {
  return device != nullptr ? device->name : nullptr;
}

BIFROST_VERBS_API int ibv_get_device_index(ibv_device* device) {
  return device == &registry().device ? 0 : -1;
}

BIFROST_VERBS_API __be64 ibv_get_device_guid(ibv_device* device) {
  Registry& r = registry();
  std::lock_guard held(r.mutex);
  if (device != &r.device) return 0;
  if (r.nic) return guid_of(r.nic->gids());
  try {
    const VerbsConfig config = config_from_environment();
    return guid_of(config.gids.empty() ? real::interface_gid_table()
                                       : real::gid_table_of(config.gids));
  } catch (const std::exception&) {
    return 0;
  }
}

BIFROST_VERBS_API ibv_context* ibv_open_device(ibv_device* device) {
  Registry& r = registry();
  std::lock_guard held(r.mutex);
  if (device != &r.device) {
    errno = ENODEV;
    return nullptr;
  }
  return pointer_result("ibv_open_device", ENODEV, [&]() -> ibv_context* {
    if (!r.nic) r.nic = std::make_unique<NicRuntime>(config_from_environment());
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw Error("pipe: {}", std::strerror(errno));
    auto* c = new Context{};
    c->ibv.device = device;
    c->ibv.cmd_fd = -1;
    c->ibv.async_fd = pipe_fds[0];
    c->ibv.num_comp_vectors = 1;
    c->ibv.abi_compat = nullptr;  // not a verbs_context: the extended inline paths stay off
    pthread_mutex_init(&c->ibv.mutex, nullptr);
    c->ibv.ops.post_send = verbs::post_send;
    c->ibv.ops.post_recv = verbs::post_recv;
    c->ibv.ops.poll_cq = verbs::poll_cq;
    c->ibv.ops.req_notify_cq = verbs::req_notify_cq;
    c->nic = r.nic.get();
    c->async_write_fd = pipe_fds[1];
    c->qps = new std::unordered_map<uint32_t, Qp*>();
    ++r.open_contexts;
    return &c->ibv;
  });
}

BIFROST_VERBS_API int ibv_close_device(ibv_context* context) {
  Registry& r = registry();
  std::lock_guard held(r.mutex);
  Context& c = object_of<Context>(context);
  ::close(c.ibv.async_fd);
  ::close(c.async_write_fd);
  pthread_mutex_destroy(&c.ibv.mutex);
  delete c.qps;
  delete &c;
  if (--r.open_contexts == 0) r.nic.reset();
  return 0;
}

BIFROST_VERBS_API int ibv_query_device(ibv_context* context, ibv_device_attr* attr) {
  NicRuntime& nic = nic_of(context);
  auto held = nic.lock();
  std::memset(attr, 0, sizeof *attr);
  std::snprintf(attr->fw_ver, sizeof attr->fw_ver, "bifrost soft RNIC");
  attr->node_guid = guid_of(nic.gids());
  attr->sys_image_guid = attr->node_guid;
  attr->max_mr_size = uint64_t{1} << 40;
  attr->page_size_cap = 0xFFFFF000;
  attr->vendor_id = kVendorId;
  attr->vendor_part_id = kVendorPartId;
  attr->hw_ver = 1;
  attr->max_qp = 1 << 16;
  attr->max_qp_wr = static_cast<int>(nic.device().data_path().max_send_wr);
  attr->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_PORT_ACTIVE_EVENT;
  attr->max_sge = 1;
  attr->max_sge_rd = 1;
  attr->max_cq = 1 << 16;
  attr->max_cqe = 1 << 22;
  attr->max_mr = 1 << 20;
  attr->max_pd = 1 << 16;
  attr->max_qp_rd_atom = 16;
  attr->max_qp_init_rd_atom = 16;
  attr->max_res_rd_atom = 16 << 16;
  attr->atomic_cap = IBV_ATOMIC_NONE;
  attr->max_ah = 1 << 16;
  attr->max_pkeys = 1;
  attr->local_ca_ack_delay = 15;
  attr->phys_port_cnt = 1;
  return 0;
}

// The legacy entry point the inline ibv_query_port falls back to (our context is not a
// verbs_context). Only the fields up to `flags` are written: older callers pass the shorter
// compatibility structure; the inline helper has zeroed the rest of the current one.
BIFROST_VERBS_API int(ibv_query_port)(ibv_context* context, uint8_t port_num,
                                      struct _compat_ibv_port_attr* compat) {
  NicRuntime& nic = nic_of(context);
  auto held = nic.lock();
  if (check_port(port_num) != 0) return EINVAL;
  ibv_port_attr a{};
  a.state = IBV_PORT_ACTIVE;
  a.max_mtu = IBV_MTU_4096;
  a.active_mtu = mtu_enum(nic.active_mtu());
  a.gid_tbl_len = static_cast<int>(nic.gids().size());
  a.port_cap_flags = IBV_PORT_CM_SUP;
  a.max_msg_sz = 1u << 31;
  a.pkey_tbl_len = 1;
  a.max_vl_num = 1;
  a.active_width = 2;   // 4x
  a.active_speed = 32;  // 25 Gb/s per lane (EDR): the soft NIC has no fixed rate
  a.phys_state = 5;     // LinkUp
  a.link_layer = IBV_LINK_LAYER_ETHERNET;
  std::memcpy(compat, &a, offsetof(ibv_port_attr, port_cap_flags2));
  return 0;
}

BIFROST_VERBS_API int ibv_query_gid(ibv_context* context, uint8_t port_num, int index,
                                    ibv_gid* gid) {
  NicRuntime& nic = nic_of(context);
  auto held = nic.lock();
  if (check_port(port_num) != 0 || index < 0 || static_cast<size_t>(index) >= nic.gids().size()) {
    return -1;
  }
  const real::Gid raw = real::ipv4_mapped_gid(nic.gids()[static_cast<size_t>(index)].ip);
  std::memcpy(gid->raw, raw.data(), raw.size());
  return 0;
}

namespace {

void fill_gid_entry(const NicRuntime& nic, size_t index, ibv_gid_entry& e) {
  const real::GidEntry& g = nic.gids()[index];
  const real::Gid raw = real::ipv4_mapped_gid(g.ip);
  std::memcpy(e.gid.raw, raw.data(), raw.size());
  e.gid_index = static_cast<uint32_t>(index);
  e.port_num = 1;
  e.gid_type = IBV_GID_TYPE_ROCE_V2;
  e.ndev_ifindex = g.ifindex;
}

}  // namespace

BIFROST_VERBS_API int _ibv_query_gid_ex(ibv_context* context, uint32_t port_num, uint32_t gid_index,
                                        ibv_gid_entry* entry, uint32_t flags, size_t entry_size) {
  NicRuntime& nic = nic_of(context);
  auto held = nic.lock();
  if (flags != 0 || entry_size < sizeof(ibv_gid_entry)) return EINVAL;
  if (port_num != 1 || gid_index >= nic.gids().size()) return ENODATA;
  fill_gid_entry(nic, gid_index, *entry);
  return 0;
}

BIFROST_VERBS_API ssize_t _ibv_query_gid_table(ibv_context* context, ibv_gid_entry* entries,
                                               size_t max_entries, uint32_t flags,
                                               size_t entry_size) {
  NicRuntime& nic = nic_of(context);
  auto held = nic.lock();
  if (flags != 0 || entry_size < sizeof(ibv_gid_entry)) return -EINVAL;
  if (max_entries < nic.gids().size()) return -EINVAL;
  for (size_t i = 0; i < nic.gids().size(); ++i) {
    auto* e = reinterpret_cast<ibv_gid_entry*>(reinterpret_cast<char*>(entries) + i * entry_size);
    fill_gid_entry(nic, i, *e);
  }
  return static_cast<ssize_t>(nic.gids().size());
}

// rdma-core's private map, but ibv_devinfo binds it: the GID type as the kernel's sysfs names
// it (0 "IB/RoCE v1", 1 "RoCE v2").
BIFROST_VERBS_API int ibv_query_gid_type(ibv_context* context, uint8_t port_num, unsigned int index,
                                         int* type) {
  NicRuntime& nic = nic_of(context);
  auto held = nic.lock();
  if (check_port(port_num) != 0 || index >= nic.gids().size()) return -1;
  *type = 1;
  return 0;
}

BIFROST_VERBS_API int ibv_query_pkey(ibv_context* /*context*/, uint8_t port_num, int index,
                                     __be16* pkey) {
  if (check_port(port_num) != 0 || index != 0) return -1;
  *pkey = htons(0xFFFF);  // the default partition, the only one
  return 0;
}

BIFROST_VERBS_API int ibv_get_pkey_index(ibv_context* /*context*/, uint8_t port_num, __be16 pkey) {
  if (check_port(port_num) != 0) return -1;
  return (ntohs(pkey) & 0x7FFF) == 0x7FFF ? 0 : -1;
}

BIFROST_VERBS_API int ibv_get_async_event(ibv_context* context, ibv_async_event* event) {
  // No asynchronous event is ever raised: this blocks (or fails with EAGAIN on a
  // non-blocking fd) like a quiet device.
  char byte;
  if (::read(context->async_fd, &byte, 1) != 1) return -1;
  std::memset(event, 0, sizeof *event);
  return -1;
}

BIFROST_VERBS_API void ibv_ack_async_event(ibv_async_event*) {}
