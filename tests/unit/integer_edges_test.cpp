// Counted integers at their limits (issue 30 §2): chaos close-after=N and show's --lines A-B take
// every whole number their type holds and refuse 0, negatives, anything beyond, and non-numbers
// as usage errors naming the option (the minted ids and commandIds: script_bounds_test.cpp).
#include "msptk/chaos/spec.hpp"
#include "msptk/show/show.hpp"

#include <gtest/gtest.h>

namespace msptk {
namespace {

TEST(IntegerEdges, CloseAfterTakesEveryCountFromOneToUint64Max) {
  for (auto [text, n] : std::vector<std::pair<std::string, std::uint64_t>>{
           {"close-after=1", 1}, {"close-after=9223372036854775807", 9223372036854775807ull},
           {"close-after=18446744073709551615", 18446744073709551615ull}}) {
    auto spec = chaos::parse_chaos_spec(text, chaos::ChaosRole::client);
    ASSERT_TRUE(spec) << text;
    EXPECT_EQ(*spec->close_after, n);
  }
  for (const char* text : {"close-after=0", "close-after=-1", "close-after=18446744073709551616", "close-after=1e3",
                           "close-after=", "close-after= 1", "close-after=+1"}) {
    auto spec = chaos::parse_chaos_spec(text, chaos::ChaosRole::client);
    ASSERT_FALSE(spec) << text;
    EXPECT_EQ(spec.error().kind, ErrorKind::usage);
    EXPECT_NE(spec.error().message.find("--chaos"), std::string::npos) << spec.error().message;
  }
}

TEST(IntegerEdges, LineRangesTakeOneToSizeMaxAndRefuseTheRest) {
  auto max = show::parse_line_range("18446744073709551615");
  ASSERT_TRUE(max);
  EXPECT_EQ(max->first, 18446744073709551615ull);
  auto open = show::parse_line_range("9223372036854775807-");
  ASSERT_TRUE(open);
  EXPECT_EQ(open->last, 0u);
  for (const char* text : {"0", "0-5", "1-0", "-5", "5-3", "18446744073709551616", "1-18446744073709551616", "a", "",
                           "-", "1--2", "+1"}) {
    auto range = show::parse_line_range(text);
    ASSERT_FALSE(range) << text;
    EXPECT_EQ(range.error().kind, ErrorKind::usage);
    EXPECT_EQ(range.error().message.rfind("--lines ", 0), 0u) << range.error().message;
  }
}

}  // namespace
}  // namespace msptk
