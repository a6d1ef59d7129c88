// Display text: text that came from input (manifest values, folder and file names, frame
// contents, baseline files) made safe to print on one line of a terminal or a text report.
// Control bytes (NUL, ESC, CR, LF, TAB, DEL and the rest below 0x20), C1 controls (U+0080 to
// U+009F) and bytes that are not UTF-8 become visible escapes: "\n", "\r", "\t", "\x1b",
// "\x00", "\xff", "\u009b". A backslash is kept as it is; printable UTF-8 is unchanged. So a
// finding is always one line, and no input can move the cursor, clear the screen or retitle
// the terminal. (JSON output needs no such step: serialize_json escapes control characters
// and writes invalid UTF-8 as U+FFFD.)
#pragma once

#include <string>
#include <string_view>

namespace msptk {

std::string display_text(std::string_view text);

// The first control character in `text` (a C0 control, DEL, or a C1 control U+0080..U+009F
// spelled in UTF-8), or -1 when there is none: what an identifier that ends up in file names
// and report lines (a scenario id) may not hold.
long first_control_character(std::string_view text);

}  // namespace msptk
