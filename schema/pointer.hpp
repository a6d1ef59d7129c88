// JSON pointers into a bundle (RFC 6901 in URI fragment form, "#/$defs/A~1B/properties/x"):
// escaping a reference token, reading one back, and resolving a pointer in a document. Internal
// to the schema module; the one spelling the bundle, the draft-7 rewrite and the reference
// checks share.
#pragma once

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace msptk::schema::detail {

// "a/b~c" -> "a~1b~0c".
std::string escape_pointer(std::string_view token);
// "a~1b~0c" -> "a/b~c".
std::string unescape_pointer(std::string_view token);
// The node at a "#/a/b" pointer of `doc` ("#" is the document), or nullptr (no such node, or a
// reference that is not a fragment of this document).
const boost::json::value* at_pointer(const boost::json::value& doc, std::string_view pointer);

}  // namespace msptk::schema::detail
