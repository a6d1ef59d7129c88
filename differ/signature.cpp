#include "msptk/differ/signature.hpp"

#include "msptk/normalizer/canonical.hpp"
#include "msptk/transcript/json_parse.hpp"

#include <fmt/format.h>

#include <cstring>
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

constexpr std::uint64_t kMasked = 0x9e3779b97f4a7c15ULL;

std::uint64_t mix(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

std::uint64_t combine(std::uint64_t seed, std::uint64_t h) { return mix(seed ^ (h + 0x9e3779b97f4a7c15ULL + (seed << 6))); }


struct KeyWalk {
  const Masker& masker;
  const FrameRole& role;
  std::string location;
  // Every place of the frame is exact (Masker::masks_nothing): no rule to ask, no location.
  bool exact = masker.masks_nothing(role);

  std::uint64_t scalar(const json::value& v) const {
    switch (v.kind()) {
      case json::kind::null: return 0x6e756c6cULL;
      case json::kind::bool_: return v.get_bool() ? 0x74727565ULL : 0x66616c73ULL;
      case json::kind::int64: return mix(static_cast<std::uint64_t>(v.get_int64()));
      case json::kind::uint64: return mix(v.get_uint64());
      case json::kind::double_: {
        double d = v.get_double();
        if (d == static_cast<double>(static_cast<std::int64_t>(d))) return mix(static_cast<std::uint64_t>(static_cast<std::int64_t>(d)));
        return mix(std::hash<double>{}(d));
      }
      case json::kind::string:
        // An exact number keys by its value, like the comparer compares it.
        if (is_exact_number(v)) return combine(0x6e756dULL, hash_bytes(canonical_number_text(v)));
        return combine(0x737472ULL, hash_bytes(v.get_string()));
      default: return 0;
    }
  }

  // Hash of the value at `location` (depth steps); nullopt for a place the mask ignores.
  std::optional<std::uint64_t> node(const json::value& v, std::size_t depth) {
    if (!exact && depth > 0 && depth <= masker.max_depth()) {
      MaskRule rule = masker.rule_for(role, location, depth);
      if (rule.treatment == Treatment::ignore) return std::nullopt;
      if (rule.treatment != Treatment::exact) return kMasked;
    }
    // Below every mask rule a subtree is exact: key it by its canonical text, without recursion
    // (a 10,000-deep frame must not exhaust the stack).
    if (depth > masker.max_depth() + 64 && (v.is_object() || v.is_array())) {
      return combine(0x646565ULL, hash_bytes(canonical_json(v)));
    }
    if (const auto* obj = v.if_object()) {
      std::uint64_t sum = 0x6f626aULL;  // members combine order-free
      for (const auto& m : *obj) {
        const std::size_t mark = location.size();
        if (!exact && depth < masker.max_depth()) push_member(location, m.key());
        if (auto h = node(m.value(), depth + 1)) sum += combine(hash_bytes(m.key()), *h);
        location.resize(mark);
      }
      return mix(sum);
    }
    if (const auto* arr = v.if_array()) {
      std::uint64_t h = 0x617272ULL;
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

__extension__ typedef unsigned __int128 Wide;  // GCC and Clang

std::uint64_t hash_bytes(std::string_view bytes) {
  auto fold = [](std::uint64_t a, std::uint64_t b) {
    const Wide r = static_cast<Wide>(a) * b;
    return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
  };
  constexpr std::uint64_t k1 = 0xa0761d6478bd642fULL, k2 = 0xe7037ed1a0b428dbULL, k3 = 0x8ebc6af09c88c6e3ULL;
  const char* p = bytes.data();
  std::size_t n = bytes.size();
  std::uint64_t seed = k1 ^ fold(n ^ k2, k3);
  while (n > 16) {
    std::uint64_t a, b;
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + 8, 8);
    seed = fold(a ^ k2, b ^ seed);
    p += 16;
    n -= 16;
  }
  std::uint64_t a = 0, b = 0;
  if (n >= 8) {  // 8 to 16 bytes: the first and the last 8 (they may overlap)
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + n - 8, 8);
  } else if (n >= 4) {
    std::uint32_t x, y;
    std::memcpy(&x, p, 4);
    std::memcpy(&y, p + n - 4, 4);
    a = x;
    b = y;
  } else if (n > 0) {
    const auto* u = reinterpret_cast<const unsigned char*>(p);
    a = (std::uint64_t{u[0]} << 16) | (std::uint64_t{u[n / 2]} << 8) | u[n - 1];
  }
  return fold(fold(a ^ k2, b ^ seed) ^ k3, bytes.size() ^ k1);
}

}  // namespace msptk
