#!/usr/bin/env bash
# The Debian packages: one CPack run (DEB generator) over this build's install rules, into a
# temporary folder (`make package` does the same from a release build), gives two packages:
#  - msptk, the tool: the binary, muse-conformance, the man pages, both completions, the
#    documentation under /usr/share/doc/msptk laid out as in the source tree (every relative link
#    of its pages resolves there), a DEP-5 copyright file and a changelog; it depends on the
#    runtime libraries it links (dpkg-shlibdeps) and on no -dev package;
#  - msptk-dev: the headers, the static libraries, the CMake package and the pkg-config file, the
#    libraries in the multiarch folder (/usr/lib/<triplet>); it depends on msptk and the -dev
#    packages a project building against it needs.
# Both have the project's Maintainer, descriptions within 80 columns, and lintian (when it is
# installed) reports no error on either; its warnings are printed. Unpacked into a staging folder
# the tool works: `msptk --version` names the version and commit, `man -l` renders msptk(1).
# Usage: package_test.sh BUILD_DIR
set -uo pipefail
build=$(cd "$1" && pwd)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
for tool in cpack dpkg-deb dpkg-shlibdeps dpkg-architecture; do
  command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed (scripts/install-deps installs dpkg-dev)"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; echo "FAIL: cpack -G DEB"; exit 1; }
deb=$(ls "$work"/out/msptk_*.deb 2>/dev/null | head -n 1)
dev=$(ls "$work"/out/msptk-dev_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] && [ -n "$dev" ] || { cat "$work/cpack.log"; ls "$work/out"; echo "FAIL: msptk_*.deb and msptk-dev_*.deb were not both written"; exit 1; }
[ "$(ls "$work"/out/*.deb | wc -l)" = 2 ] || fail "cpack wrote other packages than msptk and msptk-dev: $(cd "$work/out" && ls ./*.deb)"

# The control fields.
for package in "$deb" "$dev"; do
  name=$(dpkg-deb -f "$package" Package)
  maintainer=$(dpkg-deb -f "$package" Maintainer)
  [[ $maintainer =~ ^[^\<]+\ \<[^@\>]+@[^\>]+\>$ ]] && [[ $maintainer != *localhost* ]] ||
    fail "$name: Maintainer '$maintainer' is not the project's (Name <address>)"
  homepage=$(dpkg-deb -f "$package" Homepage)
  [[ -z $homepage || ( $homepage == https://* && $homepage != *example.invalid* ) ]] || fail "$name: Homepage '$homepage'"
  while IFS= read -r line; do
    [ "${#line}" -le 80 ] || fail "$name: a Description line of ${#line} columns: '$line'"
  done < <(dpkg-deb -f "$package" Description)
done
[ "$(dpkg-deb -f "$deb" Package)" = msptk ] || fail "the tool's package is not named msptk"
[ "$(dpkg-deb -f "$dev" Package)" = msptk-dev ] || fail "the libraries' package is not named msptk-dev"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libboost-json1.81.0 libboost-filesystem1.81.0 libfmt libstdc++6 libc6; do
  grep -q "$lib" <<<"$depends" || fail "msptk: Depends lacks $lib: $depends"
done
for field in Depends Recommends; do
  value=$(dpkg-deb -f "$deb" "$field")
  grep -q -- '-dev' <<<"$value" && fail "msptk: $field pulls -dev packages: $value"
done
dev_depends=$(dpkg-deb -f "$dev" Depends)
for need in "msptk (= $(dpkg-deb -f "$deb" Version))" libboost-json1.81-dev libboost-filesystem1.81-dev libfmt-dev; do
  grep -qF -- "$need" <<<"$dev_depends" || fail "msptk-dev: Depends lacks $need: $dev_depends"
done

# The layout.
has() {  # has DEB PATH...: each PATH is in DEB
  local package=$1 contents
  shift
  contents=$(dpkg-deb -c "$package" | awk '{print $6}')
  for path in "$@"; do
    grep -qx -- "$path" <<<"$contents" || fail "$(basename "$package") lacks $path"
  done
}
doc=./usr/share/doc/msptk
has "$deb" ./usr/bin/msptk ./usr/bin/muse-conformance ./usr/share/man/man1/msptk.1.gz \
  ./usr/share/man/man1/msptk-diff.1.gz ./usr/share/man/man1/muse-conformance.1.gz \
  ./usr/share/bash-completion/completions/msptk ./usr/share/zsh/vendor-completions/_msptk \
  $doc/copyright $doc/changelog.gz $doc/README.md $doc/docs/verbs/diff.md $doc/docs/matching.md $doc/docs/img/check.png
has "$dev" ./usr/include/msptk/differ/diff.hpp ./usr/lib/"$multiarch"/cmake/msptk/msptkConfig.cmake \
  ./usr/lib/"$multiarch"/pkgconfig/msptk.pc ./usr/lib/"$multiarch"/libmsptk_transcript.a \
  ./usr/share/doc/msptk-dev/copyright ./usr/share/doc/msptk-dev/changelog.gz
while read -r path; do fail "msptk holds $path, which is msptk-dev's"; done < <(
  dpkg-deb -c "$deb" | awk '{print $6}' | grep -E '^\./usr/(include|lib)/.' | head -n 3)
while read -r path; do fail "msptk-dev holds $path outside the multiarch folder /usr/lib/$multiarch"; done < <(
  dpkg-deb -c "$dev" | awk '{print $6}' | grep -E '^\./usr/lib/[^/]+\.a$|^\./usr/lib/(cmake|pkgconfig)/' | head -n 3)

dpkg-deb -x "$deb" "$work/root" || fail "dpkg-deb -x msptk"
dpkg-deb -x "$dev" "$work/root" || fail "dpkg-deb -x msptk-dev"
head -n 1 "$work/root/usr/share/doc/msptk/copyright" |
  grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' ||
  fail "/usr/share/doc/msptk/copyright is not machine-readable (DEP-5 Format: line)"
# Every relative link of the installed pages resolves in /usr/share/doc/msptk.
while IFS= read -r -d '' page; do
  while IFS= read -r target; do
    target=${target%%#*}
    [[ -z $target || $target == *://* || $target == mailto:* ]] && continue
    [ -e "$(dirname "$page")/$target" ] || fail "${page#"$work/root"} links to $target, which the package does not hold"
  done < <(awk '/^```/ {fence = !fence; next} !fence { line = $0; gsub(/`[^`]*`/, "", line)
                 while (match(line, /\]\([^) ]+\)/)) { print substr(line, RSTART + 2, RLENGTH - 3); line = substr(line, RSTART + RLENGTH) } }' "$page")
done < <(find "$work/root/usr/share/doc/msptk" -name '*.md' -print0)
# pkg-config finds /usr from the file's folder (lib/<multiarch>/pkgconfig).
if command -v pkg-config >/dev/null; then
  prefix=$(PKG_CONFIG_PATH="$work/root/usr/lib/$multiarch/pkgconfig" pkg-config --variable=prefix msptk)
  [ "$(realpath -m "$prefix")" = "$work/root/usr" ] || fail "msptk.pc's prefix is $prefix, not the package's /usr"
fi

version=$("$work/root/usr/bin/msptk" --version)
[[ $version =~ ^msptk\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ ([0-9a-f]{12}(-dirty)?|unknown)\)$ ]] ||
  fail "msptk --version says '$version'"
[ "$(readlink "$work/root/usr/bin/muse-conformance")" = msptk ] || fail "muse-conformance is not a link to msptk"
if command -v man >/dev/null; then
  MANPAGER=cat man -l "$work/root/usr/share/man/man1/msptk.1.gz" 2>/dev/null | grep -q 'msptk' ||
    fail "man -l msptk.1.gz from the package shows nothing"
fi

# lintian: no error; its warnings are shown (each is fixed or explained in cmake/Package.cmake).
if command -v lintian >/dev/null; then
  lintian --no-cfg "$deb" "$dev" >"$work/lintian" 2>&1
  grep -E '^[EW]: ' "$work/lintian" | sed 's/^/lintian: /'
  grep -q '^E: ' "$work/lintian" && fail "lintian reports errors (above)"
else
  echo "note: lintian is not installed: the packages were not checked against Debian policy"
fi

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "package: $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB), $(basename "$dev") ($(du -k "$dev" | cut -f1) KiB), $version"
