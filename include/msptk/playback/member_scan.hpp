// A MemberScan lists the top-level members of a JSON object text together with the byte range
// of each member's value token, without building a value. serve-fixture uses it twice: to
// splice a client's own request id into recorded response bytes (replace the `id` member's
// value token, leave every other byte alone: recorded frames are never re-serialized), and to
// read what the bounded prefix of an oversized frame holds in full (the text may stop anywhere,
// e.g. after the first frameLimitBytes bytes of a frame).
//
// The scan checks the object's syntax only as far as it needs to find token boundaries;
// callers parse the value tokens they use. Member names are decoded (escapes resolved).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk::playback {

struct MemberToken {
  std::string name;             // decoded member name
  std::size_t value_begin = 0;  // byte offset of the value token in the scanned text
  std::size_t value_end = 0;    // one past its last byte
};

struct MemberScan {
  bool object = false;     // the text starts (after whitespace) with '{'
  bool closed = false;     // the object's closing '}' is inside the text
  bool malformed = false;  // bytes that cannot be JSON object syntax came before the text ended
  std::vector<MemberToken> members;  // the members whose value ends inside the text, in text order
  // The text ended inside this member (its name, or "" when it ended inside the name).
  std::optional<std::string> cut_member;

  // The last complete member with this name (Boost.JSON keeps the last of duplicate names).
  const MemberToken* find(std::string_view name) const;
  // The value token of that member in `text` (the scanned text).
  std::optional<std::string_view> token(std::string_view text, std::string_view name) const;
};

MemberScan scan_members(std::string_view text);

// `text` with the value token of its top-level member `name` replaced by `token`; nullopt when
// `text` is not an object with a complete member of that name.
std::optional<std::string> splice_member(std::string_view text, std::string_view name, std::string_view token);

// As splice_member, but a member that is absent is added after the last one, on a line of its
// own indented by two spaces (the manifest layout); nullopt when `text` is not a closed object
// with at least one member.
std::optional<std::string> set_member(std::string_view text, std::string_view name, std::string_view token);

}  // namespace msptk::playback
