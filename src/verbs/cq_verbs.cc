// Completion queues, completion channels and polling. Polling with nothing to return runs a
// progress pass of the NIC first, so an application that polls does not wait for the thread.
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "completion_translation.h"
#include "data_path_ops.h"
#include "guard.h"
#include "nic_runtime.h"
#include "objects.h"

using namespace bifrost;
using namespace bifrost::verbs;

namespace {

// Runs under the NIC's lock, inside its processing, after every completion on the CQ.
void raise_event_if_armed(Cq& cq) {
  if (!cq.armed || cq.ibv.channel == nullptr) return;
  cq.armed = false;
  ++cq.events_raised;
  CompChannel& channel = object_of<CompChannel>(cq.ibv.channel);
  {
    std::lock_guard held(*channel.mutex);
    channel.events->push_back(&cq.ibv);
  }
  const char byte = 1;
  [[maybe_unused]] const ssize_t n = ::write(channel.write_fd, &byte, 1);
}

}  // namespace

BIFROST_VERBS_API ibv_comp_channel* ibv_create_comp_channel(ibv_context* context) {
  return pointer_result("ibv_create_comp_channel", ENOMEM, [&]() -> ibv_comp_channel* {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return nullptr;
    auto* c = new CompChannel{};
    c->ibv.context = context;
    c->ibv.fd = fds[0];
    c->write_fd = fds[1];
    c->mutex = new std::mutex();
    c->events = new std::deque<ibv_cq*>();
    return &c->ibv;
  });
}

BIFROST_VERBS_API int ibv_destroy_comp_channel(ibv_comp_channel* channel) {
  CompChannel& c = object_of<CompChannel>(channel);
  if (c.ibv.refcnt != 0) return EBUSY;
  ::close(c.ibv.fd);
  ::close(c.write_fd);
  delete c.mutex;
  delete c.events;
  delete &c;
  return 0;
}

BIFROST_VERBS_API ibv_cq* ibv_create_cq(ibv_context* context, int cqe, void* cq_context,
                                        ibv_comp_channel* channel, int comp_vector) {
  return pointer_result("ibv_create_cq", EINVAL, [&]() -> ibv_cq* {
    if (cqe <= 0 || comp_vector != 0) {
      errno = EINVAL;
      return nullptr;
    }
    NicRuntime& nic = nic_of(context);
    auto held = nic.lock();
    auto* c = new Cq{};
    c->cq = &nic.device().create_cq(static_cast<size_t>(cqe));
    c->ibv.context = context;
    c->ibv.channel = channel;
    c->ibv.cq_context = cq_context;
    c->ibv.handle = c->cq->cq_num();
    c->ibv.cqe = cqe;
    pthread_mutex_init(&c->ibv.mutex, nullptr);
    pthread_cond_init(&c->ibv.cond, nullptr);
    if (channel != nullptr) {
      ++channel->refcnt;
      c->cq->set_handler([c] { raise_event_if_armed(*c); });
    }
    return &c->ibv;
  });
}

// The soft RNIC keeps a CQ until the device goes away; this forgets it (no more events).
BIFROST_VERBS_API int ibv_destroy_cq(ibv_cq* cq) {
  Cq& c = object_of<Cq>(cq);
  NicRuntime& nic = nic_of(cq->context);
  auto held = nic.lock();
  c.cq->set_handler(nullptr);
  if (cq->channel != nullptr) {
    CompChannel& channel = object_of<CompChannel>(cq->channel);
    std::lock_guard events_held(*channel.mutex);
    std::erase(*channel.events, cq);
    --cq->channel->refcnt;
  }
  pthread_mutex_destroy(&cq->mutex);
  pthread_cond_destroy(&cq->cond);
  delete &c;
  return 0;
}

BIFROST_VERBS_API int ibv_get_cq_event(ibv_comp_channel* channel, ibv_cq** cq, void** cq_context) {
  CompChannel& c = object_of<CompChannel>(channel);
  char byte;
  if (::read(c.ibv.fd, &byte, 1) != 1) return -1;
  std::lock_guard held(*c.mutex);
  if (c.events->empty()) return -1;  // its CQ was destroyed meanwhile
  *cq = c.events->front();
  c.events->pop_front();
  *cq_context = (*cq)->cq_context;
  return 0;
}

BIFROST_VERBS_API void ibv_ack_cq_events(ibv_cq* cq, unsigned int nevents) {
  pthread_mutex_lock(&cq->mutex);
  cq->comp_events_completed += nevents;
  pthread_mutex_unlock(&cq->mutex);
}

namespace bifrost::verbs {

int req_notify_cq(ibv_cq* cq, int /*solicited_only: every completion raises the event*/) {
  Cq& c = object_of<Cq>(cq);
  if (cq->channel == nullptr) return EINVAL;
  auto held = nic_of(cq->context).lock();
  c.armed = true;
  return 0;
}

int poll_cq(ibv_cq* cq, int entries, ibv_wc* wc) {
  if (entries <= 0) return 0;
  Cq& c = object_of<Cq>(cq);
  Context& context = object_of<Context>(cq->context);
  NicRuntime& nic = *context.nic;
  thread_local std::vector<rnic::WorkCompletion> taken;
  taken.resize(static_cast<size_t>(entries));
  // Never wait for the progress thread: while it holds the NIC, report nothing this time.
  std::unique_lock held(nic.mutex(), std::try_to_lock);
  if (!held.owns_lock()) return 0;
  try {
    size_t n = c.cq->poll(taken.size(), taken);
    if (n == 0) {
      nic.progress();
      n = c.cq->poll(taken.size(), taken);
    }
    for (size_t i = 0; i < n; ++i) {
      const rnic::WorkCompletion& done = taken[i];
      UdReceive ud{};
      const UdReceive* room = nullptr;
      world::Ipv4 local = nic.gids().front().ip;
      if (done.opcode == rnic::WcOpcode::recv ||
          done.opcode == rnic::WcOpcode::recv_rdma_with_imm) {
        const auto found = context.qps->find(done.qp_num);
        if (found != context.qps->end() && found->second->ud_receives != nullptr &&
            !found->second->ud_receives->empty()) {
          ud = found->second->ud_receives->front();
          found->second->ud_receives->pop_front();
          room = &ud;
          local = nic.gids()[found->second->qp->query().av.sgid_index].ip;
        }
      }
      translate_completion(done, room, local, wc[i]);
    }
    return static_cast<int>(n);
  } catch (const std::exception& e) {
    log(LogLevel::error, "ibv_poll_cq: {}", e.what());  // a CQ overrun: completions were lost
    return -1;
  }
}

}  // namespace bifrost::verbs
