#include "msptk/check/render_html.hpp"

#include "msptk/check/render.hpp"
#include "msptk/differ/html.hpp"
#include "msptk/html/page.hpp"
#include "msptk/transcript/json_parse.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

namespace msptk::check {

namespace json = boost::json;

namespace {

constexpr std::string_view kCss = R"(
table#scenarios td.reason{font-family:ui-monospace,monospace;font-size:12px;max-width:70em}
details.scenario{border-top:1px solid #ddd;padding:.4em 0}
details.scenario>summary{font-weight:600}
details.scenario pre.tail{background:#222;color:#eee;padding:6px;overflow:auto;max-height:20em}
)";

// "PASS", "FAIL", "XFAIL", "SKIP", "ERROR" and the badge class.
std::pair<std::string, std::string> label(const ScenarioOutcome& o) {
  if (o.expected_failure()) return {"XFAIL", "xfail"};
  switch (o.status) {
    case Status::pass: return {"PASS", "pass"};
    case Status::fail: return {"FAIL", "fail"};
    case Status::skip: return {"SKIP", "skip"};
    case Status::error: return {"ERROR", "error"};
  }
  return {"ERROR", "error"};
}

int group(const ScenarioOutcome& o) {
  if (o.fails_run()) return 0;
  if (o.status == Status::error) return 1;
  if (o.expected_failure()) return 2;
  if (o.status == Status::skip) return 3;
  return 4;
}

std::string text_of(const json::value* v) {
  if (!v || v->is_null()) return {};
  if (const json::string* s = v->if_string()) return std::string(s->data(), s->size());
  return serialize_json(*v);
}

void render_scenario(std::ostream& out, const ScenarioOutcome& o) {
  const auto [status, cls] = label(o);
  const bool open = group(o) <= 1;
  out << fmt::format("<details class=\"scenario {}\" id=\"{}\"{}><summary><span class=\"badge {}\">{}</span> {}</summary>\n", cls,
                     html::anchor("scenario-", o.id()), open ? " open" : "", cls, status, html::escape(o.id()));
  out << "<p>Folder <code>" << html::escape(o.path) << "</code>, " << fmt::format("{:.1f}", o.duration_ms) << " ms";
  if (!o.recording.empty()) out << ", recording kept in <code>" << html::escape(o.recording) << "</code>";
  if (!o.pending.empty()) out << ", candidate <code>" << html::escape(o.pending) << "</code> pending review";
  out << ".</p>\n";
  if (!o.reason.empty()) out << "<p class=\"reason\"><code>" << html::escape(o.reason) << "</code></p>\n";
  if (!o.validation.empty()) {
    out << "<h3>Validation</h3>\n<table class=\"findings\"><tr><th>severity</th><th>where</th><th>rule</th><th>message</th></tr>\n";
    for (const Finding& f : o.validation)
      out << fmt::format("<tr><td>{}</td><td><code>{}{}</code></td><td>{}</td><td>{}</td></tr>\n", to_string(f.severity),
                         html::escape(f.file), f.line ? fmt::format(":{}", f.line) : "", html::escape(f.rule), html::escape(f.message));
    out << "</table>\n";
  }
  if (const json::object* replay = o.replay.if_object()) {
    out << "<h3>Replay</h3>\n<p>exit status " << text_of(replay->if_contains("exitCode"));
    if (std::string problem = text_of(replay->if_contains("problem")); !problem.empty()) out << ": " << html::escape(problem);
    if (const json::value* exit = replay->if_contains("hostExit"); exit && exit->is_object()) {
      const json::object& e = exit->as_object();
      out << "; the host ended with exit code " << text_of(e.if_contains("code"));
      if (std::string signal = text_of(e.if_contains("signal")); !signal.empty() && signal != "0") out << ", signal " << signal;
    }
    out << "</p>\n";
    if (std::string tail = text_of(replay->if_contains("stderrTail")); !tail.empty())
      out << "<p>The host's stderr (its last " << tail.size() << " bytes):</p><pre class=\"tail\">" << html::escape(tail) << "</pre>\n";
  }
  if (const json::object* client = o.client.if_object()) {  // check --client
    out << "<h3>Client</h3>\n<p>The canned host was started " << text_of(client->if_contains("hostStarts")) << " time(s)";
    if (const json::value* exit = client->if_contains("exit"); exit && exit->is_object())
      out << "; the client ended with exit code " << text_of(exit->as_object().if_contains("code")) << ", signal "
          << text_of(exit->as_object().if_contains("signal"));
    out << ".</p>\n";
    if (std::string tail = text_of(client->if_contains("stderrTail")); !tail.empty())
      out << "<p>The client's stderr (its last " << tail.size() << " bytes):</p><pre class=\"tail\">" << html::escape(tail) << "</pre>\n";
    if (!o.details.empty()) out << "<pre class=\"tail\">" << html::escape(o.details) << "</pre>\n";
  }
  if (const json::object* diff = o.diff.if_object(); diff && diff->contains("comparisons")) {
    out << "<h3>The recording against the golden scenario</h3>\n";
    const json::array& comparisons = diff->at("comparisons").as_array();
    for (std::size_t i = 0; i < comparisons.size(); ++i)
      render_comparison_html(out, comparisons[i], fmt::format("{}-cmp-{}", html::anchor("s", o.id()), i));
  }
  out << "</details>\n";
}

}  // namespace

void render_html(std::ostream& out, const CheckReport& report) {
  html::begin_page(out, {"msptk check", std::string(kCss) + std::string(comparison_css()), false});
  const CheckSummary summary = report.summary();
  out << "<h1>msptk check</h1>\n<p id=\"summary\" class=\"" << (report.exit_code() == 0 ? "ok" : "failed") << "\"><span class=\"badge "
      << (report.exit_code() == 0 ? "pass" : "fail") << "\">" << (report.exit_code() == 0 ? "PASS" : "FAIL") << "</span> "
      << html::escape(summary_line(summary)) << "</p>\n";
  out << "<p>Host: <code>" << html::escape(report.host) << "</code>. Corpora:";
  for (const std::string& c : report.corpora) out << " <code>" << html::escape(c) << "</code>";
  if (report.shard) out << ". Shard " << html::escape(report.shard->str());
  out << fmt::format(". {} scenarios in {:.0f} ms.</p>\n", report.scenarios.size(), report.duration_ms);
  for (const std::string& w : report.warnings) out << "<p class=\"muted\">warning: " << html::escape(w) << "</p>\n";
  std::vector<const ScenarioOutcome*> order;
  for (const ScenarioOutcome& o : report.scenarios) order.push_back(&o);
  std::stable_sort(order.begin(), order.end(), [](const ScenarioOutcome* a, const ScenarioOutcome* b) { return group(*a) < group(*b); });
  out << "<table id=\"scenarios\"><tr><th>status</th><th>scenario</th><th>reason</th><th>ms</th></tr>\n";
  for (const ScenarioOutcome* o : order) {
    const auto [status, cls] = label(*o);
    out << fmt::format("<tr class=\"{}\"><td><span class=\"badge {}\">{}</span></td><td><a href=\"#{}\">{}</a></td><td class=\"reason\">{}</td>"
                       "<td>{:.1f}</td></tr>\n",
                       cls, cls, status, html::anchor("scenario-", o->id()), html::escape(o->id()), html::escape(o->reason), o->duration_ms);
  }
  out << "</table>\n";
  for (const ScenarioOutcome* o : order) render_scenario(out, *o);
  html::end_page(out);
}

}  // namespace msptk::check
