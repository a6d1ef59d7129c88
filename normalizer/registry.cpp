#include "msptk/normalizer/registry.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/transcript/json_io.hpp"

#include <fmt/format.h>

namespace msptk {

Registry Registry::builtin() {
  Registry registry;
  for (const char* path : {"id", "params.commandId", "params.turnId", "params.itemId", "result.session.sessionId"}) {
    (void)registry.add(path);
  }
  return registry;
}

Result<void> Registry::add(std::string_view text) {
  auto path = JsonPath::parse(text);
  if (!path) return path.error();
  if (!contains(text)) paths_.push_back(std::move(*path));
  return {};
}

Result<void> Registry::extend_from_file(const std::filesystem::path& file) {
  auto value = parse_json_file(file);
  if (!value) return value.error();
  const boost::json::array* arr = value->if_array();
  if (!arr) return Error::malformed(file.string(), 1, "registry.type", "a registry file is a JSON array of path strings");
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const boost::json::value& entry = (*arr)[i];
    if (!is_json_string(entry)) {
      return Error::malformed(file.string(), 1, "registry.type", fmt::format("entry {} is not a string", i));
    }
    if (auto added = add(entry.get_string()); !added) {
      Error error = added.error();
      error.file = file.string();
      return error;
    }
  }
  return {};
}

bool Registry::contains(std::string_view path) const {
  for (const auto& p : paths_)
    if (p.text() == path) return true;
  return false;
}

}  // namespace msptk
