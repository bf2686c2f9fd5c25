// Protection domains, memory regions and address handles.
#include <cstring>

#include "application_memory.h"
#include "bifrost/core/error.h"
#include "bifrost/real/gid_table.h"
#include "guard.h"
#include "nic_runtime.h"
#include "objects.h"
#include "qp_attr_translation.h"

using namespace bifrost;
using namespace bifrost::verbs;

namespace {

// The rights the soft RNIC enforces; the optional range (relaxed ordering and the like,
// IBV_ACCESS_OPTIONAL_RANGE) is accepted and ignored, as libibverbs does for a device without
// them. Anything else (zero-based, on-demand paging, memory windows, ...) is refused.
constexpr int kEnforcedAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

rnic::Access access_of(int flags) {
  return static_cast<rnic::Access>(flags & kEnforcedAccess);
}

ibv_mr* register_region(ibv_pd* pd, void* addr, size_t length, uint64_t iova, int access) {
  return pointer_result("ibv_reg_mr", EINVAL, [&]() -> ibv_mr* {
    const int mandatory = access & ~IBV_ACCESS_OPTIONAL_RANGE;
    if ((mandatory & ~kEnforcedAccess) != 0) {
      errno = EOPNOTSUPP;
      log(LogLevel::warn, "ibv_reg_mr: access flags {:#x} not supported",
          mandatory & ~kEnforcedAccess);
      return nullptr;
    }
    if (length == 0 || addr == nullptr) throw Error("empty or null region");
    NicRuntime& nic = nic_of(pd->context);
    auto held = nic.lock();
    auto* m = new Mr{};
    m->memory = new ApplicationMemory(static_cast<std::byte*>(addr), iova, length);
    try {
      const rnic::MemoryRegion& region =
          nic.device().reg_mr(object_of<Pd>(pd).pd, iova, length, access_of(access), m->memory);
      m->ibv = ibv_mr{.context = pd->context,
                      .pd = pd,
                      .addr = addr,
                      .length = length,
                      .handle = region.lkey,
                      .lkey = region.lkey,
                      .rkey = region.rkey};
    } catch (...) {
      delete m->memory;
      delete m;
      throw;
    }
    return &m->ibv;
  });
}

}  // namespace

BIFROST_VERBS_API ibv_pd* ibv_alloc_pd(ibv_context* context) {
  return pointer_result("ibv_alloc_pd", ENOMEM, [&]() -> ibv_pd* {
    NicRuntime& nic = nic_of(context);
    auto held = nic.lock();
    auto* p = new Pd{};
    p->pd = nic.device().alloc_pd();
    p->ibv.context = context;
    p->ibv.handle = p->pd.handle;
    return &p->ibv;
  });
}

BIFROST_VERBS_API int ibv_dealloc_pd(ibv_pd* pd) {
  delete &object_of<Pd>(pd);
  return 0;
}

BIFROST_VERBS_API ibv_mr*(ibv_reg_mr)(ibv_pd* pd, void* addr, size_t length, int access) {
  return register_region(pd, addr, length, reinterpret_cast<uint64_t>(addr), access);
}

BIFROST_VERBS_API ibv_mr*(ibv_reg_mr_iova)(ibv_pd* pd, void* addr, size_t length, uint64_t iova,
                                           int access) {
  return register_region(pd, addr, length, iova, access);
}

BIFROST_VERBS_API ibv_mr* ibv_reg_mr_iova2(ibv_pd* pd, void* addr, size_t length, uint64_t iova,
                                           unsigned int access) {
  return register_region(pd, addr, length, iova, static_cast<int>(access));
}

BIFROST_VERBS_API int ibv_dereg_mr(ibv_mr* mr) {
  return errno_result("ibv_dereg_mr", EINVAL, [&] {
    Mr& m = object_of<Mr>(mr);
    NicRuntime& nic = nic_of(mr->context);
    auto held = nic.lock();
    nic.device().dereg_mr(mr->lkey);
    // Packets still waiting in the port may borrow the region's bytes: hand them to the kernel
    // before the application may free the memory.
    nic.after_post();
    delete m.memory;
    delete &m;
    return 0;
  });
}

BIFROST_VERBS_API ibv_ah* ibv_create_ah(ibv_pd* pd, ibv_ah_attr* attr) {
  return pointer_result("ibv_create_ah", EINVAL, [&]() -> ibv_ah* {
    const world::Ipv4 dest = ah_destination(*attr);
    auto* a = new Ah{};
    a->ibv.context = pd->context;
    a->ibv.pd = pd;
    a->dest = dest;
    a->traffic_class = attr->grh.traffic_class;
    return &a->ibv;
  });
}

BIFROST_VERBS_API int ibv_destroy_ah(ibv_ah* ah) {
  delete &object_of<Ah>(ah);
  return 0;
}

// A UD receive's 40 bytes of GRH room hold, as on RoCE v2 over IPv4, 20 bytes of zeros and the
// packet's IPv4 header (poll_cq writes it): the source address is at bytes 32..35.
BIFROST_VERBS_API int ibv_init_ah_from_wc(ibv_context* context, uint8_t port_num, ibv_wc* wc,
                                          ibv_grh* grh, ibv_ah_attr* ah_attr) {
  NicRuntime& nic = nic_of(context);
  if (port_num != 1 || (wc->wc_flags & IBV_WC_GRH) == 0 || grh == nullptr) return -1;
  const auto* ip_header = reinterpret_cast<const uint8_t*>(grh) + 20;
  const world::Ipv4 source =
      world::Ipv4::of(ip_header[12], ip_header[13], ip_header[14], ip_header[15]);
  const world::Ipv4 local =
      world::Ipv4::of(ip_header[16], ip_header[17], ip_header[18], ip_header[19]);
  std::memset(ah_attr, 0, sizeof *ah_attr);
  ah_attr->is_global = 1;
  ah_attr->port_num = port_num;
  ah_attr->grh.hop_limit = 64;
  ah_attr->grh.traffic_class = ip_header[1];
  const real::Gid dgid = real::ipv4_mapped_gid(source);
  std::memcpy(ah_attr->grh.dgid.raw, dgid.data(), dgid.size());
  auto held = nic.lock();
  for (size_t i = 0; i < nic.gids().size(); ++i) {
    if (nic.gids()[i].ip == local) ah_attr->grh.sgid_index = static_cast<uint8_t>(i);
  }
  return 0;
}

BIFROST_VERBS_API ibv_ah* ibv_create_ah_from_wc(ibv_pd* pd, ibv_wc* wc, ibv_grh* grh,
                                                uint8_t port_num) {
  ibv_ah_attr attr;
  if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr) != 0) {
    errno = EINVAL;
    return nullptr;
  }
  return ibv_create_ah(pd, &attr);
}
