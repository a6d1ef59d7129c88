#include "msptk/differ/signature.hpp"

#include "msptk/transcript/key_hash.hpp"

#include "msptk/normalizer/canonical.hpp"
#include "msptk/transcript/json_parse.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>

namespace msptk {

namespace json = boost::json;

std::string Signature::text() const {
  switch (kind) {
    case FrameKind::request: return fmt::format("{} request {}", to_string(dir), method);
    case FrameKind::notification: return fmt::format("{} notification {}", to_string(dir), method);
    case FrameKind::response:
      return fmt::format("{} response to {}", to_string(dir), method.empty() ? "no request" : method);
    case FrameKind::invalid: return fmt::format("{} invalid frame", to_string(dir));
  }
  return {};
}

Signature SignatureTracker::observe(const Frame& frame, const Envelope& envelope) {
  Signature sig{frame.dir, envelope.kind, envelope.method};
  Correlator::Outcome outcome = correlator_.observe(frame.dir, envelope, frame.line);
  if (envelope.kind == FrameKind::response) sig.method = outcome.answered ? outcome.answered->method : std::string();
  return sig;
}

namespace {

using key_hash::combine;
using key_hash::mix;

struct KeyWalk {
  const Masker& masker;
  const FrameRole& role;
  std::string location;
  // Every place of the frame is exact (Masker::masks_nothing): no rule to ask, no location.
  bool exact = masker.masks_nothing(role);

  std::uint64_t scalar(const json::value& v) const {
    switch (v.kind()) {
      case json::kind::null: return key_hash::kNull;
      case json::kind::bool_: return v.get_bool() ? key_hash::kTrue : key_hash::kFalse;
      case json::kind::int64: return mix(static_cast<std::uint64_t>(v.get_int64()));
      case json::kind::uint64: return mix(v.get_uint64());
      case json::kind::double_: {
        // A whole number keys as the integer of that value would (only within the integer types'
        // ranges: converting a double out of range is undefined; a fuzz finding).
        const double d = v.get_double();
        constexpr double k2to63 = 9223372036854775808.0;
        if (d == std::trunc(d)) {
          if (d >= -k2to63 && d < k2to63) return mix(static_cast<std::uint64_t>(static_cast<std::int64_t>(d)));
          if (d >= 0 && d < 2 * k2to63) return mix(static_cast<std::uint64_t>(d));
        }
        return mix(std::hash<double>{}(d));
      }
      case json::kind::string:
        // An exact number keys by its value, like the comparer compares it.
        if (is_exact_number(v)) return combine(key_hash::kNumber, hash_bytes(canonical_number_text(v)));
        return combine(key_hash::kString, hash_bytes(v.get_string()));
      default: return 0;
    }
  }

  // Hash of the value at `location` (depth steps); nullopt for a place the mask ignores.
  std::optional<std::uint64_t> node(const json::value& v, std::size_t depth) {
    if (!exact && depth > 0 && depth <= masker.max_depth()) {
      MaskRule rule = masker.rule_for(role, location, depth);
      if (rule.treatment == Treatment::ignore) return std::nullopt;
      if (rule.treatment != Treatment::exact) return key_hash::kMasked;
    }
    // Below every mask rule a subtree is exact: key it by its canonical text, without recursion
    // (a 10,000-deep frame must not exhaust the stack).
    if (depth > masker.max_depth() + 64 && (v.is_object() || v.is_array())) {
      return combine(key_hash::kDeep, hash_bytes(canonical_json(v)));
    }
    if (const auto* obj = v.if_object()) {
      std::uint64_t sum = key_hash::kObject;  // members combine order-free
      for (const auto& m : *obj) {
        const std::size_t mark = location.size();
        if (!exact && depth < masker.max_depth()) push_member(location, m.key());
        if (auto h = node(m.value(), depth + 1)) sum += combine(hash_bytes(m.key()), *h);
        location.resize(mark);
      }
      return mix(sum);
    }
    if (const auto* arr = v.if_array()) {
      std::uint64_t h = key_hash::kArray;
      for (std::size_t i = 0; i < arr->size(); ++i) {
        const std::size_t mark = location.size();
        if (!exact && depth < masker.max_depth()) fmt::format_to(std::back_inserter(location), "[{}]", i);
        h = combine(h, node((*arr)[i], depth + 1).value_or(0));
        location.resize(mark);
      }
      return h;
    }
    return scalar(v);
  }
};

}  // namespace

std::uint64_t content_key(const Masker& masker, const FrameRole& role, const json::value& message) {
  KeyWalk walk{masker, role, {}};
  return walk.node(message, 0).value_or(0);
}

std::uint64_t hash_bytes(std::string_view bytes) { return key_hash::bytes(bytes); }

}  // namespace msptk
