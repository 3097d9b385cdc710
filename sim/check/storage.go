package check

import (
	"fmt"
	"math/bits"
)

// Storage: what the harness's disks took from a replica, from the disks' own
// record, never the replica's word (sim/storage.go).

// RuleCoreCopyDamaged: at the stall, an op some core replica acknowledged (a
// PrepareOk for it left the replica) is held intact by no core replica, the
// disk's record shows a core replica's copy damaged when it restarted, the
// core replicas that never acknowledged it are fewer than a nack quorum, and
// no live replica the harness left reachable holds it. No correct core can
// decide the op: it may have committed (acknowledged copies outside the core
// may count), so it cannot be cut, and no replica the core can reach can
// serve it. Only the replicas the harness keeps outside the core can settle
// it, by a copy or by their nacks.
const RuleCoreCopyDamaged = "core-copy-damaged"

// RuleCoreCopyForgotten: as RuleCoreCopyDamaged, with the core replicas'
// copies lost to crashes of memory journals instead of a disk: a core replica
// that held the op lost its journal at a crash, and the record shows no live
// replica the harness left reachable holding it since (a live copy outside
// the core a correct core could still fetch). A replica that lost its
// journal may not nack what it acked, so the same count of nacks decides.
const RuleCoreCopyForgotten = "core-copy-forgotten"

// StorageLost records that, when replica i restarted, its disk's record
// showed the journal slots for which faulty says true damaged: whatever op
// the oracle knew it held there, its copy is gone. slots is the journal's
// slot count (op o lives in slot o mod slots).
func (c *Checker) StorageLost(i, slots int, faulty func(slot int) bool) {
	bit := uint16(1) << uint(i)
	for op := range c.bodies {
		if !faulty(op % slots) {
			continue
		}
		for k := range c.bodies[op] {
			if b := &c.bodies[op][k]; b.holders&bit != 0 {
				b.holders &^= bit
				b.damaged |= bit
			}
		}
	}
}

// AckSent records that replica i's PrepareOk for (op, checksum) left it.
func (c *Checker) AckSent(i int, op, checksum uint64) {
	if b := c.findBody(op, checksum); b != nil {
		b.ackSent |= 1 << uint(i)
	}
}

// coreCannotDecide finds an op the core cannot decide because storage or
// crashes of memory journals took its core copies (RuleCoreCopyDamaged,
// RuleCoreCopyForgotten), with the rule and the evidence.
func (c *Checker) coreCannotDecide() (rule, why string, ok bool) {
	var core uint16
	covered := uint64(0)
	for _, i := range c.live.core {
		core |= 1 << uint(i)
		if r := &c.replicas[i]; r.up {
			covered = max(covered, r.applied)
		}
	}
	for op := covered + 1; op < uint64(len(c.bodies)); op++ {
		if rule, why, ok := c.undecidable(op, core); ok {
			return rule, why, true
		}
	}
	return "", "", false
}

// undecidable reports whether op, in the core, has no intact copy, a copy a
// disk damaged or a crash of a memory journal took, and too few replicas
// that could nack it.
func (c *Checker) undecidable(op uint64, core uint16) (rule, why string, ok bool) {
	var damaged, forgot, ackers, holders uint16
	for k := range c.bodies[op] {
		b := &c.bodies[op][k]
		if b.holders&core != 0 {
			return "", "", false
		}
		damaged |= b.damaged & core
		forgot |= b.forgot & core
		ackers |= b.ackSent
		holders |= b.holders
	}
	if holders&c.reachable() != 0 {
		// A copy on a live replica outside the core that the harness did
		// not cut off: a correct core may still fetch it, so neither a
		// damaged disk nor amnesia excuses the stall.
		return "", "", false
	}
	if damaged == 0 && forgot == 0 {
		return "", "", false
	}
	if op < uint64(len(c.acks)) {
		for k := range c.acks[op] {
			ackers |= c.acks[op][k].ackers
		}
	}
	if ackers&core == 0 {
		return "", "", false
	}
	nackers := bits.OnesCount16(core &^ ackers)
	if nackers >= c.qNack() {
		return "", "", false
	}
	if damaged != 0 {
		return RuleCoreCopyDamaged, fmt.Sprintf("op %d: %s acked it and the disk's record shows %s's copy damaged at its restart; "+
			"no core replica holds it, and only %d could nack it (a nack quorum is %d)",
			op, replicaList(ackers&core), replicaList(damaged), nackers, c.qNack()), true
	}
	return RuleCoreCopyForgotten, fmt.Sprintf("op %d: %s acked it and %s lost its copy with its memory journal at a crash; "+
		"no core replica holds it, and only %d could nack it (a nack quorum is %d)",
		op, replicaList(ackers&core), replicaList(forgot), nackers, c.qNack()), true
}

// CutOff records that the harness cut replica i off from every other
// replica for the rest of the run (an assist of the liveness phase).
func (c *Checker) CutOff(i int) { c.cutOff |= 1 << uint(i) }

// reachable is the replicas up now that the harness has not cut off.
func (c *Checker) reachable() uint16 {
	var up uint16
	for i := range c.replicas {
		if c.replicas[i].up {
			up |= 1 << uint(i)
		}
	}
	return up &^ c.cutOff
}

// qNack is the nacks that prove an op never committed: n - replication quorum + 1.
func (c *Checker) qNack() int { return c.n - c.qRep + 1 }
