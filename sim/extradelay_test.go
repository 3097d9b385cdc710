package sim_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/packetsim"
	"vsrsim/sim"
)

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
