// The Redactor: values at --redact paths become "<redacted:N>" numbered by distinct value, a
// frame with nothing selected keeps its bytes, the Tee records the redacted frame, and the
// credential heuristic (account methods, credential-named members) with what covers it.
#include "msptk/recorder/redactor.hpp"
#include "msptk/recorder/tee.hpp"

#include <gtest/gtest.h>

#include <random>

namespace msptk::recorder {
namespace {

constexpr auto C = Direction::client;
constexpr auto S = Direction::server;

Redactor make(std::vector<std::string> paths) {
  auto r = Redactor::create(paths);
  EXPECT_TRUE(r) << (r ? "" : r.error().render());
  return std::move(*r);
}

TEST(Redactor, ReplacesSelectedValuesNumberingDistinctValues) {
  Redactor r = make({"params.apiKey", "params.headers.*", "result.account.token"});
  auto a = r.redact(C, R"({"jsonrpc":"2.0","id":1,"method":"x/y","params":{"apiKey":"sk-1","headers":{"A":"h1","B":"sk-1"},"n":1.50}})", 1);
  ASSERT_TRUE(a);
  EXPECT_EQ(*a, R"({"jsonrpc":"2.0","id":1,"method":"x/y","params":{"apiKey":"<redacted:1>","headers":{"A":"<redacted:2>","B":"<redacted:1>"},"n":1.5}})");  // numbers keep their value
  auto b = r.redact(S, R"({"jsonrpc":"2.0","id":1,"result":{"account":{"token":{"v":"sk-1"}}}})", 2);
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, R"({"jsonrpc":"2.0","id":1,"result":{"account":{"token":"<redacted:3>"}}})");  // an object is one value
  auto c = r.redact(S, R"({"jsonrpc":"2.0","id":2,"result":{"account":{"token":"h1"}}})", 3);
  ASSERT_TRUE(c);
  EXPECT_NE(c->find("<redacted:2>"), std::string::npos);  // equal secrets stay equal across paths and directions
  EXPECT_EQ(r.distinct_values(), 3u);
  ASSERT_EQ(r.counts().size(), 3u);
  EXPECT_EQ(r.counts()[0].values, 1u);
  EXPECT_EQ(r.counts()[1].values, 2u);
  EXPECT_EQ(r.counts()[2].values, 2u);
  EXPECT_TRUE(r.warnings().empty());
}

TEST(Redactor, AFrameWithNothingSelectedKeepsItsBytesAndAClientCrIsKept) {
  Redactor r = make({"params.apiKey"});
  EXPECT_FALSE(r.redact(C, R"({ "jsonrpc" : "2.0", "method":"a"})", 1));
  auto cr = r.redact(C, "{\"jsonrpc\":\"2.0\",\"method\":\"a\",\"params\":{\"apiKey\":\"k\"}}\r", 2);
  ASSERT_TRUE(cr);
  EXPECT_EQ(cr->back(), '\r');
}

TEST(Redactor, TwoPathsOnOnePlaceRedactItOnce) {
  Redactor r = make({"params.key", "params.*"});
  auto out = r.redact(C, R"({"method":"a","params":{"key":"s"}})", 1);
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, R"({"method":"a","params":{"key":"<redacted:1>"}})");
  EXPECT_EQ(r.distinct_values(), 1u);
}

TEST(Redactor, RefusesABadPath) {
  auto r = Redactor::create({"params..x"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::usage);
  EXPECT_NE(r.error().render().find("--redact"), std::string::npos);
}

TEST(Redactor, WarnsAboutCredentialsInTheClearAndNotAboutCoveredOnes) {
  Redactor none = make({});
  EXPECT_FALSE(none.redact(C, R"({"jsonrpc":"2.0","id":1,"method":"session/start","params":{"maxTokens":100,"auth":{"client_secret":"s"}}})", 1));
  ASSERT_EQ(none.warnings().size(), 1u);
  EXPECT_EQ(none.warnings()[0].location, "params.auth.client_secret");
  EXPECT_EQ(none.warnings()[0].line, 1u);
  EXPECT_NE(none.warnings()[0].message.find("--redact params.auth.client_secret"), std::string::npos);

  Redactor covered = make({"params.auth"});
  ASSERT_TRUE(covered.redact(C, R"({"jsonrpc":"2.0","id":1,"method":"session/start","params":{"auth":{"client_secret":"s"}}})", 1));
  EXPECT_TRUE(covered.warnings().empty());
}

TEST(Redactor, WarnsAboutAccountFramesWithNothingRedactedAndTheirResponses) {
  Redactor r = make({});
  r.redact(C, R"({"jsonrpc":"2.0","id":"a1","method":"account/login","params":{"user":"me"}})", 1);
  r.redact(S, R"({"jsonrpc":"2.0","id":"a1","result":{"ok":true}})", 2);
  r.redact(S, R"({"jsonrpc":"2.0","id":"zz","result":{"ok":true}})", 3);  // not an account response: not even parsed
  ASSERT_EQ(r.warnings().size(), 1u);  // the response's bytes hold no hint, so it is not parsed
  EXPECT_EQ(r.warnings()[0].method, "account/login");

  Redactor p = make({"params.user"});
  p.redact(C, R"({"jsonrpc":"2.0","id":"a1","method":"account/login","params":{"user":"me"}})", 1);
  p.redact(S, R"({"jsonrpc":"2.0","id":"a1","result":{"ok":true}})", 2);
  ASSERT_EQ(p.warnings().size(), 1u);
  EXPECT_EQ(p.warnings()[0].line, 2u);
  EXPECT_EQ(p.warnings()[0].method, "response to an account/* request");
}

TEST(Redactor, PlaceholderSpelling) {
  EXPECT_EQ(redaction_placeholder(12), "<redacted:12>");
  EXPECT_TRUE(is_redaction_placeholder("<redacted:3>"));
  EXPECT_FALSE(is_redaction_placeholder("<redacted:>"));
  EXPECT_FALSE(is_redaction_placeholder("<redacted:x>"));
}

class Sink final : public FrameSink {
 public:
  Result<void> append(Direction, std::string_view bytes) override {
    frames.emplace_back(bytes);
    return {};
  }
  std::vector<std::string> frames;
};

TEST(Redactor, TheTeeRecordsRedactedFramesAndCountsTheBytesRead) {
  Sink sink;
  Tee tee(sink, 1 << 20);
  Redactor r = make({"params.token"});
  tee.redact_with(&r);
  const std::string frame = R"({"jsonrpc":"2.0","method":"a","params":{"token":"secret-value"}})";
  tee.feed(C, frame + "\n");
  ASSERT_EQ(sink.frames.size(), 1u);
  EXPECT_EQ(sink.frames[0], R"({"jsonrpc":"2.0","method":"a","params":{"token":"<redacted:1>"}})");
  EXPECT_EQ(tee.stats(C).bytes, frame.size() + 1);
}


// The credential pre-check as it was written before the 16-position scan (a copy, the
// reference): the fast and the scalar checks must agree with it on every input.
bool original_contains_ci(std::string_view text, std::string_view needle) {
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

bool original_precheck(std::string_view bytes) {
  if (bytes.find("account/") != std::string_view::npos) return true;
  for (std::size_t i = 0; i + 1 < bytes.size(); ++i) {
    const char first = static_cast<char>(bytes[i] | 0x20), second = static_cast<char>(bytes[i + 1] | 0x20);
    auto at = [&](std::string_view word) { return original_contains_ci(bytes.substr(i, word.size()), word); };
    switch (first) {
      case 't':
        if (second == 'o' && at("token")) return true;
        break;
      case 's':
        if (second == 'e' && at("secret")) return true;
        break;
      case 'p':
        if (second == 'a' && at("password")) return true;
        break;
      case 'a':
        if (second == 'p' && (at("apikey") || at("api_key") || at("api-key"))) return true;
        break;
      default: break;
    }
  }
  return false;
}

TEST(CredentialPrecheck, AgreesWithThePlainScanOnEveryWordCaseAndPosition) {
  const std::vector<std::string> words = {"token", "TOKEN", "ToKeN", "tokem", "toke", "secret", "SECRET", "secre",
                                          "password", "PassWord", "passwor", "pass_word", "apikey", "APIKEY", "api_key",
                                          "API-KEY", "api key", "apike", "account/", "Account/", "account", "accounts/",
                                          "to", "se", "pa", "ap", "ac", "\xD4oken", "t\xEFken", "tOKEN\xFF"};
  for (const std::string& word : words) {
    for (std::size_t at = 0; at < 40; ++at) {
      for (std::size_t after : {0u, 1u, 7u, 20u}) {
        const std::string bytes = std::string(at, 'x') + word + std::string(after, 'y');
        const bool expected = original_precheck(bytes);
        EXPECT_EQ(might_hold_credentials(bytes), expected) << bytes;
        EXPECT_EQ(might_hold_credentials_scalar(bytes), expected) << bytes;
      }
    }
  }
}

TEST(CredentialPrecheck, AgreesWithThePlainScanOnRandomFrames) {
  std::mt19937 rng(13);
  const std::vector<std::string> pieces = {"t", "o", "k", "e", "n", "s", "c", "r", "p", "a", "w", "d", "i", "y", "_",
                                           "-", "/", "u", "T", "O", "K", "E", "N", "A", "P", "S", "\"", ":", "{", " ",
                                           "session", "account", "\xC3\xA9", "\x80"};
  std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1), length(0, 120);
  int positives = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string bytes;
    const std::size_t n = length(rng);
    while (bytes.size() < n) bytes += pieces[pick(rng)];
    const bool expected = original_precheck(bytes);
    positives += expected;
    EXPECT_EQ(might_hold_credentials(bytes), expected) << bytes;
    EXPECT_EQ(might_hold_credentials_scalar(bytes), expected) << bytes;
  }
  EXPECT_GT(positives, 100);  // the draw does reach the words
}

}  // namespace
}  // namespace msptk::recorder
