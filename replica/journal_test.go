package replica

import (
	"strings"
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Journal retention: protocol.md "State of one replica" (bounded retention,
// the evicted ring) and "Repair" (RangeEvicted, then state transfer).

func hdr(op uint64) vsr.Header {
	h := vsr.Header{Op: op, Timestamp: op, Body: put(uint32(op), op)}
	h.Seal()
	return h
}

// retained is a 3-replica star cluster whose primary committed `ops` ops with
// 64 journal slots; r2 saw none of them (its prepares were dropped and its
// repair requests are still dropped).
func retained(t *testing.T, ops uint64) (*testCluster, int) {
	t.Helper()
	c := newTestCluster(t, 3, func(o *Options) {
		o.Topology = TopologyStar
		o.JournalSlots = 64
	})
	starve := c.dropIf(func(m *vsr.Message) bool { return m.Command == vsr.CmdPrepare && m.To == 2 })
	noRepair := c.dropIf(cmdFrom(vsr.CmdRequestPrepares, 2))
	c.commitRequests(0, 1, ops)
	c.removeFilter(starve)
	require.Equal(t, ops, c.info(0).CommitMax)
	return c, noRepair
}

// TestJournalEvictedRingServesRepair: a replica answers repair from its
// evicted ring, and answers RangeEvicted{first retained} below it.
func TestJournalEvictedRingServesRepair(t *testing.T) {
	c, _ := retained(t, 140)
	r0 := c.r(0)
	first := r0.firstRetained()
	assert.Equal(t, uint64(140-2*64+1), first)

	_, live := r0.log.journal.Get(20)
	require.False(t, live, "op 20 left the live ring")
	out := &vsr.Output{}
	r0.Step(msg(vsr.RequestPrepares{From: 20, To: 22}, 1, 0, 0), out)
	served := repairServed(out)
	var ops []uint64
	for _, h := range served {
		ops = append(ops, h.Op)
		assert.True(t, h.Valid())
	}
	assert.Equal(t, []uint64{20, 21, 22}, ops, "served from the evicted ring")
	require.NotEmpty(t, out.Messages)
	last := out.Messages[len(out.Messages)-1]
	assert.Equal(t, vsr.CmdRepairDone, last.Command)
	assert.Equal(t, uint64(22), last.RepairDone().Last)

	out.Reset()
	r0.Step(msg(vsr.RequestPrepares{From: 5, To: 6}, 1, 0, 0), out)
	require.Len(t, out.Messages, 1)
	assert.Equal(t, vsr.CmdRangeEvicted, out.Messages[0].Command)
	assert.Equal(t, first, out.Messages[0].RangeEvicted().First)
}

// TestJournalRangeEvictedArmsStateTransfer: a replica whose next op is older
// than anything its peers retain gets RangeEvicted and catches up by state
// transfer instead. Repair above the evicted range is held back here: it
// thrashes (see TestJournalRepairAfterRangeEvictedQuiesces).
func TestJournalRangeEvictedArmsStateTransfer(t *testing.T) {
	c, noRepair := retained(t, 140)
	c.removeFilter(noRepair)
	c.dropIf(func(m *vsr.Message) bool {
		return m.Command == vsr.CmdRequestPrepares && m.From == 2 && m.RequestPrepares().From > 1
	})
	c.tickUntil(100, func() bool { return len(c.sent(cmdTo(vsr.CmdRangeEvicted, 2))) > 0 }, "r2 asks for evicted ops")
	ev := c.sent(cmdTo(vsr.CmdRangeEvicted, 2))[0]
	assert.Equal(t, uint64(140-2*64+1), ev.RangeEvicted().First, "the server's first retained op")
	assert.True(t, c.info(2).Transferring, "RangeEvicted arms a state transfer")
	assert.NotEmpty(t, c.sent(cmdFrom(vsr.CmdRequestStateTransfer, 2)))

	c.tickUntil(200, func() bool { return c.info(2).CommitMin == 140 }, "r2 catches up")
	inst := c.eventsOf(2, vsr.EvTransferInstall)
	require.Len(t, inst, 1)
	assert.Equal(t, uint64(140), inst[0].Op)
	assert.Equal(t, c.r(0).sm, c.r(2).sm)
	assert.False(t, c.info(2).Transferring)
	assert.Equal(t, uint64(140), c.info(2).Checkpoint)
}

// TestJournalRepairAfterRangeEvictedQuiesces documents a repair thrash: after
// RangeEvicted the requester keeps repairing from the server's first retained
// op up to commit_max, a window (up to 2*journal_slots ops) wider than its own
// journal. None of it can commit (ops below the floor are missing until the
// transfer installs), so each repaired window displaces the previous one from
// the live ring (journal.put of an older op into a slot held by a newer op
// drops the newer op outright), holdsCanonical finds the bottom missing again,
// and RepairDone -> repairKick re-requests it forever, at network speed, until
// the transfer installs (or forever if it never can).
func TestJournalRepairAfterRangeEvictedQuiesces(t *testing.T) {
	c, noRepair := retained(t, 140)
	c.removeFilter(noRepair)
	// Tick until r2's repair timer fires, then let the messages run out: a
	// bounded number must do (four windows of 32 cover ops 13..140).
	for k := 0; k < 20 && len(c.sent(cmdTo(vsr.CmdRangeEvicted, 2))) == 0; k++ {
		for _, r := range c.replicas {
			r.Tick(&c.out)
			c.collect()
		}
		for steps := 0; steps < 10_000 && c.deliverOne(); steps++ {
		}
	}
	require.NotEmpty(t, c.sent(cmdTo(vsr.CmdRangeEvicted, 2)))
	assert.Zero(t, len(c.queue), "repair traffic must quiesce between ticks")
	assert.LessOrEqual(t, len(c.sent(cmdFrom(vsr.CmdRequestPrepares, 2))), 6)
}

// TestCheckpointEveryFitsTheJournal: the journal always holds every op since
// the last checkpoint plus a full pipeline.
func TestCheckpointEveryFitsTheJournal(t *testing.T) {
	assert.Equal(t, uint64(16), CheckpointEvery(16, 64))
	assert.Equal(t, uint64(64-vsr.PipelineMax), CheckpointEvery(153, 64))
	assert.Equal(t, uint64(256), CheckpointEvery(256, 1024))
	for slots := vsr.JournalSlotsMin; slots <= 1024; slots *= 2 {
		if slots < 2*vsr.PipelineMax {
			continue
		}
		assert.LessOrEqual(t, CheckpointEvery(1<<20, slots)+vsr.PipelineMax, uint64(slots))
	}
}

// TestTransferStaleGuard: a replica holding ops 1..10 (acked up to `acked`,
// the rest fetched by repair) is offered a checkpoint at `offer`. The fixed
// guard refuses only an offer below a held op it may have acknowledged (the
// accepted head: the ack head with a WAL, commit_max without), with its own
// reason; the defect's guard refuses anything below max(journal head,
// commit_max). An install keeps the journaled ops above the checkpoint.
func TestTransferStaleGuard(t *testing.T) {
	hs := chainHeaders(10, 0)
	for _, tc := range []struct {
		name       string
		durability Durability
		bugs       Bugs
		acked      uint64
		commitMax  uint64
		offer      uint64
		guard      uint64 // 0: installs
		reason     vsr.Reason
	}{
		{"wal: offer below an acked op", DurabilityWAL, Bugs{}, 10, 8, 7, 10, refuseAcked},
		{"wal: repaired ops above the ack head", DurabilityWAL, Bugs{}, 5, 10, 7, 0, vsr.ReasonNone},
		{"wal: offer at the ack head", DurabilityWAL, Bugs{}, 7, 10, 7, 0, vsr.ReasonNone},
		{"memory: held op below commit_max", DurabilityMemory, Bugs{}, 0, 8, 7, 8, refuseAcked},
		{"memory: offer at commit_max", DurabilityMemory, Bugs{}, 10, 8, 8, 0, vsr.ReasonNone},
		{"keeping install: nothing to protect", DurabilityWAL, Bugs{}, 10, 8, 7, 0, vsr.ReasonNone},
		{"defect: repaired ops", DurabilityWAL, Bugs{StaleGuardUsesCommitMax: true}, 5, 10, 7, 10, refuseStale},
		{"defect: commit_max alone", DurabilityWAL, Bugs{StaleGuardUsesCommitMax: true}, 0, 12, 10, 12, refuseStale},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := DefaultOptions(1, 3)
			opts.Durability = tc.durability
			opts.Bugs = tc.bugs
			// The source's install loses held ops above the checkpoint, so
			// its guard has something to protect; the keeping install does not.
			opts.Protocol.SourceTransfer = !strings.HasPrefix(tc.name, "keeping install")
			r, err := New(opts, zeroJitter{})
			require.NoError(t, err)
			r.fx.Out = &vsr.Output{}
			for op := 1; op <= 10; op++ {
				r.journalPut(hs[op], true)
				if uint64(op) <= tc.acked {
					r.ack(hs[op])
				}
			}
			r.wm.sequencer, r.wm.headSum = 10, hs[10].Checksum
			r.wm.commitMax = tc.commitMax
			require.Equal(t, tc.acked, r.dur.ackHead)

			r.transfer = transferState{active: true, pinned: true, commitOp: tc.offer, snapshot: snapshotOf(hs, tc.offer)}
			r.installTransfer()

			refused := eventsIn(r.fx.Out, vsr.EvOfferRefused)
			if tc.guard != 0 {
				require.Len(t, refused, 1)
				assert.Equal(t, tc.reason, refused[0].OfferRefused().Reason)
				assert.Equal(t, tc.guard, refused[0].OfferRefused().Guard, "the op that made the offer stale")
				assert.Equal(t, tc.offer, refused[0].Op)
				assert.Zero(t, r.wm.commitMin, "nothing installed")
				assert.True(t, r.transfer.active, "the transfer goes on with a new offer")
				return
			}
			assert.Empty(t, refused)
			// A backup applies at once what it holds above the checkpoint up
			// to the commit point it knows (D77); the source's install keeps
			// nothing above it.
			want := tc.offer
			if !opts.Protocol.SourceTransfer {
				want = max(tc.offer, tc.commitMax)
			}
			assert.Equal(t, want, r.wm.commitMin)
			assert.Equal(t, uint64(10), r.wm.sequencer, "the head stays")
			for op := tc.offer + 1; op <= 10; op++ {
				// The source's install replaces the whole journal; repair
				// fetches the ops above the checkpoint again.
				assert.Equal(t, !opts.Protocol.SourceTransfer, r.log.journal.Has(op, hs[op].Checksum), "op %d above the checkpoint kept", op)
			}
			for op := uint64(1); op <= tc.offer; op++ {
				_, ok := r.log.journal.GetForRepair(op)
				assert.False(t, ok, "op %d replaced by the checkpoint", op)
			}
		})
	}
}

// snapshotOf is the checkpoint at op of the chain hs.
func snapshotOf(hs []vsr.Header, op uint64) *vsr.Snapshot {
	var sm vsr.StateMachine
	for o := uint64(1); o <= op; o++ {
		sm.Apply(hs[o].Body)
	}
	s := &vsr.Snapshot{Op: op, OpChecksum: hs[op].Checksum, State: sm}
	s.StateChecksum = s.State.Checksum()
	return s
}

// repairServed lists the bodies a repair answer in out carries, in order.
func repairServed(out *vsr.Output) []vsr.Header {
	var hs []vsr.Header
	for _, m := range out.Messages {
		if m.Command == vsr.CmdRepairPrepare {
			hs = append(hs, m.RepairPrepare().Header)
		}
	}
	return hs
}
