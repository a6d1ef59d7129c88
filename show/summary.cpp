#include "msptk/show/summary.hpp"

#include "msptk/transcript/json_parse.hpp"

#include <algorithm>
#include <vector>

namespace msptk::show {

namespace json = boost::json;

namespace {

constexpr std::size_t kMaxValues = 24;
constexpr std::size_t kMaxLeaves = 64;
constexpr std::size_t kMaxStringColumns = kSummaryTextColumns;
constexpr std::size_t kMaxBytes = 400;
constexpr std::size_t kMaxDepth = 8;

struct Leaf {
  std::string name;
  const json::value* value;
  int rank;  // 0 ids, 1 status-like, 2 the first text, 3 the rest
};

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

int rank_of(std::string_view name) {
  if (name == "id" || (ends_with(name, "Id") && name.size() > 2)) return 0;
  for (std::string_view s : {"status", "state", "code", "kind", "type", "disposition"})
    if (name == s) return 1;
  if (name == "text" || name == "delta" || name == "message") return 2;
  return 3;
}

// Depth-first over the scalars (and empty containers) under `v`, at most kMaxLeaves.
void collect(const json::value& v, std::string_view name, std::size_t depth, std::vector<Leaf>& out) {
  if (out.size() >= kMaxLeaves) return;
  if (const json::object* o = v.if_object(); o && !o->empty() && depth < kMaxDepth) {
    for (const auto& member : *o) collect(member.value(), member.key(), depth + 1, out);
    return;
  }
  if (const json::array* a = v.if_array(); a && !a->empty() && depth < kMaxDepth) {
    std::size_t i = 0;
    for (const json::value& element : *a) {
      const bool container = (element.is_object() && !element.get_object().empty()) ||
                             (element.is_array() && !element.get_array().empty());
      collect(element, container ? std::string(name) : std::string(name) + "[" + std::to_string(i) + "]", depth + 1, out);
      ++i;
    }
    return;
  }
  out.push_back(Leaf{std::string(name), &v, v.is_null() ? 3 : rank_of(name)});
}

std::string value_text(const json::value& v) {
  if (is_json_string(v)) {
    const json::string& s = v.get_string();
    std::string cut = cut_to_columns(std::string_view(s.data(), s.size()), kMaxStringColumns);
    std::string out;
    append_json_string(out, cut);
    return out;
  }
  if (v.is_object()) return v.get_object().empty() ? "{}" : "{…}";
  if (v.is_array()) return v.get_array().empty() ? "[]" : "[…]";
  return serialize_json(v);
}

}  // namespace

std::size_t columns_of(std::string_view text) {
  std::size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string cut_to_columns(std::string_view text, std::size_t columns) {
  // Whether the text fits, looking no further than columns + 1 code points (a multi-MiB text
  // is not walked to its end).
  std::size_t seen = 0, end = 0;
  for (; end < text.size() && seen <= columns; ++end) seen += (static_cast<unsigned char>(text[end]) & 0xC0) != 0x80;
  if (seen <= columns) return std::string(text);
  if (columns == 0) return {};
  std::size_t kept = 0, i = 0;
  for (; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      if (kept == columns - 1) break;
      ++kept;
    }
  }
  return std::string(text.substr(0, i)) + "…";
}

std::string summarize(const json::value& message, const Envelope& envelope) {
  const json::object* o = message.if_object();
  if (!o) return {};
  const json::value* body = nullptr;
  switch (envelope.kind) {
    case FrameKind::request:
    case FrameKind::notification: body = o->if_contains("params"); break;
    case FrameKind::response: body = o->if_contains(envelope.is_error ? "error" : "result"); break;
    case FrameKind::invalid: return envelope.problem;
  }
  if (!body) return {};
  std::vector<Leaf> leaves;
  collect(*body, "", 0, leaves);
  // A scalar body (a result that is `null` or `true`): the value alone.
  if (leaves.size() == 1 && leaves[0].name.empty()) return value_text(*leaves[0].value);
  bool text_taken = false;
  for (Leaf& leaf : leaves) {
    if (leaf.rank != 2) continue;
    if (text_taken || !is_json_string(*leaf.value)) leaf.rank = 3;
    text_taken = text_taken || leaf.rank == 2;
  }
  std::stable_sort(leaves.begin(), leaves.end(), [](const Leaf& a, const Leaf& b) { return a.rank < b.rank; });
  std::string out;
  std::vector<std::string> seen;  // a pair said once (two members with one name and value)
  for (const Leaf& leaf : leaves) {
    std::string pair = leaf.name.empty() ? value_text(*leaf.value) : leaf.name + "=" + value_text(*leaf.value);
    if (std::find(seen.begin(), seen.end(), pair) != seen.end()) continue;
    if (seen.size() == kMaxValues || out.size() >= kMaxBytes) {
      out += " …";
      break;
    }
    if (!out.empty()) out += ' ';
    out += pair;
    seen.push_back(std::move(pair));
  }
  return out;
}

}  // namespace msptk::show
