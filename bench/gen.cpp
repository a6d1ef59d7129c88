// msptk_bench_gen: a seeded generator of large MSP-shaped transcripts and their variants, for
// bench/compare.sh. It depends on nothing of msptk (the standard library only), so what it
// writes is an independent input, not msptk's own idea of a transcript.
//
// A session: the handshake (initialize with clientInfo, its result with a schema fingerprint,
// initialized), then turns until the target size: `turn/start` (client request), its accepted
// response, `turn/started`, many small `item/delta` notifications, a medium `item/completed`
// (an occasional multi-MiB one), `turn/completed` with usage. Texts hold characters that need
// escaping (quotes, backslashes, newlines, tabs) and non-ASCII UTF-8.
//
// Usage: msptk_bench_gen --out DIR [--mb N] [--seed S] [--requests-x K]
// (--requests-x K: K times as many client requests per MB, the turns K times shorter)
// writes, each a scenario folder (manifest.json + transcript.ndjson):
//   DIR/base         the session
//   DIR/identical    a byte-for-byte copy
//   DIR/equivalent   client request ids re-minted (and so the responses' ids), another
//                    clientInfo, the members of 1% of server frames in another order
//   DIR/divergent    the equivalent copy with 1% of the frames carrying another value
//   DIR/unrelated    another session (another seed)
//   DIR/clientinfo   a byte-for-byte copy but for line 1: the initialize request's clientInfo
//                    (another version, as a new release of the client sends)
//   DIR/remint       every client request id re-minted (and so the responses' ids), nothing else
// and DIR/wire.ndjson: the raw bytes of every base frame, one a line (input for record).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fs = std::filesystem;

namespace {

// splitmix64: small, seeded, the same on every machine.
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
  bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }
};

// A tiny JSON tree with ordered members, enough to write frames in more than one member order.
struct Member;
struct Node {
  enum Kind { null, boolean, number, string, object, array } kind = null;
  std::string text;  // number: its literal; string: its (unescaped) bytes; boolean: "true"/"false"
  std::vector<Member> members;                         // object
  std::vector<Node> items;                             // array

  // Made out of line, after Member: Node's destructor needs Member complete.
  static Node str(std::string s);
  static Node num(std::uint64_t v);
  static Node flag(bool b);
  static Node obj(std::vector<Member> m);
  static Node arr(std::vector<Node> v);
  Node* find(const std::string& key);
};
// An object's member (a pair, complete only after Node: clang's libstdc++ checks).
struct Member {
  std::string first;
  Node second;
};
Node Node::str(std::string s) { Node n; n.kind = string; n.text = std::move(s); return n; }
Node Node::num(std::uint64_t v) { Node n; n.kind = number; n.text = std::to_string(v); return n; }
Node Node::flag(bool b) { Node n; n.kind = boolean; n.text = b ? "true" : "false"; return n; }
Node Node::obj(std::vector<Member> m) { Node n; n.kind = object; n.members = std::move(m); return n; }
Node Node::arr(std::vector<Node> v) { Node n; n.kind = array; n.items = std::move(v); return n; }
Node* Node::find(const std::string& key) {
  for (auto& [k, v] : members)
    if (k == key) return &v;
  return nullptr;
}

void escape(std::string& out, const std::string& s) {
  static const char hex[] = "0123456789abcdef";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
}

// Writes compact JSON; `reversed` writes every object's members in reverse order.
void write(std::string& out, const Node& n, bool reversed) {
  switch (n.kind) {
    case Node::null: out += "null"; return;
    case Node::boolean:
    case Node::number: out += n.text; return;
    case Node::string:
      out += '"';
      escape(out, n.text);
      out += '"';
      return;
    case Node::array:
      out += '[';
      for (std::size_t i = 0; i < n.items.size(); ++i) {
        if (i) out += ',';
        write(out, n.items[i], reversed);
      }
      out += ']';
      return;
    case Node::object:
      out += '{';
      for (std::size_t k = 0; k < n.members.size(); ++k) {
        const auto& [key, value] = n.members[reversed ? n.members.size() - 1 - k : k];
        if (k) out += ',';
        out += '"';
        escape(out, key);
        out += "\":";
        write(out, value, reversed);
      }
      out += '}';
      return;
  }
}

const char* const kWords[] = {"the",   "session", "delta", "muse",  "frame", "quote\"d", "back\\slash", "tab\there",
                              "line\nbreak", "caf\xc3\xa9", "na\xc3\xafve", "\xe2\x86\x92", "\xf0\x9f\x8e\xb5",
                              "protocol", "stream", "turn", "item", "agent", "message", "lorem", "ipsum", "dolor"};

std::string words(Rng& rng, std::size_t bytes) {
  std::string s;
  s.reserve(bytes + 16);
  while (s.size() < bytes) {
    if (!s.empty()) s += ' ';
    s += kWords[rng.below(sizeof kWords / sizeof *kWords)];
  }
  return s;
}

std::string uuid(Rng& rng) {
  char buf[40];
  const std::uint64_t a = rng.next(), b = rng.next();
  std::snprintf(buf, sizeof buf, "%08x-%04x-7%03x-8%03x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>(a >> 16) & 0xffff, static_cast<unsigned>(a) & 0xfff,
                static_cast<unsigned>(b >> 48) & 0xfff, static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

Node envelope(std::vector<Member> members) {
  members.insert(members.begin(), {"jsonrpc", Node::str("2.0")});
  return Node::obj(std::move(members));
}

struct Out {
  std::ofstream transcript;
  explicit Out(const fs::path& dir, const std::string& scenario) {
    fs::create_directories(dir);
    std::ofstream(dir / "manifest.json")
        << "{\"kind\":\"mspTranscript\",\"schemaVersion\":1,\"scenario\":\"" << scenario
        << "\",\"provenance\":\"host-generated\",\"fingerprint\":\"sha256:"
           "c8d1a2a1866814e220fd396d382a9a75861412feee884b5021b2ee359bd3dc59\","
           "\"viewSchemaVersion\":1,\"serverConfig\":{\"frameLimitBytes\":10485760},\"transports\":[\"stdio\"],\"normalize\":[],"
           "\"seeds\":{\"idSeed\":7,\"clockStartMs\":1754590931000},\"source\":[]}\n";
    transcript.open(dir / "transcript.ndjson", std::ios::binary);
  }
  void line(bool client, const std::string& raw) {
    std::string l = client ? "{\"dir\":\"client\",\"raw\":\"" : "{\"dir\":\"server\",\"raw\":\"";
    escape(l, raw);
    l += "\"}\n";
    transcript.write(l.data(), static_cast<std::streamsize>(l.size()));
  }
};

// One logical frame, written into every variant in that variant's form.
struct Frame {
  bool client = false;
  Node message;
  bool minted_id = false;  // a client request id (re-minted in the variants) or a response to one
};

class Session {
 public:
  // `requests_x`: turns K times shorter (K times fewer deltas, K times shorter texts), so K times
  // as many client requests (and their responses) per MB.
  Session(std::uint64_t seed, double target_bytes, std::uint64_t requests_x = 1)
      : rng_{seed}, target_(target_bytes), requests_x_(requests_x) {}

  // Calls emit(frame) for each frame, in wire order, until about target bytes were produced.
  template <class Emit>
  void run(Emit emit) {
    emit(Frame{true,
               envelope({{"id", Node::num(next_id_)},
                         {"method", Node::str("initialize")},
                         {"params", Node::obj({{"clientInfo", Node::obj({{"name", Node::str("bench-client")},
                                                                         {"version", Node::str("1.0.0")}})}})}}),
               true});
    emit(Frame{false,
               envelope({{"id", Node::num(next_id_++)},
                         {"result", Node::obj({{"serverInfo", Node::obj({{"name", Node::str("muse-session-server")},
                                                                         {"version", Node::str("0.0.0-bench")}})},
                                               {"schema", Node::obj({{"version", Node::num(1)},
                                                                     {"fingerprint",
                                                                      Node::str("sha256:c8d1a2a1866814e220fd396d382a9a7"
                                                                                "5861412feee884b5021b2ee359bd3dc59")}})},
                                               {"grantedCapabilities", Node::arr({})},
                                               {"experimentalApi", Node::flag(false)}})}}),
               true});
    emit(Frame{true, envelope({{"method", Node::str("initialized")}}), false});
    const std::string session = uuid(rng_);
    while (bytes_ < target_) {
      const std::string command = uuid(rng_);
      const std::uint64_t id = next_id_++;
      emit(Frame{true,
                 envelope({{"id", Node::num(id)},
                           {"method", Node::str("turn/start")},
                           {"params", Node::obj({{"sessionId", Node::str(session)},
                                                 {"commandId", Node::str(command)},
                                                 {"input", Node::arr({Node::obj({{"type", Node::str("text")},
                                                                                 {"text", Node::str(words(rng_, 40 + rng_.below(200)))}})})}})}}),
                 true});
      emit(Frame{false,
                 envelope({{"id", Node::num(id)},
                           {"result", Node::obj({{"commandId", Node::str(command)},
                                                 {"status", Node::str("accepted")},
                                                 {"turnId", Node::str(command)}})}}),
                 true});
      emit(Frame{false, notification("turn/started", {{"sessionId", Node::str(session)}, {"turnId", Node::str(command)}}), false});
      const std::string item = uuid(rng_);
      const std::uint64_t deltas = (20 + rng_.below(200)) / requests_x_;
      for (std::uint64_t d = 0; d < deltas && bytes_ < target_; ++d) {
        emit(Frame{false,
                   notification("item/delta", {{"sessionId", Node::str(session)},
                                               {"turnId", Node::str(command)},
                                               {"itemId", Node::str(item)},
                                               {"delta", Node::str(words(rng_, 8 + rng_.below(48)))}}),
                   false});
      }
      // Medium item/completed frames, and now and then (1 turn in 150) a 1 to 4 MiB one.
      const std::size_t text =
          (rng_.chance(1.0 / 150) ? (1u << 20) + rng_.below(3u << 20) : 512 + rng_.below(8192)) / requests_x_;
      emit(Frame{false,
                 notification("item/completed",
                              {{"sessionId", Node::str(session)},
                               {"turnId", Node::str(command)},
                               {"item", Node::obj({{"itemId", Node::str(item)},
                                                   {"kind", Node::str("agentMessage")},
                                                   {"text", Node::str(words(rng_, text))}})}}),
                 false});
      emit(Frame{false,
                 notification("turn/completed",
                              {{"sessionId", Node::str(session)},
                               {"turnId", Node::str(command)},
                               {"terminal", Node::str("completed")},
                               {"usage", Node::obj({{"inputTokens", Node::num(1000 + rng_.below(90000))},
                                                    {"outputTokens", Node::num(10 + rng_.below(4000))}})}}),
                 false});
    }
  }

  void count(std::size_t bytes) { bytes_ += static_cast<double>(bytes); }

 private:
  Node notification(const char* method, std::vector<Member> params) {
    return envelope({{"method", Node::str(method)}, {"params", Node::obj(std::move(params))}});
  }

  Rng rng_;
  double target_;
  double bytes_ = 0;
  std::uint64_t requests_x_ = 1;
  std::uint64_t next_id_ = 1;
};

int usage() {
  std::cerr << "usage: msptk_bench_gen --out DIR [--mb N] [--seed S] [--requests-x K]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path out;
  double mb = 100;
  std::uint64_t seed = 1, requests_x = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return usage();
    const char* value = argv[++i];
    if (flag == "--out") out = value;
    else if (flag == "--mb") mb = std::atof(value);
    else if (flag == "--seed") seed = std::strtoull(value, nullptr, 10);
    else if (flag == "--requests-x") requests_x = std::strtoull(value, nullptr, 10);
    else return usage();
  }
  if (out.empty() || mb <= 0 || requests_x == 0) return usage();
  const double target = mb * 1000 * 1000;

  Out base(out / "base", "base"), identical(out / "identical", "identical"),
      equivalent(out / "equivalent", "equivalent"), divergent(out / "divergent", "divergent"),
      clientinfo(out / "clientinfo", "clientinfo"), remint(out / "remint", "remint");
  std::ofstream wire(out / "wire.ndjson", std::ios::binary);
  Rng variant{seed ^ 0x5eed5eedULL};
  Session session(seed, target, requests_x);
  std::string raw, other;
  session.run([&](Frame f) {
    raw.clear();
    write(raw, f.message, false);
    base.line(f.client, raw);
    identical.line(f.client, raw);
    wire << raw << '\n';
    session.count(raw.size() + 28);
    // remint: the client's request ids (and the responses' ids) re-minted, nothing else.
    if (f.minted_id) {
      Node copy = f.message;
      Node* id = copy.find("id");
      id->text = std::to_string(std::stoull(id->text) + 100000);
      other.clear();
      write(other, copy, false);
      remint.line(f.client, other);
    } else {
      remint.line(f.client, raw);
    }
    // clientinfo: the initialize request (line 1) names another version of the client.
    if (Node* params = f.client ? f.message.find("params") : nullptr; params && params->find("clientInfo")) {
      Node copy = f.message;
      copy.find("params")->find("clientInfo")->find("version")->text = "1.1.0";
      other.clear();
      write(other, copy, false);
      clientinfo.line(f.client, other);
    } else {
      clientinfo.line(f.client, raw);
    }
    // equivalent: re-minted client ids, another clientInfo, 1% of server frames reordered.
    if (f.minted_id) {
      Node* id = f.message.find("id");
      id->text = std::to_string(std::stoull(id->text) + 100000);
    }
    if (f.client) {
      if (Node* params = f.message.find("params"))
        if (Node* info = params->find("clientInfo")) {
          info->find("name")->text = "other-client";
          info->find("version")->text = "9.9.9";
        }
    }
    other.clear();
    write(other, f.message, !f.client && variant.chance(0.01));
    equivalent.line(f.client, other);
    // divergent: 1% of the frames carry another value (params gains a member; a response's result).
    if (variant.chance(0.01)) {
      Node* body = f.message.find("params");
      if (!body) body = f.message.find("result");
      if (body && body->kind == Node::object) body->members.push_back({"benchDivergence", Node::num(variant.below(1000))});
      other.clear();
      write(other, f.message, false);
    }
    divergent.line(f.client, other);
  });
  Out unrelated(out / "unrelated", "unrelated");
  Session second(seed + 1000003, target);
  second.run([&](Frame f) {
    raw.clear();
    write(raw, f.message, false);
    unrelated.line(f.client, raw);
    second.count(raw.size() + 28);
  });
  return 0;
}
