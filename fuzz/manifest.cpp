// Fuzz target: the manifest parser. The input is a manifest.json file's bytes.
// Invariants, for a JSON object:
// - parse_manifest collects problems and never fails; every problem names a rule and a member
//   whose line can be looked up in the text;
// - the written form (pretty(to_json())) is JSON that reads back as the same value (json_equal:
//   numbers by exact value, whatever their spelling);
// - a manifest without problems, written and read again, has no problems and writes the same.
#include "fuzz_support.hpp"

#include "msptk/normalizer/canonical.hpp"
#include "msptk/transcript/json_io.hpp"
#include "msptk/transcript/json_locate.hpp"
#include "msptk/transcript/manifest.hpp"

#include "msptk/transcript/json_parse.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace msptk;
  namespace json = boost::json;
  const std::string_view text = fuzz::as_text(data, size);
  // As read_manifest reads it (parse_json_file).
  auto parsed = parse_json(text);
  if (!parsed || !parsed->is_object()) return 0;
  const json::value& value = *parsed;

  const ManifestParse first = parse_manifest(value);
  for (const ManifestProblem& p : first.problems) {
    MSPTK_FUZZ_CHECK(!p.rule.empty() && !p.message.empty(), "a problem without rule or message: {}", p.member);
    MSPTK_FUZZ_CHECK(line_of_path(text, p.member) >= 1, "line_of_path below 1");
  }
  const json::value written = first.manifest.to_json();
  const std::string written_text = pretty(written);
  auto reparsed = parse_json(written_text);
  MSPTK_FUZZ_CHECK(reparsed.has_value(), "the written manifest is not JSON ({}): {}",
                   reparsed ? "" : reparsed.error().describe(), written_text);
  const json::value& reread = *reparsed;
  // Compared by value (json_equal: numbers by exact value): a number may change representation
  // and spelling (350918186201e00 is held as a double and reads back as an integer; -0e-5 is
  // written -0 and reads back as 0) but never its value.
  MSPTK_FUZZ_CHECK(json_equal(reread, written), "the written manifest reads back as another value:\n{}\nvs\n{}",
                   serialize_json(written), serialize_json(reread));
  if (!first.problems.empty()) return 0;

  const ManifestParse second = parse_manifest(reread);
  MSPTK_FUZZ_CHECK(second.problems.empty(), "a manifest without problems has problems once written: {} [{}]",
                   second.problems.front().message, second.problems.front().rule);
  MSPTK_FUZZ_CHECK(json_equal(second.manifest.to_json(), written), "writing a manifest twice gives two values");
  return 0;
}
