#!/usr/bin/env bash
# What `npm run demo` and `npm test` run: a minimal Debian with only Node has npm but no make, so
# install make first when it is missing (scripts/toolchains.sh make), then hand over to make.
set -euo pipefail
cd "${0%/*}/.."   # no dirname: a bare PATH may hold only bash
command -v make >/dev/null 2>&1 || bash scripts/toolchains.sh make
exec make "$@"
