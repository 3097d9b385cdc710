package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/sim"
	"vsrsim/sim/settings"
)

// TestOverrideFlag: a flag sets its override key; the extra_delay line of the
// option dump pastes back as one flag; a bad value fails at parse time.
func TestOverrideFlag(t *testing.T) {
	var o settings.Override
	f := overrideFlag{o: &o, key: "extra-delay", typ: "FROM:TO=TICKS"}
	require.NoError(t, f.Set("0:1=40,2:0=7"))
	require.NoError(t, f.Set("*:1=3"))
	assert.Equal(t, "0:1=40,2:0=7,*:1=3", f.String())
	assert.Equal(t, []string{"--extra-delay", "0:1=40", "--extra-delay", "2:0=7", "--extra-delay", "*:1=3"}, o.Args())
	assert.ErrorContains(t, f.Set("0-1=4"), "FROM:TO=TICKS")

	cfg := sim.DefaultConfig(1)
	cfg.Replicas = 2
	err := o.Apply(&cfg)
	require.Error(t, err)
	assert.Equal(t, "--extra-delay: 2:0=7: no replica 2 in a cluster of 2 (replicas are 0..1)", flagError(err))
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
