// A SchemaIndex is what the validator takes from an MSP schema bundle (msp.schema.json, e.g.
// ../shared/msp-corpus/stable/msp.schema.json): the method tables and the enums reachable
// from each method's params and result. The bundle is JSON Schema 2020-12 with three tables
//   methods        client requests       {name: {params: schema, result: schema}}
//   requests       server requests       {name: {params: schema, result: schema}}
//   notifications  either direction      {name: {params: schema}}
// and `$defs`, where enums are `{"enum": [...], "x-msp-openness": "open"|"closed"}`.
//
// It answers two questions, and only these: is this method known, and which string values in
// a message's params / result are not values of the enum their schema position names. To
// find enum positions it follows `$ref`, `properties`, `items` and, for `anyOf`, the first
// alternative whose `type` fits the value. It is not a schema validator: missing members,
// wrong types and patterns are not checked.
#pragma once

#include "msptk/transcript/error.hpp"
#include "msptk/transcript/frame.hpp"

#include <boost/json/value.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace msptk {

struct UnknownEnumValue {
  std::string location;  // concrete JSON location in the message, e.g. "params.item.kind"
  std::string value;
  std::string enum_name;  // the $defs name of the enum, e.g. "ItemKind"
  bool open = false;      // x-msp-openness: open
};

class SchemaIndex {
 public:
  enum class Table { client_requests, server_requests, notifications };

  // Loads a bundle; errors (unreadable, not JSON, no method tables) name the file.
  static Result<SchemaIndex> load(const std::filesystem::path& file);
  static Result<SchemaIndex> from_json(boost::json::value bundle, const std::string& file = "schema bundle");

  // The table a method sent by `dir` as a request (or a notification) is looked up in.
  static Table table_for(Direction dir, FrameKind kind);
  static std::string_view table_name(Table table);

  bool knows(Table table, std::string_view method) const;

  // Unknown enum values in `params` of `method` (under `location`, normally "params").
  std::vector<UnknownEnumValue> unknown_params_enums(Table table, std::string_view method,
                                                     const boost::json::value& params) const;
  // Unknown enum values in the `result` answering `method`.
  std::vector<UnknownEnumValue> unknown_result_enums(Table table, std::string_view method,
                                                     const boost::json::value& result) const;

  const std::string& file() const { return file_; }

 private:
  const boost::json::value* entry(Table table, std::string_view method, std::string_view part) const;
  void walk(const boost::json::value& schema, const boost::json::value& value, const std::string& location,
            std::vector<UnknownEnumValue>& out, int depth) const;
  const boost::json::value* resolve(const boost::json::value& schema, std::string* def_name) const;

  std::string file_;
  boost::json::value bundle_;
};

}  // namespace msptk
