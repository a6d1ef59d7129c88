// JSON pointers into a bundle (pointer.hpp).
#include "pointer.hpp"

#include "msptk/transcript/json_pointer.hpp"

#include <algorithm>
#include <cstdlib>

namespace msptk::schema::detail {

namespace json = boost::json;

std::string escape_pointer(std::string_view token) { return json_pointer_token(token); }

std::string unescape_pointer(std::string_view token) { return json_pointer_name(token); }

const json::value* at_pointer(const json::value& doc, std::string_view pointer) {
  if (pointer.substr(0, 1) != "#") return nullptr;
  pointer.remove_prefix(1);
  const json::value* node = &doc;
  while (!pointer.empty()) {
    if (pointer[0] != '/') return nullptr;
    pointer.remove_prefix(1);
    const std::size_t end = std::min(pointer.find('/'), pointer.size());
    const std::string token = unescape_pointer(pointer.substr(0, end));
    pointer.remove_prefix(end);
    if (const json::object* o = node->if_object()) {
      node = o->if_contains(token);
    } else if (const json::array* a = node->if_array()) {
      char* stop = nullptr;
      const unsigned long i = std::strtoul(token.c_str(), &stop, 10);
      node = (stop && *stop == '\0' && !token.empty() && i < a->size()) ? &(*a)[i] : nullptr;
    } else {
      node = nullptr;
    }
    if (!node) return nullptr;
  }
  return node;
}

}  // namespace msptk::schema::detail
