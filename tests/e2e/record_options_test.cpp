// `msptk record` never writes a scenario the other verbs refuse: a script is recorded with every
// combination of the options that write into the manifest (--scenario, --frame-limit-bytes,
// --id-seed, --clock-start-ms, --normalize, --normalize-file, --fingerprint, --seed: 256
// recordings, eight at a time), and `msptk validate` accepts every one of them.
#include "e2e_support.hpp"

#include <fmt/format.h>

#include <future>

namespace msptk::e2e {
namespace {

namespace fs = std::filesystem;

TEST(RecordOptionsE2E, EveryCombinationOfTheManifestOptionsRecordsAScenarioValidateAccepts) {
  test::TempDir tmp;
  const fs::path script = tmp / "handshake.ndjson";
  test::write_text(script, R"({"handshake": {"clientInfo": {"name": "t", "version": "1"}}})"
                           "\n");
  const fs::path paths = tmp / "paths.txt";
  test::write_text(paths, "# what the host mints\n\nparams.itemId\n  params.turnId  \n");
  const fs::path corpus = tmp / "corpus";
  constexpr unsigned kOptions = 8;
  auto argv_of = [&](unsigned combo) {
    const std::string name = fmt::format("combo-{:03}", combo);
    std::vector<std::string> argv = {msptk_bin(), "record", "--script", script.string(), "--out", (corpus / name).string()};
    auto on = [&](unsigned bit) { return (combo >> bit) & 1U; };
    if (on(0)) argv.insert(argv.end(), {"--scenario", name});
    if (on(1)) argv.insert(argv.end(), {"--frame-limit-bytes", "1024"});
    if (on(2)) argv.insert(argv.end(), {"--id-seed", "42"});
    if (on(3)) argv.insert(argv.end(), {"--clock-start-ms", "1700000000000"});
    if (on(4)) argv.insert(argv.end(), {"--normalize", "result.session.sessionId"});
    if (on(5)) argv.insert(argv.end(), {"--normalize-file", paths.string()});
    if (on(6))
      argv.insert(argv.end(), {"--fingerprint", "sha256:7c94f153c41659cb3f1bd3c3e04438be254644cb2a97d65d48edc7449b74858a"});
    if (on(7)) argv.insert(argv.end(), {"--seed", "9"});
    argv.insert(argv.end(), {"--", MSPTK_MINTING_HOST});
    return argv;
  };
  for (unsigned first = 0; first < (1U << kOptions); first += 8) {
    std::vector<std::future<CommandRun>> runs;
    for (unsigned combo = first; combo < first + 8; ++combo)
      runs.push_back(std::async(std::launch::async, [&, combo] { return run_command(argv_of(combo)); }));
    for (unsigned k = 0; k < runs.size(); ++k) {
      CommandRun run = runs[k].get();
      EXPECT_EQ(run.exit.code, 0) << "combination " << first + k << ": " << run.err;
    }
  }
  auto validate = run_command({msptk_bin(), "validate", corpus.string()});
  EXPECT_EQ(validate.exit.code, 0) << validate.out << validate.err;
  EXPECT_NE(validate.out.find("256 scenarios: 256 ok"), std::string::npos) << validate.out;
}

}  // namespace
}  // namespace msptk::e2e
