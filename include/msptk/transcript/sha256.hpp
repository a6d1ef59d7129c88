// Sha256 is an incremental SHA-256 (FIPS 180-4) digest: feed bytes in pieces of any size with
// update(), read the lowercase hex digest with hex() once. The recorder uses it to identify
// bytes it keeps out of the manifest (an unterminated tail streamed to a side file) without
// holding them.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace msptk {

class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  // The digest of everything fed so far, as 64 lowercase hex digits. Ends the digest: call once.
  std::string hex();

 private:
  void block(const unsigned char* p);
  std::array<std::uint32_t, 8> h_;
  std::array<unsigned char, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t length_ = 0;
};

// SHA-256 of `bytes` in one call.
std::string sha256_hex(std::string_view bytes);

}  // namespace msptk
