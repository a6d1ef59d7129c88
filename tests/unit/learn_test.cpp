// learn/: declarations found from recordings of the same script, classified (unify, typed
// erase), proved minimal (a path msptk already unifies is not declared), and what cannot be
// declared away (a path fixed in some frames, other lengths) reported as obstacles.
#include "test_support.hpp"

#include "msptk/learn/learn.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace msptk::learn {
namespace {

namespace fs = std::filesystem;

std::string line(std::string_view dir, const std::string& raw) {
  std::string escaped;
  for (char c : raw) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return fmt::format("{{\"dir\":\"{}\",\"raw\":\"{}\"}}\n", dir, escaped);
}

// One run: a session started with a minted id, then `notes` notifications carrying it and a time.
fs::path run(const fs::path& dir, const std::string& session, int at, const std::string& status = "idle") {
  fs::create_directories(dir);
  std::string t;
  t += line("client", R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}})");
  t += line("server", R"({"jsonrpc":"2.0","id":1,"result":{}})");
  t += line("client", R"({"jsonrpc":"2.0","method":"initialized"})");
  t += line("client", R"({"jsonrpc":"2.0","id":2,"method":"session/start","params":{}})");
  t += line("server", fmt::format(R"({{"jsonrpc":"2.0","id":2,"result":{{"session":{{"sessionId":"{}","status":"{}"}}}}}})",
                                  session, status));
  t += line("server", fmt::format(R"({{"jsonrpc":"2.0","method":"session/ping","params":{{"sessionId":"{}","at":{}}}}})",
                                  session, at));
  t += line("server", fmt::format(R"({{"jsonrpc":"2.0","method":"session/ping","params":{{"sessionId":"{}","at":{}}}}})",
                                  session, at + 7));
  test::write_text(dir / "transcript.ndjson", t);
  return dir;
}

TEST(Learn, DeclaresWhatVariesEachAsItVariesAndOnlyWhatIsNeeded) {
  test::TempDir tmp;
  auto result = learn({run(tmp / "a", "s-1", 100), run(tmp / "b", "s-2", 205), run(tmp / "c", "s-3", 311)});
  ASSERT_TRUE(result) << result.error().render();
  ASSERT_TRUE(result->ok()) << result->obstacles.front().message;
  ASSERT_EQ(result->declarations.size(), 3u);
  EXPECT_EQ(result->declarations[0].path, "result.session.sessionId");
  EXPECT_EQ(result->declarations[0].compare, PathCompare{});
  EXPECT_EQ(result->declarations[1].path, "params.sessionId");
  EXPECT_EQ(result->declarations[2].path, "params.at");
  EXPECT_EQ(result->declarations[2].compare, (PathCompare{MaskMode::erase, ValueCheck::non_negative_integer}));
  EXPECT_EQ(result->pairs, 3u);
  EXPECT_EQ(result->corpus_file, fs::weakly_canonical(tmp.path()) / "msptk-corpus.json");
}

TEST(Learn, AValueThatVariesInSomeFramesOnlyIsAnObstacle) {
  test::TempDir tmp;
  // `at` is the same in every run in the first ping and differs in the second.
  auto a = run(tmp / "a", "s-1", 100);
  auto b = run(tmp / "b", "s-2", 100);
  std::string text = test::read_text(b / "transcript.ndjson");
  text.replace(text.rfind("107"), 3, "999");
  test::write_text(b / "transcript.ndjson", text);
  auto result = learn({a, b});
  ASSERT_TRUE(result);
  ASSERT_FALSE(result->ok());
  EXPECT_NE(result->obstacles.front().message.find("params.at differs between the runs"), std::string::npos)
      << result->obstacles.front().message;
  EXPECT_TRUE(result->declarations.empty());
}

TEST(Learn, FewerThanTwoRecordingsIsAUsageError) {
  test::TempDir tmp;
  auto result = learn({run(tmp / "a", "s-1", 1)});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ErrorKind::usage);
}

}  // namespace
}  // namespace msptk::learn
