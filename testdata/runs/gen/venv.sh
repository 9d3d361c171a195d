#!/usr/bin/env bash
# venv.sh REQUIREMENTS.txt — print the python of a virtual environment that has exactly the
# pinned requirements of REQUIREMENTS.txt, creating it first when needed.
#
# Virtual environments live outside the checkout, under ${RECOMP_VENV_ROOT:-~/.cache/recomp},
# one per requirements file, named by the file's name and the hash of its content: a fresh clone
# on the same machine reuses them, and changing a pin makes a new one. The Python version comes
# from the file's "# python: X.Y" line and is looked up in pyenv (~/.pyenv/versions/X.Y*), then
# as pythonX.Y on PATH. Concurrent calls for one file wait for each other (flock).
set -euo pipefail
req=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ -f "$req" ] || { echo "venv.sh: $1: no such requirements file" >&2; exit 2; }
want=$(sed -n 's/^# python: *\([0-9.]*\).*/\1/p' "$req" | head -1)
[ -n "$want" ] || { echo "venv.sh: $req: no '# python: X.Y' line" >&2; exit 2; }
root=${RECOMP_VENV_ROOT:-$HOME/.cache/recomp}
name=$(basename "$req" .txt)
hash=$(sha256sum "$req" | cut -c1-12)
dir=$root/venv-$name-$hash
mkdir -p "$root"
exec 9>"$dir.lock"
flock 9
if [ ! -f "$dir/.complete" ]; then
  py=""
  for cand in "$HOME"/.pyenv/versions/"$want".*/bin/python3 "$HOME"/.pyenv/versions/"$want"/bin/python3; do
    [ -x "$cand" ] && py=$cand
  done
  if [ -z "$py" ] && command -v "python$want" >/dev/null 2>&1; then py=$(command -v "python$want"); fi
  if [ -z "$py" ] && command -v python3 >/dev/null 2>&1 &&
     [ "$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')" = "$want" ]; then py=$(command -v python3); fi
  [ -n "$py" ] || { echo "venv.sh: no Python $want (pyenv or python$want on PATH) for $req" >&2; exit 3; }
  rm -rf "$dir"
  echo "venv.sh: creating $dir with $py" >&2
  "$py" -m venv "$dir" >&2
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >&2
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" >&2
  touch "$dir/.complete"
fi
echo "$dir/bin/python"
