package settings_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
	"vsrsim/sim/settings"
)

// applyStorage sets each `storage` value in order on the default run.
func applyStorage(t *testing.T, values ...string) (sim.Config, error) {
	t.Helper()
	var o settings.Override
	for _, v := range values {
		require.NoError(t, o.Set("storage", v), v)
	}
	cfg := sim.DefaultConfig(1)
	return cfg, o.Apply(&cfg)
}

func TestStorageSettingApply(t *testing.T) {
	r := func(n, d uint32) prng.Ratio { return prng.Ratio{Num: n, Den: d} }
	for _, tc := range []struct {
		name   string
		values []string
		want   sim.Storage
	}{
		{"on", []string{"on"}, sim.Storage{On: true}},
		{"off", []string{"off"}, sim.Storage{}},
		{"read-fault", []string{"read-fault 1/200"}, sim.Storage{On: true, ReadFault: r(1, 200)}},
		{"write-fault decimal", []string{"write-fault 0.005"}, sim.Storage{On: true, WriteFault: r(5000, 1_000_000)}},
		{"misdirect", []string{"misdirect 1/400"}, sim.Storage{On: true, Misdirect: r(1, 400)}},
		{"lost", []string{"lost 1%"}, sim.Storage{On: true, Lost: r(10000, 1_000_000)}},
		{"torn", []string{"torn 1/2"}, sim.Storage{On: true, Torn: r(1, 2)}},
		{"latency", []string{"latency min=2 mean=5"}, sim.Storage{On: true, LatencyMinTicks: 2, LatencyMeanTicks: 5}},
		{"latency at the bound", []string{"latency min=100 mean=100"}, sim.Storage{On: true, LatencyMinTicks: 100, LatencyMeanTicks: 100}},
		{"atlas off", []string{"atlas off"}, sim.Storage{On: true, AtlasOff: true}},
		{"rot", []string{"rot mean=3000"}, sim.Storage{On: true, RotMeanTicks: 3000}},
		{"several", []string{"torn 1/3", "read-fault 1/9", "atlas off"}, sim.Storage{On: true, Torn: r(1, 3), ReadFault: r(1, 9), AtlasOff: true}},
		{"off clears what came before", []string{"torn 1/3", "off", "lost 1/7"}, sim.Storage{On: true, Lost: r(1, 7)}},
		{"off last", []string{"torn 1/3", "off"}, sim.Storage{}},
		{"a later value replaces", []string{"torn 1/3", "torn 1/5"}, sim.Storage{On: true, Torn: r(1, 5)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := applyStorage(t, tc.values...)
			require.NoError(t, err)
			assert.Equal(t, tc.want, cfg.Storage)
		})
	}
}

func TestStorageSettingErrors(t *testing.T) {
	for _, tc := range []struct{ value, want string }{
		{"", "storage: want storage on, off, read-fault"},
		{"disk", `storage "disk": want storage on, off`},
		{"on now", "want: storage on"},
		{"off 1", "want: storage off"},
		{"read-fault", "want: storage read-fault P"},
		{"write-fault 2/1", `storage write-fault: "2/1" is not a probability`},
		{"torn x", `storage torn: "x" is not a probability`},
		{"lost 1/2 1/3", "want: storage lost P"},
		{"latency min=1", "want: storage latency min=TICKS mean=TICKS"},
		{"latency mean=1 min=1", `storage latency: "mean=1": want min=TICKS`},
		{"latency min=500 mean=1", "storage latency min=500 mean=1: each must be 0..100 ticks"},
		{"latency min=1 mean=101", "each must be 0..100 ticks"},
		{"atlas on", "want: storage atlas off"},
		{"rot", "want: storage rot mean=TICKS"},
		{"rot 3000", `storage rot: "3000": want mean=TICKS`},
		{"rot mean=20000000", "storage rot mean=20000000: must be 0..10000000 ticks"},
		{"atlas", "want: storage atlas off"},
	} {
		t.Run(tc.value, func(t *testing.T) {
			var o settings.Override
			err := o.Set("storage", tc.value)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

// TestStorageNeedsWAL: disks with a memory journal are the storage
// setting's error, whichever line came first.
func TestStorageNeedsWAL(t *testing.T) {
	for _, order := range [][][2]string{
		{{"journal", "memory"}, {"storage", "on"}},
		{{"storage", "torn 1/2"}, {"journal", "memory"}},
	} {
		var o settings.Override
		for _, kv := range order {
			require.NoError(t, o.Set(kv[0], kv[1]))
		}
		cfg := sim.DefaultConfig(1)
		err := o.Apply(&cfg)
		var se *settings.Error
		require.ErrorAs(t, err, &se)
		assert.Equal(t, "storage", se.Key)
		assert.Contains(t, err.Error(), "journal memory")
	}
	var o settings.Override
	require.NoError(t, o.Set("journal", "memory"))
	require.NoError(t, o.Set("storage", "off"))
	cfg := sim.DefaultConfig(1)
	assert.NoError(t, o.Apply(&cfg), "no disks, no journal needed")
	assert.Equal(t, replica.DurabilityMemory, cfg.Durability)
}

// TestStorageValuesRoundTrip: the values a recording writes give back the
// storage they were written from, from a run without disks.
func TestStorageValuesRoundTrip(t *testing.T) {
	r := func(n, d uint32) prng.Ratio { return prng.Ratio{Num: n, Den: d} }
	for _, st := range []sim.Storage{
		{},
		{On: true},
		{On: true, LatencyMinTicks: 1, LatencyMeanTicks: 4},
		{On: true, ReadFault: r(1, 2000), WriteFault: r(1, 200), Misdirect: r(1, 400), Lost: r(3, 1000), Torn: r(1, 2), AtlasOff: true},
		{On: true, Torn: r(7, 7), LatencyMeanTicks: 100},
		{On: true, RotMeanTicks: 3000, AtlasOff: true},
	} {
		values := settings.StorageValues(&st)
		cfg, err := applyStorage(t, values...)
		require.NoError(t, err, "%v", values)
		assert.Equal(t, st, cfg.Storage, "%v", values)
		if !st.On {
			assert.Empty(t, values)
		}
	}
}

func TestDescribeStorage(t *testing.T) {
	names := func(c *sim.Config) map[string]string {
		out := map[string]string{}
		for _, o := range settings.Describe(c) {
			out[o.Name] = o.Value
		}
		return out
	}
	off := sim.DefaultConfig(1)
	for name := range names(&off) {
		assert.NotContains(t, name, "storage", "a run without disks dumps as before")
	}
	cfg, err := applyStorage(t, "read-fault 1/200", "latency min=2 mean=5", "atlas off")
	require.NoError(t, err)
	got := names(&cfg)
	assert.Equal(t, "on atlas=off scrub=on", got["storage"])
	assert.Equal(t, "read-fault=1/200 write-fault=off misdirect=off lost=off torn=off", got["storage_faults"])
	assert.Equal(t, "2 + exponential(mean 5) ticks", got["storage_latency"])
}
