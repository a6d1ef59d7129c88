#include "msptk/show/render_html.hpp"

#include "msptk/html/page.hpp"
#include "msptk/show/render.hpp"

#include <fmt/format.h>

namespace msptk::show {

namespace {

constexpr std::string_view kCss = R"(
.head{position:sticky;top:0;background:#fff;padding:.3em 0;border-bottom:1px solid #ddd;z-index:1}
#filter{font:inherit;padding:3px 6px;width:22em}
.lanes,.row>summary,.frame>summary{display:grid;grid-template-columns:7em 1fr 10em 1fr;column-gap:6px;align-items:center}
.lanes{font-weight:600;color:#555;border-bottom:2px solid #bbb;margin-top:.6em}
.lanes span:nth-child(2){text-align:right}
.row,.frame{border-bottom:1px solid #eee}
.row>summary,.frame>summary{list-style:none;padding:2px 0}
.row>summary::-webkit-details-marker,.frame>summary::-webkit-details-marker{display:none}
.ln{color:#777;font-family:ui-monospace,monospace;font-size:12px}
.ln .t{display:block;font-size:11px;color:#999}
.lane{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.c .client{text-align:right}
.arrow{font-family:ui-monospace,monospace;color:#888;text-align:center;white-space:nowrap}
.c .arrow::after{content:'────────▶'}.s .arrow::before{content:'◀────────'}
.label{font-weight:600}.kind{color:#777;font-weight:400;font-size:12px}
.sum{color:#444;font-family:ui-monospace,monospace;font-size:12px}
.under .label::before{content:'↳ ';color:#999}
.err .label,.invalid .label{color:#c62828}.unmatched .label{color:#8e24aa}.unanswered .label{color:#b26a00}
.tag{font-size:11px;padding:0 4px;border-radius:3px;background:#eee;color:#555;margin-right:4px}
.err .tag.e,.invalid .tag.e{background:#c62828;color:#fff}.unanswered .tag.u{background:#ef6c00;color:#fff}.unmatched .tag.m{background:#8e24aa;color:#fff}
.fold>summary .label{color:#1565c0}.fold>summary .label::before{content:'▸ '}.fold[open]>summary .label::before{content:'▾ '}
.members{margin-left:2em;border-left:3px solid #90caf9}
.frame pre.json{margin:4px 0 8px 7em}
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

// The summary's grid: line (and time) | client lane | arrow | host lane.
std::string summary_html(const Row& row, std::string_view label_suffix, std::string_view line_text) {
  std::string label = "<span class=\"label\">" + html::escape(row.method.empty() ? std::string(to_string(row.kind)) : row.method) +
                      html::escape(std::string(label_suffix)) + "</span> <span class=\"kind\">" +
                      html::escape(std::string(to_string(row.kind))) +
                      (row.id.empty() ? std::string() : " id " + html::escape(row.id)) + "</span>";
  std::string tags;
  if (row.kind == RowKind::error) tags += "<span class=\"tag e\">error</span>";
  if (row.kind == RowKind::invalid) tags += "<span class=\"tag e\">invalid</span>";
  if (row.unanswered) tags += "<span class=\"tag u\">unanswered</span>";
  if (row.unmatched) tags += "<span class=\"tag m\">answers no request</span>";
  if (row.raw_base64) tags += "<span class=\"tag\">rawBase64</span>";
  if (row.latency_micros) tags += fmt::format("<span class=\"tag\">+{:.1f}ms</span>", static_cast<double>(*row.latency_micros) / 1e3);
  const std::string lane = label + "<br>" + tags + "<span class=\"sum\">" + html::escape(row.summary) + "</span>";
  std::string time = row.t_micros ? "<span class=\"t\">" + micros_text(*row.t_micros) + "</span>" : std::string();
  const bool client = row.dir != Direction::server;
  return fmt::format("<summary><span class=\"ln\">{}{}</span><span class=\"lane client\">{}</span><span class=\"arrow\"></span>"
                     "<span class=\"lane host\">{}</span></summary>",
                     line_text, time, client ? lane : "", client ? "" : lane);
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
  return fmt::format("<details class=\"frame {}\" data-line=\"{}\" data-method=\"{}\">{}{}</details>\n", classes(row), row.line,
                     html::escape(row.method), summary_html(row, "", std::to_string(row.line)), json);
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

void HtmlRenderer::end(const Totals& totals) {
  html::begin_page(out_, {"msptk show: " + file_, std::string(kCss), true});
  out_ << "<div class=\"head\"><h1>" << html::escape(file_) << "</h1>\n"
       << "<p id=\"totals\">" << html::escape(totals_line(totals)) << "</p>\n";
  if (!legs_.empty()) {
    out_ << "<p>Legs files beside it (each shown by <code>msptk show FILE</code>):";
    for (const std::string& l : legs_) out_ << " <code>" << html::escape(l) << "</code>";
    out_ << "</p>\n";
  }
  if (left_out_)
    out_ << fmt::format("<p class=\"note\" id=\"cap\">This page holds the first {} frames of {}; {} more are left out "
                        "(msptk show --lines A-B --format html shows another part).</p>\n",
                        frames_, totals.frames, left_out_);
  out_ << "<label>Filter by method: <input id=\"filter\" type=\"search\" placeholder=\"turn/start, item/\"></label> "
          "<span id=\"shown\" class=\"muted\"></span>\n"
       << "<div class=\"lanes\"><span>line" << (timings_ ? " / time" : "")
       << "</span><span>client</span><span></span><span>host</span></div></div>\n<div id=\"seq\">\n";
  out_ << body_ << "</div>\n";
  html::end_page(out_, kScript);
}

}  // namespace msptk::show
