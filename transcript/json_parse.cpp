#include "msptk/transcript/json_parse.hpp"

#include "msptk/transcript/writer.hpp"

#include <array>
#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/value_stack.hpp>

#include <optional>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <new>
#include <stdexcept>
#include <unordered_set>
#include <vector>

namespace msptk {

namespace json = boost::json;

std::string JsonError::describe() const { return kind == JsonErrorKind::not_json ? "not JSON: " + message : message; }

std::string JsonError::about(std::string_view subject) const {
  switch (kind) {
    case JsonErrorKind::not_json: return fmt::format("{} is not JSON: {}", subject, message);
    case JsonErrorKind::too_deep: return fmt::format("{} is {}", subject, message);
    case JsonErrorKind::duplicate_member: return fmt::format("{} has a {}", subject, message);
    case JsonErrorKind::unsupported: break;
  }
  return fmt::format("{} {}", subject, message);
}

void throw_exception_from_error(const JsonError& error, const boost::source_location&) {
  throw std::runtime_error(error.describe());
}

namespace {

// A decimal number as sign, significant digits (no leading or trailing zeros) and a power of
// ten: value = (neg ? -1 : 1) * digits * 10^exp. Zero has empty digits and is never negative.
struct Decimal {
  bool neg = false;
  std::string digits;
  std::int64_t exp = 0;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Decomposes a JSON number token (or std::to_chars output, which may write "e+").
void decompose(std::string_view t, Decimal& d) {
  d.neg = false;
  d.digits.clear();
  d.exp = 0;
  std::size_t i = 0;
  if (i < t.size() && t[i] == '-') {
    d.neg = true;
    ++i;
  }
  std::int64_t frac = 0;
  while (i < t.size() && is_digit(t[i])) d.digits += t[i++];
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && is_digit(t[i])) {
      d.digits += t[i++];
      ++frac;
    }
  }
  std::int64_t e = 0;
  bool eneg = false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) eneg = t[i++] == '-';
    // Boost.JSON refuses exponents beyond INT_MAX, so this cannot overflow for parsed tokens;
    // saturate anyway for tokens built by hand.
    while (i < t.size() && is_digit(t[i])) e = std::min<std::int64_t>(e * 10 + (t[i++] - '0'), 1'000'000'000'000);
  }
  d.exp = (eneg ? -e : e) - frac;
  const std::size_t first = d.digits.find_first_not_of('0');
  if (first == std::string::npos) {
    d.digits.clear();
    d.neg = false;
    d.exp = 0;
    return;
  }
  d.digits.erase(0, first);
  std::size_t last = d.digits.size();
  while (d.digits[last - 1] == '0') --last;
  d.exp += static_cast<std::int64_t>(d.digits.size() - last);
  d.digits.resize(last);
}

bool same_decimal(const Decimal& a, const Decimal& b) {
  return a.neg == b.neg && a.exp == b.exp && a.digits == b.digits;
}

// The one text of a decimal's value: plain integers up to 40 digits, plain fractions with at
// most 6 leading zeros, else scientific with one digit before the point.
void append_canonical(std::string& out, const Decimal& d) {
  if (d.digits.empty()) {
    out += '0';
    return;
  }
  if (d.neg) out += '-';
  const auto n = static_cast<std::int64_t>(d.digits.size());
  const std::int64_t point = n + d.exp;  // value = 0.digits * 10^point
  if (d.exp >= 0 && point <= 40) {
    out += d.digits;
    out.append(static_cast<std::size_t>(d.exp), '0');
  } else if (d.exp < 0 && point > 0) {
    out.append(d.digits, 0, static_cast<std::size_t>(point));
    out += '.';
    out.append(d.digits, static_cast<std::size_t>(point));
  } else if (d.exp < 0 && point > -6) {
    out += "0.";
    out.append(static_cast<std::size_t>(-point), '0');
    out += d.digits;
  } else {
    out += d.digits[0];
    if (n > 1) {
      out += '.';
      out.append(d.digits, 1);
    }
    fmt::format_to(std::back_inserter(out), "e{}", point - 1);
  }
}

// Shortest round-trip text of a finite double.
std::string_view shortest(double d, char (&buf)[64]) {
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  return {buf, static_cast<std::size_t>(end - buf)};
}

// The handler: Boost.JSON's own parser handler (a value_stack) plus duplicate-member
// detection and exact numbers. With kTopOnly (parse_json_top) the whole text is checked the same
// way but only the top level is built: a container inside the top-level value is an empty one.
template <bool kTopOnly>
class StrictHandler {
 public:
  static constexpr std::size_t max_object_size = json::object::max_size();
  static constexpr std::size_t max_array_size = json::array::max_size();
  static constexpr std::size_t max_key_size = json::string::max_size();
  static constexpr std::size_t max_string_size = json::string::max_size();

  json::value_stack st;
  std::string duplicate;  // set when on_object_end found a duplicate member

  // Forgets what a parse left behind (an error can stop it mid-object), so one handler serves
  // many parses.
  void clear() {
    duplicate.clear();
    keys_.clear();
    key_ends_.clear();
    levels_.clear();
    number_.clear();
    depth_ = 0;
  }

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_object_begin(json::error_code&) {
    ++depth_;
    levels_.push_back(key_ends_.size());
    return true;
  }
  bool on_object_end(std::size_t n, json::error_code& ec) {
    const std::size_t first = levels_.back();
    levels_.pop_back();
    if (n > 1 && has_duplicate(first)) {
      ec = json::error::syntax;
      return false;
    }
    key_ends_.resize(first);
    keys_.resize(first == 0 ? 0 : key_ends_[first - 1]);
    if (builds_container()) st.push_object(kTopOnly && depth_ > 1 ? 0 : n);
    --depth_;
    return true;
  }
  bool on_array_begin(json::error_code&) {
    ++depth_;
    return true;
  }
  bool on_array_end(std::size_t n, json::error_code&) {
    if (builds_container()) st.push_array(kTopOnly && depth_ > 1 ? 0 : n);
    --depth_;
    return true;
  }
  bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
    keys_.append(s.data(), s.size());
    if (builds_value()) st.push_chars(s);
    return true;
  }
  bool on_key(json::string_view s, std::size_t, json::error_code&) {
    keys_.append(s.data(), s.size());
    key_ends_.push_back(keys_.size());
    if (builds_value()) st.push_key(s);
    return true;
  }
  bool on_string_part(json::string_view s, std::size_t, json::error_code&) {
    if (builds_value()) st.push_chars(s);
    return true;
  }
  bool on_string(json::string_view s, std::size_t, json::error_code&) {
    if (builds_value()) st.push_string(s);
    return true;
  }
  bool on_number_part(json::string_view s, json::error_code&) {
    number_.append(s.data(), s.size());
    return true;
  }
  bool on_int64(std::int64_t i, json::string_view, json::error_code&) {
    number_.clear();
    if (builds_value()) st.push_int64(i);
    return true;
  }
  bool on_uint64(std::uint64_t u, json::string_view, json::error_code&) {
    number_.clear();
    if (builds_value()) st.push_uint64(u);
    return true;
  }
  bool on_double(double d, json::string_view s, json::error_code&) {
    std::string_view token(s.data(), s.size());
    if (!number_.empty()) {
      number_.append(s.data(), s.size());
      token = number_;
    }
    if (!builds_value()) {
      // not kept: nothing to decide
    } else if (reproduces(d, token)) {
      st.push_double(d);
    } else {
      const char marker = exact_number_marker;
      st.push_chars(json::string_view(&marker, 1));
      st.push_string(json::string_view(token.data(), token.size()));
    }
    number_.clear();
    return true;
  }
  bool on_bool(bool b, json::error_code&) {
    if (builds_value()) st.push_bool(b);
    return true;
  }
  bool on_null(json::error_code&) {
    if (builds_value()) st.push_null();
    return true;
  }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }

 private:
  // Whether a scalar or a member name at the current depth is built: always, or (kTopOnly) at
  // the top level (the document itself or inside the top-level container).
  bool builds_value() const { return !kTopOnly || depth_ <= 1; }
  // Whether the container closing now (at depth_) is built: the top-level one in full, one
  // inside it as an empty container of its type (kTopOnly).
  bool builds_container() const { return !kTopOnly || depth_ <= 2; }

  std::string_view key(std::size_t i) const {
    const std::size_t begin = i == 0 ? 0 : key_ends_[i - 1];
    return std::string_view(keys_).substr(begin, key_ends_[i] - begin);
  }

  bool has_duplicate(std::size_t first) {
    const std::size_t end = key_ends_.size();
    if (end - first <= 16) {
      for (std::size_t i = first; i < end; ++i) {
        for (std::size_t j = first; j < i; ++j) {
          if (key(i) == key(j)) {
            duplicate.assign(key(i));
            return true;
          }
        }
      }
      return false;
    }
    std::unordered_set<std::string_view> seen;
    seen.reserve(end - first);
    for (std::size_t i = first; i < end; ++i) {
      if (!seen.insert(key(i)).second) {
        duplicate.assign(key(i));
        return true;
      }
    }
    return false;
  }

  // True when `d`'s shortest text has exactly the value of `token`.
  bool reproduces(double d, std::string_view token) {
    if (!std::isfinite(d)) return false;
    char buf[64];
    decompose(token, a_);
    decompose(shortest(d, buf), b_);
    return same_decimal(a_, b_);
  }

  std::string keys_;                  // the member names of the open objects, back to back
  std::vector<std::size_t> key_ends_;  // end offset in keys_ of each open member name
  std::vector<std::size_t> levels_;    // for each open object, its first index in key_ends_
  std::string number_;                // a number token split over parts
  Decimal a_, b_;                     // scratch, reused so that numbers do not allocate
  std::size_t depth_ = 0;             // open containers
};

}  // namespace

namespace {
constexpr std::size_t kCachedMin = 256 * 1024;
constexpr std::size_t kCachedMax = 8 * 1024 * 1024;
constexpr std::size_t kCachedTotal = 16 * 1024 * 1024;
}  // namespace

JsonArena::BlockCache::~BlockCache() {
  for (const Block& b : blocks_) ::operator delete(b.p, std::align_val_t(b.align));
}

std::size_t JsonArena::BlockCache::kept_bytes() const {
  std::size_t kept = 0;
  for (const Block& b : blocks_)
    if (!b.in_use) kept += b.bytes;
  return kept;
}

void* JsonArena::BlockCache::do_allocate(std::size_t n, std::size_t align) {
  if (n >= kCachedMin && n <= kCachedMax) {
    Block* best = nullptr;  // the smallest free block that holds n
    for (Block& b : blocks_)
      if (!b.in_use && b.bytes >= n && b.align >= align && (!best || b.bytes < best->bytes)) best = &b;
    if (best) {
      best->in_use = true;
      return best->p;
    }
    void* p = ::operator new(n, std::align_val_t(align));
    blocks_.push_back(Block{p, n, align, true});
    return p;
  }
  return ::operator new(n, std::align_val_t(align));
}

void JsonArena::BlockCache::do_deallocate(void* p, std::size_t, std::size_t align) {
  auto it = std::find_if(blocks_.begin(), blocks_.end(), [&](const Block& b) { return b.p == p; });
  if (it == blocks_.end()) {
    ::operator delete(p, std::align_val_t(align));  // unsized: monotonic_resource frees with another size than it asked for
    return;
  }
  it->in_use = false;
  // Over the total, the largest free blocks go back first.
  while (kept_bytes() > kCachedTotal) {
    auto largest = blocks_.end();
    for (auto b = blocks_.begin(); b != blocks_.end(); ++b)
      if (!b->in_use && (largest == blocks_.end() || b->bytes > largest->bytes)) largest = b;
    ::operator delete(largest->p, std::align_val_t(largest->align));
    blocks_.erase(largest);
  }
}

JsonArena::JsonArena(std::size_t block_bytes)
    : block_bytes_(block_bytes),
      block_(new unsigned char[block_bytes]),
      resource_(block_.get(), block_bytes, boost::json::storage_ptr(&cache_)),
      storage_(&resource_) {}

void JsonArena::release() {
  // storage_ points at resource_ (not owning it): a new resource in its place keeps it valid.
  resource_.~monotonic_resource();
  ::new (&resource_) boost::json::monotonic_resource(block_.get(), block_bytes_, boost::json::storage_ptr(&cache_));
}

namespace {
// Beyond it the reused parser is not kept. Frames of a few MiB (an agent's long output) come
// again and again in a long session: the parser keeps its stack for them, or every one would
// map and fault its stack again (validate at 96 MB: 61k page faults, 0.15 s of system time).
constexpr std::size_t kLongText = 8 * 1024 * 1024;
}  // namespace

JsonResult<json::value> parse_json(std::string_view text, ParseLimits limits) {
  return parse_json(text, json::storage_ptr(), limits);
}

namespace {

template <bool kTopOnly>
JsonResult<json::value> parse_strict(std::string_view text, json::storage_ptr storage, ParseLimits limits) {
  using StrictHandler = StrictHandler<kTopOnly>;
  json::parse_options options;
  options.max_depth = limits.max_depth;
  options.allow_invalid_utf8 = limits.utf8_known;  // nothing to allow: the text was checked
  try {
    // One parser per thread for the default limits, reused: its stacks and buffers are allocated
    // once, not for every frame (parse_json runs for every frame of every verb).
    // A long text leaves the parser's value stack as large as its longest string (a 16 MiB
    // frame: 16 MiB or more, touched): the parser that read one is dropped after it, so the
    // memory goes back instead of staying for the rest of the process.
    std::optional<json::basic_parser<StrictHandler>> own;
    json::basic_parser<StrictHandler>* reused = nullptr;
    thread_local std::optional<json::basic_parser<StrictHandler>> parsers[2];  // checking UTF-8, not
    std::optional<json::basic_parser<StrictHandler>>& shared = parsers[limits.utf8_known ? 1 : 0];
    struct DropAfterLongText {
      std::optional<json::basic_parser<StrictHandler>>* parser;
      ~DropAfterLongText() {
        if (parser) parser->reset();
      }
    } drop{nullptr};
    if (limits.max_depth == ParseLimits{}.max_depth) {
      if (!shared) shared.emplace(options);  // options differ between the two only in utf8_known
      reused = &*shared;
      reused->reset();
      if (text.size() > kLongText) drop.parser = &shared;
    } else {
      own.emplace(options);
    }
    json::basic_parser<StrictHandler>& parser = reused ? *reused : *own;
    parser.handler().clear();
    parser.handler().st.reset(std::move(storage));
    json::error_code ec;
    const std::size_t n = parser.write_some(false, text.data(), text.size(), ec);
    JsonError error;
    error.offset = n;
    if (!parser.handler().duplicate.empty()) {
      error.kind = JsonErrorKind::duplicate_member;
      error.member = parser.handler().duplicate;
      std::string shown;
      append_json_string(shown, error.member);
      error.message = fmt::format("duplicate member {}", shown);
      return error;
    }
    if (ec == json::error::too_deep) {
      error.kind = JsonErrorKind::too_deep;
      error.message = fmt::format("nested deeper than {} levels", limits.max_depth);
      return error;
    }
    if (ec == json::error::exponent_overflow) {
      error.kind = JsonErrorKind::unsupported;
      error.message = "holds a number whose exponent is beyond 2147483647 (not supported)";
      return error;
    }
    if (ec) {
      error.message = ec.message();
      return error;
    }
    if (n < text.size()) {
      error.message = "extra data after the value";
      return error;
    }
    return parser.handler().st.release();
  } catch (const std::bad_alloc&) {
    JsonError error;
    error.kind = JsonErrorKind::unsupported;
    error.message = fmt::format("is a {}-byte JSON text too large to hold in memory", text.size());
    return error;
  } catch (const std::length_error&) {
    JsonError error;
    error.kind = JsonErrorKind::unsupported;
    error.message = fmt::format("is a {}-byte JSON text holding a string or array too large to hold", text.size());
    return error;
  }
}

}  // namespace

JsonResult<json::value> parse_json(std::string_view text, json::storage_ptr storage, ParseLimits limits) {
  return parse_strict<false>(text, std::move(storage), limits);
}

JsonResult<json::value> parse_json_top(std::string_view text, json::storage_ptr storage, ParseLimits limits) {
  return parse_strict<true>(text, std::move(storage), limits);
}

json::value make_exact_number(std::string_view token) {
  json::string s;
  s.reserve(token.size() + 1);
  s.push_back(exact_number_marker);
  s.append(json::string_view(token.data(), token.size()));
  return json::value(std::move(s));
}

std::string number_text(const json::value& v) {
  if (v.is_int64()) return fmt::format("{}", v.get_int64());
  if (v.is_uint64()) return fmt::format("{}", v.get_uint64());
  if (v.is_double()) {
    char buf[64];
    return std::string(shortest(v.get_double(), buf));
  }
  if (is_exact_number(v)) {
    const json::string& s = v.get_string();
    return std::string(s.data() + 1, s.size() - 1);
  }
  return {};
}

namespace {

// The canonical text of an integer-valued number, empty when v is not one.
std::string integer_text(const json::value& v) {
  if (!is_json_number(v)) return {};
  std::string text = canonical_number_text(v);
  if (text.empty() || text.find_first_not_of("-0123456789") != std::string::npos) return {};
  return text;
}

}  // namespace

bool is_json_integer(const json::value& v) {
  if (v.is_int64() || v.is_uint64()) return true;
  const std::string text = integer_text(v);
  if (text.empty()) return false;
  const char* last = text.data() + text.size();
  std::int64_t i = 0;
  if (auto [p, ec] = std::from_chars(text.data(), last, i); ec == std::errc() && p == last) return true;
  std::uint64_t u = 0;
  auto [p, ec] = std::from_chars(text.data(), last, u);
  return ec == std::errc() && p == last;
}

std::optional<std::int64_t> json_int64(const json::value& v) {
  if (v.is_int64()) return v.get_int64();
  if (v.is_uint64()) return std::nullopt;  // beyond int64: Boost.JSON holds smaller ones as int64
  const std::string text = integer_text(v);
  if (text.empty()) return std::nullopt;
  const char* last = text.data() + text.size();
  std::int64_t i = 0;
  if (auto [p, ec] = std::from_chars(text.data(), last, i); ec == std::errc() && p == last) return i;
  return std::nullopt;
}

std::string canonical_number_text(const json::value& v) {
  if (v.is_int64()) return fmt::format("{}", v.get_int64());
  if (v.is_uint64()) return fmt::format("{}", v.get_uint64());
  Decimal d;
  if (v.is_double()) {
    char buf[64];
    decompose(shortest(v.get_double(), buf), d);
  } else if (is_exact_number(v)) {
    const json::string& s = v.get_string();
    decompose(std::string_view(s.data() + 1, s.size() - 1), d);
  } else {
    return {};
  }
  std::string out;
  append_canonical(out, d);
  return out;
}

bool numbers_equal(const json::value& a, const json::value& b) {
  const bool a_int = a.is_int64() || a.is_uint64();
  const bool b_int = b.is_int64() || b.is_uint64();
  if (a_int && b_int) {
    if (a.is_int64() && b.is_int64()) return a.get_int64() == b.get_int64();
    if (a.is_uint64() && b.is_uint64()) return a.get_uint64() == b.get_uint64();
    const json::value& s = a.is_int64() ? a : b;
    const json::value& u = a.is_int64() ? b : a;
    return s.get_int64() >= 0 && static_cast<std::uint64_t>(s.get_int64()) == u.get_uint64();
  }
  if (a.is_double() && b.is_double()) return a.get_double() == b.get_double();
  if (!is_json_number(a) || !is_json_number(b)) return false;
  return canonical_number_text(a) == canonical_number_text(b);
}

void append_json_string(std::string& out, std::string_view text) {
  // JSON output is always valid UTF-8: bytes that are not (a path with byte 0xFF) are written
  // as U+FFFD, as `raw` holds them beside `rawBase64`.
  if (!is_valid_utf8(text)) {
    const std::string fixed = lossy_utf8(text);
    append_json_string(out, fixed);
    return;
  }
  out += '"';
  append_json_escaped(out, text);
  out += '"';
}

void append_json_escaped(std::string& out, std::string_view bytes) {
  static constexpr char hex[] = "0123456789abcdef";
  out.reserve(out.size() + bytes.size() + 16);
  std::size_t run = 0;  // bytes copied as they are go in runs, not one by one
  // Raw frames are JSON, so quotes come every few bytes: one table look-up per byte.
  static constexpr auto kEscaped = [] {
    std::array<bool, 256> t{};
    for (int c = 0; c < 0x20; ++c) t[static_cast<std::size_t>(c)] = true;
    t['"'] = t['\\'] = true;
    return t;
  }();
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (!kEscaped[c]) continue;
    out.append(bytes.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        out += "\\u00";
        out += hex[c >> 4];
        out += hex[c & 0xF];
    }
  }
  out.append(bytes.data() + run, bytes.size() - run);
}


namespace {

void append_scalar(std::string& out, const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: out += "null"; break;
    case json::kind::bool_: out += v.get_bool() ? "true" : "false"; break;
    case json::kind::int64: fmt::format_to(std::back_inserter(out), "{}", v.get_int64()); break;
    case json::kind::uint64: fmt::format_to(std::back_inserter(out), "{}", v.get_uint64()); break;
    case json::kind::double_: {
      char buf[64];
      const double d = v.get_double();
      // A double built in memory may be non-finite; JSON has no such number.
      if (std::isfinite(d)) {
        out += shortest(d, buf);
      } else {
        out += "null";
      }
      break;
    }
    case json::kind::string: {
      const json::string& s = v.get_string();
      if (is_exact_number(v)) {
        out.append(s.data() + 1, s.size() - 1);
      } else {
        append_json_string(out, std::string_view(s.data(), s.size()));
      }
      break;
    }
    default: break;
  }
}

}  // namespace

void append_json(std::string& out, const json::value& root) {
  struct Open {
    const json::value* v;
    std::size_t next;
  };
  if (!root.is_array() && !root.is_object()) {
    append_scalar(out, root);
    return;
  }
  std::vector<Open> stack;
  stack.push_back({&root, 0});
  out += root.is_array() ? '[' : '{';
  while (!stack.empty()) {
    Open& top = stack.back();
    const json::value* child = nullptr;
    if (const json::array* arr = top.v->if_array()) {
      if (top.next == arr->size()) {
        out += ']';
        stack.pop_back();
        continue;
      }
      if (top.next > 0) out += ',';
      child = &(*arr)[top.next++];
    } else {
      const json::object& obj = top.v->get_object();
      if (top.next == obj.size()) {
        out += '}';
        stack.pop_back();
        continue;
      }
      if (top.next > 0) out += ',';
      const json::key_value_pair& m = *(obj.begin() + static_cast<std::ptrdiff_t>(top.next++));
      append_json_string(out, std::string_view(m.key().data(), m.key().size()));
      out += ':';
      child = &m.value();
    }
    if (child->is_array() || child->is_object()) {
      out += child->is_array() ? '[' : '{';
      stack.push_back({child, 0});
    } else {
      append_scalar(out, *child);
    }
  }
}

std::string serialize_json(const json::value& value) {
  std::string out;
  append_json(out, value);
  return out;
}

}  // namespace msptk
