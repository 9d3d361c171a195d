#!/usr/bin/env bash
# Installs recomp for the GitHub Action (action.yml) into $RUNNER_TEMP/recomp-bin and puts that
# folder on the job's PATH ($GITHUB_PATH).
#
# INPUT_INSTALL  release: download recomp-<os>-<arch> of release v<version> and check it
#                         against the release's SHA256SUMS;
#                source:  go build from this action's own checkout (the ref the workflow named);
#                auto:    release, and source when the release cannot be had.
# INPUT_VERSION  the release (default: internal/version's Version in this checkout).
# RECOMP_RELEASE_URL  where the release's files are (default: the GitHub release of v<version>).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
mode=${INPUT_INSTALL:-auto}
version=${INPUT_VERSION:-$(sed -n 's/^const Version = "\(.*\)"$/\1/p' "$src/internal/version/version.go")}
version=${version#v}
base=${RECOMP_RELEASE_URL:-https://github.com/recomp/recomp/releases/download/v$version}
dest=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/recomp-bin
mkdir -p "$dest"
# The download's temporary folder goes whatever happens (a failed check, an interrupt).
tmp=""
trap '[ -z "$tmp" ] || rm -rf "$tmp"' EXIT

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  MINGW*|MSYS*|CYGWIN*) os=windows ;;
  *) echo "recomp: no release binary for $(uname -s)" >&2; os=unknown ;;
esac
case "$(uname -m)" in
  x86_64|amd64) arch=amd64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) echo "recomp: no release binary for $(uname -m)" >&2; arch=unknown ;;
esac
exe=""
[ "$os" = windows ] && exe=.exe

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

from_release() {
  local name=recomp-$os-$arch$exe want got
  tmp=$(mktemp -d)
  echo "recomp: downloading $base/$name"
  curl -fsSL --retry 3 -o "$tmp/$name" "$base/$name" || return 1
  curl -fsSL --retry 3 -o "$tmp/SHA256SUMS" "$base/SHA256SUMS" || return 1
  want=$(awk -v n="$name" '$2 == n {print $1}' "$tmp/SHA256SUMS")
  got=$(sha256 "$tmp/$name")
  if [ -z "$want" ] || [ "$want" != "$got" ]; then
    echo "recomp: $name has sha256 $got, SHA256SUMS says '${want:-nothing}': not installed" >&2
    return 3
  fi
  chmod +x "$tmp/$name"
  mv "$tmp/$name" "$dest/recomp$exe"
}

from_source() {
  if ! command -v go >/dev/null 2>&1; then
    echo "recomp: building from source needs Go 1.25 or newer on PATH (actions/setup-go)" >&2
    return 1
  fi
  if ! grep -q '^module github.com/recomp/recomp$' "$src/go.mod" 2>/dev/null; then
    echo "recomp: building from source needs recomp's whole checkout beside action.yml; $src has none" >&2
    return 1
  fi
  echo "recomp: building $src with $(go version)"
  (cd "$src" && CGO_ENABLED=0 go build -trimpath -buildvcs=auto "-ldflags=-s -w" -o "$dest/recomp$exe" ./cmd/recomp)
}

case "$mode" in
  release) from_release ;;
  source) from_source ;;
  auto)
    if ! from_release; then
      echo "recomp: no release v$version binary for $os/$arch: building from source"
      from_source
    fi ;;
  *) echo "recomp: install: '$mode': want release, source or auto" >&2; exit 2 ;;
esac

"$dest/recomp$exe" --version
[ -n "${GITHUB_PATH:-}" ] && echo "$dest" >> "$GITHUB_PATH"
[ -n "${GITHUB_OUTPUT:-}" ] && echo "version=$version" >> "$GITHUB_OUTPUT"
exit 0
