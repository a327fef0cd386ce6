# toolgate — one entry point for people and CI.
# `make run` builds everything and runs the bundled example tools; `make test` runs every test.
SHELL := /bin/bash
NODE ?= node

.PHONY: all build examples fixtures test run bench soak clean typecheck

all: build examples

node_modules: package-lock.json
	npm ci
	@touch node_modules

build: node_modules
	npx tsc -p tsconfig.build.json
	@chmod +x dist/cli/main.js 2>/dev/null || true

typecheck: node_modules
	npx tsc -p tsconfig.json --noEmit

# Example tools in every PDK language (pdk-examples/<lang>/build/*.wasm).
examples: node_modules
	$(MAKE) -C pdk-examples

# Hostile and helper modules used by the tests (test/fixtures/build/*.wasm).
fixtures:
	$(MAKE) -C test/fixtures

test: build examples fixtures typecheck
	npx vitest run

run: build examples
	$(NODE) dist/cli/main.js demo

bench: build examples fixtures
	$(NODE) --expose-gc bench/run.mjs

clean:
	rm -rf dist
	$(MAKE) -C pdk-examples clean
	$(MAKE) -C test/fixtures clean
