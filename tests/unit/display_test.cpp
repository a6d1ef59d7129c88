#include "msptk/transcript/display.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "msptk/validator/render.hpp"
#include "msptk/validator/validator.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace msptk {
namespace {

TEST(Display, ControlBytesAndInvalidUtf8BecomeVisibleEscapes) {
  EXPECT_EQ(display_text("plain / path é ✓"), "plain / path é ✓");
  EXPECT_EQ(display_text(std::string("a\x1b[2Jb\nc\rd\te\x7f", 13) + std::string(1, '\0')), "a\\x1b[2Jb\\nc\\rd\\te\\x7f\\x00");
  EXPECT_EQ(display_text("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(display_text("\xc2\x9b" "31m"), "\\u009b31m");  // C1 CSI
  EXPECT_EQ(display_text("\xe2\x82"), "\\xe2\\x82");       // a cut sequence
  EXPECT_EQ(display_text("back\\slash"), "back\\slash");
}

TEST(Display, JsonOutputIsValidUtf8WhateverTheBytes) {
  std::string out;
  append_json_string(out, "dir-\xff-name\x1b");
  EXPECT_EQ(out, "\"dir-\xEF\xBF\xBD-name\\u001b\"");
  EXPECT_TRUE(parse_json(out));
}

TEST(Display, ValidateReportsAFolderNamedWithByteFFAsValidJsonAndTextOnOneLine) {
  test::TempDir tmp;
  const auto dir = tmp / "bad-\xff\x1b[2J";
  std::filesystem::create_directories(dir);
  { std::ofstream(dir / "manifest.json") << R"({"kind":"mspTranscript","schemaVersion":1,"scenario":"x\u001b[31m\nfake: ok"})"; }
  { std::ofstream(dir / "transcript.ndjson") << ""; }
  ValidateOptions options;
  ValidationReport report = validate_paths({dir}, options);
  std::ostringstream json_out;
  render_json(report, json_out);
  auto doc = parse_json(json_out.str());
  ASSERT_TRUE(doc) << doc.error().describe();
  EXPECT_NE(json_out.str().find("bad-\xEF\xBF\xBD"), std::string::npos);
  std::ostringstream text, err;
  render_text(report, text, err);
  const std::string all = text.str() + err.str();
  EXPECT_EQ(all.find('\x1b'), std::string::npos) << all;
  EXPECT_EQ(all.find('\xff'), std::string::npos) << all;
  EXPECT_NE(all.find("bad-\\xff\\x1b[2J"), std::string::npos) << all;
  // Every line is one finding or a summary: the manifest's newline did not start a line.
  std::istringstream lines(all);
  for (std::string line; std::getline(lines, line);) EXPECT_EQ(line.rfind("fake: ok", 0), std::string::npos) << line;
}

}  // namespace
}  // namespace msptk
