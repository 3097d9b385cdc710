package replica

import (
	"vsrsim/marks"
	"vsrsim/vsr"
)

// durability is what a replica has made durable and what it is still making
// durable: the superblock, the incarnation and ack head of this life, the
// disk's writes and fences in flight (the checkpoints among them), and what a
// restart owes its first step (one room of a replica's state, issue 36).
type durability struct {
	sb Superblock
	// incarnation is this life's, taken from the superblock at a restart;
	// ackHead the highest op acked in it.
	incarnation uint64
	ackHead     uint64
	// fencesAsked counts the fenced writes this incarnation asked for and
	// fencesLanded how many of the first of them the harness said landed
	// (Landed); ownAckWaits: the pipeline's first op lacks a quorum only
	// because the primary's own write of it has not landed.
	fencesAsked, fencesLanded uint64
	ownAckWaits               bool
	// releasing: set-aside copies journaled again, let go once the
	// journal's write of each lands (leaveAside, releaseLanded).
	releasing []vsr.Header
	// store tracks the writes of a replica on a disk (storage.go); nil
	// without Options.Storage; storageMarks the marks a restart from disk
	// owes its first step.
	store        *storageState
	storageMarks []marks.Mark
	// announce: a restart changed the status outside a step; the first tick
	// reports it. amnesiaUncounted: an amnesiac restart not yet marked;
	// Restart has no Output to count into, so the first step does.
	announce         bool
	amnesiaUncounted bool
}

// fenceLanded records that the first n fenced writes landed and reports
// whether that is news.
func (d *durability) fenceLanded(self int, n uint64) bool {
	if n <= d.fencesLanded {
		return false
	}
	vsr.Assert(self, n <= d.fencesAsked, "landed_were_asked", "landed %d asked %d", n, d.fencesAsked)
	d.fencesLanded = n
	if d.store != nil {
		d.store.landing.landed(n)
	}
	return true
}

// check asserts what durability always holds: every ack of this life is
// under the durable ack head (it is written before the ack leaves), no
// write lands that was not asked for, the superblock's log_view is at most
// its view, and this life's incarnation is the one the superblock names.
func (d *durability) check(self int) {
	vsr.Assert(self, d.sb.AckHead >= d.ackHead, "ack_head_durable", "superblock %d, acked %d", d.sb.AckHead, d.ackHead)
	vsr.Assert(self, d.fencesLanded <= d.fencesAsked, "landed_were_asked", "landed %d asked %d", d.fencesLanded, d.fencesAsked)
	vsr.Assert(self, d.sb.LogView <= d.sb.View, "superblock_log_view_le_view", "log_view %d view %d", d.sb.LogView, d.sb.View)
	vsr.Assert(self, d.incarnation == d.sb.Incarnation, "incarnation_is_the_superblocks", "life %d superblock %d", d.incarnation, d.sb.Incarnation)
}

// incarnationBootShift places a boot clock reading above every incarnation
// counted since the last one: a replica restarts at most once a tick, and a
// run is far shorter than 1<<20 ticks.
const incarnationBootShift = 20

// amnesiacIncarnation is the incarnation of a replica that lost every
// superblock copy and with them the count of its lives: its boot clock,
// shifted above any count of restarts since an earlier such loss (at an
// earlier boot), so it exceeds every incarnation an earlier life stamped.
// Counting from 1 again instead stamped an incarnation an earlier life had
// stamped (the oracle's monotonicity rule): a primary that knew it would
// count that life's acks, given from a journal the loss took, as this one's.
func amnesiacIncarnation(boot uint64) uint64 {
	return (boot + 1) << incarnationBootShift
}

// sbLanding tracks the commit point of the last superblock known to have
// landed (D110): the superblocks asked for, by the fence of their last copy,
// until the harness reports that many fenced writes landed. An unfenced one
// (superblock-trusts-torn) counts as landed when asked, as the replica trusts it.
type sbLanding struct {
	pending []sbAsk
	commit  uint64
}

type sbAsk struct{ fence, commit uint64 }

func (l *sbLanding) asked(fence, commit uint64, fenced bool) {
	if !fenced {
		l.commit = commit
		return
	}
	l.pending = append(l.pending, sbAsk{fence, commit})
}

// landed takes the first n fenced writes as landed.
func (l *sbLanding) landed(n uint64) {
	k := 0
	for k < len(l.pending) && l.pending[k].fence <= n {
		l.commit = l.pending[k].commit
		k++
	}
	l.pending = l.pending[:copy(l.pending, l.pending[k:])]
	vsr.Assert(vsr.Unowned, len(l.pending) == 0 || l.pending[0].fence > n, "superblock_landing_in_order", vsr.DetailStorage)
}
