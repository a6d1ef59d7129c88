#include "msptk/differ/comparer.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/normalizer/canonical.hpp"
#include "msptk/normalizer/path.hpp"

#include <boost/json/serialize.hpp>

#include <fmt/format.h>

namespace msptk {

namespace json = boost::json;

std::string_view to_string(FrameOutcome outcome) {
  switch (outcome) {
    case FrameOutcome::identical: return "identical";
    case FrameOutcome::equivalent: return "equivalent";
    case FrameOutcome::divergent: return "divergent";
  }
  return "divergent";
}

namespace {

// Parsed into `scope`'s arena: the DOMs of a comparison live while it runs (divergences keep
// text, the unifier canonical text), so they cost no malloc/free each.
std::optional<json::value> parse_message(const Frame& frame, const ArenaScope& scope) {
  auto value = parse_json(frame.json_text(), scope.storage());
  if (!value) return std::nullopt;
  return std::move(*value);
}

constexpr std::size_t kPreciseDepth = 64;  // levels below the masks where divergences are exact places

// Walks two parsed frames side by side, collecting divergences.
struct Walk {
  Unifier& unifier;
  const FrameRole& role;
  std::size_t expected_line, actual_line;
  std::vector<PathDivergence>& out;
  std::string location;

  const Masker& masker() const { return unifier.masker(); }

  MaskRule rule(std::size_t depth) const {
    return depth <= masker().max_depth() ? masker().rule_for(role, location, depth) : MaskRule{};
  }

  void diverge(const json::value* e, const json::value* a, std::string note = {}) {
    out.push_back(PathDivergence{location, e ? std::optional(compact_json(*e)) : std::nullopt,
                                 a ? std::optional(compact_json(*a)) : std::nullopt, std::move(note)});
  }

  // A place present on one side only.
  void one_sided(const json::value* e, const json::value* a, std::size_t depth) {
    MaskRule r = rule(depth);
    if (r.treatment == Treatment::ignore) return;
    diverge(e, a, r.treatment == Treatment::erase ? "erased values are still compared by presence" : "");
  }

  // Both sides have a value at `location` (depth steps).
  void child(const json::value& e, const json::value& a, std::size_t depth) {
    MaskRule r = rule(depth);
    switch (r.treatment) {
      case Treatment::ignore: return;
      case Treatment::unify:
      case Treatment::erase:
        if (auto note = unifier.compare(r, e, a, expected_line, actual_line)) diverge(&e, &a, std::move(*note));
        return;
      case Treatment::exact: node(e, a, depth); return;
    }
  }

  void node(const json::value& e, const json::value& a, std::size_t depth) {
    // Below every mask rule (and 64 levels more) a subtree is compared whole, without recursion:
    // a 10,000-deep frame must not exhaust the stack.
    if (depth > masker().max_depth() + kPreciseDepth) {
      if (!json_equal(e, a)) diverge(&e, &a, "the values differ below this place");
      return;
    }
    if (e.is_object() && a.is_object()) {
      const json::object& eo = e.get_object();
      const json::object& ao = a.get_object();
      for (const auto& m : eo) {
        const std::size_t mark = location.size();
        push_member(location, m.key());
        if (const json::value* other = ao.if_contains(m.key())) {
          child(m.value(), *other, depth + 1);
        } else {
          one_sided(&m.value(), nullptr, depth + 1);
        }
        location.resize(mark);
      }
      for (const auto& m : ao) {
        if (eo.contains(m.key())) continue;
        const std::size_t mark = location.size();
        push_member(location, m.key());
        one_sided(nullptr, &m.value(), depth + 1);
        location.resize(mark);
      }
      return;
    }
    if (e.is_array() && a.is_array()) {
      const json::array& ea = e.get_array();
      const json::array& aa = a.get_array();
      const std::size_t n = std::max(ea.size(), aa.size());
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t mark = location.size();
        fmt::format_to(std::back_inserter(location), "[{}]", i);
        if (i < ea.size() && i < aa.size()) {
          child(ea[i], aa[i], depth + 1);
        } else {
          one_sided(i < ea.size() ? &ea[i] : nullptr, i < aa.size() ? &aa[i] : nullptr, depth + 1);
        }
        location.resize(mark);
      }
      return;
    }
    if (!json_equal(e, a)) diverge(&e, &a);
  }
};

// Records the unified values of a frame both sides sent byte for byte (value paired with itself).
struct Absorb {
  Unifier& unifier;
  const FrameRole& role;
  std::size_t expected_line, actual_line;
  std::vector<PathDivergence>& out;
  std::string location;

  void node(const json::value& v, std::size_t depth) {
    const Masker& masker = unifier.masker();
    if (depth >= masker.max_depth()) return;
    auto visit = [&](const json::value& child) {
      MaskRule r = masker.rule_for(role, location, depth + 1);
      if (r.treatment == Treatment::unify || r.treatment == Treatment::erase) {
        if (auto note = unifier.compare(r, child, child, expected_line, actual_line)) {
          std::string text = compact_json(child);
          out.push_back(PathDivergence{location, text, text, std::move(*note)});
        }
      } else if (r.treatment == Treatment::exact) {
        node(child, depth + 1);
      }
    };
    if (const auto* obj = v.if_object()) {
      for (const auto& m : *obj) {
        const std::size_t mark = location.size();
        push_member(location, m.key());
        visit(m.value());
        location.resize(mark);
      }
    } else if (const auto* arr = v.if_array()) {
      for (std::size_t i = 0; i < arr->size(); ++i) {
        const std::size_t mark = location.size();
        fmt::format_to(std::back_inserter(location), "[{}]", i);
        visit((*arr)[i]);
        location.resize(mark);
      }
    }
  }
};

std::string kind_name(FrameKind kind) { return std::string(to_string(kind)); }

std::size_t first_difference(std::string_view a, std::string_view b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return i;
}

}  // namespace

std::vector<PathDivergence> client_info_changes(const FrameComparer& comparer) {
  std::vector<PathDivergence> out;
  for (std::size_t space : {kClientInfoName, kClientInfoVersion}) {
    const char* path = space == kClientInfoName ? "params.clientInfo.name" : "params.clientInfo.version";
    for (const auto& [expected, pairing] : comparer.unifier().bijection(space).pairings())
      if (pairing.actual != expected) out.push_back(PathDivergence{path, expected, pairing.actual, ""});
  }
  return out;
}

FrameComparer::FrameComparer(MaskSpec spec) : unifier_(Masker(std::move(spec))) {}

FrameComparison FrameComparer::absorb(const Frame& frame, std::size_t actual_line) {
  FrameComparison result;
  thread_local JsonArena arena;
  ArenaScope scope(arena);
  std::optional<json::value> message = parse_message(frame, scope);
  if (!message) return result;
  const FrameRole role = FrameRole::of(frame.dir, classify(*message));
  Absorb walk{unifier_, role, frame.line, actual_line, result.divergences, {}};
  walk.node(*message, 0);
  if (!result.divergences.empty()) result.outcome = FrameOutcome::divergent;
  return result;
}

FrameComparison FrameComparer::compare(const Frame& expected, const Frame& actual, const FrameRole& expected_role) {
  if (expected.dir == actual.dir && expected_role.dir == expected.dir && masker().masks_nothing(expected_role) &&
      expected.wire_bytes() == actual.wire_bytes())
    return FrameComparison{};
  return compare(expected, actual);
}

FrameComparison FrameComparer::compare(const Frame& expected, const Frame& actual) {
  FrameComparison result;
  if (expected.dir != actual.dir) {
    result.outcome = FrameOutcome::divergent;
    result.divergences.push_back(PathDivergence{"", serialize_json(json::string(expected.raw)),
                                                serialize_json(json::string(actual.raw)),
                                                fmt::format("expected a {} frame, got a {} frame",
                                                            to_string(expected.dir), to_string(actual.dir))});
    return result;
  }
  if (expected.wire_bytes() == actual.wire_bytes()) return absorb(expected, actual.line);
  if (expected.exact_bytes || actual.exact_bytes) {
    // A line with rawBase64 holds bytes that are not UTF-8, so not JSON: its bytes are the frame.
    result.outcome = FrameOutcome::divergent;
    result.divergences.push_back(PathDivergence{
        "", serialize_json(json::string(expected.raw)), serialize_json(json::string(actual.raw)),
        fmt::format("the frames' bytes differ ({} bytes vs {} bytes, first difference at byte {}); {} bytes that "
                    "are not UTF-8 (rawBase64), so they are compared byte for byte",
                    expected.wire_bytes().size(), actual.wire_bytes().size(),
                    first_difference(expected.wire_bytes(), actual.wire_bytes()),
                    expected.exact_bytes && actual.exact_bytes ? "both frames hold"
                    : expected.exact_bytes                     ? "the expected frame holds"
                                                               : "the actual frame holds")});
    return result;
  }
  thread_local JsonArena arena;
  ArenaScope scope(arena);
  std::optional<json::value> e = parse_message(expected, scope);
  std::optional<json::value> a = parse_message(actual, scope);
  if (!e || !a) {
    result.outcome = FrameOutcome::divergent;
    result.divergences.push_back(PathDivergence{
        "", serialize_json(json::string(expected.raw)), serialize_json(json::string(actual.raw)),
        !e && !a ? "neither frame is JSON; their bytes differ"
                 : fmt::format("the {} frame is not JSON", !e ? "expected" : "actual")});
    return result;
  }
  const Envelope ee = classify(*e);
  const Envelope ae = classify(*a);
  if (ee.kind != ae.kind) {
    result.divergences.push_back(PathDivergence{"", std::nullopt, std::nullopt,
                                                fmt::format("expected a {}, got a {}", kind_name(ee.kind),
                                                            kind_name(ae.kind))});
  }
  const FrameRole role = FrameRole::of(expected.dir, ee);
  Walk walk{unifier_, role, expected.line, actual.line, result.divergences, {}};
  walk.node(*e, *a, 0);
  result.outcome = result.divergences.empty() ? FrameOutcome::equivalent : FrameOutcome::divergent;
  return result;
}

}  // namespace msptk
