// A Bundle is an MSP schema bundle (msp.schema.json, e.g. ../shared/msp-corpus/stable/), loaded
// once and shared by every module that asks what the protocol says. A bundle is JSON Schema
// 2020-12 plus MSP tables:
//   methods        client requests       {name: {params: schema, result: schema}}
//   requests       server requests       {name: {params: schema, result: schema}} (may be absent)
//   notifications  either direction      {name: {params: schema}}
//   errors         [{code, kind, overrideKinds?, retryable?}]: the error registry
//   capabilities   {grantable: [name…]}
//   $defs          named schemas; enums carry "x-msp-openness": "open" | "closed"
//
// The Bundle answers the table questions (is this method known, what does error code N mean,
// which enums exist and how open they are) and validates instances: `validate` checks a value
// against the schema at a JSON pointer of the bundle (a method's params or result, or any
// `#/$defs/…`) with a real JSON Schema validator (valijson), and returns the Violations as
// data. Each schema is compiled once, on first use, and kept; a Bundle is cheap to copy (copies
// share the compiled schemas) and safe to use from several threads.
//
// valijson implements draft 7. Before compiling, the bundle is rewritten into the equivalent
// draft-7 spelling (translate.hpp): `dependentRequired` and `dependentSchemas` become
// `dependencies`, `prefixItems`/`items` become `items`/`additionalItems`, a `$ref` with sibling
// assertions becomes `allOf` (2020-12 applies both; draft 7 would ignore the siblings). A
// bundle using a 2020-12 keyword with no draft-7 equivalent (`unevaluatedProperties`,
// `$dynamicRef`, …) is refused when loaded, so nothing is ever silently unchecked.
#pragma once

#include "msptk/schema/violation.hpp"
#include "msptk/transcript/error.hpp"
#include "msptk/transcript/frame.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk::schema {

enum class Table { methods, requests, notifications };

// "methods", "requests", "notifications": the bundle's member names.
std::string_view to_string(Table table);

// The table a message sent by `dir` is looked up in: a notification in `notifications`, a
// client request in `methods`, a server request in `requests`.
Table table_for(Direction dir, FrameKind kind);

struct ErrorEntry {
  std::int64_t code = 0;
  std::string kind;                        // the error's data.kind
  std::vector<std::string> override_kinds;  // other data.kind values this code may carry
};

enum class Openness { open, closed, unmarked };
std::string_view to_string(Openness openness);

// An enumeration of the bundle: a `$defs` entry with `enum`.
struct EnumDef {
  std::string name;  // the $defs name
  std::vector<boost::json::value> values;
  Openness openness = Openness::unmarked;
};

class Bundle {
 public:
  // Loads `path`: an msp.schema.json, or a folder holding msp.schema.json (and manifest.json,
  // whose "fingerprint" the bundle then carries). Errors name the file.
  static Result<Bundle> load(const std::filesystem::path& path);
  static Result<Bundle> from_json(boost::json::value bundle, std::string file = "schema bundle",
                                  std::optional<std::string> fingerprint = std::nullopt);

  const std::string& file() const;
  // The fingerprint of the manifest.json beside the bundle, when there was one.
  const std::optional<std::string>& fingerprint() const;

  bool knows(Table table, std::string_view method) const;
  // The method names of a table, sorted.
  std::vector<std::string> methods(Table table) const;
  // The JSON pointer of a method's `params` or `result` schema, or nullptr when the bundle
  // gives none (valid as long as the bundle).
  const std::string* schema_pointer(Table table, std::string_view method, std::string_view part) const;
  // True when the bundle has a schema at `pointer` (e.g. "#/$defs/ErrorObject").
  bool has(std::string_view pointer) const;

  const ErrorEntry* error(std::int64_t code) const;
  const std::vector<ErrorEntry>& errors() const;
  bool has_error_table() const;
  std::vector<std::string> grantable_capabilities() const;
  // Every enum of `$defs`, sorted by name.
  std::vector<EnumDef> enums() const;
  // The enum named `name` in `$defs`, or nullptr.
  const EnumDef* find_enum(std::string_view name) const;

  // Validates `instance` against the schema at `pointer` (a JSON pointer fragment such as
  // "#/methods/session~1start/params"). `root` names the instance in violation paths
  // ("params", "result", "error"). An empty vector means the instance is valid. A schema that
  // cannot be compiled is one violation of kind `schema_unusable`; an instance nested deeper
  // than kMaxSchemaDepth is one violation of kind `too_deep` (not checked).
  std::vector<Violation> validate(std::string_view pointer, const boost::json::value& instance,
                                  std::string_view root) const;

  // Calls `visit(enum_name, value, known)` for every value of `instance` that sits at a
  // position whose schema is a `$defs` enum, walking the instance alongside the schema at
  // `pointer` ($ref, properties, additionalProperties, items, allOf; for anyOf/oneOf the
  // alternative the value satisfies, else the one its type selects). `known`: the value is
  // one of the enum's values. Used by coverage; never validates.
  void visit_enums(std::string_view pointer, const boost::json::value& instance,
                   const std::function<void(const std::string& enum_name, const boost::json::value& value, bool known)>&
                       visit) const;

  // The raw (untranslated) bundle document.
  const boost::json::value& document() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

// Where `validate --schema auto` finds bundles: every subfolder of a directory holding
// manifest.json + msp.schema.json, by fingerprint; the subfolder `stable` is the fallback
// for a fingerprint no bundle has.
class BundleSet {
 public:
  static Result<BundleSet> load(const std::filesystem::path& dir);

  // The bundle whose fingerprint is `fingerprint`, or nullptr.
  const Bundle* find(std::string_view fingerprint) const;
  const Bundle& stable() const { return bundles_[stable_]; }
  const std::vector<Bundle>& bundles() const { return bundles_; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::vector<Bundle> bundles_;
  std::size_t stable_ = 0;
};

}  // namespace msptk::schema
