#include "msptk/script/reference.hpp"

#include <fmt/format.h>

#include <vector>

namespace msptk::script {

namespace json = boost::json;

boost::system::result<std::optional<Reference>, ReferenceProblem> parse_reference(std::string_view text) {
  if (text.substr(0, 2) != "${") return std::optional<Reference>{};
  const auto bad = [&](std::string why) {
    return ReferenceProblem{"script.reference",
                            fmt::format("\"{}\" is not a reference: {} (write \"${{NAME:PATH}}\" or "
                                        "\"${{last METHOD:PATH}}\"; \"$${{\" for a literal \"${{\")",
                                        text, why)};
  };
  if (text.size() < 3 || text.back() != '}') return bad("it does not end with '}'");
  std::string_view inner = text.substr(2, text.size() - 3);
  const std::size_t colon = inner.find(':');
  if (colon == std::string_view::npos) return bad("no ':' between the source and the path");
  std::string_view source = inner.substr(0, colon), path = inner.substr(colon + 1);
  Reference ref;
  ref.text = std::string(text);
  if (source.substr(0, 5) == "last ") {
    ref.last = true;
    source.remove_prefix(5);
    if (source.empty() || source.find_first_of(" \t") != std::string_view::npos)
      return bad("\"last\" is followed by one method name");
  } else if (source.empty() || source.find_first_of(" \t") != std::string_view::npos) {
    return bad("the source is a step name or \"last METHOD\"");
  }
  ref.name = std::string(source);
  if (path.empty()) return bad("the path is empty");
  auto parsed = JsonPath::parse(path);
  if (!parsed)
    return ReferenceProblem{"script.path", fmt::format("reference \"{}\": {}", text, parsed.error().message)};
  ref.path = std::move(*parsed);
  return std::optional<Reference>(std::move(ref));
}

void for_each_reference_string(const json::value& value, const std::function<void(std::string_view)>& visit) {
  std::vector<const json::value*> stack{&value};
  while (!stack.empty()) {
    const json::value* v = stack.back();
    stack.pop_back();
    if (v->is_string()) {
      std::string_view s = v->get_string();
      if (s.substr(0, 2) == "${") visit(s);
    } else if (v->is_object()) {
      const auto& o = v->get_object();
      for (auto it = o.end(); it != o.begin();) stack.push_back(&(--it)->value());
    } else if (v->is_array()) {
      const auto& a = v->get_array();
      for (auto it = a.end(); it != a.begin();) stack.push_back(&*--it);
    }
  }
}

Result<json::value> resolve_references(const json::value& value, const Resolver& resolve) {
  json::value out = value;
  std::vector<json::value*> stack{&out};
  while (!stack.empty()) {
    json::value* v = stack.back();
    stack.pop_back();
    if (v->is_string()) {
      std::string_view s = v->get_string();
      if (s.substr(0, 3) == "$${") {
        *v = json::string(s.substr(1));
        continue;
      }
      auto ref = parse_reference(s);
      if (!ref || !*ref) continue;
      auto got = resolve(**ref);
      if (!got) return got.error();
      *v = std::move(*got);
    } else if (v->is_object()) {
      auto& o = v->get_object();
      for (auto it = o.end(); it != o.begin();) stack.push_back(&(--it)->value());
    } else if (v->is_array()) {
      auto& a = v->get_array();
      for (auto it = a.end(); it != a.begin();) stack.push_back(&*--it);
    }
  }
  return out;
}

}  // namespace msptk::script
