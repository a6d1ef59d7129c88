// A ChunkedVector is a sequence that grows by fixed blocks instead of by doubling: its elements
// live in blocks of 2^Shift elements each, allocated one at a time as the sequence grows, so
// that a sequence of N elements holds N elements plus at most one partly filled block, and
// appending never copies what is already there. std::vector's growth by doubling leaves up to
// half of its capacity unused and, at each reallocation, briefly holds the old and the new
// storage (three times the elements): for the differ's per-frame keys of a 1 GiB transcript
// (two million frames a side) that is the difference between ~100 and ~250 MiB. Indexing costs
// a shift and a mask; elements never move, so references stay valid while it grows.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace msptk {

template <class T, unsigned Shift = 14>
class ChunkedVector {
 public:
  static constexpr std::size_t kBlock = std::size_t{1} << Shift;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  void push_back(const T& value) {
    if ((size_ & (kBlock - 1)) == 0 && (size_ >> Shift) == blocks_.size())
      blocks_.push_back(std::make_unique_for_overwrite<T[]>(kBlock));
    blocks_[size_ >> Shift][size_ & (kBlock - 1)] = value;
    ++size_;
  }

  T& operator[](std::size_t i) { return blocks_[i >> Shift][i & (kBlock - 1)]; }
  const T& operator[](std::size_t i) const { return blocks_[i >> Shift][i & (kBlock - 1)]; }

  void clear() {
    blocks_.clear();
    blocks_.shrink_to_fit();
    size_ = 0;
  }

  // Bytes held by the elements' blocks (not counting the block table).
  std::size_t capacity_bytes() const { return blocks_.size() * kBlock * sizeof(T); }

 private:
  std::vector<std::unique_ptr<T[]>> blocks_;
  std::size_t size_ = 0;
};

}  // namespace msptk
