// A CoverageMap says how much of a schema bundle's protocol surface a corpus exercises: for
// every row of every table of the bundle — each method (client requests), server request and
// notification, each error code of the errors registry, each grantable capability, each enum
// of `$defs` and each item kind — which scenarios and how many frames use it, and for methods
// how many success and error responses answer them and with which error codes/kinds. Enum
// rows say which values were seen and which never; what the corpus uses that the bundle does
// not have (unknown methods, codes, enum values, capabilities) is listed apart.
//
// It is computed from the frames alone (no validation): each scenario's transcript and legs
// files are read line by line, requests and responses paired by the transcript's Correlator,
// and enum values found by walking each params/result alongside its schema (schema::Bundle::
// visit_enums). A row is "covered" when at least one frame uses it (an enum row: at least one
// of its values seen). Results are data; render.hpp writes text, JSON and HTML.
#pragma once

#include "msptk/schema/bundle.hpp"
#include "msptk/transcript/error.hpp"

#include <cstddef>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace msptk::coverage {

struct Row {
  std::string name;                 // "session/start", "-32600 invalidRequest", "ItemKind", "userShell"
  std::size_t frames = 0;           // frames that use it
  std::set<std::string> scenarios;  // scenario ids that use it
  // Methods and server requests: responses answering them.
  std::size_t successes = 0, errors = 0;
  std::map<std::string, std::size_t> error_codes;  // "-32030 commandRejected" -> responses
  // Enums: each value of the enum and how often it was seen (0 = never).
  std::map<std::string, std::size_t> values;
  std::string detail;  // e.g. "open" / "closed" for enums

  bool covered() const { return frames > 0; }
};

struct Table {
  std::string id;     // "methods", "requests", "notifications", "errors", "capabilities", "enums", "itemKinds"
  std::string title;  // "Methods (client requests)"
  std::vector<Row> rows;  // in bundle order (sorted by name)

  std::size_t covered() const;
};

// Something the corpus uses that the bundle does not have.
struct Unknown {
  std::string what;   // "notification", "method", "server request", "error code", "enum value", "capability"
  std::string name;   // "session/auraChanged", "-32099", "ItemKind: hologramPreview"
  std::size_t frames = 0;
  std::set<std::string> scenarios;
};

struct ScenarioInfo {
  std::string id;
  std::string path;  // the folder (or transcript file) as given
  std::size_t frames = 0;
};

struct CoverageMap {
  std::string bundle;  // the bundle file
  std::vector<Table> tables;
  std::vector<Unknown> unknown;
  std::vector<ScenarioInfo> scenarios;
  std::vector<Error> problems;  // what could not be read

  const Table* table(std::string_view id) const;
  // "methods 31/57, requests 2/2, notifications 22/35, …".
  std::string summary() const;
};

// Reads every PATH (scenario folder, corpus folder, or transcript file) and maps it onto
// `bundle`. Unreadable inputs become problems; the map covers the rest.
CoverageMap compute_coverage(const std::vector<std::filesystem::path>& paths, const schema::Bundle& bundle);

}  // namespace msptk::coverage
