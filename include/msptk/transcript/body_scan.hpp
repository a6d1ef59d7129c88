// A body scan reads the `raw` string of a canonical transcript line: the bytes after
// `{"dir":"…","raw":"` up to the closing quote, in exactly the form TranscriptWriter writes
// (valid UTF-8 copied as it is; `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`; `\u00xx` in lower case
// for the other control characters; nothing else). It finds the closing quote, decides that
// every byte before it is in that form and, when asked, writes the decoded bytes.
//
// Two implementations give the same answer for every input: a scalar one, 8 bytes at a time
// between the bytes that need a look (the reference, and the one used where the CPU lacks AVX2),
// and an AVX2 one, 64 bytes a step: quotes, backslashes and control characters become bit masks,
// the escaped characters are found with carries as simdjson does, and UTF-8 is checked with the
// lookup tables of Keiser and Lemire ("Validating UTF-8 In Less Than One Instruction Per Byte",
// 2021). A block it does not settle (a `\u` escape) goes to the scalar scan, which hands back at
// the next token boundary. tests/unit/body_scan_test.cpp holds the two to the same results.
#pragma once

#include <cstddef>
#include <string_view>

namespace msptk {

// Scans the canonical body that starts at s[i]. Returns the index of its closing quote, or
// npos when the bytes from s[i] on are not a canonical body followed by the quote (what follows
// the quote is the caller's to check). When `out` is not null (room for s.size() - i bytes) the
// decoded body is written there and `*written` says how long it is; the bytes of `out` past
// that are unspecified. Uses the AVX2 scan when the CPU has it.
std::size_t scan_canonical_body(std::string_view s, std::size_t i, char* out, std::size_t* written);

// The scalar scan, the reference for the one above.
std::size_t scan_canonical_body_scalar(std::string_view s, std::size_t i, char* out, std::size_t* written);

// frame.hpp's may_name_id, asked of a canonical transcript line without decoding it: whether the
// line holds `\"id` (how the writer writes the frame's `"id`) or `\\u` (a `\u` escape of the
// frame's own, through which a name could spell id). False proves the frame has no `id` member,
// so it is neither a JSON-RPC request nor a response and cannot change what a Correlator knows.
bool canonical_line_may_name_id(std::string_view line);
// The same without AVX2 (the reference).
bool canonical_line_may_name_id_scalar(std::string_view line);

// The same question of any transcript line whose frame is in `raw` (not rawBase64), in any
// spelling JSON allows: whether it holds `\"id` or `\u` (a `\u` escape of the line's, through
// which the frame's quote or a letter of its name could be written, or of the frame's own).
bool line_may_name_id(std::string_view line);
// The same without AVX2 (the reference).
bool line_may_name_id_scalar(std::string_view line);

// Whether scan_canonical_body uses the AVX2 scan on this CPU (MSPTK_NO_SIMD=1 turns it off).
bool body_scan_uses_simd();

}  // namespace msptk
