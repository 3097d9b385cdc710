package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/scenarios"
	"vsrsim/sim"
	"vsrsim/verify"
	"vsrsim/vsr"
)

// ackLedger is a test-side record of acks: per op and checksum, the replicas
// whose current incarnation acked it (a primary acks its own prepares). A
// memory-journal restart withdraws every ack its replica gave before (the
// scenario's journals are memory ones).
type ackLedger struct {
	inner    sim.Script
	watching bool
	acks     map[[2]uint64]uint16
	short    []string
	n        int
}

func (l *ackLedger) At(c *sim.Cluster, tick uint64) {
	if !l.watching {
		l.watching = true
		l.n = c.Config().Replicas
		c.Watch(func(e *vsr.Event) {
			switch e.Kind {
			case vsr.EvAck:
				l.acks[[2]uint64{e.Op, e.Checksum}] |= 1 << uint(e.Replica)
			case vsr.EvPrimaryCommit:
				got := popcount(l.acks[[2]uint64{e.Op, e.Checksum}])
				if got < vsr.QuorumReplication(l.n) {
					l.short = append(l.short, e.String())
				}
			}
		})
	}
	l.inner.At(c, tick)
	for i := 0; i < l.n; i++ {
		if !c.Alive(i) {
			for k := range l.acks {
				l.acks[k] &^= 1 << uint(i)
			}
		}
	}
}

func popcount(x uint16) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// TestAckAcrossRestart: in ack-across-restart every primary commit holds a
// replication quorum of acks from replicas' current incarnations, seeds
// 1..50. Before the primary cleared a restarted replica's bits, op 20
// committed on r2's ack from before its journal was wiped.
func TestAckAcrossRestart(t *testing.T) {
	s, err := scenarios.Lookup("ack-across-restart")
	require.NoError(t, err)
	for seed := uint64(1); seed <= livenessSeeds; seed++ {
		cfg, at := scenarioConfig(t, s, seed, nil)
		l := &ackLedger{inner: at.Script, acks: map[[2]uint64]uint16{}}
		at.Script = l
		res, err := verify.Run(cfg, at)
		require.NoError(t, err)
		assert.Equal(t, sim.VerdictPass, res.Verdict, "seed %d: %s %s", seed, res.Invariant, res.Evidence)
		assert.Empty(t, l.short, "seed %d: primary commits without a quorum of current acks", seed)
	}
}
