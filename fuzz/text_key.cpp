// Fuzz target: the text key of a notification (transcript/text_key.hpp). The input is the JSON text
// of one frame. Invariants, for input that is valid UTF-8 (the function's contract):
// - the AVX2 scan (where the CPU has it) and the scalar scan give the same answer;
// - when they accept, parse_json(text) succeeds, classify() says notification with the same
//   method (a view into the text), and content_key() under a mask that masks nothing is the
//   same 64-bit key;
// - the pruned text (strings cut to 3 code points) is accepted too, with the same method.
#include "fuzz_support.hpp"

#include "msptk/differ/signature.hpp"
#include "msptk/transcript/text_key.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/writer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace msptk;
  const std::string_view text = fuzz::as_text(data, size);
  if (!is_valid_utf8(text)) return 0;
  static std::string scratch_fast, scratch_plain;
  const std::optional<TextKey> fast = notification_text_key(text, scratch_fast);
  const std::optional<TextKey> plain = notification_text_key_scalar(text, scratch_plain);
  MSPTK_FUZZ_CHECK(fast.has_value() == plain.has_value(), "the scans disagree: AVX2 {}, scalar {}",
                   fast ? "accepts" : "declines", plain ? "accepts" : "declines");
  if (!fast) return 0;
  MSPTK_FUZZ_CHECK(fast->method == plain->method && fast->content == plain->content,
                   "the scans give different keys");
  MSPTK_FUZZ_CHECK(fast->method.data() >= text.data() && fast->method.data() + fast->method.size() <= text.data() + size,
                   "the method is not a view into the text");
  auto value = parse_json(text, ParseLimits{.utf8_known = true});
  MSPTK_FUZZ_CHECK(value.has_value(), "accepted a text parse_json rejects: {}", value ? "" : value.error().describe());
  const Envelope env = classify(*value);
  MSPTK_FUZZ_CHECK(env.kind == FrameKind::notification, "accepted a {} ({})", to_string(env.kind), env.problem);
  MSPTK_FUZZ_CHECK(env.method == fast->method, "method {} instead of {}", fast->method, env.method);
  static const Masker masker{MaskSpec{}};
  const FrameRole role = FrameRole::of(Direction::server, env);
  MSPTK_FUZZ_CHECK(masker.masks_nothing(role), "the empty mask masks a server notification");
  const std::uint64_t want = content_key(masker, role, *value);
  MSPTK_FUZZ_CHECK(fast->content == want, "content key {:016x} instead of {:016x}", fast->content, want);
  static std::string pruned;
  const std::optional<TextKey> cut = notification_text_key_pruned(text, 3, pruned);
  MSPTK_FUZZ_CHECK(cut && cut->method == fast->method, "the pruning scan declines what the plain one accepts");
  const std::string pruned_text = pruned;
  MSPTK_FUZZ_CHECK(notification_text_key(pruned_text, scratch_plain).has_value(), "the pruned text is declined: {}",
                   pruned_text.substr(0, 200));
  return 0;
}
