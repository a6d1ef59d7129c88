// msptk_minting_host: a small live MSP host for end-to-end tests of `msptk record --script` and
// `msptk learn`. Unlike msptk_fake_host it plays no transcript: it answers what it is sent and
// mints random session ids, item ids, approval ids, server request ids, timestamps, durations and
// ids embedded in longer strings on every run (std::random_device), as a real host that is not
// seeded does, so two recordings differ exactly where a scenario's declarations say.
//
//   msptk_minting_host [--silent-on METHOD] [--die-on METHOD] [--plant]
//
// It answers initialize (a fixed result), session/start (session/started, then the result:
// result.session.sessionId and createdAt minted), turn/start (the result with turnId = the
// commandId, turn/started, item/started with a minted params.item.itemId, then the server
// request approval/request with a minted string id "srv-<uuid>" and params.approvalId),
// approval/decide (its result, approval/resolved, item/completed, turn/completed with a minted
// params.durationMs); any other request gets -32601. Every notification carries a minted,
// increasing params.emittedAtMs; item/started and item/completed carry params.item.ref,
// "v:<sessionId>:<n>" (an id embedded in a string). At EOF it exits 0.
//   --plant             a planted change in a field nobody declares: item/completed's
//                       params.item.kind is "command" instead of "toolCall"
//   --silent-on METHOD  never answers a request of METHOD (a script's wait then times out)
//   --die-on METHOD     exits at once, with status 3, when a request of METHOD arrives
//   --deaf-on METHOD    answers a request of METHOD, then never reads its stdin again and never
//                       exits by itself (a host that stopped reading: only a signal ends it)
//   --flood-on METHOD --flood N [--flood-bytes B]  on a request of METHOD writes N notifications
//                       flood/tick ({"n": i, "pad": B bytes}), then flood/done, then the result
//   --long-on METHOD --long-bytes B  answers a request of METHOD with a result {"blob": B bytes}
//                       (one line of B bytes and more)
//   --unterminated-on METHOD --long-bytes B  on a request of METHOD writes B bytes of an
//                       unfinished frame without LF, then exits 0 (a host gone mid-frame)
#include "tool_support.hpp"

#include "msptk/transcript/json_parse.hpp"

#include <CLI/CLI.hpp>

#include <random>
#include <unistd.h>

using namespace msptk;
namespace json = boost::json;

namespace {

std::mt19937_64 rng{std::random_device{}()};

std::string uuid() {
  const std::uint64_t a = rng(), b = rng();
  return fmt::format("{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}", a >> 32, (a >> 16) & 0xFFFF, a & 0xFFF,
                     0x8000 | (b >> 48 & 0x3FFF), b & 0xFFFFFFFFFFFFULL);
}

std::int64_t clock_ms = 1767225600000 + static_cast<std::int64_t>(rng() % 31536000000ULL);  // some time in 2026

std::int64_t tick() { return clock_ms += 1 + static_cast<std::int64_t>(rng() % 1000); }

std::string iso(std::int64_t ms) {
  std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  ::gmtime_r(&seconds, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, ms % 1000);
}

void write(const json::value& frame) {
  std::string wire = serialize_json(frame) + "\n";
  (void)process::write_all(STDOUT_FILENO, wire);
}

void notify(std::string_view method, json::object params) {
  params["emittedAtMs"] = tick();
  write(json::object{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

void respond(const json::value& id, json::value result) {
  write(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

struct Turn {
  std::string session, turn, item, approval;
};

}  // namespace

int main(int argc, char** argv) {
  std::string silent_on, die_on;
  bool plant = false;
  CLI::App app{"a live MSP test host that mints random ids"};
  app.add_option("--silent-on", silent_on);
  app.add_option("--die-on", die_on);
  app.add_flag("--plant", plant);
  std::string deaf_on, flood_on, long_on, unterminated_on;
  std::size_t flood = 0, flood_bytes = 16, long_bytes = 0;
  app.add_option("--deaf-on", deaf_on);
  app.add_option("--flood-on", flood_on);
  app.add_option("--flood", flood);
  app.add_option("--flood-bytes", flood_bytes);
  app.add_option("--long-on", long_on);
  app.add_option("--long-bytes", long_bytes);
  app.add_option("--unterminated-on", unterminated_on);
  CLI11_PARSE(app, argc, argv);

  e2e::Inbox inbox(STDIN_FILENO, 65536);
  std::string session;
  std::int64_t items = 0;
  Turn turn;
  while (auto line = inbox.next()) {
    auto frame = parse_json(*line);
    if (!frame || !frame->is_object()) continue;
    const json::object& f = frame->get_object();
    if (!f.contains("method") || !f.contains("id")) continue;  // notifications and answers: nothing to say
    const std::string method(f.at("method").as_string());
    const json::value& id = f.at("id");
    const json::object empty;
    const json::object& params = f.contains("params") && f.at("params").is_object() ? f.at("params").get_object() : empty;
    if (method == die_on) return 3;
    if (method == silent_on) continue;
    if (method == deaf_on) {
      respond(id, json::object{});
      while (true) ::pause();
    }
    if (method == flood_on) {
      const std::string pad(flood_bytes, 'x');
      std::string batch;
      for (std::size_t i = 0; i < flood; ++i) {
        batch += serialize_json(json::object{{"jsonrpc", "2.0"}, {"method", "flood/tick"}, {"params", {{"n", i}, {"pad", pad}}}});
        batch += '\n';
        if (batch.size() > 65536) {
          (void)process::write_all(STDOUT_FILENO, batch);
          batch.clear();
        }
      }
      (void)process::write_all(STDOUT_FILENO, batch);
      write(json::object{{"jsonrpc", "2.0"}, {"method", "flood/done"}, {"params", {{"n", flood}}}});
      respond(id, json::object{{"ticks", flood}});
    } else if (method == long_on || method == unterminated_on) {
      std::string head = "{\"jsonrpc\":\"2.0\",\"id\":" + serialize_json(id) + ",\"result\":{\"blob\":\"";
      (void)process::write_all(STDOUT_FILENO, head);
      const std::string piece(65536, 'b');
      for (std::size_t left = long_bytes; left > 0;) {
        const std::size_t n = std::min(left, piece.size());
        (void)process::write_all(STDOUT_FILENO, std::string_view(piece).substr(0, n));
        left -= n;
      }
      if (method == unterminated_on) {
        return 0;
      } else {
        (void)process::write_all(STDOUT_FILENO, "\"}}\n");
      }
    } else if (method == "initialize") {
      respond(id, json::object{{"serverInfo", {{"name", "msptk-minting-host"}, {"version", "0.0.0"}}},
                               {"schema", {{"version", 1},
                                           {"fingerprint",
                                            "sha256:7c94f153c41659cb3f1bd3c3e04438be254644cb2a97d65d48edc7449b74858a"}}},
                               {"grantedCapabilities", json::array{}}});
    } else if (method == "session/start") {
      session = uuid();
      const std::int64_t created = tick();
      json::object s{{"sessionId", session}, {"status", "idle"}, {"createdAt", iso(created)}};
      notify("session/started", json::object{{"session", s}});
      respond(id, json::object{{"session", s}});
    } else if (method == "turn/start") {
      const json::value command = params.contains("commandId") ? params.at("commandId") : json::value(uuid());
      turn = Turn{session, std::string(command.as_string()), uuid(), uuid()};
      const std::string ref = fmt::format("v:{}:{}", session, ++items);
      respond(id, json::object{{"commandId", command}, {"status", "accepted"}, {"turnId", command}});
      notify("turn/started", json::object{{"sessionId", session}, {"turnId", turn.turn}});
      notify("item/started", json::object{{"sessionId", session},
                                           {"item", {{"itemId", turn.item}, {"kind", "toolCall"}, {"turnId", turn.turn},
                                                     {"status", "inProgress"}, {"recordedAt", iso(tick())}, {"ref", ref}}}});
      write(json::object{{"jsonrpc", "2.0"},
                         {"id", "srv-" + uuid()},
                         {"method", "approval/request"},
                         {"params", {{"sessionId", session}, {"approvalId", turn.approval}, {"turnId", turn.turn},
                                     {"itemId", turn.item}}}});
    } else if (method == "approval/decide") {
      respond(id, json::object{{"commandId", params.contains("commandId") ? params.at("commandId") : json::value(nullptr)},
                               {"status", "accepted"},
                               {"approvalId", params.contains("approvalId") ? params.at("approvalId") : json::value(nullptr)}});
      notify("approval/resolved", json::object{{"sessionId", turn.session}, {"approvalId", turn.approval},
                                                {"itemId", turn.item}, {"decision", "approved"}});
      notify("item/completed", json::object{{"sessionId", turn.session},
                                             {"item", {{"itemId", turn.item}, {"kind", plant ? "command" : "toolCall"},
                                                       {"turnId", turn.turn}, {"status", "completed"},
                                                       {"recordedAt", iso(tick())}, {"ref", fmt::format("v:{}:{}", turn.session, items)}}}});
      notify("turn/completed", json::object{{"sessionId", turn.session}, {"turnId", turn.turn}, {"terminal", "completed"},
                                            {"durationMs", 1 + static_cast<std::int64_t>(rng() % 5000)}});
    } else {
      write(json::object{{"jsonrpc", "2.0"}, {"id", id},
                         {"error", {{"code", -32601}, {"message", "method not found"}, {"data", {{"kind", "methodNotFound"}}}}}});
    }
  }
  return 0;
}
