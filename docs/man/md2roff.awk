# Turns a reference page (docs/verbs/VERB.md) into the roff of a help2man include file: the
# page's prose becomes the man page's DESCRIPTION (options come from --help, so the page's
# "## Options" section and what follows it are left out). POSIX awk (Debian's mawk suffices).
# Handles what the pages use: headings, paragraphs, "- " and "1. " lists, ``` blocks (their
# lines as written, less the fence's own indentation), | tables | (the first row, the header, in
# italics), **bold**, `code` (also across lines: a paragraph is converted as a whole) and
# [links](target); images are left out. Characters beyond ASCII are left to make-man's
# roff-chars.pl, which spells them for every locale.
function esc(s) {
  gsub(/\\/, "\\e", s)
  gsub(/-/, "\\-", s)
  return s
}
function line_start(s) {
  if (s ~ /^[.']/) s = "\\&" s
  return s
}
function inline(s,    out, m) {
  s = esc(s)
  gsub(/!\[[^]]*\]\([^)]*\)/, "", s)
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
BEGIN { print "[DESCRIPTION]"; fence = 0; done = 0; table = 0; buf = "" }
done { next }
NR == 1 && /^# / { next }
/^[ \t]*```/ {
  flush(); table = 0
  if (!fence) {
    print ".PP"; print ".RS 2"; print ".nf"; fence = 1
    match($0, /^[ \t]*/); indent = RLENGTH
  } else { print ".fi"; print ".RE"; print ".PP"; fence = 0 }
  next
}
fence {
  line = $0
  for (i = 0; i < indent && substr(line, 1, 1) == " "; i++) line = substr(line, 2)
  print line_start(esc(line)); next
}
/^[ \t]*!\[[^]]*\]\([^)]*\)[ \t]*$/ { flush(); next }
/^## Options[ \t]*$/ { flush(); done = 1; next }
/^##+ / { flush(); table = 0; sub(/^##+ /, ""); print ".SS " inline($0); next }
/^[ \t]*$/ { flush(); table = 0; print ".PP"; next }
/^\|[ \t]*-/ { next }
/^\|/ {
  flush()
  row = $0; sub(/^\|[ \t]*/, "", row); sub(/[ \t]*\|[ \t]*$/, "", row)
  n = split(row, cells, /[ \t]*\|[ \t]*/)
  rest = ""; for (i = 2; i <= n; i++) rest = rest (i > 2 ? " \342\200\224 " : "") cells[i]
  print ".TP"
  if (!table) { print "\\fI" inline(cells[1]) "\\fR"; print "\\fI" inline(rest) "\\fR"; table = 1 }
  else { print inline(cells[1]); print inline(rest) }
  next
}
/^[ \t]*[-*] / { flush(); table = 0; sub(/^[ \t]*[-*] /, ""); print ".IP \\(bu 2"; gather($0); next }
/^[ \t]*[0-9]+\. / {
  flush(); item = $0; sub(/^[ \t]*/, "", item); num = item; sub(/\..*/, "", num); sub(/^[0-9]+\. /, "", item)
  print ".IP " num ". 4"; gather(item); next
}
{ gather($0) }
END { flush() }
