// Bounded memory in the recorder (issue 10, defect 2): SHA-256, incremental UTF-8 validation,
// the PendingFrame that spills to disk, transcript lines streamed from a spill file (the same
// bytes as canonical_line), the Tee keeping an unterminated tail in its side file, and every
// write of a recording checked through the Disk seam (a failing disk is exit 3, whole lines
// only, never a silent truncation).
#include "pipe_host.hpp"
#include "test_support.hpp"

#include "msptk/process/fd_io.hpp"
#include "msptk/recorder/disk.hpp"
#include "msptk/recorder/pending_frame.hpp"
#include "msptk/recorder/recorder.hpp"
#include "msptk/recorder/tee.hpp"
#include "msptk/transcript/manifest.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/sha256.hpp"
#include "msptk/transcript/writer.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <fcntl.h>
#include <random>
#include <unistd.h>

namespace msptk::recorder {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, PiecesOfAnySizeGiveTheSameDigest) {
  std::mt19937 rng(7);
  std::string data(5000, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  for (int round = 0; round < 20; ++round) {
    Sha256 digest;
    for (std::size_t at = 0; at < data.size();) {
      const std::size_t n = std::min<std::size_t>(rng() % 130, data.size() - at);
      digest.update(std::string_view(data).substr(at, n));
      at += n;
    }
    EXPECT_EQ(digest.hex(), sha256_hex(data));
  }
}

TEST(Utf8Stream, AgreesWithWholeValidationWhereverThePiecesAreCut) {
  const std::vector<std::string> texts = {"plain", "h\xC3\xA9llo \xE2\x98\x83 \xF0\x9F\x98\x80!", "bad \xFF here",
                                          "cut \xE2\x98", "\xC3", "\xE2\x98\x83\xC3\xA9", "over\xC0\xAF", "\xED\xA0\x80"};
  for (const std::string& text : texts) {
    for (std::size_t cut1 = 0; cut1 <= text.size(); ++cut1) {
      for (std::size_t cut2 = cut1; cut2 <= text.size(); ++cut2) {
        Utf8Stream s;
        s.feed(std::string_view(text).substr(0, cut1));
        s.feed(std::string_view(text).substr(cut1, cut2 - cut1));
        s.feed(std::string_view(text).substr(cut2));
        EXPECT_EQ(s.valid(), is_valid_utf8(text)) << text << " cut at " << cut1 << "," << cut2;
      }
    }
  }
}

TEST(PendingFrame, StaysInMemoryUpToItsLimitThenSpillsAsBytesCome) {
  TempDir tmp;
  PendingFrame frame(&system_disk(), tmp / "server.partial", 16);
  ASSERT_TRUE(frame.append("0123456789"));
  EXPECT_FALSE(frame.spilled());
  EXPECT_FALSE(fs::exists(tmp / "server.partial"));
  std::string all = "0123456789";
  for (int i = 0; i < 50; ++i) {
    const std::string piece = "piece-" + std::to_string(i) + "-\xC3\xA9";
    ASSERT_TRUE(frame.append(piece));
    all += piece;
  }
  EXPECT_TRUE(frame.spilled());
  EXPECT_EQ(frame.bytes(), "");  // nothing held
  EXPECT_EQ(frame.size(), all.size());
  EXPECT_EQ(frame.head(), all.substr(0, kEdgeBytes));
  EXPECT_EQ(frame.tail(), all.substr(all.size() - kEdgeBytes));
  EXPECT_EQ(frame.sha256(), sha256_hex(all));
  EXPECT_TRUE(frame.valid_utf8());
  ASSERT_TRUE(frame.close_spill());
  EXPECT_EQ(test::read_text(tmp / "server.partial"), all);
  frame.reset();
  EXPECT_FALSE(fs::exists(tmp / "server.partial"));
  EXPECT_TRUE(frame.empty());
}

// take_bytes hands the held frame on and leaves the PendingFrame empty, ready for the next one.
TEST(PendingFrame, TakeBytesMovesTheFrameOutAndKeepsNoBuffer) {
  PendingFrame frame(nullptr, {}, 0);
  const std::string big(3u << 20, 'x');
  ASSERT_TRUE(frame.append(big));
  ASSERT_TRUE(frame.append("\xC3\xA9"));
  EXPECT_EQ(frame.take_bytes(), big + "\xC3\xA9");
  EXPECT_TRUE(frame.empty());
  EXPECT_EQ(frame.size(), 0u);
  EXPECT_EQ(frame.bytes(), "");
  ASSERT_TRUE(frame.append("next"));
  EXPECT_EQ(frame.bytes(), "next");
  EXPECT_EQ(frame.sha256(), sha256_hex("next"));
}

// The line write_spilled_line streams equals canonical_line + LF, for text and for bytes that
// are not UTF-8 (found while the text is escaped: the line is then cut back and written
// again), whatever the size and wherever the bad byte (pieces of 192 KiB are read back).
TEST(SpilledLine, EqualsTheCanonicalLine) {
  TempDir tmp;
  auto check = [&](const std::string& bytes, const std::string& what) {
    PendingFrame frame(&system_disk(), tmp / "f.partial", 16);
    for (std::size_t at = 0; at < bytes.size(); at += 777) ASSERT_TRUE(frame.append(std::string_view(bytes).substr(at, 777)));
    ASSERT_TRUE(frame.close_spill());
    auto out = system_disk().create(tmp / "line", fs::perms::owner_read | fs::perms::owner_write);
    ASSERT_TRUE(out);
    ASSERT_TRUE((*out)->write("a line before\n"));
    auto written = write_spilled_line(Direction::server, frame, **out);
    ASSERT_TRUE(written);
    EXPECT_EQ(*written, is_valid_utf8(bytes)) << what;
    EXPECT_EQ(frame.valid_utf8(), is_valid_utf8(bytes)) << what;
    ASSERT_TRUE((*out)->close());
    EXPECT_EQ(test::read_text(tmp / "line"), "a line before\n" + canonical_line(Direction::server, bytes) + "\n") << what;
    frame.reset();
  };
  std::mt19937 rng(11);
  for (std::size_t size : {100u, 49151u, 49152u, 49153u, 196607u, 196608u, 196609u, 600000u}) {
    for (bool binary : {false, true}) {
      std::string bytes;
      while (bytes.size() < size) {
        if (binary && rng() % 50 == 0) bytes += static_cast<char>(0x80 + rng() % 0x80);
        else if (rng() % 7 == 0) bytes += "\xE2\x98\x83";
        else if (rng() % 11 == 0) bytes += "\"\\\t";
        else bytes += static_cast<char>('a' + rng() % 26);
      }
      check(bytes, std::to_string(size) + (binary ? " binary" : " text"));
      // One bad byte in the last piece, and a sequence cut short at the very end.
      check(bytes + "\xFF", std::to_string(size) + " then 0xFF");
      check(bytes + "\xE2\x98", std::to_string(size) + " then a cut sequence");
    }
  }
}

struct MemorySink final : FrameSink {
  std::vector<std::pair<Direction, std::string>> frames;
  Result<void> append(Direction dir, std::string_view bytes) override {
    frames.emplace_back(dir, std::string(bytes));
    return {};
  }
};

TEST(TeeSpill, AFrameOverTheMemoryLimitIsRecordedWholeAndItsTailKeptInASideFile) {
  TempDir tmp;
  MemorySink sink;
  Tee tee(sink, 100, Spill{&system_disk(), tmp.path(), 64});
  const std::string big(1000, 'x');
  for (std::size_t at = 0; at < big.size(); at += 100) tee.feed(Direction::server, std::string_view(big).substr(at, 100));
  tee.feed(Direction::server, "\n{\"small\":1}\nunterminated " + std::string(500, 'y'));
  tee.close(Direction::server);
  ASSERT_EQ(sink.frames.size(), 2u);
  EXPECT_EQ(sink.frames[0].second, big);  // read back by the default append_spilled
  EXPECT_EQ(sink.frames[1].second, "{\"small\":1}");
  ASSERT_EQ(tee.flagged().size(), 1u);
  EXPECT_EQ(tee.flagged()[0].reason, "oversized");
  const Unterminated& tail = tee.stats(Direction::server).tail;
  EXPECT_EQ(tail.bytes, 513u);
  EXPECT_EQ(tail.file, "server-unterminated.bin");
  EXPECT_EQ(test::read_text(tmp / "server-unterminated.bin"), "unterminated " + std::string(500, 'y'));
  EXPECT_EQ(tail.sha256, sha256_hex("unterminated " + std::string(500, 'y')));
  EXPECT_FALSE(fs::exists(tmp / "server.partial"));
  EXPECT_FALSE(tee.failure());
}

// A Disk whose files fail with ENOSPC once `budget` bytes were written in all (a full disk).
class FullDisk final : public Disk {
 public:
  explicit FullDisk(std::uint64_t budget) : budget_(budget) {}
  Result<std::unique_ptr<OutFile>> create(const fs::path& path, fs::perms perms) override {
    auto file = system_disk().create(path, perms);
    if (!file) return file;
    return std::unique_ptr<OutFile>(std::make_unique<File>(std::move(*file), *this));
  }
  Result<std::unique_ptr<OutFile>> create_unnamed(const fs::path& dir, const fs::path& label, fs::perms perms) override {
    auto file = system_disk().create_unnamed(dir, label, perms);
    if (!file) return file;
    return std::unique_ptr<OutFile>(std::make_unique<File>(std::move(*file), *this));
  }
  Result<void> rename(const fs::path& from, const fs::path& to) override { return system_disk().rename(from, to); }
  void remove(const fs::path& path) override { system_disk().remove(path); }
  Result<void> sync_dir(const fs::path& dir) override { return system_disk().sync_dir(dir); }
  void fill() { budget_ = 0; }

 private:
  class File final : public OutFile {
   public:
    File(std::unique_ptr<OutFile> real, FullDisk& disk) : real_(std::move(real)), disk_(disk) {}
    Result<void> write(std::string_view bytes) override {
      const std::size_t fits = static_cast<std::size_t>(std::min<std::uint64_t>(bytes.size(), disk_.budget_));
      disk_.budget_ -= fits;
      if (auto ok = real_->write(bytes.substr(0, fits)); !ok) return ok;
      if (fits < bytes.size())
        return Error::unreadable(real_->path().string(), "cannot write: No space left on device");
      return {};
    }
    Result<void> sync() override { return real_->sync(); }
    Result<void> truncate(std::uint64_t size) override { return real_->truncate(size); }
    Result<void> close() override { return real_->close(); }
    const fs::path& path() const override { return real_->path(); }
    std::uint64_t size() const override { return real_->size(); }
    int descriptor() const override { return real_->descriptor(); }

   private:
    std::unique_ptr<OutFile> real_;
    FullDisk& disk_;
  };
  std::uint64_t budget_;
};

// The client's stdin (a pipe holding `bytes`, then EOF) and stdout/stderr to /dev/null.
struct Client {
  int in[2];
  int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  explicit Client(const std::string& bytes) {
    EXPECT_EQ(::pipe2(in, O_CLOEXEC), 0);
    std::thread([fd = in[1], bytes] {
      (void)process::write_all(fd, bytes);
      ::close(fd);
    }).detach();
  }
  ~Client() {
    ::close(in[0]);
    ::close(null_fd);
  }
  Wiring wiring() const { return Wiring{in[0], null_fd, null_fd, {}, {}}; }
};

Result<RecordOutcome> record_through(Disk& disk, const fs::path& out, const std::string& client_bytes) {
  static const SystemClock clock;
  Client client(client_bytes);
  RecordEnv env;
  env.clock = &clock;
  env.wiring = client.wiring();
  env.handle_signals = false;
  env.disk = &disk;
  env.spawn = [](const process::SpawnSpec&) -> Result<std::unique_ptr<process::HostProcess>> {
    return std::unique_ptr<process::HostProcess>(std::make_unique<test::PipeHost>([](int in, int, int, const auto&) {
      char buffer[4096];
      while (!process::read_some(in, buffer, sizeof buffer).eof) {
      }
      return process::ExitStatus{0, 0};
    }));
  };
  RecordOptions options;
  options.out = out;
  options.host_argv = {"host"};
  return record(options, env);
}

std::string client_lines(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += R"({"jsonrpc":"2.0","method":"note","params":{"i":)" + std::to_string(i) + "}}\n";
  return out;
}

TEST(RecorderDisk, AFullDiskIsARecordingFailureAndTheTranscriptKeepsWholeLines) {
  TempDir tmp;
  FullDisk disk(20000);  // the manifest, then part of the transcript
  auto outcome = record_through(disk, tmp / "rec", client_lines(2000));
  ASSERT_TRUE(outcome) << outcome.error().render();
  ASSERT_TRUE(outcome->recording_failure);
  EXPECT_NE(outcome->recording_failure->render().find("No space left on device"), std::string::npos);
  EXPECT_EQ(exit_code(outcome->recording_failure->kind), 3);
  const std::string transcript = test::read_text(tmp / "rec" / "transcript.ndjson");
  ASSERT_FALSE(transcript.empty());
  EXPECT_EQ(transcript.back(), '\n') << "a half line was left";
  auto frames = read_transcript(tmp / "rec" / "transcript.ndjson");
  ASSERT_TRUE(frames) << frames.error().render();
  EXPECT_GT(frames->size(), 10u);
  EXPECT_LT(frames->size(), 2000u);
  // The manifest on disk is the first one (the last could not be written): still readable.
  EXPECT_TRUE(read_manifest(tmp / "rec" / "manifest.json"));
}

TEST(RecorderDisk, AFullDiskWhileSpillingIsARecordingFailure) {
  TempDir tmp;
  FullDisk disk(30000);
  auto outcome = record_through(disk, tmp / "rec", std::string(5 << 20, 'z'));  // no LF: the tail spills
  ASSERT_TRUE(outcome) << outcome.error().render();
  ASSERT_TRUE(outcome->recording_failure);
  EXPECT_NE(outcome->recording_failure->render().find("No space left on device"), std::string::npos);
}

// A spilled frame's SHA-256 is read from its spill file when asked; once a write to the file
// failed (the file lacks bytes) it is kept as the bytes come: the digest of every byte either way.
TEST(PendingFrame, TheDigestCoversEveryByteEvenWhenTheSpillFileCouldNotTakeThemAll) {
  for (std::uint64_t budget : {0ull, 10ull, 100ull, 5000ull, 1ull << 40}) {
    TempDir tmp;
    FullDisk disk(budget);
    PendingFrame frame(&disk, tmp / "client.partial", 64);
    std::string all;
    bool failed = false;
    for (int i = 0; i < 200; ++i) {
      const std::string piece = "piece " + std::to_string(i) + std::string(static_cast<std::size_t>(i % 7), 'q');
      if (!frame.append(piece)) failed = true;
      all += piece;
    }
    EXPECT_TRUE(frame.spilled());
    EXPECT_EQ(failed, budget < all.size()) << budget;
    EXPECT_EQ(frame.size(), all.size());
    EXPECT_EQ(frame.sha256(), sha256_hex(all)) << "budget " << budget;
    EXPECT_EQ(frame.head(), all.substr(0, kEdgeBytes));
    EXPECT_EQ(frame.tail(), all.substr(all.size() - kEdgeBytes));
    (void)frame.close_spill();
    if (!failed) {
      EXPECT_EQ(test::read_text(tmp / "client.partial"), all);
    }
  }
}

TEST(RecorderDisk, ANormalRecordingKeepsTheTailInItsSideFile) {
  TempDir tmp;
  FullDisk disk(1ull << 40);
  auto outcome = record_through(disk, tmp / "rec", client_lines(3) + std::string(3 << 20, 'z'));
  ASSERT_TRUE(outcome) << outcome.error().render();
  EXPECT_FALSE(outcome->recording_failure);
  EXPECT_EQ(fs::file_size(tmp / "rec" / "client-unterminated.bin"), 3u << 20);
  auto manifest = read_manifest(tmp / "rec" / "manifest.json");
  ASSERT_TRUE(manifest);
  const auto& tail = manifest->manifest.capture->at("client").at("unterminated");
  EXPECT_EQ(tail.at("bytes"), 3u << 20);
  EXPECT_EQ(tail.at("sha256"), boost::json::value(sha256_hex(std::string(3 << 20, 'z'))));
  EXPECT_EQ(tail.at("file"), "client-unterminated.bin");
  EXPECT_EQ(read_transcript(tmp / "rec" / "transcript.ndjson")->size(), 3u);
}

}  // namespace
}  // namespace msptk::recorder

namespace msptk::recorder {
namespace {

// Every file under `dir` (recursively) that holds `secret`.
std::vector<fs::path> files_holding(const fs::path& dir, const std::string& secret) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file() && test::read_text(entry.path()).find(secret) != std::string::npos)
      out.push_back(entry.path());
  return out;
}

Redactor redacting(std::vector<std::string> paths) {
  auto r = Redactor::create(paths);
  EXPECT_TRUE(r);
  return std::move(*r);
}

// Issue 24, item 8: under --redact a frame in progress over the memory limit spills to a file
// without a name, so no file of the folder ever holds its bytes before they are redacted.
TEST(TeeSpill, UnderRedactTheFrameInProgressSpillsToAFileWithoutAName) {
  TempDir tmp;
  MemorySink sink;
  Redactor redactor = redacting({"params.apiKey"});
  Tee tee(sink, 1 << 30, Spill{&system_disk(), tmp.path(), 256});
  tee.redact_with(&redactor);
  const std::string head = R"({"jsonrpc":"2.0","method":"login","params":{"apiKey":"sk-live-4242","pad":")";
  tee.feed(Direction::client, head);
  for (int i = 0; i < 64; ++i) tee.feed(Direction::client, std::string(4096, 'p'));
  EXPECT_EQ(files_holding(tmp.path(), "sk-live-4242"), std::vector<fs::path>{});
  EXPECT_FALSE(fs::exists(tmp / "client.partial"));
  EXPECT_TRUE(fs::is_empty(tmp.path()));
  tee.feed(Direction::client, "\"}}\n");
  ASSERT_EQ(sink.frames.size(), 1u);
  EXPECT_EQ(sink.frames[0].second.find("sk-live-4242"), std::string::npos);
  EXPECT_NE(sink.frames[0].second.find(R"("apiKey":"<redacted:1>")"), std::string::npos);
  EXPECT_EQ(sink.frames[0].second.size(), head.size() + 64 * 4096 + 3 - std::string("sk-live-4242").size() +
                                              std::string("<redacted:1>").size());
  EXPECT_FALSE(tee.failure());
}

// Issue 24, item 8: an unterminated tail under --redact is kept redacted where it parses as a
// JSON object, otherwise withheld (size and SHA-256 only, a warning), in memory or spilled.
TEST(TeeSpill, UnderRedactAnUnterminatedTailIsRedactedWhereItParsesElseWithheld) {
  for (std::size_t memory_limit : {std::size_t{1} << 20, std::size_t{16}}) {
    TempDir tmp;
    MemorySink sink;
    Redactor redactor = redacting({"result.token"});
    Tee tee(sink, 1 << 30, Spill{&system_disk(), tmp.path(), memory_limit});
    tee.redact_with(&redactor);
    // The server finished its JSON but not its line; the client died inside its frame.
    const std::string whole = R"({"jsonrpc":"2.0","id":1,"result":{"token":"tok-secret-77","n":1}})";
    const std::string cut = R"({"jsonrpc":"2.0","id":2,"result":{"token":"tok-secret-88","n":)";
    tee.feed(Direction::server, whole);
    tee.feed(Direction::client, cut);
    tee.close(Direction::server);
    tee.close(Direction::client);
    EXPECT_EQ(files_holding(tmp.path(), "tok-secret"), std::vector<fs::path>{}) << memory_limit;
    const std::string redacted = R"({"jsonrpc":"2.0","id":1,"result":{"token":"<redacted:1>","n":1}})";
    const Unterminated& kept = tee.stats(Direction::server).tail;
    EXPECT_FALSE(kept.withheld);
    EXPECT_EQ(kept.file, "server-unterminated.bin");
    EXPECT_EQ(test::read_text(tmp / "server-unterminated.bin"), redacted);
    EXPECT_EQ(kept.bytes, redacted.size());
    EXPECT_EQ(kept.sha256, sha256_hex(redacted));
    EXPECT_EQ(kept.head, redacted.substr(0, kEdgeBytes));
    const Unterminated& withheld = tee.stats(Direction::client).tail;
    EXPECT_TRUE(withheld.withheld);
    EXPECT_EQ(withheld.file, "");
    EXPECT_FALSE(fs::exists(tmp / "client-unterminated.bin"));
    EXPECT_EQ(withheld.head, "");
    EXPECT_EQ(withheld.tail, "");
    EXPECT_EQ(withheld.bytes, cut.size());
    EXPECT_EQ(withheld.sha256, sha256_hex(cut));
    ASSERT_EQ(redactor.warnings().size(), 1u);
    EXPECT_EQ(redactor.warnings()[0].file, "manifest.json");
    EXPECT_NE(redactor.warnings()[0].message.find("client frame left unfinished (" + std::to_string(cut.size()) +
                                                  " bytes after the last LF)"),
              std::string::npos)
        << redactor.warnings()[0].message;
    EXPECT_FALSE(tee.failure());
  }
}

}  // namespace
}  // namespace msptk::recorder
