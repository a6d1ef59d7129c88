#include "msptk/show/render_html.hpp"

#include "msptk/html/page.hpp"
#include "msptk/show/render.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace msptk::show {

namespace {

constexpr std::string_view kCss = R"(
h1 .file{font-size:13px;font-weight:400;color:#777;margin-left:.6em;font-family:ui-monospace,monospace}
dl.manifest{display:flex;flex-wrap:wrap;gap:2px 18px;margin:.2em 0 .6em;font-size:13px}
dl.manifest>div{display:flex;gap:6px;min-width:0}dl.manifest dt{color:#777}dl.manifest dd{margin:0;overflow-wrap:anywhere}
.head{position:sticky;top:0;background:#fff;padding:.3em 0;border-bottom:1px solid #ddd;z-index:1}
#filter{font:inherit;padding:3px 6px;width:22em}
.lanes,.row>summary,.frame>summary{display:grid;grid-template-columns:7em minmax(0,1fr) 10em minmax(0,1fr);column-gap:6px;align-items:center}
.lanes{font-weight:600;color:#555;border-bottom:2px solid #bbb;margin-top:.6em}
.lanes span:nth-child(2){text-align:right}
.row,.frame{border-bottom:1px solid #eee}
.row>summary,.frame>summary{list-style:none;padding:2px 0;border-radius:3px}
.row>summary:hover,.frame>summary:hover{background:#f3f7fc}
.row>summary::-webkit-details-marker,.frame>summary::-webkit-details-marker{display:none}
.ln{color:#777;font-family:ui-monospace,monospace;font-size:12px;white-space:nowrap}
.ln .t{display:block;font-size:11px;color:#999;padding-left:1.2em}
.caret{display:inline-block;width:1.2em;color:#1565c0}
details>summary .caret::before{content:'▸'}details[open]>summary .caret::before{content:'▾'}
.leaf>summary{cursor:default}.leaf>summary .caret::before{content:''}
.lane{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;min-width:0}
.c .client{text-align:right}
.arrow{font-family:ui-monospace,monospace;color:#888;text-align:center;white-space:nowrap;overflow:hidden}
.c .arrow::after{content:'────────▶'}.s .arrow::before{content:'◀────────'}
.label{font-weight:600}.kind{color:#777;font-weight:400;font-size:12px}
.sum{color:#333;font-family:ui-monospace,monospace;font-size:12px}
.under .label::before{content:'↳ ';color:#999}
.err .label,.invalid .label{color:#c62828}.unmatched .label{color:#8e24aa}.unanswered .label{color:#b26a00}
.tag{font-size:11px;padding:0 4px;border-radius:3px;background:#eee;color:#555;margin-right:4px}
.unanswered .tag.u{background:#ef6c00;color:#fff}.unmatched .tag.m{background:#8e24aa;color:#fff}
.fold>summary .label{color:#1565c0}
.members{margin-left:2em;border-left:3px solid #90caf9}
.frame pre.json{margin:4px 0 8px 7em;white-space:pre-wrap;overflow-wrap:anywhere}
.hidden{display:none}
)";

constexpr std::string_view kScript = R"(
var box=document.getElementById('filter');
function apply(){var q=box.value.trim();var rows=document.querySelectorAll('#seq>.row');var shown=0;
for(var i=0;i<rows.length;i++){var ok=!q||rows[i].getAttribute('data-method').indexOf(q)>=0;rows[i].classList.toggle('hidden',!ok);if(ok)shown++;}
document.getElementById('shown').textContent=q?(shown+' of '+rows.length+' rows match'):'';}
box.addEventListener('input',apply);
var m=/[#&]filter=([^&]*)/.exec(location.hash);if(m){box.value=decodeURIComponent(m[1]);}
var o=/[#&]open=([0-9,]*)/.exec(location.hash);if(o){o[1].split(',').forEach(function(n){document.querySelectorAll('details[data-line="'+n+'"]').forEach(function(d){d.open=true;});});}
apply();
)";

std::string micros_text(std::int64_t micros) { return fmt::format("{:.3f}s", static_cast<double>(micros) / 1e6); }

std::string classes(const Row& row) {
  std::string c = row.dir == Direction::server ? "s" : "c";
  if (row.kind == RowKind::error) c += " err";
  if (row.kind == RowKind::invalid) c += " invalid";
  if (row.unanswered) c += " unanswered";
  if (row.unmatched) c += " unmatched";
  if (row.under_request) c += " under";
  return c;
}

// The summary's grid: line (and time) | client lane | arrow | host lane. The label is the
// method (the kind when there is none), the kind and the id beside it in grey, the summary of
// what happened under it.
std::string summary_html(const Row& row, std::string_view label_suffix, std::string_view line_text) {
  const std::string kind(to_string(row.kind));
  std::string label = "<span class=\"label\">" + html::escape(row.method.empty() ? kind : row.method) +
                      html::escape(std::string(label_suffix)) + "</span>";
  std::string aside = row.method.empty() ? std::string() : kind;
  if (!row.id.empty()) aside += (aside.empty() ? "id " : " · id ") + html::escape(row.id);
  if (!aside.empty()) label += " <span class=\"kind\">" + aside + "</span>";
  std::string tags;
  if (row.unanswered) tags += "<span class=\"tag u\">unanswered</span>";
  if (row.unmatched) tags += "<span class=\"tag m\">answers no request</span>";
  if (row.raw_base64) tags += "<span class=\"tag\">rawBase64</span>";
  if (row.latency_micros) tags += fmt::format("<span class=\"tag\">+{:.1f}ms</span>", static_cast<double>(*row.latency_micros) / 1e3);
  const std::string lane = label + "<br>" + tags + "<span class=\"sum\">" + html::escape(row.summary) + "</span>";
  std::string time = row.t_micros ? "<span class=\"t\">" + micros_text(*row.t_micros) + "</span>" : std::string();
  const bool client = row.dir != Direction::server;
  return fmt::format("<summary><span class=\"ln\"><span class=\"caret\"></span>{}{}</span><span class=\"lane client\"{}>{}</span>"
                     "<span class=\"arrow\"></span><span class=\"lane host\"{}>{}</span></summary>",
                     line_text, time, client ? " title=\"" + html::escape(row.summary) + "\"" : "", client ? lane : "",
                     client ? "" : " title=\"" + html::escape(row.summary) + "\"", client ? "" : lane);
}

// The scenario a page shows: the manifest's name, else the folder of a transcript.ndjson, else
// the file's name.
std::string scenario_name(const std::string& file, const std::optional<Manifest>& manifest) {
  if (manifest && !manifest->scenario.empty()) return manifest->scenario;
  const std::filesystem::path p(file);
  if (p.filename() == "transcript.ndjson" && p.has_parent_path() && !p.parent_path().filename().empty())
    return p.parent_path().filename().string();
  return p.filename().string();
}

}  // namespace

void HtmlRenderer::begin(const std::string& file, const std::vector<std::string>& legs) {
  file_ = file;
  legs_ = legs;
}

std::string HtmlRenderer::frame_html(const Row& row) const {
  std::string json;
  if (row.frame) {
    std::string_view text = row.frame->json_text();
    json = "<pre class=\"json\">" + html::pretty_json_html(text) + "</pre>";
  }
  return fmt::format("<details class=\"frame {}{}\" data-line=\"{}\" data-method=\"{}\">{}{}</details>\n", classes(row),
                     json.empty() ? " leaf" : "", row.line, html::escape(row.method), summary_html(row, "", std::to_string(row.line)), json);
}

void HtmlRenderer::fold_member(const Row& row) {
  if (row.t_micros) timings_ = true;
  if (frames_ + 1 > max_frames_) {
    ++left_out_;
    return;
  }
  ++frames_;
  members_ += frame_html(row);
}

void HtmlRenderer::row(const Row& row) {
  if (row.t_micros) timings_ = true;
  if (row.count > 1) {
    if (!members_.empty()) {
      body_ += fmt::format("<details class=\"row fold {}\" data-line=\"{}\" data-method=\"{}\">{}<div class=\"members\">{}</div></details>\n",
                           classes(row), row.line, html::escape(row.method),
                           summary_html(row, fmt::format(" ×{}", row.count), fmt::format("{}–{}", row.line, row.last_line)),
                           members_);
    }
    members_.clear();
    return;
  }
  if (frames_ + 1 > max_frames_) {
    ++left_out_;
    return;
  }
  ++frames_;
  std::string html = frame_html(row);
  html.insert(std::string_view("<details class=\"").size(), "row ");
  body_ += html;
}

void HtmlRenderer::write_heading(const Totals& totals) {
  out_ << "<h1>" << html::escape(scenario_name(file_, manifest_)) << "<span class=\"file\">" << html::escape(file_) << "</span></h1>\n";
  if (manifest_) {
    const Manifest& m = *manifest_;
    auto fact = [&](std::string_view name, const std::string& value) {
      if (!value.empty()) out_ << "<div><dt>" << name << "</dt><dd>" << value << "</dd></div>";
    };
    auto list = [](const std::vector<std::string>& items) {
      std::string out;
      for (const std::string& i : items) out += (out.empty() ? "<code>" : ", <code>") + html::escape(i) + "</code>";
      return out;
    };
    out_ << "<dl class=\"manifest\" id=\"manifest\">";
    fact("provenance", html::escape(m.provenance));
    fact("fingerprint", "<code>" + html::escape(m.fingerprint) + "</code>");
    fact("pins", fmt::format("viewSchemaVersion {} · frameLimitBytes {} · idSeed {} · clockStartMs {}", m.view_schema_version,
                             m.frame_limit_bytes, m.id_seed, m.clock_start_ms));
    fact("normalize", list(m.normalize));
    fact("transports", list(m.transports));
    if (m.regeneration_justification) fact("regenerated", html::escape(m.regeneration_justification->cite));
    out_ << "</dl>\n";
  } else if (!manifest_problem_.empty()) {
    out_ << "<p class=\"muted\">manifest.json: " << html::escape(manifest_problem_) << "</p>\n";
  }
  out_ << "<p id=\"totals\">" << html::escape(totals_line(totals)) << "</p>\n";
  if (!legs_.empty()) {
    out_ << "<p>Legs files beside it (each shown by <code>msptk show FILE</code>):";
    for (const std::string& l : legs_) out_ << " <code>" << html::escape(l) << "</code>";
    out_ << "</p>\n";
  }
}

void HtmlRenderer::end(const Totals& totals) {
  html::begin_page(out_, {"msptk show: " + scenario_name(file_, manifest_), std::string(kCss), true});
  write_heading(totals);
  if (left_out_)
    out_ << fmt::format("<p class=\"note\" id=\"cap\">This page holds the first {} frames of {}; {} more are left out "
                        "(msptk show --lines A-B --format html shows another part).</p>\n",
                        frames_, totals.frames, left_out_);
  out_ << "<div class=\"head\"><label>Filter by method: <input id=\"filter\" type=\"search\" placeholder=\"turn/start, item/\"></label> "
          "<span id=\"shown\" class=\"muted\"></span> <span class=\"muted\">Click a row for its frame.</span>\n"
       << "<div class=\"lanes\"><span>line" << (timings_ ? " / time" : "")
       << "</span><span>client</span><span></span><span>host</span></div></div>\n<div id=\"seq\">\n";
  out_ << body_ << "</div>\n";
  html::end_page(out_, kScript);
}

}  // namespace msptk::show
