package scenarios_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/scenarios"
	"vsrsim/sim"
	"vsrsim/sim/ndjson"
	"vsrsim/verify"
)

func parseFile(t *testing.T, text string) (*scenarios.File, error) {
	t.Helper()
	return scenarios.ParseFile("t.vsr", strings.NewReader(text))
}

// fileTraceHash runs text, read as the file name, on the default cluster of
// seed and returns the run's trace hash.
func fileTraceHash(t *testing.T, name, text string, seed uint64) string {
	t.Helper()
	f, err := scenarios.ParseFile(name, strings.NewReader(text))
	require.NoError(t, err)
	cfg := sim.DefaultConfig(seed)
	script, err := f.Apply(&cfg)
	require.NoError(t, err)
	res, err := sim.Run(cfg, sim.Attach{Script: script})
	require.NoError(t, err)
	return res.TraceHash
}

// TestFileParse: every line of the format parses and applies to the default
// cluster (the run tests below show what each does).
func TestFileParse(t *testing.T) {
	for _, line := range []string{
		"replicas 5", "clients 2", "journal memory", "journal-slots 64", "ticks 3000", "core 0 1",
		"topology star", "checkpoint-interval 32", "liveness-ticks 9000", "workload steady", "workload off",
		"think 15", "liveness keep-faults", "crashes beyond-f", "crashes within-f",
		"loss 1/100", "replay 0.01", "reorder 2% max=20", "clog off", "clog mean=40", "delay min=1 mean=5",
		"link-capacity 16", "quiet", "network quiet", "network loss 0",
		"at 10 crash 1", "at 10 crash primary", "at 10 crash backup2 1", "at 10 restart backup1",
		"at 10 partition 0 | 1 2", "at 10 partition primary | *", "at 10 partition 0 | 1 | 2",
		"at 10 partition c0 c1 | primary", "at 10 partition clients | *", "at 10 heal",
		"at 10 cut * -> primary", "at 10 uncut * -> primary", "at 10 cut c0 -> 0 1", "at 10 cut primary -> clients",
		"at 10 drop Prepare 0 -> 1", "at 10 drop prepareok,COMMIT * -> primary", "at 10 pass Prepare 0 -> 1",
		"at 10 hold 0 -> 1 2", "at 10 release 0 -> 1 2",
		"at 10 network loss 1/10", "at 10 network replay 1/10", "at 10 network reorder 1/10 max=5",
		"at 10 network clog off", "at 10 network clog mean=9", "at 10 network delay min=3 mean=0",
		"at 10 network link-capacity 8", "at 10 network quiet",
		"at 10 extra-delay 2:*=600", "at 10 extra-delay primary:backup1=50", "at 10 note hello there",
		"expect pass", "expect liveness", "expect served 100 2000 >= 5", "expect view-change 100 3000",
	} {
		f, err := parseFile(t, line+"\n")
		if assert.NoError(t, err, line) {
			cfg := sim.DefaultConfig(1)
			assert.NoError(t, applyErr(f.Apply(&cfg)), line)
		}
	}
}

// TestFileErrors: each malformed file is one error naming the file, the line
// and the problem, settings included.
func TestFileErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"", "t.vsr: no settings or actions"},
		{"# only a comment\n", "t.vsr: no settings or actions"},
		{"at 300 crsh 1\n", `t.vsr:1: unknown action "crsh"`},
		{"\n\nat soon crash 1\n", `t.vsr:3: tick "soon" is not a number`},
		{"at 300 crash\n", "t.vsr:1: want: at TICK crash TARGET.."},
		{"at 300 crash x\n", `t.vsr:1: "x" is not a target`},
		{"at 300 crash c0\n", "t.vsr:1: crash: c0 is not a replica"},
		{"at 300 crash backup0\n", `t.vsr:1: "backup0" is not a target`},
		{"at 300 partition 0 1\n", "t.vsr:1: want: at TICK partition"},
		{"at 300 partition 0 | \n", "t.vsr:1: partition: an empty side"},
		{"at 300 partition 0 1 | 1 2\n", "t.vsr:1: partition: 1 is on two sides"},
		{"at 300 partition * | 0 | *\n", "t.vsr:1: partition: * on two sides"},
		{"at 300 extra-delay 2-0=5\n", "t.vsr:1: extra-delay"},
		{"at 300 extra-delay c0:1=5\n", "t.vsr:1: extra-delay"},
		{"at 300 heal now\n", "t.vsr:1: want: at TICK heal"},
		{"at 300 cut 0 1\n", "t.vsr:1: want: at TICK cut FROM.. -> TO.."},
		{"at 300 cut -> 1\n", "t.vsr:1: want: at TICK cut FROM.. -> TO.."},
		{"at 300 hold 0 ->\n", "t.vsr:1: want: at TICK hold FROM.. -> TO.."},
		{"at 300 drop 0 -> 1\n", `t.vsr:1: "0" is not a message kind`},
		{"at 300 drop Preparr 0 -> 1\n", `t.vsr:1: "Preparr" is not a message kind`},
		{"at 300 pass\n", "t.vsr:1: want: at TICK pass KIND"},
		{"at 300 network\n", "t.vsr:1: want a network setting"},
		{"at 300 network loud\n", `t.vsr:1: unknown network setting "loud"`},
		{"at 300 network loss lots\n", `t.vsr:1: loss: "lots" is not a probability`},
		{"at\n", "t.vsr:1: want: at TICK ACTION"},
		{"expect victory\n", `t.vsr:1: unknown verdict "victory"`},
		{"expect pass\nexpect liveness\n", "t.vsr:2: a second expected verdict (first on line 1)"},
		{"expect served 10 20\n", "t.vsr:1: want: expect served T1 T2 >= N"},
		{"expect served 10 20 > 3\n", "t.vsr:1: want: expect served T1 T2 >= N"},
		{"expect served 20 10 >= 3\n", "t.vsr:1: window 20 10 ends before it starts"},
		{"expect served 1 10 >= x\n", `t.vsr:1: served: "x" is not a number`},
		{"expect view-change 10\n", "t.vsr:1: want: expect view-change T1 T2"},
		{"expect view-change a b\n", "t.vsr:1: window a b: want two ticks"},
		{"replicas\n", "t.vsr:1: want: replicas VALUE"},
		{"replicas x\n", `t.vsr:1: replicas "x" is not a number`},
		{"journal disk\n", `t.vsr:1: journal "disk": want wal or memory`},
		{"topology ring\n", `t.vsr:1: topology "ring"`},
		{"workload heavy\n", `t.vsr:1: workload "heavy"`},
		{"liveness strict\n", `t.vsr:1: liveness "strict"`},
		{"think\n", "t.vsr:1: want: think VALUE"},
		{"quiet loudly\n", "t.vsr:1: want: quiet (no arguments)"},
		{"replicas 3\n\nreplicas 5\n", "t.vsr:3: replicas is set twice (first on line 1)"},
		{"loss 1/10\nnetwork loss 1/20\n", "t.vsr:2: loss is set twice (first on line 1)"},
		{"extra-delay 0:1=5\n", `t.vsr:1: unknown line "extra-delay"`},
		{"crash 1\n", `t.vsr:1: unknown line "crash"`},
		{"network\n", "t.vsr:1: want: network SETTING"},
		{"network replicas 3\n", `t.vsr:1: unknown network setting "replicas"`},
	} {
		_, err := parseFile(t, tc.text)
		if assert.Error(t, err, tc.text) {
			assert.Equal(t, tc.want, err.Error()[:min(len(err.Error()), len(tc.want))], tc.text)
			assert.NotContains(t, err.Error(), "\n")
		}
	}
}

// TestFileApplyErrors: targets, ticks and settings are checked against the
// cluster the settings give, whatever their position, naming the line.
func TestFileApplyErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"replicas 3\nat 10 crash 3\n", "t.vsr:2: no replica 3 in a cluster of 3"},
		{"at 10 crash 3\nreplicas 3\n", "t.vsr:1: no replica 3 in a cluster of 3"},
		{"at 10 partition 0 | 5\n", "t.vsr:1: no replica 5"},
		{"at 10 extra-delay 9:*=5\n", "t.vsr:1: no replica 9"},
		{"at 10 crash backup3\n", "t.vsr:1: no backup3 in a cluster of 3 (backups are backup1..backup2)"},
		{"clients 2\nat 10 cut c2 -> 0\n", "t.vsr:2: no client c2 with 2 clients"},
		{"ticks 100\nat 200 heal\n", "t.vsr:2: tick 200 is after the fault phase"},
		{"ticks 100\nliveness-ticks 100\nexpect served 10 300 >= 1\n", "t.vsr:3: window ends at 300, after the run's last tick 200"},
		{"replicas 99\n", "t.vsr:1: replicas: must be 1..9"},
		{"clients 0\n", "t.vsr:1: clients: must be 1.."},
		{"core 0 4\n", "t.vsr:1: core: no replica 4 in a cluster of 3"},
		{"core 4\nreplicas 5\nreplicas 3\n", "t.vsr:3: replicas is set twice"},
		{"journal-slots 8\n", "t.vsr:1: journal-slots 8: must be 64..65536"},
		{"\nticks 0\nliveness-ticks 0\n", "t.vsr:2: ticks: a run needs ticks"},
	} {
		f, err := parseFile(t, tc.text)
		if err == nil {
			cfg := sim.DefaultConfig(1)
			_, err = f.Apply(&cfg)
		}
		if assert.Error(t, err, tc.text) {
			assert.Contains(t, err.Error(), tc.want, tc.text)
			assert.NotContains(t, err.Error(), "\n")
		}
	}
}

// TestFileSettings: settings land in the run's configuration; files keep the
// default network faults unless they say otherwise.
func TestFileSettings(t *testing.T) {
	apply := func(text string) sim.Config {
		f, err := parseFile(t, text)
		require.NoError(t, err)
		cfg := sim.DefaultConfig(1)
		require.NoError(t, applyErr(f.Apply(&cfg)))
		return cfg
	}
	def := apply("replicas 3\n")
	assert.False(t, def.Network.Loss.Zero(), "loss stays on")
	assert.False(t, def.Network.Replay.Zero(), "replay stays on")
	assert.False(t, def.Network.Clog.Zero(), "clogs stay on")
	assert.True(t, def.CrashChance.Zero(), "random crashes off")
	assert.True(t, def.Network.PartitionChance.Zero(), "random partitions off")
	assert.Empty(t, def.Core, "the core is drawn from the seed")

	q := apply("quiet\n")
	assert.True(t, q.Network.Loss.Zero() && q.Network.Replay.Zero() && q.Network.Reorder.Zero() && q.Network.Clog.Zero())
	s := apply("topology star\ncheckpoint-interval 32\nliveness-ticks 9000\nworkload steady\nthink 15\nliveness keep-faults\nexpect served 1 2 >= 0\n")
	assert.Equal(t, "star", s.Topology.String())
	assert.Equal(t, uint64(32), s.CheckpointInterval)
	assert.Equal(t, uint64(9000), s.LivenessTicks)
	assert.True(t, s.ThinkSteady)
	assert.Equal(t, uint64(15), s.RequestMeanTicks)
	assert.True(t, s.LivenessKeepFaults)
	assert.Equal(t, []sim.Expectation{{Kind: sim.ExpectServed, From: 1, To: 2, Min: 0, Where: "t.vsr:7"}}, s.Expect)
}

// TestFileExamples: every top-level example parses, names its expected
// verdict and gives it for seeds 1..5; the bad-* examples are refused.
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
				_, err = f.Apply(&cfg)
			}
			assert.Error(t, err, path)
			continue
		}
		require.NoError(t, err, path)
		require.NotEmpty(t, f.Expect, "%s names its expected verdict", path)
		good++
		for seed := uint64(1); seed <= 5; seed++ {
			cfg := sim.DefaultConfig(seed)
			script, err := f.Apply(&cfg)
			require.NoError(t, err)
			res, err := verify.Run(cfg, sim.Attach{Script: script})
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
	hash := func(text string) string { return fileTraceHash(t, "t.vsr", text, 4) }
	without := hash(body)
	assert.Equal(t, without, hash(body+"at 1200 extra-delay 2:*=0\n"))
	assert.NotEqual(t, without, hash(body+"at 1200 extra-delay 2:*=600\n"))
}

// traceLine is one trace line with its tick.
type traceLine struct {
	Tick uint64 `json:"tick"`
	Kind string `json:"kind"`
	Line string `json:"line"`
}

// runFile runs text for seed 1 and returns its result and trace; probe, if
// set, sees the cluster at the start of each tick after the file's actions.
func runFile(t *testing.T, text string, probe func(c *sim.Cluster, tick uint64)) (sim.Result, []traceLine) {
	t.Helper()
	f, err := parseFile(t, text)
	require.NoError(t, err)
	cfg := sim.DefaultConfig(1)
	script, err := f.Apply(&cfg)
	require.NoError(t, err)
	if probe != nil {
		script = probed{script, probe}
	}
	var buf bytes.Buffer
	res, err := sim.Run(cfg, sim.Attach{Observer: ndjson.New(&buf, ndjson.Filter{}), Script: script})
	require.NoError(t, err)
	var lines []traceLine
	sc := bufio.NewScanner(&buf)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		var l traceLine
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l))
		lines = append(lines, l)
	}
	return res, lines
}

type probed struct {
	inner sim.Script
	probe func(c *sim.Cluster, tick uint64)
}

func (p probed) At(c *sim.Cluster, tick uint64) {
	p.inner.At(c, tick)
	p.probe(c, tick)
}

func (p probed) LivenessStart(c *sim.Cluster, core []int) {
	p.inner.(sim.LivenessStarter).LivenessStart(c, core)
}

// count counts the trace lines in ticks [from, to] that hold every word.
func count(lines []traceLine, from, to uint64, words ...string) int {
	n := 0
	for _, l := range lines {
		if l.Tick < from || l.Tick > to {
			continue
		}
		all := true
		for _, w := range words {
			all = all && strings.Contains(l.Line, w)
		}
		if all {
			n++
		}
	}
	return n
}
