# k6-triton: every target calls the k6-triton CLI (bin/k6-triton.js); see README.md.
SHELL := /bin/bash
CLI := node bin/k6-triton.js
NODE_MODULES := node_modules/.package-lock.json

.PHONY: test typecheck lint format build install

# Installs dependencies only when missing or older than the lock file.
$(NODE_MODULES): package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: $(NODE_MODULES)

## test: type-check, lint and run the vitest suite (the README's test command)
test: $(NODE_MODULES)
	npx tsc -p tsconfig.json
	npx biome check .
	npx vitest run

typecheck: $(NODE_MODULES)
	npx tsc -p tsconfig.json

lint: $(NODE_MODULES)
	npx biome check .

format: $(NODE_MODULES)
	npx biome format --write .

## build: bundle every scenario to dist/<name>.js for k6
build: $(NODE_MODULES)
	node --import tsx build.ts

.PHONY: payloads
## payloads: write (or find) a payload set: make payloads MODEL=<id> [BATCH=..] [PRECISION=..] [COUNT=..] [SEED=..]
payloads: $(NODE_MODULES)
	@test -n "$(MODEL)" || { echo "make payloads: set MODEL=<id>, e.g. make payloads MODEL=mnist (ids: node bin/k6-triton.js payloads --help)"; exit 2; }
	$(CLI) payloads --model $(MODEL) $(if $(BATCH),--batch $(BATCH)) $(if $(PRECISION),--precision $(PRECISION)) $(if $(COUNT),--count $(COUNT)) $(if $(SEED),--seed $(SEED)) $(PAYLOAD_ARGS)

.PHONY: server
## server: run the embedded Triton-compatible server (HTTP 8000, gRPC 8001, metrics 8002); SERVE_ARGS="--time-scale 0 ..."
server: $(NODE_MODULES)
	$(CLI) serve $(SERVE_ARGS)
