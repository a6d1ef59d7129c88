// Before review, check and validate look at a corpus, they sweep it for staging folders that an
// msptk killed during a rewrite left behind (transcript/folder_rewrite.hpp: sweep_staging): a
// stale one is removed with a note on stderr, one that cannot be proven stale is reported with
// a warning; none is left silently.
#pragma once

#include "verbs.hpp"

#include <string>
#include <vector>

namespace msptk::cli {

void sweep_staging_leftovers(const std::vector<std::string>& paths, Streams io);

}  // namespace msptk::cli
