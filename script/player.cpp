#include "msptk/script/player.hpp"

#include "msptk/normalizer/canonical.hpp"
#include "msptk/script/command_id.hpp"
#include "msptk/script/reference.hpp"
#include "msptk/transcript/frame.hpp"
#include "msptk/transcript/json_parse.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <deque>
#include <functional>
#include <map>
#include <vector>

namespace msptk::script {

namespace json = boost::json;
using Clock = ClientLink::Clock;

namespace {

constexpr std::size_t kShownValueBytes = 200;
constexpr std::size_t kShownArrivals = 12;

std::string shown(const json::value& v) {
  std::string text = serialize_json(v);
  if (text.size() > kShownValueBytes) text = text.substr(0, kShownValueBytes) + "...";
  return text;
}

// A request or notification of the host, as the wait queue and the answer queue keep it.
struct HostFrame {
  std::string method;
  json::value value;
  bool request = false;
  bool answered = false;
  std::string what;  // as an error message names it
};

class Player {
 public:
  Player(const Script& script, ClientLink& link, const PlayOptions& options)
      : script_(script), link_(link), minter_(options.seed, options.clock_start_ms) {}

  PlayOutcome run() {
    PlayOutcome outcome;
    for (const Step& step : script_.steps) {
      step_ = &step;
      arrivals_.clear();
      auto ok = play_step(step);
      if (!ok) {
        outcome.failure = ok.error();
        return outcome;
      }
      ++outcome.steps_played;
    }
    return outcome;
  }

 private:
  Error fail(ErrorKind kind, std::string rule, std::string message) const {
    return Error{kind, std::move(message), script_.file, step_->line, std::move(rule)};
  }

  std::string arrived() const { return summary(arrivals_, "nothing arrived", "arrived: "); }

  // Descriptions, runs of the same one counted ("item/delta x3"), at most kShownArrivals runs.
  static std::string summary(const std::vector<std::string>& items, std::string_view none, std::string_view head) {
    if (items.empty()) return std::string(none);
    std::string out(head);
    std::size_t shown_count = 0;
    for (std::size_t i = 0; i < items.size() && shown_count < kShownArrivals;) {
      std::size_t j = i;
      while (j < items.size() && items[j] == items[i]) ++j;
      out += fmt::format("{}{}", shown_count ? ", " : "", items[i]);
      if (j - i > 1) out += fmt::format(" x{}", j - i);
      ++shown_count;
      i = j;
    }
    std::size_t groups = 0;
    for (std::size_t i = 0; i < items.size(); ++i)
      if (i == 0 || items[i] != items[i - 1]) ++groups;
    if (groups > shown_count) out += fmt::format(" and {} more", groups - shown_count);
    return out;
  }

  Error timeout(std::string_view doing, int ms, std::string what_arrived = {}) const {
    return fail(ErrorKind::conformance, "script.timeout",
                fmt::format("{}: timed out after {} ms; {}", doing, ms, what_arrived.empty() ? arrived() : what_arrived));
  }
  Error closed(std::string_view doing) const {
    return fail(ErrorKind::peer, "script.host-closed",
                fmt::format("{}: the host closed its output (it exited or died); {}", doing, arrived()));
  }

  // Reads one line (or times out) and takes it in.
  ClientLink::Got pump(Clock::time_point deadline) {
    std::string line;
    const auto got = link_.next(line, deadline);
    if (got == ClientLink::Got::line) ingest(line);
    return got;
  }

  // Reads until `done()` or the deadline; errors say what the step was doing.
  Result<void> await(const std::function<bool()>& done, std::string_view doing, int timeout_ms,
                     const std::function<std::string()>& instead = {}) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (!done()) {  // done() is asked once a turn: a wait's takes its frame
      if (failure_) return *failure_;
      // A host that never stops writing must not hold a step past its timeout either.
      if (Clock::now() >= deadline) return timeout(doing, timeout_ms, instead ? instead() : std::string());
      const auto got = pump(deadline);
      if (failure_) return *failure_;
      if (got == ClientLink::Got::closed) return closed(doing);
      if (got == ClientLink::Got::timeout) return timeout(doing, timeout_ms, instead ? instead() : std::string());
    }
    return {};
  }

  void ingest(std::string_view line) {
    auto parsed = parse_json(line);
    if (!parsed || !parsed->is_object()) {
      arrivals_.push_back("a line that is not a JSON object");
      return;
    }
    const Envelope env = classify(*parsed);
    switch (env.kind) {
      case FrameKind::response: {
        const std::string key = id_key(*env.id);
        auto it = outstanding_.find(key);
        if (it == outstanding_.end()) {
          arrivals_.push_back(fmt::format("a response to id {} (no request of the script)", serialize_json(*env.id)));
          return;
        }
        arrivals_.push_back(fmt::format("the response to {} (id {}){}", it->second->method, serialize_json(*env.id),
                                        env.is_error ? " (an error)" : ""));
        responses_[it->second] = std::move(*parsed);
        outstanding_.erase(it);
        return;
      }
      case FrameKind::request:
      case FrameKind::notification: {
        const bool request = env.kind == FrameKind::request;
        std::string what = request ? fmt::format("{} (request id {})", env.method, serialize_json(*env.id)) : env.method;
        arrivals_.push_back(what);
        latest_[env.method] = *parsed;
        queue_.push_back(HostFrame{env.method, std::move(*parsed), request, false, std::move(what)});
        if (request) {
          requests_.push_back(queue_.back());
          for (const Step* rule : standing_)
            if (rule->method == env.method) {
              if (auto ok = reply(requests_.back(), *rule); !ok && !failure_) failure_ = ok.error();
              break;
            }
        }
        return;
      }
      case FrameKind::invalid: arrivals_.push_back(fmt::format("an invalid frame ({})", env.problem)); return;
    }
  }

  // The value of a reference, waiting for a pipelined response when needed.
  Result<json::value> lookup(const Reference& ref) {
    const json::value* frame = nullptr;
    std::string source;
    if (ref.last) {
      auto it = latest_.find(ref.name);
      if (it == latest_.end())
        return fail(ErrorKind::conformance, "script.unresolved",
                    fmt::format("reference \"{}\": no {} frame has arrived from the host; {}", ref.text, ref.name,
                                arrived()));
      frame = &it->second;
      source = fmt::format("the latest {}", ref.name);
    } else {
      const Step* step = script_.named(ref.name);
      if (!responses_.count(step)) {
        const std::string doing = fmt::format("reference \"{}\": waiting for the response to {} (line {})", ref.text,
                                              step->method, step->line);
        if (auto ok = await([&] { return responses_.count(step) > 0; }, doing, step_->timeout_ms); !ok) return ok.error();
      }
      frame = &responses_.at(step);
      source = fmt::format("the response to {} (line {})", step->method, step->line);
      if (frame->get_object().contains("error"))
        return fail(ErrorKind::conformance, "script.unresolved",
                    fmt::format("reference \"{}\": {} is an error: {}", ref.text, source, shown(frame->at("error"))));
    }
    std::vector<json::value> found;
    ref.path.for_each_match(*frame, [&](const json::value& v, const std::string&) { found.push_back(v); });
    if (found.size() == 1) return found.front();
    return fail(ErrorKind::conformance, "script.unresolved",
                fmt::format("reference \"{}\": {} has {} at {}: {}", ref.text, source,
                            found.empty() ? std::string("no value") : fmt::format("{} values", found.size()),
                            ref.path.text(), shown(*frame)));
  }

  Result<json::value> resolve(const json::value& value) {
    return resolve_references(value, [&](const Reference& ref) { return lookup(ref); });
  }

  Result<void> send(const json::value& frame) {
    if (!link_.send(serialize_json(frame))) return closed(fmt::format("sending {}", shown(frame)));
    return {};
  }

  Result<void> reply(HostFrame& request, const Step& answer) {
    auto body = resolve(answer.body);
    if (!body) return body.error();
    json::object frame;
    frame["jsonrpc"] = "2.0";
    frame["id"] = request.value.at("id");
    frame[answer.is_error ? "error" : "result"] = std::move(*body);
    request.answered = true;
    return send(frame);
  }

  Result<void> play_request(const Step& step, json::value frame) {
    outstanding_[id_key(*step.id)] = &step;
    if (auto ok = send(frame); !ok) return ok;
    if (!step.wait_response) return {};
    const std::string doing = fmt::format("waiting for the response to {} (id {})", step.method, serialize_json(*step.id));
    return await([&] { return responses_.count(&step) > 0; }, doing, step.timeout_ms);
  }

  Result<void> play_step(const Step& step) {
    switch (step.kind) {
      case StepKind::handshake: {
        auto params = resolve(step.body);
        if (!params) return params.error();
        json::object frame{{"jsonrpc", "2.0"}, {"id", *step.id}, {"method", "initialize"}, {"params", std::move(*params)}};
        if (auto ok = play_request(step, std::move(frame)); !ok) return ok;
        if (!step.wait_response) return send(json::object{{"jsonrpc", "2.0"}, {"method", "initialized"}});
        const json::value& response = responses_.at(&step);
        if (response.get_object().contains("error"))
          return fail(ErrorKind::conformance, "script.handshake",
                      fmt::format("initialize was answered with an error: {}", shown(response.at("error"))));
        return send(json::object{{"jsonrpc", "2.0"}, {"method", "initialized"}});
      }
      case StepKind::request: {
        json::value params;
        if (step.has_params) {
          auto resolved = resolve(step.body);
          if (!resolved) return resolved.error();
          params = std::move(*resolved);
        }
        if (step.command) {
          if (!step.has_params) params = json::object{};
          if (!params.get_object().contains("commandId")) params.get_object()["commandId"] = minter_.next();
        }
        json::object frame{{"jsonrpc", "2.0"}, {"id", *step.id}, {"method", step.method}};
        if (step.has_params || step.command) frame["params"] = std::move(params);
        return play_request(step, std::move(frame));
      }
      case StepKind::notify: {
        json::object frame{{"jsonrpc", "2.0"}, {"method", step.method}};
        if (step.has_params) {
          auto params = resolve(step.body);
          if (!params) return params.error();
          frame["params"] = std::move(*params);
        }
        return send(frame);
      }
      case StepKind::send: {
        auto frame = resolve(step.body);
        if (!frame) return frame.error();
        if (step.is_request) return play_request(step, std::move(*frame));
        return send(*frame);
      }
      case StepKind::answer: {
        if (step.always) {
          standing_.push_back(&step);
          for (HostFrame& r : requests_)
            if (!r.answered && r.method == step.method)
              if (auto ok = reply(r, step); !ok) return ok;
          return {};
        }
        auto unanswered = [&]() -> HostFrame* {
          for (HostFrame& r : requests_)
            if (!r.answered && r.method == step.method) return &r;
          return nullptr;
        };
        const std::string doing = fmt::format("waiting for a {} request to answer", step.method);
        if (auto ok = await([&] { return unanswered() != nullptr; }, doing, step.timeout_ms); !ok) return ok;
        return reply(*unanswered(), step);
      }
      case StepKind::wait: return play_wait(step);
      case StepKind::quiet: {
        const auto deadline = Clock::now() + std::chrono::milliseconds(step.timeout_ms);
        while (true) {
          const auto quiet_until = std::min(deadline, Clock::now() + std::chrono::milliseconds(step.quiet_ms));
          const auto got = pump(quiet_until);
          if (failure_) return *failure_;
          if (got == ClientLink::Got::closed) return closed(fmt::format("waiting for {} ms of quiet", step.quiet_ms));
          if (got == ClientLink::Got::timeout && quiet_until < deadline) return {};  // a whole quiet period passed
          if (got == ClientLink::Got::timeout || Clock::now() >= deadline)
            return timeout(fmt::format("waiting for {} ms of quiet", step.quiet_ms), step.timeout_ms);
        }
      }
    }
    return {};
  }

  Result<void> play_wait(const Step& step) {
    std::vector<std::pair<const JsonPath*, json::value>> where;
    for (const auto& [path, value] : step.where) {
      auto resolved = resolve(value);
      if (!resolved) return resolved.error();
      where.emplace_back(&path, std::move(*resolved));
    }
    auto matches = [&](const HostFrame& f) {
      if (f.method != step.method) return false;
      for (const auto& entry : where) {  // not a structured binding: clang before 16 cannot capture one
        const auto& path = entry.first;
        const auto& value = entry.second;
        bool found = false;
        path->for_each_match(f.value, [&](const json::value& v, const std::string&) { found = found || json_equal(v, value); });
        if (!found) return false;
      }
      return true;
    };
    std::size_t scanned = 0;
    auto take = [&] {
      for (; scanned < queue_.size(); ++scanned) {
        if (!matches(queue_[scanned])) continue;
        queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(scanned) + 1);
        return true;
      }
      return false;
    };
    std::string doing = fmt::format("waiting for {}", step.method);
    for (std::size_t i = 0; i < where.size(); ++i)
      doing += fmt::format("{}{} = {}", i ? ", " : " with ", where[i].first->text(), shown(where[i].second));
    // What arrived instead: every host frame since the previous wait took its own, with the
    // values at the where paths for frames of the waited method.
    auto instead = [&] {
      std::vector<std::string> frames;
      for (const HostFrame& f : queue_) {
        std::string what = f.what;
        if (f.method == step.method) {
          for (const auto& [path, value] : where) {
            std::vector<std::string> values;
            path->for_each_match(f.value, [&](const json::value& v, const std::string&) { values.push_back(shown(v)); });
            what += fmt::format(" ({} = {})", path->text(), values.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(values, ", ")));
          }
        }
        frames.push_back(std::move(what));
      }
      return summary(frames, "nothing arrived since the previous wait", "arrived since the previous wait: ");
    };
    return await(take, doing, step.timeout_ms, instead);
  }

  const Script& script_;
  ClientLink& link_;
  CommandIdMinter minter_;
  const Step* step_ = nullptr;
  std::vector<std::string> arrivals_;                  // what arrived during the current step
  std::map<std::string, const Step*> outstanding_;     // id_key -> request step
  std::map<const Step*, json::value> responses_;       // request step -> its response
  std::map<std::string, json::value> latest_;          // method -> latest host frame
  std::deque<HostFrame> queue_;                        // what waits look at
  std::deque<HostFrame> requests_;                     // host requests, answered or not
  std::vector<const Step*> standing_;                  // "always" answers
  std::optional<Error> failure_;                       // a standing answer that failed
};

}  // namespace

PlayOutcome play(const Script& script, ClientLink& link, const PlayOptions& options) {
  return Player(script, link, options).run();
}

}  // namespace msptk::script
