#!/usr/bin/env bash
# Installs what this project needs, idempotently: `tools/setup.sh build` for building and
# serving the site, `tools/setup.sh test` for that plus everything the tests use.
# Each step is skipped when its inputs have not changed since it last ran.
set -euo pipefail
cd "$(dirname "$0")/.."
want="${1:-build}"
stamp_dir=.venv/.stamps

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

changed() {  # changed NAME FILE... : true when FILEs differ from the last successful run of NAME
  local sum; sum=$(cat "${@:2}" | sha256sum | cut -c1-64)
  [ "$(cat "$stamp_dir/$1" 2>/dev/null)" != "$sum" ] && echo "$sum" > "$stamp_dir/$1.new"
}
done_step() { mv "$stamp_dir/$1.new" "$stamp_dir/$1"; }

command -v node >/dev/null || { echo "setup: Node.js 20+ is required (node not found)" >&2; exit 1; }

# A venv copied or moved from another checkout runs that checkout's Python through its scripts'
# `#!` lines (pip, torchrun): made again here. Paths are compared resolved, so a .venv that is a
# symbolic link to another folder's venv is that venv, not a copy.
if [ -x .venv/bin/python ] && [ -f .venv/bin/pip ]; then
  made_for=$(head -n 1 .venv/bin/pip | sed 's/^#!//; s|/bin/python[0-9.]*$||')
  if [ "$(realpath -m "$made_for")" != "$(realpath .venv)" ]; then
    say "the venv was made for $made_for: making it again for this folder"
    rm -rf "$(realpath .venv)"
  fi
fi
if [ ! -x .venv/bin/python ]; then
  say "creating .venv"
  python3 -m venv .venv
fi
mkdir -p "$stamp_dir"
# The engine (py/lessonkit, py/authorkit) importable from the venv, so `.venv/bin/python -m
# lessonkit` works: found beside the venv (<checkout>/.venv), from its location at start-up
# (sys.prefix is the venv's folder as the interpreter was named), never an absolute path.
site_packages=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo 'import os, sys; sys.path.extend({os.path.join(os.path.dirname(sys.prefix), "py")} - set(sys.path))' \
  > "$site_packages/tp-course.pth"

if changed pip-build requirements/build.txt; then
  say "installing Python build requirements"
  .venv/bin/python -m pip install -q -r requirements/build.txt
  done_step pip-build
fi

if changed npm package.json package-lock.json; then
  say "installing npm packages"
  npm ci --no-audit --no-fund --loglevel=error
  done_step npm
fi

if [ "$want" = test ]; then
  if [ ! -x /usr/bin/chromium ]; then
    say "installing Debian chromium (browser tests)"
    apt-get update -q && apt-get install -y -q chromium
  fi
  if changed pip-test requirements/test.txt requirements/build.txt; then
    say "installing Python test requirements"
    # Not compiled here (compileall of torch, sympy and the rest took 19 s on 2 cores): the
    # tests compile what they import, once, into .venv/pycache (./dev test says why).
    .venv/bin/python -m pip install -q --no-compile -r requirements/test.txt
    done_step pip-test
  fi
fi

# Pyodide, numpy and the pytest wheels: verified by sha256, cached under .cache/vendor.
.venv/bin/python build.py fetch
if [ "$want" = test ]; then
  # The test lessons' pinned PyPI wheels and micropip (tests/fixtures/lessons), the same way.
  .venv/bin/python build.py fetch --lessons tests/fixtures/lessons
fi
