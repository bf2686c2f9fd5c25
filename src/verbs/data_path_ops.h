#pragma once
// The per-context operations the application's inline helpers call through ibv_context.ops
// (ibv_post_send, ibv_post_recv, ibv_poll_cq, ibv_req_notify_cq, ibv_post_srq_recv).
#include <infiniband/verbs.h>

namespace bifrost::verbs {

int post_send(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr);
int post_recv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad_wr);
int poll_cq(ibv_cq* cq, int entries, ibv_wc* wc);
int req_notify_cq(ibv_cq* cq, int solicited_only);

}  // namespace bifrost::verbs
