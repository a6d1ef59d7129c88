// Key hashing: the few arithmetic steps a content key is made of (differ/signature.hpp). A
// content key folds the hashes of a frame's parts bottom up: `mix` finalizes one 64-bit value,
// `combine` folds a child's hash into its parent's, and each kind of JSON value starts from its
// own tag. The general path (KeyWalk over a parsed DOM, differ/signature.cpp) and the text
// scanner (notification_text_key, transcript/text_key.hpp) both use exactly these definitions, so
// the two can never drift apart. They live here, below the differ, because the validator uses
// the text key too (a notification checked without a DOM) and must not depend on the differ.
// The values are never written anywhere and may change between versions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace msptk::key_hash {

inline constexpr std::uint64_t kMasked = 0x9e3779b97f4a7c15ULL;  // a masked place
inline constexpr std::uint64_t kNull = 0x6e756c6cULL;             // "null"
inline constexpr std::uint64_t kTrue = 0x74727565ULL;             // "true"
inline constexpr std::uint64_t kFalse = 0x66616c73ULL;            // "fals"
inline constexpr std::uint64_t kObject = 0x6f626aULL;             // "obj": members add up order-free
inline constexpr std::uint64_t kArray = 0x617272ULL;              // "arr": elements combine in order
inline constexpr std::uint64_t kString = 0x737472ULL;             // "str"
inline constexpr std::uint64_t kNumber = 0x6e756dULL;             // "num": an exact number's canonical text
inline constexpr std::uint64_t kDeep = 0x646565ULL;               // "dee": a subtree keyed by its canonical text

// The MurmurHash3 64-bit finalizer.
inline std::uint64_t mix(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

inline std::uint64_t combine(std::uint64_t seed, std::uint64_t h) {
  return mix(seed ^ (h + 0x9e3779b97f4a7c15ULL + (seed << 6)));
}

__extension__ typedef unsigned __int128 Wide;  // GCC and Clang

// A 64-bit hash of bytes (16 bytes a step, a 128-bit multiply folding each): msptk::hash_bytes.
inline std::uint64_t bytes(std::string_view text) {
  auto fold = [](std::uint64_t a, std::uint64_t b) {
    const Wide r = static_cast<Wide>(a) * b;
    return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
  };
  constexpr std::uint64_t k1 = 0xa0761d6478bd642fULL, k2 = 0xe7037ed1a0b428dbULL, k3 = 0x8ebc6af09c88c6e3ULL;
  const char* p = text.data();
  std::size_t n = text.size();
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
  return fold(fold(a ^ k2, b ^ seed) ^ k3, text.size() ^ k1);
}

}  // namespace msptk::key_hash
