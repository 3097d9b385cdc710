package check

import (
	"fmt"
	"math/bits"
)

// Excuse is why a run that did not converge, or broke a rule, is
// unrecoverable rather than a finding: the rule that proves it from the
// record, what it covers (the ops and replicas its proof is about, and
// nothing else), the proof, and the tick since which its condition held.
type Excuse struct {
	Rule     string
	Ops      []uint64
	Replicas []int
	Proof    string
	Since    uint64
	// Superblock: the proof is a replica's lost superblock, not an op's
	// copies.
	Superblock bool
}

// Unrecoverable rules: each proves from the record of what the harness
// injected that no correct replica could end the stall (docs/checkers.md has
// a proof sketch for each).
const (
	// RuleTooFewUp: from before the stall began to the end, fewer replicas
	// were up than a replication quorum: the harness kept the rest down, so
	// no op can commit.
	RuleTooFewUp = "too-few-up"
	// RuleNoVoters: from before the stall began to the end, fewer replicas
	// could vote than a view-change quorum (a replica that lost its journal
	// may not vote until a primary hands it a view, and one the harness cut
	// off from every other replica votes in no one's view change) and no
	// reachable replica was a Normal primary to hand one out.
	RuleNoVoters = "no-voters"
	// RuleCommittedOpLost: crashes without a WAL took every copy of an op
	// that may have committed (committed, or acked by a replication quorum),
	// more than f replicas lost their journal since it was first held, and
	// no live replica has applied past it.
	RuleCommittedOpLost = "committed-op-lost"
	// RuleStorageBeyondF: the disks' own record shows the copies of the op a
	// finding is about lost (both records faulty) on a replication quorum of
	// replicas, or every superblock copy of the replicas it is about faulty,
	// standing from before the finding (or the stall) to its end: past what
	// the protocol promises to survive, which only an atlas that is off, a
	// torn or lost write, or a scripted fault the atlas forbade can bring.
	RuleStorageBeyondF = "storage-beyond-f"
)

// conditions tracks since when the end-state excuses that hang on which
// replicas are up, may vote or lead, have held without a break (0: not now).
type conditions struct {
	fewUpSince, noVotersSince uint64
}

// noteConditions re-evaluates, at tick, the conditions of too-few-up and
// no-voters, after anything that may change them: a crash, a restart, a
// status report, a cut-off.
func (c *Checker) noteConditions(tick uint64) {
	up, voters, primary := c.countVoters()
	since := func(at *uint64, holds bool) {
		switch {
		case !holds:
			*at = 0
		case *at == 0:
			*at = max(tick, 1)
		}
	}
	since(&c.conds.fewUpSince, up < c.qRep)
	since(&c.conds.noVotersSince, voters < c.qVC && !primary)
}

// countVoters counts the replicas up, the replicas that may vote (up, not
// cut off, a voter), and says whether a reachable replica leads its view as
// a Normal primary that can hand a view to every replica that cannot vote:
// one whose view lies below such a replica's is no such primary, since a
// recovering replica takes no view below the one it stands in (a guided
// search's robust run on memory journals: three replicas that had formed
// view 2 came back recovering in it, and r1, still the Normal primary of
// view 1, could hand them nothing; the view change they asked of it found
// two voters of the three it needs).
func (c *Checker) countVoters() (up, voters int, primary bool) {
	var primaryView, recoveringView uint64
	for i := range c.replicas {
		r := &c.replicas[i]
		if !r.up {
			continue
		}
		up++
		if c.cutOff&(1<<uint(i)) != 0 {
			// Cut off from every other replica by the harness (an
			// assist, recorded): it votes in no one's view change and
			// hands no one a view.
			continue
		}
		if r.voter {
			voters++
		} else {
			recoveringView = max(recoveringView, r.view)
		}
		if r.status == StatusNormal && c.primaryOf(r.view) == i {
			primary, primaryView = true, max(primaryView, r.view)
		}
	}
	return up, voters, primary && primaryView >= recoveringView
}

// StallBegan is the tick the stall began: the last tick the commit point
// advanced, or the start of the liveness phase if that came later. Before
// it the harness's faults (partitions, cut links, crashes) may block
// progress by design, so a fault phase without commits proves nothing about
// the protocol; from it on the core is healed and must progress.
func (c *Checker) StallBegan() uint64 { return max(c.lastCommitAt, c.live.startAt) }

// Stalled judges a run whose core did not converge. The loss check comes
// first: a committed op lost within f is a durability failure whatever else
// holds, and one lost beyond f since before the stall excuses it. Then each
// end-state rule is asked (also where the loss came only later), and its excuse stands only if
// its condition already held when the stall began (within grace ticks of
// it: a fault that ends progress at once starts the stall and the condition
// together): a stall that began while the cluster was within f is a
// liveness finding whatever happened after. It returns the excuse (nil: a
// liveness finding, or a durability failure the record now holds) and the
// stall's evidence.
func (c *Checker) Stalled(livenessTicks uint64, outstanding int, grace uint64) (*Excuse, string) {
	stall := c.stallEvidence(livenessTicks, outstanding)
	began := c.StallBegan()
	var notes string
	if l, lost := c.lostOp(); lost {
		ex, ok := c.lossExcuse(l)
		if !ok {
			c.failLoss(l)
			return nil, stall
		}
		if ex.Since <= began+grace {
			return ex, ex.Proof + "; " + stall
		}
		// The op went beyond f only after the stall began: the loss does
		// not explain the stall, but an end-state rule that held when it
		// began still may (a core that could not decide the op while its
		// one holder outside it was down, whose disk lost it later).
		notes = late(ex, began)
	}
	for _, ex := range c.endExcuses() {
		if ex.Since <= began+grace {
			return ex, ex.Proof + "; " + stall
		}
		notes += late(ex, began)
	}
	return nil, notes + stall
}

// late says why an excuse whose condition arose after the stall began does
// not hold.
func late(ex *Excuse, began uint64) string {
	return fmt.Sprintf("%s does not excuse it: its condition holds only since t=%d, after the stall began at t=%d (%s); ",
		ex.Rule, ex.Since, began, ex.Proof)
}

// endExcuses lists the end-state rules that hold at the end, in order.
func (c *Checker) endExcuses() []*Excuse {
	var out []*Excuse
	up, voters, primary := c.countVoters()
	if up < c.qRep {
		var down uint16
		for i := range c.replicas {
			if !c.replicas[i].up {
				down |= 1 << uint(i)
			}
		}
		out = append(out, &Excuse{Rule: RuleTooFewUp, Replicas: members(down), Since: c.conds.fewUpSince,
			Proof: fmt.Sprintf("%s stayed down to the end: %d replicas up, a replication quorum is %d", replicaList(down), up, c.qRep)})
	}
	if voters < c.qVC && !primary {
		out = append(out, &Excuse{Rule: RuleNoVoters, Replicas: members(c.all() &^ c.voterSet()), Since: c.conds.noVotersSince,
			Proof: fmt.Sprintf("only %d replicas could vote at the end (a view-change quorum is %d; the others lost their journal "+
				"and no primary is up to hand them a view%s)", voters, c.qVC, cutOffText(c.cutOff))})
	}
	if ex, ok := c.stallBeyond(); ok {
		out = append(out, ex)
	}
	if ex, ok := c.coreCannotDecide(); ok {
		out = append(out, ex)
	}
	return out
}

// voterSet is the replicas up, not cut off, that may vote.
func (c *Checker) voterSet() uint16 {
	var set uint16
	for i := range c.replicas {
		if r := &c.replicas[i]; r.up && r.voter && c.cutOff&(1<<uint(i)) == 0 {
			set |= 1 << uint(i)
		}
	}
	return set
}

// stallBeyond is the storage excuse of a stall: an op no live core replica
// has applied whose copies disks lost on a replication quorum, or core replicas
// that lost their superblock and are not whole again (they forgot what they
// acked: recovering, they cannot vote; rejoined, they hold unsure every op
// of the view they adopted until they apply past what they may have acked)
// that, with the replicas outside the core, are more than f. One such
// replica in a core that f other faults leave room for is the amnesia VSR
// survives: the rest of the core must hand it a view and the bodies.
func (c *Checker) stallBeyond() (*Excuse, bool) {
	var lost uint16
	since := uint64(0)
	for _, i := range c.live.core {
		r := &c.replicas[i]
		if r.sbLostAt != 0 && !r.whole() {
			lost |= 1 << uint(i)
			since = max(since, r.sbLostAt)
		}
	}
	if out := c.n - len(c.live.core); lost != 0 && out+bits.OnesCount16(lost) > faultsTolerated(c.n) {
		return &Excuse{Rule: RuleStorageBeyondF, Replicas: members(lost), Since: since, Superblock: true,
			Proof: fmt.Sprintf("every superblock copy of core replica %s faulty since t=%d, not whole again at the end, "+
				"and %d replicas outside the core (the protocol survives %d)", replicaList(lost), since, out, faultsTolerated(c.n))}, true
	}
	// An op a live core replica applied is held in its state, which a state
	// transfer hands a lagging peer: the core has yet to apply only the ops
	// above the highest such point (coreCovered, as coreCannotDecide reads).
	// Nor did a disk take an op from a replica whose state holds it, live
	// or down (stateHolders): one out of reach is core-copy-damaged's to weigh.
	_, covered := c.coreCovered()
	for op := covered + 1; op < uint64(len(c.bodies)); op++ {
		if ex, ok := c.opBeyondHeld(op, ^uint64(0), c.stateHolders(op)); ok {
			return ex, true
		}
	}
	return nil, false
}

// lossExcuse is the excuse of an op every copy of which is gone: more than
// f journal-losing crashes since it was first held (RuleCommittedOpLost),
// or its copies lost by disks on a replication quorum (RuleStorageBeyondF).
func (c *Checker) lossExcuse(l opLoss) (*Excuse, bool) {
	what := "committed op"
	if !l.committed {
		what = "op a replication quorum acked (so it may have committed)"
	}
	if l.beyondF {
		return &Excuse{Rule: RuleCommittedOpLost, Ops: []uint64{l.op}, Since: l.goneAt,
			Proof: fmt.Sprintf("%s %d csum=%04x: crashes took every copy (%d replicas lost their journal after it was first held; "+
				"the protocol survives %d), and no live replica applied past it", what, l.op, short(l.checksum), l.crashed, faultsTolerated(c.n))}, true
	}
	return c.opBeyond(l.op, ^uint64(0))
}

// failLoss records a loss no excuse covers as a durability failure.
func (c *Checker) failLoss(l opLoss) {
	what := "committed op"
	inv := InvDurability
	if !l.committed {
		what, inv = "op a replication quorum acked (so it may have committed)", InvAckedDurability
	}
	c.fail(c.live.now, about(l.op), inv, "%s %d csum=%04x has no copy left and no live replica applied past it, yet only %d replicas lost "+
		"their journal since and %d lost it to their disks (the protocol survives %d; copies dropped by %s): a correct cluster keeps it",
		what, l.op, short(l.checksum), l.crashed, bits.OnesCount16(l.damaged), faultsTolerated(c.n), replicaList(l.dropped))
}
