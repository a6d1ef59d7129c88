// A linear-time matcher for JSON Schema patterns (pattern.hpp): a parser of the ECMA-262
// syntax into a small tree, compiled to a Thompson NFA, run as a Pike VM.
#include "msptk/schema/pattern.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

namespace msptk::schema {

namespace {

constexpr char32_t kLastCodePoint = 0x10FFFF;
// A byte that is not part of a UTF-8 sequence is the "code point" 0x110000 + byte.
constexpr char32_t kByteBase = 0x110000;
constexpr char32_t kDomainEnd = kByteBase + 0xFF;
constexpr int kMaxNesting = 200;

// The code point at s[i], and where the next one starts.
char32_t decode(std::string_view s, std::size_t& i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    ++i;
    return c;
  }
  std::size_t len = 0;
  char32_t cp = 0, min = 0;
  if ((c & 0xE0) == 0xC0) len = 2, cp = c & 0x1Fu, min = 0x80;
  else if ((c & 0xF0) == 0xE0) len = 3, cp = c & 0x0Fu, min = 0x800;
  else if ((c & 0xF8) == 0xF0) len = 4, cp = c & 0x07u, min = 0x10000;
  bool ok = len > 0 && i + len <= s.size();
  for (std::size_t k = 1; ok && k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    ok = (b & 0xC0) == 0x80;
    cp = (cp << 6) | (b & 0x3Fu);
  }
  if (!ok || cp < min || cp > kLastCodePoint) {
    ++i;
    return kByteBase + c;
  }
  i += len;
  return cp;
}

// A set of code points as sorted, disjoint, non-adjacent ranges.
struct CharSet {
  std::vector<std::pair<char32_t, char32_t>> ranges;

  void add(char32_t lo, char32_t hi) { ranges.emplace_back(lo, hi); }
  void add(const CharSet& other) { ranges.insert(ranges.end(), other.ranges.begin(), other.ranges.end()); }
  CharSet& normalize() {
    std::sort(ranges.begin(), ranges.end());
    std::vector<std::pair<char32_t, char32_t>> out;
    for (const auto& r : ranges) {
      if (!out.empty() && r.first <= out.back().second + 1) out.back().second = std::max(out.back().second, r.second);
      else out.push_back(r);
    }
    ranges = std::move(out);
    return *this;
  }
  CharSet complement() const {
    CharSet out;
    char32_t next = 0;
    for (const auto& [lo, hi] : ranges) {
      if (lo > next) out.add(next, lo - 1);
      next = hi + 1;
    }
    if (next <= kDomainEnd) out.add(next, kDomainEnd);
    return out;
  }
  bool contains(char32_t c) const {
    auto it = std::upper_bound(ranges.begin(), ranges.end(), std::make_pair(c, kDomainEnd));
    return it != ranges.begin() && std::prev(it)->second >= c;
  }
};

CharSet digits() {
  CharSet s;
  s.add('0', '9');
  return s;
}
CharSet word() {
  CharSet s;
  s.add('0', '9'), s.add('A', 'Z'), s.add('_', '_'), s.add('a', 'z');
  return s.normalize();
}
CharSet space() {
  CharSet s;
  for (auto [lo, hi] : {std::pair<char32_t, char32_t>{0x09, 0x0D}, {0x20, 0x20}, {0xA0, 0xA0}, {0x1680, 0x1680},
                        {0x2000, 0x200A}, {0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000},
                        {0xFEFF, 0xFEFF}})
    s.add(lo, hi);
  return s.normalize();
}
CharSet dot() {  // everything but the line terminators
  CharSet s;
  s.add('\n', '\n'), s.add('\r', '\r'), s.add(0x2028, 0x2029);
  return s.normalize().complement();
}
bool is_word(char32_t c) { return c < 0x80 && (std::isalnum(static_cast<int>(c)) || c == '_'); }

struct Node {
  enum Kind { empty, set, concat, alternation, repeat, begin, end, word_boundary, not_word_boundary } kind = empty;
  CharSet chars;             // set
  std::vector<Node> parts;   // concat, alternation, repeat (one part)
  std::size_t min = 0, max = 0;
  bool unbounded = false;
};

// The pattern's syntax, read by recursive descent over the pattern (nesting bounded by
// kMaxNesting); the text matched later is never recursed over.
class Parser {
 public:
  explicit Parser(std::string_view pattern) {
    for (std::size_t i = 0; i < pattern.size();) cps_.push_back(decode(pattern, i));
  }

  Node parse() {
    Node n = disjunction(0);
    if (error.empty() && pos_ < cps_.size()) fail(fmt::format("an unmatched ')' at offset {}", pos_));
    return n;
  }

  std::string error;

 private:
  std::vector<char32_t> cps_;
  std::size_t pos_ = 0;

  bool at_end() const { return pos_ >= cps_.size(); }
  char32_t peek(std::size_t ahead = 0) const { return pos_ + ahead < cps_.size() ? cps_[pos_ + ahead] : 0; }
  void fail(std::string what) {
    if (error.empty()) error = std::move(what);
  }

  Node disjunction(int depth) {
    if (depth > kMaxNesting) {
      fail(fmt::format("groups nested deeper than {}", kMaxNesting));
      return {};
    }
    Node alt;
    alt.kind = Node::alternation;
    alt.parts.push_back(alternative(depth));
    while (error.empty() && !at_end() && peek() == '|') {
      ++pos_;
      alt.parts.push_back(alternative(depth));
    }
    if (alt.parts.size() == 1) return std::move(alt.parts[0]);
    return alt;
  }

  Node alternative(int depth) {
    Node seq;
    seq.kind = Node::concat;
    while (error.empty() && !at_end() && peek() != '|' && peek() != ')') {
      Node atom;
      bool quantifiable = true;
      const char32_t c = peek();
      if (c == '^' || c == '$') {
        ++pos_;
        atom.kind = c == '^' ? Node::begin : Node::end;
        quantifiable = false;
      } else if (c == '\\' && (peek(1) == 'b' || peek(1) == 'B')) {
        atom.kind = peek(1) == 'b' ? Node::word_boundary : Node::not_word_boundary;
        pos_ += 2;
        quantifiable = false;
      } else if (c == '(') {
        ++pos_;
        if (peek() == '?') {
          if (peek(1) == ':') {
            pos_ += 2;
          } else if (peek(1) == '<' && peek(2) != '=' && peek(2) != '!') {
            pos_ += 2;
            while (!at_end() && peek() != '>') ++pos_;
            if (at_end()) fail("an unterminated group name");
            ++pos_;
          } else {
            fail("lookaround ((?=, (?!, (?<=, (?<!), which has no linear-time matcher");
            return seq;
          }
        }
        atom = disjunction(depth + 1);
        if (peek() != ')') fail("an unterminated group");
        ++pos_;
      } else if (c == '[') {
        ++pos_;
        atom.kind = Node::set;
        atom.chars = char_class();
      } else if (c == '.') {
        ++pos_;
        atom.kind = Node::set;
        atom.chars = dot();
      } else if (c == '\\') {
        ++pos_;
        atom.kind = Node::set;
        atom.chars = escape(false);
      } else if (c == '*' || c == '+' || c == '?' || (c == '{' && quantifier_ahead())) {
        fail(fmt::format("nothing to repeat at offset {}", pos_));
        return seq;
      } else {
        ++pos_;
        atom.kind = Node::set;
        atom.chars.add(c, c);
      }
      if (quantifiable) quantify(atom);
      seq.parts.push_back(std::move(atom));
    }
    if (seq.parts.size() == 1) return std::move(seq.parts[0]);
    return seq;
  }

  // {n}, {n,} or {n,m} at pos_.
  bool quantifier_ahead() const {
    std::size_t i = pos_ + 1;
    auto digits_at = [&](std::size_t& k) {
      const std::size_t start = k;
      while (k < cps_.size() && cps_[k] >= '0' && cps_[k] <= '9') ++k;
      return k > start;
    };
    if (!digits_at(i)) return false;
    if (i < cps_.size() && cps_[i] == ',') {
      ++i;
      digits_at(i);
    }
    return i < cps_.size() && cps_[i] == '}';
  }

  std::size_t number() {
    std::size_t n = 0;
    while (!at_end() && peek() >= '0' && peek() <= '9') {
      n = std::min<std::size_t>(n * 10 + (peek() - '0'), Pattern::kMaxStates + 1);
      ++pos_;
    }
    return n;
  }

  void quantify(Node& atom) {
    if (at_end()) return;
    std::size_t min = 0, max = 0;
    bool unbounded = false;
    const char32_t c = peek();
    if (c == '*') min = 0, unbounded = true, ++pos_;
    else if (c == '+') min = 1, unbounded = true, ++pos_;
    else if (c == '?') min = 0, max = 1, ++pos_;
    else if (c == '{' && quantifier_ahead()) {
      ++pos_;
      min = max = number();
      if (peek() == ',') {
        ++pos_;
        if (peek() == '}') unbounded = true;
        else max = number();
      }
      ++pos_;  // '}'
      if (!unbounded && max < min) fail("a repetition {n,m} with m < n");
    } else {
      return;
    }
    if (peek() == '?') ++pos_;  // lazy: the same yes/no answer
    Node rep;
    rep.kind = Node::repeat;
    rep.min = min;
    rep.max = max;
    rep.unbounded = unbounded;
    rep.parts.push_back(std::move(atom));
    atom = std::move(rep);
  }

  char32_t hex(std::size_t digits_wanted) {
    char32_t v = 0;
    for (std::size_t k = 0; k < digits_wanted; ++k) {
      const char32_t d = peek();
      int x = d >= '0' && d <= '9' ? int(d - '0') : d >= 'a' && d <= 'f' ? int(d - 'a' + 10) : d >= 'A' && d <= 'F' ? int(d - 'A' + 10) : -1;
      if (x < 0) {
        fail("a malformed hexadecimal escape");
        return 0;
      }
      v = v * 16 + static_cast<char32_t>(x);
      ++pos_;
    }
    return v;
  }

  // After a backslash (consumed): the set the escape stands for.
  CharSet escape(bool in_class) {
    CharSet s;
    if (at_end()) {
      fail("a pattern ending in a backslash");
      return s;
    }
    const char32_t c = peek();
    ++pos_;
    auto one = [&](char32_t v) {
      s.add(v, v);
      return s;
    };
    switch (c) {
      case 'd': return digits();
      case 'D': return digits().complement();
      case 'w': return word();
      case 'W': return word().complement();
      case 's': return space();
      case 'S': return space().complement();
      case 'n': return one('\n');
      case 'r': return one('\r');
      case 't': return one('\t');
      case 'f': return one('\f');
      case 'v': return one('\v');
      case 'b': return one(0x08);  // only reached inside a class
      case 'c':
        if ((peek() >= 'a' && peek() <= 'z') || (peek() >= 'A' && peek() <= 'Z')) {
          const char32_t letter = peek();
          ++pos_;
          return one(letter % 32);
        }
        --pos_;
        return one('\\');
      case 'x': return one(hex(2));
      case 'u':
        if (peek() == '{') {
          ++pos_;
          char32_t v = 0;
          std::size_t n = 0;
          while (!at_end() && peek() != '}' && error.empty() && n++ < 8) v = v * 16 + hex(1);
          if (peek() != '}') fail("a malformed \\u{...} escape");
          ++pos_;
          return one(v);
        }
        return one(hex(4));
      case 'p':
      case 'P': fail("a Unicode property escape (\\p{...}), which msptk's linear matcher does not know"); return s;
      case 'k':
        if (!in_class) {
          fail("a back-reference (\\k<name>), which has no linear-time matcher");
          return s;
        }
        return one('k');
      default: break;
    }
    if (c == '0' && !(peek() >= '0' && peek() <= '9')) return one(0);
    if (c >= '1' && c <= '9') {
      if (!in_class) {
        fail(fmt::format("a back-reference (\\{}), which has no linear-time matcher", static_cast<char>(c)));
        return s;
      }
      return one(c);
    }
    return one(c);  // an identity escape: \. \/ \- \\ ...
  }

  // After '[' (consumed), up to and including ']'.
  CharSet char_class() {
    CharSet s;
    bool negated = false;
    if (peek() == '^') {
      negated = true;
      ++pos_;
    }
    while (error.empty()) {
      if (at_end()) {
        fail("an unterminated character class");
        break;
      }
      if (peek() == ']') {
        ++pos_;
        break;
      }
      auto atom = [&](bool& single, char32_t& value) {
        CharSet a;
        if (peek() == '\\') {
          ++pos_;
          a = escape(true);
        } else {
          a.add(peek(), peek());
          ++pos_;
        }
        single = a.ranges.size() == 1 && a.ranges[0].first == a.ranges[0].second;
        value = single ? a.ranges[0].first : 0;
        return a;
      };
      bool single_lo = false, single_hi = false;
      char32_t lo = 0, hi = 0;
      CharSet first = atom(single_lo, lo);
      if (peek() == '-' && peek(1) != ']' && pos_ + 1 < cps_.size()) {
        ++pos_;
        CharSet second = atom(single_hi, hi);
        if (single_lo && single_hi) {
          if (hi < lo) fail("a class range out of order");
          s.add(lo, hi);
        } else {  // [\d-x]: the sets and a literal '-'
          s.add(first);
          s.add(second);
          s.add('-', '-');
        }
        continue;
      }
      s.add(first);
    }
    s.normalize();
    return negated ? s.complement() : s;
  }
};

enum class Op : std::uint8_t { set, split, jump, match, begin, end, word_boundary, not_word_boundary };
struct Inst {
  Op op = Op::match;
  std::uint32_t x = 0, y = 0;  // split: both; jump: x; set: x is the set's index
};

}  // namespace

struct Pattern::Program {
  std::vector<Inst> code;
  std::vector<CharSet> sets;
};

namespace {

class Compiler {
 public:
  Pattern::Program program;
  bool too_large = false;

  void emit(const Node& root) {
    // An explicit stack: a Node is compiled when popped; `after` runs after it (patching
    // jumps). The tree's depth is bounded by the parser, but repetitions copy subtrees.
    node(root);
    push(Inst{Op::match});
  }

 private:
  std::uint32_t push(Inst i) {
    if (program.code.size() >= Pattern::kMaxStates) too_large = true;
    program.code.push_back(i);
    return static_cast<std::uint32_t>(program.code.size() - 1);
  }
  std::uint32_t here() const { return static_cast<std::uint32_t>(program.code.size()); }

  void node(const Node& n) {
    if (too_large) return;
    switch (n.kind) {
      case Node::empty: return;
      case Node::set:
        program.sets.push_back(n.chars);
        push(Inst{Op::set, static_cast<std::uint32_t>(program.sets.size() - 1)});
        return;
      case Node::begin: push(Inst{Op::begin}); return;
      case Node::end: push(Inst{Op::end}); return;
      case Node::word_boundary: push(Inst{Op::word_boundary}); return;
      case Node::not_word_boundary: push(Inst{Op::not_word_boundary}); return;
      case Node::concat:
        for (const Node& p : n.parts) node(p);
        return;
      case Node::alternation: {
        std::vector<std::uint32_t> exits;
        for (std::size_t i = 0; i < n.parts.size() && !too_large; ++i) {
          if (i + 1 < n.parts.size()) {
            const std::uint32_t split = push(Inst{Op::split});
            program.code[split].x = here();
            node(n.parts[i]);
            exits.push_back(push(Inst{Op::jump}));
            program.code[split].y = here();
          } else {
            node(n.parts[i]);
          }
        }
        for (std::uint32_t e : exits) program.code[e].x = here();
        return;
      }
      case Node::repeat: {
        for (std::size_t i = 0; i < n.min && !too_large; ++i) node(n.parts[0]);
        if (n.unbounded) {
          const std::uint32_t split = push(Inst{Op::split});
          program.code[split].x = here();
          node(n.parts[0]);
          push(Inst{Op::jump, split});
          program.code[split].y = here();
        } else {
          std::vector<std::uint32_t> splits;
          for (std::size_t i = n.min; i < n.max && !too_large; ++i) {
            const std::uint32_t split = push(Inst{Op::split});
            program.code[split].x = here();
            splits.push_back(split);
            node(n.parts[0]);
          }
          for (std::uint32_t s : splits) program.code[s].y = here();
        }
        return;
      }
    }
  }
};

}  // namespace

std::variant<Pattern, std::string> Pattern::compile(std::string_view pattern) {
  Parser parser(pattern);
  Node root = parser.parse();
  if (!parser.error.empty()) return parser.error;
  Compiler compiler;
  compiler.emit(root);
  if (compiler.too_large)
    return fmt::format("repetitions that make more than {} matcher states", Pattern::kMaxStates);
  Pattern p;
  p.program_ = std::make_shared<const Program>(std::move(compiler.program));
  return p;
}

bool Pattern::search(std::string_view text) const {
  const std::vector<Inst>& code = program_->code;
  const std::vector<CharSet>& sets = program_->sets;
  // Per position: the states reached (a sparse set by generation), those that read a code
  // point, and a stack for the epsilon closure (no recursion).
  std::vector<std::uint32_t> mark(code.size(), 0);
  std::uint32_t generation = 0;
  std::vector<std::uint32_t> readers, next, stack;
  char32_t before = 0;  // the code point before the position (none at 0)
  bool have_before = false;
  for (std::size_t pos = 0;;) {
    ++generation;
    readers.clear();
    std::size_t after_pos = pos;
    const bool at_end = pos >= text.size();
    const char32_t current = at_end ? 0 : decode(text, after_pos);
    const bool boundary = (have_before && is_word(before)) != (!at_end && is_word(current));
    stack.assign(next.rbegin(), next.rend());
    stack.push_back(0);  // a match may start at any position
    while (!stack.empty()) {
      const std::uint32_t pc = stack.back();
      stack.pop_back();
      if (mark[pc] == generation) continue;
      mark[pc] = generation;
      const Inst& i = code[pc];
      switch (i.op) {
        case Op::match: return true;
        case Op::set: readers.push_back(pc); break;
        case Op::jump: stack.push_back(i.x); break;
        case Op::split:
          stack.push_back(i.y);
          stack.push_back(i.x);
          break;
        case Op::begin:
          if (pos == 0) stack.push_back(pc + 1);
          break;
        case Op::end:
          if (at_end) stack.push_back(pc + 1);
          break;
        case Op::word_boundary:
          if (boundary) stack.push_back(pc + 1);
          break;
        case Op::not_word_boundary:
          if (!boundary) stack.push_back(pc + 1);
          break;
      }
    }
    if (at_end) return false;
    next.clear();
    for (std::uint32_t pc : readers)
      if (sets[code[pc].x].contains(current)) next.push_back(pc + 1);
    before = current;
    have_before = true;
    pos = after_pos;
  }
}

namespace detail {

bool pattern_matches(const std::string& pattern, std::string_view text) {
  thread_local std::unordered_map<std::string, std::optional<Pattern>> cache;
  auto it = cache.find(pattern);
  if (it == cache.end()) {
    auto compiled = Pattern::compile(pattern);
    std::optional<Pattern> p;
    if (auto* ok = std::get_if<Pattern>(&compiled)) p = std::move(*ok);
    it = cache.emplace(pattern, std::move(p)).first;
  }
  return it->second && it->second->search(text);
}

}  // namespace detail

}  // namespace msptk::schema
