package sim_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/sim"
	"vsrsim/sim/ndjson"
	"vsrsim/sim/swarm"
)

// Determinism: a seed is a run. The same seed gives the same trace hash in
// one process, in a fresh process, and under any GOMAXPROCS; different seeds
// give different traces.

const (
	determinismSeeds = 50
	// envHelperSeed makes TestDeterminismHelperProcess run one seed and print
	// its trace hash; without it the helper skips.
	envHelperSeed = "VSRSIM_DETERMINISM_SEED"
	freshSeed     = 7
)

func runSwarm(t *testing.T, seed uint64, w io.Writer) sim.Result {
	t.Helper()
	var at sim.Attach
	if w != nil {
		at.Observer = ndjson.New(w, ndjson.Filter{})
	}
	res, err := sim.Run(swarm.Config(seed), at)
	require.NoError(t, err, "seed %d", seed)
	return res
}

func TestDeterminismSameProcess(t *testing.T) {
	seen := map[string]uint64{}
	spare := &sim.Spare{} // one Spare for every seed, as a sweep worker's
	for seed := uint64(1); seed <= determinismSeeds; seed++ {
		a := runSwarm(t, seed, nil)
		b := runSwarm(t, seed, io.Discard) // writing the trace must not change it
		// nor reusing the memory of earlier runs: journals, packet pool,
		// queue, trace
		recycled, err := sim.Run(swarm.Config(seed), sim.Attach{Spare: spare})
		require.NoError(t, err)
		assert.Equal(t, a.TraceHash, recycled.TraceHash, "seed %d: trace hash differs on recycled memory", seed)
		assert.Equal(t, a.Stats, recycled.Stats, "seed %d: stats differ on recycled memory", seed)
		require.Len(t, a.TraceHash, 16)
		assert.Equal(t, a.TraceHash, b.TraceHash, "seed %d: trace hash differs between two runs", seed)
		assert.Equal(t, a.Events, b.Events, "seed %d", seed)
		assert.Equal(t, a.Verdict, b.Verdict, "seed %d", seed)
		assert.Equal(t, a.Committed, b.Committed, "seed %d", seed)
		assert.Equal(t, a.Stats, b.Stats, "seed %d", seed)
		assert.Greater(t, a.Events, uint64(0), "seed %d traced nothing", seed)
		if other, dup := seen[a.TraceHash]; dup {
			t.Errorf("seeds %d and %d give the same trace hash %s", other, seed, a.TraceHash)
		}
		seen[a.TraceHash] = seed
	}
	assert.Len(t, seen, determinismSeeds, "different seeds give different hashes")
}

// TestDeterminismFreshProcess re-runs one seed in a fresh process of this test
// binary under GOMAXPROCS=1 and 2: nothing process-wide (map order, address
// layout, scheduling) may reach the trace.
func TestDeterminismFreshProcess(t *testing.T) {
	want := runSwarm(t, freshSeed, nil).TraceHash
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, procs := range []int{1, 2} {
		cmd := exec.Command(exe, "-test.run=^TestDeterminismHelperProcess$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(),
			envHelperSeed+"="+strconv.Itoa(freshSeed),
			"GOMAXPROCS="+strconv.Itoa(procs))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		require.NoError(t, err, "helper process: %s%s", out, stderr.String())
		got := helperValues(out)
		assert.Equal(t, strconv.Itoa(procs), got["gomaxprocs"], "the helper ran under GOMAXPROCS=%d", procs)
		assert.Equal(t, want, got["tracehash"], "seed %d under GOMAXPROCS=%d in a fresh process", freshSeed, procs)
	}
}

// helperValues parses the helper's "name=value" lines.
func helperValues(out []byte) map[string]string {
	vals := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		name, value, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if ok && (name == "tracehash" || name == "gomaxprocs") {
			vals[name] = value
		}
	}
	return vals
}

// TestDeterminismHelperProcess is run by TestDeterminismFreshProcess in a
// child process; on its own it skips.
func TestDeterminismHelperProcess(t *testing.T) {
	s := os.Getenv(envHelperSeed)
	if s == "" {
		t.Skip("helper process for TestDeterminismFreshProcess")
	}
	seed, err := strconv.ParseUint(s, 10, 64)
	require.NoError(t, err)
	res := runSwarm(t, seed, nil)
	fmt.Printf("gomaxprocs=%d\n", runtime.GOMAXPROCS(0))
	fmt.Printf("tracehash=%s\n", res.TraceHash)
}
