# Turns a reference page (docs/verbs/VERB.md) into the roff of a help2man include file: the
# page's prose becomes the man page's DESCRIPTION (options come from --help, so the page's
# "## Options" section and what follows it are left out). POSIX awk (Debian's mawk suffices).
# Handles what the pages use: headings, paragraphs, "- " and "1. " lists, ``` blocks,
# | tables |, **bold**, `code` (also across lines: a paragraph is converted as a whole) and
# [links](target).
function esc(s) {
  gsub(/\\/, "\\e", s)
  gsub(/-/, "\\-", s)
  # Typographic characters as roff names, so a page shows right in any locale.
  gsub(/\342\200\224/, "\\(em", s); gsub(/\342\200\223/, "\\(en", s)
  gsub(/\342\200\246/, "...", s); gsub(/\342\206\222/, "\\(->", s)
  gsub(/\342\206\224/, "\\(<>", s); gsub(/\342\206\263/, "\\(->", s)
  gsub(/\342\211\240/, "\\(!=", s); gsub(/\342\211\244/, "\\(<=", s)
  gsub(/\342\211\245/, "\\(>=", s); gsub(/\303\227/, "\\(mu", s)
  gsub(/\302\265/, "\\(mc", s); gsub(/\342\200\231/, "\\(aq", s)
  gsub(/\342\200\234/, "\\(lq", s); gsub(/\342\200\235/, "\\(rq", s)
  gsub(/\342\234\223/, "\\(OK", s)
  gsub(/\357\277\275/, "?", s)  # U+FFFD, what show prints for bytes that are not UTF-8
  return s
}
function line_start(s) {
  if (s ~ /^[.']/) s = "\\&" s
  return s
}
function inline(s,    out, m) {
  s = esc(s)
  out = ""
  while (match(s, /\[[^]]*\]\([^)]*\)/)) {
    m = substr(s, RSTART, RLENGTH)
    sub(/\]\([^)]*\)$/, "", m)
    out = out substr(s, 1, RSTART - 1) substr(m, 2)
    s = substr(s, RSTART + RLENGTH)
  }
  s = out s
  out = ""
  while (match(s, /`[^`]+`/)) {
    out = out substr(s, 1, RSTART - 1) "\\fB" substr(s, RSTART + 1, RLENGTH - 2) "\\fR"
    s = substr(s, RSTART + RLENGTH)
  }
  s = out s
  out = ""
  while (match(s, /\*\*[^*]+\*\*/)) {
    out = out substr(s, 1, RSTART - 1) "\\fB" substr(s, RSTART + 2, RLENGTH - 4) "\\fR"
    s = substr(s, RSTART + RLENGTH)
  }
  return line_start(out s)
}
# The paragraph (or list item) being gathered, printed as one filled line.
function flush() {
  if (buf != "") { print inline(buf); buf = "" }
}
function gather(s) {
  sub(/^[ \t]+/, "", s)
  buf = (buf == "" ? s : buf " " s)
}
BEGIN { print "[DESCRIPTION]"; fence = 0; done = 0; buf = "" }
done { next }
NR == 1 && /^# / { next }
/^[ \t]*```/ {
  flush()
  if (!fence) { print ".PP"; print ".RS 2"; print ".nf"; fence = 1 }
  else { print ".fi"; print ".RE"; print ".PP"; fence = 0 }
  next
}
fence { sub(/^   /, ""); print line_start(esc($0)); next }
/^## Options[ \t]*$/ { flush(); done = 1; next }
/^##+ / { flush(); sub(/^##+ /, ""); print ".SS " inline($0); next }
/^[ \t]*$/ { flush(); print ".PP"; next }
/^\|[ \t]*-/ { next }
/^\|/ {
  flush()
  row = $0; sub(/^\|[ \t]*/, "", row); sub(/[ \t]*\|[ \t]*$/, "", row)
  n = split(row, cells, /[ \t]*\|[ \t]*/)
  print ".TP"; print inline(cells[1])
  rest = ""; for (i = 2; i <= n; i++) rest = rest (i > 2 ? " \342\200\224 " : "") cells[i]
  print inline(rest); next
}
/^[ \t]*[-*] / { flush(); sub(/^[ \t]*[-*] /, ""); print ".IP \\(bu 2"; gather($0); next }
/^[ \t]*[0-9]+\. / {
  flush(); item = $0; sub(/^[ \t]*/, "", item); num = item; sub(/\..*/, "", num); sub(/^[0-9]+\. /, "", item)
  print ".IP " num ". 4"; gather(item); next
}
{ gather($0) }
END { flush() }
