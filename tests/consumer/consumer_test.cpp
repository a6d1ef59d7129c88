// A user's GoogleTest suite built against the installed package: the golden-scenario
// assertions of <msptk/gtest.hpp>.
#include <msptk/gtest.hpp>

#include <cstdlib>
#include <filesystem>

namespace {

std::filesystem::path sample(const char* name) { return std::filesystem::path(std::getenv("SAMPLES")) / name; }

TEST(Consumer, ReorderedMembersAndOwnIdsAreEquivalent) {
  EXPECT_TRANSCRIPT_EQUIVALENT(sample("golden.ndjson"), sample("reminted.ndjson"));
}

TEST(Consumer, AChangedResultIsReported) {
  EXPECT_FALSE(msptk::testing::TranscriptEquivalent("golden", "changed", sample("golden.ndjson"),
                                                    sample("changed.ndjson")));
}

}  // namespace
