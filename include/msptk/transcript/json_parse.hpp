// The one strict JSON parser of msptk: every frame, transcript line, manifest and report that
// msptk reads from input goes through parse_json, never through boost::json::parse. It differs
// from Boost.JSON's defaults in three ways, each a way a verdict could silently be wrong:
//  - depth: nesting is accepted to ParseLimits::max_depth (default 10,000) levels; deeper input
//    is the error `too_deep` ("nested deeper than N levels"), never "not JSON". The parser itself
//    is not recursive, and the walkers in this header (serialize_json, the equality and
//    canonical writers of the normalizer) use explicit stacks.
//  - duplicate member names in one object are the error `duplicate_member` naming the member
//    (Boost.JSON would silently keep the last one; JSON-RPC peers disagree on which one wins).
//  - exact numbers. An integer that fits int64 or uint64 is an int64/uint64 value. Any other
//    number is a double when the shortest text of that double has exactly the token's decimal
//    value (0.5, 1e300, 0.1, 1.0); otherwise (30-digit integers, 1e400, 1e-400, long fractions)
//    it is an EXACT NUMBER: a boost::json::string holding the byte 0xFF followed by the number's
//    token text exactly as written (which Boost.JSON has checked against the JSON grammar).
//    Valid UTF-8 input, which Boost.JSON enforces for every string, can never produce a 0xFF
//    byte, so the marker cannot collide with a string from input, and the DOM stays a
//    boost::json::value. Every consumer must treat such a value as a number, never as a
//    string: use is_json_number / is_exact_number / number_text, compare with
//    numbers_equal (or the normalizer's json_equal), and write JSON with serialize_json (or
//    the normalizer's canonical_json), which write an exact number as its text.
// Errors are data (JsonError: kind, byte offset, message); callers turn them into msptk::Error
// with their file, line and rule.
#pragma once

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/storage_ptr.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk {

struct ParseLimits {
  // Deepest accepted nesting of arrays and objects (a scalar is depth 0, `[]` depth 1).
  std::size_t max_depth = 10000;
  // The caller knows the text is valid UTF-8, so the parser does not check it again: the JSON
  // text of a frame a TranscriptReader read (its raw is UTF-8: the canonical scan checks it, the
  // general path checks the line and refuses lone surrogates). Never for bytes off the wire.
  bool utf8_known = false;
};

enum class JsonErrorKind {
  not_json,          // a syntax error, trailing data, invalid UTF-8 in a string
  too_deep,          // nesting deeper than ParseLimits::max_depth
  duplicate_member,  // one object names a member twice
  unsupported,       // valid JSON msptk cannot hold: an exponent beyond ±2^31, memory exhausted
};

struct JsonError {
  JsonErrorKind kind = JsonErrorKind::not_json;
  std::size_t offset = 0;  // byte offset in the parsed text where the problem was found
  // not_json: Boost.JSON's reason ("syntax error", "incomplete JSON"); else the whole problem
  // ("nested deeper than 10000 levels", "duplicate member \"id\"").
  std::string message;
  std::string member;      // duplicate_member: the member name

  // The problem as a phrase: "not JSON: syntax error", "nested deeper than 10000 levels", ...
  std::string describe() const;
  // The problem said of `subject`: "raw is not JSON: syntax error", "raw is nested deeper than
  // 10000 levels", "raw has a duplicate member \"id\"", "raw holds a number ...".
  std::string about(std::string_view subject) const;
};

template <class T>
using JsonResult = boost::system::result<T, JsonError>;

[[noreturn]] void throw_exception_from_error(const JsonError& error, const boost::source_location& loc);

// Parses exactly one JSON value (outer whitespace allowed) under `limits`.
JsonResult<boost::json::value> parse_json(std::string_view text, ParseLimits limits = {});
// The same, the DOM allocated from `storage` (a JsonArena's, for a value that dies with the frame).
JsonResult<boost::json::value> parse_json(std::string_view text, boost::json::storage_ptr storage,
                                          ParseLimits limits = {});
// The text checked exactly as parse_json checks it (the same errors for the same text), but only
// its top level built: a container inside the top-level value is an empty container of its type
// (`{"params":{"a":1}}` gives `{"params":{}}`). For a caller that needs a frame's envelope
// (classify) and not its body: no memory for the body's strings and members.
JsonResult<boost::json::value> parse_json_top(std::string_view text, boost::json::storage_ptr storage,
                                              ParseLimits limits = {});

// Scratch memory for the DOM of one frame (or a few parsed together): a Boost.JSON
// monotonic_resource over a block that is kept between frames. Parsing into it costs no
// malloc/free per string and object, and release() drops a whole DOM at once, without walking
// it (so a deep DOM costs no stack to destroy either). Every value allocated from the arena,
// and every copy of one (a json::value copy keeps its source's storage), must be gone before
// release(): use it for values that live while one frame is looked at, hold an ArenaScope
// declared before them, and copy out what must outlive the frame as text or into a value with
// its own storage. Per thread: `thread_local JsonArena arena;` at the call site.
class JsonArena {
 public:
  // Where the arena gets memory beyond its block: blocks of 256 KiB to 8 MiB it gave back are
  // kept (16 MiB in all at most) and handed out again, so a session of multi-MiB frames maps and
  // faults their DOM's memory once, not for every frame. Larger blocks go back at once.
  class BlockCache final : public boost::json::memory_resource {
   public:
    BlockCache() = default;
    BlockCache(const BlockCache&) = delete;
    BlockCache& operator=(const BlockCache&) = delete;
    ~BlockCache() override;
    std::size_t kept_bytes() const;  // in blocks not in use

   private:
    struct Block {
      void* p;
      std::size_t bytes;
      std::size_t align;
      bool in_use;
    };
    void* do_allocate(std::size_t n, std::size_t align) override;
    void do_deallocate(void* p, std::size_t n, std::size_t align) override;
    bool do_is_equal(const boost::json::memory_resource& other) const noexcept override { return this == &other; }
    std::vector<Block> blocks_;
  };

  explicit JsonArena(std::size_t block_bytes = 64 * 1024);
  JsonArena(const JsonArena&) = delete;
  JsonArena& operator=(const JsonArena&) = delete;

  const boost::json::storage_ptr& storage() const { return storage_; }
  // Frees what the values took beyond the block and starts over from the block alone. (A
  // monotonic_resource's own release() keeps the size its next block would have had: each frame
  // that overflowed the block made the next overflow allocate twice as much, and after a few
  // thousand large frames one allocation asked for gigabytes.)
  void release();

 private:
  std::size_t block_bytes_;
  std::unique_ptr<unsigned char[]> block_;
  BlockCache cache_;  // before resource_: it outlives it
  boost::json::monotonic_resource resource_;
  boost::json::storage_ptr storage_;
};

// Releases an arena when it goes out of scope; declared before the values parsed into the
// arena, it outlives them.
class ArenaScope {
 public:
  explicit ArenaScope(JsonArena& arena) : arena_(arena) {}
  ~ArenaScope() { arena_.release(); }
  ArenaScope(const ArenaScope&) = delete;
  ArenaScope& operator=(const ArenaScope&) = delete;
  const boost::json::storage_ptr& storage() const { return arena_.storage(); }

 private:
  JsonArena& arena_;
};

// The marker byte that opens an exact number's string.
inline constexpr char exact_number_marker = '\xFF';

// True for a value holding an exact number (see the opening paragraph).
inline bool is_exact_number(const boost::json::value& v) {
  const boost::json::string* s = v.if_string();
  return s && !s->empty() && (*s)[0] == exact_number_marker;
}

// A JSON string in the sense of the data: a string that is not an exact number.
inline bool is_json_string(const boost::json::value& v) { return v.is_string() && !is_exact_number(v); }

// A JSON number of any representation: int64, uint64, double or exact number.
inline bool is_json_number(const boost::json::value& v) {
  return v.is_int64() || v.is_uint64() || v.is_double() || is_exact_number(v);
}

// An exact number holding `token` (a JSON number token, not checked here).
boost::json::value make_exact_number(std::string_view token);

// The JSON text of a number value: an exact number's token text, an integer in decimal, a
// double in its shortest round-trip form (valid JSON: "0.1", "1e+300"). Empty for non-numbers.
std::string number_text(const boost::json::value& v);

// The one text of a number's value ("1", "1.0" and "1e0" all give "1"; "1e400" gives "1e400";
// 30-digit integers give their digits). Two numbers have equal values exactly when their
// canonical texts are equal. Empty for non-numbers.
std::string canonical_number_text(const boost::json::value& v);

// A number that is an integer BY VALUE, however it is spelled (1000, 1e3 and 1000.0 are one JSON
// number: the canonical form writes all three as 1000), within int64 or uint64; 1.5, 1e400 and
// 30-digit integers are not. JSON-RPC ids and error codes are integers in this sense, so a frame
// classifies the same before and after canonical writing.
bool is_json_integer(const boost::json::value& v);
// The value of such an integer when it fits in int64.
std::optional<std::int64_t> json_int64(const boost::json::value& v);

// Equality of two number values by exact value (integers of any length exactly, other numbers
// by their decimal value, never through a rounded double). False when either is not a number.
bool numbers_equal(const boost::json::value& a, const boost::json::value& b);

// Compact strict JSON, member order kept: exact numbers as their token text, doubles in the
// shortest round-trip form. Not recursive.
std::string serialize_json(const boost::json::value& value);
void append_json(std::string& out, const boost::json::value& value);

// A JSON string literal for `text` (quotes and escapes added); `text` must be valid UTF-8.
void append_json_string(std::string& out, std::string_view text);

// The inside of a JSON string literal for `bytes` (no quotes): `"`, `\` and control bytes
// escaped, everything else copied in runs. Bytes that are not UTF-8 are copied as they are.
void append_json_escaped(std::string& out, std::string_view bytes);

}  // namespace msptk
