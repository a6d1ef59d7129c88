#include "msptk/differ/align.hpp"
#include "msptk/differ/chunked_vector.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace msptk {
namespace {

TEST(ChunkedVector, HoldsWhatWasAppendedAcrossBlocks) {
  ChunkedVector<std::uint64_t, 3> v;  // blocks of 8
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.capacity_bytes(), 0u);
  for (std::uint64_t k = 0; k < 100; ++k) v.push_back(k * 7 + 1);
  ASSERT_EQ(v.size(), 100u);
  for (std::uint64_t k = 0; k < 100; ++k) EXPECT_EQ(v[k], k * 7 + 1) << k;
  v[42] = 5;
  EXPECT_EQ(v[42], 5u);
  EXPECT_EQ(v[41], 41u * 7 + 1);
}

TEST(ChunkedVector, AllocatesOneBlockAtATime) {
  ChunkedVector<std::uint32_t, 4> v;  // blocks of 16
  v.push_back(1);
  EXPECT_EQ(v.capacity_bytes(), 16 * sizeof(std::uint32_t));
  for (int k = 1; k < 16; ++k) v.push_back(1);
  EXPECT_EQ(v.capacity_bytes(), 16 * sizeof(std::uint32_t));  // exactly full: no block ahead
  v.push_back(2);
  EXPECT_EQ(v.capacity_bytes(), 32 * sizeof(std::uint32_t));
  EXPECT_EQ(v[16], 2u);
}

// The first block grows by doubling from 64 elements: a dozen keys cost 64, not a block of 16,384.
TEST(ChunkedVector, AShortSequenceCostsWhatItHolds) {
  ChunkedVector<std::uint64_t> v;  // blocks of 16,384
  for (std::uint64_t k = 0; k < 12; ++k) v.push_back(k);
  EXPECT_EQ(v.capacity_bytes(), 64 * sizeof(std::uint64_t));
  for (std::uint64_t k = 12; k < 1000; ++k) v.push_back(k);
  EXPECT_EQ(v.capacity_bytes(), 1024 * sizeof(std::uint64_t));
  for (std::uint64_t k = 1000; k < 20000; ++k) v.push_back(k);
  EXPECT_EQ(v.capacity_bytes(), 2 * 16384 * sizeof(std::uint64_t));
  for (std::uint64_t k = 0; k < 20000; ++k) ASSERT_EQ(v[k], k);
}

TEST(ChunkedVector, ElementsDoNotMoveOnceTheFirstBlockIsFull) {
  ChunkedVector<int, 2> v;  // blocks of 4
  for (int k = 0; k < 4; ++k) v.push_back(9 + k);
  const int* first = &v[0];
  const int* fourth = &v[3];
  for (int k = 0; k < 1000; ++k) v.push_back(k);
  EXPECT_EQ(first, &v[0]);
  EXPECT_EQ(fourth, &v[3]);
  EXPECT_EQ(*first, 9);
}

TEST(ChunkedVector, ClearFreesTheBlocks) {
  ChunkedVector<int, 2> v;
  for (int k = 0; k < 10; ++k) v.push_back(k);
  v.clear();
  EXPECT_EQ(v.size(), 0u);
  EXPECT_EQ(v.capacity_bytes(), 0u);
  v.push_back(3);
  EXPECT_EQ(v[0], 3);
}

// for_each_common over a ChunkedVector (keys read in place) gives the pairs the span version
// gives, in the same order.
TEST(Align, ForEachCommonReadsKeysThroughAnyIndexableSequence) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::uint64_t> a(rng() % 200), b(rng() % 200);
    for (auto& x : a) x = rng() % 5;
    for (auto& x : b) x = rng() % 5;
    ChunkedVector<std::uint64_t, 3> ca, cb;
    for (auto x : a) ca.push_back(x);
    for (auto x : b) cb.push_back(x);
    std::vector<Match> got;
    for_each_common([&](std::size_t i) { return ca[i]; }, ca.size(), [&](std::size_t j) { return cb[j]; }, cb.size(),
                    [&](std::size_t i, std::size_t j) { got.emplace_back(i, j); });
    EXPECT_EQ(got, longest_common_subsequence(a, b)) << "round " << round;
    for (std::size_t k = 1; k < got.size(); ++k) {
      EXPECT_LT(got[k - 1].first, got[k].first);
      EXPECT_LT(got[k - 1].second, got[k].second);
    }
  }
}

}  // namespace
}  // namespace msptk
