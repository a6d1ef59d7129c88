// A chaos spec says how a live verb (serve-fixture, replay) delivers the recorded frames the
// way a real pipe behaves at its worst, without changing a byte of any frame: `split` (each
// frame msptk writes cut into several writes at random boundaries, inside a UTF-8 code point
// and right before the LF included, with small pauses between them), `merge` (several
// consecutive frames in one write), `delay=MS` (a random pause up to MS before each frame),
// `cr` (client frames end in CR LF: replay only, where msptk is the client), `stall=MS` (msptk
// stops reading its peer's output for MS at a random point) and `close-after=N` (the peer's
// input is closed after N frames: a crash of the other side). Perturbations combine
// (`split,merge,delay=5`); a seed makes a run repeatable. A ChaosRun is the spec with its seed:
// what reports and recordings name ("split,merge (seed 42)").
#pragma once

#include "msptk/transcript/error.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace msptk::chaos {

struct ChaosSpec {
  bool split = false;
  bool merge = false;
  bool cr = false;
  std::optional<unsigned> delay_ms;       // delay=MS
  std::optional<unsigned> stall_ms;       // stall=MS
  std::optional<std::size_t> close_after;  // close-after=N (N >= 1)

  // Any perturbation of how msptk's writes are cut (split, merge, delay, cr).
  bool perturbs_writes() const { return split || merge || cr || delay_ms.has_value(); }
  bool empty() const { return !perturbs_writes() && !stall_ms && !close_after; }
};

// The largest MS of delay= and stall= (a minute); larger is refused, not clamped.
inline constexpr unsigned kMaxChaosMs = 60000;

// Which verb the spec is for: `cr` applies to replay only (msptk is the client there).
enum class ChaosRole { server, client };

// Parses "split,merge,delay=5": comma-separated perturbations, each at most once. A bad part is
// a usage error (exit 2) that quotes it and says what is expected: an unknown name, a missing
// or malformed value, a value out of range, a repeated part, an empty part, `cr` where msptk is
// not the client.
Result<ChaosSpec> parse_chaos_spec(std::string_view text, ChaosRole role);

// The canonical spelling, in a fixed order: "split,merge,cr,delay=5,stall=20,close-after=3".
std::string to_string(const ChaosSpec& spec);

// Parses --chaos-seed: a decimal number 0..2^64-1.
Result<std::uint64_t> parse_chaos_seed(std::string_view text);

// A seed from the system's entropy source (the default when --chaos-seed is not given).
std::uint64_t random_seed();

struct ChaosRun {
  ChaosSpec spec;
  std::uint64_t seed = 0;

  // "split,merge (seed 42)".
  std::string label() const;
};

}  // namespace msptk::chaos
