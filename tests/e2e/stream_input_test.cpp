// Inputs that can be read only once: a pipe, a FIFO, bash's `<(...)`. Every verb that takes a
// file either reads it once and says what it says of the same file (validate, normalize,
// coverage, wire-log, show's --wire-log), or refuses it before reading with exit 3 naming it
// (show and diff read their input more than once): never a silent "0 frames", never a hang.
#include "e2e_support.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace msptk::e2e {
namespace {

namespace fs = std::filesystem;

const fs::path kSession = fs::path(MSPTK_SOURCE_DIR) / "tests/golden/show/session";

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) text.replace(at, from.size(), to);
  return text;
}

// A FIFO a thread writes `data` into once a reader opens it. drain() after the command under
// test exits lets the writer finish whatever the command did (read all, part or none of it).
class Fifo {
 public:
  Fifo(const fs::path& path, std::string data) : path_(path), data_(std::move(data)) {
    EXPECT_EQ(::mkfifo(path_.c_str(), 0600), 0);
    writer_ = std::thread([this] {
      const int fd = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd >= 0) {
        std::size_t done = 0;
        while (done < data_.size()) {
          const ssize_t n = ::write(fd, data_.data() + done, data_.size() - done);
          if (n <= 0) break;  // EPIPE: the reader went away
          done += static_cast<std::size_t>(n);
        }
        ::close(fd);
      }
      finished_ = true;
    });
  }
  ~Fifo() { drain(); }
  const fs::path& path() const { return path_; }

  void drain() {
    if (!writer_.joinable()) return;
    const int fd = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);  // lets a blocked open return
    char buffer[65536];
    while (!finished_) {
      pollfd p{fd, POLLIN, 0};
      ::poll(&p, 1, 50);
      if (::read(fd, buffer, sizeof buffer) < 0 && errno != EAGAIN) break;
    }
    writer_.join();
    ::close(fd);
  }

 private:
  fs::path path_;
  std::string data_;
  std::atomic<bool> finished_{false};
  std::thread writer_;
};

class StreamInputE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    std::signal(SIGPIPE, SIG_IGN);
    dir_ = fs::temp_directory_path() / ("msptk-stream-input-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // A clean transcript (every line a frame) outside its scenario folder: read alone, as a stream is.
    clean_ = dir_ / "clean.ndjson";
    fs::copy_file(fs::path(MSPTK_SOURCE_DIR) / "corpus/framing-cr-terminated-client-frames/transcript.ndjson", clean_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `args` with "@" standing for the input: run on `file` itself, through `cat file |` as
  // /dev/stdin, through a FIFO and through bash's <(cat file).
  struct Runs {
    CommandRun file, pipe, fifo, substitution;
    std::string fifo_path;
  };
  Runs run_all(const std::vector<std::string>& args, const fs::path& file) {
    Runs runs;
    auto with = [&](const std::string& input) {
      std::vector<std::string> argv{msptk_bin()};
      for (const std::string& a : args) argv.push_back(a == "@" ? input : a);
      return argv;
    };
    auto shell_words = [](const std::vector<std::string>& argv) {
      std::string line;
      for (const std::string& a : argv) line += (line.empty() ? "" : " ") + ("'" + a + "'");
      return line;
    };
    runs.file = run_command(with(file.string()));
    runs.pipe = run_command({"/bin/sh", "-c", "cat '" + file.string() + "' | " + shell_words(with("/dev/stdin"))});
    {
      Fifo fifo(dir_ / "input.fifo", slurp(file));
      runs.fifo_path = fifo.path().string();
      runs.fifo = run_command(with(fifo.path().string()), std::chrono::seconds(20));
      fifo.drain();
      fs::remove(fifo.path());
    }
    std::string sub = shell_words(with("@SUB@"));
    sub = replace_all(sub, "'@SUB@'", "<(cat '" + file.string() + "')");
    runs.substitution = run_command({"/bin/bash", "-c", sub});
    return runs;
  }

  // A verb that reads its input once: the same exit, output and errors as from the file, the
  // input's name aside.
  void expect_read_once(const std::vector<std::string>& args, const fs::path& file) {
    const Runs runs = run_all(args, file);
    ASSERT_FALSE(runs.file.out.empty() && runs.file.err.empty());
    const std::string expected = replace_all(runs.file.out + "\n--\n" + runs.file.err, file.string(), "INPUT");
    for (const auto& [name, run, input] : {std::tuple{"pipe", &runs.pipe, std::string("/dev/stdin")},
                                           std::tuple{"fifo", &runs.fifo, runs.fifo_path},
                                           std::tuple{"<(...)", &runs.substitution, std::string("/dev/fd/")}}) {
      EXPECT_FALSE(run->timed_out) << name;
      EXPECT_EQ(run->exit.code, runs.file.exit.code) << name << ": " << run->err;
      std::string seen = run->out + "\n--\n" + run->err;
      if (name == std::string("<(...)")) {  // /dev/fd/63: its number is bash's
        for (std::size_t at; (at = seen.find("/dev/fd/")) != std::string::npos;) {
          std::size_t end = at + 8;
          while (end < seen.size() && std::isdigit(static_cast<unsigned char>(seen[end]))) ++end;
          seen.replace(at, end - at, "INPUT");
        }
      } else {
        seen = replace_all(seen, input, "INPUT");
      }
      EXPECT_EQ(seen, expected) << name << " " << args.front();
    }
  }

  // A verb that reads its input more than once: exit 3 naming the input, before reading it.
  void expect_refused(const std::vector<std::string>& args, const fs::path& file) {
    const Runs runs = run_all(args, file);
    EXPECT_EQ(runs.file.exit.code, 0) << runs.file.err;
    for (const auto& [name, run, input] : {std::tuple{"pipe", &runs.pipe, std::string("/dev/stdin")},
                                           std::tuple{"fifo", &runs.fifo, runs.fifo_path},
                                           std::tuple{"<(...)", &runs.substitution, std::string("/dev/fd/")}}) {
      EXPECT_FALSE(run->timed_out) << name;
      EXPECT_EQ(run->exit.code, 3) << name << ": " << run->out << run->err;
      EXPECT_NE(run->err.find("msptk: error: " + input), std::string::npos) << name << ": " << run->err;
      EXPECT_NE(run->err.find("reads its input more than once"), std::string::npos) << name << ": " << run->err;
      EXPECT_EQ(run->out, "") << name;
    }
  }

  fs::path dir_, clean_;
};

TEST_F(StreamInputE2E, ShowRefusesAStreamItWouldReadTwice) {
  expect_refused({"show", "@", "--width", "0"}, kSession / "transcript.ndjson");
  expect_refused({"show", "@", "--frame", "3"}, kSession / "transcript.ndjson");
}

TEST_F(StreamInputE2E, DiffRefusesAStreamOnEitherSide) {
  expect_refused({"diff", clean_.string(), "@"}, clean_);
  expect_refused({"diff", "@", clean_.string()}, clean_);
}

TEST_F(StreamInputE2E, ValidateNormalizeAndWireLogReadAStreamOnce) {
  expect_read_once({"validate", "@"}, clean_);
  expect_read_once({"normalize", "@"}, clean_);
  expect_read_once({"wire-log", "@"}, kSession / "wire.log");
  expect_read_once({"wire-log", (kSession / "wire.log").string(), "--check", "@"}, kSession / "transcript.ndjson");
  expect_read_once({"show", (kSession / "transcript.ndjson").string(), "--width", "0", "--wire-log", "@"},
                   kSession / "wire.log");
}

TEST_F(StreamInputE2E, CoverageReadsAStreamOnce) {
  const fs::path bundle = fs::path(MSPTK_SHARED_CORPUS) / "stable";
  if (!fs::exists(bundle / "msp.schema.json")) GTEST_SKIP() << "skipped: the public corpus is not beside the project";
  expect_read_once({"coverage", "@", "--schema", bundle.string()}, kSession / "transcript.ndjson");
}

}  // namespace
}  // namespace msptk::e2e
