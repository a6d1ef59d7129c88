// msptk show: rows, folding, pairing, summaries, the wire-log timeline, pretty JSON and the
// HTML toolkit's highlighting.
#include "test_support.hpp"

#include "msptk/html/page.hpp"
#include "msptk/normalizer/pretty.hpp"
#include "msptk/show/render.hpp"
#include "msptk/show/show.hpp"
#include "msptk/show/summary.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/writer.hpp"
#include "msptk/wirelog/timeline.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sstream>

namespace msptk {
namespace {

namespace fs = std::filesystem;

std::string line(std::string_view dir, std::string_view raw) {
  std::string out = "{\"dir\":\"" + std::string(dir) + "\",\"raw\":";
  append_json_string(out, raw);
  return out + "}\n";
}

struct Collect final : show::RowSink {
  void begin(const std::string&, const std::vector<std::string>&) override {}
  void fold_member(const show::Row& row) override { members.push_back(row.line); }
  void row(const show::Row& row) override { rows.push_back(row); }
  void end(const show::Totals& t) override { totals = t; }
  std::vector<show::Row> rows;
  std::vector<std::size_t> members;
  show::Totals totals;
};

fs::path session(const test::TempDir& dir) {
  std::string text;
  text += line("client", R"({"jsonrpc":"2.0","id":1,"method":"turn/start","params":{"text":"hi"}})");
  text += line("server", R"({"jsonrpc":"2.0","id":1,"result":{"status":"accepted","turnId":"t"}})");
  for (int i = 0; i < 4; ++i) text += line("server", R"({"jsonrpc":"2.0","method":"item/delta","params":{"delta":"x"}})");
  text += line("server", R"({"jsonrpc":"2.0","method":"item/completed","params":{}})");
  text += line("server", R"({"jsonrpc":"2.0","method":"item/delta","params":{"delta":"y"}})");
  text += line("server", R"({"jsonrpc":"2.0","method":"item/delta","params":{"delta":"z"}})");
  text += line("client", R"({"jsonrpc":"2.0","id":2,"method":"turn/interrupt"})");
  text += line("server", R"({"jsonrpc":"2.0","method":"turn/completed"})");
  text += line("server", R"({"jsonrpc":"2.0","id":2,"error":{"code":-32030,"message":"no"}})");
  text += line("server", R"({"jsonrpc":"2.0","id":7,"result":{}})");
  text += line("client", R"({"jsonrpc":"2.0","id":3,"method":"session/list"})");
  const fs::path file = dir.path() / "t.ndjson";
  test::write_text(file, text);
  return file;
}

TEST(Show, PairsFoldsAndMarks) {
  test::TempDir dir;
  Collect sink;
  auto totals = show::show_transcript({session(dir), {}}, {}, sink);
  ASSERT_TRUE(totals) << totals.error().render();
  std::vector<std::size_t> lines;
  for (const auto& r : sink.rows) lines.push_back(r.line);
  // 3-6 fold into one row; the run of two (8, 9) is not folded.
  EXPECT_EQ(lines, (std::vector<std::size_t>{1, 2, 3, 7, 8, 9, 10, 11, 12, 13, 14}));
  EXPECT_EQ(sink.members, (std::vector<std::size_t>{3, 4, 5, 6}));
  const show::Row& fold = sink.rows[2];
  EXPECT_EQ(fold.count, 4u);
  EXPECT_EQ(fold.last_line, 6u);
  EXPECT_EQ(fold.method, "item/delta");
  const show::Row& response = sink.rows[1];
  EXPECT_EQ(response.kind, show::RowKind::response);
  EXPECT_EQ(response.method, "turn/start");  // named after its request
  EXPECT_TRUE(response.under_request);
  EXPECT_EQ(response.summary, "status=\"accepted\" turnId=\"t\"");  // what happened first, ids last
  const show::Row& error = sink.rows[8];
  EXPECT_EQ(error.kind, show::RowKind::error);
  EXPECT_EQ(error.method, "turn/interrupt");
  EXPECT_FALSE(error.under_request);  // a notification came between
  EXPECT_EQ(error.request_line, 10u);
  EXPECT_TRUE(sink.rows[9].unmatched);
  EXPECT_TRUE(sink.rows[10].unanswered);
  EXPECT_FALSE(sink.rows[0].unanswered);
  EXPECT_EQ(totals->frames, 14u);
  EXPECT_EQ(totals->count(show::RowKind::notification), 8u);
  ASSERT_EQ(totals->unanswered.size(), 1u);
  EXPECT_EQ(totals->unanswered[0].line, 14u);
  EXPECT_EQ(show::totals_line(*totals),
            "14 frames: 3 requests, 2 responses, 8 notifications, 1 error; unanswered: session/list id 3 (line 14)");
}

// The rows do not depend on how a line spells its frame: the writer's form, CR LF line ends,
// the raw's characters written as \u escapes of the line, rawBase64. (show's first pass looks
// at the writer's form undecoded, and a folded run's members are checked by a scan that declines
// what it does not understand: every spelling must reach the same verdict.)
TEST(Show, EverySpellingOfALineGivesTheSameRows) {
  test::TempDir dir;
  const fs::path canonical = session(dir);
  const std::string text = test::read_text(canonical);
  std::string crlf, escaped, base64;
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) {
    crlf += l + "\r\n";
    const std::string dir_name = l.substr(8, 6);
    auto frame = parse_transcript_line(l, "t", 1);
    ASSERT_TRUE(frame);
    std::string spelled = "{\"raw\": \"";
    for (char c : frame->raw) spelled += (c == '"' || c == 'i' || c == 'd') ? fmt::format("\\u{:04x}", c) : std::string(1, c);
    escaped += spelled + "\", \"dir\": \"" + dir_name + "\"}\n";
    base64 += "{\"dir\":\"" + dir_name + "\",\"rawBase64\":\"" + base64_encode(frame->raw) + "\",\"raw\":";
    append_json_string(base64, frame->raw);
    base64 += "}\n";
  }
  auto rows_of = [&](const std::string& body) {
    const fs::path file = dir.path() / "spelled.ndjson";
    test::write_text(file, body);
    Collect sink;
    auto totals = show::show_transcript({file, {}}, {}, sink);
    EXPECT_TRUE(totals) << totals.error().render();
    std::vector<std::string> out;
    for (const show::Row& r : sink.rows)
      out.push_back(fmt::format("{} {} {} {} {} {} {} {}", r.line, r.count, show::to_string(r.kind), r.method, r.id, r.summary,
                                r.unanswered, r.unmatched));
    out.push_back(show::totals_line(sink.totals));
    return out;
  };
  const auto expected = rows_of(text);
  EXPECT_EQ(rows_of(crlf), expected);
  EXPECT_EQ(rows_of(escaped), expected);
  EXPECT_EQ(rows_of(base64), expected);
}

// A run's members are each checked in full: one that is not JSON, or not a notification, ends
// the run as its own row; members the fast scan declines (a \u escape, a fraction) still fold.
TEST(Show, AFoldedRunChecksEachMember) {
  test::TempDir dir;
  std::string text;
  for (int i = 0; i < 3; ++i) text += line("server", R"({"jsonrpc":"2.0","method":"item/delta","params":{"delta":"x"}})");
  text += line("server", R"({"jsonrpc":"2.0","method":"item/delta","params":{"delta":"\u00e9","score":0.5}})");
  text += line("server", R"({"jsonrpc":"2.0","method":"item/delta","params":{"delta":"x","delta":"y"}})");
  text += line("server", R"({"jsonrpc":"2.0","method":"item/delta","params":{"delta":"x"}})");
  text += line("server", R"({"jsonrpc":"2.0","method":"item/delta","id":5,"params":{"delta":"x"}})");
  const fs::path file = dir.path() / "t.ndjson";
  test::write_text(file, text);
  Collect sink;
  auto totals = show::show_transcript({file, {}}, {}, sink);
  ASSERT_TRUE(totals) << totals.error().render();
  ASSERT_EQ(sink.rows.size(), 4u);
  EXPECT_EQ(sink.rows[0].count, 4u);  // lines 1-4: the fourth declined by the scan, still a member
  EXPECT_EQ(sink.rows[0].last_line, 4u);
  EXPECT_EQ(sink.rows[1].kind, show::RowKind::invalid);  // a duplicate member
  EXPECT_NE(sink.rows[1].summary.find("duplicate member"), std::string::npos) << sink.rows[1].summary;
  EXPECT_EQ(sink.rows[2].line, 6u);
  EXPECT_EQ(sink.rows[3].kind, show::RowKind::server_request);
  EXPECT_TRUE(sink.rows[3].unanswered);
}

TEST(Show, AllFoldsNothingAndFiltersApply) {
  test::TempDir dir;
  const fs::path file = session(dir);
  Collect all;
  show::ShowOptions options;
  options.fold = false;
  ASSERT_TRUE(show::show_transcript({file, {}}, options, all));
  EXPECT_EQ(all.rows.size(), 14u);
  Collect some;
  options.methods = {"turn/*"};
  options.lines = show::LineRange{2, 11};
  ASSERT_TRUE(show::show_transcript({file, {}}, options, some));
  std::vector<std::size_t> lines;
  for (const auto& r : some.rows) lines.push_back(r.line);
  EXPECT_EQ(lines, (std::vector<std::size_t>{2, 10, 11}));
}

TEST(Show, LineRangeParses) {
  EXPECT_EQ(show::parse_line_range("3-9")->last, 9u);
  EXPECT_EQ(show::parse_line_range("3-")->last, 0u);
  EXPECT_EQ(show::parse_line_range("4")->first, 4u);
  EXPECT_FALSE(show::parse_line_range("9-3"));
  EXPECT_FALSE(show::parse_line_range("x"));
  EXPECT_FALSE(show::parse_line_range("0-2"));
}

TEST(Show, SummaryCutsLongTextAndNamesArrayElements) {
  auto v = parse_json(R"({"jsonrpc":"2.0","method":"m","params":{"a":[1,2],"text":")" + std::string(100, 'x') + R"("}})");
  ASSERT_TRUE(v);
  const std::string s = show::summarize(*v, classify(*v));
  EXPECT_EQ(s, "text=\"" + std::string(47, 'x') + "…\" a[0]=1 a[1]=2");
  EXPECT_EQ(show::cut_to_columns("héllo", 3), "hé…");
  EXPECT_EQ(show::columns_of("→é"), 2u);
}

// What happened leads: the delta's text, a status, an item's kind and text, an error's code and
// message; bookkeeping and ids come last, each id said once a session; a shared name or a nested
// `id` says its parent.
TEST(Show, SummaryLeadsWithWhatHappenedAndNamesIdsOnce) {
  auto summary = [](std::string_view text, show::SummaryMemory* memory) {
    auto v = parse_json(text);
    EXPECT_TRUE(v) << text;
    return show::summarize(*v, classify(*v), memory);
  };
  show::SummaryMemory memory;
  EXPECT_EQ(summary(R"({"jsonrpc":"2.0","method":"item/delta","params":{"sessionId":"s1","itemId":"i1","delta":"Hel"}})", &memory),
            R"(delta="Hel" sessionId="s1" itemId="i1")");
  EXPECT_EQ(summary(R"({"jsonrpc":"2.0","method":"item/delta","params":{"sessionId":"s1","itemId":"i1","delta":"lo"}})", &memory),
            R"(delta="lo")");
  EXPECT_EQ(summary(R"({"jsonrpc":"2.0","method":"item/completed","params":{"sessionId":"s1","viewCursor":"v:1",)"
                    R"("sourceRange":{"stream":{"kind":"run","id":"r1"}},"item":{"id":"i2","kind":"agentMessage","text":"Hi","n":1}}})",
                    &memory),
            R"(item.kind="agentMessage" text="Hi" stream.kind="run" n=1 viewCursor="v:1" stream.id="r1" item.id="i2")");
  EXPECT_EQ(summary(R"({"jsonrpc":"2.0","id":4,"error":{"code":-32030,"message":"no such turn","data":{"kind":"x"}}})", &memory),
            R"(code=-32030 message="no such turn" kind="x")");
  EXPECT_EQ(summary(R"({"jsonrpc":"2.0","method":"turn/completed","params":{"turnId":"t1","sequence":3,"terminal":"completed"}})", &memory),
            R"(terminal="completed" sequence=3 turnId="t1")");
  // Nothing but ids said before: nothing new to say.
  EXPECT_EQ(summary(R"({"jsonrpc":"2.0","method":"x","params":{"sessionId":"s1"}})", &memory), "");
  // An id spelled as a word says something: it is among the other values.
  EXPECT_EQ(summary(R"({"jsonrpc":"2.0","method":"approval/decide","params":{"commandId":"c1","choiceId":"allow_session"}})", &memory),
            R"(choiceId="allow_session" commandId="c1")");
  // Without a memory every id is named.
  EXPECT_EQ(summary(R"({"jsonrpc":"2.0","method":"item/delta","params":{"sessionId":"s1","delta":"lo"}})", nullptr),
            R"(delta="lo" sessionId="s1")");
}

TEST(Html, MarksTheChangedCharactersAndFoldsLinesFarFromAChange) {
  EXPECT_EQ(html::changed_chars_html("\"accepted\"", "\"rejected\""), "&quot;<b class=\"ch\">accep</b>ted&quot;");
  EXPECT_EQ(html::changed_chars_html("\"é1\"", "\"é2\""), "&quot;é<b class=\"ch\">1</b>&quot;");
  EXPECT_EQ(html::changed_chars_html("12", "12"), "12");
  EXPECT_EQ(html::changed_chars_html("1", "12"), "1");
  std::string frame = "{";
  for (int i = 0; i < 40; ++i) frame += fmt::format("{}\"m{}\":{}", i ? "," : "", i, i);
  frame += "}";
  const std::string html = html::pretty_json_html(frame, {html::Highlight{"m10", "hl", "10", "1000"}}, html::PrettyHtmlOptions{400, 400, 3});
  EXPECT_NE(html.find("<mark class=\"hl\">  &quot;m10&quot;: 10,</mark>"), std::string::npos) << html;
  // "{" and m0..m6 are more than 3 lines from m10 (line 11); m7..m13 are kept; m14..m39 and "}" folded.
  EXPECT_NE(html.find("<details class=\"ctx\"><summary>⋯ 8 unchanged lines</summary>{\n"), std::string::npos) << html;
  EXPECT_NE(html.find("<details class=\"ctx\"><summary>⋯ 27 unchanged lines</summary>  &quot;m14&quot;"), std::string::npos) << html;
  EXPECT_NE(html.find("  &quot;m7&quot;: 7,\n"), std::string::npos);
  const std::string same = html::pretty_json_html(frame, {html::Highlight{"m10", "hl", "10", "11"}}, html::PrettyHtmlOptions{400, 400, 3});
  EXPECT_NE(same.find("<mark class=\"hl\">  &quot;m10&quot;: 1<b class=\"ch\">0</b>,</mark>"), std::string::npos) << same;
  // A small frame is shown whole.
  EXPECT_EQ(html::pretty_json_html(R"({"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9})", {html::Highlight{"a", "hl", "1", "2"}},
                                   html::PrettyHtmlOptions{400, 400, 1})
                .find("ctx"),
            std::string::npos);
}

TEST(Show, TimelineGivesEachFrameTheChunkThatCompletedIt) {
  test::TempDir dir;
  const fs::path log = dir.path() / "wire.log";
  test::write_text(log, "{\"seq\":1,\"dir\":\"client\",\"tMicros\":10,\"bytes\":\"" + base64_encode("{\"a\":1}\n{\"b\"") + "\"}\n" +
                            "{\"seq\":2,\"dir\":\"server\",\"tMicros\":20,\"bytes\":\"" + base64_encode("\n{}\n") + "\"}\n" +
                            "{\"seq\":3,\"dir\":\"client\",\"tMicros\":30,\"bytes\":\"" + base64_encode(":2}\n") + "\"}\n");
  auto timeline = wirelog::FrameTimeline::open(log);
  ASSERT_TRUE(timeline);
  std::vector<std::pair<std::int64_t, std::int64_t>> times;
  while (auto t = timeline->next()) {
    ASSERT_TRUE(*t);
    times.emplace_back((*t)->first_micros, (*t)->micros);
  }
  // The server's empty line is no frame; the client's second frame began at 10, ended at 30.
  EXPECT_EQ(times, (std::vector<std::pair<std::int64_t, std::int64_t>>{{10, 10}, {20, 20}, {10, 30}}));
}

TEST(Pretty, KeepsTokensAndKnowsLocations) {
  auto laid = pretty_lines(R"( {"a":1e3,"b":[true,{"c\u002e":"\u00e9"}],"d":{},"e":[]} )");
  ASSERT_TRUE(laid);
  std::vector<std::string> text, where;
  for (const auto& l : laid->lines) {
    text.push_back(std::string(2 * l.depth, ' ') + l.text);
    where.push_back(l.location);
  }
  EXPECT_EQ(text, (std::vector<std::string>{"{", "  \"a\": 1e3,", "  \"b\": [", "    true,", "    {", "      \"c\\u002e\": \"\\u00e9\"",
                                            "    }", "  ],", "  \"d\": {},", "  \"e\": []", "}"}));
  EXPECT_EQ(where, (std::vector<std::string>{"", "a", "b", "b[0]", "b[1]", "b[1][\"c.\"]", "b[1]", "b", "d", "e", ""}));
  EXPECT_FALSE(pretty_lines("{\"a\":"));
  EXPECT_FALSE(pretty_lines("[1}"));
  EXPECT_EQ(pretty_json("nope{"), "nope{\n");
  EXPECT_TRUE(location_within("b[1].c", "b"));
  EXPECT_TRUE(location_within("b", ""));
  EXPECT_FALSE(location_within("bb", "b"));
}

TEST(Html, HighlightsThePlacesAndEscapes) {
  const std::string html = html::pretty_json_html(R"({"a":{"x":"<b>"},"b":2})", {"a"});
  EXPECT_EQ(html,
            "{\n<mark class=\"hl\">  &quot;a&quot;: {</mark>\n<mark class=\"hl\">    &quot;x&quot;: &quot;&lt;b&gt;&quot;</mark>\n"
            "<mark class=\"hl\">  },</mark>\n  &quot;b&quot;: 2\n}\n");
  EXPECT_EQ(html::escape("a&'\""), "a&amp;&#39;&quot;");
  EXPECT_EQ(html::anchor("s-", "a/b_c"), "s-a_2fb__c");
}

}  // namespace
}  // namespace msptk
