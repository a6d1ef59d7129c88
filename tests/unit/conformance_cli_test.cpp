// The muse-conformance command line: each verb mapped onto the msptk command line that does
// the work (cli/conformance.cpp), without running it.
#include "test_support.hpp"
#include "verbs.hpp"

#include <sstream>

namespace msptk::cli {
namespace {

namespace fs = std::filesystem;
using Args = std::vector<std::string>;

struct Translated {
  ConformanceCommand command;
  std::string out, err;
};

Translated translate(Args args) {
  args.insert(args.begin(), "muse-conformance");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  Translated t;
  t.command = translate_conformance(static_cast<int>(argv.size()), argv.data(), Streams{out, err}, "muse-conformance");
  t.out = out.str();
  t.err = err.str();
  return t;
}

// A tree holding schema/msp/ with a scenario and the stable bundle.
struct Tree {
  test::TempDir tmp;
  fs::path msp = tmp / "schema/msp";
  Tree() {
    fs::create_directories(msp / "transcripts/s");
    fs::create_directories(msp / "stable");
    test::write_text(msp / "stable/manifest.json", "{}");
    test::write_text(msp / "stable/msp.schema.json", "{}");
  }
  std::string root() const { return tmp.path().string(); }
};

TEST(ConformanceCli, ValidateRunsMsptkValidateOverTheTranscriptsAgainstTheStableBundle) {
  Tree t;
  Translated v = translate({"validate", "--root", t.root(), "--format", "json"});
  EXPECT_EQ(v.command.msptk_args,
            (Args{"validate", (t.msp / "transcripts").string(), "--stable-manifest", (t.msp / "stable/manifest.json").string(),
                  "--schema", (t.msp / "stable/msp.schema.json").string(), "--format", "json"}));
  Translated one = translate({"validate", "--root", t.msp.string(), "--transcript", "s"});
  EXPECT_EQ(one.command.msptk_args.at(1), (t.msp / "transcripts/s").string());  // a scenario name under ROOT
}

TEST(ConformanceCli, StalenessAndRepinTakeTheRoot) {
  Tree t;
  EXPECT_EQ(translate({"staleness", "--root", t.root(), "--format", "json"}).command.msptk_args,
            (Args{"staleness", "--root", t.root(), "--format", "json"}));
  EXPECT_EQ(translate({"repin", "--dry-run"}).command.msptk_args, (Args{"repin", "--root", ".", "--dry-run"}));
}

TEST(ConformanceCli, ReplayAndRegenSpawnMuseServe) {
  Tree t;
  EXPECT_EQ(translate({"replay", "--root", t.root(), "--transcript", "s", "--timeout-ms", "500"}).command.msptk_args,
            (Args{"replay", "--transcript", (t.msp / "transcripts/s").string(), "--timeout-ms", "500", "--", "muse",
                  "serve"}));
  EXPECT_EQ(translate({"regen", "--transcript", "/x/y", "--muse-bin", "/opt/muse/bin/muse"}).command.msptk_args,
            (Args{"regen", "--transcript", "/x/y", "--", "/opt/muse/bin/muse", "serve"}));
  Translated missing = translate({"replay"});
  EXPECT_TRUE(missing.command.msptk_args.empty());
  EXPECT_EQ(missing.command.exit_code, 2);
  EXPECT_NE(missing.err.find("--transcript"), std::string::npos) << missing.err;
}

TEST(ConformanceCli, ServeFixturePassesItsOptionsThrough) {
  EXPECT_EQ(translate({"serve-fixture", "--exit-code", "1", "--stderr-lines", "400"}).command.msptk_args,
            (Args{"serve-fixture", "--exit-code", "1", "--stderr-lines", "400"}));
  EXPECT_EQ(translate({"serve-fixture", "--transcript", "/s", "--verbatim"}).command.msptk_args,
            (Args{"serve-fixture", "--transcript", "/s", "--verbatim"}));
}

TEST(ConformanceCli, UsageErrorsAndHelpRunNothing) {
  Translated none = translate({});
  EXPECT_TRUE(none.command.msptk_args.empty());
  EXPECT_EQ(none.command.exit_code, 2);
  EXPECT_NE(none.err.find("a verb is required"), std::string::npos) << none.err;
  Translated unknown = translate({"publish"});
  EXPECT_EQ(unknown.command.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown verb 'publish'"), std::string::npos) << unknown.err;
  Translated bad_root = translate({"validate", "--root", "/no/such/folder"});
  EXPECT_EQ(bad_root.command.exit_code, 2);
  Translated help = translate({"--help"});
  EXPECT_EQ(help.command.exit_code, 0);
  EXPECT_TRUE(help.command.msptk_args.empty());
  EXPECT_NE(help.out.find("serve-fixture"), std::string::npos);
}

}  // namespace
}  // namespace msptk::cli
