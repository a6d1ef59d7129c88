// An input read more than once. Some verbs read a transcript twice or at places found earlier:
// show (once for the requests left unanswered, once for the rows), diff (fast paths, then the
// general one, then frames again by their offsets). A pipe, a FIFO or a process substitution
// `<(...)` can be read once only: read again it looks empty or blocks. require_rereadable refuses
// such an input before it is read (unreadable: exit 3, the input named), so a verb never reports
// on an empty second reading. Verbs that read their input once (validate, normalize, coverage,
// wire-log) take pipes as they take files.
#pragma once

#include "msptk/transcript/error.hpp"

#include <filesystem>
#include <string_view>

namespace msptk {

// An error unless `path` is a regular file (after symbolic links) or does not exist (its
// reader then says so); `verb` names who reads it twice ("show", "diff").
Result<void> require_rereadable(const std::filesystem::path& path, std::string_view verb);

}  // namespace msptk
