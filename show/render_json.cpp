#include "msptk/show/render.hpp"

#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/writer.hpp"

#include <fmt/format.h>

namespace msptk::show {

namespace {

void member(std::string& out, std::string_view name) {
  out += ",\"";
  out += name;
  out += "\":";
}

void string_member(std::string& out, std::string_view name, std::string_view value) {
  member(out, name);
  append_json_string(out, value);
}

}  // namespace

std::string row_json(const Row& row) {
  std::string out = fmt::format("{{\"line\":{},\"lastLine\":{},\"count\":{}", row.line, row.last_line, row.count);
  member(out, "dir");
  out += row.dir ? fmt::format("\"{}\"", to_string(*row.dir)) : "null";
  string_member(out, "kind", json_name(row.kind));
  member(out, "method");
  if (row.method.empty()) out += "null";
  else append_json_string(out, row.method);
  if (!row.id.empty()) {
    member(out, "id");
    if (parse_json(row.id)) out += row.id;  // id_key is compact JSON
    else append_json_string(out, row.id);
  }
  string_member(out, "summary", row.summary);
  out += fmt::format(",\"underRequest\":{},\"unanswered\":{},\"unmatched\":{},\"rawBase64\":{}", row.under_request,
                     row.unanswered, row.unmatched, row.raw_base64);
  if (row.request_line) out += fmt::format(",\"requestLine\":{}", row.request_line);
  if (row.t_micros) out += fmt::format(",\"tMicros\":{}", *row.t_micros);
  if (row.latency_micros) out += fmt::format(",\"latencyMicros\":{}", *row.latency_micros);
  out += '}';
  return out;
}

void JsonRenderer::begin(const std::string& file, const std::vector<std::string>& legs) {
  std::string out = "{\"kind\":\"msptkShow\",\"formatVersion\":1";
  string_member(out, "file", file);
  out += ",\"legs\":[";
  for (std::size_t i = 0; i < legs.size(); ++i) {
    if (i) out += ',';
    append_json_string(out, legs[i]);
  }
  out += "],\"rows\":[";
  out_ << out;
}

void JsonRenderer::row(const Row& row) {
  out_ << (first_ ? "\n" : ",\n") << row_json(row);
  first_ = false;
}

void JsonRenderer::end(const Totals& totals) {
  std::string out = "\n],\"totals\":{";
  out += fmt::format("\"frames\":{},\"byKind\":{{", totals.frames);
  for (std::size_t k = 0; k < kRowKinds; ++k)
    out += fmt::format("{}\"{}\":{}", k ? "," : "", json_name(static_cast<RowKind>(k)), totals.by_kind[k]);
  out += "},\"unanswered\":[";
  for (std::size_t i = 0; i < totals.unanswered.size(); ++i) {
    const Unanswered& u = totals.unanswered[i];
    out += fmt::format("{}{{\"line\":{},\"dir\":\"{}\"", i ? "," : "", u.line, to_string(u.dir));
    string_member(out, "method", u.method);
    member(out, "id");
    if (parse_json(u.id)) out += u.id;
    else append_json_string(out, u.id);
    out += '}';
  }
  out += "]}}\n";
  out_ << out;
}

void render_frame_json(std::ostream& out, const FrameDetail& detail) {
  std::string text = "{\"kind\":\"msptkShowFrame\",\"formatVersion\":1,\"row\":" + row_json(detail.row);
  string_member(text, "raw", detail.frame.raw);
  if (detail.frame.exact_bytes) string_member(text, "rawBase64", base64_encode(*detail.frame.exact_bytes));
  text += "}\n";
  out << text;
}

}  // namespace msptk::show
