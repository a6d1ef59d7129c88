// A ChunkedVector is a sequence that grows by fixed blocks instead of by doubling: its elements
// live in blocks of 2^Shift elements each, allocated one at a time as the sequence grows, so
// that a sequence of N elements holds N elements plus at most one partly filled block, and
// appending never copies what is already there. std::vector's growth by doubling leaves up to
// half of its capacity unused and, at each reallocation, briefly holds the old and the new
// storage (three times the elements): for the differ's per-frame keys of a 1 GiB transcript
// (two million frames a side) that is the difference between ~100 and ~250 MiB. Indexing costs
// a shift and a mask. The first block alone grows by doubling from kFirst elements until it is
// full, so a short sequence (a scenario of a dozen frames) costs what it holds, not a block;
// from then on elements never move.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

namespace msptk {

template <class T, unsigned Shift = 14>
class ChunkedVector {
 public:
  static constexpr std::size_t kBlock = std::size_t{1} << Shift;
  static constexpr std::size_t kFirst = kBlock < 64 ? kBlock : 64;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  void push_back(const T& value) {
    if (size_ == first_capacity_ && size_ < kBlock) grow_first();
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
    first_capacity_ = 0;
  }

  // Bytes held by the elements' blocks (not counting the block table).
  std::size_t capacity_bytes() const {
    return blocks_.empty() ? 0 : ((blocks_.size() - 1) * kBlock + first_capacity_) * sizeof(T);
  }

 private:
  // The first block, not full yet, is full: twice as large (kFirst at first, kBlock at most).
  void grow_first() {
    const std::size_t capacity = first_capacity_ == 0 ? kFirst : std::min(first_capacity_ * 2, kBlock);
    auto block = std::make_unique_for_overwrite<T[]>(capacity);
    for (std::size_t i = 0; i < size_; ++i) block[i] = blocks_[0][i];
    if (blocks_.empty()) blocks_.push_back(std::move(block));
    else blocks_[0] = std::move(block);
    first_capacity_ = capacity;
  }

  std::vector<std::unique_ptr<T[]>> blocks_;
  std::size_t size_ = 0;
  std::size_t first_capacity_ = 0;  // elements the first block holds (kBlock once it is full)
};

}  // namespace msptk
