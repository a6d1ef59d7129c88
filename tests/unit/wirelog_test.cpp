// The wire log: lines written and read back, the analysis (frames cut across chunks, code
// points split, gaps, empty lines, tails) and the comparison of rebuilt frames with a transcript.
#include "msptk/wirelog/render.hpp"
#include "msptk/wirelog/wire_log.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace msptk::wirelog {
namespace {

namespace fs = std::filesystem;
constexpr auto C = Direction::client;
constexpr auto S = Direction::server;

fs::path temp_file(const std::string& name) {
  return fs::temp_directory_path() / ("msptk-wirelog-" + name + "-" + std::to_string(::getpid()));
}

TEST(WireLog, WritesOneLinePerChunkAndReadsThemBack) {
  const fs::path file = temp_file("rw");
  {
    std::int64_t t = 0;
    auto writer = WireLogWriter::create(file, [&] { return t += 10; });
    ASSERT_TRUE(writer);
    writer->append(C, "{\"a\":1}\n");
    writer->append(S, std::string("\xff\x00", 2));
  }
  std::ifstream in(file);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, R"({"seq":1,"dir":"client","tMicros":10,"bytes":"eyJhIjoxfQo="})");
  auto chunks = read_wire_log(file);
  ASSERT_TRUE(chunks) << chunks.error().render();
  ASSERT_EQ(chunks->size(), 2u);
  EXPECT_EQ((*chunks)[1].seq, 2u);
  EXPECT_EQ((*chunks)[1].dir, S);
  EXPECT_EQ((*chunks)[1].t_micros, 20);
  EXPECT_EQ((*chunks)[1].bytes, std::string("\xff\x00", 2));
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  fs::remove(file);
}

TEST(WireLog, ReadingNamesTheLineAndTheProblem) {
  const fs::path file = temp_file("bad");
  {
    std::ofstream out(file);
    out << wire_log_line(1, C, 0, "x") << R"({"seq":3,"dir":"client","tMicros":1,"bytes":""})" << "\n";
  }
  auto chunks = read_wire_log(file);
  ASSERT_FALSE(chunks);
  EXPECT_EQ(chunks.error().line, 2u);
  EXPECT_EQ(chunks.error().rule, "wirelog.line");
  EXPECT_NE(chunks.error().message.find("expected 2"), std::string::npos);
  {
    std::ofstream out(file);
    out << R"({"seq":1,"dir":"up","tMicros":1,"bytes":""})" << "\n";
  }
  chunks = read_wire_log(file);
  ASSERT_FALSE(chunks);
  EXPECT_NE(chunks.error().message.find("\"dir\""), std::string::npos);
  fs::remove(file);
}

std::vector<WireChunk> chunks_of(std::vector<std::pair<Direction, std::string>> parts) {
  std::vector<WireChunk> out;
  std::int64_t t = 100;
  for (auto& [dir, bytes] : parts) {
    out.push_back({out.size() + 1, dir, t, bytes, 0});
    t += out.size() * 1000;
  }
  return out;
}

TEST(WireLog, AnalysisFindsCutFramesSplitCodePointsGapsAndTails) {
  // "é" is C3 A9: the second server chunk ends after C3.
  auto chunks = chunks_of({{C, "{\"a\":1}\n{\"b\""},
                           {S, "{\"s\":\"\xc3"},
                           {S, "\xa9\"}\n\n"},
                           {C, ":2}\n{\"tail"}});
  WireAnalysis a = analyze(chunks);
  ASSERT_EQ(a.rows.size(), 4u);
  EXPECT_EQ(a.rows[0].frames_completed, 1u);
  EXPECT_EQ(a.rows[0].open_bytes, 4u);
  EXPECT_FALSE(a.rows[0].splits_code_point);
  EXPECT_TRUE(a.rows[1].splits_code_point);
  EXPECT_EQ(a.rows[2].frames_completed, 1u);
  EXPECT_EQ(a.rows[2].empty_lines, 1u);
  EXPECT_EQ(a.rows[2].open_bytes, 0u);
  EXPECT_EQ(a.rows[1].gap_micros, 1000);
  EXPECT_EQ(a.largest_gap_micros, 3000);
  EXPECT_EQ(a.largest_gap_before_seq, 4u);
  ASSERT_EQ(a.frames.size(), 3u);
  EXPECT_EQ(a.frames[0].bytes, "{\"a\":1}");
  EXPECT_FALSE(a.frames[0].cut());
  EXPECT_EQ(a.frames[1].bytes, "{\"s\":\"\xc3\xa9\"}");
  EXPECT_EQ(a.frames[1].first_seq, 2u);
  EXPECT_EQ(a.frames[1].last_seq, 3u);
  EXPECT_EQ(a.frames[2].bytes, "{\"b\":2}");
  EXPECT_EQ(a.frames[2].first_seq, 1u);
  EXPECT_EQ(a.client.cut_frames, 1u);
  EXPECT_EQ(a.server.cut_frames, 1u);
  EXPECT_EQ(a.client.unterminated, 6u);
  EXPECT_EQ(a.server.empty_lines, 1u);

  std::ostringstream table;
  render_table(table, "w.log", a);
  EXPECT_NE(table.str().find("frame open (7 bytes so far), code point split"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("client: 2 chunks, 22 bytes, 2 frames (1 cut across chunks), 6 bytes after the last LF"),
            std::string::npos)
      << table.str();
}

TEST(WireLog, ComparisonWithATranscriptNamesTheLine) {
  WireAnalysis a = analyze(chunks_of({{C, "{\"a\":1}\n"}, {S, "{\"s\":1}\n"}}));
  std::vector<Frame> same = {{C, "{\"a\":1}", std::nullopt, 1}, {S, "{\"s\":1}", std::nullopt, 2}};
  EXPECT_TRUE(compare_with_transcript(a, same).same());
  std::vector<Frame> other = {{C, "{\"a\":1}", std::nullopt, 1}, {S, "{\"s\":2}", std::nullopt, 2},
                              {S, "{}", std::nullopt, 3}};
  RebuildCheck check = compare_with_transcript(a, other);
  ASSERT_EQ(check.mismatches.size(), 2u);
  EXPECT_EQ(check.mismatches[0].line, 2u);
  EXPECT_NE(check.mismatches[0].message.find("at byte 6"), std::string::npos) << check.mismatches[0].message;
  EXPECT_EQ(check.mismatches[1].line, 3u);
  std::ostringstream text;
  render_check(text, "w.log", check, "t.ndjson");
  EXPECT_NE(text.str().find("t.ndjson:2: rebuilt server frame 2"), std::string::npos) << text.str();
}

}  // namespace
}  // namespace msptk::wirelog
