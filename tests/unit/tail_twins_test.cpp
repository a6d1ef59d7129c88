// The differ's tail twins (differ/diff.cpp, TailTwins): after the last pair that can change the
// pairings, a twin that holds no value paired with another value is identical without being
// parsed; one that holds such a value still breaks the bijection, whichever way its line spells
// the frame. The file path must say what diff_frames over the frames in memory says.
#include "diff_support.hpp"
#include "msptk/differ/diff.hpp"
#include "msptk/differ/render.hpp"
#include "msptk/normalizer/registry.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/writer.hpp"
#include "test_support.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace msptk {
namespace {

namespace fs = std::filesystem;

using test::rendered;

// Lines written canonical, or as {"raw":…,"dir":…} (another line form, every line decoded).
void write_frames(const fs::path& file, const std::vector<std::pair<Direction, std::string>>& frames, bool canonical) {
  std::ofstream out(file, std::ios::binary);
  for (const auto& [dir, raw] : frames) {
    if (canonical) out << canonical_line(dir, raw) << "\n";
    else out << boost::json::serialize(boost::json::object{{"raw", raw}, {"dir", to_string(dir)}}) << "\n";
  }
}

std::string initialize(int id, const std::string& version) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
         R"(,"method":"initialize","params":{"clientInfo":{"name":"c","version":")" + version + R"("}}})";
}

std::string request(int id, const std::string& text) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"turn/start","params":{"text":")" + text +
         R"("}})";
}

std::string response(int id) { return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"result":{}})"; }

using Frames = std::vector<std::pair<Direction, std::string>>;

// Diffs EXPECTED with ACTUAL through files (both line forms) and in memory; returns the report.
std::string expect_paths_agree(const Frames& expected, const Frames& actual) {
  test::TempDir tmp;
  auto spec = make_mask_spec(Registry::builtin(), {}, "manifest.json", 1, {}, MaskMode::unify);
  EXPECT_TRUE(spec);
  const DiffOptions options{*spec, Side::both};
  std::string report;
  for (bool canonical : {true, false}) {
    write_frames(tmp / "e.ndjson", expected, canonical);
    write_frames(tmp / "a.ndjson", actual, canonical);
    auto e = read_transcript(tmp / "e.ndjson");
    auto a = read_transcript(tmp / "a.ndjson");
    EXPECT_TRUE(e && a);
    auto through_files = diff_transcripts(tmp / "e.ndjson", tmp / "a.ndjson", options);
    EXPECT_TRUE(through_files);
    const DiffResult in_memory = diff_frames(*e, *a, options, (tmp / "e.ndjson").string(), (tmp / "a.ndjson").string());
    report = rendered(*through_files);
    EXPECT_EQ(report, rendered(in_memory)) << (canonical ? "canonical lines" : "other line form");
  }
  return report;
}

Frames session(const std::string& version, const std::string& later_version, const std::string& text) {
  return {{Direction::client, initialize(1, version)},
          {Direction::server, response(1)},
          {Direction::client, request(2, "hello")},
          {Direction::server, response(2)},
          {Direction::client, initialize(3, later_version)},
          {Direction::server, response(3)},
          {Direction::client, request(4, text)},
          {Direction::server, response(4)}};
}

TEST(DifferTailTwins, ATwinHoldingNoContestedValueIsIdentical) {
  const std::string report = expect_paths_agree(session("1.0", "5.0", "plain"), session("2.0", "5.0", "plain"));
  EXPECT_NE(report.find("equivalent: 8 frames (7 identical, 1 equivalent, 0 divergent"), std::string::npos) << report;
}

TEST(DifferTailTwins, ATwinHoldingAContestedValueStillBreaksTheBijection) {
  // Line 5 is the same on both sides and names version 1.0 again, which line 1 paired with 2.0.
  const std::string report = expect_paths_agree(session("1.0", "1.0", "plain"), session("2.0", "1.0", "plain"));
  EXPECT_NE(report.find("divergent client request initialize"), std::string::npos) << report;
  EXPECT_NE(report.find("already paired"), std::string::npos) << report;
}

TEST(DifferTailTwins, AContestedValueSpelledWithEscapesIsStillFound) {
  // The twin spells 1.0 as "\u0031.0": no memmem finds it, so the twin is parsed.
  Frames e = session("1.0", "x", "plain"), a = session("2.0", "x", "plain");
  e[4].second = a[4].second = R"({"jsonrpc":"2.0","id":3,"method":"initialize","params":{"clientInfo":{"name":"c","version":"\u0031.0"}}})";
  const std::string report = expect_paths_agree(e, a);
  EXPECT_NE(report.find("divergent client request initialize"), std::string::npos) << report;
}

TEST(DifferTailTwins, ALaterPairOfOtherFramesSeesThePairingsOfTheTwinsBeforeIt) {
  // Line 5 is a twin naming version 5.0 (paired with itself); line 7 differs and pairs 5.0 with 6.0:
  // the twin before it must have been read for that conflict to be seen.
  Frames e = session("1.0", "5.0", "plain"), a = session("2.0", "5.0", "plain");
  e[6].second = initialize(4, "5.0");
  a[6].second = initialize(4, "6.0");
  const std::string report = expect_paths_agree(e, a);
  EXPECT_NE(report.find("already paired"), std::string::npos) << report;
}

}  // namespace
}  // namespace msptk
