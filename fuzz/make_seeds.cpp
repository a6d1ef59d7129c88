// msptk_fuzz_seeds OUT CORPUS...: writes the seed corpora of the fuzz targets into OUT/<target>/
// from the scenario folders of each CORPUS (msptk's corpus/ and ../shared/msp-corpus/transcripts),
// in the input layouts the targets read (fuzz_support.hpp and the top of each target):
//   transcript_line  every *.ndjson file, whole
//   manifest         every manifest.json
//   json_path        each registered path + LF + each of the first frames of the scenario
//   text_key         the JSON text of each of the first 16 frames of the scenario
//   show_frame       the same as text_key
//   differ           flags + 12 lines of the transcript (a self-diff; up to 4 windows), flags + the
//                    first 12 lines + NUL + the next scenario's first 12 lines
//   differ_files     the same as differ
//   normalize        flags + 12 lines of the transcript (up to 4 windows), with and without --sort-members
//   chaos_framing    8 seed bytes, flags + the frames' wire bytes, each with its LF
//   shrink_reduce    8 seed bytes (with the manifest's frame limit when it is small) + the whole
//                    transcript
//   serve_fixture    flags, frame limit, chunk size + transcript (the client plays it back), and
//                    the same with a small frame limit and 7-byte client writes
// Flags are the scenario's normalize list as fuzz_support.hpp's mask bits. A corpus folder that
// does not exist is skipped with a note (the public corpus may be absent).
#include "fuzz_support.hpp"

#include "msptk/transcript/manifest.hpp"
#include "msptk/transcript/scenario.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace {

namespace fs = std::filesystem;
using namespace msptk;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class SeedWriter {
 public:
  explicit SeedWriter(fs::path out) : out_(std::move(out)) {}

  void write(const std::string& target, const std::string& name, std::string_view bytes) {
    const fs::path dir = out_ / target;
    fs::create_directories(dir);
    std::ofstream(dir / name, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    ++count_;
  }
  std::size_t count() const { return count_; }

 private:
  fs::path out_;
  std::size_t count_ = 0;
};

std::uint8_t flags_of(const Manifest& manifest) {
  std::uint8_t flags = 0;
  const auto& builtin = fuzz::builtin_registry().paths();
  for (std::size_t i = 0; i < builtin.size() && i < 5; ++i)
    if (std::find(manifest.normalize.begin(), manifest.normalize.end(), builtin[i].text()) != manifest.normalize.end())
      flags |= static_cast<std::uint8_t>(1u << i);
  return flags;
}

// Up to `most` windows of `lines` consecutive lines of a transcript text (the first at its start).
std::vector<std::string> line_windows(std::string_view text, std::size_t lines, std::size_t most) {
  std::vector<std::string> out;
  std::vector<std::string_view> all = fuzz::lines_of(text);
  for (std::size_t start = 0; out.size() < most && (start < all.size() || out.empty()); start += lines) {
    std::string w;
    for (std::size_t i = start; i < all.size() && i < start + lines; ++i) w += std::string(all[i]) + "\n";
    out.push_back(std::move(w));
  }
  return out;
}

std::string with_header(const std::vector<std::uint8_t>& header, std::string_view body) {
  std::string out(header.begin(), header.end());
  out += body;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s OUT CORPUS...\n", argv[0]);
    return 2;
  }
  SeedWriter seeds(argv[1]);
  std::vector<fs::path> scenarios;
  for (int i = 2; i < argc; ++i) {
    Result<std::vector<fs::path>> listed = list_corpus(argv[i]);
    if (!listed) {
      std::fprintf(stderr, "msptk_fuzz_seeds: skipping %s: %s\n", argv[i], listed.error().render().c_str());
      continue;
    }
    scenarios.insert(scenarios.end(), listed->begin(), listed->end());
  }
  std::vector<std::string> transcripts(scenarios.size());
  for (std::size_t s = 0; s < scenarios.size(); ++s) {
    const fs::path& dir = scenarios[s];
    const std::string name = dir.filename().string();
    const std::string manifest_text = slurp(dir / "manifest.json");
    seeds.write("manifest", name, manifest_text);
    Result<Scenario> scenario = load_scenario(dir);
    const std::uint8_t flags = scenario ? flags_of(scenario->manifest) : 0x1f;
    transcripts[s] = slurp(dir / "transcript.ndjson");
    const std::string& transcript = transcripts[s];

    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.path().extension() == ".ndjson")
        seeds.write("transcript_line", name + "-" + entry.path().stem().string(), slurp(entry.path()));

    std::vector<Frame> frames = fuzz::frames_of(transcript);
    std::vector<std::string> paths;
    for (const JsonPath& p : fuzz::builtin_registry().paths()) paths.push_back(p.text());
    if (scenario)
      for (const std::string& p : scenario->manifest.normalize)
        if (std::find(paths.begin(), paths.end(), p) == paths.end()) paths.push_back(p);
    for (std::size_t p = 0; p < paths.size(); ++p)
      for (std::size_t f = 0; f < frames.size() && f < 4; ++f)
        seeds.write("json_path", fmt::format("{}-path{}-frame{}", name, p, f), paths[p] + "\n" + frames[f].raw);

    for (std::size_t f = 0; f < frames.size() && f < 16; ++f) {
      seeds.write("text_key", fmt::format("{}-frame{}", name, f), frames[f].json_text());
      seeds.write("show_frame", fmt::format("{}-frame{}", name, f), frames[f].json_text());
    }
    // differ and normalize read at most 12 frames: windows of 12 lines, not the whole transcript.
    const std::vector<std::string> windows = line_windows(transcript, 12, 4);
    for (std::size_t w = 0; w < windows.size(); ++w) {
      seeds.write("differ", fmt::format("{}-self-{}", name, w), with_header({flags}, windows[w]));
      seeds.write("differ_files", fmt::format("{}-self-{}", name, w), with_header({flags}, windows[w]));
      seeds.write("normalize", fmt::format("{}-{}", name, w), with_header({flags}, windows[w]));
      seeds.write("normalize", fmt::format("{}-sorted-{}", name, w),
                  with_header({static_cast<std::uint8_t>(flags | 0x40)}, windows[w]));
    }
    // chaos_framing: seed bytes, flags (split, merge, delay, calls), then the wire bytes.
    std::string wire;
    for (const Frame& f : frames) wire += f.wire_bytes() + "\n";
    seeds.write("chaos_framing", name, with_header({1, 2, 3, 4, 5, 6, 7, 8, 0x0f}, wire));
    // shrink_reduce: seed bytes, then the whole transcript (it must validate to be reduced).
    // A manifest's small frame limit (64 to 4159 bytes) goes into the seed (shrink_reduce.cpp).
    std::vector<std::uint8_t> shrink_seed = {9, 8, 7, 6, 5, 4, 3, 2};
    if (scenario && scenario->manifest.frame_limit_bytes >= 64 && scenario->manifest.frame_limit_bytes < 64 + 4096) {
      const auto n = static_cast<std::uint32_t>(scenario->manifest.frame_limit_bytes - 64);
      shrink_seed[4] = static_cast<std::uint8_t>(n & 0xff);
      shrink_seed[5] = static_cast<std::uint8_t>(n >> 8);
      shrink_seed[6] = 0;
      shrink_seed[7] = 0x80;
    }
    seeds.write("shrink_reduce", name, with_header(shrink_seed, transcript));
    seeds.write("serve_fixture", name, with_header({flags, 0, 0}, transcript));
    seeds.write("serve_fixture", name + "-small", with_header({flags, 64, 7}, transcript));
  }
  for (std::size_t s = 0; s + 1 < scenarios.size(); ++s) {
    std::string pair = with_header({0x1f}, line_windows(transcripts[s], 12, 1)[0]);
    pair += '\0';
    pair += line_windows(transcripts[s + 1], 12, 1)[0];
    seeds.write("differ", scenarios[s].filename().string() + "-vs-next", pair);
    seeds.write("differ_files", scenarios[s].filename().string() + "-vs-next", pair);
  }
  std::printf("msptk_fuzz_seeds: %zu seeds from %zu scenarios in %s\n", seeds.count(), scenarios.size(), argv[1]);
  return 0;
}
