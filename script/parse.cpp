#include "msptk/script/reference.hpp"
#include "msptk/script/script.hpp"

#include "msptk/transcript/frame.hpp"
#include "msptk/transcript/json_io.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/sha256.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>
#include <set>

namespace msptk::script {

namespace json = boost::json;

std::string_view to_string(StepKind kind) {
  switch (kind) {
    case StepKind::handshake: return "handshake";
    case StepKind::request: return "request";
    case StepKind::notify: return "notify";
    case StepKind::send: return "send";
    case StepKind::answer: return "answer";
    case StepKind::wait: return "wait";
    case StepKind::quiet: return "quiet";
  }
  return "?";
}

const Step* Script::named(std::string_view name) const {
  for (const Step& step : steps)
    if (step.name == name) return &step;
  return nullptr;
}

std::size_t Script::minted_command_ids() const {
  return static_cast<std::size_t>(std::count_if(steps.begin(), steps.end(), [](const Step& step) {
    return step.command && !(step.has_params && step.body.is_object() && step.body.get_object().contains("commandId"));
  }));
}

const std::vector<ScriptRule>& script_rules() {
  static const std::vector<ScriptRule> rules = {
      {"script.json", "every line that is not blank or a # comment is one JSON value"},
      {"script.step", "a step is a JSON object naming exactly one step kind"},
      {"script.unknown-step", "the step kind is one of handshake, request, command, notify, send, answer, wait, quiet"},
      {"script.member", "a step has only the members of its kind, each of its type"},
      {"script.frame", "a send step's frame is a JSON-RPC 2.0 client frame"},
      {"script.reference", "a string starting with ${ is a whole reference: ${NAME:PATH} or ${last METHOD:PATH}"},
      {"script.path", "a path (in a reference or a wait's where) is in normalize's JsonPath grammar"},
      {"script.unknown-name", "a reference names a step declared by an earlier line"},
      {"script.not-request", "a reference by name names a request step (its response is what is read)"},
      {"script.duplicate-name", "a step name is declared once"},
      {"script.duplicate-id", "an explicit request id is used once"},
      {"script.id-range", "a minted request id stays within int64: no request without an id follows an integer id of 9223372036854775807 or more"},
      {"script.empty", "a script has at least one step"},
      {"script.timeout", "run time: a step's frames were taken by the host, and its response, wait, answer or quiet period came, within its timeoutMs"},
      {"script.unresolved", "run time: a reference names a value the host sent (no error response, the path holds one value)"},
      {"script.handshake", "run time: the host answered initialize with a result"},
      {"script.host-closed", "run time: the host kept its output open until the script ended"},
  };
  return rules;
}

namespace {

constexpr std::string_view kKinds[] = {"handshake", "request", "command", "notify", "send", "answer", "quiet"};

struct LineParser {
  const std::string& file;
  std::size_t line;

  Error fail(std::string rule, std::string message) const {
    return Error{ErrorKind::usage, std::move(message), file, line, std::move(rule)};
  }
};

bool valid_name(std::string_view name) {
  if (name.empty() || name == "last") return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
      return false;
  return true;
}

// An integer id is one of 64 bits (int64 or uint64); a string id any string.
bool valid_id(const json::value& id) { return id.is_int64() || id.is_uint64() || is_json_string(id); }
constexpr std::string_view kIdRule =
    "an integer from -9223372036854775808 to 18446744073709551615 or a string";

Result<int> milliseconds(const LineParser& at, const json::value& v, std::string_view member) {
  if (v.is_int64() && v.get_int64() >= 1 && v.get_int64() <= kMaxTimeoutMs) return static_cast<int>(v.get_int64());
  return at.fail("script.member", fmt::format("\"{}\" is a whole number of milliseconds from 1 to {}, not {}", member,
                                              kMaxTimeoutMs, serialize_json(v)));
}

// Checks the references a value holds against the steps before it.
Result<void> check_references(const LineParser& at, const json::value& value, const Script& script) {
  std::optional<Error> error;
  for_each_reference_string(value, [&](std::string_view text) {
    if (error) return;
    auto ref = parse_reference(text);
    if (!ref) {
      error = at.fail(ref.error().rule, ref.error().message);
      return;
    }
    if (!*ref || (*ref)->last) return;
    const Step* step = script.named((*ref)->name);
    if (!step) {
      error = at.fail("script.unknown-name",
                      fmt::format("reference \"{}\": no earlier step is named \"{}\"", text, (*ref)->name));
    } else if (!step->is_request) {
      error = at.fail("script.not-request",
                      fmt::format("reference \"{}\": step \"{}\" (line {}) is a {} step, not a request: only a "
                                  "request has a response to read",
                                  text, step->name, step->line, to_string(step->kind)));
    }
  });
  if (error) return *error;
  return {};
}

Result<Step> parse_step(const LineParser& at, const json::object& o, const Script& script) {
  std::string kind_key;
  for (std::string_view k : kKinds) {
    if (!o.contains(k)) continue;
    if (!kind_key.empty())
      return at.fail("script.step", fmt::format("a step names one kind, this one names \"{}\" and \"{}\"", kind_key, k));
    kind_key = std::string(k);
  }
  if (kind_key.empty() && o.contains("wait") && o.at("wait").is_string()) kind_key = "wait";
  if (kind_key.empty()) {
    std::string members;
    for (const auto& m : o) members += fmt::format("{}\"{}\"", members.empty() ? "" : ", ", std::string_view(m.key()));
    return at.fail("script.unknown-step",
                   fmt::format("unknown step (members {}): a step is one of handshake, request, command, notify, "
                               "send, answer, wait, quiet",
                               members.empty() ? "none" : members));
  }

  Step step;
  step.line = at.line;
  std::set<std::string_view> allowed = {kind_key, "name", "timeoutMs"};
  if (kind_key == "handshake") {
    step.kind = StepKind::handshake;
    step.is_request = true;
  } else if (kind_key == "request" || kind_key == "command") {
    step.kind = StepKind::request;
    step.is_request = true;
    step.command = kind_key == "command";
    allowed.insert({"params", "id", "wait"});
  } else if (kind_key == "notify") {
    step.kind = StepKind::notify;
    allowed.insert("params");
  } else if (kind_key == "send") {
    step.kind = StepKind::send;
    allowed.insert("wait");
  } else if (kind_key == "answer") {
    step.kind = StepKind::answer;
    allowed.insert({"result", "error", "always"});
  } else if (kind_key == "wait") {
    step.kind = StepKind::wait;
    allowed.insert("where");
  } else {
    step.kind = StepKind::quiet;
  }
  for (const auto& m : o)
    if (!allowed.count(m.key()))
      return at.fail("script.member", fmt::format("a {} step has no member \"{}\"", kind_key, std::string_view(m.key())));

  const json::value& head = o.at(kind_key);
  switch (step.kind) {
    case StepKind::request:
    case StepKind::notify:
    case StepKind::answer:
    case StepKind::wait:
      if (!head.is_string() || head.get_string().empty() || !is_json_string(head))
        return at.fail("script.member", fmt::format("\"{}\" names a method: a non-empty string", kind_key));
      step.method = std::string(head.get_string());
      break;
    case StepKind::handshake:
      if (!head.is_object())
        return at.fail("script.member", "\"handshake\" holds initialize's params: an object (with clientInfo)");
      step.method = "initialize";
      step.body = head;
      step.has_params = true;
      break;
    case StepKind::send: {
      if (!head.is_object()) return at.fail("script.frame", "\"send\" holds a JSON-RPC frame: an object");
      const Envelope env = classify(head);
      if (env.kind == FrameKind::invalid)
        return at.fail("script.frame", fmt::format("the frame is not a JSON-RPC 2.0 frame: {}", env.problem));
      step.body = head;
      step.method = env.method;
      step.is_request = env.kind == FrameKind::request;
      if (step.is_request) {
        if (env.id->is_string() && env.id->get_string().starts_with("${"))
          return at.fail("script.member", "a request's id is written out, never a reference (responses are matched by it)");
        step.id = *env.id;
      }
      break;
    }
    case StepKind::quiet: {
      auto ms = milliseconds(at, head, "quiet");
      if (!ms) return ms.error();
      step.quiet_ms = *ms;
      break;
    }
  }

  if (auto it = o.find("params"); it != o.end()) {
    if (!it->value().is_object() && !it->value().is_array())
      return at.fail("script.member", "\"params\" is an object or an array");
    if (step.command && !it->value().is_object())
      return at.fail("script.member", "a command's \"params\" is an object (it gets a commandId)");
    step.body = it->value();
    step.has_params = true;
  }
  if (auto it = o.find("id"); it != o.end()) {
    if (!valid_id(it->value()))
      return at.fail("script.member", fmt::format("\"id\" is {}, not {}", kIdRule, serialize_json(it->value())));
    step.id = it->value();
  }
  if (auto it = o.find("wait"); it != o.end() && step.kind != StepKind::wait) {
    if (!it->value().is_bool()) return at.fail("script.member", "\"wait\" on a request is true or false");
    if (!step.is_request) return at.fail("script.member", "\"wait\" is for a request: this frame gets no response");
    step.wait_response = it->value().get_bool();
  }
  if (auto it = o.find("name"); it != o.end()) {
    if (!it->value().is_string() || !valid_name(it->value().get_string()))
      return at.fail("script.member", "\"name\" is letters, digits, '_' and '-' (and not \"last\")");
    step.name = std::string(it->value().get_string());
    if (const Step* before = script.named(step.name))
      return at.fail("script.duplicate-name", fmt::format("step name \"{}\" is declared at line {} already", step.name,
                                                          before->line));
  }
  if (auto it = o.find("timeoutMs"); it != o.end()) {  // every step: it covers the step's sends too
    auto ms = milliseconds(at, it->value(), "timeoutMs");
    if (!ms) return ms.error();
    step.timeout_ms = *ms;
  }
  if (step.kind == StepKind::quiet) {
    if (!o.contains("timeoutMs")) {
      step.timeout_ms = step.quiet_ms + std::min(kDefaultTimeoutMs, kMaxTimeoutMs - step.quiet_ms);
    }
    if (step.timeout_ms <= step.quiet_ms)
      return at.fail("script.member", fmt::format("a quiet step's \"timeoutMs\" ({}) must exceed its quiet period ({} ms)",
                                                  step.timeout_ms, step.quiet_ms));
  }
  if (step.kind == StepKind::answer) {
    const bool result = o.contains("result"), error = o.contains("error");
    if (result == error) return at.fail("script.member", "an answer has one of \"result\" and \"error\"");
    step.is_error = error;
    step.body = o.at(error ? "error" : "result");
    if (error) {
      const json::value& e = step.body;
      if (!e.is_object() || !e.get_object().contains("code") || !e.at("code").is_int64() ||
          !e.get_object().contains("message") || !e.at("message").is_string())
        return at.fail("script.member", "an answer's \"error\" is an object with an integer code and a string message");
    }
    if (auto it = o.find("always"); it != o.end()) {
      if (!it->value().is_bool()) return at.fail("script.member", "\"always\" is true or false");
      step.always = it->value().get_bool();
    }
  }
  if (step.kind == StepKind::wait) {
    if (auto it = o.find("where"); it != o.end()) {
      if (!it->value().is_object() || it->value().get_object().empty())
        return at.fail("script.member", "\"where\" is an object of PATH: VALUE members");
      for (const auto& m : it->value().get_object()) {
        auto path = JsonPath::parse(m.key());
        if (!path) return at.fail("script.path", fmt::format("where: {}", path.error().message));
        if (auto ok = check_references(at, m.value(), script); !ok) return ok.error();
        step.where.emplace_back(std::move(*path), m.value());
      }
    }
  }
  if (auto ok = check_references(at, step.body, script); !ok) return ok.error();
  return step;
}

}  // namespace

Result<Script> parse_script(std::string_view text, std::string file) {
  Script script;
  script.file = std::move(file);
  script.sha256 = sha256_hex(text);
  std::set<std::string> ids;
  // Minted ids count up past every integer id used before, from 1, within int64: once an id
  // of INT64_MAX (or a larger uint64 one) was used, none can be minted (script.id-range).
  std::int64_t next_id = 1;
  std::optional<std::pair<std::size_t, std::string>> id_ceiling;  // the line and id that ended minting
  std::size_t line = 0;
  while (!text.empty()) {
    ++line;
    const std::size_t lf = text.find('\n');
    std::string_view row = text.substr(0, lf);
    text.remove_prefix(lf == std::string_view::npos ? text.size() : lf + 1);
    if (!row.empty() && row.back() == '\r') row.remove_suffix(1);
    const std::size_t first = row.find_first_not_of(" \t");
    if (first == std::string_view::npos || row[first] == '#') continue;
    const LineParser at{script.file, line};
    auto value = parse_json(row);
    if (!value) return at.fail("script.json", fmt::format("the step is {}", value.error().describe()));
    if (!value->is_object()) return at.fail("script.step", "a step is a JSON object");
    auto step = parse_step(at, value->get_object(), script);
    if (!step) return step.error();
    if (step->is_request && !step->id) {
      if (id_ceiling)
        return at.fail("script.id-range",
                       fmt::format("no request id can be minted for this request: line {} uses the id {}, and a minted id "
                                   "is one more than the largest integer id before it, within int64 (at most "
                                   "9223372036854775807); give this request an \"id\"",
                                   id_ceiling->first, id_ceiling->second));
      step->id = json::value(next_id);
    }
    if (step->is_request) {
      const json::value& id = *step->id;
      // A send's id may be a whole number written with an exponent (1e3): that integer.
      std::optional<std::int64_t> integer;
      if (id.is_int64()) integer = id.get_int64();
      if (id.is_double() && std::trunc(id.get_double()) == id.get_double() && std::fabs(id.get_double()) < 9.2e18)
        integer = static_cast<std::int64_t>(id.get_double());
      const bool ceiling = (integer && *integer == INT64_MAX) || id.is_uint64() ||
                           (id.is_double() && id.get_double() >= 9.2e18);
      if (ceiling && !id_ceiling) id_ceiling.emplace(line, serialize_json(id));
      if (!ceiling && integer && *integer >= next_id) next_id = *integer + 1;
      const std::string key = id_key(id);
      if (!ids.insert(key).second)
        return at.fail("script.duplicate-id", fmt::format("request id {} is used by an earlier step", serialize_json(*step->id)));
    }
    script.steps.push_back(std::move(*step));
  }
  if (script.steps.empty())
    return Error{ErrorKind::usage, "the script has no steps", script.file, 0, "script.empty"};
  return script;
}

Result<Script> read_script(const std::filesystem::path& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  return parse_script(*text, path.string());
}

}  // namespace msptk::script
