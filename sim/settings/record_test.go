package settings_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
	"vsrsim/sim/settings"
)

// TestRecordSettingsApply: the settings a recorded swarm run needs (packet
// corruption, the source protocol's options, the liveness phase's cut
// links) land in the configuration.
func TestRecordSettingsApply(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  [][2]string
		want func(*testing.T, sim.Config)
	}{
		{"corrupt", [][2]string{{"corrupt", "1/300"}}, func(t *testing.T, c sim.Config) {
			assert.Equal(t, prng.Ratio{Num: 1, Den: 300}, c.Network.Corrupt)
			assert.False(t, c.Network.CorruptDelivered)
		}},
		{"corrupt delivered", [][2]string{{"corrupt", "1/40 delivered"}}, func(t *testing.T, c sim.Config) {
			assert.Equal(t, prng.Ratio{Num: 1, Den: 40}, c.Network.Corrupt)
			assert.True(t, c.Network.CorruptDelivered)
		}},
		{"request queue", [][2]string{{"request-queue", "2"}}, func(t *testing.T, c sim.Config) {
			assert.Equal(t, 2, c.RequestQueue)
		}},
		{"protocol list", [][2]string{{"protocol", "svc-quorum-off,abdication-off"}}, func(t *testing.T, c sim.Config) {
			assert.Equal(t, replica.Protocol{SVCQuorumOff: true, AbdicationOff: true}, c.Protocol)
		}},
		{"protocol repeated", [][2]string{{"protocol", "backoff-off"}, {"protocol", "source-transfer"}}, func(t *testing.T, c sim.Config) {
			assert.Equal(t, replica.Protocol{BackoffOff: true, SourceTransfer: true}, c.Protocol)
		}},
		{"protocol robust", [][2]string{{"protocol", "robust"}}, func(t *testing.T, c sim.Config) {
			assert.Equal(t, replica.Protocol{}, c.Protocol)
		}},
		{"liveness cut", [][2]string{{"liveness", "cut 2->0 0->2"}}, func(t *testing.T, c sim.Config) {
			assert.Equal(t, []sim.Link{{From: 2, To: 0}, {From: 0, To: 2}}, c.LivenessCuts)
			assert.False(t, c.LivenessKeepFaults)
		}},
		{"liveness both", [][2]string{{"liveness", "keep-faults cut 1->2"}}, func(t *testing.T, c sim.Config) {
			assert.Equal(t, []sim.Link{{From: 1, To: 2}}, c.LivenessCuts)
			assert.True(t, c.LivenessKeepFaults)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o settings.Override
			for _, kv := range tc.set {
				require.NoError(t, o.Set(kv[0], kv[1]))
			}
			cfg := sim.DefaultConfig(1)
			require.NoError(t, o.Apply(&cfg))
			tc.want(t, cfg)
		})
	}
}

func TestRecordSettingsErrors(t *testing.T) {
	for _, tc := range []struct{ key, value, want string }{
		{"corrupt", "3/2", "not a probability"},
		{"corrupt", "", "want: corrupt P"},
		{"corrupt", "1/40 intact", "want: corrupt P [delivered]"},
		{"request-queue", "0", "must be 1..64"},
		{"request-queue", "65", "must be 1..64"},
		{"protocol", "fast", `protocol "fast": want robust or`},
		{"protocol", "", "protocol: want robust or"},
		{"liveness", "cut", `liveness "cut"`},
		{"liveness", "cut 1->1", `liveness cut: "1->1"`},
		{"liveness", "cut 1-2", `liveness cut: "1-2"`},
	} {
		var o settings.Override
		err := o.Set(tc.key, tc.value)
		if assert.Error(t, err, "%s %s", tc.key, tc.value) {
			assert.Contains(t, err.Error(), tc.want, "%s %s", tc.key, tc.value)
		}
	}
	var o settings.Override
	require.NoError(t, o.Set("liveness", "cut 0->3"))
	cfg := sim.DefaultConfig(1)
	var oe *settings.Error
	if assert.ErrorAs(t, o.Apply(&cfg), &oe) {
		assert.Equal(t, "liveness", oe.Key)
	}
}

// TestProtocolSettingRoundTrip: the value a record writes reads back as the
// options it was written from, for every combination of every boolean field
// of replica.Protocol: an option the setting's table lacks is lost on the way
// and fails here.
func TestProtocolSettingRoundTrip(t *testing.T) {
	fields := reflect.TypeFor[replica.Protocol]()
	require.Less(t, fields.NumField(), 16)
	for mask := 0; mask < 1<<fields.NumField(); mask++ {
		var p replica.Protocol
		v := reflect.ValueOf(&p).Elem()
		for i := 0; i < fields.NumField(); i++ {
			require.Equal(t, reflect.Bool, fields.Field(i).Type.Kind(), fields.Field(i).Name)
			v.Field(i).SetBool(mask&(1<<i) != 0)
		}
		var o settings.Override
		require.NoError(t, o.Set("protocol", settings.Protocol(p)))
		cfg := sim.DefaultConfig(1)
		require.NoError(t, o.Apply(&cfg))
		assert.Equal(t, p, cfg.Protocol, settings.Protocol(p))
	}
}
