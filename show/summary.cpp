#include "msptk/show/summary.hpp"

#include "msptk/show/prune.hpp"
#include "msptk/transcript/json_parse.hpp"

#include <algorithm>
#include <map>
#include <vector>

namespace msptk::show {

namespace json = boost::json;

namespace {

constexpr std::size_t kMaxValues = 24;
constexpr std::size_t kMaxLeaves = 64;
constexpr std::size_t kMaxStringColumns = kSummaryTextColumns;
// What a row shows of a string (and is_word looks at) is within what a pruned copy keeps of it
// (a surrogate pair is two of its units).
static_assert(2 * kMaxStringColumns + 2 <= kPruneStringUnits);
constexpr std::size_t kMaxBytes = 400;
constexpr std::size_t kMaxDepth = 8;

// The ranks of summary.hpp's order.
enum Rank { kLead = 0, kWhat = 1, kOther = 2, kBookkeeping = 3, kIdentity = 4 };

struct Leaf {
  std::string name;         // the member name ("kind"), an array element's "name[i]"
  std::string key;          // the member name alone (for an array element: the array's)
  std::string parent;       // the member name of the object holding it ("" at the top)
  std::string parent_path;  // where that object is (member names joined by '.', no indexes)
  const json::value* value;
  std::size_t depth;
  int rank = kOther;
};

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// A value spelled as a word ("allow_session", "abort": no digit) says something, even named as an id.
// Only what a row shows of it is looked at (its first kMaxStringColumns characters): a large
// frame is summarized from a pruned copy (prune.hpp) whose strings keep at least that much, so
// a digit further on must not rank the value otherwise (a fuzz finding: a 150-character
// sessionId whose digits came after its 128th character).
bool is_word(std::string_view value) {
  if (value.empty()) return false;
  std::size_t chars = 0;
  for (char c : value) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80 && ++chars > kMaxStringColumns) break;
    if (c >= '0' && c <= '9') return false;
  }
  return true;
}

bool is_id(std::string_view key) { return key == "id" || ends_with(key, "Id") || ends_with(key, "ID"); }
bool is_status(std::string_view key) {
  for (std::string_view s : {"status", "state", "terminal", "code", "kind", "type", "disposition", "decision"})
    if (key == s) return true;
  return false;
}
bool is_text(std::string_view key) { return key == "text" || key == "message" || key == "delta"; }
bool is_bookkeeping(std::string_view key) {
  return key == "sequence" || key == "revision" || ends_with(key, "Cursor") || ends_with(key, "At") || ends_with(key, "Ms");
}

struct Place {
  std::string_view name, parent, parent_path, path;
};

// Depth-first over the scalars (and empty containers) under `v`, at most kMaxLeaves.
void collect(const json::value& v, const Place& at, std::size_t depth, std::vector<Leaf>& out) {
  if (out.size() >= kMaxLeaves) return;
  if (const json::object* o = v.if_object(); o && !o->empty() && depth < kMaxDepth) {
    for (const auto& member : *o) {
      const std::string key(member.key());
      const std::string path = at.path.empty() ? key : std::string(at.path) + "." + key;
      collect(member.value(), Place{key, at.name, at.path, path}, depth + 1, out);
    }
    return;
  }
  if (const json::array* a = v.if_array(); a && !a->empty() && depth < kMaxDepth) {
    std::size_t i = 0;
    for (const json::value& element : *a) {
      const bool container = (element.is_object() && !element.get_object().empty()) ||
                             (element.is_array() && !element.get_array().empty());
      if (container) {
        collect(element, at, depth + 1, out);  // its members are the array's
      } else {
        if (out.size() >= kMaxLeaves) return;
        out.push_back(Leaf{std::string(at.name) + "[" + std::to_string(i) + "]", std::string(at.name), std::string(at.parent),
                           std::string(at.parent_path), &element, depth});
      }
      ++i;
    }
    return;
  }
  out.push_back(Leaf{std::string(at.name), std::string(at.name), std::string(at.parent), std::string(at.parent_path), &v, depth});
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

// Ranks each leaf and names it with its parent's name where its own is ambiguous.
void rank_and_name(std::vector<Leaf>& leaves) {
  std::map<std::string_view, std::string_view> place_of;  // key → the parent path first seen with it
  std::map<std::string_view, bool> shared;                // key → held by objects at two places
  for (const Leaf& leaf : leaves) {
    auto [it, fresh] = place_of.emplace(leaf.key, leaf.parent_path);
    if (!fresh && it->second != leaf.parent_path) shared[leaf.key] = true;
  }
  bool lead_taken = false;
  for (Leaf& leaf : leaves) {
    const bool string = is_json_string(*leaf.value);
    if (leaf.key == "delta" && string && !lead_taken) {
      leaf.rank = kLead;
      lead_taken = true;
    } else if (leaf.value->is_null()) {
      leaf.rank = kOther;
    } else if (is_id(leaf.key) && !(string && is_word(leaf.value->get_string()))) {
      leaf.rank = kIdentity;
    } else if (is_status(leaf.key) || (is_text(leaf.key) && string)) {
      leaf.rank = kWhat;
    } else if (is_bookkeeping(leaf.key)) {
      leaf.rank = kBookkeeping;
    }
    const bool qualify = !leaf.parent.empty() && (shared.count(leaf.key) || leaf.key == "id");
    if (qualify) leaf.name = leaf.parent + "." + leaf.name;
  }
  std::stable_sort(leaves.begin(), leaves.end(), [](const Leaf& a, const Leaf& b) {
    if (a.rank != b.rank) return a.rank < b.rank;
    return a.rank == kWhat && a.depth < b.depth;
  });
}

}  // namespace

bool SummaryMemory::first_time(const std::string& pair) {
  if (seen_.count(pair)) return false;
  if (seen_.size() < kMaxIds) seen_.insert(pair);
  return true;
}

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

std::string summarize(const json::value& message, const Envelope& envelope, SummaryMemory* memory) {
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
  collect(*body, Place{}, 0, leaves);
  // A scalar body (a result that is `null` or `true`): the value alone.
  if (leaves.size() == 1 && leaves[0].name.empty()) return value_text(*leaves[0].value);
  rank_and_name(leaves);
  std::string out;
  std::vector<std::string> seen;     // a pair said once (two members with one name and value)
  bool full = false;
  auto say = [&](std::string pair) {
    if (std::find(seen.begin(), seen.end(), pair) != seen.end()) return;
    if (seen.size() == kMaxValues || out.size() >= kMaxBytes) {
      if (!full) out += " …";
      full = true;
      return;
    }
    if (!out.empty()) out += ' ';
    out += pair;
    seen.push_back(std::move(pair));
  };
  for (const Leaf& leaf : leaves) {
    std::string pair = leaf.name.empty() ? value_text(*leaf.value) : leaf.name + "=" + value_text(*leaf.value);
    if (leaf.rank == kIdentity && memory && !memory->first_time(pair)) continue;  // an earlier row named it
    say(std::move(pair));
    if (full) break;
  }
  return out;
}

}  // namespace msptk::show
