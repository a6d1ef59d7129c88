#include "msptk/check/junit.hpp"

#include "utf8.hpp"

#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

namespace msptk::check {

namespace {

std::string seconds(double ms) { return fmt::format("{:.3f}", ms / 1000.0); }

struct Counts {
  std::size_t tests = 0, failures = 0, errors = 0, skipped = 0;
  double ms = 0;
  void add(const ScenarioOutcome& o) {
    ++tests;
    ms += o.duration_ms;
    if (o.status == Status::error) ++errors;
    else if (o.fails_run()) ++failures;
    else if (o.status == Status::skip || o.expected_failure()) ++skipped;
  }
  std::string attributes() const {
    return fmt::format("tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\"", tests, failures,
                       errors, skipped, seconds(ms));
  }
};

void testcase(std::ostream& out, const ScenarioOutcome& o) {
  out << fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{}\"", xml_escape(o.corpus),
                     xml_escape(o.scenario), seconds(o.duration_ms));
  auto body = [&](std::string_view element, std::string_view type) {
    out << fmt::format(">\n      <{} message=\"{}\" type=\"{}\">{}</{}>\n    </testcase>\n", element,
                       xml_escape(o.reason), type, xml_escape(o.details.empty() ? o.reason : o.details, false),
                       element);
  };
  if (o.status == Status::error) {
    body("error", "infrastructure");
  } else if (o.fails_run()) {
    body("failure", o.failure_cause());
  } else if (o.expected_failure()) {
    out << fmt::format(">\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                       xml_escape("expected failure (baseline): " + o.reason));
  } else if (o.status == Status::skip && !o.in_baseline) {
    out << fmt::format(">\n      <skipped message=\"{}\"/>\n    </testcase>\n", xml_escape(o.reason));
  } else if (o.stale_baseline()) {
    out << ">\n";
    if (o.status == Status::skip) out << fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(o.reason));
    out << "      <system-out>stale baseline entry: it no longer fails, remove it from the baseline</system-out>\n"
        << "    </testcase>\n";
  } else {
    out << "/>\n";
  }
}

}  // namespace

std::string xml_escape(std::string_view text, bool attribute) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t length = decode_utf8(text, i, cp);
    if (length == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    switch (cp) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += attribute ? "&quot;" : "\""; break;
      case '\'': out += attribute ? "&apos;" : "'"; break;
      case '\n': out += attribute ? "&#10;" : "\n"; break;
      case '\t': out += attribute ? "&#9;" : "\t"; break;
      case '\r': out += "&#13;"; break;
      default:
        if (cp < 0x20 || cp == 0xFFFE || cp == 0xFFFF) out += kReplacement;
        else out.append(text.substr(i, length));
    }
    i += length;
  }
  return out;
}

void render_junit(std::ostream& out, const CheckReport& report) {
  std::vector<std::string> corpora;
  std::map<std::string, std::vector<const ScenarioOutcome*>> by_corpus;
  Counts all;
  for (const ScenarioOutcome& o : report.scenarios) {
    if (!by_corpus.count(o.corpus)) corpora.push_back(o.corpus);
    by_corpus[o.corpus].push_back(&o);
    all.add(o);
  }
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format("<testsuites name=\"msptk check\" {}>\n", all.attributes());
  for (const std::string& corpus : corpora) {
    Counts counts;
    for (const ScenarioOutcome* o : by_corpus[corpus]) counts.add(*o);
    out << fmt::format("  <testsuite name=\"{}\" {}>\n", xml_escape(corpus), counts.attributes());
    for (const ScenarioOutcome* o : by_corpus[corpus]) testcase(out, *o);
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
}

}  // namespace msptk::check
