package sim_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/sim"
)

// TestConfigValidate: every configuration that cannot run is refused before
// the run with one line naming the problem, network options included.
func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name   string
		change func(c *sim.Config)
		want   string
	}{
		{"no replicas", func(c *sim.Config) { c.Replicas = 0 }, "replicas must be"},
		{"too many replicas", func(c *sim.Config) { c.Replicas = 10 }, "replicas must be"},
		{"no clients", func(c *sim.Config) { c.Clients = 0 }, "clients must be"},
		{"a partition needs two replicas", func(c *sim.Config) {
			c.Replicas = 1
			c.Network.PartitionMode = packetsim.IsolateSingle
		}, "needs at least 2 replicas"},
		{"a ratio above one", func(c *sim.Config) { c.Network.Loss = prng.Ratio{Num: 3, Den: 2} }, "above 1"},
		{"an extra delay to a missing replica", func(c *sim.Config) {
			c.ExtraDelays = []sim.ExtraDelay{{From: 0, To: 7, Ticks: 10}}
		}, "no such replica"},
		{"a core replica out of range", func(c *sim.Config) { c.Core = []int{0, 3} }, "core replica 3"},
		{"a tiny journal", func(c *sim.Config) { c.JournalSlots = 8 }, "journal slots"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sim.DefaultConfig(1)
			tc.change(&cfg)
			err := cfg.Validate()
			if assert.Error(t, err) {
				assert.Contains(t, err.Error(), tc.want)
				assert.False(t, strings.Contains(err.Error(), "\n"), "one line")
			}
			_, runErr := sim.Run(cfg, sim.Attach{})
			assert.Error(t, runErr, "Run refuses it too")
		})
	}
	ok := sim.DefaultConfig(1)
	assert.NoError(t, ok.Validate())
}

func TestParseExtraDelay(t *testing.T) {
	tests := []struct {
		in      string
		want    sim.ExtraDelay
		wantErr string
	}{
		{in: "0:1=40", want: sim.ExtraDelay{From: 0, To: 1, Ticks: 40}},
		{in: "*:2=5", want: sim.ExtraDelay{From: packetsim.AnyNode, To: 2, Ticks: 5}},
		{in: "*:*=0", want: sim.ExtraDelay{From: packetsim.AnyNode, To: packetsim.AnyNode, Ticks: 0}},
		{in: "0:1", wantErr: "FROM:TO=TICKS"},
		{in: "01=4", wantErr: "FROM:TO=TICKS"},
		{in: "a:1=4", wantErr: "FROM"},
		{in: "-1:1=4", wantErr: "FROM"},
		{in: "0:b=4", wantErr: "TO"},
		{in: "0:1=-4", wantErr: "TICKS"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := sim.ParseExtraDelay(tt.in)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.in, got.String(), "format round-trips")
		})
	}
}
