#!/usr/bin/env bash
# Installs the Debian toolchains that `make run` / `make test` need, when they are missing.
#   scripts/toolchains.sh build   clang, wasm-ld, wasi-libc, the wasm32 clang runtime, wabt, and
#                                 Debian's rustc with the wasm32 std (the example tools and test
#                                 modules are built from source)
#   scripts/toolchains.sh test    the same plus docker-registry (the OCI tests start a real registry),
#                                 chromium (the /ui page is tested in a real headless browser) and
#                                 redis-server (the replica tests share state through a real Redis)
#                                 and nginx (the reverse-proxy sample of docs/operations.md is run)
#   scripts/toolchains.sh browser chromium and a font (make screenshots)
#   scripts/toolchains.sh make    only make itself (for a machine that has nothing but Node)
# Installs with apt-get as root, or through `sudo -n` when that works without a password;
# otherwise prints the one command to run and exits 2. Does nothing when all is present.
# TOOLGATE_NO_INSTALL=1 never installs: it only says what is missing (the tests use it).
set -euo pipefail

what="${1:-build}"
missing=()
need() { # need PACKAGE TEST...: the package is missing when the test fails
  local pkg="$1"
  shift
  "$@" >/dev/null 2>&1 || missing+=("$pkg")
}
has() { command -v "$1"; }
any_file() { compgen -G "$1"; }

case "$what" in
  make) need make has make ;;
  browser)
    need chromium has chromium
    need fonts-dejavu-core test -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
    ;;
  build | test)
    need make has make
    need clang has clang
    need lld has wasm-ld
    need wasi-libc any_file '/usr/lib/wasm32-wasi/libc.a'
    need libclang-rt-14-dev-wasm32 any_file '/usr/lib/llvm-14/lib/clang/*/lib/wasi/libclang_rt.builtins-wasm32.a'
    need wabt has wat2wasm
    # Debian's rustc (not a rustup one first on PATH: it has no wasm32 std); see pdk-examples/rust.
    need rustc test -x /usr/bin/rustc
    need libstd-rust-dev-wasm32 any_file '/usr/lib/rustlib/wasm32-unknown-unknown/lib/libstd-*.rlib'
    if [ "$what" = test ]; then
      need docker-registry has docker-registry
      need chromium has chromium
      need redis-server has redis-server
      need nginx test -x /usr/sbin/nginx
    fi
    ;;
  *)
    echo "usage: $0 build|test|browser|make" >&2
    exit 2
    ;;
esac

[ "${#missing[@]}" -eq 0 ] && exit 0

install=(apt-get install -y -qq --no-install-recommends "${missing[@]}")
how=tell
if [ -n "${TOOLGATE_NO_INSTALL:-}" ]; then
  how=tell
elif [ "$(id -u)" -eq 0 ]; then
  how=root
elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
  how=sudo
fi
if [ "$how" = tell ]; then
  echo "toolgate: missing toolchains (${missing[*]}); install them with: sudo apt-get update && sudo ${install[*]}" >&2
  exit 2
fi
echo "toolgate: installing missing toolchains: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if [ "$how" = root ]; then
  apt-get update -qq
  "${install[@]}" >/dev/null
else
  sudo -n apt-get update -qq
  sudo -n env DEBIAN_FRONTEND=noninteractive "${install[@]}" >/dev/null
fi
