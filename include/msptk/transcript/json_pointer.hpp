// JSON pointer reference tokens (RFC 6901): a member name written into a pointer ("a/b~c" is
// "a~1b~0c") and read back. The one spelling the schema bundle (its `#/…` locations) and the
// maintenance drift (the pointers of changed places) share.
#pragma once

#include <string>
#include <string_view>

namespace msptk {

inline std::string json_pointer_token(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

inline std::string json_pointer_name(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size()) {
      out += token[i + 1] == '1' ? '/' : '~';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

}  // namespace msptk
