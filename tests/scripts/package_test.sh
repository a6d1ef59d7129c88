#!/usr/bin/env bash
# The Debian package: CPack's DEB generator over this build's install rules, into a temporary
# folder (`make package` does the same from a release build). The .deb must carry the binary,
# muse-conformance, the man pages, both completions, the headers, the CMake package and the
# pkg-config file, declare the runtime libraries it links (dpkg-shlibdeps), and work unpacked
# into a staging folder: `msptk --version` names the version and commit, `man -l` renders msptk(1).
# Usage: package_test.sh BUILD_DIR
set -uo pipefail
build=$(cd "$1" && pwd)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
for tool in cpack dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed (scripts/install-deps installs dpkg-dev)"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; echo "FAIL: cpack -G DEB"; exit 1; }
deb=$(ls "$work"/out/msptk_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { cat "$work/cpack.log"; echo "FAIL: no msptk_*.deb written"; exit 1; }

info=$(dpkg-deb -I "$deb")
grep -q '^ Package: msptk$' <<<"$info" || fail "the package is not named msptk"
depends=$(grep '^ Depends:' <<<"$info")
for lib in libboost-json1.81.0 libboost-filesystem1.81.0 libfmt libstdc++6 libc6; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib: $depends"
done
contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
for path in ./usr/bin/msptk ./usr/bin/muse-conformance ./usr/share/man/man1/msptk.1.gz \
            ./usr/share/man/man1/msptk-diff.1.gz ./usr/share/man/man1/muse-conformance.1.gz \
            ./usr/share/bash-completion/completions/msptk ./usr/share/zsh/vendor-completions/_msptk \
            ./usr/include/msptk/differ/diff.hpp ./usr/lib/cmake/msptk/msptkConfig.cmake \
            ./usr/lib/pkgconfig/msptk.pc ./usr/share/doc/msptk/README.md ./usr/share/doc/msptk/verbs/diff.md; do
  grep -qx -- "$path" <<<"$contents" || fail "the package lacks $path"
done

dpkg-deb -x "$deb" "$work/root" || fail "dpkg-deb -x"
version=$("$work/root/usr/bin/msptk" --version)
[[ $version =~ ^msptk\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ ([0-9a-f]{12}(-dirty)?|unknown)\)$ ]] ||
  fail "msptk --version says '$version'"
[ "$(readlink "$work/root/usr/bin/muse-conformance")" = msptk ] || fail "muse-conformance is not a link to msptk"
if command -v man >/dev/null; then
  MANPAGER=cat man -l "$work/root/usr/share/man/man1/msptk.1.gz" 2>/dev/null | grep -q 'msptk' ||
    fail "man -l msptk.1.gz from the package shows nothing"
fi

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "package: $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB), $version"
