package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWALRestartRearmsRepair: a write-ahead replica that restarts holding an
// op of its view only as the view's header, with ops journaled above it and
// no commit lag, asks for that op's body again. The repair window armed when
// the view was adopted dies with the process; without arming it again the op
// stays hollow, the gap check refuses the primary's retransmits (the op is
// below the head), and the primary waits for the ack for ever (swarm seed
// 2265).
func TestWALRestartRearmsRepair(t *testing.T) {
	chain := boundedChain(4)
	r, opts := walBackup(t)
	for _, op := range []uint64{1, 3, 4} {
		require.True(t, r.journalPut(chain[op], true))
	}
	r.log.adopted.Put(chain[2])
	r.wm.sequencer, r.wm.headSum = 4, chain[4].Checksum
	r.fx.Out = nil

	back, err := Restart(opts, zeroJitter{}, r.Durable())
	require.NoError(t, err)
	require.False(t, back.Journaled(2), "op 2 is still header-only")
	asked := false
	for tick := 0; tick < int(opts.Timeouts.RepairTicks)*4 && !asked; tick++ {
		out := vsr.Output{}
		back.Tick(&out)
		for _, m := range out.Messages {
			if m.Command == vsr.CmdRequestPrepares {
				p := m.RequestPrepares()
				asked = asked || (p.From <= 2 && p.To >= 2)
			}
		}
	}
	assert.True(t, asked, "the restarted replica asks for op 2's body")
}

// walBackup is backup r1 of three on a write-ahead journal, in the middle of
// a step (its output begun), for tests that set its state by hand.
func walBackup(t *testing.T) (*Replica, Options) {
	t.Helper()
	opts := DefaultOptions(1, 3)
	opts.Durability = DurabilityWAL
	r, err := New(opts, zeroJitter{})
	require.NoError(t, err)
	r.begin(&vsr.Output{})
	return r, opts
}

// TestRestartKeepsAdoptionUnderItsOwnLogView: headers adopted for a
// log_view whose superblock never landed come back beside the disk under
// their own log_view, never the durable one the restart takes up: relabelled,
// the next restart took them for the durable log's and dropped as stale a
// body of it this replica had acked (swarm seed 1868, D65). With the
// log_view durable they are the durable log's (restoreWAL's stale-body
// check, on a disk, reads the label; swarm seed 1868 passes since).
func TestRestartKeepsAdoptionUnderItsOwnLogView(t *testing.T) {
	for _, durable := range []bool{false, true} {
		chain := boundedChain(2)
		r, opts := walBackup(t)
		require.True(t, r.journalPut(chain[1], true))
		other := vsr.Header{Op: 1, View: 2, Parent: genesisChecksum, Timestamp: 9, Body: put(1, 9)}
		other.Seal()
		r.log.adopted.Put(other) // view 2's op 1, adopted in memory
		r.log.adoptedLogView, r.log.adoptedHead = 2, 1
		r.view, r.logView = 2, 2
		r.dur.sb.View, r.dur.sb.LogView = 2, 1
		if durable {
			r.dur.sb.LogView = 2
		}
		back, err := Restart(opts, zeroJitter{}, r.Durable())
		require.NoError(t, err)
		assert.Equal(t, uint64(2), back.log.adoptedLogView, "the adoption keeps its own log_view")
		assert.Equal(t, map[bool]uint64{false: 1, true: 2}[durable], back.logView, "the durable log_view")
		again, err := Restart(opts, zeroJitter{}, back.Durable())
		require.NoError(t, err)
		assert.Equal(t, uint64(2), again.Durable().view.logView, "a second restart still says whose log they are")
		_, kept := again.log.adopted.Get(1)
		assert.True(t, kept, "the adopted header stays, as before D65")
	}
}
