// The envelope of a line too long to hold (envelope_scan.hpp): Boost.JSON's push parser with a
// handler that keeps only the top-level members it needs.
#include "msptk/script/envelope_scan.hpp"

#include "msptk/transcript/json_parse.hpp"

#include <boost/json/basic_parser_impl.hpp>

namespace msptk::script {

namespace json = boost::json;

namespace {

struct Handler {
  static constexpr std::size_t max_array_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_object_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_string_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_key_size = static_cast<std::size_t>(-1);

  LongFrame frame;
  std::size_t depth = 0;   // 1: inside the top-level object
  bool top_object = false;
  enum class Member { other, jsonrpc, id, method, result, error } member = Member::other;
  std::string key;         // the top-level key being read (at most kMaxEnvelopeValueBytes + 1)
  std::string text;        // the value being kept (a string, or a number's token)
  bool text_too_long = false;

  bool keeping() const { return depth == 1 && (member == Member::jsonrpc || member == Member::id || member == Member::method); }
  void keep(std::string_view s) {
    if (text.size() + s.size() > kMaxEnvelopeValueBytes) {
      text_too_long = true;
      return;
    }
    text.append(s);
  }
  void done_value() {
    text.clear();
    text_too_long = false;
  }

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_array_begin(json::error_code&) {
    ++depth;
    return true;
  }
  bool on_array_end(std::size_t, json::error_code&) {
    --depth;
    return true;
  }
  bool on_object_begin(json::error_code&) {
    if (depth == 0) top_object = true;
    ++depth;
    return true;
  }
  bool on_object_end(std::size_t, json::error_code&) {
    --depth;
    return true;
  }
  bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
    if (depth == 1 && key.size() <= kMaxEnvelopeValueBytes) key.append(s.data(), s.size());
    return true;
  }
  bool on_key(json::string_view s, std::size_t, json::error_code&) {
    if (depth != 1) return true;
    if (key.size() <= kMaxEnvelopeValueBytes) key.append(s.data(), s.size());
    member = key == "jsonrpc" ? Member::jsonrpc
             : key == "id"    ? Member::id
             : key == "method" ? Member::method
             : key == "result" ? Member::result
             : key == "error"  ? Member::error
                               : Member::other;
    if (member == Member::result) frame.has_result = true;
    if (member == Member::error) frame.has_error = true;
    key.clear();
    return true;
  }
  bool on_string_part(json::string_view s, std::size_t, json::error_code&) {
    if (keeping()) keep({s.data(), s.size()});
    return true;
  }
  bool on_string(json::string_view s, std::size_t, json::error_code&) {
    if (!keeping()) return true;
    keep({s.data(), s.size()});
    if (text_too_long) {
      frame.value_too_long = true;
    } else if (member == Member::jsonrpc) {
      frame.jsonrpc = text == "2.0";
    } else if (member == Member::id) {
      frame.id = json::value(json::string(text));
    } else {
      frame.method = text;
    }
    done_value();
    return true;
  }
  bool on_number_part(json::string_view s, json::error_code&) {
    if (keeping()) keep({s.data(), s.size()});
    return true;
  }
  void number(json::string_view s) {
    if (!keeping()) return;
    keep({s.data(), s.size()});
    if (member == Member::id && !text_too_long) {
      if (auto v = parse_json(text)) frame.id = std::move(*v);  // int64, uint64, double or exact number
    }
    done_value();
  }
  bool on_int64(std::int64_t, json::string_view s, json::error_code&) {
    number(s);
    return true;
  }
  bool on_uint64(std::uint64_t, json::string_view s, json::error_code&) {
    number(s);
    return true;
  }
  bool on_double(double, json::string_view s, json::error_code&) {
    number(s);
    return true;
  }
  bool on_bool(bool, json::error_code&) { return true; }
  bool on_null(json::error_code&) {
    if (depth == 1 && member == Member::id) frame.id = json::value(nullptr);
    return true;
  }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }
};

json::parse_options scan_options() {
  json::parse_options options;
  options.max_depth = kMaxScanDepth;
  return options;
}

}  // namespace

struct EnvelopeScan::Impl {
  json::basic_parser<Handler> parser{scan_options()};
  std::uint64_t bytes = 0;
  bool failed = false;
};

EnvelopeScan::EnvelopeScan() : impl_(std::make_unique<Impl>()) {}
EnvelopeScan::~EnvelopeScan() = default;

void EnvelopeScan::feed(std::string_view piece) {
  impl_->bytes += piece.size();
  if (impl_->failed || piece.empty()) return;
  json::error_code ec;
  impl_->parser.write_some(true, piece.data(), piece.size(), ec);
  if (ec) impl_->failed = true;
}

LongFrame EnvelopeScan::finish() {
  if (!impl_->failed) {
    json::error_code ec;
    impl_->parser.write_some(false, nullptr, 0, ec);
    impl_->failed = static_cast<bool>(ec) || !impl_->parser.done();
  }
  LongFrame out = std::move(impl_->parser.handler().frame);
  out.bytes = impl_->bytes;
  out.object = !impl_->failed && impl_->parser.handler().top_object;
  if (!out.object) {
    const std::uint64_t bytes = out.bytes;
    out = LongFrame();
    out.bytes = bytes;
  }
  return out;
}

}  // namespace msptk::script
