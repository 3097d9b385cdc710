package check

import "fmt"

// incUnknown marks a replica whose current incarnation the oracle has not seen
// on the wire yet (it just restarted): no ack it delivers is from a journal
// known to be intact.
const incUnknown = ^uint64(0)

// replicaRecord is what the harness has seen of one replica.
type replicaRecord struct {
	up       bool
	restarts uint64 // the harness's own count of this replica's incarnations
	sendInc  uint64 // incarnation it stamps on messages now (incUnknown after a crash)
	// stamped is the highest incarnation stamped in this life, earlier the
	// highest stamped in any life before it: a life must stamp above every
	// earlier one, or a primary cannot tell its acks from theirs.
	stamped, earlier uint64

	status    Status
	view      uint64
	logView   uint64
	commitMax uint64
	head      uint64 // sequencer as of its last status report

	applied uint64 // commit_min: last op applied, or installed by state transfer
	// durable is, while the replica is down, the op of the checkpoint its
	// restart would restore (DurableState): the state that covers every op
	// up to it, on a write-ahead journal.
	durable uint64

	// amnesiacUntil: after a restart without a journal the replica is not
	// whole until it has applied past every op it may have acked before (the
	// highest op any replica held when it came back): until then its votes
	// must leave such ops unsure, and its peers' copies are their only copies.
	amnesiac      bool
	amnesiacUntil uint64
	// sbRejoin: it lost its superblock and has not yet adopted a view since
	// (SuperblockLost): the first log it adopts is held unsure up to its
	// head, so that head bounds amnesiacUntil too (Status).
	sbRejoin bool

	// voter: may vote in a view change. A restart without a journal takes
	// that away until the replica reports a view it adopted from a primary.
	voter bool

	// known[p] is the highest incarnation of replica p delivered to this
	// replica in its current incarnation: what it can know of p's restarts.
	known [ReplicasMax]uint64

	// ownAckView/ownAckOp: the highest op this replica acked as primary of
	// ownAckView (its prepared head there).
	ownAckView uint64
	ownAckOp   uint64

	// lostAt is the oracle's loss count (Checker.losses) at this replica's
	// last crash that took its journal: 0 if none did.
	lostAt uint64
	// faultSince is the tick of its last crash, or of its cut-off if it
	// was up and whole then: since when it has been out of reach or, back
	// from a crash that left it not whole, unable to nack (undecidable).
	faultSince uint64
	// noServeSince is the tick since which the harness keeps, for every
	// core replica, one of the two links between it and this one down
	// (CannotServe): 0 if it never did.
	noServeSince uint64

	// sbLostAt is the tick since which the replica lives on a lost
	// superblock (0: never; SuperblockLost), and sbLostLives the lives
	// (counted as restarts) that began from a disk with no superblock copy
	// whole: a loss forgets the promises of the lives before it, never of
	// the lives after.
	sbLostAt    uint64
	sbLostLives []uint64
	// viewLife, logViewLife, commitMaxLife and earlierLife are the lives in
	// which view, logView, commitMax and earlier were reached: the promise
	// a regression below them breaks was made then.
	viewLife, logViewLife, commitMaxLife, earlierLife, stampedLife uint64
	// wireView and wireLogView are the highest view and log_view its
	// messages acted in on the wire, over every life (RestartFromDisk), and
	// the lives that reached them.
	wireView, wireViewLife, wireLogView, wireLogViewLife uint64
	// cpLost are the ranges of ops (from, to] whose applied state a restart
	// lost with a faulty checkpoint record (CheckpointLost).
	cpLost [][2]uint64
	// logViewFloor is the highest log_view it acted in on the wire
	// (RestartFromDisk): a restart may not come back below it.
	logViewFloor uint64
}

// whole reports whether replica i is up with every op it ever acked still in
// its journal, or caught up past what it forgot.
func (r *replicaRecord) whole() bool { return r.up && !r.amnesiac }

// Crash records that the harness crashed replica i. Without a WAL its journal
// is gone: its acks no longer speak for a copy.
func (c *Checker) Crash(tick uint64, i int) {
	r := &c.replicas[i]
	r.up = false
	r.faultSince = tick
	r.sendInc = incUnknown
	if !c.wal {
		r.amnesiac = true
		c.losses++
		r.lostAt = c.losses
		c.withdrawCopies(i)
		c.loseBodies(tick, i)
	}
	c.noteConditions(tick)
}

// DurableState records that down replica i's restart would restore a state
// that applied every op up to op (its durable checkpoint, as its disk's
// bytes or its durable superblock give it): such a state covers those ops as
// a live replica's applied state does, so none of them is lost while it
// stands (lostOp).
func (c *Checker) DurableState(i int, op uint64) {
	if r := &c.replicas[i]; !r.up {
		r.durable = op
	}
}

// Restart records that the harness restarted replica i from its durable
// state; checkpointOp is the op its surviving checkpoint covers.
func (c *Checker) Restart(tick uint64, i int, checkpointOp uint64) {
	r := &c.replicas[i]
	r.up = true
	if r.stamped > r.earlier {
		r.earlier, r.earlierLife = r.stamped, r.stampedLife
	}
	r.restarts++
	r.stamped = 0
	r.applied = checkpointOp
	r.durable = 0 // its applied state speaks for it while it is up
	r.known = [ReplicasMax]uint64{}
	// Until it reports again the oracle assumes the least: recovering, and
	// nothing known of its log_view or commit_max (a superblock may lag what
	// the last incarnation reported; only the view is checked across a
	// restart, because a replica persists it before it acts in it).
	r.status = StatusRecovering
	r.logView, r.commitMax, r.logViewFloor = 0, 0, 0
	r.voter = c.wal
	if !c.wal {
		r.amnesiac = true
		r.amnesiacUntil = max(c.top, c.preparedTop)
		c.checkWhole(i)
	}
	c.noteConditions(tick)
}

// RestartFromDisk adjusts a restart of replica i from a simulated disk by
// what the harness knows: promised is the highest view its messages that
// reached the wire acted in. A view it held only in memory, before its
// superblock landed, it may come back below; one it acted in, never.
//
// logView is the highest log_view its messages that reached the wire acted
// in (a Prepare, a PrepareOk or a Commit of a view, a DoViewChange or a
// StartView naming it): a replica persists its log_view before it acts in
// it, so it never comes back below one.
func (c *Checker) RestartFromDisk(i int, promised, logView uint64) {
	r := &c.replicas[i]
	// The harness's figures only grow, over every life: one that grew since
	// the last restart was reached in the life that just ended.
	if promised > r.wireView {
		r.wireView, r.wireViewLife = promised, r.restarts-1
	}
	if logView > r.wireLogView {
		r.wireLogView, r.wireLogViewLife = logView, r.restarts-1
	}
	if promised < r.view {
		r.view, r.viewLife = promised, r.wireViewLife
	}
	r.logViewFloor = logView
	r.logView, r.logViewLife = logView, r.wireLogViewLife
}

// checkWhole ends an amnesiac spell once the replica applied every op
// committed when it restarted.
func (c *Checker) checkWhole(i int) {
	r := &c.replicas[i]
	if r.amnesiac && r.up && r.applied >= r.amnesiacUntil && r.status != StatusRecovering {
		r.amnesiac = false
	}
}

// NotWhole counts the replicas that are down or amnesiac now: none of them can
// be counted on to vote with every op it acked.
func (c *Checker) NotWhole() int {
	k := 0
	for i := range c.replicas {
		if !c.replicas[i].whole() {
			k++
		}
	}
	return k
}

// Whole reports whether replica i is up and holds every op it acked.
func (c *Checker) Whole(i int) bool { return c.replicas[i].whole() }

// Amnesiac reports whether replica i, up or down, has forgotten what it
// acked and not yet applied past it: a replica down in such a spell comes
// back in it (a restart never makes it whole).
func (c *Checker) Amnesiac(i int) bool { return c.replicas[i].amnesiac }

// Sent records the incarnation replica i stamps on a message it sends (the
// harness reports every message whose command carries one, a stamp of 0
// included). An incarnation names one life of a replica: a life that stamps
// one no higher than an earlier life did lets a primary count that life's
// acks, whose copies a memory journal lost, as this one's. The first life may
// stamp 0; every life after a restart must stamp above all before it.
func (c *Checker) Sent(tick uint64, i int, incarnation uint64) {
	r := &c.replicas[i]
	if r.restarts > 0 && incarnation <= r.earlier {
		c.fail(tick, aboutPromise(i, r.earlierLife, r.restarts), InvMonotonicity, "r%d stamped incarnation %d after its restart, but an earlier life stamped %d", i, incarnation, r.earlier)
	}
	r.sendInc = incarnation
	if incarnation > r.stamped {
		r.stamped, r.stampedLife = incarnation, r.restarts
	}
}

// Delivered records that a message carrying the sender's incarnation reached
// a live replica: the receiver now knows that incarnation.
func (c *Checker) Delivered(to, from int, incarnation uint64) {
	if from < 0 || from >= c.n {
		return
	}
	if k := &c.replicas[to].known[from]; incarnation > *k {
		*k = incarnation
	}
}

// Status records a status report: status, view, log_view, head and commit_max.
func (c *Checker) Status(tick uint64, i int, st Status, view, logView, head, commitMax uint64) {
	r := &c.replicas[i]
	if view < r.view {
		c.fail(tick, aboutPromise(i, r.viewLife, r.restarts), InvMonotonicity, "r%d view regressed %d -> %d", i, r.view, view)
	}
	switch {
	case logView < r.logViewFloor && r.logView == r.logViewFloor:
		c.fail(tick, aboutPromise(i, r.logViewLife, r.restarts), InvMonotonicity, "r%d came back from its disk with log_view %d, below log_view %d it acted in on the wire before its crash",
			i, logView, r.logViewFloor)
	case logView < r.logView:
		c.fail(tick, aboutPromise(i, r.logViewLife, r.restarts), InvMonotonicity, "r%d log_view regressed %d -> %d", i, r.logView, logView)
	}
	if commitMax < r.commitMax {
		c.fail(tick, aboutPromise(i, r.commitMaxLife, r.restarts), InvMonotonicity, "r%d commit_max regressed %d -> %d", i, r.commitMax, commitMax)
	}
	if view != r.view {
		r.viewLife = r.restarts
	}
	if logView != r.logView {
		r.logViewLife = r.restarts
	}
	r.status, r.view, r.logView, r.head = st, view, logView, head
	if r.sbRejoin && st == StatusNormal {
		// Back from a lost superblock, it cannot tell an op of the first
		// log it adopts that was prepared while it was away from one it
		// acked before the loss, so it holds them all unsure (D62): it is
		// whole only past that log's head, counted no higher than what the
		// cluster had prepared.
		r.sbRejoin = false
		r.amnesiacUntil = max(r.amnesiacUntil, min(head, c.preparedTop))
	}
	if st != StatusRecovering {
		r.voter = true
	}
	c.noteConditions(tick)
	if commitMax > r.commitMax {
		r.commitMax, r.commitMaxLife = commitMax, r.restarts
	}
	c.checkWhole(i)
}

func (c *Checker) primaryOf(view uint64) int { return int(view % uint64(c.n)) }

// describe is one replica's state as the record has it, for evidence.
func (c *Checker) describe(i int) string {
	r := &c.replicas[i]
	if !r.up {
		return fmt.Sprintf("r%d down", i)
	}
	// Status reports come only with a change of status: what the replica
	// applied since bounds its head and commit point from below.
	return fmt.Sprintf("r%d %s v=%d op=%d commit=%d/%d", i, r.status, r.view, max(r.head, r.applied), r.applied, max(r.commitMax, r.applied))
}
