// Headless Chromium for the tests of msptk's HTML pages (coverage, show, diff, check): find the
// browser, load a page from a file (no network: the pages are self-contained) and take its DOM
// after the page's script ran (`--dump-dom`) or a screenshot. Each load uses a new profile
// folder. Tests skip, with the reason, where Chromium is not installed (scripts/install-deps
// installs Debian's `chromium`). What only a laid-out page knows (where an element is, whether the
// page is wider than the window) a probe script appended to the page measures and writes on
// <body data-probe-NAME="…">, read back from the dumped DOM (with_probe, probe). Screenshots are
// taken only with MSPTK_SCREENSHOT_DIR set, and copied there (how docs/img/ is refreshed): one
// browser run per page otherwise.
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

// The DOM of `url` (a file:// URL, a #fragment allowed) once its scripts ran, laid out in a
// window `size` big.
inline CommandRun dump_dom(const std::string& chromium, const std::string& url, const std::filesystem::path& profile,
                           const std::string& size = "1400,1000") {
  std::vector<std::string> argv = chromium_argv(chromium, profile);
  argv.insert(argv.end(), {"--window-size=" + size, "--hide-scrollbars", "--dump-dom", url});
  return run_command(argv, std::chrono::seconds(120));
}

// `page` with a probe script run after the page's own: `script` may call set(name, value), which
// writes data-probe-NAME on <body>; set('overflow', …) is always written: how many pixels the page
// is wider than the window. The page's CSP is widened to let the probe run (in the test's copy only).
inline std::string with_probe(std::string page, const std::string& script) {
  const std::string csp = "default-src 'none'; style-src 'unsafe-inline'";
  const std::size_t at = page.find(csp);
  if (at != std::string::npos && std::string_view(page).substr(at + csp.size()).substr(0, 12) != "; script-src")
    page.insert(at + csp.size(), "; script-src 'unsafe-inline'");
  const std::string probe = "<script>(function(){var b=document.body,d=document.documentElement;"
                            "function set(k,v){b.setAttribute('data-probe-'+k,String(v));}\n" +
                            script + "\nset('overflow',d.scrollWidth-d.clientWidth);})();</script>\n";
  const std::size_t end = page.rfind("</body>");
  page.insert(end == std::string::npos ? page.size() : end, probe);
  return page;
}

// The value the probe wrote as data-probe-`name` ("" when it wrote none).
inline std::string probe(const std::string& dom, const std::string& name) {
  const std::string key = "data-probe-" + name + "=\"";
  const std::size_t at = dom.find(key);
  if (at == std::string::npos) return {};
  const std::size_t start = at + key.size();
  return dom.substr(start, dom.find('"', start) - start);
}
inline double probe_number(const std::string& dom, const std::string& name) {
  const std::string v = probe(dom, name);
  return v.empty() ? -1e9 : std::stod(v);
}

inline bool screenshots_wanted() {
  const char* dir = std::getenv("MSPTK_SCREENSHOT_DIR");
  return dir && *dir;
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
