package settings_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
	"vsrsim/sim/settings"
	"vsrsim/sim/swarm"
)

// TestOverrideSetErrors: a malformed value is refused by Set, one line.
func TestOverrideSetErrors(t *testing.T) {
	for _, tc := range []struct{ key, value, want string }{
		{"replicas", "x", `replicas "x" is not a number`},
		{"journal", "disk", `journal "disk": want wal or memory`},
		{"topology", "ring", `topology "ring"`},
		{"workload", "bursty", `workload "bursty"`},
		{"liveness", "strict", `liveness "strict"`},
		{"liveness", "isolate", `liveness "isolate": want off, or keep-faults`},
		{"liveness", "off cut 0->1", `liveness "off cut 0->1": off stands alone`},
		{"liveness", "isolate x", `liveness isolate "x": want a replica number`},
		{"liveness", "cut isolate 1", `liveness "cut isolate 1"`},
		{"liveness", "heal x", `liveness heal "x": want a replica number`},
		{"liveness", "isolate 1 heal", `liveness "isolate 1 heal"`},
		{"core", "0 0", "core: replica 0 twice"},
		{"core", "a", `core: "a" is not a replica index`},
		{"extra-delay", "1-2=3", "FROM:TO=TICKS"},
		{"loss", "2/1", "not a probability"},
		{"loss", "150%", "not a probability"},
		{"reorder", "1/10", "want: reorder P max=TICKS"},
		{"reorder", "1/10 max=0", "reorder max must be positive"},
		{"clog", "mean=x", "mean is not a number"},
		{"delay", "min=1", "want: delay min=TICKS mean=TICKS"},
		{"link-capacity", "0", "want 1.."},
		{"colour", "red", `unknown setting "colour"`},
	} {
		var o settings.Override
		err := o.Set(tc.key, tc.value)
		if assert.Error(t, err, tc.key) {
			assert.Contains(t, err.Error(), tc.want, tc.key)
		}
	}
}

// TestOverrideApply: each key lands in its field; settings are checked against
// the cluster the override gives.
func TestOverrideApply(t *testing.T) {
	var o settings.Override
	for _, kv := range [][2]string{
		{"replicas", "5"}, {"clients", "2"}, {"ticks", "900"}, {"journal", "memory"},
		{"journal-slots", "64"}, {"topology", "star"}, {"checkpoint-interval", "16"},
		{"liveness-ticks", "7000"}, {"workload", "steady"}, {"think", "12"}, {"core", "4 1"},
		{"liveness", "keep-faults"}, {"quiet", ""}, {"loss", "1%"}, {"reorder", "0.5 max=9"},
		{"clog", "mean=50"}, {"delay", "min=2 mean=4"}, {"link-capacity", "32"}, {"extra-delay", "4:*=10"},
	} {
		require.NoError(t, o.Set(kv[0], kv[1]), kv[0])
	}
	cfg := swarm.Config(3)
	require.NoError(t, o.Apply(&cfg))
	assert.Equal(t, 5, cfg.Replicas)
	assert.Equal(t, 2, cfg.Clients)
	assert.Equal(t, uint64(900), cfg.FaultTicks)
	assert.Equal(t, replica.DurabilityMemory, cfg.Durability)
	assert.Equal(t, 64, cfg.JournalSlots)
	assert.Equal(t, replica.TopologyStar, cfg.Topology)
	assert.Equal(t, uint64(16), cfg.CheckpointInterval)
	assert.Equal(t, uint64(7000), cfg.LivenessTicks)
	assert.True(t, cfg.ThinkSteady)
	assert.Equal(t, uint64(12), cfg.RequestMeanTicks)
	assert.Equal(t, []int{1, 4}, cfg.Core)
	assert.True(t, cfg.LivenessKeepFaults)
	assert.Equal(t, prng.Ratio{Num: 1, Den: 100}, prng.Ratio{Num: cfg.Network.Loss.Num * 100 / cfg.Network.Loss.Den, Den: 100})
	assert.True(t, cfg.Network.Replay.Zero(), "quiet turned replay off")
	assert.Equal(t, uint64(9), cfg.Network.ReorderMaxTicks)
	assert.Equal(t, uint64(50), cfg.Network.ClogMeanTicks)
	assert.False(t, cfg.Network.Clog.Zero(), "a clog mean after quiet turns clogs back on")
	assert.Equal(t, uint64(2), cfg.Network.DelayMinTicks)
	assert.Equal(t, 32, cfg.Network.LinkCapacity)
	assert.Equal(t, []sim.ExtraDelay{{From: 4, To: -1, Ticks: 10}}, cfg.ExtraDelays)

	var off settings.Override
	require.NoError(t, off.Set("workload", "off"))
	cfg = sim.DefaultConfig(1)
	require.NoError(t, off.Apply(&cfg))
	assert.True(t, cfg.WorkloadOff)
}

func TestOverrideApplyErrors(t *testing.T) {
	for _, tc := range []struct {
		set     [][2]string
		key     string
		wantErr string
	}{
		{[][2]string{{"replicas", "0"}}, "replicas", "must be 1.."},
		{[][2]string{{"clients", "0"}}, "clients", "must be 1.."},
		{[][2]string{{"replicas", "3"}, {"core", "3"}}, "core", "no replica 3 in a cluster of 3"},
		{[][2]string{{"extra-delay", "0:7=1"}}, "extra-delay", "no replica 7"},
		{[][2]string{{"ticks", "0"}, {"liveness-ticks", "0"}}, "ticks", "a run needs ticks"},
		{[][2]string{{"replicas", "3"}, {"liveness", "cut 0->1 isolate 3"}}, "liveness", "isolate 3: no such replica"},
		{[][2]string{{"replicas", "3"}, {"liveness", "isolate 0 heal 3"}}, "liveness", "heal 3: no such replica"},
	} {
		var o settings.Override
		for _, kv := range tc.set {
			require.NoError(t, o.Set(kv[0], kv[1]))
		}
		cfg := sim.DefaultConfig(1)
		err := o.Apply(&cfg)
		var oe *settings.Error
		if assert.ErrorAs(t, err, &oe, "%v", tc.set) {
			assert.Equal(t, tc.key, oe.Key)
			assert.Contains(t, err.Error(), tc.wantErr)
		}
	}
}

// TestOverrideSetBounds: a value outside its bound is refused as it is set,
// with the one message flags and files share.
func TestOverrideSetBounds(t *testing.T) {
	var o settings.Override
	assert.EqualError(t, o.Set("journal-slots", "3"), "journal-slots 3: must be 64..65536")
	assert.EqualError(t, o.Set("ticks", "18446744073709551615"), "ticks 18446744073709551615: must be 0..1000000")
	assert.Error(t, o.Set("extra-delay", "1:1=5"), "a replica delaying itself")
}

// TestOverrideReplicasDropsDrawnDelays: a drawn extra delay naming a replica
// the overridden cluster lacks goes, and one replica turns partitions off.
func TestOverrideReplicasDropsDrawnDelays(t *testing.T) {
	var o settings.Override
	require.NoError(t, o.Set("replicas", "1"))
	cfg := sim.DefaultConfig(1)
	cfg.ExtraDelays = []sim.ExtraDelay{{From: 2, To: 0, Ticks: 5}, {From: 0, To: -1, Ticks: 5}}
	require.NoError(t, o.Apply(&cfg))
	assert.Equal(t, []sim.ExtraDelay{{From: 0, To: -1, Ticks: 5}}, cfg.ExtraDelays)
	assert.True(t, cfg.Network.PartitionChance.Zero())
}

func TestParseRatio(t *testing.T) {
	for in, want := range map[string]prng.Ratio{
		"1/100": {Num: 1, Den: 100}, "0": {}, "0.5": {Num: 500000, Den: 1000000},
		"1%": {Num: 10000, Den: 1000000}, "0/7": {Num: 0, Den: 7},
	} {
		got, err := settings.ParseRatio(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "x", "1/0", "3/2", "1.5", "-0.1", "1e-3", "NaN", "%"} {
		_, err := settings.ParseRatio(in)
		assert.Error(t, err, in)
	}
}

// TestTable: the keys keep their order (a file's error lists them, a replay
// command gives its flags in it), the run flags are the seven they were, and
// every row says what it does.
func TestTable(t *testing.T) {
	assert.Equal(t, []string{
		"replicas", "clients", "ticks", "journal", "journal-slots", "topology", "extra-delay",
		"checkpoint-interval", "liveness-ticks", "workload", "think", "core", "liveness", "burst", "protocol",
		"request-queue", "storage", "crashes", "loss", "replay", "reorder", "clog", "delay", "link-capacity", "quiet", "corrupt",
	}, settings.Keys())
	assert.Equal(t, []string{"replicas", "clients", "ticks", "journal", "journal-slots", "topology", "extra-delay"}, settings.FlagKeys())
	for _, s := range settings.Flags() {
		assert.NotEmpty(t, s.Form, s.Key)
		assert.NotEmpty(t, s.Usage, s.Key)
	}
}
