// Every option value is checked (cli/option_checks.hpp): the options are taken from the command
// line's own definition (declare_verbs, as the completion generator reads it), so an option added
// later is in the table without an edit here. Each bad value of its kind must be a usage error
// (exit 2) naming the option before anything runs: the host of a verb that takes `-- HOST`, and
// check's and shrink's --host, is a command that would leave a file behind if it were spawned.
#include "option_checks.hpp"
#include "verbs.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace msptk::cli {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  int code = 0;
  std::string out, err;
};

Outcome run_args(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"msptk"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  Outcome o;
  o.code = run(static_cast<int>(argv.size()), argv.data(), Streams{out, err});
  o.out = out.str();
  o.err = err.str();
  return o;
}

// A verb's `-- HOST [ARGS...]` positional, null when it takes none.
const CLI::Option* host_of(const CLI::App& sub) {
  for (const CLI::Option* option : sub.get_options())
    if (!option->nonpositional() && option->get_name(true) == "HOST") return option;
  return nullptr;
}

class OptionTable : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("msptk-option-table-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "a-folder");
    std::ofstream(dir_ / "a-file") << "[]\n";
    evidence_ = dir_ / "spawned";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Bad values for an option of `kind` ("" when it has no check: then only the empty value).
  std::vector<std::string> bad_values(const std::string& kind) const {
    std::vector<std::string> bad{""};
    if (kind.rfind("number>=", 0) == 0) {
      for (const char* v : {"+1", "x", "1.5", "1e3", " 1", "1 ", "0x10", "99999999999999999999",
                            "9223372036854775808", "-9223372036854775809", "--1", "-", "- 1"})
        bad.push_back(v);
      const long long min = std::stoll(kind.substr(8));
      if (min >= 0) bad.insert(bad.end(), {"-1", "-0"});  // a negative number where the range has none
      if (min >= 1) bad.push_back("0");
    } else if (kind == "file") {
      bad.push_back((dir_ / "a-folder").string());
    } else if (kind == "folder") {
      bad.push_back((dir_ / "a-file").string());
    } else if (kind == "choice") {
      bad.push_back("no-such-choice");
    }
    return bad;
  }

  // A valid stand-in for a required argument of `kind`.
  std::string good_value(const std::string& kind) const {
    if (kind == "folder" || kind == "path" || kind.empty()) return (fs::path(MSPTK_SOURCE_DIR) / "corpus/framing-malformed-json").string();
    if (kind == "file") return (dir_ / "a-file").string();
    if (kind.rfind("number>=", 0) == 0) return "1";
    return "x";
  }

  // The verb's command line around the option under test: its other required options and
  // positionals, a host that leaves `evidence_` behind.
  std::vector<std::string> base(const CLI::App& sub, const CLI::Option* tested, std::vector<std::string>& tail) const {
    std::vector<std::string> args{sub.get_name()};
    const std::string touch = "touch " + evidence_.string();
    for (const CLI::Option* option : sub.get_options()) {
      if (option == tested) continue;
      const std::string name = option->get_name(true);
      if (!option->nonpositional()) {
        if (name == "HOST") tail = {"--", "touch", evidence_.string()};
        else if (option->get_required()) args.push_back(good_value(""));
        continue;
      }
      if (name == "--host") {  // check, shrink: one string
        args.insert(args.end(), {"--host", touch});
        continue;
      }
      if (option->get_required()) args.insert(args.end(), {option->get_name(), good_value(value_kind(*option))});
    }
    return args;
  }

  fs::path dir_, evidence_;
};

TEST(OptionChecks, NumberCheckTakesDecimalDigitsInRangeOnly) {
  const CLI::Validator check = number_check(1, 1024);
  for (std::string ok : {"1", "1024", "0001"}) EXPECT_EQ(check(ok), "") << ok;
  for (std::string bad : {"", "0", "1025", "-1", "+1", "x", "1.0", " 1", "99999999999999999999"})
    EXPECT_NE(check(bad), "") << bad;
  const CLI::Validator any = number_check(0);
  std::string max = "9223372036854775807", beyond = "9223372036854775808";
  EXPECT_EQ(any(max), "");
  EXPECT_NE(any(beyond), "");
}

TEST(OptionChecks, FileAndFolderChecksLookAtWhatIsThere) {
  const fs::path dir = fs::temp_directory_path();
  std::string folder = dir.string(), missing = (dir / "msptk-no-such-thing").string(), empty;
  EXPECT_NE(file_check()(folder), "");
  EXPECT_EQ(file_check()(missing), "");  // a file to write
  EXPECT_NE(file_check()(empty), "");
  EXPECT_EQ(folder_check()(folder), "");
  EXPECT_EQ(folder_check()(missing), "");  // a folder to create
  EXPECT_NE(folder_check()(empty), "");
}

TEST_F(OptionTable, EveryValueOptionOfEveryVerbRefusesBadValuesBeforeAnythingRuns) {
  CLI::App app;
  const auto verbs_app = declare_verbs(app);  // the runners own the options' variables
  std::size_t cases = 0, verbs = 0;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == "conformance") continue;  // its own command line, mapped onto these verbs
    ++verbs;
    for (const CLI::Option* option : sub->get_options()) {
      if (!option->nonpositional() || !takes_value(*option)) continue;
      const std::string kind = value_kind(*option);
      EXPECT_NE(kind, "") << sub->get_name() << " " << option->get_name() << " has no value check";
      for (const std::string& value : bad_values(kind)) {
        std::vector<std::string> tail;
        std::vector<std::string> args = base(*sub, option, tail);
        args.insert(args.end(), {option->get_name(), value});
        args.insert(args.end(), tail.begin(), tail.end());
        const Outcome o = run_args(args);
        std::string line;
        for (const std::string& a : args) line += " '" + a + "'";
        EXPECT_EQ(o.code, 2) << "msptk" << line << "\n" << o.err;
        EXPECT_NE(o.err.find("msptk: error: " + option->get_name() + ": "), std::string::npos) << "msptk" << line << "\n" << o.err;
        EXPECT_FALSE(fs::exists(evidence_)) << "msptk" << line << " spawned its host";
        fs::remove(evidence_);
        ++cases;
      }
    }
  }
  EXPECT_GE(verbs, 16u);
  EXPECT_GT(cases, 200u);
}

// Everything after the first `--` is the host's, whatever option comes before it: a repeatable
// option last does not take the `--` nor the host's own options.
TEST(OptionChecks, EverythingAfterTheFirstDoubleDashIsTheHostsWhateverOptionPrecedesIt) {
  std::size_t cases = 0;
  CLI::App probe;
  const auto verbs_probe = declare_verbs(probe);  // the runners own the options' variables
  for (const CLI::App* listed : probe.get_subcommands({})) {
    if (!host_of(*listed) || listed->get_name() == "conformance") continue;
    for (const CLI::Option* option : listed->get_options()) {
      if (!option->nonpositional() || option->get_items_expected_max() <= 1 || !takes_value(*option)) continue;
      const std::string value = value_kind(*option) == "file"   ? "registry.json"
                                : value_kind(*option) == "folder" ? "some-folder"
                                                                  : "params.x";
      CLI::App app;
      const auto verbs_app = declare_verbs(app);  // the runners own the options' variables
      CLI::App* sub = app.get_subcommand(listed->get_name());
      std::vector<std::string> args{"msptk", listed->get_name()};
      for (const CLI::Option* other : listed->get_options())
        if (other->nonpositional() && other->get_required()) args.insert(args.end(), {other->get_name(), "scenario"});
      if (listed->get_name() == "record") args.insert(args.end(), {"--out", "out"});
      const std::vector<std::string> tail{"host", option->get_name(), "X", "--transcript", "Y", "--", "Z"};
      args.insert(args.end(), {option->get_name(), value, "--"});
      args.insert(args.end(), tail.begin(), tail.end());
      std::vector<const char*> argv;
      for (const std::string& a : args) argv.push_back(a.c_str());
      try {
        app.parse(static_cast<int>(argv.size()), argv.data());
      } catch (const CLI::ParseError& e) {
        ADD_FAILURE() << listed->get_name() << " " << option->get_name() << " last before --: " << e.what();
        continue;
      }
      EXPECT_EQ(host_of(*sub)->results(), tail) << listed->get_name() << " " << option->get_name();
      EXPECT_EQ(sub->get_option(option->get_name())->results(), std::vector<std::string>{value})
          << listed->get_name() << " " << option->get_name();
      ++cases;
    }
  }
  EXPECT_GE(cases, 10u);  // record, replay and regen: --env, --env-file, --env-path, --redact, --normalize, --path, ...
}

}  // namespace
}  // namespace msptk::cli
