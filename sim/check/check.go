// Package check holds the run's safety checkers. They observe replica events and
// client replies; they never touch a replica. Each check that fails records one
// Failure with the invariant's name and an evidence line.
package check

import (
	"fmt"

	"vsrsim/replica"
)

// Failure is the first invariant a run broke.
type Failure struct {
	Invariant string
	Evidence  string
	Tick      uint64
}

// Invariant names: a contract with reports, docs and tests.
const (
	InvAgreement       = "agreement"
	InvParentChain     = "parent_chain"
	InvAckedDurability = "acked_durability"
	InvMonotonicity    = "monotonicity"
	InvClientResult    = "client_result"
	InvCheckpoint      = "checkpoint_state"
	InvLinearizable    = "linearizability"
)

type ackRecord struct {
	checksum uint64
	parent   uint64
	// byView holds who acked in which view. A primary commits on PrepareOKs
	// of its own view only, so an op may have committed only if a replication
	// quorum acked it within one view: acks of the same header given in
	// different views (the op re-prepared after a view change dropped it) do
	// not add up.
	byView  []viewAcks
	durable bool // some view holds a replication quorum of acks
}

type viewAcks struct {
	view   uint64
	ackers uint16
}

// quorateBefore returns the acker set of a view below v (anyView: any view)
// that holds a replication quorum.
func (r *ackRecord) quorateBefore(v uint64, quorum int) (uint16, bool) {
	for _, a := range r.byView {
		if a.view < v && popcount(a.ackers) >= quorum {
			return a.ackers, true
		}
	}
	return 0, false
}

// withdraw removes replica i's acks from every view that has no quorum yet.
func (r *ackRecord) withdraw(i int, quorum int) {
	for k := range r.byView {
		if popcount(r.byView[k].ackers) < quorum {
			r.byView[k].ackers &^= 1 << uint(i)
		}
	}
}

// anyView judges acks given in any view.
const anyView = ^uint64(0)

type replicaState struct {
	view      uint64
	commitMin uint64
	live      bool
}

// Checker is every safety checker of a run.
type Checker struct {
	n      int
	quorum int

	canonical   []uint64 // checksum of the committed op, 0 if not yet seen
	parents     []uint64
	acks        [][]ackRecord // per op, one record per distinct checksum acked
	replied     []uint64      // 1 + the lowest view a client got a reply for this op in (0: none)
	results     []uint64      // result of the op replayed through the model
	model       replica.StateMachine
	modelOp     uint64
	checkpoints []uint64 // state checksum per checkpoint op index
	replicas    []replicaState
	failure     *Failure
}

// New returns a checker for a cluster of n replicas.
func New(n int) *Checker {
	c := &Checker{n: n, quorum: replica.QuorumReplication(n), replicas: make([]replicaState, n)}
	for i := range c.replicas {
		c.replicas[i].live = true
	}
	return c
}

// Failed returns the first failure, or nil.
func (c *Checker) Failed() *Failure { return c.failure }

func (c *Checker) fail(tick uint64, invariant, format string, args ...any) {
	if c.failure != nil {
		return
	}
	c.failure = &Failure{Invariant: invariant, Evidence: fmt.Sprintf(format, args...), Tick: tick}
}

func grow[T any](s []T, op uint64) []T {
	for uint64(len(s)) <= op {
		var zero T
		s = append(s, zero)
	}
	return s
}

// Canonical returns the committed checksum at op, if any replica committed it.
func (c *Checker) Canonical(op uint64) (uint64, bool) {
	if op < uint64(len(c.canonical)) && c.canonical[op] != 0 {
		return c.canonical[op], true
	}
	return 0, false
}

// CommittedMax is the highest op committed anywhere.
func (c *Checker) CommittedMax() uint64 {
	for op := uint64(len(c.canonical)); op > 0; op-- {
		if c.canonical[op-1] != 0 {
			return op - 1
		}
	}
	return 0
}

// OnEvent feeds one replica event to every checker.
func (c *Checker) OnEvent(tick uint64, e *replica.Event) {
	switch e.Kind {
	case replica.EvCommit:
		c.onCommit(tick, e)
	case replica.EvAck:
		c.onAck(e)
	case replica.EvJournalTruncate:
		c.onJournalDrop(e)
	case replica.EvMergeTruncate:
		// Only a merge decides what the canonical log loses. A backup that
		// drops entries above a (possibly stale) StartView head loses nothing
		// the primary still holds, and it may drop a copy of a committed op
		// that it will fetch again; the end-of-run check catches an op that
		// vanished for good.
		c.onTruncate(tick, e)
	case replica.EvStatus:
		st := &c.replicas[e.Replica]
		if e.View < st.view {
			c.fail(tick, InvMonotonicity, "r%d view regressed %d -> %d", e.Replica, st.view, e.View)
		}
		st.view = e.View
	case replica.EvCheckpoint:
		c.onCheckpoint(tick, e)
	case replica.EvTransferInstall:
		st := &c.replicas[e.Replica]
		if e.Op < st.commitMin {
			c.fail(tick, InvMonotonicity, "r%d state transfer rewound commit %d -> %d", e.Replica, st.commitMin, e.Op)
		}
		st.commitMin = e.Op
	}
}

func (c *Checker) onCommit(tick uint64, e *replica.Event) {
	st := &c.replicas[e.Replica]
	if e.Op <= st.commitMin && st.commitMin > 0 {
		c.fail(tick, InvMonotonicity, "r%d committed op %d after op %d", e.Replica, e.Op, st.commitMin)
	}
	st.commitMin = e.Op
	c.canonical = grow(c.canonical, e.Op)
	c.parents = grow(c.parents, e.Op)
	if have := c.canonical[e.Op]; have != 0 && have != e.Checksum {
		c.fail(tick, InvAgreement, "r%d committed op %d csum=%04x but op %d is csum=%04x elsewhere",
			e.Replica, e.Op, e.Checksum&0xffff, e.Op, have&0xffff)
		return
	}
	if e.Op > 1 && c.canonical[e.Op-1] != 0 && e.Parent != c.canonical[e.Op-1] {
		c.fail(tick, InvParentChain, "r%d committed op %d with parent %04x, but op %d is csum=%04x",
			e.Replica, e.Op, e.Parent&0xffff, e.Op-1, c.canonical[e.Op-1]&0xffff)
		return
	}
	if e.Op+1 < uint64(len(c.parents)) && c.parents[e.Op+1] != 0 && c.parents[e.Op+1] != e.Checksum {
		c.fail(tick, InvParentChain, "r%d committed op %d csum=%04x, but op %d links to parent %04x",
			e.Replica, e.Op, e.Checksum&0xffff, e.Op+1, c.parents[e.Op+1]&0xffff)
		return
	}
	c.canonical[e.Op] = e.Checksum
	c.parents[e.Op] = e.Parent
	c.results = grow(c.results, e.Op)
	c.results[e.Op] = e.Aux
}

func (c *Checker) onAck(e *replica.Event) {
	c.acks = grow(c.acks, e.Op)
	recs := c.acks[e.Op]
	k := -1
	for i := range recs {
		if recs[i].checksum == e.Checksum {
			k = i
		}
	}
	if k < 0 {
		recs = append(recs, ackRecord{checksum: e.Checksum, parent: e.Parent})
		k = len(recs) - 1
		c.acks[e.Op] = recs
	}
	r := &recs[k]
	v := -1
	for i := range r.byView {
		if r.byView[i].view == e.View {
			v = i
		}
	}
	if v < 0 {
		r.byView = append(r.byView, viewAcks{view: e.View})
		v = len(r.byView) - 1
	}
	r.byView[v].ackers |= 1 << uint(e.Replica)
	if popcount(r.byView[v].ackers) >= c.quorum {
		r.durable = true
	}
}

// mayHaveCommitted reports whether (op, checksum) could have committed: a
// replication quorum acked it, and so was every op of its own chain down to
// the committed prefix, which it must extend (commits are in order, so an op
// above a never-quorate op can never have committed, and neither can an op
// whose parent lost to another op at that slot).
// Only acks given before view `before` count (anyView: all).
func (c *Checker) mayHaveCommitted(op, checksum, before uint64) bool {
	r, ok := c.durableRecord(op, checksum, before)
	if !ok {
		return false
	}
	for j := op - 1; j > 0; j-- {
		if j < uint64(len(c.canonical)) && c.canonical[j] != 0 {
			return c.canonical[j] == r.parent
		}
		if r, ok = c.durableRecord(j, r.parent, before); !ok {
			return false
		}
	}
	return true
}

// durableRecord returns op's record with checksum if a replication quorum
// acked it before view `before`.
func (c *Checker) durableRecord(op, checksum, before uint64) (ackRecord, bool) {
	if op >= uint64(len(c.acks)) {
		return ackRecord{}, false
	}
	for _, r := range c.acks[op] {
		if !r.durable || r.checksum != checksum {
			continue
		}
		if _, ok := r.quorateBefore(before, c.quorum); ok {
			return r, true
		}
	}
	return ackRecord{}, false
}

func (c *Checker) onTruncate(tick uint64, e *replica.Event) {
	if e.Op < uint64(len(c.acks)) && c.mayHaveCommitted(e.Op, e.Checksum, e.View) {
		for _, r := range c.acks[e.Op] {
			if ackers, ok := r.quorateBefore(e.View, c.quorum); ok && r.checksum == e.Checksum {
				committed := ""
				if have, ok := c.Canonical(e.Op); ok && have == e.Checksum {
					committed = " and it committed"
				}
				c.fail(tick, InvAckedDurability, "r%d's view-%d merge truncated op %d csum=%04x with %d nacks, but a replication quorum acked it (%s)%s",
					e.Replica, e.View, e.Op, e.Checksum&0xffff, e.Aux, ackerList(ackers), committed)
				return
			}
		}
	}
	if have, ok := c.Canonical(e.Op); ok && have == e.Checksum && e.Op < uint64(len(c.replied)) &&
		c.replied[e.Op] != 0 && c.replied[e.Op]-1 < e.View {
		c.fail(tick, InvAckedDurability, "r%d's view-%d merge truncated op %d csum=%04x, whose reply a client received",
			e.Replica, e.View, e.Op, e.Checksum&0xffff)
	}
}

// onJournalDrop: a replica dropped op from its journal, so its ack no longer
// speaks for a copy. Until the op reached a quorum the ack is withdrawn; else
// a later ack of the same (op, checksum) re-prepared in another view would
// complete a "quorum" with an ack whose copy is long gone.
func (c *Checker) onJournalDrop(e *replica.Event) {
	if e.Op >= uint64(len(c.acks)) {
		return
	}
	recs := c.acks[e.Op]
	for k := range recs {
		if recs[k].checksum == e.Checksum {
			recs[k].withdraw(e.Replica, c.quorum)
		}
	}
}

// OnRestart records that replica i came back from a crash. With a memory journal
// its earlier acks speak for a journal that no longer exists: they no longer
// count toward a quorum that was not already reached.
func (c *Checker) OnRestart(i int, amnesia bool, durableView, checkpointOp uint64) {
	st := &c.replicas[i]
	st.view = durableView
	st.commitMin = checkpointOp
	if !amnesia {
		return
	}
	for op := range c.acks {
		recs := c.acks[op]
		for k := range recs {
			recs[k].withdraw(i, c.quorum)
		}
	}
}

// OnReply checks a reply a client received against the model replayed along the
// canonical chain.
// view is the view of the reply (the view in which the op committed).
func (c *Checker) OnReply(tick uint64, client int, view, request, op, result uint64) {
	c.replied = grow(c.replied, op)
	if c.replied[op] == 0 || view+1 < c.replied[op] {
		c.replied[op] = view + 1
	}
	if op >= uint64(len(c.canonical)) || c.canonical[op] == 0 {
		c.fail(tick, InvClientResult, "client c%d got a reply for op %d (request %d) that no replica committed", client, op, request)
		return
	}
	if c.results[op] != result {
		c.fail(tick, InvClientResult, "client c%d request %d: reply says op %d result=%d, the canonical chain gives %d",
			client, request, op, result, c.results[op])
	}
}

// onCheckpoint checks that every replica reaching a checkpoint op has the same
// state there.
func (c *Checker) onCheckpoint(tick uint64, e *replica.Event) {
	c.checkpoints = grow(c.checkpoints, e.Op)
	if have := c.checkpoints[e.Op]; have != 0 && have != e.Aux {
		c.fail(tick, InvCheckpoint, "r%d checkpoint at op %d has state %04x, another replica had %04x",
			e.Replica, e.Op, e.Aux&0xffff, have&0xffff)
		return
	}
	c.checkpoints[e.Op] = e.Aux
}

// DurableOps calls fn for every op that may have committed, with its checksum.
func (c *Checker) DurableOps(fn func(op, checksum uint64)) {
	for op := range c.acks {
		for _, r := range c.acks[op] {
			if r.durable && c.mayHaveCommitted(uint64(op), r.checksum, anyView) {
				fn(uint64(op), r.checksum)
			}
		}
	}
}

// CheckDurableCommitted verifies, at the end of a live run, that every op a
// quorum acked up to head ended up committed with the same checksum.
func (c *Checker) CheckDurableCommitted(tick, head uint64) {
	c.DurableOps(func(op, sum uint64) {
		if !c.mayHaveCommitted(op, sum, anyView) {
			return
		}
		if op > head {
			c.fail(tick, InvAckedDurability, "op %d csum=%04x was acked by a replication quorum but the converged log ends at %d",
				op, sum&0xffff, head)
			return
		}
		if have, ok := c.Canonical(op); ok && have != sum {
			// Another checksum at this op was also durable only if agreement broke.
			for _, r := range c.acks[op] {
				if r.checksum == have && r.durable {
					return
				}
			}
			c.fail(tick, InvAckedDurability, "op %d csum=%04x was acked by a replication quorum but csum=%04x committed",
				op, sum&0xffff, have&0xffff)
		}
	})
}

func popcount(x uint16) int {
	n := 0
	for x != 0 {
		x &= x - 1
		n++
	}
	return n
}

func ackerList(mask uint16) string {
	s := ""
	for i := 0; i < 16; i++ {
		if mask&(1<<uint(i)) != 0 {
			if s != "" {
				s += ","
			}
			s += fmt.Sprintf("r%d", i)
		}
	}
	return s
}
