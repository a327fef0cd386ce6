# toolgate — one entry point for people and CI.
# `make run` builds everything and runs the bundled example tools; `make test` runs every test.
# Both install the Debian toolchains they need when missing (scripts/toolchains.sh) and run
# `npm ci` on a fresh clone, so a machine with Node 20 and root needs nothing else.
SHELL := /bin/bash
NODE ?= node
PORT ?= 8787

.PHONY: all build examples fixtures test compat run bench soak clean typecheck lint format format-check toolchains toolchains-test conformance-deps screenshots

all: build examples

node_modules: package-lock.json
	npm ci --no-audit --no-fund
	@touch node_modules

# The MCP conformance suite and the Node 22 it needs, in their own package (test/conformance) so
# node_modules/.bin/node never replaces the project's Node 20 for npx. Cached tarballs first.
# The MCP Inspector (a real client the tests drive) likewise, in test/inspector.
conformance-deps: test/conformance/node_modules test/inspector/node_modules
test/conformance/node_modules: test/conformance/package-lock.json
	npm ci --prefix test/conformance --prefer-offline --no-audit --no-fund
	@touch test/conformance/node_modules
test/inspector/node_modules: test/inspector/package-lock.json
	npm ci --prefix test/inspector --prefer-offline --no-audit --no-fund
	@touch test/inspector/node_modules

# clang, wasm-ld, wasi-libc, the wasm32 clang runtime, wabt and Debian's rustc with the wasm32 std
# (what the example tools and test modules are built with); toolchains-test adds docker-registry.
toolchains:
	@scripts/toolchains.sh build

toolchains-test:
	@scripts/toolchains.sh test

# tsc writes dist/; esbuild then bundles the command and the instance worker over their tsc output
# (scripts/bundle.mjs), so `toolgate` starts from one file instead of hundreds of modules.
# scripts/build-walker.mjs builds the instruction walker (host/walker, AssemblyScript) into dist.
build: node_modules
	npx tsc -p tsconfig.build.json
	node scripts/build-walker.mjs
	node scripts/bundle.mjs
	@chmod +x dist/cli/main.js 2>/dev/null || true

typecheck: node_modules
	npx tsc -p tsconfig.json --noEmit

# Biome (biome.jsonc) is the linter and the formatter (CONTRIBUTING.md, "Lint and format").
# `make lint` fails on a lint error and, with FORMAT_CHECK=1, on a file the formatter would change;
# `make format` rewrites the files as the formatter writes them (the same as `npm run format`).
# FORMAT_CHECK is 1: the code is formatted; FORMAT_CHECK=0 skips the check while a change is in progress.
FORMAT_CHECK ?= 1
lint: node_modules
	npx biome lint .
	@if [ "$(FORMAT_CHECK)" = 1 ]; then $(MAKE) --no-print-directory format-check; else echo "format check skipped (FORMAT_CHECK=0: the code is not formatted yet)"; fi

format-check: node_modules
	npx biome format .

format: node_modules
	npx biome format --write .

# Example tools in every PDK language (pdk-examples/<lang>/build/*.wasm).
examples: node_modules toolchains
	$(MAKE) -C pdk-examples

# Hostile and helper modules used by the tests (test/fixtures/build/*.wasm).
fixtures: node_modules toolchains
	$(MAKE) -C test/fixtures

# The shared Extism compatibility corpus (stock plugins from the Extism JS SDK's test suite) sits
# beside a CI checkout in ../shared/compat; a user's clone has no such folder and skips it.
SHARED ?= ../shared

test: toolchains-test build examples fixtures typecheck lint conformance-deps
	SHARED="$(SHARED)" npx vitest run $(VITEST_ARGS)
	@$(MAKE) --no-print-directory compat

# Cases that conflict with a containment rule we keep are listed, with the reason, in
# test/compat/known-conflicts.json; the wrapper prints each one it leaves out.
compat: build
	@node scripts/compat.mjs "$(SHARED)"

# The main job: call a few example tools through the whole pipeline, then serve all of them.
run: build examples
	@echo "== one call each through the pipeline (policies/default) =="
	@$(NODE) dist/cli/main.js call greet --args '{"name":"toolgate"}'
	@$(NODE) dist/cli/main.js call hash --args '{"text":"hello"}'
	@$(NODE) dist/cli/main.js call text_stats --args '{"text":"Grüße aus dem Sandkasten"}'
	@$(NODE) dist/cli/main.js call grep_files --args '{"pattern":"sandbox","max_results":3}'
	@echo
	@echo "== serving the example tools; connect an MCP client to http://127.0.0.1:$(PORT)/mcp =="
	@echo '   e.g. {"mcpServers":{"toolgate":{"type":"http","url":"http://127.0.0.1:$(PORT)/mcp"}}}'
	@echo "   plain API: curl http://127.0.0.1:$(PORT)/v1/tools   (Ctrl-C stops)"
	$(NODE) dist/cli/main.js serve --http 127.0.0.1:$(PORT) --manifests manifests --manifests pdk-examples/js/summarise.yaml

# The /ui page's three views in headless chromium, written to docs/ui-*.png (the README shows them).
screenshots: build examples
	@scripts/toolchains.sh browser
	$(NODE) scripts/screenshots.mjs docs

bench: build examples fixtures
	$(NODE) --expose-gc bench/run.mjs

# 10,000 MCP calls with cancellations and spinning tools (CI runs a short version inside `make test`).
soak: build fixtures
	SOAK_CALLS=10000 npx vitest run test/soak

clean:
	rm -rf dist
	$(MAKE) -C pdk-examples clean
	$(MAKE) -C test/fixtures clean
