// msptk show on anything: a frame of very many values is summarized from its pruned text (the
// same envelope and summary as from the whole frame), `--frame N` lays a frame out a line at a
// time within the nesting limit and shows a deeper one as sent, and a stream it would read twice
// is refused.
#include "test_support.hpp"

#include "msptk/normalizer/pretty.hpp"
#include "msptk/show/prune.hpp"
#include "msptk/show/render.hpp"
#include "msptk/show/show.hpp"
#include "msptk/show/summary.hpp"
#include "msptk/transcript/input_file.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/reader.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <sstream>

namespace msptk {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using test::write_text;

std::string repeat(std::string_view item, std::size_t n, std::string_view sep = ",") {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    if (i) out += sep;
    out += item;
  }
  return out;
}

struct Seen {
  Envelope envelope;
  std::string summary;
};

Seen see(std::string_view text) {
  auto value = parse_json(text);
  EXPECT_TRUE(value) << text.substr(0, 200);
  if (!value) return {};
  const Envelope envelope = classify(*value);
  return Seen{envelope, show::summarize(*value, envelope)};
}

void expect_same_as_pruned(const std::string& text) {
  std::string pruned;
  show::prune_for_summary(text, pruned);
  ASSERT_TRUE(parse_json(pruned)) << pruned.substr(0, 300);
  const Seen whole = see(text), cut = see(pruned);
  EXPECT_EQ(cut.envelope.kind, whole.envelope.kind) << text.substr(0, 200);
  EXPECT_EQ(cut.envelope.method, whole.envelope.method);
  EXPECT_EQ(cut.envelope.is_error, whole.envelope.is_error);
  EXPECT_EQ(cut.envelope.problem, whole.envelope.problem);
  EXPECT_EQ(cut.summary, whole.summary) << text.substr(0, 200);
}

TEST(ShowPrune, APrunedFrameHasTheEnvelopeAndSummaryOfTheWholeOne) {
  const std::string big_array = "[" + repeat("12345", 200000) + "]";
  const std::string long_text = "\"" + repeat("a\\n\\u00e9\xc3\xa9", 5000, "") + "\"";
  const std::string emoji = "\"" + repeat("\\ud83d\\ude00", 300, "") + "\"";
  for (const std::string& text : {
           R"({"jsonrpc":"2.0","id":1,"result":{"values":)" + big_array + R"(,"status":"done","turnId":"t1"}})",
           R"({"jsonrpc":"2.0","id":2,"result":)" + big_array + "}",
           R"({"jsonrpc":"2.0","id":3,"result":[)" + repeat(R"([[1,2],[3,[4,{"k":"v"}]],{}])", 5000) + "]}",
           R"({"jsonrpc":"2.0","id":4,"error":{"data":)" + big_array + R"(,"code":-32000,"message":"boom"}})",
           R"({"jsonrpc":"2.0","id":5,"error":{"data":)" + big_array + R"(,"code":"x","message":"boom"}})",
           R"({"jsonrpc":"2.0","id":6,"method":"item/delta","params":{"delta":)" + long_text + R"(,"itemId":"i"}})",
           R"({"jsonrpc":"2.0","id":7,"method":"m","params":{"a":)" + emoji + R"(,"b":[]}})",
           R"({"jsonrpc":"2.0","method":"n","params":{)" + repeat(R"("k":{"x":[1,{"y":null}]})", 1, "") + "," +
               [] {
                 std::string members;
                 for (int i = 0; i < 3000; ++i) members += (i ? "," : "") + fmt::format(R"("m{}":{})", i, i);
                 return members;
               }() + "}}",
           std::string(R"({"jsonrpc":"2.0","id":8,"result":)") + repeat("[", 9, "") + "1" + repeat("]", 9, "") + "}",
           std::string(R"({"jsonrpc":"2.0","id":9,"result":)") + repeat("[", 2000, "") + repeat("]", 2000, "") + "}",
           std::string(R"( { "jsonrpc" : "2.0" , "id" : 10 , "result" : [ 1 , "two" , { } , [ ] , null ] } )"),
           std::string(R"({"jsonrpc":"2.0","id":11,"result":")") + repeat("x", 100000, "") + "\"}",
       })
    expect_same_as_pruned(text);
}

TEST(ShowPrune, EveryFrameOfARecordedSessionIsSummarizedTheSame) {
  auto reader = TranscriptReader::open(fs::path(MSPTK_SOURCE_DIR) / "tests/golden/show/session/transcript.ndjson");
  ASSERT_TRUE(reader);
  std::size_t frames = 0;
  while (auto item = reader->next()) {
    if (!*item) continue;  // a line that is not a frame
    const std::string text((*item)->json_text());
    if (!parse_json(text)) continue;  // a frame that is not JSON: its row says so, nothing is pruned
    expect_same_as_pruned(text);
    ++frames;
  }
  EXPECT_GT(frames, 20u);
}

TEST(ShowPrune, APrunedTextDoesNotGrowWithTheFramesCountOfValues) {
  std::string pruned;
  show::prune_for_summary(R"({"jsonrpc":"2.0","id":1,"result":[)" + repeat("1", 1000000) + "]}", pruned);
  EXPECT_LT(pruned.size(), 4u * show::kPruneBudget);
  show::prune_for_summary(R"({"jsonrpc":"2.0","id":1,"result":)" + repeat("[[1,2,3],", 100000, "") + "0" +
                              repeat("]", 100000, "") + "}",
                          pruned);
  EXPECT_LT(pruned.size(), 16u * show::kPruneBudget);
}

TEST(ShowPrune, ShowsAResponseOfMillionsOfNumbersWithItsSummary) {
  TempDir dir;
  const std::string request = R"({"jsonrpc":"2.0","id":1,"method":"list/values","params":{}})";
  const std::string response = R"({"jsonrpc":"2.0","id":1,"result":{"values":[)" + repeat("7", 1000000) + R"(],"status":"ok"}})";
  std::string file;
  for (auto [dir_name, raw] : {std::pair{"client", request}, std::pair{"server", response}}) {
    file += std::string("{\"dir\":\"") + dir_name + "\",\"raw\":";
    append_json_string(file, raw);
    file += "}\n";
  }
  write_text(dir / "t.ndjson", file);
  std::ostringstream out;
  show::TextRenderer text(out, {});
  auto totals = show::show_transcript(show::ShowTarget{dir / "t.ndjson", {}}, show::ShowOptions{}, text);
  ASSERT_TRUE(totals) << totals.error().render();
  EXPECT_EQ(totals->count(show::RowKind::response), 1u);
  EXPECT_TRUE(totals->unanswered.empty());
  // The summary's first 64 values are all elements of `values`: `status` comes after them.
  EXPECT_NE(out.str().find("↳ list/values"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("values[0]=7 values[1]=7 values[2]=7"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("values[23]=7 …"), std::string::npos) << out.str();
}

TEST(PrettyLines, ALineAtATimeIsPrettyJsonsLayout) {
  for (std::string text : {std::string(R"({"a":[1,{"b":"c"},[]],"d":{},"e":"\u00e9"})"), std::string("[[[[1]]]]"), std::string("7"),
                           std::string(R"( { "x" : [ 1 , 2 ] } )")}) {
    std::string joined;
    EXPECT_TRUE(for_each_pretty_line(text, 10000, [&](std::size_t depth, std::string_view line) {
      joined.append(2 * depth, ' ');
      joined += line;
      joined += '\n';
    }));
    EXPECT_EQ(joined, pretty_json(text)) << text;
  }
}

TEST(PrettyLines, ATextDeeperThanTheLimitOrNotJsonGivesNoLineAtAll) {
  std::size_t lines = 0;
  auto count = [&](std::size_t, std::string_view) { ++lines; };
  EXPECT_TRUE(for_each_pretty_line(repeat("[", 100, "") + repeat("]", 100, ""), 100, count));
  EXPECT_EQ(lines, 199u);
  lines = 0;
  EXPECT_FALSE(for_each_pretty_line(repeat("[", 101, "") + repeat("]", 101, ""), 100, count));
  EXPECT_FALSE(for_each_pretty_line(R"({"a":[1,2})", 100, count));
  EXPECT_FALSE(for_each_pretty_line(R"([1,2] x)", 100, count));
  EXPECT_EQ(lines, 0u);
}

TEST(ShowFrame, AFrameDeeperThanTheNestingLimitIsShownAsSentInOneLine) {
  const std::size_t depth = ParseLimits{}.max_depth + 1;
  const std::string raw = R"({"jsonrpc":"2.0","id":1,"result":)" + repeat("[", depth, "") + repeat("]", depth, "") + "}";
  TempDir dir;
  std::string file = "{\"dir\":\"server\",\"raw\":";
  append_json_string(file, raw);
  write_text(dir / "t.ndjson", file + "}\n");
  auto detail = show::find_frame(dir / "t.ndjson", 1);
  ASSERT_TRUE(detail) << detail.error().render();
  std::ostringstream out;
  show::render_frame_text(out, *detail, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("nested deeper than 10000 levels"), std::string::npos) << text.substr(0, 300);
  EXPECT_NE(text.find("\n" + raw + "\n"), std::string::npos);
  EXPECT_LT(text.size(), raw.size() + 1000);
}

TEST(ShowFrame, AFrameAtTheNestingLimitIsLaidOutWithoutKeepingItsLines) {
  const std::size_t depth = 2000;
  const std::string raw = R"({"jsonrpc":"2.0","id":1,"result":)" + repeat("[", depth, "") + repeat("]", depth, "") + "}";
  show::FrameDetail detail;
  detail.row.line = 1;
  detail.row.dir = Direction::server;
  detail.row.kind = show::RowKind::response;
  detail.frame.line = 1;
  detail.frame.dir = Direction::server;
  detail.frame.raw = raw;
  std::ostringstream out;
  show::render_frame_text(out, detail, out);
  const std::string text = out.str();
  // 2 lines a level, each indented two spaces a level: what pretty_json writes.
  EXPECT_EQ(text.substr(text.find('\n') + 1), pretty_json(raw));
}

TEST(InputFile, AStreamIsRefusedAFileOrFolderIsNot) {
  TempDir dir;
  write_text(dir / "file", "x");
  EXPECT_TRUE(require_rereadable(dir / "file", "show"));
  EXPECT_TRUE(require_rereadable(dir.path(), "show"));
  EXPECT_TRUE(require_rereadable(dir / "missing", "show"));  // its reader says it is missing
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  auto refused = require_rereadable(dir / "fifo", "show");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::unreadable);
  EXPECT_EQ(refused.error().file, (dir / "fifo").string());
  EXPECT_NE(refused.error().message.find("show reads its input more than once"), std::string::npos);
}

}  // namespace
}  // namespace msptk
