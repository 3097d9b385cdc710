package scenarios_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/scenarios"
	"vsrsim/sim"
	"vsrsim/verify"
)

func parseFile(t *testing.T, text string) (*scenarios.File, error) {
	t.Helper()
	return scenarios.ParseFile("t.vsr", strings.NewReader(text))
}

// TestFileErrors: each malformed file is one error naming the file, the line
// and the problem.
func TestFileErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"", "t.vsr: no settings or actions"},
		{"# only a comment\n", "t.vsr: no settings or actions"},
		{"at 300 crsh 1\n", `t.vsr:1: unknown action "crsh"`},
		{"\n\nat soon crash 1\n", `t.vsr:3: tick "soon" is not a number`},
		{"at 300 crash\n", "t.vsr:1: want: at TICK crash REPLICA"},
		{"at 300 crash x\n", `t.vsr:1: "x" is not a replica index`},
		{"at 300 partition 0 1\n", "t.vsr:1: want: at TICK partition"},
		{"at 300 partition 0 | \n", "t.vsr:1: partition: an empty side"},
		{"at 300 extra-delay 2-0=5\n", "t.vsr:1: extra-delay"},
		{"at 300 heal now\n", "t.vsr:1: want: at TICK heal"},
		{"at\n", "t.vsr:1: want: at TICK ACTION"},
		{"expect victory\n", `t.vsr:1: unknown verdict "victory"`},
		{"replicas\n", "t.vsr:1: want: replicas VALUE"},
		{"crash 1\n", `t.vsr:1: unknown line "crash"`},
	} {
		_, err := parseFile(t, tc.text)
		if assert.Error(t, err, tc.text) {
			assert.Equal(t, tc.want, err.Error()[:min(len(err.Error()), len(tc.want))], tc.text)
			assert.NotContains(t, err.Error(), "\n")
		}
	}
}

// TestFileApplyErrors: indexes and ticks are checked against the cluster the
// settings give.
func TestFileApplyErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"replicas 3\nat 10 crash 3\n", "t.vsr:2: no replica 3 in a cluster of 3"},
		{"at 10 partition 0 | 5\n", "t.vsr:1: no replica 5"},
		{"at 10 extra-delay 9:*=5\n", "t.vsr:1: no replica 9"},
		{"ticks 100\nat 200 heal\n", "t.vsr:2: tick 200 is after the fault phase"},
		{"journal disk\n", `t.vsr:1: journal "disk"`},
		{"replicas 99\n", "t.vsr:1: replicas must be"},
		{"core 0 4\n", "t.vsr:1: core: no replica 4"},
	} {
		f, err := parseFile(t, tc.text)
		require.NoError(t, err, tc.text)
		cfg := sim.DefaultConfig(1)
		err = f.Apply(&cfg)
		if assert.Error(t, err, tc.text) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
}

// TestFileExamples: every shipped example parses, names its expected verdict
// and gives it for seeds 1..5; the bad-* examples are refused.
func TestFileExamples(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.vsr")
	require.NoError(t, err)
	good := 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		f, err := scenarios.ParseFile(path, strings.NewReader(string(data)))
		if strings.HasPrefix(filepath.Base(path), "bad-") {
			if err == nil {
				cfg := sim.DefaultConfig(1)
				err = f.Apply(&cfg)
			}
			assert.Error(t, err, path)
			continue
		}
		require.NoError(t, err, path)
		require.NotEmpty(t, f.Expect, "%s names its expected verdict", path)
		good++
		for seed := uint64(1); seed <= 5; seed++ {
			cfg := sim.DefaultConfig(seed)
			require.NoError(t, f.Apply(&cfg))
			res, err := verify.Run(cfg, nil)
			require.NoError(t, err)
			assert.Equal(t, f.Expect, res.Verdict, "%s seed %d: %s", path, seed, res.Evidence)
		}
	}
	assert.GreaterOrEqual(t, good, 3, "a few examples ship")
}

// TestFileZeroExtraDelayReplays: a file whose extra-delay is 0 hashes like
// the same file without that line: setting a delay draws nothing and writes
// no trace line.
func TestFileZeroExtraDelayReplays(t *testing.T) {
	body := "replicas 3\nat 800 partition 0 | 1 2\nat 2000 heal\n"
	hash := func(text string) string {
		f, err := parseFile(t, text)
		require.NoError(t, err)
		cfg := sim.DefaultConfig(4)
		require.NoError(t, f.Apply(&cfg))
		res, err := sim.Run(cfg, nil)
		require.NoError(t, err)
		return res.TraceHash
	}
	without := hash(body)
	assert.Equal(t, without, hash(body+"at 1200 extra-delay 2:*=0\n"))
	assert.NotEqual(t, without, hash(body+"at 1200 extra-delay 2:*=600\n"))
}
