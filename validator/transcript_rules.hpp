// The file.*, frame.* and session.* rules over one transcript file, fed one line at a time
// in wire order (the validator never holds a whole transcript). Internal to the validator.
//
// A client frame that breaks a frame rule is kept pending until the server's next response
// shows whether it was rejected as seed 000 requires; a rejection is that response when its
// id is null or the id recovered from the broken frame. A response to a client request sent
// after the broken frame, or the end of the file, settles it as not rejected.
#pragma once

#include "msptk/transcript/correlator.hpp"
#include "msptk/transcript/manifest.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/validator/report.hpp"
#include "msptk/schema/bundle.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace msptk::detail {

struct TranscriptContext {
  std::string file;
  std::int64_t frame_limit = kDefaultFrameLimitBytes;
  bool session_rules = true;   // the main transcript; legs get file and frame rules only
  bool sdk_tolerance = false;  // unknown methods and enum values are notes, not warnings
  const schema::Bundle* schema = nullptr;
  ScenarioReport* counts = nullptr;  // schema_checked / envelope_only are counted here
};

class TranscriptChecker {
 public:
  TranscriptChecker(TranscriptContext context, std::vector<Finding>& findings, std::vector<Error>& problems)
      : ctx_(std::move(context)), findings_(findings), problems_(problems) {}

  void on_line(const Result<Frame>& item, const LineFacts& facts);
  void finish();

 private:
  enum class Expect { parse_error, invalid_request, too_large };
  struct Pending {
    std::size_t line = 0;
    std::string rule;  // the frame rule the client frame broke
    std::string what;  // "is not JSON (…)"
    Expect expect = Expect::parse_error;
    std::optional<std::string> id;  // id_key of an id recovered from the frame
  };

  void add(Severity severity, std::size_t line, std::string rule, std::string message);
  void check_frame(const Frame& frame);
  void check_raw_base64(const Frame& frame);
  void expect_rejection(const Frame& frame, std::string rule, std::string what, Expect expect,
                        std::optional<std::string> id);
  bool is_rejection(const Envelope& envelope) const;
  void settle_rejection(const Frame& frame, const boost::json::value& value, const Envelope& envelope);
  void missing_rejection(const Pending& pending, const std::string& why);
  void check_message(const Frame& frame, const boost::json::value& value, const Envelope& envelope);
  void check_session(const Frame& frame, const boost::json::value& value, const Envelope& envelope,
                     const Correlator::Outcome& outcome);
  void check_schema(const Frame& frame, const boost::json::value& value, const Envelope& envelope,
                    const Correlator::Request* answered);
  // Validates `instance` at `pointer`; returns false when the bundle has no schema there.
  bool validate_part(const Frame& frame, const std::string* pointer, const boost::json::value& instance,
                     std::string_view root, const std::string& what);
  bool check_error(const Frame& frame, const boost::json::value& value);

  TranscriptContext ctx_;
  std::vector<Finding>& findings_;
  std::vector<Error>& problems_;
  std::deque<Pending> pending_;
  Correlator correlator_;
  std::map<std::pair<Direction, std::string>, std::size_t> answered_;  // (requester, id) -> response line
  std::map<std::string, std::size_t> before_initialize_;               // client request id -> line
  bool seen_initialize_ = false, seen_initialized_ = false;
  bool initialize_first_reported_ = false;  // one root cause, one finding
  std::size_t first_client_line_ = 0;
};

// Reads `ctx.file` line by line through a TranscriptChecker. Returns the number of lines read.
std::size_t check_transcript_file(const TranscriptContext& ctx, std::vector<Finding>& findings,
                                  std::vector<Error>& problems);

}  // namespace msptk::detail
