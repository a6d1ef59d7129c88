// A brief is a JSON value's text cut to a length a report line can hold: the value's JSON
// text when it is at most `limit` bytes, otherwise its first bytes (never half a UTF-8
// sequence), "..." and the full length. Used wherever a maintenance message quotes input
// (schema values in drift details, ledger members in errors), so a megabyte string in a
// ledger or a bundle makes a line of a hundred bytes, not a megabyte.
#pragma once

#include "msptk/transcript/json_parse.hpp"

#include <boost/json/value.hpp>

#include <fmt/format.h>

#include <string>

namespace msptk::maintenance::detail {

inline std::string brief(const boost::json::value& v, std::size_t limit = 120) {
  std::string text = serialize_json(v);
  if (text.size() <= limit) return text;
  const std::size_t total = text.size();
  std::size_t cut = limit - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  text.resize(cut);
  return text + fmt::format("... ({} bytes)", total);
}

}  // namespace msptk::maintenance::detail
