// msptk_bench: how much more than reading two transcripts does diffing them cost?
//
// Builds a large synthetic transcript (the frames of every scenario of a corpus, repeated up to
// a target size), an identical copy and an equivalent copy (every server frame's members in
// reverse order), then times, each best of N runs with a warm page cache:
//   read      both files read through TranscriptReader (the floor)
//   identical diff_transcripts(expected, identical copy)   — the byte fast path
//   equivalent diff_transcripts(expected, equivalent copy) — every frame parsed and compared
// Usage: msptk_bench [--corpus DIR] [--mb N] [--runs N] [--out FILE]
#include "msptk/differ/diff.hpp"
#include "msptk/normalizer/registry.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/scenario.hpp"
#include "msptk/transcript/writer.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace msptk;

namespace {

json::value reversed(const json::value& v) {
  if (const auto* obj = v.if_object()) {
    json::object out;
    for (auto it = obj->end(); it != obj->begin();) {
      --it;
      out.emplace(it->key(), reversed(it->value()));
    }
    return out;
  }
  if (const auto* arr = v.if_array()) {
    json::array out;
    for (const auto& e : *arr) out.push_back(reversed(e));
    return out;
  }
  return v;
}

// A small built-in session, used when no corpus is at hand.
std::vector<Frame> builtin_frames() {
  const char* lines[][2] = {
      {"client", R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"bench","version":"0"}}})"},
      {"server", R"({"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"muse","version":"0"},"grantedCapabilities":[]}})"},
      {"client", R"({"jsonrpc":"2.0","method":"initialized"})"},
      {"client", R"({"jsonrpc":"2.0","id":2,"method":"turn/start","params":{"sessionId":"s","commandId":"c1","input":[{"type":"text","text":"hello"}]}})"},
      {"server", R"({"jsonrpc":"2.0","id":2,"result":{"commandId":"c1","status":"accepted","turnId":"c1"}})"},
      {"server", R"({"jsonrpc":"2.0","method":"item/completed","params":{"sessionId":"s","turnId":"c1","item":{"itemId":"i1","kind":"agentMessage","text":"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua."}}})"},
      {"server", R"({"jsonrpc":"2.0","method":"turn/completed","params":{"sessionId":"s","turnId":"c1","terminal":"completed","usage":{"inputTokens":9000,"outputTokens":400}}})"}};
  std::vector<Frame> out;
  for (const auto& l : lines) {
    Frame f;
    f.dir = *parse_direction(l[0]);
    f.raw = l[1];
    out.push_back(f);
  }
  return out;
}

std::vector<Frame> corpus_frames(const fs::path& corpus) {
  std::vector<Frame> out;
  auto scenarios = list_corpus(corpus);
  if (!scenarios) return out;
  for (const fs::path& dir : *scenarios) {
    auto frames = read_transcript(dir / "transcript.ndjson");
    if (frames) out.insert(out.end(), frames->begin(), frames->end());
  }
  return out;
}

double best_seconds(int runs, const std::function<void()>& work) {
  double best = 1e300;
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    work();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path corpus = "../shared/msp-corpus/transcripts";
  double target_mb = 64;
  int runs = 3;
  std::string out_file;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--corpus") corpus = argv[i + 1];
    else if (flag == "--mb") target_mb = std::atof(argv[i + 1]);
    else if (flag == "--runs") runs = std::atoi(argv[i + 1]);
    else if (flag == "--out") out_file = argv[i + 1];
    else {
      std::cerr << "usage: msptk_bench [--corpus DIR] [--mb N] [--runs N] [--out FILE]\n";
      return 2;
    }
  }
  std::vector<Frame> unit = corpus_frames(corpus);
  const std::string source = unit.empty() ? "built-in sample session" : corpus.string();
  if (unit.empty()) unit = builtin_frames();

  const fs::path dir = fs::temp_directory_path() / fmt::format("msptk-bench-{}", ::getpid());
  fs::create_directories(dir);
  const fs::path expected = dir / "expected.ndjson", identical = dir / "identical.ndjson",
                 equivalent = dir / "equivalent.ndjson";
  std::vector<std::string> reordered;
  for (const Frame& f : unit)
    reordered.push_back(f.dir == Direction::server ? json::serialize(reversed(json::parse(f.json_text()))) : f.raw);
  {
    auto e = TranscriptWriter::create(expected);
    auto s = TranscriptWriter::create(identical);
    auto q = TranscriptWriter::create(equivalent);
    std::size_t bytes = 0;
    while (bytes < target_mb * 1024 * 1024) {
      for (std::size_t k = 0; k < unit.size(); ++k) {
        (void)e->append(unit[k]);
        (void)s->append(unit[k]);
        (void)q->append(unit[k].dir, reordered[k]);
        bytes += unit[k].raw.size() + 24;
      }
    }
  }
  const double mb = static_cast<double>(fs::file_size(expected)) / (1024.0 * 1024.0);
  std::size_t frames = 0;

  DiffOptions options;
  options.mask = *make_mask_spec(Registry::builtin(), {"id", "params.commandId", "params.turnId", "params.itemId",
                                                       "result.session.sessionId"},
                                 "", 0, {}, MaskMode::unify);
  const double t_read = best_seconds(runs, [&] {
    frames = 0;
    for (const fs::path& p : {expected, identical}) {
      auto reader = TranscriptReader::open(p);
      while (auto item = reader->next()) frames += *item ? 1 : 0;
    }
  });
  Verdict v_identical{}, v_equivalent{};
  const double t_identical = best_seconds(runs, [&] { v_identical = diff_transcripts(expected, identical, options)->verdict; });
  const double t_equivalent =
      best_seconds(runs, [&] { v_equivalent = diff_transcripts(expected, equivalent, options)->verdict; });
  fs::remove_all(dir);

  std::string report = fmt::format(
      "# msptk_bench results\n\n"
      "Synthetic transcript: the frames of {} repeated to {:.1f} MB ({} frames per file), "
      "mask: the five registry paths, unify; best of {} runs, warm page cache.\n\n"
      "| measurement | seconds | MB/s (both files) | vs. reading |\n|---|---|---|---|\n"
      "| read both files through TranscriptReader | {:.3f} | {:.0f} | 1.00 |\n"
      "| diff against an identical copy ({}) | {:.3f} | {:.0f} | {:.2f} |\n"
      "| diff against an equivalent copy, server members reordered ({}) | {:.3f} | {:.0f} | {:.2f} |\n",
      source, mb, frames / 2, runs, t_read, 2 * mb / t_read, to_string(v_identical), t_identical,
      2 * mb / t_identical, t_identical / t_read, to_string(v_equivalent), t_equivalent, 2 * mb / t_equivalent,
      t_equivalent / t_read);
  std::cout << report;
  if (!out_file.empty()) std::ofstream(out_file) << report;
  return v_identical == Verdict::identical && v_equivalent == Verdict::equivalent ? 0 : 1;
}
