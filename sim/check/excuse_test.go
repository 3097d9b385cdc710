package check

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An end-state excuse stands only if its condition held when the stall
// began: here no-voters, whose memory-journal crashes come either before the
// liveness phase (excused) or long after the core stopped committing in it
// (a liveness finding, the rule named as not excusing it).
func TestExcusesJudgedOverTime(t *testing.T) {
	stall := func(crashAt uint64) (*Excuse, string) {
		c := newTest(false)
		for i := 0; i < 3; i++ {
			c.Status(1, i, StatusViewChange, 1, 0, 0, 0)
		}
		c.StartLiveness(100, []int{0, 1, 2})
		c.Crash(crashAt, 1)
		c.Crash(crashAt, 2)
		c.Restart(crashAt+1, 1, 0)
		c.Restart(crashAt+1, 2, 0)
		return c.Stalled(100, 0, 10)
	}
	ex, _ := stall(50)
	require.NotNil(t, ex, "the voters were gone before the liveness phase began")
	assert.Equal(t, RuleNoVoters, ex.Rule)
	assert.Equal(t, []int{1, 2}, ex.Replicas)
	assert.Equal(t, uint64(50), ex.Since)

	ex, why := stall(500)
	assert.Nil(t, ex, "the core was stalled within f from t=100; crashes at t=500 excuse nothing")
	assert.Contains(t, why, "no-voters does not excuse it: its condition holds only since t=500, after the stall began at t=100")

	ex, _ = stall(105)
	require.NotNil(t, ex, "within the grace of the stall's start: the crashes began it")
}

// The loss check runs before any excuse: a committed op lost within f is a
// durability failure even when the voters run short too.
func TestLossCheckedBeforeExcuses(t *testing.T) {
	c := newTest(false)
	commitOp(c, 1, 0xa1, 0, 1, 10)
	c.Journaled(1, 1, 0xa1)
	c.Evicted(1, 1, 0xa1) // r1 let its copy go: a defect
	c.Crash(6, 0)         // one crash, within f
	c.Restart(7, 0, 0)
	c.CutOff(8, 2) // and the harness cut r2 off: one voter left
	c.StartLiveness(8, []int{0, 1})
	ex, why := c.Stalled(100, 0, 1<<40)
	assert.Nil(t, ex, "no-voters holds at the end, but the loss comes first")
	assert.NotContains(t, why, RuleNoVoters)
	requireInvariant(t, c, InvDurability, "committed op 1 csum=00a1 has no copy left")
}

// The core rules count every reachable whole replica as a possible nacker,
// core or not, and ask for more than f replicas lost or out of reach.
func TestCoreRulesCountEveryNacker(t *testing.T) {
	const op, sum = 3, 0xc3
	// r2 journaled and acked op 3, its disk lost it; the core is r1,r2.
	run := func(r0 string) (*Excuse, string) {
		c := ackedByR2(op, sum)
		switch r0 {
		case "down":
			c.Crash(1, 0)
		case "cut":
			c.CutOff(1, 0)
		case "amnesiac":
			// r0 lost its superblock at a crash and came back recovering:
			// up and reachable, but it cannot vote a nack (swarm seed
			// 3238015289: it lost it before op 3 existed, and no replica
			// could tell).
			c.Crash(1, 0)
			c.SuperblockLost(1, 0)
			c.Restart(1, 0, 0)
		}
		r2LosesItsAckedCopy(c, op)
		return c.Stalled(100, 0, 1<<40)
	}
	ex, _ := run("up")
	assert.Nil(t, ex, "r0, outside the core but reachable and whole, never acked: with r1 a nack quorum")
	ex, _ = run("down")
	require.NotNil(t, ex)
	assert.Equal(t, RuleCoreCopyDamaged, ex.Rule)
	assert.Equal(t, []uint64{op}, ex.Ops)
	assert.Equal(t, []int{0, 2}, ex.Replicas, "r0 out of reach and r2's lost copy: two, more than f")
	ex, _ = run("cut")
	require.NotNil(t, ex, "cut off by the harness: out of reach")
	ex, _ = run("amnesiac")
	require.NotNil(t, ex, "r0 reachable but not whole cannot nack: its lost superblock is the second fault")
	assert.Equal(t, RuleCoreCopyDamaged, ex.Rule)
	assert.Equal(t, []int{0, 2}, ex.Replicas, "r0 not whole and r2's lost copy")
	assert.Contains(t, ex.Proof, "cannot nack")
}

// A storage excuse covers a safety finding only through what it is about:
// the op whose copies the disks lost on a replication quorum, standing at
// the finding, or replicas whose every superblock copy is faulty.
func TestStorageExcuseScoped(t *testing.T) {
	const op, sum = 4, 0xd4
	lose := func(c *Checker, replicas ...int) {
		for _, i := range replicas {
			c.Journaled(i, op, sum)
			c.Crash(10, i)
			c.DiskCopies(10, i, lostOnDisk(op))
			c.Restart(11, i, 0)
		}
	}
	c := newTest(true)
	lose(c, 0, 1)
	ex, ok := c.ExcuseFailure(&Failure{Tick: 20, Ops: []uint64{op}})
	require.True(t, ok, "op 4 lost on r0 and r1, a replication quorum")
	assert.Equal(t, RuleStorageBeyondF, ex.Rule)
	assert.Equal(t, []uint64{op}, ex.Ops)
	assert.Equal(t, []int{0, 1}, ex.Replicas)
	_, ok = c.ExcuseFailure(&Failure{Tick: 20, Ops: []uint64{op + 1}})
	assert.False(t, ok, "damage to op 4 excuses nothing about op 5")
	_, ok = c.ExcuseFailure(&Failure{Tick: 5, Ops: []uint64{op}})
	assert.False(t, ok, "a finding before the damage is not excused by it")
	_, ok = c.ExcuseFailure(&Failure{Tick: 20, Replicas: []int{0}})
	assert.False(t, ok, "an op's lost copies excuse nothing about a replica's own state")

	one := newTest(true)
	lose(one, 0)
	_, ok = one.ExcuseFailure(&Failure{Tick: 20, Ops: []uint64{op}})
	assert.False(t, ok, "one lost copy is within what the protocol survives")

	held := newTest(true)
	lose(held, 0, 1)
	held.Journaled(1, op, sum) // r1 repaired its copy
	_, ok = held.ExcuseFailure(&Failure{Tick: 20, Ops: []uint64{op}})
	assert.False(t, ok, "the damage no longer stands once a copy is held again")

	intact := newTest(true)
	for _, i := range []int{0, 1} {
		intact.Journaled(i, op, sum)
		intact.Crash(10, i)
		// A header copy damaged beside an intact prepare: either record
		// serves, so the disk still holds the op.
		intact.DiskCopies(10, i, func(uint64, uint64) (bool, bool) { return true, true })
	}
	_, ok = intact.ExcuseFailure(&Failure{Tick: 20, Ops: []uint64{op}})
	assert.False(t, ok, "a copy with one record intact is held")

	unlanded := newTest(true)
	for _, i := range []int{0, 1} {
		unlanded.Journaled(i, op, sum)
		unlanded.Crash(10, i)
		unlanded.DiskCopies(10, i, func(uint64, uint64) (bool, bool) { return false, false })
	}
	_, ok = unlanded.ExcuseFailure(&Failure{Tick: 20, Ops: []uint64{op}})
	assert.False(t, ok, "a write the crash caught in flight is no fault: nothing to excuse")

	sb := newTest(true)
	sb.Status(1, 2, StatusNormal, 3, 3, 0, 0)
	sb.Crash(5, 2)
	sb.Restart(7, 2, 0)
	sb.RestartFromDisk(2, 3, 3)
	sb.SuperblockLost(7, 2)
	ex, ok = sb.ExcuseFailure(&Failure{Tick: 20, Replicas: []int{2}})
	require.True(t, ok)
	assert.True(t, ex.Superblock)
	_, ok = sb.ExcuseFailure(&Failure{Tick: 20, Replicas: []int{1, 2}})
	assert.False(t, ok, "r2's lost superblock excuses nothing r1 did")
	_, ok = sb.ExcuseFailure(&Failure{Tick: 20, Ops: []uint64{op}})
	assert.False(t, ok, "nor anything about an op")
	// A lost superblock takes its replica's copies with it: no record of
	// that disk can be placed. With one other copy lost the op is beyond f,
	// the proof says which way each was lost, and it stands only until a
	// copy is held again.
	both := newTest(true)
	both.Journaled(0, op, sum)
	both.Journaled(2, op, sum)
	both.Crash(5, 2)
	both.SuperblockLost(7, 2)
	_, ok = both.ExcuseFailure(&Failure{Tick: 20, Ops: []uint64{op}})
	assert.False(t, ok, "one replica's lost superblock alone is within f")
	both.Crash(10, 0)
	both.DiskCopies(10, 0, lostOnDisk(op))
	ex, ok = both.ExcuseFailure(&Failure{Tick: 20, Ops: []uint64{op}})
	require.True(t, ok, "r0's records damaged and r2's superblock gone: a replication quorum")
	assert.Equal(t, []int{0, 2}, ex.Replicas)
	assert.Contains(t, ex.Proof, "the disks of r0 hold no intact record of it, and r2 came back with no superblock copy")
	both.Journaled(2, op, sum) // r2 repaired the op since
	_, ok = both.ExcuseFailure(&Failure{Tick: 30, Ops: []uint64{op}})
	assert.False(t, ok, "held again: the damage no longer stands")

	sb.Status(35, 2, StatusNormal, 4, 4, 0, 0)
	_, ok = sb.ExcuseFailure(&Failure{Tick: 40, Replicas: []int{2}})
	assert.True(t, ok, "what a lost superblock held (the incarnations a life used) never comes back: it stands")
}

// A disk copy lost while its replica is up is still in its memory: only a
// crash (or a fault while down) withdraws it, and the lost count is what no
// replica holds again.
func TestDiskCopiesWithdrawOnlyWhatTheDiskLost(t *testing.T) {
	c := newTest(true)
	c.Journaled(0, 4, 0xd4)
	c.Journaled(0, 5, 0xd5)
	c.Crash(3, 0)
	c.DiskCopies(3, 0, func(op, _ uint64) (bool, bool) { return op != 4, op == 4 })
	assert.Equal(t, uint16(0), c.findBody(4, 0xd4).holders)
	assert.Equal(t, uint16(1), c.findBody(4, 0xd4).damaged)
	assert.Equal(t, uint16(1), c.findBody(5, 0xd5).holders, "op 5 is intact on the disk")
}

// An ack that left before a read in the same life found its copy gone does
// not hold the copy again when it lands (D104): the replica acks only a
// copy it journaled, and journaling it again holds it again. The stall it
// leaves is then excused (swarm seed 501962822 from 0x1dea0000, robust
// variant: an ack of op 1 sent at t=184 reached the old primary at t=1039,
// after r2's reads at t=208 found both copies damaged).
func TestAckLandingAfterTheCopysLossHoldsNothing(t *testing.T) {
	for _, rejournaled := range []bool{false, true} {
		c := newTest(true)
		c.Journaled(2, 1, 0xe1)
		c.AckDelivered(0, 2, 0, 0, 1, 0xe1, 0)
		c.DiskCopies(5, 2, lostOnDisk(1)) // a read in r2's life found it gone
		require.Equal(t, uint16(0), c.findBody(1, 0xe1).holders)
		if rejournaled {
			c.Journaled(2, 1, 0xe1) // repaired, then the same old ack lands
		}
		c.AckDelivered(0, 2, 0, 0, 1, 0xe1, 0)
		b := c.findBody(1, 0xe1)
		assert.Equal(t, rejournaled, b.holders&(1<<2) != 0, "rejournaled=%v", rejournaled)
		assert.Equal(t, !rejournaled, b.lostToDisks()&(1<<2) != 0, "rejournaled=%v", rejournaled)
	}
}

// A lost superblock excuses what the loss forgot, no more: the promises of
// the lives before it (a view it reached, the incarnations it stamped), not a
// view it learned since, and never a finding about an op (the op's copies
// judge that: one replica's loss is within f).
func TestSuperblockLossExcusesOnlyWhatItForgot(t *testing.T) {
	lost := func() *Checker {
		c := newTest(true)
		c.Status(1, 2, StatusNormal, 3, 3, 0, 0) // life 0 reaches view 3
		c.Crash(5, 2)
		c.SuperblockLost(5, 2) // noticed while down: life 1 begins without it
		c.Restart(7, 2, 0)
		c.RestartFromDisk(2, 3, 3)
		c.SuperblockLost(7, 2)
		return c
	}
	before := lost()
	before.Status(8, 2, StatusRecovering, 0, 0, 0, 0) // amnesiac: view 0
	f := before.Failed()
	require.NotNil(t, f, "view 3 -> 0 is a regression")
	require.Contains(t, f.Evidence, "view regressed 3 -> 0")
	_, ok := before.ExcuseFailure(f)
	assert.True(t, ok, "view 3 was reached before the loss: forgotten with it")

	after := lost()
	after.Status(8, 2, StatusRecovering, 0, 0, 0, 0)
	after.failure = nil                          // the forgotten view, excused above
	after.Status(9, 2, StatusNormal, 6, 6, 0, 0) // learned view 6 since
	after.Crash(20, 2)                           // its superblock holds now
	after.Restart(22, 2, 0)
	after.RestartFromDisk(2, 6, 6)
	after.Status(23, 2, StatusNormal, 4, 4, 0, 0) // and it comes back at 4
	f = after.Failed()
	require.NotNil(t, f)
	require.Contains(t, f.Evidence, "view regressed 6 -> 4")
	_, ok = after.ExcuseFailure(f)
	assert.False(t, ok, "view 6 was reached after the loss: its superblocks since keep it")

	op := lost()
	_, ok = op.ExcuseFailure(&Failure{Tick: 20, Ops: []uint64{4}, Replicas: []int{2}})
	assert.False(t, ok, "r2 dropped an op another replica holds: its own loss does not excuse that")
	_, ok = op.ExcuseFailure(&Failure{Tick: 20, Replicas: []int{2}})
	assert.True(t, ok, "a finding about r2 alone, no promise named: covered as before")
	// The protocol model names the life of an ack a vote lost.
	acked := &Failure{Tick: 20, Replicas: []int{2}}
	acked.Promised(2, 0, 1)
	_, ok = op.ExcuseFailure(acked)
	assert.True(t, ok, "acked in life 0, lost with the superblock before life 1")
	acked.Promised(2, 1, 1)
	_, ok = op.ExcuseFailure(acked)
	assert.False(t, ok, "acked in life 1, after the loss: its superblocks since keep it")
}

// A stall with a core replica still recovering from a lost superblock is
// beyond f only if it and the replicas outside the core are more than f: one
// amnesiac replica in a whole core must be handed a view by the rest.
func TestStallExcusedOnlyBeyondF(t *testing.T) {
	stall := func(core []int) *Checker {
		c := lostSuperblockBack()
		c.Status(8, 2, StatusRecovering, 0, 0, 0, 0)
		c.failure = nil
		c.live.core = core
		return c
	}
	_, ok := stall([]int{0, 1, 2}).stallBeyond()
	assert.False(t, ok, "r2 alone is within f: r0 and r1 must hand it a view")
	ex, ok := stall([]int{1, 2}).stallBeyond()
	require.True(t, ok, "r2 recovering and r0 outside the core: two faults, f is one")
	assert.Equal(t, []int{2}, ex.Replicas)
	rejoined := stall([]int{1, 2})
	rejoined.Status(30, 2, StatusNormal, 4, 4, 0, 0)
	_, ok = rejoined.stallBeyond()
	assert.True(t, ok, "r2 adopted a view but holds unsure what it may have acked: not whole yet")
	rejoined.replicas[2].applied = 5
	rejoined.checkWhole(2)
	_, ok = rejoined.stallBeyond()
	assert.False(t, ok, "r2 applied past every op it may have acked: the loss no longer stalls anything")
}

// A replica back from a lost superblock holds unsure every op of the first
// log it adopts, up to that log's head: it cannot tell an op prepared while
// it was away from one it acked before the loss. It is whole only once it
// applied past that head, however few ops the cluster had prepared when it
// lost the superblock (swarm seed 1592591762: r1 lost every copy at t=6221,
// rejoined at t=7791 with head 47 and held ops 44..47, prepared at t=7571
// on, unsure; the only other holder lost its superblock too).
func TestLostSuperblockWholeOnlyPastFirstAdoptedHead(t *testing.T) {
	c := lostSuperblockBack()
	c.Status(8, 2, StatusRecovering, 0, 0, 0, 0)
	c.preparedTop = 9 // prepared while it recovered
	c.Status(30, 2, StatusNormal, 4, 4, 9, 0)
	r := &c.replicas[2]
	r.applied = 5
	c.checkWhole(2)
	assert.False(t, r.whole(), "ops 6..9 of the log it adopted are held unsure: not whole")
	r.applied = 9
	c.checkWhole(2)
	assert.True(t, r.whole(), "applied past the head of the first log it adopted")

	capped := lostSuperblockBack()
	capped.Status(30, 2, StatusNormal, 4, 4, 50, 0) // a head above anything prepared
	capped.replicas[2].applied = 5
	capped.checkWhole(2)
	assert.True(t, capped.replicas[2].whole(), "the head it reports counts only up to what the cluster prepared")

	regressed := newTest(true)
	regressed.preparedTop = 5
	regressed.Crash(5, 2)
	regressed.SuperblockRegressed(5, 2, 3)
	regressed.Restart(7, 2, 0)
	regressed.preparedTop = 9
	regressed.Status(30, 2, StatusNormal, 4, 4, 9, 0)
	regressed.replicas[2].applied = 5
	regressed.checkWhole(2)
	assert.True(t, regressed.replicas[2].whole(), "a regressed superblock keeps its ack bound: no adopted log held unsure")
}

// lostSuperblockBack is a checker whose r2 lost every superblock copy at a
// crash, with ops up to 5 prepared (what it may have acked), and restarted.
func lostSuperblockBack() *Checker {
	c := newTest(true)
	c.preparedTop = 5
	c.Crash(5, 2)
	c.SuperblockLost(5, 2)
	c.Restart(7, 2, 0)
	return c
}

// The core rules' excuse holds from when its faults were more than f, not
// from when the op's copies were lost: a replica that stops being able to
// nack only after the stall began (its superblock lost at a later crash)
// does not excuse a stall that began while the cluster was within f.
func TestCoreRuleSinceCountsEveryFault(t *testing.T) {
	const op, sum = 3, 0xc3
	stall := func(amnesiaAt uint64) (*Excuse, string) {
		c := ackedByR2(op, sum)
		r2LosesItsAckedCopy(c, op)
		c.Crash(amnesiaAt, 0)
		c.SuperblockLost(amnesiaAt, 0)
		c.Restart(amnesiaAt+1, 0, 0)
		return c.Stalled(100, 0, 0)
	}
	ex, why := stall(6)
	assert.Nil(t, ex, "r0 lost its superblock after the stall began: within f when it began")
	assert.Contains(t, why, "does not excuse it")
	assert.Contains(t, why, "since t=6")
}

// r2LosesItsAckedCopy has r2, which acked op, crash and come back without
// its copy, every replica change views, and the liveness phase begin at t=5
// with the core r1, r2.
func r2LosesItsAckedCopy(c *Checker, op uint64) {
	c.Crash(2, 2)
	c.DiskCopies(2, 2, lostOnDisk(op))
	c.Restart(3, 2, 0)
	for i := 0; i < 3; i++ {
		c.Status(4, i, StatusViewChange, 1, 0, 0, 0)
	}
	c.StartLiveness(5, []int{1, 2})
}

// ackedByR2 is a checker in which r2 journaled op and acked it.
func ackedByR2(op, sum uint64) *Checker {
	c := newTest(true)
	c.Journaled(2, op, sum)
	c.AckSent(2, op, sum)
	return c
}

// A committed op whose last copy, held by a replica down outside the core,
// is lost only after the stall began: the loss excuses nothing (it came
// late), but the core rule held when the stall began (r2's copy lost, r0 down
// since t=1), dated by each replica's own fault: r0 counts from its crash,
// not from its later loss. Before, the late loss ended the judgement as a
// liveness finding, and the core rule dated every lost copy by the op's
// latest loss (a file of decaying disks, seed 33, before D72 stopped decay
// at the liveness phase).
func TestLateLossLeavesTheCoreRule(t *testing.T) {
	const op, sum = 3, 0xc3
	c := ackedByR2(op, sum)
	c.Journaled(0, op, sum)
	c.AckSent(0, op, sum)
	c.Crash(1, 0)
	r2LosesItsAckedCopy(c, op)
	c.DiskCopies(50, 0, lostOnDisk(op))
	ex, why := c.Stalled(100, 0, 0)
	require.NotNil(t, ex, why)
	assert.Equal(t, RuleCoreCopyDamaged, ex.Rule)
	assert.LessOrEqual(t, ex.Since, uint64(5), "held when the stall began: %s", why)
}

// A holder out of reach dates the core rule from when it went out of
// reach, even where more than f other faults came earlier: until then the
// core could fetch the op from it. r1 was cut off at t=1 and r2 lost its copy
// at t=2 (two faults, more than f), but r0, outside the core, held the op and
// was up until t=40: the stall that began at t=5 is not excused. Before, the
// rule dated the faults without the holder and excused it from t=2.
func TestCoreRuleWaitsForEveryHolderOutOfReach(t *testing.T) {
	const op, sum = 3, 0xc3
	c := ackedByR2(op, sum)
	c.Journaled(0, op, sum)
	c.CutOff(1, 1)
	r2LosesItsAckedCopy(c, op)
	c.Crash(40, 0)
	ex, why := c.Stalled(100, 0, 0)
	assert.Nil(t, ex, why)
	assert.Contains(t, why, "core-copy-damaged does not excuse it: its condition holds only since t=40")
}

// A stall's storage excuse is about an op the core has yet to apply: one a
// live core replica applied is held in its state, which a state transfer
// hands a lagging peer, however many disks lost the op's records (swarm
// seed 1847583072 from 0x6e1f0000: r2 back below a faulty checkpoint at
// commit 0, r0 at 274 with op 42's journal copy long damaged; the stall
// named op 42, beyond f by the disks' record, where it was op 275, held
// only by r1 outside the core after r0's disk lost it).
func TestStallBeyondSkipsOpsACoreReplicaApplied(t *testing.T) {
	run := func(applied uint64) *Checker {
		c := lostOnTwoDisks()
		for i := 0; i < 2; i++ {
			c.Restart(4, i, 0)
		}
		c.replicas[0].applied = applied // r0's state holds op 1 where 1
		c.StartLiveness(6, []int{0, 1})
		return c
	}
	ex, ok := run(0).stallBeyond()
	require.True(t, ok, "no core replica applied op 1, lost on r0 and r1: beyond f")
	assert.Equal(t, []uint64{1}, ex.Ops)
	_, ok = run(1).stallBeyond()
	assert.False(t, ok, "r0 applied op 1: the core holds it, whatever the disks lost")
}

// Nor does a stall's storage excuse count a replica whose durable state
// holds the op, down outside the core, as one whose disk lost it: it is out
// of reach, which core-copy-damaged weighs, not lost (swarm seed 790462563
// from 0x2f1d0000: op 7 named lost on r1's faulty checkpoint and on r2,
// down with a checkpoint at op 230, hid core-copy-damaged on op 8).
func TestStallBeyondSkipsADurableHolder(t *testing.T) {
	run := func(durable uint64) *Checker {
		c := lostOnTwoDisks()
		c.DurableState(1, durable) // r1 stays down: its checkpoint's op
		c.Restart(4, 0, 0)
		c.StartLiveness(6, []int{0, 2})
		return c
	}
	_, ok := run(0).stallBeyond()
	assert.True(t, ok, "r0 and r1 lost op 1 to their disks, neither holds it: beyond f")
	_, ok = run(1).stallBeyond()
	assert.False(t, ok, "r1's checkpoint holds op 1: out of reach, not lost")
}

// lostOnTwoDisks is a checker whose committed op 1 r0 and r1 journaled and
// lost to their disks across a crash; both are down.
func lostOnTwoDisks() *Checker {
	c := newTest(true)
	commitOp(c, 1, 0xa1, 0, 1, 10)
	for i := 0; i < 2; i++ {
		c.Journaled(i, 1, 0xa1)
		c.Crash(3, i)
		c.DiskCopies(3, i, lostOnDisk(1))
	}
	return c
}
