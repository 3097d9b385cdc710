package check

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// core-copy-damaged fires only when each of its conditions holds: a core
// copy a disk took, no intact copy in the core, an acknowledgement from the
// core, and fewer core replicas than a nack quorum that never acknowledged.
func TestCoreCopyDamaged(t *testing.T) {
	const op, sum = 3, 0xc3
	// r2 journaled op 3 and acked it; r0, outside the core, is down; r1
	// never had it. r2's disk took its copy at a restart.
	stalled := func(lose, ack bool, core []int) (bool, string, string) {
		c := newTest(true)
		c.Journaled(2, op, sum)
		if ack {
			c.AckSent(2, op, sum)
		}
		c.Crash(1, 0)
		if slices.Contains(core, 0) {
			c.Restart(2, 0, 0) // the liveness phase restarts a core's replicas
		}
		c.Crash(2, 2)
		c.Restart(3, 2, 0)
		if lose {
			c.DiskCopies(3, 2, lostOnDisk(op))
		}
		c.Status(4, 1, StatusViewChange, 1, 0, 0, 0)
		c.Status(4, 2, StatusViewChange, 1, 0, op, 0)
		c.StartLiveness(0, core)
		return judge(c)
	}
	unrec, rule, why := stalled(true, true, []int{1, 2})
	assert.True(t, unrec)
	assert.Equal(t, RuleCoreCopyDamaged, rule)
	assert.Contains(t, why, "op 3: r2 acked it")

	unrec, _, _ = stalled(false, true, []int{1, 2})
	assert.False(t, unrec, "r2 still holds its copy: the core can decide")
	unrec, _, _ = stalled(true, false, []int{1, 2})
	assert.False(t, unrec, "nobody in the core acked it: both may nack it")
	unrec, _, _ = stalled(true, true, []int{0, 1, 2})
	assert.False(t, unrec, "with r0 up two replicas may nack it")

	// r0, outside the core, holds a copy and stays up: a correct core may
	// fetch it, unless the harness cut r0 off from every other replica.
	outsideHolder := func(cutOff, cannotServe bool) (bool, string) {
		c := newTest(true)
		c.Journaled(0, op, sum)
		c.Journaled(2, op, sum)
		c.AckSent(2, op, sum)
		if cannotServe {
			c.AckSent(0, op, sum) // it may have counted: r0 cannot nack it
		}
		if cutOff {
			c.CutOff(1, 0)
		}
		if cannotServe {
			c.CannotServe(1, 0)
		}
		unrec, _, why := judgeR2DiskLoss(c, op)
		return unrec, why
	}
	unrec, _ = outsideHolder(false, false)
	assert.False(t, unrec, "r0 is up and reachable with a copy: the core can fetch it")
	unrec, _ = outsideHolder(true, false)
	assert.True(t, unrec, "r0 was cut off whole: its copy is out of the core's reach")
	unrec, why = outsideHolder(false, true)
	assert.True(t, unrec, "r0 acked it and has no round trip with the core: it can neither serve nor nack it")
	assert.Contains(t, why, "r0 holds it with no round trip to the core")
	// r0 acked it too, and serves it: never stranded, or healed (D64).
	bothAcked := func(links func(c *Checker)) bool {
		c := newTest(true)
		c.Journaled(0, op, sum)
		c.Journaled(2, op, sum)
		c.AckSent(2, op, sum)
		c.AckSent(0, op, sum)
		links(c)
		unrec, _, _ := judgeR2DiskLoss(c, op)
		return unrec
	}
	assert.False(t, bothAcked(func(*Checker) {}), "r0 acked it and can serve it: the core can decide")
	assert.False(t, bothAcked(func(c *Checker) { c.CannotServe(1, 0); c.ServesAgain(0) }), "r0's links were healed: the core can fetch its copy")
}

// core-copy-forgotten is core-copy-damaged with memory journals: the core's
// copies went with crashes, not a disk, and no live replica holds one (a
// live copy outside the core a correct core may still fetch); each condition
// must hold.
func TestCoreCopyForgotten(t *testing.T) {
	const op, sum = 3, 0xc3
	// r2 journaled op 3 and acked it; r0, outside the core, held it too;
	// r1 never had it.
	type run struct{ crash, ack, outsideLost, cutOff bool }
	stalled := func(r run) (bool, string, string) {
		c := newTest(false)
		c.Journaled(0, op, sum)
		c.Journaled(2, op, sum)
		if r.ack {
			c.AckSent(2, op, sum)
		}
		if r.outsideLost {
			c.Crash(1, 0)
		}
		if r.cutOff {
			c.CutOff(1, 0)
		}
		if r.crash {
			c.Crash(2, 2)
			c.Restart(3, 2, 0)
		}
		c.Status(4, 1, StatusViewChange, 1, 0, 0, 0)
		c.Status(4, 2, StatusViewChange, 1, 0, 0, 0)
		c.StartLiveness(0, []int{1, 2})
		return judge(c)
	}
	unrec, rule, why := stalled(run{crash: true, ack: true, outsideLost: true})
	assert.True(t, unrec)
	assert.Equal(t, RuleCoreCopyForgotten, rule)
	assert.Contains(t, why, "op 3: r2 acked it or recorded an ack of it and r2 lost its copy")
	unrec, rule, _ = stalled(run{crash: true, ack: true, cutOff: true})
	assert.True(t, unrec, "r0's live copy is out of the core's reach: the harness cut r0 off")
	assert.Equal(t, RuleCoreCopyForgotten, rule)

	unrec, _, _ = stalled(run{ack: true, outsideLost: true})
	assert.False(t, unrec, "r2 still holds its copy: the core can decide")
	unrec, _, _ = stalled(run{crash: true, outsideLost: true})
	assert.False(t, unrec, "nobody in the core acked it: both may nack it")
	unrec, _, _ = stalled(run{crash: true, ack: true})
	assert.False(t, unrec, "r0 is up with a copy: a correct core may fetch it")
}

// A restart from disk may come back below the view and log_view it held in
// memory, never below a view or log_view its messages acted in on the wire.
func TestRestartFromDiskFloors(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		view, logView             uint64 // before the crash
		promised, promisedLogView uint64 // on the wire
		backStatus                Status
		backView, backLogView     uint64 // after the restart
		want                      string // "" for no failure
	}{
		{"view 2 never promised: a superblock in flight may be lost", 2, 0, 1, 1, StatusNormal, 1, 1, ""},
		{"view 2 promised", 2, 0, 2, 1, StatusNormal, 1, 1, "view regressed 2 -> 1"},
		{"log_view 3 never reached the wire", 3, 3, 3, 2, StatusRecovering, 3, 2, ""},
		{"log_view 3 acted in", 3, 3, 3, 3, StatusRecovering, 3, 2,
			"r1 came back from its disk with log_view 2, below log_view 3 it acted in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTest(true)
			st := StatusViewChange
			if tc.logView == tc.view {
				st = StatusNormal
			}
			c.Status(1, 1, st, tc.view, tc.logView, 0, 0)
			c.Crash(2, 1)
			c.Restart(3, 1, 0)
			c.RestartFromDisk(1, tc.promised, tc.promisedLogView)
			c.Status(4, 1, tc.backStatus, tc.backView, tc.backLogView, 0, 0)
			if tc.want == "" {
				assert.Nil(t, c.Failed())
				return
			}
			requireInvariant(t, c, InvMonotonicity, tc.want)
			assert.Equal(t, []int{1}, c.Failed().Replicas)
		})
	}
}

// lostOnDisk is a disk that lost every record of op (both copies faulty)
// after its write landed, and holds every other op intact.
// judgeR2DiskLoss crashes r2, restarts it with its disk's copy of op gone,
// starts the liveness phase with the core r1, r2 mid view change, and judges.
func judgeR2DiskLoss(c *Checker, op uint64) (bool, string, string) {
	c.Crash(2, 2)
	c.Restart(3, 2, 0)
	c.DiskCopies(3, 2, lostOnDisk(op))
	c.Status(4, 1, StatusViewChange, 1, 0, 0, 0)
	c.Status(4, 2, StatusViewChange, 1, 0, op, 0)
	c.StartLiveness(0, []int{1, 2})
	return judge(c)
}

func lostOnDisk(op uint64) func(o, sum uint64) (bool, bool) {
	return func(o, _ uint64) (bool, bool) { return o != op, true }
}

// A replica that comes back below a checkpoint its disk lost has lost the
// ops that checkpoint applied, toward their storage-beyond-f as a damaged
// record would: on a replication quorum the run is beyond what the protocol
// survives, and the excuse names the checkpoints; a replica that came back
// below without the disk's proof excuses nothing, and the op's loss is a
// durability failure.
func TestCheckpointLossCountsTowardStorageBeyondF(t *testing.T) {
	// Both r0 and r1 applied op 1 and let their journal copies go, then
	// came back below it; proven names those whose disk lost the record.
	run := func(proven ...int) *Checker {
		c := newTest(true)
		commitOp(c, 1, 0xa1, 0, 1, 10)
		for i := 0; i < 2; i++ {
			c.Journaled(i, 1, 0xa1)
			c.Apply(2, i, 1, 0xa1, 0, 0)
			c.Evicted(i, 1, 0xa1) // applied: its state covers it
		}
		for i := 0; i < 2; i++ {
			c.Crash(3, i)
			c.Restart(4, i, 0)
			if slices.Contains(proven, i) {
				c.CheckpointLost(4, i, 0, 1)
			}
		}
		c.StartLiveness(5, []int{0, 1, 2})
		return c
	}
	c := run(0, 1)
	ex, _ := c.Stalled(100, 0, 1<<40)
	require.NotNil(t, ex, "both states that applied op 1 are lost to their disks")
	assert.Equal(t, RuleStorageBeyondF, ex.Rule)
	assert.Equal(t, []uint64{1}, ex.Ops)
	assert.Equal(t, []int{0, 1}, ex.Replicas)
	assert.Contains(t, ex.Proof, "r0,r1 came back below a faulty checkpoint record that applied it")
	assert.Nil(t, c.Failed())

	// The excuse stands only while the loss does: once r0 applies op 1
	// again (a state transfer, say), its loss is withdrawn.
	c = run(0, 1)
	_, ok := c.opBeyond(1, 1<<40)
	require.True(t, ok)
	c.Install(50, 0, 1, 0xa1, c.committed[1].state)
	_, ok = c.opBeyond(1, 1<<40)
	assert.False(t, ok, "r0 applied op 1 again: one loss is left, within f")
	assert.Empty(t, c.replicas[0].cpLost)
	assert.Len(t, c.replicas[1].cpLost, 1)

	c = run(0)
	ex, _ = c.Stalled(100, 0, 1<<40)
	assert.Nil(t, ex, "one disk's loss is within f")
	requireInvariant(t, c, InvDurability, "committed op 1 csum=00a1 has no copy left")
}

// A down replica on a write-ahead journal covers every op up to the
// checkpoint its restart would restore (DurableState): an op evicted from
// every journal into that checkpoint is not lost while the replica waits
// outside the core (swarm seed 1592598928 was called a durability finding).
// Without the record, the same op has no copy left.
func TestDownReplicasCheckpointCoversWhatItApplied(t *testing.T) {
	run := func(durable bool) *Checker {
		c := newTest(true)
		commitOp(c, 1, 0xa1, 0, 1, 10)
		c.Journaled(1, 1, 0xa1)
		c.Apply(2, 1, 1, 0xa1, 0, 0)
		c.Evicted(0, 1, 0xa1)
		c.Evicted(1, 1, 0xa1) // applied: only its state covers it now
		c.Crash(3, 1)
		if durable {
			c.DurableState(1, 1)
		}
		return c
	}
	_, lost := run(true).lostOp()
	assert.False(t, lost, "r1's checkpoint applied op 1: held, though r1 is down")
	l, lost := run(false).lostOp()
	require.True(t, lost, "no copy and no state that applied it")
	assert.Equal(t, uint64(1), l.op)
	up := run(true)
	up.Restart(5, 1, 0)
	up.DurableState(1, 1) // asked only of a down replica: no effect
	assert.Zero(t, up.replicas[1].durable, "a live replica's applied state speaks for itself")
}

// A superblock every copy of which lost its last version, an older one
// verifying, is regressed, not lost (SuperblockRegressed): the replica's
// copies above that version's head are lost to its disk (the restart takes
// them out), those at or below stay held; and the promises since are lost,
// as with a lost superblock.
func TestRegressedSuperblockLosesOnlyAboveItsHead(t *testing.T) {
	c := newTest(true)
	c.Journaled(2, 4, 0xd4)
	c.Journaled(2, 6, 0xd6)
	c.Crash(5, 2)
	c.SuperblockRegressed(5, 2, 5)
	assert.Equal(t, uint16(1<<2), c.findBody(4, 0xd4).holders, "op 4 at or below the head read back: held")
	assert.Zero(t, c.findBody(6, 0xd6).holders, "op 6 above it: taken out")
	assert.Equal(t, uint16(1<<2), c.findBody(6, 0xd6).damaged, "and lost to the disk, which proves it")
	assert.NotZero(t, c.replicas[2].sbLostAt, "the promises since are lost")
	assert.Equal(t, []uint64{1}, c.replicas[2].sbLostLives, "noticed while down: the next life begins without them")
}

// A copy its replica set aside lives beside the disk (the removal record in
// its slot says so): a restart that finds it off the disk has not lost it,
// and nothing is excused by its absence. Journaled again, it stays beside
// the disk until its replica lets go of it (the journal's write may be in
// flight: source-2f1d-790513318.vsr); from then on it is on the disk again,
// and a disk that then takes it takes it (the robust finding of seed 65 of
// robust-decade-3737920981.vsr's faults read set-aside copies of committed
// ops as gone, and called a durability failure what was op 203's loss on a
// replication quorum of disks).
func TestSetAsideCopyLivesBesideTheDisk(t *testing.T) {
	const op, sum = 3, 0xc3
	run := func(aside, rejournal, release bool) (bool, string) {
		c := newTest(true)
		c.Journaled(2, op, sum)
		c.AckSent(2, op, sum)
		if aside {
			c.SetAside(2, op, sum, 64)
		}
		if rejournal {
			c.Journaled(2, op, sum)
		}
		if release {
			c.AsideReleased(2, op, sum)
		}
		c.Crash(1, 0)
		unrec, rule, _ := judgeR2DiskLoss(c, op)
		return unrec, rule
	}
	unrec, rule := run(false, false, false)
	require.True(t, unrec, "the disk took r2's journaled copy")
	assert.Equal(t, RuleCoreCopyDamaged, rule)
	unrec, _ = run(true, false, false)
	assert.False(t, unrec, "set aside: held beside the disk, the core can decide")
	unrec, _ = run(true, true, false)
	assert.False(t, unrec, "journaled again, not yet let go: still beside the disk")
	unrec, rule = run(true, true, true)
	assert.True(t, unrec, "journaled again and let go, the disk's loss is a loss")
	assert.Equal(t, RuleCoreCopyDamaged, rule)
}

// A replica keeps one set-aside body per slot of its ring: setting aside
// another op of the same slot ends the copy it set aside there before, as a
// copy it discarded itself, while a set-aside at another slot leaves it
// held.
func TestSetAsideAtTheSameSlotEndsTheEarlierCopy(t *testing.T) {
	const op, sum, slots = 3, 0xc3, 64
	for _, tc := range []struct {
		name  string
		other uint64
		gone  bool
	}{
		{"the same slot, another op", op + slots, true},
		{"another slot", op + 1, false},
	} {
		c := newTest(true)
		c.Journaled(2, op, sum)
		c.Journaled(2, tc.other, 0xd4)
		c.SetAside(2, op, sum, slots)
		c.SetAside(2, tc.other, 0xd4, slots)
		b := c.findBody(op, sum)
		require.NotNil(t, b)
		assert.Equal(t, tc.gone, b.holders&(1<<2) == 0, tc.name)
		assert.Equal(t, tc.gone, b.dropped&(1<<2) != 0, tc.name)
		assert.Equal(t, !tc.gone, b.aside&(1<<2) != 0, tc.name)
		assert.NotZero(t, c.findBody(tc.other, 0xd4).aside&(1<<2), "the newer set-aside is held")
	}
}

// An ack counts a copy only for the life that sent it: r2's PrepareOk of op
// 3, sent before its crash and delivered to the primary after the restart
// whose disk lost the op, does not make r2 a holder again (swarm seed
// 3519988235 from 0xd1ce0000, a stall judged liveness while r2's copy was
// gone), while an ack of the life after the restart, which journaled the
// op again to ack it, does (and an ack landing after a loss of the same
// life holds nothing either: D104, TestAckLandingAfterTheCopysLossHoldsNothing).
func TestLateAckOfAnEarlierLifeHoldsNoCopy(t *testing.T) {
	const op, sum = 3, 0xc3
	run := func(inc uint64) (bool, string) {
		c := newTest(true)
		c.Sent(0, 2, 1)
		c.Journaled(2, op, sum)
		c.AckSent(2, op, sum)
		c.Crash(1, 2)
		c.Restart(2, 2, 0)
		c.DiskCopies(2, 2, lostOnDisk(op))
		c.Sent(2, 2, 2) // the new life speaks with incarnation 2
		if inc == 2 {
			c.Journaled(2, op, sum) // repaired: a replica acks only what it journaled
		}
		c.AckDelivered(0, 2, inc, 0, op, sum, 0)
		c.Crash(3, 0)
		c.Status(4, 1, StatusViewChange, 1, 0, 0, 0)
		c.Status(4, 2, StatusViewChange, 1, 0, op, 0)
		c.StartLiveness(0, []int{1, 2})
		unrec, rule, _ := judge(c)
		return unrec, rule
	}
	unrec, rule := run(1)
	assert.True(t, unrec, "the ack of the earlier life holds nothing: r2's copy is gone")
	assert.Equal(t, RuleCoreCopyDamaged, rule)
	unrec, _ = run(2)
	assert.False(t, unrec, "the life that journaled it again holds its copy")
}

// core-copy-damaged judges each version of an op no replica has cut on its
// own: r1 acked version A of op 3 and its disk lost it; r2, in the core,
// holds version B of op 3, which keeps nothing of A. The core cannot decide
// A (swarm seed 2870870927 from 0xab1e0000). Once a replica cut A by a view
// change, or B comes from a newer view's log than every ack of A, A is
// decided and excuses nothing.
func TestCoreCopyDamagedJudgesEachVersion(t *testing.T) {
	const op, a, b = 3, 0xc3, 0xd4
	run := func(cut bool, bView uint64) (bool, string, string) {
		c := newTest(true)
		c.OwnAck(1, 4, op, a, 0) // r1, primary of view 4, prepared A
		c.AckSent(1, op, a)
		c.OwnAck(int(bView%3), bView, op, b, 0) // B's primary acked it in bView
		c.Journaled(2, op, b)
		if cut {
			c.Journaled(0, op, a)
			c.Dropped(1, 0, DropTruncate, 2, op, a, 0)
		}
		c.Crash(1, 0)
		c.Crash(2, 1)
		c.Restart(3, 1, 0)
		c.DiskCopies(3, 1, lostOnDisk(op))
		c.Status(4, 1, StatusViewChange, 1, 0, op, 0)
		c.Status(4, 2, StatusViewChange, 1, 0, op, 0)
		c.StartLiveness(0, []int{1, 2})
		return judge(c)
	}
	unrec, rule, why := run(false, 0)
	assert.True(t, unrec, "r2's op 3 is another, older entry: version A has no core copy")
	assert.Equal(t, RuleCoreCopyDamaged, rule)
	assert.Contains(t, why, "op 3 csum=00c3")
	unrec, _, _ = run(true, 0)
	assert.False(t, unrec, "r0 cut version A in a view change: decided, not stuck")
	unrec, _, _ = run(false, 5)
	assert.False(t, unrec, "B from view 5's log replaced A of view 4: decided, not stuck")
}
