#include "transcript_rules.hpp"

#include "msptk/transcript/text_key.hpp"
#include "msptk/normalizer/path.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/redaction.hpp"
#include "msptk/transcript/writer.hpp"
#include "msptk/validator/validator.hpp"

#include <boost/json/serialize.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace msptk::detail {

namespace json = boost::json;

namespace {

// Which frame rule an invalid envelope breaks (mirrors the order of classify()).
std::string envelope_rule(const json::value& value) {
  const json::object* obj = value.if_object();
  if (!obj) return "frame.object";
  const json::value* version = obj->if_contains("jsonrpc");
  if (!version || !is_json_string(*version) || version->get_string() != "2.0") return "frame.jsonrpc";
  const json::value* id = obj->if_contains("id");
  if (id && !(is_json_string(*id) || id->is_int64() || id->is_uint64() || id->is_null())) return "frame.envelope";
  if (obj->contains("method") || !id) return "frame.envelope";
  if (obj->contains("result") == obj->contains("error")) return "frame.response";
  return "frame.error";
}

// The id a server can recover from a frame it will not parse whole: the first `"id":` member
// holding an integer or a string. Used only for frames that are not JSON.
std::optional<std::string> id_from_prefix(std::string_view raw) {
  const std::size_t key = raw.find("\"id\"");
  if (key == std::string_view::npos) return std::nullopt;
  std::size_t i = key + 4;
  auto skip = [&] {
    while (i < raw.size() && std::isspace(static_cast<unsigned char>(raw[i]))) ++i;
  };
  skip();
  if (i >= raw.size() || raw[i] != ':') return std::nullopt;
  ++i;
  skip();
  std::size_t end = i;
  if (end < raw.size() && raw[end] == '"') {
    end = raw.find('"', end + 1);
    if (end == std::string_view::npos) return std::nullopt;
    ++end;
  } else {
    if (end < raw.size() && raw[end] == '-') ++end;
    while (end < raw.size() && std::isdigit(static_cast<unsigned char>(raw[end]))) ++end;
  }
  auto id = parse_json(raw.substr(i, end - i));
  if (!id || !(is_json_string(*id) || id->is_int64() || id->is_uint64())) return std::nullopt;
  return id_key(*id);
}

std::optional<std::string> id_of(const json::value& value) {
  const json::object* obj = value.if_object();
  const json::value* id = obj ? obj->if_contains("id") : nullptr;
  if (!id || !(is_json_string(*id) || id->is_int64() || id->is_uint64())) return std::nullopt;
  return id_key(*id);
}

const json::object* error_of(const json::value& value) {
  const json::value* error = value.get_object().if_contains("error");
  return error ? error->if_object() : nullptr;
}

std::int64_t error_code(const json::value& value) {
  const json::object* error = error_of(value);
  const json::value* code = error ? error->if_contains("code") : nullptr;
  return code ? json_int64(*code).value_or(0) : 0;
}

const json::value* error_data(const json::value& value, std::string_view member) {
  const json::object* error = error_of(value);
  const json::value* data = error ? error->if_contains("data") : nullptr;
  return data && data->is_object() ? data->get_object().if_contains(member) : nullptr;
}

// "error -32600 with id null" / "a result with id 3".
std::string describe_response(const json::value& value, const Envelope& envelope) {
  const std::string id = id_key(*envelope.id);
  if (!envelope.is_error) return fmt::format("a result with id {}", id);
  return fmt::format("error {} with id {}", error_code(value), id);
}

}  // namespace

void TranscriptChecker::add(Severity severity, std::size_t line, std::string rule, std::string message) {
  if (rule == "session.initialize-first") initialize_first_reported_ = true;
  findings_.push_back(Finding{severity, ctx_.file, line, std::move(rule), std::move(message)});
}

void TranscriptChecker::on_line(const Result<Frame>& item, const LineFacts& facts) {
  if (!item && item.error().kind == ErrorKind::unreadable) {
    problems_.push_back(item.error());
    return;
  }
  const std::size_t line = item ? item->line : item.error().line;
  if (facts.crlf) add(Severity::error, line, "file.crlf", "line ends with CR LF; transcript lines end with LF alone");
  if (!facts.lf_terminated) add(Severity::error, line, "file.lf", "last line does not end with LF");
  if (!item) {
    add(Severity::error, line, item.error().rule, item.error().message);
    return;
  }
  check_frame(*item);
}

void TranscriptChecker::check_frame(const Frame& frame) {
  const bool client = frame.dir == Direction::client;
  if (frame.exact_bytes) check_raw_base64(frame);
  if (frame.exact_bytes) {
    if (client) {
      expect_rejection(frame, "file.utf8", "holds bytes that are not valid UTF-8 (kept in rawBase64)",
                       Expect::parse_error, std::nullopt);
    } else {
      add(Severity::error, frame.line, "file.utf8", "server frame bytes are not valid UTF-8 (kept in rawBase64)");
    }
    return;
  }
  if (frame.raw.find('\n') != std::string::npos) {
    add(Severity::error, frame.line, "frame.newline",
        fmt::format("{} raw contains a raw LF byte: on the wire it would be two frames", to_string(frame.dir)));
  }
  if (!client && !frame.raw.empty() && frame.raw.back() == '\r') {
    add(Severity::error, frame.line, "frame.server-cr", "server raw ends in CR (a server never emits one, seed 000)");
  }
  const auto size = static_cast<std::int64_t>(frame.raw.size());
  if (size > ctx_.frame_limit) {
    const std::string what = fmt::format("is {} bytes, over serverConfig.frameLimitBytes {}", size, ctx_.frame_limit);
    if (client) {
      expect_rejection(frame, "frame.too-large", what, Expect::too_large, too_large_frame_id(frame));
      return;
    }
    add(Severity::error, frame.line, "frame.too-large", "server frame " + what);
  }
  if (!ctx_.schema) {
    // Most frames of a session are notifications, and without a schema bundle nothing about a
    // notification but its method is checked: one the text key takes is valid JSON and a JSON-RPC
    // notification with that method (text_key.hpp), found without building its DOM.
    if (const std::optional<TextKey> key = notification_text_key(frame.json_text())) {
      static const json::value kUnread;  // a notification's checks never read its value
      check_message(frame, kUnread, key->envelope());
      return;
    }
  }
  // The frame's DOM lives while this frame is checked (nothing below keeps a value: ids and
  // methods are kept as text), so it comes from a per-thread arena.
  thread_local JsonArena arena;
  ArenaScope scope(arena);
  ParseLimits read;  // the frame came from the TranscriptReader and has no rawBase64: UTF-8
  read.utf8_known = true;
  auto parsed = parse_json(frame.json_text(), scope.storage(), read);
  if (!parsed) {
    const JsonError& e = parsed.error();
    if (e.kind == JsonErrorKind::duplicate_member) {
      // JSON-RPC implementations disagree on which of the two members wins: never legal.
      add(Severity::error, frame.line, "frame.duplicate-member",
          fmt::format("{} raw names member {} twice; peers disagree on which one counts",
                      to_string(frame.dir), serialize_json(json::string(e.member))));
    } else if (e.kind != JsonErrorKind::not_json) {
      add(Severity::error, frame.line, "frame.json", e.about(fmt::format("{} raw", to_string(frame.dir))));
    } else if (client) {
      expect_rejection(frame, "frame.json", fmt::format("is not JSON ({})", e.message), Expect::parse_error,
                       std::nullopt);
    } else {
      add(Severity::error, frame.line, "frame.json", fmt::format("server raw is not JSON: {}", e.message));
    }
    return;
  }
  const json::value& value = *parsed;
  const Envelope envelope = classify(value);
  if (envelope.kind == FrameKind::invalid) {
    if (client) {
      expect_rejection(frame, envelope_rule(value), "is not a JSON-RPC 2.0 message: " + envelope.problem,
                       Expect::invalid_request, id_of(value));
    } else {
      add(Severity::error, frame.line, envelope_rule(value), "server frame is not a JSON-RPC 2.0 message: " + envelope.problem);
    }
    return;
  }
  check_message(frame, value, envelope);
}

// `raw` beside `rawBase64` must be the lossy UTF-8 of its bytes (what the recorder writes):
// a hand edit of one of the two would make diff (which compares the bytes) and a reader of
// raw disagree about the frame.
void TranscriptChecker::check_raw_base64(const Frame& frame) {
  const std::string& bytes = *frame.exact_bytes;
  const std::string expected = lossy_utf8(bytes);
  if (expected == frame.raw) return;
  std::size_t i = 0;
  while (i < expected.size() && i < frame.raw.size() && expected[i] == frame.raw[i]) ++i;
  auto excerpt = [&](const std::string& s) {
    std::string cut = s.substr(i, 16);
    while (!cut.empty() && !is_valid_utf8(cut)) cut.pop_back();
    return serialize_json(json::string(cut)) + (s.size() > i + 16 ? "…" : "");
  };
  add(Severity::error, frame.line, "file.members",
      fmt::format("\"raw\" and \"rawBase64\" disagree: rawBase64 holds {} bytes whose lossy UTF-8 is {} bytes, raw is {} "
                  "bytes; they differ from byte {} of raw (raw has {}, rawBase64 gives {}); raw must be the lossy "
                  "UTF-8 of rawBase64's bytes",
                  bytes.size(), expected.size(), frame.raw.size(), i,
                  i < frame.raw.size() ? excerpt(frame.raw) : std::string("nothing more"),
                  i < expected.size() ? excerpt(expected) : std::string("nothing more")));
}

void TranscriptChecker::expect_rejection(const Frame& frame, std::string rule, std::string what, Expect expect,
                                         std::optional<std::string> id) {
  pending_.push_back(Pending{frame.line, std::move(rule), "client frame " + what, expect, std::move(id)});
}

bool TranscriptChecker::is_rejection(const Envelope& envelope) const {
  if (pending_.empty() || envelope.kind != FrameKind::response) return false;
  return envelope.id->is_null() || (pending_.front().id && *pending_.front().id == id_key(*envelope.id));
}

void TranscriptChecker::missing_rejection(const Pending& pending, const std::string& why) {
  static constexpr std::string_view kExpected[] = {
      "a parse error (-32700) with id null",
      "invalidRequest (-32600)",
      "inputTooLarge (-32002) with data.limitBytes, or a parse error (-32700) with id null",
  };
  add(Severity::error, pending.line, pending.rule,
      fmt::format("{}; legal only when the server rejects it with {} (seed 000), but {}", pending.what,
                  kExpected[static_cast<int>(pending.expect)], why));
}

void TranscriptChecker::settle_rejection(const Frame& frame, const json::value& value, const Envelope& envelope) {
  const Pending pending = pending_.front();
  pending_.pop_front();
  const bool id_null = envelope.id->is_null();
  const std::int64_t code = envelope.is_error ? error_code(value) : 0;
  std::string problem;
  switch (pending.expect) {
    case Expect::parse_error:
      if (!(code == -32700 && id_null)) problem = "a parse error (-32700) with id null";
      break;
    case Expect::invalid_request:
      if (code != -32600) problem = "invalidRequest (-32600)";
      break;
    case Expect::too_large:
      if (code == -32002 && !id_null) {
        const json::value* limit = error_data(value, "limitBytes");
        if (!limit || !is_json_number(*limit)) {
          problem = fmt::format("inputTooLarge with data.limitBytes {}", ctx_.frame_limit);
        } else if (!(limit->is_int64() && limit->get_int64() == ctx_.frame_limit)) {
          add(Severity::error, frame.line, "frame.rejection",
              fmt::format("inputTooLarge for the client frame of line {} gives data.limitBytes {}, not "
                          "serverConfig.frameLimitBytes {}",
                          pending.line, json::serialize(*limit), ctx_.frame_limit));
        }
      } else if (!(code == -32700 && id_null)) {
        problem = "inputTooLarge (-32002) with the frame's id and data.limitBytes, or a parse error (-32700) with id null";
      }
      break;
  }
  if (!problem.empty()) {
    add(Severity::error, frame.line, "frame.rejection",
        fmt::format("answers the client frame of line {}, which {}, with {}; seed 000 requires {}", pending.line,
                    pending.what.substr(std::string_view("client frame ").size()), describe_response(value, envelope),
                    problem));
  }
}

void TranscriptChecker::check_message(const Frame& frame, const json::value& value, const Envelope& envelope) {
  if (frame.dir == Direction::server && is_rejection(envelope)) {
    settle_rejection(frame, value, envelope);
    if (ctx_.schema) check_schema(frame, value, envelope, nullptr);
    return;
  }
  const Correlator::Outcome outcome = correlator_.observe(frame.dir, envelope, frame.line);
  if (outcome.answered && outcome.answered->dir == Direction::client) {
    // The server has answered a request sent after a broken client frame: no rejection came.
    while (!pending_.empty() && pending_.front().line < outcome.answered->line) {
      missing_rejection(pending_.front(),
                        fmt::format("the server answers the later request of line {} (at line {}) without rejecting it",
                                    outcome.answered->line, frame.line));
      pending_.pop_front();
    }
  }
  if (ctx_.session_rules) check_session(frame, value, envelope, outcome);
  if (ctx_.schema) check_schema(frame, value, envelope, outcome.answered);
}

void TranscriptChecker::check_session(const Frame& frame, const json::value& value, const Envelope& envelope,
                                      const Correlator::Outcome& outcome) {
  const std::size_t line = frame.line;
  const std::string id = envelope.id ? id_key(*envelope.id) : std::string();
  if (frame.dir == Direction::client) {
    if (first_client_line_ == 0) first_client_line_ = line;
    if (envelope.kind == FrameKind::request) {
      answered_.erase({Direction::client, id});
      if (!seen_initialize_) {
        if (envelope.method == "initialize") {
          seen_initialize_ = true;
        } else {
          before_initialize_.emplace(id, line);
        }
      }
    } else if (envelope.kind == FrameKind::notification) {
      if (!seen_initialize_) {
        add(Severity::error, line, "session.initialize-first",
            fmt::format("client notification {} before initialize (the first client message is initialize)",
                        envelope.method));
      } else if (envelope.method == "initialized") {
        seen_initialized_ = true;
      }
    }
  } else if (envelope.kind != FrameKind::response && !seen_initialized_) {
    add(Severity::error, line, "session.before-initialized",
        fmt::format("server {} {} before the client's {} (seed 000: the server sends no notifications or requests "
                    "until the client's initialized)",
                    to_string(envelope.kind), envelope.method, seen_initialize_ ? "initialized" : "initialize"));
  }
  if (frame.dir == Direction::server && envelope.kind == FrameKind::request) answered_.erase({Direction::server, id});

  switch (outcome.status) {
    case Correlator::Status::duplicate_id:
      add(Severity::error, line, "session.duplicate-id",
          fmt::format("{} request id {} is already in flight (sent at line {})", to_string(frame.dir), id,
                      outcome.previous->line));
      break;
    case Correlator::Status::unmatched: {
      const Direction requester = frame.dir == Direction::client ? Direction::server : Direction::client;
      if (auto it = answered_.find({requester, id}); it != answered_.end()) {
        add(Severity::error, line, "session.answered-twice",
            fmt::format("response to {} request id {}, which was already answered at line {}", to_string(requester),
                        id, it->second));
      } else {
        add(Severity::error, line, "session.unmatched-response",
            fmt::format("{} response id {} answers no {} request in flight", to_string(frame.dir), id,
                        to_string(requester)));
      }
      break;
    }
    default: break;
  }
  if (const Correlator::Request* request = outcome.answered) {
    answered_[{request->dir, request->id}] = line;
    auto early = before_initialize_.find(request->id);
    if (request->dir == Direction::client && early != before_initialize_.end() && early->second == request->line) {
      before_initialize_.erase(early);
      const json::value* kind = envelope.is_error ? error_data(value, "kind") : nullptr;
      const bool rejected = envelope.is_error && error_code(value) == -32600 && kind && is_json_string(*kind) &&
                            kind->get_string() == "notInitialized";
      if (!rejected) {
        add(Severity::error, request->line, "session.initialize-first",
            fmt::format("request {} is sent before initialize, and the server's answer (line {}) is {}, not "
                        "invalidRequest (-32600) with data.kind notInitialized",
                        request->method, line, describe_response(value, envelope)));
      }
    }
  }
}

void TranscriptChecker::check_schema(const Frame& frame, const json::value& value, const Envelope& envelope,
                                     const Correlator::Request* answered) {
  const Severity tolerated = ctx_.sdk_tolerance ? Severity::note : Severity::warning;
  const schema::Bundle& bundle = *ctx_.schema;
  const json::object& obj = value.get_object();
  bool checked = false;
  if (envelope.kind == FrameKind::request || envelope.kind == FrameKind::notification) {
    const schema::Table table = schema::table_for(frame.dir, envelope.kind);
    if (!bundle.knows(table, envelope.method)) {
      add(tolerated, frame.line, "frame.unknown-method",
          fmt::format("unknown method {}: not in the schema bundle's \"{}\" table", envelope.method,
                      schema::to_string(table)));
    } else {
      // JSON-RPC: params omitted means no parameters, i.e. the empty object.
      static const json::value kNoParams = json::object();
      const json::value* params = obj.if_contains("params");
      checked = validate_part(frame, bundle.schema_pointer(table, envelope.method, "params"), params ? *params : kNoParams,
                              "params", fmt::format("{} {}", to_string(envelope.kind), envelope.method));
    }
  } else if (envelope.is_error) {
    checked = check_error(frame, value);
  } else if (answered) {
    const schema::Table table = schema::table_for(answered->dir, FrameKind::request);
    if (bundle.knows(table, answered->method)) {
      checked = validate_part(frame, bundle.schema_pointer(table, answered->method, "result"), obj.at("result"),
                              "result", fmt::format("result of {} sent at line {}", answered->method, answered->line));
    }
  }
  if (ctx_.counts) ++(checked ? ctx_.counts->schema_checked : ctx_.counts->envelope_only);
}

namespace {

// The locations (in the schema validator's spelling: root, .member, [index]) of the redaction
// placeholders under `value` (record --redact).
void find_placeholders(const json::value& value, const std::string& location, std::vector<std::string>& out) {
  if (const json::string* s = value.if_string(); s && !is_exact_number(value) && is_redaction_placeholder(*s)) {
    out.push_back(location);
  } else if (value.is_object()) {
    for (const auto& member : value.get_object()) find_placeholders(member.value(), append_member(location, member.key()), out);
  } else if (value.is_array()) {
    const json::array& array = value.get_array();
    for (std::size_t i = 0; i < array.size(); ++i) find_placeholders(array[i], append_index(location, i), out);
  }
}

// The placeholder location `path` is at or under, if any.
const std::string* redacted_at(const std::vector<std::string>& placeholders, const std::string& path) {
  for (const std::string& location : placeholders) {
    if (path.compare(0, location.size(), location) != 0) continue;
    if (path.size() == location.size() || path[location.size()] == '.' || path[location.size()] == '[') return &location;
  }
  return nullptr;
}

}  // namespace

bool TranscriptChecker::validate_part(const Frame& frame, const std::string* pointer,
                                      const json::value& instance, std::string_view root, const std::string& what) {
  if (!pointer) return false;
  constexpr std::size_t kMaxPerFrame = 10;
  const std::vector<schema::Violation> violations = ctx_.schema->validate(*pointer, instance, root);
  std::vector<std::string> placeholders, noted;
  if (!violations.empty()) find_placeholders(instance, std::string(root), placeholders);
  std::size_t reported = 0;
  for (const schema::Violation& v : violations) {
    if (const std::string* location = redacted_at(placeholders, v.path)) {
      // record --redact replaced the value: the schema cannot judge the placeholder.
      if (std::find(noted.begin(), noted.end(), *location) != noted.end()) continue;
      noted.push_back(*location);
      add(Severity::note, frame.line, "frame.redacted",
          fmt::format("{}: the recorded value is redacted, not checked against the schema ({}; {})", *location,
                      v.message, what));
      continue;
    }
    if (v.constraint == schema::Constraint::too_deep) {
      add(Severity::warning, frame.line, "frame.schema-depth", fmt::format("{}: {} ({})", v.path, v.message, what));
      continue;
    }
    if (v.constraint == schema::Constraint::enum_value && v.string_value && (v.open_enum || ctx_.sdk_tolerance)) {
      // Seed 003: an unknown string on an open enum is conformant, with a warning. In
      // sdk-tolerance scenarios every unknown enum string is there on purpose: a note.
      add(ctx_.sdk_tolerance ? Severity::note : Severity::warning, frame.line, "frame.unknown-enum",
          fmt::format("{}: {} ({}; schema {})", v.path, v.message, what, v.schema_location));
      continue;
    }
    if (++reported > kMaxPerFrame) continue;
    add(Severity::error, frame.line, "frame.schema", fmt::format("{}: {} ({}; schema {})", v.path, v.message, what, v.schema_location));
  }
  if (reported > kMaxPerFrame) {
    add(Severity::error, frame.line, "frame.schema",
        fmt::format("{} more schema violations in this frame not shown ({})", reported - kMaxPerFrame, what));
  }
  return true;
}

bool TranscriptChecker::check_error(const Frame& frame, const json::value& value) {
  const schema::Bundle& bundle = *ctx_.schema;
  const json::value& error = value.get_object().at("error");
  bool checked = false;
  static const std::string kErrorObject = "#/$defs/ErrorObject";
  if (bundle.has(kErrorObject)) checked = validate_part(frame, &kErrorObject, error, "error", "error response");
  if (!bundle.has_error_table()) return checked;
  const json::value* code = error.get_object().if_contains("code");
  const std::optional<std::int64_t> code_value = code ? json_int64(*code) : std::nullopt;
  if (!code_value) return checked;  // frame.error says so
  const schema::ErrorEntry* entry = bundle.error(*code_value);
  if (!entry) {
    add(ctx_.sdk_tolerance ? Severity::note : Severity::warning, frame.line, "frame.unknown-error-code",
        fmt::format("error code {} is not in the schema bundle's errors table", *code_value));
    return true;
  }
  if (entry->kind.empty()) return true;
  std::string allowed = fmt::format("\"{}\"", entry->kind);
  for (std::size_t i = 0; i < entry->override_kinds.size(); ++i) {
    allowed += fmt::format("{}\"{}\"", i + 1 == entry->override_kinds.size() ? " or " : ", ", entry->override_kinds[i]);
  }
  const json::value* kind = error_data(value, "kind");
  if (!kind) {
    add(Severity::error, frame.line, "frame.error-kind",
        fmt::format("error {} carries no data.kind; the errors table gives {} for it", entry->code, allowed));
  } else if (!is_json_string(*kind) ||
             (kind->get_string() != entry->kind &&
              std::find(entry->override_kinds.begin(), entry->override_kinds.end(), kind->get_string()) ==
                  entry->override_kinds.end())) {
    add(Severity::error, frame.line, "frame.error-kind",
        fmt::format("error {} carries data.kind {}; the errors table gives {} for it", entry->code,
                    json::serialize(*kind), allowed));
  }
  return true;
}

void TranscriptChecker::finish() {
  while (!pending_.empty()) {
    missing_rejection(pending_.front(), "no server response rejects it");
    pending_.pop_front();
  }
  if (!ctx_.session_rules) return;
  if (!seen_initialize_ && !initialize_first_reported_) {
    add(Severity::error, first_client_line_ == 0 ? 1 : first_client_line_, "session.initialize-first",
        "the client never sends initialize (the first client message is initialize)");
  }
  for (const Correlator::Request& request : correlator_.in_flight()) {
    auto early = before_initialize_.find(request.id);
    if (request.dir == Direction::client && early != before_initialize_.end() && early->second == request.line) {
      add(Severity::error, request.line, "session.initialize-first",
          fmt::format("request {} is sent before initialize and never rejected with invalidRequest (-32600) "
                      "data.kind notInitialized",
                      request.method));
    } else {
      add(Severity::warning, request.line, "session.unanswered",
          fmt::format("{} request {} id {} is never answered", to_string(request.dir), request.method, request.id));
    }
  }
}

std::size_t check_transcript_file(const TranscriptContext& ctx, std::vector<Finding>& findings,
                                  std::vector<Error>& problems) {
  auto reader = TranscriptReader::open(ctx.file);
  if (!reader) {
    problems.push_back(reader.error());
    return 0;
  }
  TranscriptChecker checker(ctx, findings, problems);
  while (auto item = reader->next()) {
    reader->release_line();  // a long line is decoded into its Frame: not held twice while checked
    checker.on_line(*item, reader->facts());
    if (*item) reader->recycle(std::move(**item));
  }
  checker.finish();
  return reader->line();
}

}  // namespace msptk::detail

namespace msptk {

std::optional<std::string> too_large_frame_id(const Frame& frame) {
  auto value = parse_json(frame.json_text());
  return value ? detail::id_of(*value) : detail::id_from_prefix(frame.raw);
}

}  // namespace msptk

namespace msptk {

std::vector<Finding> validate_frames(const std::vector<Frame>& frames, std::int64_t frame_limit) {
  std::vector<Finding> findings;
  std::vector<Error> problems;
  detail::TranscriptContext ctx;
  ctx.file = "transcript.ndjson";
  ctx.frame_limit = frame_limit;
  detail::TranscriptChecker checker(ctx, findings, problems);
  std::size_t line = 0;
  for (const Frame& f : frames) {
    Frame numbered = f;
    numbered.line = ++line;
    checker.on_line(Result<Frame>(std::move(numbered)), LineFacts{true, true, false, false});
  }
  checker.finish();
  return findings;
}

}  // namespace msptk
