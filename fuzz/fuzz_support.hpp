// Fuzz support: what every libFuzzer target of fuzz/ shares. A target is one file defining
// LLVMFuzzerTestOneInput over msptk's libraries; it is linked twice: with libFuzzer (clang,
// -fsanitize=fuzzer,address,undefined; `make fuzz`) and with replay_main.cpp (any compiler;
// `make test` replays tests/fuzz-regressions/<target>/ through it). An invariant that does not
// hold is reported on stderr and ends the process with abort(), which both drivers treat as a
// failure.
//
// Input layouts built from these pieces (make_seeds.cpp writes seeds in them):
// - a transcript text: NDJSON lines, each parsed with parse_transcript_line; lines that are not
//   frames are left out (the transcript_line target covers them);
// - a flags byte in front of some inputs: bits 0-4 declare the builtin registry's paths (id,
//   params.commandId, params.turnId, params.itemId, result.session.sessionId), bit 5 selects
//   erase mode, bits 6-7 are the target's own;
// - two parts separated by the first NUL byte (a NUL is never part of a transcript line's text).
#pragma once

#include "msptk/normalizer/mask.hpp"
#include "msptk/normalizer/registry.hpp"
#include "msptk/transcript/frame.hpp"
#include "msptk/transcript/reader.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace msptk::fuzz {

// Reports a broken invariant and aborts (libFuzzer saves the input as a crash).
#define MSPTK_FUZZ_CHECK(condition, ...)                                                            \
  do {                                                                                              \
    if (!(condition)) {                                                                             \
      std::fprintf(stderr, "fuzz invariant violated at %s:%d: %s\n  %s\n", __FILE__, __LINE__,     \
                   #condition, ::fmt::format(__VA_ARGS__).c_str());                                 \
      std::abort();                                                                                 \
    }                                                                                               \
  } while (0)

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Splits at the first NUL: {before, after}; `after` is nullopt when there is no NUL.
inline std::pair<std::string_view, std::optional<std::string_view>> split_at_nul(std::string_view text) {
  const std::size_t nul = text.find('\0');
  if (nul == std::string_view::npos) return {text, std::nullopt};
  return {text.substr(0, nul), text.substr(nul + 1)};
}

// The lines of a text, without their LF (a last line without LF included when not empty).
inline std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const std::size_t lf = text.find('\n');
    out.push_back(text.substr(0, lf));
    if (lf == std::string_view::npos) break;
    text.remove_prefix(lf + 1);
  }
  return out;
}

// The frames of a transcript text (at most `max_frames`); lines that are not frames are left
// out. A trailing CR is dropped as TranscriptReader does.
inline std::vector<Frame> frames_of(std::string_view text, std::size_t max_frames = SIZE_MAX) {
  std::vector<Frame> frames;
  std::size_t line = 0;
  for (std::string_view l : lines_of(text)) {
    if (frames.size() >= max_frames) break;
    ++line;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    Result<Frame> frame = parse_transcript_line(l, "fuzz.ndjson", line);
    if (frame) frames.push_back(std::move(*frame));
  }
  return frames;
}

// The frames with a space in front of each one that parses as JSON (the differ targets: whitespace
// is free in a structural comparison). Lines with rawBase64 are left
// alone: their bytes are the frame, compared byte for byte (a space there is a divergence).
inline std::vector<Frame> padded(const std::vector<Frame>& frames) {
  std::vector<Frame> out = frames;
  for (Frame& f : out) {
    if (f.exact_bytes || !f.parse("fuzz.ndjson")) continue;
    f.raw = " " + f.raw;
  }
  return out;
}

// The builtin registry, made once.
inline const Registry& builtin_registry() {
  static const Registry registry = Registry::builtin();
  return registry;
}

// The MaskSpec a flags byte selects (see the top of this file).
inline MaskSpec mask_from_flags(std::uint8_t flags) {
  std::vector<std::string> paths;
  const auto& builtin = builtin_registry().paths();
  for (std::size_t i = 0; i < builtin.size() && i < 5; ++i)
    if (flags & (1u << i)) paths.push_back(builtin[i].text());
  Result<MaskSpec> spec = make_mask_spec(builtin_registry(), {}, "fuzz-manifest.json", 0, paths,
                                         (flags & 0x20) ? MaskMode::erase : MaskMode::unify);
  MSPTK_FUZZ_CHECK(spec.has_value(), "a builtin path was refused: {}", spec ? "" : spec.error().render());
  return std::move(*spec);
}

}  // namespace msptk::fuzz
