#include "msptk/recorder/redactor.hpp"

#include "msptk/normalizer/canonical.hpp"

#include "msptk/transcript/json_parse.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace msptk::recorder {

namespace json = boost::json;

namespace {

constexpr std::string_view kCredentialWords[] = {"token", "secret", "password", "apikey"};

// `needle` (lower-case ASCII) in `text`, ASCII letters compared case-insensitively (as
// std::tolower in the C locale). Every frame of a recording goes through it, so it folds with
// one OR instead of a tolower call per byte.
bool contains_ci(std::string_view text, std::string_view needle) {
  if (needle.empty()) return true;
  auto same = [](char c, char n) { return (n >= 'a' && n <= 'z') ? static_cast<char>(c | 0x20) == n : c == n; };
  const char first = needle[0];
  for (std::size_t i = 0; i + needle.size() <= text.size(); ++i) {
    if (!same(text[i], first)) continue;
    std::size_t k = 1;
    while (k < needle.size() && same(text[i + k], needle[k])) ++k;
    if (k == needle.size()) return true;
  }
  return false;
}

// A member name that looks like a credential: `token`, `secret`, `password`, `apiKey` as part
// of it, case-insensitive, with `_` and `-` ignored.
bool credential_name(std::string_view name) {
  std::string folded;
  for (char c : name)
    if (c != '_' && c != '-') folded += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return std::any_of(std::begin(kCredentialWords), std::end(kCredentialWords),
                     [&](std::string_view word) { return folded.find(word) != std::string::npos; });
}

// One of the credential words at bytes[i] (case-insensitive), as the scan below looks for
// them: `token`, `secret`, `password`, `apikey`, `api_key`, `api-key`.
bool credential_word_at(std::string_view bytes, std::size_t i) {
  if (i + 1 >= bytes.size()) return false;
  const char first = static_cast<char>(bytes[i] | 0x20), second = static_cast<char>(bytes[i + 1] | 0x20);
  auto at = [&](std::string_view word) { return contains_ci(bytes.substr(i, word.size()), word); };
  switch (first) {
    case 't': return second == 'o' && at("token");
    case 's': return second == 'e' && at("secret");
    case 'p': return second == 'a' && at("password");
    case 'a': return second == 'p' && (at("apikey") || at("api_key") || at("api-key"));
    default: return false;
  }
}

constexpr std::string_view kAccount = "account/";

}  // namespace

bool might_hold_credentials_scalar(std::string_view bytes) {
  if (bytes.find(kAccount) != std::string_view::npos) return true;
  for (std::size_t i = 0; i + 1 < bytes.size(); ++i)
    if (credential_word_at(bytes, i)) return true;
  return false;
}

bool might_hold_credentials(std::string_view bytes) {
  std::size_t i = 0;
#if defined(__SSE2__)
  // 16 positions a step: the first three bytes of a word, case-folded ("tok", "sec", "pas",
  // "api", and "acc" for account/), each candidate then checked exactly.
  const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
  const __m128i fold = _mm_set1_epi8(0x20);
  auto eq = [](__m128i v, char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); };
  auto load = [&](std::size_t at) {
    return _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + at)), fold);
  };
  for (; i + 18 <= bytes.size(); i += 16) {
    const __m128i a = load(i), b = load(i + 1), c = load(i + 2);
    auto word = [&](char x, char y, char z) { return _mm_and_si128(_mm_and_si128(eq(a, x), eq(b, y)), eq(c, z)); };
    const __m128i starts = _mm_or_si128(
        _mm_or_si128(_mm_or_si128(word('t', 'o', 'k'), word('s', 'e', 'c')), _mm_or_si128(word('p', 'a', 's'), word('a', 'p', 'i'))),
        word('a', 'c', 'c'));
    for (unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(starts)); mask != 0; mask &= mask - 1) {
      const std::size_t at = i + static_cast<std::size_t>(__builtin_ctz(mask));
      if (credential_word_at(bytes, at) || bytes.substr(at, kAccount.size()) == kAccount) return true;
    }
  }
#endif
  for (; i + 1 < bytes.size(); ++i)
    if (credential_word_at(bytes, i) || bytes.substr(i, kAccount.size()) == kAccount) return true;
  return false;
}

namespace {

// Every credential-named member under `value` holding a non-empty string that is not a
// placeholder (numbers such as `maxTokens`, booleans and nulls hold no secret).
void find_clear_credentials(const json::value& value, const std::string& location, std::vector<std::string>& out) {
  if (value.is_object()) {
    for (const auto& member : value.get_object()) {
      const std::string here = append_member(location, member.key());
      const json::value& v = member.value();
      if (credential_name(member.key()) && is_json_string(v) && !v.get_string().empty() &&
          !is_redaction_placeholder(v.get_string()))
        out.push_back(here);
      find_clear_credentials(v, here, out);
    }
  } else if (value.is_array()) {
    const json::array& array = value.get_array();
    for (std::size_t i = 0; i < array.size(); ++i) find_clear_credentials(array[i], append_index(location, i), out);
  }
}

std::string_view dir_name(Direction dir) { return dir == Direction::client ? "client" : "server"; }

}  // namespace

Result<Redactor> Redactor::create(const std::vector<std::string>& paths) {
  Redactor redactor;
  for (const std::string& text : paths) {
    auto path = JsonPath::parse(text);
    if (!path) return Error::usage(fmt::format("--redact: {}", path.error().message));
    redactor.paths_.push_back(std::move(*path));
    redactor.counts_.push_back({text, 0});
  }
  return redactor;
}

std::optional<std::string> Redactor::redact(Direction dir, std::string_view bytes, std::size_t line) {
  std::string_view body = bytes;
  const bool cr = !body.empty() && body.back() == '\r';
  if (cr) body.remove_suffix(1);
  if (!active() && !might_hold_credentials(body)) return std::nullopt;

  auto parsed = parse_json(body);
  if (!parsed || !parsed->is_object()) {
    if (active())
      warnings_.push_back({line, dir, "", "",
                           fmt::format("{} frame: not a JSON object, recorded as it is (nothing redacted)", dir_name(dir)),
                           ""});
    return std::nullopt;
  }
  json::value& value = *parsed;

  // Is this a frame of an account method?
  std::string account_method;
  {
    Envelope env = classify(value);
    auto& requests = dir == Direction::client ? account_requests_ : account_server_requests_;
    auto& answered = dir == Direction::client ? account_server_requests_ : account_requests_;
    if ((env.kind == FrameKind::request || env.kind == FrameKind::notification) &&
        env.method.rfind("account/", 0) == 0) {
      account_method = env.method;
      if (env.kind == FrameKind::request && env.id) requests.insert(id_key(*env.id));
    } else if (env.kind == FrameKind::response && env.id) {
      if (auto it = answered.find(id_key(*env.id)); it != answered.end()) {
        account_method = "response to an account/* request";
        answered.erase(it);
      }
    }
  }

  const std::set<std::string> replaced = replace_selected(value);

  std::vector<std::string> clear;
  json::object& object = value.get_object();
  for (const char* member : {"params", "result"})
    if (const json::value* v = object.if_contains(member)) find_clear_credentials(*v, member, clear);
  if (const json::value* error = object.if_contains("error"); error && error->is_object())
    if (const json::value* data = error->get_object().if_contains("data"))
      find_clear_credentials(*data, "error.data", clear);
  for (const std::string& location : clear)
    warnings_.push_back({line, dir, location, account_method,
                         fmt::format("{} frame: {} looks like a credential and is recorded in the clear (--redact {})",
                                     dir_name(dir), location, location),
                         ""});
  if (!account_method.empty() && replaced.empty() && clear.empty())
    warnings_.push_back({line, dir, "", account_method,
                         fmt::format("{} frame: {} recorded with nothing redacted (--redact PATH for its credentials)",
                                     dir_name(dir), account_method),
                         ""});

  if (replaced.empty()) return std::nullopt;
  std::string out = serialize_json(value);
  if (cr) out += '\r';
  return out;
}

}  // namespace msptk::recorder

namespace msptk::recorder {

namespace {

// The texts a value may be written as outside a frame: a string's characters and, when it
// differs, its JSON-escaped spelling; any other value's JSON (compact and canonical).
std::vector<std::string> texts_of(const json::value& v, const std::string& canonical) {
  std::vector<std::string> out;
  auto add = [&](std::string text) {
    if (!text.empty() && std::find(out.begin(), out.end(), text) == out.end()) out.push_back(std::move(text));
  };
  if (v.is_string()) {
    add(std::string(v.get_string()));
    const std::string quoted = serialize_json(v);
    add(quoted.substr(1, quoted.size() - 2));
  } else {
    add(serialize_json(v));
    add(canonical);
  }
  return out;
}

}  // namespace

std::set<std::string> Redactor::replace_selected(json::value& value) {
  std::set<std::string> replaced;
  for (std::size_t i = 0; i < paths_.size(); ++i) {
    paths_[i].for_each_match(value, [&](json::value& v, const std::string& location) {
      if (!replaced.insert(location).second) return;  // two paths, one place: redacted once
      const std::string key = canonical_json(v);
      auto [it, fresh] = placeholders_.try_emplace(key, placeholders_.size() + 1);
      const std::string placeholder = redaction_placeholder(it->second);
      if (fresh)
        for (std::string& text : texts_of(v, key)) texts_.emplace_back(std::move(text), placeholder);
      v = json::string(placeholder);
      ++counts_[i].values;
    });
  }
  return replaced;
}

std::optional<std::string> Redactor::redact_unterminated(Direction dir, std::string_view bytes) {
  std::string_view body = bytes;
  const bool cr = !body.empty() && body.back() == '\r';
  if (cr) body.remove_suffix(1);
  auto parsed = parse_json(body);
  if (!parsed || !parsed->is_object()) {
    withhold_unterminated(dir, bytes.size());
    return std::nullopt;
  }
  if (replace_selected(*parsed).empty()) return std::string(bytes);
  std::string out = serialize_json(*parsed);
  if (cr) out += '\r';
  return out;
}

void Redactor::withhold_unterminated(Direction dir, std::uint64_t bytes) {
  const std::string_view name = dir_name(dir);
  warnings_.push_back({0, dir, "", "",
                       fmt::format("{} frame left unfinished ({} bytes after the last LF) is not a JSON object --redact "
                                   "can vet: withheld (no {}-unterminated.bin; capture.{}.unterminated keeps only its "
                                   "size and SHA-256)",
                                   name, bytes, name, name),
                       "manifest.json"});
}

}  // namespace msptk::recorder
