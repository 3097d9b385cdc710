# vsrsim build and test entry points. `make test` is what CI runs (.ci/run).

GO ?= go
BIN := bin/vsrsim

.PHONY: all build run test test-unit test-sweep bench lint race clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/vsrsim

run:
	$(GO) run ./cmd/vsrsim run --seed 1

# test is the CI gate: static checks, unit tests, then the seed sweep.
test: lint test-unit test-sweep

test-unit:
	$(GO) test ./...

# test-sweep is the place for a bounded seed sweep (many seeds, a fixed time
# budget, failing seeds printed with their replay command). It is a no-op until
# the sweep command exists; keep it a prerequisite of test.
test-sweep:
	@echo "test-sweep: no seed sweep yet"

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# lint fails on vet findings and on any file gofmt would rewrite.
lint:
	$(GO) vet ./...
	@unformatted="$$(gofmt -l .)"; \
	if [ -n "$$unformatted" ]; then \
		echo "gofmt: these files need formatting (run gofmt -w):"; \
		echo "$$unformatted"; \
		exit 1; \
	fi

race:
	$(GO) test -race ./...

clean:
	rm -rf bin
	rm -f *.test *.prof *.pprof cpu.out mem.out
