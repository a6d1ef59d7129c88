// A text key is the content key (differ/signature.hpp) of a server notification computed
// straight from the frame's JSON text, in one pass and without building a DOM: the differ's
// fast path for the frames that make almost all of a session's bytes (`item/delta`,
// `item/completed`), and the validator's for the same frames (accepted means valid JSON and a
// JSON-RPC notification with this method). It is EXACTLY the general path's answer — content_key() of
// parse_json(text) under a mask that masks nothing (Masker::masks_nothing) — for every text it
// accepts, and it declines (nullopt) every text it does not fully understand, so the caller
// falls back to the general path: anything that is not a JSON-RPC notification by classify(), a
// duplicate member name (parse_json's error), a `\u` escape, a raw control byte, a number other
// than a plain integer of at most 18 digits (fractions, exponents, -0, larger integers), a
// method with an escape, nesting deeper than text_key_max_depth, trailing or missing bytes.
//
// Strings are scanned 64 bytes at a time with AVX2 where the CPU has it (quote, backslash and
// control-byte masks; an escaped string's escapes are taken in order from the masks of each
// block), otherwise 8 bytes at a time; MSPTK_NO_SIMD=1 forces the scalar scan. Both give the
// same answer for every input (tests/unit/text_key_test.cpp, fuzz/text_key.cpp). A string
// without escapes is hashed where it lies in the text; an escaped one is decoded into the
// caller's scratch buffer, its runs between escapes copied in bulk. Structural tokens are few:
// a scalar recursive descent takes them.
#pragma once

#include "msptk/transcript/frame.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace msptk {

struct TextKey {
  std::string_view method;  // the notification's method: a view into the text (it has no escapes)
  std::uint64_t content;    // == content_key(masker, role, parse_json(text)) for a masker that masks nothing

  // What classify() says of the frame: a notification with this method.
  Envelope envelope() const;
};

// Containers nested deeper than this are declined (the general path keys subtrees below
// max_depth() + 64 by their canonical text; the scanner never goes near that).
inline constexpr std::size_t text_key_max_depth = 48;

// The text key of the JSON text of a frame known to be valid UTF-8 (it came from a
// TranscriptReader), or nullopt when the text is not a notification the scanner fully
// understands. `scratch` holds decoded strings; it keeps its memory across calls (size as well
// as capacity), so a frame no longer than the largest one seen allocates nothing.
std::optional<TextKey> notification_text_key(std::string_view text, std::string& scratch);

// Frees a scratch buffer that grew past 12 MiB: smaller ones (a session's frames of a few MiB
// grow it to about twice their size) are kept for the next frame, so such a session allocates
// and faults it once, while a process that met one 16 MiB frame does not hold that much more
// for the rest of its life (tests/e2e/large_frame_memory_test.cpp).
inline void release_large(std::string& scratch) {
  if (scratch.capacity() > (std::size_t{12} << 20)) std::string().swap(scratch);
}

// The same with a scratch buffer of the calling thread's, kept between calls as release_large
// says (what the differ and the validator use).
std::optional<TextKey> notification_text_key(std::string_view text);

// The same, also writing `pruned`: the text with every string value of more than `keep` code
// points cut to its first `keep` (written again as a JSON string), the rest (member names, the
// envelope's jsonrpc and method) as it is. For an
// accepted text it is valid JSON of the frame's shape, members and scalars, small whatever the
// frame's texts: a caller that looks at the start of each value (show's one-line summary) parses
// it instead of a multi-MiB frame. (`pruned` is unspecified when the text is declined.)
std::optional<TextKey> notification_text_key_pruned(std::string_view text, std::size_t keep, std::string& pruned);

// The same with the scalar string scan (the reference for the AVX2 one).
std::optional<TextKey> notification_text_key_scalar(std::string_view text, std::string& scratch);

// Whether notification_text_key uses the AVX2 string scan on this CPU (MSPTK_NO_SIMD=1: never).
bool text_key_uses_simd();

}  // namespace msptk
