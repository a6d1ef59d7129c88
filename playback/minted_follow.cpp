#include "minted_follow.hpp"

#include "msptk/transcript/json_locate.hpp"
#include "msptk/normalizer/canonical.hpp"
#include "msptk/normalizer/mask.hpp"
#include "msptk/transcript/json_parse.hpp"

#include <array>

namespace msptk::playback {

namespace {

constexpr std::size_t npos = std::string_view::npos;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The spaces of the values a client mints (mask.hpp).
constexpr std::array<std::size_t, 4> kMintedSpaces = {kClientRequestIds, kClientCommandIds, kClientInfoName,
                                                       kClientInfoVersion};

// The canonical JSON text of a string token, as the bijections key it.
std::optional<std::string> canonical_string(std::string_view token) {
  if (token.find('\\') == npos) return std::string(token);
  auto value = parse_json(token);
  if (!value || !is_json_string(*value)) return std::nullopt;
  return canonical_json(*value);
}

}  // namespace

std::optional<std::string> replace_string_values(
    std::string_view text, const std::function<std::optional<std::string>(std::string_view)>& replace,
    std::size_t& count) {
  std::optional<std::string> out;
  std::size_t copied = 0;  // bytes of `text` already in `out`
  std::size_t pos = 0;
  while ((pos = text.find('"', pos)) != npos) {
    const std::size_t end = json_string_end(text, pos);
    if (end == npos) break;
    std::size_t next = end;
    while (next < text.size() && is_space(text[next])) ++next;
    const bool name = next < text.size() && text[next] == ':';
    if (!name) {
      if (std::optional<std::string> token = replace(text.substr(pos, end - pos))) {
        if (!out) out.emplace().reserve(text.size() + 64);
        out->append(text.substr(copied, pos - copied));
        out->append(*token);
        copied = end;
        ++count;
      }
    }
    pos = end;
  }
  if (out) out->append(text.substr(copied));
  return out;
}

const std::string* MintedFollow::partner(std::string_view recorded) const {
  for (std::size_t space : kMintedSpaces) {
    const std::string* actual = comparer_.unifier().bijection(space).actual_for(recorded);
    if (actual && *actual != recorded) return actual;
  }
  return nullptr;
}

std::optional<std::string> MintedFollow::substitute(std::string_view bytes, std::size_t& count) const {
  bool any = false;
  for (std::size_t space : kMintedSpaces)
    if (!comparer_.unifier().bijection(space).identity()) any = true;
  if (!any) return std::nullopt;  // every pairing so far maps a value to itself
  return replace_string_values(
      bytes,
      [&](std::string_view token) -> std::optional<std::string> {
        std::optional<std::string> key = canonical_string(token);
        if (!key) return std::nullopt;
        const std::string* actual = partner(*key);
        if (!actual) return std::nullopt;
        return *actual;
      },
      count);
}

bool MintedFollow::settle(std::vector<PathDivergence>& divergences) const {
  const std::size_t before = divergences.size();
  std::erase_if(divergences, [&](const PathDivergence& d) {
    if (!d.note.empty() || !d.expected || !d.actual) return false;
    auto expected = parse_json(*d.expected);
    auto actual = parse_json(*d.actual);
    if (!expected || !actual || !is_json_string(*expected) || !is_json_string(*actual)) return false;
    const std::string* partner_value = partner(canonical_json(*expected));
    return partner_value && *partner_value == canonical_json(*actual);
  });
  return divergences.size() != before;
}

}  // namespace msptk::playback
