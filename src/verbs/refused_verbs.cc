// The rest of libibverbs' public interface, present so that no call falls through to the real
// libibverbs (which would read its private structures inside our objects): what the soft RNIC
// cannot do fails with EOPNOTSUPP (or NULL with errno = EOPNOTSUPP) and says so in the log;
// what needs nothing here (fork protection) succeeds. docs/verbs.md lists them.
#include "guard.h"
#include "objects.h"

using namespace bifrost::verbs;

namespace {

int refuse(const char* verb) {
  log(LogLevel::warn, "{} is not supported by the soft RNIC", verb);
  return EOPNOTSUPP;
}

template <typename T>
T* refuse_null(const char* verb) {
  errno = refuse(verb);
  return nullptr;
}

}  // namespace

// Shared receive queues: the soft RNIC has none (docs/rnic.md, "Left out on purpose").
BIFROST_VERBS_API ibv_srq* ibv_create_srq(ibv_pd*, ibv_srq_init_attr*) {
  return refuse_null<ibv_srq>("ibv_create_srq");
}
BIFROST_VERBS_API int ibv_modify_srq(ibv_srq*, ibv_srq_attr*, int) {
  return refuse("ibv_modify_srq");
}
BIFROST_VERBS_API int ibv_query_srq(ibv_srq*, ibv_srq_attr*) {
  return refuse("ibv_query_srq");
}
BIFROST_VERBS_API int ibv_destroy_srq(ibv_srq*) {
  return refuse("ibv_destroy_srq");
}

// Multicast, memory-region re-registration, CQ resizing, dma-buf regions.
BIFROST_VERBS_API int ibv_attach_mcast(ibv_qp*, const ibv_gid*, uint16_t) {
  return refuse("ibv_attach_mcast");
}
BIFROST_VERBS_API int ibv_detach_mcast(ibv_qp*, const ibv_gid*, uint16_t) {
  return refuse("ibv_detach_mcast");
}
BIFROST_VERBS_API int ibv_rereg_mr(ibv_mr*, int, ibv_pd*, void*, size_t, int) {
  refuse("ibv_rereg_mr");
  return IBV_REREG_MR_ERR_INPUT;
}
BIFROST_VERBS_API int ibv_resize_cq(ibv_cq*, int) {
  return refuse("ibv_resize_cq");
}
BIFROST_VERBS_API ibv_mr* ibv_reg_dmabuf_mr(ibv_pd*, uint64_t, size_t, uint64_t, int, int) {
  return refuse_null<ibv_mr>("ibv_reg_dmabuf_mr");
}

// The extended QP (ibv_wr_* posting): posting goes through ibv_post_send.
BIFROST_VERBS_API ibv_qp_ex* ibv_qp_to_qp_ex(ibv_qp*) {
  return refuse_null<ibv_qp_ex>("ibv_qp_to_qp_ex");
}

// Sharing objects between processes through a command fd: there is no kernel device.
BIFROST_VERBS_API ibv_context* ibv_import_device(int) {
  return refuse_null<ibv_context>("ibv_import_device");
}
BIFROST_VERBS_API ibv_pd* ibv_import_pd(ibv_context*, uint32_t) {
  return refuse_null<ibv_pd>("ibv_import_pd");
}
BIFROST_VERBS_API ibv_mr* ibv_import_mr(ibv_pd*, uint32_t) {
  return refuse_null<ibv_mr>("ibv_import_mr");
}
BIFROST_VERBS_API ibv_dm* ibv_import_dm(ibv_context*, uint32_t) {
  return refuse_null<ibv_dm>("ibv_import_dm");
}
BIFROST_VERBS_API void ibv_unimport_pd(ibv_pd*) {}
BIFROST_VERBS_API void ibv_unimport_mr(ibv_mr*) {}
BIFROST_VERBS_API void ibv_unimport_dm(ibv_dm*) {}

// Enhanced connection establishment options and layer-2 resolution.
BIFROST_VERBS_API int ibv_set_ece(ibv_qp*, ibv_ece*) {
  return refuse("ibv_set_ece");
}
BIFROST_VERBS_API int ibv_query_ece(ibv_qp*, ibv_ece*) {
  return refuse("ibv_query_ece");
}
BIFROST_VERBS_API int ibv_resolve_eth_l2_from_gid(ibv_context*, ibv_ah_attr*, uint8_t[6],
                                                  uint16_t*) {
  return refuse("ibv_resolve_eth_l2_from_gid");
}

// 0: the selective engines place data out of order, so in-order placement is not promised.
BIFROST_VERBS_API int ibv_query_qp_data_in_order(ibv_qp*, ibv_wr_opcode, uint32_t) {
  return 0;
}

// Fork protection concerns pinned pages of a kernel driver; the soft RNIC pins nothing.
BIFROST_VERBS_API int ibv_fork_init(void) {
  return 0;
}
BIFROST_VERBS_API ibv_fork_status ibv_is_fork_initialized(void) {
  return IBV_FORK_UNNEEDED;
}
BIFROST_VERBS_API int ibv_dontfork_range(void*, size_t) {
  return 0;
}
BIFROST_VERBS_API int ibv_dofork_range(void*, size_t) {
  return 0;
}

// Provider-side helpers of the same map (rdma-core's driver.h, not installed): no provider
// runs here. Their argument types do not matter to a function that touches none of them.
BIFROST_VERBS_API const char* ibv_get_sysfs_path(void) {
  return refuse_null<const char>("ibv_get_sysfs_path");
}
// ibv_devinfo reads the board id this way: quietly absent.
BIFROST_VERBS_API int ibv_read_sysfs_file(const char*, const char*, char*, size_t) {
  return -1;
}
BIFROST_VERBS_API void ibv_register_driver(const char*, void*) {
  refuse("ibv_register_driver");
}
BIFROST_VERBS_API void ibv_copy_ah_attr_from_kern(void*, void*) {
  refuse("ibv_copy_ah_attr_from_kern");
}
BIFROST_VERBS_API void ibv_copy_qp_attr_from_kern(void*, void*) {
  refuse("ibv_copy_qp_attr_from_kern");
}
BIFROST_VERBS_API void ibv_copy_path_rec_from_kern(void*, void*) {
  refuse("ibv_copy_path_rec_from_kern");
}
BIFROST_VERBS_API void ibv_copy_path_rec_to_kern(void*, void*) {
  refuse("ibv_copy_path_rec_to_kern");
}
