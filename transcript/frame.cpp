#include "msptk/transcript/frame.hpp"
#include "msptk/transcript/json_parse.hpp"

#include <boost/json/serialize.hpp>

#include <cstdint>
#include <string>

namespace msptk {

namespace json = boost::json;

std::string_view to_string(Direction dir) { return dir == Direction::client ? "client" : "server"; }

std::optional<Direction> parse_direction(std::string_view text) {
  if (text == "client") return Direction::client;
  if (text == "server") return Direction::server;
  return std::nullopt;
}

std::string_view Frame::json_text() const {
  std::string_view text = wire_bytes();
  if (dir == Direction::client && !text.empty() && text.back() == '\r') text.remove_suffix(1);
  return text;
}

Result<json::value> Frame::parse(const std::string& file) const {
  auto value = parse_json(json_text());
  if (!value) {
    const JsonError& e = value.error();
    return Error::malformed(file, line,
                            e.kind == JsonErrorKind::duplicate_member ? "frame.duplicate-member" : "frame.json",
                            e.about("raw"));
  }
  return std::move(*value);
}

std::string_view to_string(FrameKind kind) {
  switch (kind) {
    case FrameKind::request: return "request";
    case FrameKind::notification: return "notification";
    case FrameKind::response: return "response";
    case FrameKind::invalid: return "invalid";
  }
  return "invalid";
}

bool may_name_id(std::string_view json_text) {
  return json_text.find("\"id\"") != std::string_view::npos || json_text.find("\\u") != std::string_view::npos;
}

Envelope classify(const json::value& message) {
  Envelope env;
  const json::object* obj = message.if_object();
  if (!obj) {
    env.problem = "message is not a JSON object";
    return env;
  }
  // The members that make the envelope, in one pass (an object's keys are unique).
  const json::value *version = nullptr, *id = nullptr, *method = nullptr, *result = nullptr, *error = nullptr,
                    *params = nullptr;
  for (const auto& member : *obj) {
    const std::string_view key = member.key();
    switch (key.size()) {
      case 2: if (key == "id") id = &member.value(); break;
      case 5: if (key == "error") error = &member.value(); break;
      case 6:
        if (key == "method") method = &member.value();
        else if (key == "result") result = &member.value();
        else if (key == "params") params = &member.value();
        break;
      case 7: if (key == "jsonrpc") version = &member.value(); break;
      default: break;
    }
  }
  if (!version || !is_json_string(*version) || version->get_string() != "2.0") {
    env.problem = "missing \"jsonrpc\":\"2.0\"";
    return env;
  }
  if (id && !(is_json_string(*id) || is_json_integer(*id) || id->is_null())) {
    env.problem = is_json_number(*id) ? "id must be an integer (of at most 64 bits), a string or null"
                                      : "id must be an integer, a string or null";
    return env;
  }
  env.id = id;
  if (method) {
    if (!is_json_string(*method)) {
      env.problem = "method must be a string";
      return env;
    }
    if (result || error) {
      env.problem = "a message cannot carry both method and result/error";
      return env;
    }
    if (id && id->is_null()) {
      env.problem = "a request id cannot be null";
      return env;
    }
    if (params && !params->is_object() && !params->is_array()) {
      env.problem = "params must be an object or an array";
      return env;
    }
    env.method = std::string(method->get_string());
    env.kind = id ? FrameKind::request : FrameKind::notification;
    return env;
  }
  if (!id) {
    env.problem = "neither a request, a notification nor a response (no method, no id)";
    return env;
  }
  if ((result != nullptr) == (error != nullptr)) {
    env.problem = "a response carries exactly one of result and error";
    return env;
  }
  if (error) {
    const json::object* eobj = error->if_object();
    if (!eobj) {
      env.problem = "error must be an object";
      return env;
    }
    const json::value* code = eobj->if_contains("code");
    if (!code || !is_json_integer(*code)) {
      env.problem = "error.code must be an integer";
      return env;
    }
    const json::value* msg = eobj->if_contains("message");
    if (!msg || !is_json_string(*msg)) {
      env.problem = "error.message must be a string";
      return env;
    }
    env.is_error = true;
  }
  env.kind = FrameKind::response;
  return env;
}

std::string id_key(const json::value& id) {
  if (is_json_number(id)) return canonical_number_text(id);  // 1e3 and 1000 are one id
  return serialize_json(id);
}

}  // namespace msptk
