package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"vsrsim/packetsim"
	"vsrsim/replica"
	"vsrsim/sim"
)

// The parse and run tests of the settings a recorded swarm run writes.

func TestFileParseRecordSettings(t *testing.T) {
	for _, line := range []string{
		"network corrupt 1/300", "corrupt 0.5%", "at 10 network corrupt 0",
		"protocol svc-quorum-off,abdication-off", "protocol backoff-off source-transfer", "protocol robust",
		"liveness cut 2->0 0->2", "liveness keep-faults cut 1->2", "at 10 cut 0 -> c1", "at 10 uncut c0 -> 2",
	} {
		f, err := parseFile(t, line+"\n")
		if assert.NoError(t, err, line) {
			cfg := sim.DefaultConfig(1)
			assert.NoError(t, applyErr(f.Apply(&cfg)), line)
		}
	}
	for _, tc := range []struct{ text, want string }{
		{"ticks 10\nprotocol fast\n", `t.vsr:2: protocol "fast": want robust or`},
		{"network corrupt 2\n", "t.vsr:1: corrupt:"},
		{"liveness cut 0->1\nliveness keep-faults\n", "t.vsr:2: liveness is set twice"},
		{"liveness cut 0->5\n", "t.vsr:1: liveness: cut 0->5: no such replica"},
	} {
		f, err := parseFile(t, tc.text)
		if err == nil {
			cfg := sim.DefaultConfig(1)
			_, err = f.Apply(&cfg)
		}
		if assert.Error(t, err, tc.text) {
			assert.Contains(t, err.Error(), tc.want, tc.text)
		}
	}
}

func TestRunNetworkCorrupt(t *testing.T) {
	res, _ := runFile(t, quiet+"network corrupt 1/20\n", nil)
	assert.Positive(t, res.Stats.Network.Dropped[packetsim.Corrupt], "damaged packets fail their checksum")
	res, _ = runFile(t, quiet, nil)
	assert.Zero(t, res.Stats.Network.Dropped[packetsim.Corrupt], "no corruption unless set")
}

func TestRunProtocol(t *testing.T) {
	var got replica.Protocol
	runFile(t, quiet+"protocol svc-quorum-off,backoff-off\n", func(c *sim.Cluster, tick uint64) {
		got = c.Config().Protocol
	})
	assert.Equal(t, replica.Protocol{SVCQuorumOff: true, BackoffOff: true}, got)
}

// TestRunLivenessCut: the named links go down as the liveness phase begins,
// after its heal, and stay down; the core's links stay up.
func TestRunLivenessCut(t *testing.T) {
	const ticks = 3000
	seen := 0
	res, _ := runFile(t, quiet+"core 0 1\nliveness cut 2->0 2->1 0->2 1->2\n", func(c *sim.Cluster, tick uint64) {
		if tick == ticks-1 {
			assert.True(t, c.Network().Connected(2, 0), "up in the fault phase")
		}
		if tick == ticks+100 {
			seen++
			assert.False(t, c.Network().Connected(2, 0))
			assert.False(t, c.Network().Connected(0, 2))
			assert.True(t, c.Network().Connected(0, 1), "the core stays connected")
		}
	})
	assert.Equal(t, 1, seen, "the probe saw the liveness phase")
	assert.Equal(t, sim.VerdictPass, res.Verdict, "the core converges without r2")
}
