// The StderrLog is DIR/host-stderr.log: the copy `msptk record` keeps of everything the host
// wrote to its stderr. Without --redact paths the bytes are appended as they come. Under
// --redact a host that echoes a secret (logs the request it got, prints the token it issued)
// would put on disk what the transcript had replaced, and the values to replace are known only
// once the frames holding them were seen, which may be after the host logged them. So the
// bytes are held in a file without a name (Disk::create_unnamed: a crash or a SIGKILL leaves
// nothing) until finish(), which writes host-stderr.log through a TextScrubber: every text of a
// value the Redactor replaced anywhere in the session (redactor.hpp `replaced_texts`) becomes
// its placeholder `<redacted:N>`. A line that still mentions a credential (the Redactor's word
// pre-check: token, secret, password, API key, account/) gets a CredentialWarning naming
// host-stderr.log and the line, like a frame with a credential in the clear.
//
// The first failure to write is kept and nothing more is written. Single-threaded.
#pragma once

#include "msptk/recorder/disk.hpp"
#include "msptk/recorder/redactor.hpp"

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace msptk::recorder {

// Replaces every occurrence of each text by its replacement in a stream cut anywhere: the
// leftmost occurrence first, the longest text where two start at one place; bytes that may
// begin an occurrence not yet complete are held back until more comes (or end()).
class TextScrubber {
 public:
  using Out = std::function<void(std::string_view)>;
  // Empty texts are ignored.
  explicit TextScrubber(std::vector<std::pair<std::string, std::string>> replacements);
  void feed(std::string_view bytes, const Out& out);
  void end(const Out& out);

 private:
  void drain(bool final, const Out& out);
  std::vector<std::pair<std::string, std::string>> replacements_;
  std::size_t longest_ = 0;
  std::string held_;
};

class StderrLog {
 public:
  // Creates DIR/host-stderr.log (0600) and, when `redactor` is active, the unnamed file that
  // holds the bytes until finish().
  static Result<StderrLog> create(Disk& disk, const std::filesystem::path& dir, Redactor* redactor);

  void write(std::string_view bytes);
  // Under --redact, writes the scrubbed log and adds its warnings to the Redactor; then fsync
  // and close.
  void finish();
  const std::optional<Error>& failure() const { return failure_; }

 private:
  StderrLog() = default;
  void scrub_into_log();
  std::unique_ptr<OutFile> log_;
  std::unique_ptr<OutFile> held_;  // under --redact: the bytes as the host wrote them
  Redactor* redactor_ = nullptr;
  std::optional<Error> failure_;
};

}  // namespace msptk::recorder
