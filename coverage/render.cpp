#include "msptk/coverage/render.hpp"

#include "msptk/html/page.hpp"
#include "msptk/transcript/display.hpp"
#include "msptk/transcript/json_io.hpp"

#include <boost/json/value.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace msptk::coverage {

namespace json = boost::json;

namespace {

std::vector<const Row*> least_covered_first(const Table& table) {
  std::vector<const Row*> rows;
  for (const Row& r : table.rows) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [](const Row* a, const Row* b) {
    if (a->frames != b->frames) return a->frames < b->frames;
    return a->scenarios.size() < b->scenarios.size();
  });
  return rows;
}

bool is_method_table(const Table& t) { return t.id == "methods" || t.id == "requests"; }

std::string join(const std::vector<std::string>& parts, std::string_view sep = ", ") {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : std::string(sep)) + p;
  return out;
}

// "seen 3/5; never: a, b" for an enum row; "kinds: commandRejected ×2" for an error row;
// "-32030 commandRejected (commandRejected) ×1" for a method row.
std::string detail(const Table& t, const Row& r) {
  std::vector<std::string> parts;
  if (t.id == "enums") {
    std::vector<std::string> never;
    std::size_t seen = 0;
    for (const auto& [v, n] : r.values) {
      if (n) ++seen;
      else never.push_back(v);
    }
    parts.push_back(fmt::format("{}, seen {}/{}", r.detail, seen, r.values.size()));
    if (!never.empty()) {
      std::vector<std::string> shown(never.begin(), never.begin() + std::min<std::size_t>(never.size(), 6));
      parts.push_back(fmt::format("never: {}{}", join(shown), never.size() > 6 ? fmt::format(" (+{})", never.size() - 6) : ""));
    }
  } else if (t.id == "errors") {
    std::vector<std::string> kinds;
    for (const auto& [k, n] : r.values) kinds.push_back(fmt::format("{} ×{}", k, n));
    if (!kinds.empty()) parts.push_back("data.kind " + join(kinds));
  } else if (is_method_table(t)) {
    if (r.frames) parts.push_back(fmt::format("{} ok, {} error", r.successes, r.errors));
    for (const auto& [c, n] : r.error_codes) parts.push_back(fmt::format("{} ×{}", c, n));
  }
  return join(parts, "; ");
}

std::string html_escape(std::string_view s) { return html::escape(s); }

// The HTML anchor id of a scenario: "scenario-" and the name spelled one-to-one (html::anchor).
std::string anchor(std::string_view scenario) { return html::anchor("scenario-", scenario); }

std::size_t percent(std::size_t covered, std::size_t total) { return total ? covered * 100 / total : 100; }

}  // namespace

void render_text(const CoverageMap& map, std::ostream& out) {
  // Names (methods, enum values, scenarios) come from the bundle and the corpus: each line is
  // display text (transcript/display.hpp), so a control byte never splits or colours a line.
  out << display_text(fmt::format("coverage of {} by {} scenario{}", map.bundle, map.scenarios.size(),
                                  map.scenarios.size() == 1 ? "" : "s"))
      << "\n";
  for (const Table& t : map.tables) {
    out << fmt::format("\n{}: {}/{} covered\n", t.title, t.covered(), t.rows.size());
    std::size_t width = 4;
    for (const Row& r : t.rows) width = std::max(width, display_text(r.name).size());
    out << fmt::format("  {:<{}}  {:>9}  {:>6}  {}\n", "name", width, "scenarios", "frames", "detail");
    for (const Row* r : least_covered_first(t)) {
      out << fmt::format("  {:<{}}  {:>9}  {:>6}  {}\n", display_text(r->name), width, r->scenarios.size(), r->frames,
                         display_text(detail(t, *r)));
    }
  }
  if (!map.unknown.empty()) {
    out << fmt::format("\nNot in the bundle: {}\n", map.unknown.size());
    for (const Unknown& u : map.unknown) {
      out << display_text(fmt::format("  {} {}: {} frame{} in {}", u.what, u.name, u.frames, u.frames == 1 ? "" : "s",
                                      join(std::vector<std::string>(u.scenarios.begin(), u.scenarios.end()))))
          << "\n";
    }
  }
  out << "\n" << display_text(map.summary()) << "\n";
}

void render_json(const CoverageMap& map, std::ostream& out) {
  json::array tables;
  for (const Table& t : map.tables) {
    json::array rows;
    for (const Row& r : t.rows) {
      json::object row{{"name", r.name},
                       {"covered", r.covered()},
                       {"frames", r.frames},
                       {"scenarios", json::array(r.scenarios.begin(), r.scenarios.end())}};
      if (is_method_table(t)) {
        row["successes"] = r.successes;
        row["errors"] = r.errors;
        json::object codes;
        for (const auto& [c, n] : r.error_codes) codes[c] = n;
        row["errorCodes"] = std::move(codes);
      }
      if (t.id == "enums" || t.id == "errors") {
        json::object values;
        for (const auto& [v, n] : r.values) values[v] = n;
        row[t.id == "enums" ? "values" : "kinds"] = std::move(values);
      }
      if (t.id == "enums") row["openness"] = r.detail;
      rows.push_back(std::move(row));
    }
    tables.push_back(json::object{{"id", t.id},
                                  {"title", t.title},
                                  {"covered", t.covered()},
                                  {"total", t.rows.size()},
                                  {"rows", std::move(rows)}});
  }
  json::array unknown;
  for (const Unknown& u : map.unknown) {
    unknown.push_back(json::object{{"what", u.what},
                                   {"name", u.name},
                                   {"frames", u.frames},
                                   {"scenarios", json::array(u.scenarios.begin(), u.scenarios.end())}});
  }
  json::array scenarios, problems;
  for (const ScenarioInfo& s : map.scenarios) scenarios.push_back(json::object{{"scenario", s.id}, {"path", s.path}, {"frames", s.frames}});
  for (const Error& e : map.problems) problems.push_back(json::object{{"file", e.file}, {"line", e.line}, {"message", e.message}});
  json::object doc{{"kind", "msptkCoverage"},  {"formatVersion", 1},        {"bundle", map.bundle},
                   {"summary", map.summary()}, {"tables", std::move(tables)}, {"notInBundle", std::move(unknown)},
                   {"scenarios", std::move(scenarios)}, {"problems", std::move(problems)}};
  out << pretty(doc);
}

namespace {

constexpr std::string_view kCss = R"(
td.n{text-align:right}
tr.uncovered td:first-child{color:#b00020}
.bar{width:320px;height:14px;background:#f3d6d6;display:inline-block;vertical-align:middle;border:1px solid #999}
.bar span{display:block;height:100%;background:#3a9d5d}
.summary{font-weight:600}
a{color:#0645ad}
#overview{display:flex;flex-wrap:wrap;gap:4px 14px;margin:.3em 0 .8em;font-size:13px}
table.coverage{width:100%;max-width:100em}
table.coverage td.detail{width:100%;overflow-wrap:anywhere}
table.coverage td:first-child,table.coverage td.n{white-space:nowrap}
table.coverage td.sc{min-width:12em;max-width:24em;overflow-wrap:anywhere}
.v{display:inline-block;font-family:ui-monospace,monospace;font-size:12px;padding:0 5px;margin:1px 2px;border-radius:3px;background:#e3f2e6;color:#1b5e20}
.v.never{background:#fbe3e3;color:#8e0000}
.v i{font-style:normal;color:#555;margin-left:3px}
)";

// The enum's values, each a chip: seen (with its count) or never.
std::string values_html(const Row& r) {
  std::string out = html::escape(r.detail.empty() ? std::string() : r.detail + ": ");
  for (const auto& [v, n] : r.values) {
    if (n) out += fmt::format("<span class=\"v\">{}<i>×{}</i></span>", html_escape(v), n);
    else out += fmt::format("<span class=\"v never\" title=\"never seen\">{}</span>", html_escape(v));
  }
  return out;
}

}  // namespace

void render_html(const CoverageMap& map, std::ostream& out) {
  html::begin_page(out, {"MSP coverage: " + map.bundle, std::string(kCss), false});
  out << "<h1>MSP protocol coverage</h1>\n";
  out << "<p>Bundle <code>" << html_escape(map.bundle) << "</code>, " << map.scenarios.size() << " scenarios.</p>\n";
  out << "<p class=\"summary\" id=\"summary\">" << html_escape(map.summary()) << "</p>\n";
  // The overview: every section of the page linked.
  out << "<nav id=\"overview\">";
  for (const Table& t : map.tables) out << fmt::format("<a href=\"#{}\">{}</a>", t.id, html_escape(t.title));
  out << fmt::format("<a href=\"#not-in-bundle\">Not in the bundle ({})</a><a href=\"#scenarios\">Scenarios ({})</a></nav>\n",
                     map.unknown.size(), map.scenarios.size());
  out << "<table id=\"totals\"><tr><th>table</th><th>covered</th><th>coverage</th></tr>\n";
  for (const Table& t : map.tables) {
    const std::size_t pct = percent(t.covered(), t.rows.size());
    out << fmt::format("<tr><td><a href=\"#{}\">{}</a></td><td class=\"n\">{}/{}</td><td><span class=\"bar\" title=\"{}%\">"
                       "<span style=\"width:{}%\"></span></span> {}%</td></tr>\n",
                       t.id, html_escape(t.title), t.covered(), t.rows.size(), pct, pct, pct);
  }
  out << "</table>\n";
  for (const Table& t : map.tables) {
    const std::size_t pct = percent(t.covered(), t.rows.size());
    const bool enums = t.id == "enums";
    // A column no row has anything in (no scenario, no detail) is left out, so the others get its width.
    const bool any_scenarios = std::any_of(t.rows.begin(), t.rows.end(), [](const Row& r) { return !r.scenarios.empty(); });
    std::vector<std::string> details;
    for (const Row* r : least_covered_first(t)) details.push_back(enums ? values_html(*r) : html_escape(detail(t, *r)));
    const bool any_detail = std::any_of(details.begin(), details.end(), [](const std::string& d) { return !d.empty(); });
    out << fmt::format("<h2 id=\"{}\">{}: {}/{} covered</h2>\n", t.id, html_escape(t.title), t.covered(), t.rows.size());
    out << fmt::format("<div class=\"bar\"><span style=\"width:{}%\"></span></div> {}%\n", pct, pct);
    out << fmt::format("<table class=\"coverage\" data-table=\"{}\"><tr><th>name</th><th>frames</th>{}{}</tr>\n", t.id,
                       any_scenarios ? "<th>scenarios</th>" : "", any_detail ? (enums ? "<th>values</th>" : "<th>detail</th>") : "");
    std::size_t i = 0;
    for (const Row* r : least_covered_first(t)) {
      std::string links;
      for (const std::string& sc : r->scenarios)
        links += fmt::format("{}<a href=\"#{}\">{}</a>", links.empty() ? "" : ", ", anchor(sc), html_escape(sc));
      out << fmt::format("<tr class=\"{}\"><td>{}</td><td class=\"n\">{}</td>{}{}</tr>\n", r->covered() ? "covered" : "uncovered",
                         html_escape(r->name), r->frames, any_scenarios ? "<td class=\"sc\">" + links + "</td>" : "",
                         any_detail ? "<td class=\"detail\">" + details[i] + "</td>" : "");
      ++i;
    }
    out << "</table>\n";
  }
  out << fmt::format("<h2 id=\"not-in-bundle\">Not in the bundle: {}</h2>\n", map.unknown.size());
  if (!map.unknown.empty()) {
    out << "<table><tr><th>what</th><th>name</th><th>frames</th><th>scenarios</th></tr>\n";
    for (const Unknown& u : map.unknown) {
      std::string links;
      for (const std::string& sc : u.scenarios)
        links += fmt::format("{}<a href=\"#{}\">{}</a>", links.empty() ? "" : ", ", anchor(sc), html_escape(sc));
      out << fmt::format("<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td></tr>\n", html_escape(u.what),
                         html_escape(u.name), u.frames, links);
    }
    out << "</table>\n";
  }
  out << "<h2 id=\"scenarios\">Scenarios</h2>\n<table><tr><th>scenario</th><th>frames</th><th>path</th></tr>\n";
  for (const ScenarioInfo& sc : map.scenarios) {
    out << fmt::format("<tr id=\"{}\"><td>{}</td><td class=\"n\">{}</td><td><code>{}</code></td></tr>\n", anchor(sc.id),
                       html_escape(sc.id), sc.frames, html_escape(sc.path));
  }
  out << "</table>\n";
  html::end_page(out);
}

}  // namespace msptk::coverage
