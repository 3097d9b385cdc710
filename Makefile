# vsrsim build and test entry points. `make test` is what CI runs (.ci/run).

GO ?= go
BIN := bin/vsrsim

.PHONY: all build run test test-unit test-sweep test-fuzz fuzz-eval behaviours seeds-update detect mutants ablate bench bench-sweep pgo lint race clean image image-oci

all: build

build:
	$(GO) build -o $(BIN) ./cmd/vsrsim

run:
	$(GO) run ./cmd/vsrsim run --seed 1

# test is the CI gate: static checks, unit tests, the seed sweep, then a
# short guided search.
test: lint test-unit test-sweep test-fuzz

# test-unit builds the daemonless image first: tools/imageoci's test opens
# the layout it wrote, runs a seed with its binary, and builds the image
# again to check the digest is the same.
test-unit: image-oci
	VSRSIM_IMAGE_OCI=$(CURDIR)/$(IMAGE_OCI) $(GO) test ./...

# test-sweep is the CI seed sweep: SWEEP_COUNT swarm seeds with every fix on,
# starting at the commit under test (a 40-hex hash is a valid seed), so each
# commit explores new seeds and any finding replays from its printed command.
# Findings go to sweep-failures.jsonl, and as JUnit XML to sweep-junit.xml for
# CI test-result views; any finding fails the target.
SWEEP_COUNT ?= 500
SWEEP_START ?= $(shell git rev-parse HEAD 2>/dev/null || echo 1)
test-sweep: build
	$(BIN) sweep --count $(SWEEP_COUNT) --start $(SWEEP_START) --failures sweep-failures.jsonl --junit sweep-junit.xml

# test-fuzz is the CI's short guided search (docs/fuzz.md): FUZZ_BUDGET runs
# from fresh swarm seeds, the search seeded from the commit under test, every
# fix on. Findings go to fuzz-findings/failures.jsonl, each failing scenario
# file beside it (its record replays it); the runs it excused as
# unrecoverable go to fuzz-findings/excused.jsonl. Every finding fails the
# target, a liveness one (exit 3) as much as a safety or crash one: a failure
# the project knows and keeps open is a file of fuzz/testdata that must still
# fail in its own test (TestOpenFindingsStillFail), not a pass here.
# FUZZ_FLAGS adds flags to the search (TestMakeTestFuzzFailsOnLiveness turns
# a bug switch on); FUZZ_DIR is where its findings go.
FUZZ_BUDGET ?= 500
FUZZ_SEED ?= $(SWEEP_START)
FUZZ_FLAGS ?=
FUZZ_DIR ?= fuzz-findings
test-fuzz: build
	mkdir -p $(FUZZ_DIR)
	$(BIN) fuzz --budget $(FUZZ_BUDGET) --seed $(FUZZ_SEED) --failures $(FUZZ_DIR)/failures.jsonl --excused $(FUZZ_DIR)/excused.jsonl $(FUZZ_FLAGS)

# fuzz-eval measures the guided search against the swarm on the same budget
# of runs (not a test): runs to first catch of every bug switch and planted
# defect, coverage per 1,000 runs, the marks each reaches; it rewrites
# docs/fuzz.md and docs/fuzz-coverage.svg (about 25 minutes on 2 cores).
# FUZZ_EVAL_FLAGS are the budgets docs/fuzz.md reports; override to narrow or
# widen them (the tool's own defaults are twice as long).
FUZZ_EVAL_FLAGS ?= -swarm-limit 10000 -fuzz-budget 1000 -fuzz-seeds 5 -coverage-runs 10000 -foci-runs 2000
fuzz-eval:
	$(GO) run ./tools/fuzzeval -o docs/fuzz.md -svg docs/fuzz-coverage.svg $(FUZZ_EVAL_FLAGS)

# behaviours runs the behavioural suite (scenarios/testdata/behaviour/*.vsr)
# for seeds 1..50; test-unit runs it for seeds 1..5. Known replica failures are
# listed in scenarios/behaviour_test.go and must still fail.
behaviours:
	$(GO) test ./scenarios/ -run '^TestBehaviours$$' -count=1 -args -behaviour-seeds=50

# seeds-update rewrites the corpus's expected verdicts and hashes after a
# change that moves them; read the diff before committing it.
seeds-update: build
	for f in seeds/*.txt; do $(BIN) replay --update $$f || exit 1; done

# detect measures how fast a swarm sweep finds each bug switch (not a test);
# it rewrites docs/detection.md.
detect:
	$(GO) run ./tools/detect -o docs/detection.md

# mutants measures how fast a swarm sweep catches each planted defect of
# tools/mutants/*.patch, each applied to a scratch copy of the module (not a
# test); it rewrites docs/mutants.md. MUTANT_SEEDS bounds each sweep,
# MUTANT_ONLY picks defects by name.
MUTANT_SEEDS ?= 2000
MUTANT_JOBS ?= 2
MUTANT_ONLY ?=
mutants:
	$(GO) run ./tools/mutants -seeds $(MUTANT_SEEDS) -jobs $(MUTANT_JOBS) -only '$(MUTANT_ONLY)' -o docs/mutants.md

# ablate says, for each open finding of a source protocol
# (fuzz/testdata/source-*.vsr), which option of its protocol line it needs:
# it runs each file as is, with each option alone removed, and with the
# robust protocol and none of the liveness phase's help (not a test); it
# rewrites docs/source-findings.md and fails if a robust variant fails or a
# file no longer fails as recorded. ABLATE_JOBS runs go in parallel.
ABLATE_JOBS ?= 2
ablate:
	$(GO) run ./tools/ablate -jobs $(ABLATE_JOBS) -o docs/source-findings.md

# PGO is the CPU profile the binary is optimised with: `go build` of a main
# package reads the default.pgo beside it (profile-guided optimisation: hot
# calls inlined, hot paths laid out). Benchmarks of other packages name it,
# so they measure the code the binary runs. `make pgo` regathers it from the
# headline benchmark; do so after a change that moves the hot paths.
PGO := $(CURDIR)/cmd/vsrsim/default.pgo

bench:
	$(GO) test -pgo=$(PGO) -run '^$$' -bench . -benchmem ./...

# bench-sweep is the headline figure (docs/architecture.md, Performance): a
# swarm sweep with linearizability on, one job and two, three rounds, under
# the binary's GOGC=400 (GOGC=100 make bench-sweep: the runtime's default).
bench-sweep:
	$(GO) test -pgo=$(PGO) -run '^$$' -bench SweepSwarm -benchmem -count 3 ./sweep/

# pgo profiles a plain build (no profile), one job, with asynchronous
# preemption off: otherwise a fifth of the samples land in the runtime's
# preemption handler instead of the code it interrupted.
pgo:
	GODEBUG=asyncpreemptoff=1 $(GO) test -pgo=off -o $(CURDIR)/pgo-sweep.test -run '^$$' -bench 'SweepSwarm/jobs=1' -benchtime 20x -cpuprofile $(PGO) ./sweep/
	rm -f $(CURDIR)/pgo-sweep.test

# actionlint, pinned, is installed into bin/ by the Go toolchain the first
# time lint needs it (from the module proxy); a new version is a new path,
# so changing ACTIONLINT_VERSION installs it afresh.
ACTIONLINT_VERSION := v1.7.12
ACTIONLINT := $(CURDIR)/bin/actionlint-$(ACTIONLINT_VERSION)/actionlint
$(ACTIONLINT):
	GOBIN=$(dir $(ACTIONLINT)) $(GO) install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)

# lint fails on vet findings, on any file gofmt would rewrite, and on any
# finding of actionlint in .github/workflows (with shellcheck's on their run
# scripts when shellcheck is on PATH).
lint: $(ACTIONLINT)
	$(GO) vet ./...
	@unformatted="$$(gofmt -l .)"; \
	if [ -n "$$unformatted" ]; then \
		echo "gofmt: these files need formatting (run gofmt -w):"; \
		echo "$$unformatted"; \
		exit 1; \
	fi
	$(ACTIONLINT) .github/workflows/*.yml

# image builds the container image of Dockerfile as $(IMAGE), with the Go
# version of go.mod, using CONTAINER_TOOL or else the first usable of docker
# (with a reachable daemon), podman and buildah. With none it prints why and
# fails: a target that built nothing must not pass for one that did.
IMAGE ?= vsrsim:dev
CONTAINER_TOOL ?=
GO_VERSION = $(shell sed -n 's/^go //p' go.mod)
image:
	@tool="$(CONTAINER_TOOL)"; \
	if [ -z "$$tool" ]; then \
		for t in docker podman buildah; do \
			command -v $$t >/dev/null 2>&1 || continue; \
			if [ $$t = docker ] && ! docker info >/dev/null 2>&1; then \
				echo "make image: docker is installed but its daemon is not reachable" >&2; \
				continue; \
			fi; \
			tool=$$t; break; \
		done; \
	fi; \
	if [ -z "$$tool" ]; then \
		echo "make image: no usable container tool (docker, podman or buildah); nothing built" >&2; \
		exit 1; \
	fi; \
	echo "$$tool build --build-arg GO_VERSION=$(GO_VERSION) -t $(IMAGE) ."; \
	$$tool build --build-arg GO_VERSION=$(GO_VERSION) -t $(IMAGE) .

# image-oci builds the container image without a container daemon
# (tools/imageoci, D51): the static binary on an empty base, with the
# Dockerfile's entrypoint, user and working directory, written as an OCI
# image layout in $(IMAGE_OCI) and labelled with the commit. The same commit
# and Go toolchain give the same digest, which it prints.
# IMAGE_OCI_TAR=FILE also writes a tarball that `docker load` reads.
IMAGE_OCI ?= bin/image-oci
IMAGE_OCI_TAR ?=
image-oci:
	$(GO) run ./tools/imageoci -o $(IMAGE_OCI) $(if $(IMAGE_OCI_TAR),-tar $(IMAGE_OCI_TAR))

race:
	$(GO) test -race ./...

clean:
	rm -rf bin
	rm -f *.test *.prof *.pprof cpu.out mem.out sweep-failures.jsonl sweep-junit.xml
	rm -rf fuzz-findings
