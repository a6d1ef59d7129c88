// Headless Chromium for the tests of msptk's HTML pages (coverage, show, diff, check): find the
// browser, load a page from a file (no network: the pages are self-contained) and take its DOM
// after the page's script ran (`--dump-dom`) or a screenshot. Each load uses a new profile
// folder. Tests skip, with the reason, where Chromium is not installed (scripts/install-deps
// installs Debian's `chromium`). With MSPTK_SCREENSHOT_DIR set, screenshots are also copied
// there (how docs/img/ is refreshed).
#pragma once

#include "e2e_support.hpp"

#include <cstdlib>

namespace msptk::e2e {

inline std::string find_chromium() {
  if (const char* env = std::getenv("MSPTK_CHROMIUM"); env && *env) return env;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::filesystem::path dir = dirs.substr(start, end - start);
    for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
      std::error_code ec;
      if (!dir.empty() && std::filesystem::exists(dir / name, ec)) return (dir / name).string();
    }
    start = end + 1;
  }
  return {};
}

inline std::vector<std::string> chromium_argv(const std::string& chromium, const std::filesystem::path& profile) {
  return {chromium,           "--headless",          "--no-sandbox",          "--disable-gpu",
          "--disable-quic",   "--no-first-run",      "--disable-background-networking",
          "--disable-component-update",              "--disable-sync",        "--user-data-dir=" + profile.string()};
}

// The DOM of `url` (a file:// URL, a #fragment allowed) once its scripts ran.
inline CommandRun dump_dom(const std::string& chromium, const std::string& url, const std::filesystem::path& profile) {
  std::vector<std::string> argv = chromium_argv(chromium, profile);
  argv.insert(argv.end(), {"--dump-dom", url});
  return run_command(argv, std::chrono::seconds(120));
}

// A screenshot of `url` into `png`, the window `size` ("1280,2400") big; copied into
// $MSPTK_SCREENSHOT_DIR/<png's file name> when that is set.
inline CommandRun screenshot(const std::string& chromium, const std::string& url, const std::filesystem::path& png,
                             const std::string& size, const std::filesystem::path& profile) {
  std::vector<std::string> argv = chromium_argv(chromium, profile);
  argv.insert(argv.end(), {"--window-size=" + size, "--hide-scrollbars", "--screenshot=" + png.string(), url});
  CommandRun run = run_command(argv, std::chrono::seconds(120));
  if (const char* dir = std::getenv("MSPTK_SCREENSHOT_DIR"); dir && *dir && std::filesystem::exists(png))
    std::filesystem::copy_file(png, std::filesystem::path(dir) / png.filename(), std::filesystem::copy_options::overwrite_existing);
  return run;
}

// The page's script ran to its end (end_page marks the body) and raised no error (the error
// trap of begin_page writes #script-error).
inline void expect_script_ran(const std::string& dom) {
  EXPECT_EQ(dom.find("id=\"script-error\""), std::string::npos) << dom.substr(0, 3000);
  EXPECT_NE(dom.find("data-ready=\"1\""), std::string::npos) << "the page's script did not run to its end";
}

}  // namespace msptk::e2e
