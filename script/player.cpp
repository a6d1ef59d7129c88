#include "msptk/script/player.hpp"

#include "msptk/normalizer/canonical.hpp"
#include "msptk/script/command_id.hpp"
#include "msptk/script/reference.hpp"
#include "msptk/transcript/frame.hpp"
#include "msptk/transcript/json_parse.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
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

// Descriptions in arrival order, runs of the same one counted ("item/delta x3"): at most
// kShownArrivals runs are kept, the others only counted, so a flood costs no memory.
class ArrivalLog {
 public:
  void add(std::string what, std::uint64_t times = 1) {
    if (!runs_.empty() && last_ == what) {
      if (last_kept_) runs_.back().second += times;
      return;
    }
    last_ = what;
    last_kept_ = runs_.size() < kShownArrivals;
    if (last_kept_) {
      runs_.emplace_back(std::move(what), times);
    } else {
      ++more_;
    }
  }
  bool empty() const { return runs_.empty(); }
  void clear() { *this = ArrivalLog(); }
  std::string render(std::string_view none, std::string_view head) const {
    if (runs_.empty()) return std::string(none);
    std::string out(head);
    for (std::size_t i = 0; i < runs_.size(); ++i) {
      out += fmt::format("{}{}", i ? ", " : "", runs_[i].first);
      if (runs_[i].second > 1) out += fmt::format(" x{}", runs_[i].second);
    }
    if (more_) out += fmt::format(" and {} more", more_);
    return out;
  }

 private:
  std::vector<std::pair<std::string, std::uint64_t>> runs_;
  std::string last_;
  bool last_kept_ = false;
  std::uint64_t more_ = 0;
};

// A request or notification of the host, as the wait queue and the answer queue keep it: the
// line as it arrived (parsed when a wait looks at it), or only its envelope when it was long.
struct HostFrame {
  std::string method;
  std::string line;          // empty when !whole
  bool whole = true;
  std::uint64_t bytes = 0;
  json::value id;            // a request's id
  std::string what;          // as an error message names it
  std::uint64_t order = 0;   // arrival number among the host's requests and notifications
};

// A host request or notification as a wait's timeout lists it ("arrived since the previous
// wait"): runs of frames no wait looks at are counted in one entry.
struct Seen {
  std::string what;
  std::uint64_t order = 0;  // the first frame's
  bool queued = false;      // in the wait queue (its values can be shown)
  std::uint64_t count = 1;
};
constexpr std::size_t kSeenEntries = 64;

// A response to one of the script's requests.
struct Response {
  bool error = false;
  std::optional<json::value> frame;  // kept for named steps and the handshake, when whole
  std::uint64_t bytes = 0;
  bool whole = true;
};

class Player {
 public:
  Player(const Script& script, ClientLink& link, const PlayOptions& options)
      : script_(script), link_(link), minter_(options.seed, options.clock_start_ms) {
    // From which steps on a frame of each method is still worth keeping.
    for (std::size_t i = 0; i < script_.steps.size(); ++i) {
      const Step& step = script_.steps[i];
      if (step.kind == StepKind::wait) last_wait_[step.method] = i;
      if (step.kind == StepKind::answer) last_answer_[step.method] = i;
      auto note = [&](std::string_view text) {
        auto ref = parse_reference(text);
        if (ref && *ref && (*ref)->last) last_ref_[(*ref)->name] = i;
      };
      for_each_reference_string(step.body, note);
      for (const auto& entry : step.where) for_each_reference_string(entry.second, note);
    }
  }

  PlayOutcome run() {
    PlayOutcome outcome;
    for (std::size_t i = 0; i < script_.steps.size(); ++i) {
      const Step& step = script_.steps[i];
      step_ = &step;
      index_ = i;
      deadline_ = Clock::now() + std::chrono::milliseconds(step.timeout_ms);
      arrivals_.clear();
      forget_unneeded();
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

  std::string arrived() const { return arrivals_.render("nothing arrived", "arrived: "); }

  Error timeout(std::string_view doing, int ms, std::string what_arrived = {}) const {
    return fail(ErrorKind::conformance, "script.timeout",
                fmt::format("{}: timed out after {} ms; {}", doing, ms, what_arrived.empty() ? arrived() : what_arrived));
  }
  Error closed(std::string_view doing) const {
    return fail(ErrorKind::peer, "script.host-closed",
                fmt::format("{}: the host closed its output (it exited or died); {}", doing, arrived()));
  }

  bool wanted(const std::map<std::string, std::size_t, std::less<>>& last, std::string_view method) const {
    auto it = last.find(method);
    return it != last.end() && it->second >= index_;
  }

  // Drops what no step from the current one on can use.
  void forget_unneeded() {
    auto unwaited = [&](const HostFrame& f) { return !wanted(last_wait_, f.method); };
    for (auto it = queue_.begin(); it != queue_.end();) {
      if (unwaited(*it)) {
        queue_bytes_ -= it->bytes;
        it = queue_.erase(it);
      } else {
        ++it;
      }
    }
    std::erase_if(requests_, [&](const HostFrame& f) { return !wanted(last_answer_, f.method); });
    std::erase_if(latest_, [&](const auto& entry) { return !wanted(last_ref_, entry.first); });
  }

  // Reads one line (or times out) and takes it in.
  ClientLink::Got pump(Clock::time_point deadline) {
    ServerLine line;
    const auto got = link_.next(line, deadline);
    if (got == ClientLink::Got::line) ingest(std::move(line));
    return got;
  }

  // Reads until `done()` or the step's deadline; errors say what the step was doing.
  Result<void> await(const std::function<bool()>& done, std::string_view doing, int timeout_ms,
                     const std::function<std::string()>& instead = {}) {
    while (!done()) {  // done() is asked once a turn: a wait's takes its frame
      if (failure_) return *failure_;
      // A host that never stops writing must not hold a step past its timeout either.
      if (Clock::now() >= deadline_) return timeout(doing, timeout_ms, instead ? instead() : std::string());
      const auto got = pump(deadline_);
      if (failure_) return *failure_;
      if (got == ClientLink::Got::closed) return closed(doing);
      if (got == ClientLink::Got::timeout) return timeout(doing, timeout_ms, instead ? instead() : std::string());
    }
    return {};
  }

  // What a line is, whole or by its envelope.
  struct Taken {
    FrameKind kind = FrameKind::invalid;
    std::optional<json::value> id;
    std::string method;
    bool is_error = false;
    std::string problem;
    std::optional<json::value> parsed;  // a whole line
  };

  static Taken take_in(const ServerLine& line) {
    Taken t;
    if (!line.long_frame) {
      auto parsed = parse_json(line.text);
      if (!parsed || !parsed->is_object()) {
        t.problem = "a line that is not a JSON object";
        return t;
      }
      const Envelope env = classify(*parsed);
      t.kind = env.kind;
      if (env.id) t.id = *env.id;
      t.method = env.method;
      t.is_error = env.is_error;
      t.problem = env.problem;
      t.parsed = std::move(*parsed);
      return t;
    }
    const LongFrame& f = *line.long_frame;
    if (!f.object) {
      t.problem = fmt::format("a line of {} bytes that is not a JSON object", f.bytes);
      return t;
    }
    const bool id_ok = f.id && (f.id->is_int64() || f.id->is_uint64() || f.id->is_string());
    if (f.value_too_long) {
      t.problem = fmt::format("an id or method longer than {} bytes", kMaxEnvelopeValueBytes);
    } else if (!f.jsonrpc) {
      t.problem = "no \"jsonrpc\": \"2.0\"";
    } else if (f.method && f.id && !f.has_result && !f.has_error && id_ok) {
      t.kind = FrameKind::request;
    } else if (f.method && !f.id && !f.has_result && !f.has_error) {
      t.kind = FrameKind::notification;
    } else if (!f.method && f.id && f.has_result != f.has_error) {
      t.kind = FrameKind::response;
    } else {
      t.problem = "neither a request, a notification nor a response";
    }
    t.id = f.id;
    if (f.method) t.method = *f.method;
    t.is_error = f.has_error;
    return t;
  }

  void ingest(ServerLine line) {
    const std::uint64_t bytes = line.bytes();
    const bool whole = !line.long_frame;
    const std::string size_note = whole ? std::string() : fmt::format(" ({} bytes, over {}: not kept)", bytes, kMaxLineBytes);
    Taken t = take_in(line);
    switch (t.kind) {
      case FrameKind::response: {
        const std::string key = id_key(*t.id);
        auto it = outstanding_.find(key);
        if (it == outstanding_.end()) {
          arrivals_.add(fmt::format("a response to id {} (no request of the script)", shown(*t.id)));
          return;
        }
        const Step* step = it->second;
        arrivals_.add(fmt::format("the response to {} (id {}){}{}", step->method, shown(*t.id),
                                  t.is_error ? " (an error)" : "", size_note));
        Response response{t.is_error, std::nullopt, bytes, whole};
        if (whole && (!step->name.empty() || step->kind == StepKind::handshake)) response.frame = std::move(t.parsed);
        responses_[step] = std::move(response);
        outstanding_.erase(it);
        return;
      }
      case FrameKind::request:
      case FrameKind::notification: {
        const bool request = t.kind == FrameKind::request;
        std::string what = request ? fmt::format("{} (request id {})", t.method, shown(*t.id)) : t.method;
        arrivals_.add(what + size_note);
        HostFrame frame{t.method, whole ? std::move(line.text) : std::string(), whole, bytes,
                        request ? *t.id : json::value(), std::move(what), ++order_};
        const bool queued = wanted(last_wait_, frame.method);
        if (queued || since_wait_.empty() || since_wait_.back().queued || since_wait_.back().what != frame.what) {
          if (since_wait_.size() == kSeenEntries) {  // the latest are listed, the earlier counted
            since_wait_more_ += since_wait_.front().count;
            since_wait_.pop_front();
          }
          since_wait_.push_back(Seen{frame.what, frame.order, queued, 1});
        } else {
          ++since_wait_.back().count;
        }
        if (wanted(last_ref_, frame.method)) latest_[frame.method] = frame;
        if (request) hold_request(frame);
        if (queued) {
          queue_bytes_ += frame.bytes;
          queue_.push_back(std::move(frame));
          while (queue_.size() > kQueueFrames || (queue_bytes_ > kQueueBytes && queue_.size() > 1)) {
            queue_bytes_ -= queue_.front().bytes;
            queue_.pop_front();
            ++queue_dropped_;
          }
        }
        return;
      }
      case FrameKind::invalid:
        arrivals_.add(t.problem.starts_with("a line") ? t.problem : fmt::format("an invalid frame ({})", t.problem));
        return;
    }
  }

  // A host request: answered at once by a standing answer, else kept for an answer step.
  void hold_request(const HostFrame& frame) {
    for (const Step* rule : standing_)
      if (rule->method == frame.method) {
        if (auto ok = reply(frame.id, *rule); !ok && !failure_) failure_ = ok.error();
        return;
      }
    if (!wanted(last_answer_, frame.method)) return;
    requests_.push_back(frame);
    requests_.back().line.clear();  // an answer needs only the id
    if (requests_.size() > kHeldRequests) {
      requests_.pop_front();
      ++requests_dropped_;
    }
  }

  // A kept frame, parsed (or why it cannot be looked into).
  Result<json::value> parsed(const HostFrame& frame, std::string_view source, const Reference& ref) const {
    if (!frame.whole)
      return fail(ErrorKind::conformance, "script.unresolved",
                  fmt::format("reference \"{}\": {} is {} bytes, over the {} bytes the player holds: only its envelope "
                              "was kept (the recording has it whole)",
                              ref.text, source, frame.bytes, kMaxLineBytes));
    auto value = parse_json(frame.line);
    return value ? std::move(*value) : json::value();
  }

  // The value of a reference, waiting for a pipelined response when needed.
  Result<json::value> lookup(const Reference& ref) {
    json::value frame;
    std::string source;
    if (ref.last) {
      auto it = latest_.find(ref.name);
      if (it == latest_.end())
        return fail(ErrorKind::conformance, "script.unresolved",
                    fmt::format("reference \"{}\": no {} frame has arrived from the host; {}", ref.text, ref.name,
                                arrived()));
      source = fmt::format("the latest {}", ref.name);
      auto value = parsed(it->second, source, ref);
      if (!value) return value.error();
      frame = std::move(*value);
    } else {
      const Step* step = script_.named(ref.name);
      if (!responses_.count(step)) {
        const std::string doing = fmt::format("reference \"{}\": waiting for the response to {} (line {})", ref.text,
                                              step->method, step->line);
        if (auto ok = await([&] { return responses_.count(step) > 0; }, doing, step_->timeout_ms); !ok) return ok.error();
      }
      const Response& response = responses_.at(step);
      source = fmt::format("the response to {} (line {})", step->method, step->line);
      if (!response.whole)
        return fail(ErrorKind::conformance, "script.unresolved",
                    fmt::format("reference \"{}\": {} is {} bytes, over the {} bytes the player holds: only its "
                                "envelope was kept (the recording has it whole)",
                                ref.text, source, response.bytes, kMaxLineBytes));
      frame = *response.frame;
      if (response.error)
        return fail(ErrorKind::conformance, "script.unresolved",
                    fmt::format("reference \"{}\": {} is an error: {}", ref.text, source, shown(frame.at("error"))));
    }
    std::vector<json::value> found;
    ref.path.for_each_match(frame, [&](const json::value& v, const std::string&) { found.push_back(v); });
    if (found.size() == 1) return found.front();
    return fail(ErrorKind::conformance, "script.unresolved",
                fmt::format("reference \"{}\": {} has {} at {}: {}", ref.text, source,
                            found.empty() ? std::string("no value") : fmt::format("{} values", found.size()),
                            ref.path.text(), shown(frame)));
  }

  Result<json::value> resolve(const json::value& value) {
    return resolve_references(value, [&](const Reference& ref) { return lookup(ref); });
  }

  // Writes a frame within the step's deadline. A frame the player makes while another is being
  // written (a standing answer to a request that arrived meanwhile) is written right after it.
  Result<void> send(const json::value& frame) {
    if (sending_) {
      deferred_.push_back(frame);
      return {};
    }
    sending_ = true;
    const std::string text = serialize_json(frame);
    const ClientLink::Sent sent = link_.send(text, deadline_, [&](ServerLine&& line) { ingest(std::move(line)); });
    sending_ = false;
    if (sent.status == ClientLink::Sent::closed) return closed(fmt::format("sending {}", shown(frame)));
    if (sent.status == ClientLink::Sent::timeout)
      return fail(ErrorKind::conformance, "script.timeout",
                  fmt::format("sending {}: timed out after {} ms with {} of its {} bytes taken (the host stopped "
                              "reading its stdin); {}",
                              shown(frame), step_->timeout_ms, sent.written, text.size() + 1, arrived()));
    if (failure_) return *failure_;
    while (!deferred_.empty()) {
      json::value next = std::move(deferred_.front());
      deferred_.pop_front();
      if (auto ok = send(next); !ok) return ok;
    }
    return {};
  }

  Result<void> reply(const json::value& id, const Step& answer) {
    auto body = resolve(answer.body);
    if (!body) return body.error();
    json::object frame;
    frame["jsonrpc"] = "2.0";
    frame["id"] = id;
    frame[answer.is_error ? "error" : "result"] = std::move(*body);
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
        const Response& response = responses_.at(&step);
        if (response.error)
          return fail(ErrorKind::conformance, "script.handshake",
                      fmt::format("initialize was answered with an error: {}",
                                  response.frame ? shown(response.frame->at("error"))
                                                 : fmt::format("({} bytes, not kept)", response.bytes)));
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
          std::deque<HostFrame> waiting;
          std::swap(waiting, requests_);
          for (HostFrame& r : waiting) {
            if (r.method != step.method) {
              requests_.push_back(std::move(r));
            } else if (auto ok = reply(r.id, step); !ok) {
              return ok;
            }
          }
          return {};
        }
        auto unanswered = [&]() -> std::optional<std::size_t> {
          for (std::size_t i = 0; i < requests_.size(); ++i)
            if (requests_[i].method == step.method) return i;
          return std::nullopt;
        };
        std::string doing = fmt::format("waiting for a {} request to answer", step.method);
        if (requests_dropped_)
          doing += fmt::format(" ({} older host requests were dropped: the player keeps {} unanswered)",
                               requests_dropped_, kHeldRequests);
        if (auto ok = await([&] { return unanswered().has_value(); }, doing, step.timeout_ms); !ok) return ok;
        const std::size_t at = *unanswered();
        const json::value id = requests_[at].id;
        requests_.erase(requests_.begin() + static_cast<std::ptrdiff_t>(at));
        return reply(id, step);
      }
      case StepKind::wait: return play_wait(step);
      case StepKind::quiet: {
        const auto deadline = deadline_;
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
      if (where.empty()) return true;
      if (!f.whole) return false;  // only its envelope was kept
      auto value = parse_json(f.line);
      if (!value) return false;
      for (const auto& entry : where) {  // not a structured binding: clang before 16 cannot capture one
        const auto& path = entry.first;
        const auto& expected = entry.second;
        bool found = false;
        path->for_each_match(*value, [&](const json::value& v, const std::string&) { found = found || json_equal(v, expected); });
        if (!found) return false;
      }
      return true;
    };
    std::size_t scanned = 0;
    auto take = [&] {
      for (; scanned < queue_.size(); ++scanned) {
        if (!matches(queue_[scanned])) continue;
        const std::uint64_t taken = queue_[scanned].order;
        while (!since_wait_.empty() && since_wait_.front().order <= taken) since_wait_.pop_front();
        since_wait_more_ = 0;
        for (std::size_t i = 0; i <= scanned; ++i) queue_bytes_ -= queue_[i].bytes;
        queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(scanned) + 1);
        return true;
      }
      return false;
    };
    // Frames dropped from the front of the queue (over its bounds) shift what was scanned.
    std::uint64_t dropped_seen = queue_dropped_;
    auto take_shifted = [&] {
      const std::uint64_t shift = queue_dropped_ - dropped_seen;
      dropped_seen = queue_dropped_;
      scanned = shift >= scanned ? 0 : scanned - static_cast<std::size_t>(shift);
      if (!take()) return false;
      dropped_at_take_ = queue_dropped_;
      return true;
    };
    std::string doing = fmt::format("waiting for {}", step.method);
    for (std::size_t i = 0; i < where.size(); ++i)
      doing += fmt::format("{}{} = {}", i ? ", " : " with ", where[i].first->text(), shown(where[i].second));
    // What arrived instead: every host request and notification since the previous wait took
    // its own, with the values at the where paths for the queued frames of the waited method.
    auto instead = [&] {
      ArrivalLog frames;
      for (const Seen& seen : since_wait_) {
        std::string what = seen.what;
        const HostFrame* f = nullptr;
        if (seen.queued)
          for (const HostFrame& q : queue_)
            if (q.order == seen.order) f = &q;
        if (f && f->method == step.method && !where.empty()) {
          if (!f->whole) {
            what += fmt::format(" ({} bytes, over {}: not kept)", f->bytes, kMaxLineBytes);
          } else if (auto value = parse_json(f->line)) {
            for (const auto& [path, expected] : where) {
              std::vector<std::string> values;
              path->for_each_match(*value, [&](const json::value& v, const std::string&) { values.push_back(shown(v)); });
              what += fmt::format(" ({} = {})", path->text(),
                                  values.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(values, ", ")));
            }
          }
        }
        frames.add(std::move(what), seen.count);
      }
      std::string text = frames.render("nothing arrived since the previous wait", "arrived since the previous wait: ");
      if (since_wait_more_) text += fmt::format(" (and {} earlier frames)", since_wait_more_);
      if (queue_dropped_ > dropped_at_take_)
        text += fmt::format(" ({} frames of waited methods were dropped: the wait queue keeps the latest {} frames, {} "
                            "bytes)",
                            queue_dropped_ - dropped_at_take_, kQueueFrames, kQueueBytes);
      return text;
    };
    return await(take_shifted, doing, step.timeout_ms, instead);
  }

  const Script& script_;
  ClientLink& link_;
  CommandIdMinter minter_;
  const Step* step_ = nullptr;
  std::size_t index_ = 0;                              // of step_
  Clock::time_point deadline_{};                       // the current step's
  std::map<std::string, std::size_t, std::less<>> last_wait_, last_answer_, last_ref_;  // method -> last step using it
  ArrivalLog arrivals_;                                // what arrived during the current step
  std::map<std::string, const Step*> outstanding_;     // id_key -> request step
  std::map<const Step*, Response> responses_;          // request step -> its response
  std::map<std::string, HostFrame, std::less<>> latest_;  // method -> latest host frame
  std::deque<HostFrame> queue_;                        // what waits look at
  std::uint64_t queue_bytes_ = 0;
  std::uint64_t queue_dropped_ = 0, dropped_at_take_ = 0;  // frames dropped: in all, when a wait last took one
  std::deque<Seen> since_wait_;                        // what a wait's timeout lists
  std::uint64_t since_wait_more_ = 0;                  // earlier frames, past kSeenEntries
  std::uint64_t order_ = 0;
  std::deque<HostFrame> requests_;                     // unanswered host requests
  std::uint64_t requests_dropped_ = 0;
  std::vector<const Step*> standing_;                  // "always" answers
  std::optional<Error> failure_;                       // a standing answer that failed
  bool sending_ = false;
  std::deque<json::value> deferred_;                   // frames made while another was being written
};

}  // namespace

PlayOutcome play(const Script& script, ClientLink& link, const PlayOptions& options) {
  return Player(script, link, options).run();
}

}  // namespace msptk::script
