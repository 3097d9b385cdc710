package main

import (
	"bytes"
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
			got, err := parseExtraDelay(tt.in)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.in, formatExtraDelay(got), "format round-trips")
		})
	}
}

func TestExtraDelayFlagList(t *testing.T) {
	var f extraDelayFlag
	require.NoError(t, f.Set("0:1=40,2:0=7"))
	require.NoError(t, f.Set("*:1=3"))
	assert.Equal(t, "0:1=40,2:0=7,*:1=3", f.String(), "the option dump's extra_delay line pastes back")
	assert.NoError(t, checkExtraDelays(f.delays, 3))
	assert.ErrorContains(t, checkExtraDelays(f.delays, 2), "no replica 2")
}

func TestShellQuote(t *testing.T) {
	tests := map[string]string{
		"run":         "run",
		"0:1=40":      "0:1=40",
		"*:0=5":       "'*:0=5'",
		"":            "''",
		"it's":        `'it'\''s'`,
		"hollow-op":   "hollow-op",
		"two words":   "'two words'",
		"$(rm -rf /)": "'$(rm -rf /)'",
	}
	for in, want := range tests {
		assert.Equal(t, want, shellQuote(in), "shellQuote(%q)", in)
	}
}

func TestVerdictExitCodes(t *testing.T) {
	tests := map[sim.Verdict]int{
		sim.VerdictPass:          0,
		sim.VerdictUnrecoverable: 0,
		sim.VerdictSafety:        1,
		sim.VerdictLiveness:      3,
		sim.VerdictCrash:         4,
		sim.Verdict("new"):       70,
	}
	for v, want := range tests {
		assert.Equal(t, want, verdictExitCode(v), "verdict %q", v)
	}
}

func TestGuardTurnsPanicIntoOneLine(t *testing.T) {
	var stderr bytes.Buffer
	code := guard(&stderr, func() int { panic("boom\nsecond line") })
	assert.Equal(t, exitSoftware, code)
	assert.Equal(t, "vsrsim: internal error: boom second line\n", stderr.String())
}
