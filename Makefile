# k6-triton: every target calls the k6-triton CLI (bin/k6-triton.js); see README.md.
SHELL := /bin/bash
CLI := node bin/k6-triton.js
NODE_MODULES := node_modules/.package-lock.json

.PHONY: help test typecheck lint format build install
.DEFAULT_GOAL := help

## help: list these targets (what `make` alone prints)
help:
	@echo 'make <target>, one of (README.md has the details):'
	@awk '/^## / { line = substr($$0, 4); i = index(line, ": "); \
	  printf "  %-24s %s\n", substr(line, 1, i - 1), substr(line, i + 2) }' $(firstword $(MAKEFILE_LIST))
	@echo 'Exit codes: a target whose command fails exits 2 (make'"'"'s own code); make prints the command'"'"'s code as "Error <n>":'
	@echo '  99 a budget missed, 95 inconclusive, 96 not measured, 98 compare found a regression, 105 interrupted, 1 bad input.'
	@echo '  Run the command itself (node bin/k6-triton.js ...) where a script needs the code as its exit status.'

# Installs dependencies only when missing or older than the lock file. npm 11 reads package.json's
# allowScripts (esbuild's postinstall runs; onnxruntime-node's, which downloads CUDA providers from
# nuget.org, and protobufjs's, a no-op here, do not); npm 10 ignores allowScripts, so the variable
# onnxruntime-node's install script reads skips that download there too: the CPU binary is in the package.
$(NODE_MODULES): package-lock.json
	ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
	@touch $@

## docs-settings: write the settings table of docs/benchmarks.md from lib/settings/schema.ts
docs-settings: $(NODE_MODULES)
	node --import tsx cli/docs-settings.ts

## docs-runtime-options: write docs/runtime-options.md from packages/runtime/src/options/k6-surface.ts
docs-runtime-options: $(NODE_MODULES)
	node --import tsx cli/docs-runtime-options.ts

## install: npm ci, only when node_modules is missing or older than package-lock.json
install: $(NODE_MODULES)

# Incremental: tsc keeps what it learnt in node_modules/.cache, so a re-run checks only what changed (22 s -> 6 s of CPU).
TSC := npx tsc -p tsconfig.json --incremental --tsBuildInfoFile node_modules/.cache/tsc.tsbuildinfo

## test: type-check, lint and run the vitest suite, both projects (unit and e2e; the README's test command)
test: $(NODE_MODULES)
	$(TSC)
	npx biome check .
	@# Any CLI call rebuilds a stale runtime bundle (saying so on stderr): done once here, not inside a test.
	@$(CLI) models >/dev/null
	npx vitest run --project unit --project e2e

.PHONY: test-unit test-e2e
## test-unit: the unit project alone: pure modules and in-process tests, no server process (under a minute)
test-unit: $(NODE_MODULES)
	npx vitest run --project unit

## test-e2e: the e2e project alone: the embedded server, the CLI as a process, real tools
test-e2e: $(NODE_MODULES)
	npx vitest run --project e2e

.PHONY: test-k6 test-triton fidelity
## test-k6: every catalog model under real k6 (K6_BIN or k6 on PATH), HTTP and gRPC, two short levels each
test-k6: $(NODE_MODULES)
	node --import tsx test/k6/matrix.ts $(MODELS)

## test-triton: the suite against real Triton (TRITONSERVER; K6_BIN, PERF_ANALYZER): bench of every model, perf_analyzer agreement, sweep, capacity
test-triton: $(NODE_MODULES)
	node --import tsx test/e2e/triton/suite-on-triton.ts $(MODELS)

## fidelity: the load generator against perf_analyzer on the embedded server (FIDELITY_ARGS="--targets embedded,triton": and real Triton, TRITONSERVER)
fidelity: $(NODE_MODULES)
	node --import tsx bench/fidelity/run.ts $(FIDELITY_ARGS)

## typecheck: tsc, strict, incremental
typecheck: $(NODE_MODULES)
	$(TSC)

## lint: biome check (format and lint rules)
lint: $(NODE_MODULES)
	npx biome check .

## format: biome format --write
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

.PHONY: repository
## repository: write the catalog as a Triton model repository (onnxruntime backend): make repository DIR=<folder> [REPOSITORY_ARGS="--model dlrm --precision dlrm=FP16"]
repository: $(NODE_MODULES)
	@test -n "$(DIR)" || { echo "make repository: set DIR=<folder>, e.g. make repository DIR=/tmp/triton-repo"; exit 2; }
	$(CLI) repository "$(DIR)" $(REPOSITORY_ARGS)

.PHONY: server
## server: run the embedded Triton-compatible server (HTTP 8000, gRPC 8001, metrics 8002); SERVE_ARGS="--time-scale 0 ..."
server: $(NODE_MODULES)
	$(CLI) serve $(SERVE_ARGS)

# Benchmarks: settings come from make variables or the environment, e.g.
#   make bench-dlrm CONCURRENCY=1:8 PROTOCOL=grpc TRITON_URL=http://triton:8000 TRITON_GRPC_URL=triton:8001
# Extra k6 flags: K6_ARGS="--out json=points.json"; extra bench flags: BENCH_ARGS="--count 4".
BENCH = $(CLI) bench $(1) $(BENCH_ARGS) $(if $(K6_ARGS),-- $(K6_ARGS))

# Catalog ids (and their aliases, e.g. resnext, bert) come from models/catalog.ts, the one list of models.
CATALOG_IDS = $(CLI) models

.PHONY: bench-generic bench-all ci-gate bench-llm bench-mix
## bench-<model>: ramp load on one catalog model (id or alias: bench-mnist, bench-resnext, bench-bert-large), gate on its budget, write results/<model>/<run>/
bench-%: $(NODE_MODULES)
	$(call BENCH,$*)
## bench-llm: the simulated gpt2 streamed over gRPC ModelStreamInfer: TTFT, ITL, tokens/s per level, budgets on TTFT/ITL p95
bench-llm: $(NODE_MODULES)
	$(call BENCH,gpt2)
## bench-generic MODEL_NAME=<served model>: any model, tensors read from the server
bench-generic: $(NODE_MODULES)
	@test -n "$(MODEL_NAME)" || { echo "make bench-generic: set MODEL_NAME=<served model name>"; exit 2; }
	$(call BENCH,generic)
## bench-all: every catalog model, one after another; fails if any budget was missed
bench-all: $(NODE_MODULES)
	@status=0; for m in $$($(CATALOG_IDS)); do \
	  $(CLI) bench $$m $(BENCH_ARGS) || status=$$?; done; exit $$status

## bench-mix: a mix of three seed models (mnist, bert-base, dlrm) in one k6 test, per-model verdicts; MIX=<file> for another mix
MIX ?= mixes/seed-trio.json
bench-mix: $(NODE_MODULES)
	$(CLI) bench --mix $(MIX) $(BENCH_ARGS) $(if $(K6_ARGS),-- $(K6_ARGS))

## ci-gate MODEL=<id>: the CI job: bench with JUNIT (default results/junit.xml); fails on a budget missed (the command exits 99, make 2), inconclusive (95) or not measured (96)
JUNIT ?= results/junit.xml
ci-gate: $(NODE_MODULES)
	@test -n "$(MODEL)" || { echo "make ci-gate: set MODEL=<id>, e.g. make ci-gate MODEL=dlrm"; exit 2; }
	$(CLI) bench $(MODEL) --junit $(JUNIT) $(BENCH_ARGS)

# Capacity: the highest concurrency within the model's budget (the bench's variables apply: P95_MS, PROTOCOL,
# TRITON_URL, STEP_DURATION, ...); CAPACITY_ARGS="--request-rate --target-rate 50000" for the open loop and a plan,
# CAPACITY_ARGS=--confirm-sweep to check the answer with a linear bench from --start to the level above it.
CAPACITY = $(CLI) capacity $(1) $(CAPACITY_ARGS) $(if $(K6_ARGS),-- $(K6_ARGS))

.PHONY: capacity-generic capacity-mix
## capacity-<model>: search the highest load within budget, confirm it, write results/<model>/capacity-<run>/
capacity-%: $(NODE_MODULES)
	$(call CAPACITY,$*)
capacity-generic: $(NODE_MODULES)
	@test -n "$(MODEL_NAME)" || { echo "make capacity-generic: set MODEL_NAME=<served model name>"; exit 2; }
	$(call CAPACITY,generic)
## capacity-mix: scale the mix (MIX, default mixes/seed-trio.json) to the highest total load within every model's budget, in one sentence
capacity-mix: $(NODE_MODULES)
	$(CLI) capacity --mix $(MIX) $(CAPACITY_ARGS) $(if $(K6_ARGS),-- $(K6_ARGS))

# Sweep: server configs applied through the repository load API (explicit model-control mode), each measured
# over a concurrency list; SWEEP_ARGS="--instances 1,2,4 --max-queue-delay-us 0,100,500 --concurrency 1,2,4".
## sweep-<model>: rank server configs by throughput within budget, print the winner's config.pbtxt snippet
sweep-%: $(NODE_MODULES)
	$(CLI) sweep $* $(SWEEP_ARGS) $(if $(K6_ARGS),-- $(K6_ARGS))
