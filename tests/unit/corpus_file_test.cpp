// The corpus file (normalizer/corpus_file.hpp): found walking up from a scenario folder (and
// not past the repository root), resolved with the built-in registry and --registry (which
// overrides), per-path comparisons and their typed checks, the refusal naming the file to
// declare a path in, record's path lists, and writing that keeps what a file declares.
#include "test_support.hpp"

#include "msptk/normalizer/corpus_file.hpp"
#include "msptk/normalizer/mask.hpp"
#include "msptk/normalizer/unifier.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace msptk {
namespace {

namespace fs = std::filesystem;

TEST(CorpusFile, IsFoundWalkingUpAndNotPastTheRepositoryRoot) {
  test::TempDir tmp;
  fs::create_directories(tmp / "repo" / ".git");
  fs::create_directories(tmp / "repo" / "corpus" / "s1");
  test::write_text(tmp / "msptk-corpus.json", R"({"paths": {}})");  // above the repository: not read
  EXPECT_FALSE(find_corpus_file(tmp / "repo" / "corpus" / "s1"));
  EXPECT_EQ(corpus_file_for(tmp / "repo" / "corpus" / "s1"), fs::absolute(tmp / "repo" / "corpus" / "msptk-corpus.json"));
  test::write_text(tmp / "repo" / "msptk-corpus.json", R"({"paths": {}})");
  EXPECT_EQ(find_corpus_file(tmp / "repo" / "corpus" / "s1"), fs::absolute(tmp / "repo" / "msptk-corpus.json"));
  test::write_text(tmp / "repo" / "corpus" / "msptk-corpus.json", R"({"paths": {}})");
  EXPECT_EQ(find_corpus_file(tmp / "repo" / "corpus" / "s1" / "not-yet"),
            fs::absolute(tmp / "repo" / "corpus" / "msptk-corpus.json"));
}

TEST(CorpusFile, ResolvesBuiltInThenTheFileThenRegistryWhichOverrides) {
  test::TempDir tmp;
  fs::create_directories(tmp / ".git");
  fs::create_directories(tmp / "corpus" / "s1");
  test::write_text(tmp / "corpus" / "msptk-corpus.json",
                   R"({"kind": "msptkCorpus", "paths": {"params.at": "rfc3339", "params.sessionId": "unify", "id": "erase"}})");
  Registry explicit_registry = Registry::builtin();
  ASSERT_TRUE(explicit_registry.declare("params.sessionId", PathCompare{MaskMode::erase, ValueCheck::uuid}));
  auto registry = resolve_registry(tmp / "corpus" / "s1", explicit_registry);
  ASSERT_TRUE(registry) << registry.error().render();
  EXPECT_TRUE(registry->contains("params.at"));
  EXPECT_EQ(registry->compare_of("params.at"), (PathCompare{MaskMode::erase, ValueCheck::rfc3339}));
  EXPECT_EQ(registry->compare_of("params.sessionId"), (PathCompare{MaskMode::erase, ValueCheck::uuid}));
  EXPECT_EQ(registry->compare_of("id").mode, MaskMode::erase);  // the built-in entry did not reset it
  EXPECT_EQ(registry->add_to(), fs::absolute(tmp / "corpus" / "msptk-corpus.json"));
  auto refused = refuse_normalize_entry(*registry, "params.other");
  ASSERT_TRUE(refused);
  // The file to declare it in (relative to the current folder when below it).
  EXPECT_NE(refused->message.find("corpus/msptk-corpus.json (or give --registry FILE)"), std::string::npos)
      << refused->message;
}

TEST(CorpusFile, AMalformedFileIsAnErrorNamingIt) {
  test::TempDir tmp;
  fs::create_directories(tmp / ".git");
  test::write_text(tmp / "msptk-corpus.json", "{\"paths\": {\"params.at\": \"sometimes\"}}");
  auto registry = resolve_registry(tmp / "s", Registry::builtin());
  ASSERT_FALSE(registry);
  EXPECT_EQ(registry.error().file, (tmp / "msptk-corpus.json").string());
  EXPECT_EQ(registry.error().rule, "corpus.compare");
}

TEST(CorpusFile, TypedChecksAcceptTheirTypeOnly) {
  EXPECT_TRUE(satisfies(ValueCheck::uuid, boost::json::value("0b9e2f4a-1c2d-4e5f-8a9b-0c1d2e3f4a5b")));
  EXPECT_FALSE(satisfies(ValueCheck::uuid, boost::json::value("0b9e2f4a")));
  EXPECT_TRUE(satisfies(ValueCheck::rfc3339, boost::json::value("2026-01-02T03:04:05.678Z")));
  EXPECT_TRUE(satisfies(ValueCheck::rfc3339, boost::json::value("2026-01-02T03:04:05+01:00")));
  EXPECT_FALSE(satisfies(ValueCheck::rfc3339, boost::json::value("2026-01-02")));
  EXPECT_FALSE(satisfies(ValueCheck::rfc3339, boost::json::value(nullptr)));
  EXPECT_TRUE(satisfies(ValueCheck::non_negative_integer, boost::json::value(0)));
  EXPECT_FALSE(satisfies(ValueCheck::non_negative_integer, boost::json::value(-1)));
  EXPECT_FALSE(satisfies(ValueCheck::non_negative_integer, boost::json::value("3")));
}

TEST(CorpusFile, AnErasedTypedPathComparesNoValueButItsType) {
  Registry registry = Registry::builtin();
  ASSERT_TRUE(registry.declare("params.at", PathCompare{MaskMode::erase, ValueCheck::non_negative_integer}));
  auto spec = make_mask_spec(registry, {"params.at"}, "m", 1, {}, MaskMode::unify);
  ASSERT_TRUE(spec);
  Unifier unifier{Masker(*spec)};
  const FrameRole role{Direction::server, FrameKind::notification, false};
  const MaskRule rule = unifier.masker().rule_for(role, "params.at", 2);
  EXPECT_EQ(rule.treatment, Treatment::erase);
  EXPECT_FALSE(unifier.compare(rule, boost::json::value(5), boost::json::value(900), 1, 1));
  auto note = unifier.compare(rule, boost::json::value(5), boost::json::value(nullptr), 2, 2);
  ASSERT_TRUE(note);
  EXPECT_NE(note->find("non-negative-integer"), std::string::npos) << *note;
}

TEST(CorpusFile, PathListsSkipCommentsAndNameTheBadLine) {
  test::TempDir tmp;
  test::write_text(tmp / "p.txt", "# minted\n\n  params.sessionId \nparams.items[].id\n");
  auto paths = read_path_list(tmp / "p.txt");
  ASSERT_TRUE(paths);
  EXPECT_EQ(*paths, (std::vector<std::string>{"params.sessionId", "params.items[].id"}));
  test::write_text(tmp / "bad.txt", "params.sessionId\nparams..x\n");
  auto bad = read_path_list(tmp / "bad.txt");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("bad.txt:2"), std::string::npos) << bad.error().message;
}

TEST(CorpusFile, WritingKeepsWhatTheFileDeclares) {
  test::TempDir tmp;
  const fs::path file = tmp / "msptk-corpus.json";
  ASSERT_TRUE(write_corpus_file(file, {{"params.a", PathCompare{}}}));
  ASSERT_TRUE(write_corpus_file(file, {{"params.b", PathCompare{MaskMode::erase, ValueCheck::none}}}));
  Registry registry;
  ASSERT_TRUE(registry.extend_from_file(file));
  EXPECT_TRUE(registry.contains("params.a"));
  EXPECT_EQ(registry.compare_of("params.b").mode, MaskMode::erase);
}

}  // namespace
}  // namespace msptk
