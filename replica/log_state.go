package replica

import (
	"vsrsim/replica/journal"
	"vsrsim/vsr"
)

// logState is the replica's log: the journal of bodies, the headers it knows
// without bodies, and the floors and unsure ops that say what it may claim
// about the ops it cannot show (one room of a replica's state, issue 36).
type logState struct {
	journal *journal.Journal
	// sourceInstall: a state-transfer install replaces the whole journal,
	// as the source system's does (set once at the making), where the
	// robust install keeps the held ops above the checkpoint.
	sourceInstall bool
	// gapCheckOnly: a Prepare of an op at or below the head is never taken
	// as a repair (Protocol.PrepareRepairOff).
	gapCheckOnly bool
	// adopted: headers known from a StartView or a merge, bodies maybe not
	// held; adoptedHead the head they lead to.
	adopted     journal.Ring
	adoptedHead uint64
	// aside: committed-range bodies a chain walk could not vouch for (see
	// pruneChainFrom).
	aside journal.Ring
	// unplaced: the intact records an amnesiac restart read and could not
	// place (no superblock names their log), served to a repair while it
	// recovers and let go when it adopts a view (D84).
	unplaced journal.Ring
	// journalGen counts journal and adopted-header mutations (the cached
	// DoViewChange suffix is valid for one generation).
	journalGen uint64
	// repairArmedTo is the top of the repair window armed by the last
	// adoption; repairFloor the lowest op peers still retain, after a
	// RangeEvicted; journalFloor the lowest op this journal can hold (after
	// amnesia or a transfer).
	repairArmedTo uint64
	repairFloor   uint64
	journalFloor  uint64
	// amnesiac: the journal was lost in a restart and no view adopted since.
	// unsureTop: ops at or below it may have been acknowledged before a lost
	// journal, so this replica never nacks them (protocol.md "Crash and
	// restart").
	amnesiac  bool
	unsureTop uint64
	// adoptedLogView is the log_view the adopted headers are of. They
	// outlive a crash beside the disk (viewHeaders.logView), and a restart
	// whose superblock names an older log_view keeps them under their own
	// label, never its own (swarm seed 1868: relabelled, they made the next
	// restart drop an acked body of the durable log as stale, D65).
	adoptedLogView uint64
	// recoveringHead: amnesiac because a restart from disk could not vouch
	// for its head, the rest of its journal read back whole: it votes in a
	// newer view's change what it can vouch for, its head at unsureTop and
	// every op it cannot show unsure (D53: issue 38 item 7).
	recoveringHead bool
	// unsureOps are ops whose journal slot was faulty at a restart from
	// disk, at or below the durable ack head and the known head: the vote
	// holds them unsure until repair journals them (restart.go).
	unsureOps []uint64
	// commitAnchor is the canonical checksum at an op no higher than
	// commit_max, learned from a StartView or a merge even when only the
	// checksum travelled (the commit point's entry of a suffix).
	commitAnchor vsr.Header
}

// setUnsure records the ops a restart from disk holds unsure, ascending.
func (l *logState) setUnsure(self int, ops []uint64) {
	for k := 1; k < len(ops); k++ {
		vsr.Assert(self, ops[k-1] < ops[k], "unsure_ops_ascending", "op %d after %d", ops[k], ops[k-1])
	}
	l.unsureOps = ops
}

// check asserts what the log always holds: the journal holds no op below
// its floor, and a floor never stands more than one above its head.
func (l *logState) check(self int) {
	vsr.Assert(self, l.journal.Head == 0 || l.journalFloor <= l.journal.Head+1, "journal_floor_le_head",
		"floor %d head %d", l.journalFloor, l.journal.Head)
}

// newJournal is an empty journal of opts' size, its rings from opts' Spare.
func newJournal(opts Options) *journal.Journal {
	return journal.NewJournal(opts.JournalSlots, opts.Spare.pool())
}
