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
#summary{margin:.2em 0 .5em;font-size:15px}
.bar{display:flex;height:10px;border-radius:5px;overflow:hidden;background:#eee;margin:.3em 0 .6em;max-width:60em}
.bar span{display:block;height:100%}.bar .failed{background:#c62828}.bar .xfail{background:#ef6c00}
.bar .skipped{background:#9e9e9e}.bar .passed{background:#2e7d32}
.run{color:#555;font-size:13px;margin:.2em 0 .6em;overflow-wrap:anywhere}
#tabs{display:flex;flex-wrap:wrap;gap:6px;margin:.4em 0 .6em}
#tabs a{text-decoration:none;color:#333;border:1px solid #ccc;border-radius:14px;padding:2px 12px;font-size:13px}
#tabs a b{margin-left:4px}#tabs a.on{background:#1565c0;border-color:#1565c0;color:#fff}
#tabs a.failed b{color:#c62828}#tabs a.passed b{color:#2e7d32}#tabs a.on b{color:#fff}
details.scenario{border:1px solid #ddd;border-radius:4px;margin:.4em 0;padding:.3em .6em;min-width:0}
details.scenario.fail,details.scenario.error{border-left:4px solid #c62828}details.scenario.xfail{border-left:4px solid #ef6c00}
details.scenario>summary{font-weight:600;list-style:none;overflow-wrap:anywhere}
details.scenario>summary::-webkit-details-marker{display:none}
details.scenario>summary::before{content:'▸ ';color:#1565c0}details.scenario[open]>summary::before{content:'▾ '}
details.scenario>summary .reason{display:block;font-weight:400;font-family:ui-monospace,monospace;font-size:12px;color:#7f1d1d;margin:2px 0 0 1.2em;white-space:pre-wrap;overflow-wrap:anywhere}
details.scenario>summary .ms{font-weight:400;color:#777;font-size:12px;margin-left:.5em}
details.scenario h3{font-size:1em;margin:.8em 0 .3em}
details.scenario pre.tail{background:#222;color:#eee;padding:6px;overflow:auto;max-height:16em;white-space:pre-wrap;overflow-wrap:anywhere}
details.scenario pre.tail .j{display:block;color:#cfe3ff}
.hidden{display:none}
)";

// The page's filter: the tabs (also `#filter=failed` in the address) keep the scenarios of one status.
constexpr std::string_view kScript = R"(
var tabs=document.querySelectorAll('#tabs a');
function apply(f){
for(var i=0;i<tabs.length;i++)tabs[i].classList.toggle('on',tabs[i].getAttribute('data-filter')===f);
var s=document.querySelectorAll('details.scenario');var shown=0;
for(var j=0;j<s.length;j++){var ok=f==='all'||s[j].getAttribute('data-status')===f;s[j].classList.toggle('hidden',!ok);if(ok)shown++;}
document.getElementById('shown').textContent=f==='all'?'':(shown+' of '+s.length+' scenarios');}
function fromHash(){var m=/[#&]filter=(\w+)/.exec(location.hash);apply(m?m[1]:'all');}
for(var i=0;i<tabs.length;i++)tabs[i].addEventListener('click',function(){apply(this.getAttribute('data-filter'));});
window.addEventListener('hashchange',fromHash);
fromHash();
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

// The filter a scenario belongs to: failed (a failure or an error), xfail, skipped or passed.
std::string_view filter_of(const ScenarioOutcome& o) {
  if (o.expected_failure()) return "xfail";
  switch (o.status) {
    case Status::pass: return "passed";
    case Status::skip: return "skipped";
    case Status::fail:
    case Status::error: return "failed";
  }
  return "failed";
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

// The host's stderr tail: each line as it is, a line that is a JSON object or array pretty.
std::string tail_html(std::string_view tail) {
  std::string out;
  std::size_t start = 0;
  while (start < tail.size()) {
    std::size_t end = tail.find('\n', start);
    if (end == std::string_view::npos) end = tail.size();
    std::string_view line = tail.substr(start, end - start);
    std::string_view trimmed = line;
    while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\r')) trimmed.remove_suffix(1);
    while (!trimmed.empty() && trimmed.front() == ' ') trimmed.remove_prefix(1);
    const bool json_like = !trimmed.empty() && (trimmed.front() == '{' || trimmed.front() == '[');
    if (json_like && parse_json(trimmed)) out += "<span class=\"j\">" + html::pretty_json_html(trimmed) + "</span>";
    else out += html::escape(line) + (end < tail.size() ? "\n" : "");
    start = end + 1;
  }
  return out;
}

void render_scenario(std::ostream& out, const ScenarioOutcome& o) {
  const auto [status, cls] = label(o);
  const bool open = group(o) <= 1;
  out << fmt::format("<details class=\"scenario {}\" data-status=\"{}\" id=\"{}\"{}><summary><span class=\"badge {}\">{}</span> {}"
                     "<span class=\"ms\">{:.1f} ms</span>",
                     cls, filter_of(o), html::anchor("scenario-", o.id()), open ? " open" : "", cls, status, html::escape(o.id()),
                     o.duration_ms);
  if (!o.reason.empty()) out << "<span class=\"reason\">" << html::escape(o.reason) << "</span>";
  out << "</summary>\n";
  out << "<p>Folder <code>" << html::escape(o.path) << "</code>";
  if (!o.recording.empty()) out << ", recording kept in <code>" << html::escape(o.recording) << "</code>";
  if (!o.pending.empty()) out << ", candidate <code>" << html::escape(o.pending) << "</code> pending review";
  out << ".</p>\n";
  if (!o.validation.empty()) {
    out << "<h3>Validation</h3>\n<table class=\"findings\"><tr><th>severity</th><th>where</th><th>rule</th><th>message</th></tr>\n";
    for (const Finding& f : o.validation)
      out << fmt::format("<tr><td>{}</td><td><code>{}{}</code></td><td>{}</td><td>{}</td></tr>\n", to_string(f.severity),
                         html::escape(f.file), f.line ? fmt::format(":{}", f.line) : "", html::escape(f.rule), html::escape(f.message));
    out << "</table>\n";
  }
  if (const json::object* diff = o.diff.if_object(); diff && diff->contains("comparisons")) {
    out << "<h3>The recording against the golden scenario</h3>\n";
    HtmlDiffLimits limits;
    if (o.recording.empty())
      limits.actual_removed_note = "a temporary recording, removed after the run: msptk check --keep DIR keeps the recordings";
    const json::array& comparisons = diff->at("comparisons").as_array();
    for (std::size_t i = 0; i < comparisons.size(); ++i)
      render_comparison_html(out, comparisons[i], fmt::format("{}-cmp-{}", html::anchor("s", o.id()), i), limits);
  }
  if (const json::object* replay = o.replay.if_object()) {
    out << "<h3>Replay</h3>\n<p>exit status " << text_of(replay->if_contains("exitCode"));
    if (std::string problem = text_of(replay->if_contains("problem")); !problem.empty() && problem != o.reason)
      out << ": " << html::escape(problem);
    if (const json::value* exit = replay->if_contains("hostExit"); exit && exit->is_object()) {
      const json::object& e = exit->as_object();
      out << "; the host ended with exit code " << text_of(e.if_contains("code"));
      if (std::string signal = text_of(e.if_contains("signal")); !signal.empty() && signal != "0") out << ", signal " << signal;
    }
    out << "</p>\n";
    if (std::string tail = text_of(replay->if_contains("stderrTail")); !tail.empty())
      out << "<p>The host's stderr (its last " << tail.size() << " bytes):</p><pre class=\"tail\">" << tail_html(tail) << "</pre>\n";
  }
  if (const json::object* client = o.client.if_object()) {  // check --client
    out << "<h3>Client</h3>\n<p>The canned host was started " << text_of(client->if_contains("hostStarts")) << " time(s)";
    if (const json::value* exit = client->if_contains("exit"); exit && exit->is_object())
      out << "; the client ended with exit code " << text_of(exit->as_object().if_contains("code")) << ", signal "
          << text_of(exit->as_object().if_contains("signal"));
    out << ".</p>\n";
    if (std::string tail = text_of(client->if_contains("stderrTail")); !tail.empty())
      out << "<p>The client's stderr (its last " << tail.size() << " bytes):</p><pre class=\"tail\">" << tail_html(tail) << "</pre>\n";
    if (!o.details.empty()) out << "<pre class=\"tail\">" << html::escape(o.details) << "</pre>\n";
  }
  out << "</details>\n";
}

}  // namespace

void render_html(std::ostream& out, const CheckReport& report) {
  const CheckSummary summary = report.summary();
  const bool ok = report.exit_code() == 0;
  html::begin_page(out, {fmt::format("msptk check: {}", summary_line(summary)), std::string(kCss) + std::string(comparison_css()), true});
  out << "<h1>msptk check <span class=\"badge " << (ok ? "pass" : "fail") << "\">" << (ok ? "PASS" : "FAIL") << "</span></h1>\n";
  out << "<p id=\"summary\" class=\"" << (ok ? "ok" : "failed") << "\">" << html::escape(summary_line(summary)) << "</p>\n";
  std::size_t failed = 0, passed = 0, skipped = 0, xfail = 0;
  for (const ScenarioOutcome& o : report.scenarios) {
    const std::string_view f = filter_of(o);
    failed += f == "failed";
    passed += f == "passed";
    skipped += f == "skipped";
    xfail += f == "xfail";
  }
  const std::size_t all = report.scenarios.size();
  out << "<div class=\"bar\" id=\"bar\">";
  for (const auto& [name, n] : {std::pair<std::string_view, std::size_t>{"failed", failed}, {"xfail", xfail}, {"skipped", skipped}, {"passed", passed}})
    if (n) out << fmt::format("<span class=\"{}\" style=\"width:{:.3f}%\" title=\"{} {}\"></span>", name, 100.0 * static_cast<double>(n) / static_cast<double>(all), n, name);
  out << "</div>\n<nav id=\"tabs\">";
  out << fmt::format("<a href=\"#filter=all\" data-filter=\"all\">All<b>{}</b></a>", all);
  out << fmt::format("<a href=\"#filter=failed\" data-filter=\"failed\" class=\"failed\">Failed<b>{}</b></a>", failed);
  out << fmt::format("<a href=\"#filter=passed\" data-filter=\"passed\" class=\"passed\">Passed<b>{}</b></a>", passed);
  out << fmt::format("<a href=\"#filter=skipped\" data-filter=\"skipped\">Skipped<b>{}</b></a>", skipped);
  if (xfail) out << fmt::format("<a href=\"#filter=xfail\" data-filter=\"xfail\">Expected failures<b>{}</b></a>", xfail);
  out << "<span id=\"shown\" class=\"muted\"></span></nav>\n";
  out << "<p class=\"run\">Host <code>" << html::escape(report.host) << "</code> · corpora";
  for (const std::string& c : report.corpora) out << " <code>" << html::escape(c) << "</code>";
  if (report.shard) out << " · shard " << html::escape(report.shard->str());
  out << fmt::format(" · {} scenarios in {:.0f} ms</p>\n", report.scenarios.size(), report.duration_ms);
  for (const std::string& w : report.warnings) out << "<p class=\"muted\">warning: " << html::escape(w) << "</p>\n";
  std::vector<const ScenarioOutcome*> order;
  for (const ScenarioOutcome& o : report.scenarios) order.push_back(&o);
  std::stable_sort(order.begin(), order.end(), [](const ScenarioOutcome* a, const ScenarioOutcome* b) { return group(*a) < group(*b); });
  out << "<div id=\"scenarios\">\n";
  for (const ScenarioOutcome* o : order) render_scenario(out, *o);
  out << "</div>\n";
  html::end_page(out, kScript);
}

}  // namespace msptk::check
