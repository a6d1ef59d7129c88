// The host environment: --env/--env-file resolution, the hermetic base (HOME, XDG folders, PATH,
// TZ, LC_ALL), pins that nothing overrides, the folder's lifetime, and a real spawned shell that
// sees exactly that environment.
#include "msptk/process/fd_io.hpp"
#include "msptk/process/host_environment.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

namespace msptk::process {
namespace {

namespace fs = std::filesystem;

EnvLookup fake_env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

std::map<std::string, std::string> as_map(const EnvVars& vars) { return {vars.begin(), vars.end()}; }

const EnvVars kPins = {{"MSP_FRAME_LIMIT_BYTES", "1024"}, {"MSP_ID_SEED", "7"}, {"MSP_CLOCK_START_MS", "1"}};

fs::path temp_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("msptk-hostenv-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(HostEnvironment, EnvItemsTakeMsptksValueOrTheirOwn) {
  EnvironmentOptions options;
  options.env = {"API_URL", "MODE=fast", "API_URL=override"};
  auto plan = plan_environment(options, fake_env({{"API_URL", "https://x"}}));
  ASSERT_TRUE(plan) << plan.error().render();
  EXPECT_EQ(plan->variables, (EnvVars{{"API_URL", "override"}, {"MODE", "fast"}}));
  EXPECT_EQ(plan->names(), (std::vector<std::string>{"API_URL", "MODE"}));
}

TEST(HostEnvironment, RefusesUnsetNamesBadNamesPinsAndHermeticOnlyOptions) {
  auto refused = [](EnvironmentOptions options) {
    auto plan = plan_environment(options, fake_env({}));
    EXPECT_FALSE(plan);
    return plan ? std::string() : plan.error().render();
  };
  EnvironmentOptions unset;
  unset.env = {"NOT_SET"};
  EXPECT_NE(refused(unset).find("NOT_SET is not set in msptk's environment"), std::string::npos);
  EnvironmentOptions bad;
  bad.env = {"1X=a"};
  EXPECT_NE(refused(bad).find("\"1X\" is not a variable name"), std::string::npos);
  EnvironmentOptions pin;
  pin.env = {"MSP_ID_SEED=3"};
  EXPECT_NE(refused(pin).find("MSP_ID_SEED is a pinned value"), std::string::npos);
  EnvironmentOptions path;
  path.env_path = {"/opt/bin"};
  EXPECT_NE(refused(path).find("--env-path extends the hermetic PATH: it needs --hermetic"), std::string::npos);
  EnvironmentOptions keep;
  keep.keep_env = "/tmp/x";
  EXPECT_NE(refused(keep).find("--keep-env"), std::string::npos);
}

TEST(HostEnvironment, EnvFileLinesCommentsAndErrorsWithFileAndLine) {
  const fs::path dir = temp_dir("file");
  {
    std::ofstream out(dir / "host.env");
    out << "# the host's settings\n\nTOKEN_NAME=abc\r\n  PASSED\nbad-name=1\n";
  }
  EnvironmentOptions options;
  options.env_files = {dir / "host.env"};
  auto plan = plan_environment(options, fake_env({{"PASSED", "p"}}));
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().render().find((dir / "host.env").string() + ":5: \"bad-name\" is not a variable name"),
            std::string::npos)
      << plan.error().render();
  {
    std::ofstream out(dir / "host.env");
    out << "# the host's settings\n\nTOKEN_NAME=abc\r\n  PASSED\n";
  }
  options.env = {"TOKEN_NAME=cli"};  // --env comes after the files
  plan = plan_environment(options, fake_env({{"PASSED", "p"}}));
  ASSERT_TRUE(plan) << plan.error().render();
  EXPECT_EQ(plan->variables, (EnvVars{{"TOKEN_NAME", "cli"}, {"PASSED", "p"}}));
  options.env_files = {dir / "missing.env"};
  plan = plan_environment(options, fake_env({}));
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().kind, ErrorKind::unreadable);
  fs::remove_all(dir);
}

TEST(HostEnvironment, AnEnvFileThatIsAFolderOrHoldsANulIsAnErrorNamingFileAndLine) {
  const fs::path dir = temp_dir("nul");
  EnvironmentOptions options;
  options.env_files = {dir};  // a folder: never "no variables"
  auto plan = plan_environment(options, fake_env({}));
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().kind, ErrorKind::usage);
  EXPECT_NE(plan.error().render().find("--env-file " + dir.string() + ": is a folder"), std::string::npos)
      << plan.error().render();
  {
    std::ofstream out(dir / "host.env", std::ios::binary);
    out << "A=1\nTOKEN=abc" << std::string(1, '\0') << "def\nB=2\n";
  }
  options.env_files = {dir / "host.env"};
  plan = plan_environment(options, fake_env({}));
  ASSERT_FALSE(plan);  // never silently cut at the NUL
  EXPECT_EQ(plan.error().kind, ErrorKind::usage);
  EXPECT_NE(plan.error().render().find((dir / "host.env").string() + ":2: the value of TOKEN holds a NUL byte"),
            std::string::npos)
      << plan.error().render();
  fs::remove_all(dir);
}

// Half a million variables through every step before a host starts: the env file, the plan
// (a later NAME replacing an earlier one), the prepared environment (inherited and hermetic)
// and the block a host is spawned with. Each step was quadratic (a linear search per
// variable: minutes at this size, and the spawn ignored SIGTERM meanwhile); bench/RESULTS.md
// has the figures. No timing here: the test checks the result at a size only a linear chain
// gets through within the test's timeout.
TEST(HostEnvironment, HalfAMillionVariablesGoThroughEveryStepLinearly) {
  constexpr std::size_t kLines = 500000;
  const fs::path dir = temp_dir("many");
  {
    std::ofstream out(dir / "many.env");
    for (std::size_t i = 0; i < kLines; ++i) out << "V" << i << "=" << i << "\n";
    out << "V7=again\n";  // replaces V7 in place
  }
  EnvironmentOptions options;
  options.env_files = {dir / "many.env"};
  auto plan = plan_environment(options, fake_env({}));
  ASSERT_TRUE(plan) << plan.error().render();
  ASSERT_EQ(plan->variables.size(), kLines);
  EXPECT_EQ(plan->variables[7], (std::pair<std::string, std::string>{"V7", "again"}));
  EXPECT_EQ(plan->variables.back(), (std::pair<std::string, std::string>{"V499999", "499999"}));
  for (bool hermetic : {false, true}) {
    plan->hermetic = hermetic;
    auto env = HostEnvironment::prepare(*plan, "sh", kPins);
    ASSERT_TRUE(env) << env.error().render();
    EXPECT_EQ(env->variables().size(), kLines + kPins.size() + (hermetic ? 8u : 0u));
    const char* base[] = {"V3=from-msptk", "KEPT=1", nullptr};
    const std::vector<std::string> block = environment_block(base, env->variables());
    ASSERT_EQ(block.size(), env->variables().size() + 1);  // V3 is replaced, KEPT kept
    EXPECT_EQ(block.front(), "KEPT=1");
    EXPECT_NE(std::find(block.begin(), block.end(), "V3=3"), block.end());
    EXPECT_EQ(std::find(block.begin(), block.end(), "V3=from-msptk"), block.end());
  }
  fs::remove_all(dir);
}

TEST(HostEnvironment, InheritedAddsTheGivenVariablesAndThePins) {
  EnvironmentPlan plan;
  plan.variables = {{"A", "1"}, {"MSP_ID_SEED", "ignored"}};
  auto env = HostEnvironment::prepare(plan, "sh", kPins);
  ASSERT_TRUE(env) << env.error().render();
  EXPECT_FALSE(env->hermetic());
  EXPECT_TRUE(env->folder().empty());
  EXPECT_EQ(as_map(env->variables()).at("A"), "1");
  EXPECT_EQ(as_map(env->variables()).at("MSP_ID_SEED"), "7");  // pins win
  SpawnSpec spec;
  env->apply(spec);
  EXPECT_TRUE(spec.inherit_environment);
}

TEST(HostEnvironment, HermeticBaseFoldersAndPath) {
  EnvironmentPlan plan;
  plan.hermetic = true;
  plan.variables = {{"TZ", "Europe/Paris"}, {"EXTRA", "x"}};
  plan.extra_path = {"/opt/tools/bin", "/usr/bin"};
  fs::path folder;
  {
    auto env = HostEnvironment::prepare(plan, "sh", kPins);
    ASSERT_TRUE(env) << env.error().render();
    EXPECT_TRUE(env->hermetic());
    EXPECT_FALSE(env->kept());
    folder = env->folder();
    auto vars = as_map(env->variables());
    EXPECT_EQ(vars.at("HOME"), (fs::absolute(folder) / "home").string());
    for (const auto& [name, sub] : std::map<std::string, std::string>{
             {"XDG_CONFIG_HOME", "config"}, {"XDG_DATA_HOME", "data"}, {"XDG_CACHE_HOME", "cache"}, {"XDG_STATE_HOME", "state"}}) {
      EXPECT_EQ(vars.at(name), (fs::absolute(folder) / sub).string());
      EXPECT_TRUE(fs::is_directory(vars.at(name)));
    }
    const std::string sh_dir = fs::absolute(*resolve_program("sh")).lexically_normal().parent_path().string();
    std::string expected_path = sh_dir;
    for (const char* dir : {"/usr/bin", "/bin", "/opt/tools/bin"})
      if (dir != sh_dir) expected_path += std::string(":") + dir;
    EXPECT_EQ(vars.at("PATH"), expected_path);
    EXPECT_EQ(vars.at("TZ"), "Europe/Paris");  // --env overrides the base
    EXPECT_EQ(vars.at("LC_ALL"), "C.UTF-8");
    EXPECT_EQ(vars.at("EXTRA"), "x");
    EXPECT_EQ(vars.at("MSP_FRAME_LIMIT_BYTES"), "1024");
    EXPECT_EQ(vars.size(), 12u);
    EXPECT_EQ(env->given_names(), (std::vector<std::string>{"TZ", "EXTRA"}));
    SpawnSpec spec;
    env->apply(spec);
    EXPECT_FALSE(spec.inherit_environment);
  }
  EXPECT_FALSE(fs::exists(folder)) << "the temporary folder is removed with the environment";
}

TEST(HostEnvironment, KeepEnvFolderIsKeptAndMustBeEmpty) {
  const fs::path dir = temp_dir("keep");
  EnvironmentPlan plan;
  plan.hermetic = true;
  plan.keep_dir = dir / "env";
  {
    auto env = HostEnvironment::prepare(plan, "sh", kPins);
    ASSERT_TRUE(env) << env.error().render();
    EXPECT_TRUE(env->kept());
  }
  EXPECT_TRUE(fs::is_directory(dir / "env" / "home"));
  auto again = HostEnvironment::prepare(plan, "sh", kPins);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().kind, ErrorKind::usage);
  EXPECT_NE(again.error().render().find("not an empty folder"), std::string::npos);
  fs::remove_all(dir);
}

TEST(HostEnvironment, ASpawnedHostSeesOnlyTheHermeticEnvironment) {
  ::setenv("MSPTK_TEST_LEAK", "leaked", 1);
  EnvironmentPlan plan;
  plan.hermetic = true;
  plan.variables = {{"GIVEN", "yes"}};
  auto env = HostEnvironment::prepare(plan, "sh", kPins);
  ASSERT_TRUE(env);
  SpawnSpec spec;
  spec.argv = {"sh", "-c", "env | sort | cut -d= -f1 | tr '\\n' ' '; printf '|%s|%s' \"$HOME\" \"$GIVEN\""};
  env->apply(spec);
  auto host = spawn_host(spec);
  ASSERT_TRUE(host) << host.error().render();
  (*host)->close_stdin();
  std::string out;
  char buffer[4096];
  while (true) {
    IoResult r = read_some((*host)->stdout_fd(), buffer, sizeof buffer);
    if (r.eof || (r.error && r.error != EAGAIN)) break;
    out.append(buffer, r.bytes);
  }
  (*host)->wait();
  ::unsetenv("MSPTK_TEST_LEAK");
  EXPECT_EQ(out.find("MSPTK_TEST_LEAK"), std::string::npos) << out;
  // sh itself may add PWD/SHLVL/_; everything else is ours.
  for (const char* name : {"GIVEN", "HOME", "LC_ALL", "MSP_CLOCK_START_MS", "MSP_FRAME_LIMIT_BYTES", "MSP_ID_SEED",
                           "PATH", "TZ", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"})
    EXPECT_NE(out.find(std::string(name) + " "), std::string::npos) << name << " in " << out;
  EXPECT_NE(out.find("|" + (fs::absolute(env->folder()) / "home").string() + "|yes"), std::string::npos) << out;
}

}  // namespace
}  // namespace msptk::process
