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
    ASSERT_TRUE(writer->commit());  // uncommitted, the log is taken back (the host never ran)
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

TEST(WireLog, TimesThatAreNegativeOrGoBackwardsAreRefused) {
  const fs::path file = temp_file("time");
  auto read_lines = [&](const std::string& text) {
    std::ofstream(file) << text;
    return read_wire_log(file);
  };
  auto chunks = read_lines(wire_log_line(1, C, -5, "x"));
  ASSERT_FALSE(chunks);
  EXPECT_EQ(chunks.error().line, 1u);
  EXPECT_EQ(chunks.error().rule, "wirelog.time");
  EXPECT_NE(chunks.error().message.find("is -5"), std::string::npos) << chunks.error().message;
  chunks = read_lines(wire_log_line(1, C, 10, "x") + wire_log_line(2, S, 10, "y") + wire_log_line(3, C, 9, "z"));
  ASSERT_FALSE(chunks);
  EXPECT_EQ(chunks.error().line, 3u);
  EXPECT_EQ(chunks.error().rule, "wirelog.time");
  EXPECT_NE(chunks.error().message.find("before the 10 of chunk 2 (line 2)"), std::string::npos)
      << chunks.error().message;
  // Equal times (two reads within a microsecond) are in order.
  chunks = read_lines(wire_log_line(1, C, 0, "x") + wire_log_line(2, S, 0, "y"));
  EXPECT_TRUE(chunks) << chunks.error().render();
  fs::remove(file);
}

fs::perms perms_of(const fs::path& path) { return fs::status(path).permissions() & fs::perms::all; }

TEST(WireLog, TheWriterCreatesANewPrivateFileAndTakesItBackUntilCommitted) {
  const fs::path dir = temp_file("new");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path log = dir / "session.wire", target = dir / "target", link = dir / "link";
  std::ofstream(log) << "an older log\n";
  std::ofstream(target) << "not a wire log\n";
  fs::create_symlink(target, link);
  auto text = [](const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  // An existing file, and a symbolic link (to a file, or dangling): refused, nothing written.
  for (const fs::path& taken : {log, link}) {
    auto writer = WireLogWriter::create(taken);
    ASSERT_FALSE(writer);
    EXPECT_EQ(writer.error().kind, ErrorKind::usage);
    EXPECT_NE(writer.error().message.find("already exists"), std::string::npos) << writer.error().message;
  }
  fs::create_symlink(dir / "nowhere", dir / "dangling");
  EXPECT_FALSE(WireLogWriter::create(dir / "dangling"));
  EXPECT_FALSE(fs::exists(dir / "nowhere"));
  EXPECT_EQ(text(log), "an older log\n");
  EXPECT_EQ(text(target), "not a wire log\n");
  // A new file, never committed (the host could not be spawned): removed again.
  { ASSERT_TRUE(WireLogWriter::create(dir / "fresh.wire")); }
  EXPECT_FALSE(fs::exists(dir / "fresh.wire"));
  // Replacing (--force): the old file is untouched until commit, then replaced by a 0600 file;
  // a symbolic link is replaced itself, its target never written.
  fs::permissions(log, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  for (const fs::path& taken : {log, link}) {
    auto writer = WireLogWriter::create(taken, [] { return 1; }, /*replace=*/true);
    ASSERT_TRUE(writer) << writer.error().render();
    writer->append(C, "secret");
    EXPECT_TRUE(fs::is_symlink(link) || taken == log);
    ASSERT_TRUE(writer->commit());
  }
  EXPECT_FALSE(fs::is_symlink(link));
  EXPECT_EQ(text(target), "not a wire log\n");
  EXPECT_EQ(text(log), wire_log_line(1, C, 1, "secret"));
  EXPECT_EQ(perms_of(log), fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(perms_of(link), fs::perms::owner_read | fs::perms::owner_write);
  {
    auto uncommitted = WireLogWriter::create(log, {}, /*replace=*/true);
    ASSERT_TRUE(uncommitted);
    uncommitted->append(C, "other");
  }
  EXPECT_EQ(text(log), wire_log_line(1, C, 1, "secret"));  // as it was
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 4);  // no stray file
  fs::remove_all(dir);
}

TEST(WireLog, TheRebuiltTranscriptIsPrivateAndNeverOneOfTheInputs) {
  const fs::path dir = temp_file("rebuild");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path log = dir / "session.wire";
  std::ofstream(log) << wire_log_line(1, C, 0, "{\"a\":1}\n");
  auto chunks = read_wire_log(log);
  ASSERT_TRUE(chunks);
  const WireAnalysis analysis = analyze(*chunks);
  const fs::path out = dir / "rebuilt.ndjson";
  std::ofstream(out) << "old\n";
  fs::permissions(out, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  ASSERT_TRUE(write_rebuilt(analysis, out, {log}));
  EXPECT_EQ(perms_of(out), fs::perms::owner_read | fs::perms::owner_write);
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, R"({"dir":"client","raw":"{\"a\":1}"})");
  // The input under any name: the same path, another spelling, a symbolic link, a hard link.
  fs::create_symlink(log, dir / "link.wire");
  fs::create_hard_link(log, dir / "hard.wire");
  const std::string before = wire_log_line(1, C, 0, "{\"a\":1}\n");
  for (const fs::path& same : {log, dir / "." / "session.wire", dir / "link.wire", dir / "hard.wire"}) {
    auto refused = write_rebuilt(analysis, same, {log});
    ASSERT_FALSE(refused) << same;
    EXPECT_EQ(refused.error().kind, ErrorKind::usage);
    EXPECT_NE(refused.error().message.find("the same file"), std::string::npos) << refused.error().message;
    std::ifstream again(log);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(again), {}), before);
  }
  fs::remove_all(dir);
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
