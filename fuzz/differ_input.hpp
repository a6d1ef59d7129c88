// The input layout the differ and differ_files targets share: a flags byte (the mask, see
// fuzz_support.hpp; bits 6-7 the side: 0 both, 1 client, 2 server), then transcript A, then
// optionally a NUL and transcript B. Each side is its first kMaxFrames frames (small inputs:
// thousands of executions a second).
#pragma once

#include "fuzz_support.hpp"

#include "msptk/differ/diff.hpp"

#include <optional>
#include <vector>

namespace msptk::fuzz {

struct DifferInput {
  static constexpr std::size_t kMaxFrames = 12;

  std::vector<Frame> a;
  std::optional<std::vector<Frame>> b;  // nullopt: the input has no NUL
  DiffOptions options;
};

inline std::optional<DifferInput> differ_input(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return std::nullopt;
  const std::uint8_t flags = data[0];
  const auto [a_text, b_text] = split_at_nul(as_text(data + 1, size - 1));
  DifferInput in;
  in.a = frames_of(a_text, DifferInput::kMaxFrames);
  if (b_text) in.b = frames_of(*b_text, DifferInput::kMaxFrames);
  in.options.mask = mask_from_flags(flags);
  const int side_bits = flags >> 6;
  in.options.side = side_bits == 1 ? Side::client : side_bits == 2 ? Side::server : Side::both;
  return in;
}

}  // namespace msptk::fuzz
