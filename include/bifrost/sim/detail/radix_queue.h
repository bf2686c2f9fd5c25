#pragma once
// The event kernel's priority queue: a monotone radix heap (Ahuja, Mehlhorn, Orlin, Tarjan 1990)
// over 64-bit times, with a small sorted "run" at the front.
//
// Why: simulated time never goes backwards, so every key pushed is >= the present. Bucket b
// (1..64) holds items whose time first differs from `last_` at bit b-1, bucket 0 items equal
// to `last_`; a push is an append. When the run is empty, the lowest non-empty bucket is either
// sorted into the run (if small) or redistributed around its minimum into lower buckets. Items
// are 16 bytes and all traffic is sequential appends and scans, which beats a binary heap's
// unpredictable branches and random access by a wide margin at 10^5..10^6 pending events.
//
// Order among equal times (FIFO) holds by construction: a bucket only receives items by
// appending, either from pushes (in insertion order) or from one redistribution into buckets
// that were empty, so equal-time items sit in one bucket in insertion order; the run is sorted
// by (time, position in that bucket), and a push into the run goes after its equals.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bifrost::sim::detail {

class RadixQueue {
 public:
  struct Item {
    uint64_t time;
    uint32_t id;     // the caller's handle (the kernel's slot index)
    uint32_t order;  // scratch: position while sorting into the run
  };

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  void push(uint64_t time, uint32_t id) {
    ++size_;
    if (head_ < run_.size() && time <= run_.back().time) {
      insert_into_run(Item{time, id, 0});
      return;
    }
    if (time < last_) rebase(time);
    append(Item{time, id, 0});
  }

  // The earliest item (first inserted among equals). Precondition: !empty().
  const Item& top() {
    refill();
    return run_[head_];
  }

  // Removes and returns the earliest item. Precondition: !empty().
  Item pop() {
    refill();
    --size_;
    return run_[head_++];
  }

  // Calls fn(id) for every item of the run if it was refilled since the last call: the
  // caller prefetches what those items point at, all at once, before they are popped.
  template <typename Fn>
  void for_fresh_run(Fn fn) {
    if (!fresh_run_) return;
    fresh_run_ = false;
    for (std::size_t i = head_; i < run_.size(); ++i) fn(run_[i].id);
  }

  // Removes every item for which `drop(item)` is true, keeping the order of the rest.
  template <typename Drop>
  void remove_if(Drop drop) {
    auto filter = [&](std::vector<Item>& items, std::size_t from) {
      const auto first = items.begin() + static_cast<std::ptrdiff_t>(from);
      const auto kept = std::remove_if(first, items.end(), drop);
      size_ -= static_cast<std::size_t>(items.end() - kept);
      items.erase(kept, items.end());
    };
    filter(run_, head_);
    for (std::size_t b = 0; b < kBuckets; ++b) {
      filter(buckets_[b], 0);
      if (b > 0 && buckets_[b].empty()) occupied_ &= ~bit(b);
    }
  }

 private:
  static constexpr std::size_t kBuckets = 65;
  // A bucket this small is sorted straight into the run instead of redistributed.
  static constexpr std::size_t kRunMax = 128;

  static constexpr uint64_t bit(std::size_t b) { return uint64_t{1} << (b - 1); }
  std::size_t bucket_of(uint64_t time) const {
    return time == last_ ? 0 : 64 - static_cast<std::size_t>(std::countl_zero(time ^ last_));
  }

  void append(const Item& item) {
    const std::size_t b = bucket_of(item.time);
    buckets_[b].push_back(item);
    if (b > 0) occupied_ |= bit(b);
  }

  void insert_into_run(const Item& item) {
    const auto pos =
        std::upper_bound(run_.begin() + static_cast<std::ptrdiff_t>(head_), run_.end(), item.time,
                         [](uint64_t t, const Item& other) { return t < other.time; });
    run_.insert(pos, item);
  }

  void refill() {
    if (head_ < run_.size()) return;
    run_.clear();
    head_ = 0;
    fresh_run_ = true;
    for (;;) {
      if (!buckets_[0].empty()) {  // all equal to last_, already in insertion order
        run_.swap(buckets_[0]);
        return;
      }
      const std::size_t b = static_cast<std::size_t>(std::countr_zero(occupied_)) + 1;
      auto& source = buckets_[b];
      occupied_ &= ~bit(b);
      if (source.size() <= kRunMax) {
        // Every item in higher buckets is later than every item here: sort this one and go.
        sort_run(source);
        last_ = source.back().time;  // shares all bits above b-1 with the old last_
        run_.swap(source);
        return;
      }
      uint64_t min = source[0].time;
      for (const Item& item : source) min = std::min(min, item.time);
      last_ = min;
      for (const Item& item : source) append(item);  // every item lands below bucket b
      source.clear();
    }
  }

  // Sorts a small bucket by (time, position). Equal times are already in insertion order, so
  // the position breaks ties. When the bucket's span allows, each item's time is temporarily
  // replaced by (time - min) << 7 | position, so the sort compares single 64-bit words.
  static void sort_run(std::vector<Item>& items) {
    static_assert(kRunMax <= 128, "positions must fit the 7 low bits of the sort key");
    uint64_t lo = items[0].time, hi = items[0].time;
    for (const Item& item : items) {
      lo = std::min(lo, item.time);
      hi = std::max(hi, item.time);
    }
    const auto by_time = [](const Item& x, const Item& y) { return x.time < y.time; };
    if (hi - lo < (uint64_t{1} << 56)) {
      for (std::size_t i = 0; i < items.size(); ++i) items[i].time = (items[i].time - lo) << 7 | i;
      std::sort(items.begin(), items.end(), by_time);
      for (Item& item : items) item.time = lo + (item.time >> 7);
      return;
    }
    for (std::size_t i = 0; i < items.size(); ++i) items[i].order = static_cast<uint32_t>(i);
    std::sort(items.begin(), items.end(), [](const Item& x, const Item& y) {
      return x.time < y.time || (x.time == y.time && x.order < y.order);
    });
  }

  // A push below last_ that does not fit the run happens only after a peek moved last_ past
  // the present (the kernel's run_until looks at the next event without running it), or after
  // remove_if shortened the run. Re-bucket everything around the new minimum; equal-time items
  // move together from one place, in order.
  void rebase(uint64_t time) {
    if (head_ < run_.size()) time = std::min(time, run_[head_].time);
    std::array<std::vector<Item>, kBuckets> old;
    old.swap(buckets_);
    std::vector<Item> old_run;
    old_run.swap(run_);
    const std::size_t old_head = head_;
    head_ = 0;
    occupied_ = 0;
    last_ = time;
    for (std::size_t i = old_head; i < old_run.size(); ++i) append(old_run[i]);
    for (auto& bucket : old) {
      for (const Item& item : bucket) append(item);
    }
  }

  std::vector<Item> run_;  // sorted; items before head_ are already popped
  std::size_t head_ = 0;
  std::array<std::vector<Item>, kBuckets> buckets_;
  uint64_t occupied_ = 0;  // bit b-1 set when bucket b (b >= 1) is non-empty
  uint64_t last_ = 0;      // the time all buckets are relative to
  std::size_t size_ = 0;
  bool fresh_run_ = false;
};

}  // namespace bifrost::sim::detail
