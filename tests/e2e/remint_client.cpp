// msptk_remint_client: a test MSP client that behaves like a real one rather than a recording.
// It spawns COMMAND (normally `msptk serve-fixture --transcript DIR`) and plays the client side
// of a transcript, but with its OWN identity:
//   - every request gets the client's own id ("c-1", "c-2", ... or, with --ids int, 101, 102, ...);
//   - every params.commandId is minted afresh (one new UUID per recorded command id: a replayed
//     command keeps its id);
//   - initialize names the client "msptk-remint-client" 9.9.9 and adds a clientInfo title;
//   - members are written in reverse order at every level (except in a frame over the
//     manifest's frameLimitBytes: there the position of the id decides the host's answer);
//   - a trailing CR of a recorded client line is kept, and a recorded line that is not JSON (a
//     deliberately broken frame) is sent as recorded.
// Values learned from the wire are echoed as the server sent them: the id of an answer to a
// server request, params.turnId / itemId. The client checks it really received each one on
// this connection (a realistic client cannot echo a value it was never sent) and lists
// violations in its report. A params.sessionId is sent as recorded without that check: a client
// resumes a session it knows from an earlier connection (session/resume as the first request). Every server frame must be the recorded one byte for byte, except that a response
// to one of its requests must carry its own id in place of the recorded one.
//
// With --fresh it mints like an SDK, differently on every run: request ids from a random base,
// commandIds as UUIDv7 (time and random bits; a commandId the server sent before the client first
// sends it is kept: the client learned it). With --follow it also uses its own commandId (and
// clientInfo) wherever the recording has the recorded one, as an SDK does (an echoed turnId is
// the commandId of its turn/start), and it expects the same of the server: a server frame must
// be the recorded one with each recorded minted value it already sent replaced by its own, as a
// whole quoted string (what serve-fixture --follow-minted does); the first one that is not (an
// ack that does not echo its commandId) is its mismatch.
//
//   msptk_remint_client --transcript FILE [--report FILE] [--ids string|int] [--frame-limit N]
//                       [--blank-lines] [--fresh] [--follow] -- COMMAND [ARGS...]
//
//   --report FILE   JSON: {"mismatch":null|"...", "serverFramesMatched":N, "ownIdResponses":N,
//                   "expectedOwnIdResponses":N, "echoProblems":[...], "sent":{bytes,fnv1a},
//                   "exit":{"code":N}|{"signal":N}}
//   --frame-limit N the host's frame cap (default: serverConfig.frameLimitBytes of the
//                   manifest.json beside FILE, else 10485760)
//   --blank-lines   write an empty line before every client frame
// The exit status is COMMAND's (128+N for signal N).
#include "tool_support.hpp"

#include "msptk/process/host_process.hpp"
#include "msptk/process/signals.hpp"
#include "msptk/transcript/correlator.hpp"
#include "msptk/transcript/manifest.hpp"
#include "msptk/transcript/reader.hpp"

#include <CLI/CLI.hpp>

#include <chrono>
#include <iostream>
#include <random>
#include <map>
#include <set>

using namespace msptk;
namespace json = boost::json;

namespace {

std::optional<json::value> parse(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) return std::nullopt;
  return v;
}

// Every member in reverse order, recursively.
json::value reversed(const json::value& v) {
  if (const json::object* o = v.if_object()) {
    json::object out;
    for (auto it = o->end(); it != o->begin();) {
      --it;
      out[it->key()] = reversed(it->value());
    }
    return out;
  }
  if (const json::array* a = v.if_array()) {
    json::array out;
    for (const auto& e : *a) out.push_back(reversed(e));
    return out;
  }
  return v;
}

// The byte range of the value of the top-level "id" member of a JSON object text (an oracle
// independent of msptk's own splicer: the shortest text after `"id":` that parses, followed by
// a delimiter).
std::optional<std::pair<std::size_t, std::size_t>> top_level_id(std::string_view s) {
  int depth = 0;
  std::optional<std::pair<std::size_t, std::size_t>> found;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') {
      const std::size_t start = i;
      for (++i; i < s.size() && s[i] != '"'; ++i)
        if (s[i] == '\\') ++i;
      std::size_t j = i + 1;
      while (j < s.size() && s[j] == ' ') ++j;
      if (depth == 1 && s.substr(start, i + 1 - start) == "\"id\"" && j < s.size() && s[j] == ':') {
        std::size_t k = j + 1;
        while (k < s.size() && s[k] == ' ') ++k;
        for (std::size_t len = 1; k + len < s.size(); ++len) {
          const char next = s[k + len];
          if ((next == ',' || next == '}' || next == ' ') && parse(s.substr(k, len))) {
            found = std::make_pair(k, k + len);
            break;
          }
        }
      }
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
  }
  return found;
}

// A UUIDv7: 48 bits of Unix milliseconds, version 7, variant 10, the rest random.
std::string uuid7(std::mt19937_64& random) {
  const auto ms = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  const std::uint64_t a = random(), b = random();
  return fmt::format("{:08x}-{:04x}-7{:03x}-{:04x}-{:012x}", (ms >> 16) & 0xffffffffu, ms & 0xffffu, a & 0xfffu,
                     0x8000u | ((a >> 12) & 0x3fffu), b & 0xffffffffffffu);
}

// Every string value equal to a key of `mine` (a recorded value, JSON text) replaced by its partner.
void follow_strings(json::value& v, const std::map<std::string, std::string>& mine) {
  if (json::object* o = v.if_object()) {
    for (auto& m : *o) follow_strings(m.value(), mine);
  } else if (json::array* a = v.if_array()) {
    for (auto& e : *a) follow_strings(e, mine);
  } else if (v.is_string()) {
    if (auto it = mine.find(json::serialize(v)); it != mine.end()) v = json::parse(it->second);
  }
}

// `text` with every occurrence of a key of `mine` (a quoted string) replaced by its partner.
std::string followed(std::string text, const std::map<std::string, std::string>& mine) {
  for (const auto& [from, to] : mine)
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  return text;
}

void collect_scalars(const json::value& v, std::set<std::string>& out) {
  if (const json::object* o = v.if_object()) {
    for (const auto& m : *o) collect_scalars(m.value(), out);
  } else if (const json::array* a = v.if_array()) {
    for (const auto& e : *a) collect_scalars(e, out);
  } else {
    out.insert(json::serialize(v));
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string transcript, report_path, ids = "string";
  std::size_t frame_limit = 0;
  bool blank_lines = false, fresh = false, follow = false;
  std::vector<std::string> command;
  CLI::App app{"re-minting MSP test client"};
  app.add_option("--transcript", transcript)->required();
  app.add_option("--report", report_path);
  app.add_option("--ids", ids)->check(CLI::IsMember({"string", "int"}));
  app.add_option("--frame-limit", frame_limit);
  app.add_flag("--blank-lines", blank_lines);
  app.add_flag("--fresh", fresh);
  app.add_flag("--follow", follow);
  app.add_option("command", command)->required();
  CLI11_PARSE(app, argc, argv);

  auto frames = read_transcript(transcript);
  if (!frames) {
    std::cerr << "remint_client: " << frames.error().render() << "\n";
    return 98;
  }
  if (frame_limit == 0) {
    frame_limit = static_cast<std::size_t>(kDefaultFrameLimitBytes);
    const auto manifest_path = std::filesystem::path(transcript).parent_path() / "manifest.json";
    if (std::filesystem::exists(manifest_path))
      if (auto m = read_manifest(manifest_path)) frame_limit = static_cast<std::size_t>(m->manifest.frame_limit_bytes);
  }

  // Which recorded client request each recorded server response answers.
  std::map<std::size_t, std::size_t> answers;  // server frame index -> client request index
  {
    Correlator correlator;
    for (std::size_t i = 0; i < frames->size(); ++i) {
      auto v = parse((*frames)[i].json_text());
      if (!v) continue;
      auto outcome = correlator.observe((*frames)[i].dir, classify(*v), i + 1);
      if (outcome.answered && outcome.answered->dir == Direction::client) answers[i] = outcome.answered->line - 1;
    }
  }

  process::SigpipeIgnored no_sigpipe;
  auto child = e2e::spawn_command(command, "remint_client");
  if (!child) return 97;
  process::HostProcess& host = *child;
  e2e::Inbox inbox(host.stdout_fd(), 65536);
  e2e::Checksum sent;

  std::map<std::size_t, std::string> own_ids;        // client request index -> own id token
  std::map<std::string, std::string> command_ids;    // recorded commandId -> minted
  // --follow: recorded value -> the client's (JSON texts): commandIds and clientInfo it changed.
  std::map<std::string, std::string> mine;
  std::mt19937_64 random(std::random_device{}());
  const std::uint64_t id_base = fresh ? 1000 + random() % 1000000 : 100;
  std::set<std::string> learned;                     // every scalar the server sent (JSON text)
  std::set<std::string> server_request_ids;          // ids of server requests received
  json::array echo_problems;
  std::string mismatch;
  std::size_t matched = 0, own_id_responses = 0, expected_own_id_responses = 0, minted = 0;
  bool writable = true, truncated = false;

  auto check_echo = [&](std::size_t line, const std::string& what, const json::value& value) {
    if (!learned.count(json::serialize(value)))
      echo_problems.push_back(json::string(fmt::format("line {}: {} {} was never received from the server", line, what,
                                                       json::serialize(value))));
  };

  for (std::size_t i = 0; i < frames->size(); ++i) {
    const Frame& frame = (*frames)[i];
    if (frame.dir == Direction::client) {
      if (!writable) continue;
      const std::string& recorded = frame.wire_bytes();
      const bool cr = !recorded.empty() && recorded.back() == '\r';
      std::string wire = recorded;
      if (auto value = parse(frame.json_text()); value && value->is_object()) {
        json::object& o = value->as_object();
        const Envelope envelope = classify(*value);
        if (envelope.kind == FrameKind::request) {
          ++minted;
          json::value own = ids == "int" ? json::value(id_base + minted)
                            : fresh        ? json::value(fmt::format("c-{}-{}", id_base, minted))
                                           : json::value(fmt::format("c-{}", minted));
          o["id"] = own;
          own_ids[i] = json::serialize(own);
        } else if (envelope.kind == FrameKind::response) {
          if (!server_request_ids.count(json::serialize(o.at("id"))))
            echo_problems.push_back(json::string(fmt::format("line {}: answers id {} that no server request carried",
                                                             frame.line, json::serialize(o.at("id")))));
        }
        if (json::object* params = o.contains("params") ? o["params"].if_object() : nullptr) {
          if (json::value* cid = params->if_contains("commandId")) {
            const std::string recorded_cid = json::serialize(*cid);
            auto [it, first] = command_ids.try_emplace(recorded_cid, "");
            if (first && fresh && cid->is_string() && learned.count(recorded_cid)) {
              it->second = std::string(cid->as_string());  // learned from the server: not the client's to mint
            } else if (first) {
              it->second = fresh ? uuid7(random)
                                 : fmt::format("7e57c11e-{:04x}-4000-8000-{:012x}", command_ids.size(),
                                               0xc0ffeeu + command_ids.size());
            }
            if (follow && recorded_cid != json::serialize(json::string(it->second)))
              mine[recorded_cid] = json::serialize(json::string(it->second));
            *cid = it->second;
          }
          if (follow) follow_strings(*value, mine);  // its own commandId where the recording has the recorded one
          for (const char* echo : {"turnId", "itemId"})
            if (const json::value* v = params->if_contains(echo)) check_echo(frame.line, echo, *v);
          if (envelope.method == "initialize") {
            if (json::object* info = params->contains("clientInfo") ? (*params)["clientInfo"].if_object() : nullptr) {
              if (follow) {
                if (const json::value* n = info->if_contains("name"); n && n->is_string() && *n != "msptk-remint-client")
                  mine[json::serialize(*n)] = R"("msptk-remint-client")";
                if (const json::value* n = info->if_contains("version"); n && n->is_string() && *n != "9.9.9")
                  mine[json::serialize(*n)] = R"("9.9.9")";
              }
              (*info)["name"] = "msptk-remint-client";
              (*info)["version"] = "9.9.9";
              (*info)["title"] = "msptk re-minting test client";
            }
          }
        }
        const bool oversized = recorded.size() > frame_limit;
        wire = json::serialize(oversized ? *value : reversed(*value)) + (cr ? "\r" : "");
      }
      writable = e2e::paced_write(host.stdin_fd(), (blank_lines ? "\n" : "") + wire + "\n", 65536, 0, sent);
      continue;
    }
    if (truncated) continue;
    auto got = inbox.next();
    if (!got) {
      truncated = true;
      writable = false;
      if (mismatch.empty()) mismatch = fmt::format("transcript line {}: the server closed its stdout", frame.line);
      continue;
    }
    std::string expected = follow ? followed(frame.wire_bytes(), mine) : frame.wire_bytes();
    bool own = false;
    if (auto a = answers.find(i); a != answers.end()) {
      if (auto id = own_ids.find(a->second); id != own_ids.end()) {
        ++expected_own_id_responses;
        if (auto range = top_level_id(expected)) {
          expected = expected.substr(0, range->first) + id->second + expected.substr(range->second);
          own = true;
        }
      }
    }
    if (*got != expected && mismatch.empty()) {
      mismatch = fmt::format("transcript line {}: expected\n  {}\ngot\n  {}", frame.line, expected, *got);
    } else if (*got == expected) {
      ++matched;
      if (own) ++own_id_responses;
    }
    if (auto v = parse(*got)) {
      collect_scalars(*v, learned);
      const Envelope envelope = classify(*v);
      if (envelope.kind == FrameKind::request) server_request_ids.insert(json::serialize(*envelope.id));
    }
  }
  host.close_stdin();
  inbox.drain_to_eof();
  process::ExitStatus exit = host.wait();

  json::object exit_json;
  if (exit.signaled()) exit_json["signal"] = exit.signal;
  else exit_json["code"] = exit.code;
  e2e::write_report(report_path,
                    {{"mismatch", mismatch.empty() ? json::value(nullptr) : json::value(mismatch)},
                     {"serverFramesMatched", matched},
                     {"ownIdResponses", own_id_responses},
                     {"expectedOwnIdResponses", expected_own_id_responses},
                     {"echoProblems", echo_problems},
                     {"sent", sent.json()},
                     {"exit", exit_json}});
  if (!mismatch.empty()) std::cerr << "remint_client: " << mismatch << "\n";
  return exit.shell_code();
}
