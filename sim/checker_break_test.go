package sim

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/packetsim"
	"vsrsim/replica"
	"vsrsim/sim/check"
	"vsrsim/vsr"
)

// End-to-end checker breaks: a real simulation (DefaultConfig) with a script
// that forges what the protocol never produces must end with the right
// verdict, invariant and evidence. A checker that stays silent here would stay
// silent on a real bug too.

// scriptFunc adapts a function to Script.
type scriptFunc func(c *Cluster, tick uint64)

func (f scriptFunc) At(c *Cluster, tick uint64) { f(c, tick) }

// breakConfig is DefaultConfig shortened, without crashes, so the forged
// fault is the only one that matters.
func breakConfig(seed uint64) Config {
	cfg := DefaultConfig(seed)
	cfg.FaultTicks = 3000
	cfg.LivenessTicks = 6000
	cfg.CrashChance.Num = 0
	return cfg
}

func runBreak(t *testing.T, cfg Config, script Script) Result {
	t.Helper()
	res, err := Run(cfg, Attach{Script: script})
	require.NoError(t, err)
	t.Logf("verdict=%s invariant=%s evidence=%s", res.Verdict, res.Invariant, res.Evidence)
	return res
}

// TestBreakAgreementForgedCommit forges, into the oracle, a commit by the
// primary of the next op with a parent that is not the committed op below it.
func TestBreakAgreementForgedCommit(t *testing.T) {
	var forgedOp uint64
	script := scriptFunc(func(c *Cluster, tick uint64) {
		if forgedOp != 0 || c.checker.CommittedMax() < 5 {
			return
		}
		op := c.checker.CommittedMax()
		sum, ok := c.checker.Committed(op)
		require.True(t, ok)
		forgedOp = op
		// Replica 1 applies the committed op with another checksum.
		c.checker.Apply(tick, 1, op, sum^0xbad, 0, 0)
	})
	res := runBreak(t, breakConfig(11), script)
	require.NotZero(t, forgedOp, "the script never ran")
	assert.Equal(t, VerdictSafety, res.Verdict)
	assert.True(t, res.Verdict.Failed())
	assert.NotEmpty(t, res.Tail, "a failed run carries the trace tail for triage")
}

// TestBreakCommitWithoutQuorum forges a primary commit of the next op, which
// no backup has acked: the oracle's own record holds only the primary's ack.
func TestBreakCommitWithoutQuorum(t *testing.T) {
	var forgedOp uint64
	script := scriptFunc(func(c *Cluster, tick uint64) {
		if forgedOp != 0 || c.checker.CommittedMax() < 5 {
			return
		}
		info, ok := c.Info(0)
		if !ok || !info.Primary || info.View != 0 {
			return
		}
		op := c.checker.CommittedMax() + 1
		parent, _ := c.checker.Committed(op - 1)
		forgedOp = op
		c.checker.OwnAck(0, 0, op, 0xf00d, parent)
		c.checker.PrimaryCommit(tick, 0, 0, op, 0xf00d, parent, check.NoClient, 0)
	})
	cfg := breakConfig(21)
	cfg.Network.PartitionChance.Num = 0
	res := runBreak(t, cfg, script)
	require.NotZero(t, forgedOp)
	assert.Equal(t, VerdictSafety, res.Verdict)
	assert.Equal(t, check.InvCommitQuorum, res.Invariant)
	assert.Contains(t, res.Evidence, fmt.Sprintf("committed op %d csum=f00d on acks from r0;", forgedOp))
}

// TestBreakCommittedOpLostReplyDropped: every reply to client 0 is dropped,
// so it never hears that its request committed; a merge that truncates that
// committed op must still fail the run, named by the durability rule.
func TestBreakCommittedOpLostReplyDropped(t *testing.T) {
	var forgedOp uint64
	installed := false
	script := scriptFunc(func(c *Cluster, tick uint64) {
		client := c.cfg.Replicas // node id of client 0
		if !installed {
			c.Network().AddFilter(func(_, to packetsim.NodeID, m vsr.Message) bool {
				return to == client && m.Command == vsr.CmdReply
			})
			installed = true
		}
		cl := &c.clients[0]
		if forgedOp != 0 || !cl.inFlight {
			return
		}
		op, ok := c.checker.ExecutedAt(0, cl.request)
		if !ok {
			return
		}
		sum, _ := c.checker.Committed(op)
		info, _ := c.Info(1)
		forgedOp = op
		c.checker.Dropped(tick, 1, check.DropMergeTruncate, info.View+1, op, sum, 2)
	})
	res := runBreak(t, breakConfig(12), script)
	require.NotZero(t, forgedOp)
	assert.Equal(t, VerdictSafety, res.Verdict)
	assert.Equal(t, check.InvDurability, res.Invariant)
	assert.Contains(t, res.Evidence, fmt.Sprintf("merge dropped committed op %d", forgedOp))
	assert.NotContains(t, res.Evidence, "got the reply", "client 0 never got this reply")
}

// TestBreakAckedDurability forges a merge that truncates an op the primary
// prepared and a quorum acked but that has not committed yet: its acks bind
// every later view.
func TestBreakAckedDurability(t *testing.T) {
	var forgedOp uint64
	script := scriptFunc(func(c *Cluster, tick uint64) {
		if forgedOp != 0 || c.checker.CommittedMax() < 5 {
			return
		}
		op := c.checker.CommittedMax() + 1
		parent, _ := c.checker.Committed(op - 1)
		forgedOp = op
		c.checker.OwnAck(0, 0, op, 0xacc, parent)
		c.checker.AckDelivered(0, 1, 0, 0, op, 0xacc, parent)
		c.checker.Dropped(tick, 2, check.DropMergeTruncate, 1, op, 0xacc, 2)
	})
	cfg := breakConfig(22)
	cfg.Network.PartitionChance.Num = 0
	res := runBreak(t, cfg, script)
	require.NotZero(t, forgedOp)
	assert.Equal(t, check.InvAckedDurability, res.Invariant)
	assert.Contains(t, res.Evidence, fmt.Sprintf("merge dropped op %d csum=0acc (2 nacks), but r0,r1 acked it in view 0", forgedOp))
}

// TestBreakClientResultForgedReply drops every real reply to client 0 and
// injects, on the network, a reply to its outstanding request with a result
// no operation produces (every put stores (client+1)<<32 | request).
func TestBreakClientResultForgedReply(t *testing.T) {
	const forgedResult = 1 << 62
	installed := false
	forged := 0
	script := scriptFunc(func(c *Cluster, tick uint64) {
		client := c.cfg.Replicas // node id of client 0
		if !installed {
			c.Network().AddFilter(func(from, to packetsim.NodeID, m vsr.Message) bool {
				return to == client && m.Command == vsr.CmdReply && m.Reply().Result != forgedResult
			})
			installed = true
		}
		cl := &c.clients[0]
		top := c.checker.CommittedMax()
		// Re-inject every 20 ticks: the network may lose a forged reply too.
		if top < 5 || !cl.inFlight || tick%20 != 0 {
			return
		}
		forged++
		c.Inject(vsr.Reply{Client: uint64(client), Request: cl.request, Op: top, Result: forgedResult}.Message().Routed(0, client, 0))
	})
	res := runBreak(t, breakConfig(13), script)
	require.NotZero(t, forged)
	assert.Equal(t, VerdictSafety, res.Verdict)
	assert.Equal(t, check.InvClientResult, res.Invariant)
	assert.Contains(t, res.Evidence, "client c0 got a reply")
}

// TestBreakLivenessAllLinksCut cuts every replica link after some commits and
// re-cuts them every tick, so the liveness phase's HealAll cannot undo it. With
// no crash, every replica is up and can vote, so the stall is a liveness
// failure, not an unrecoverable run.
func TestBreakLivenessAllLinksCut(t *testing.T) {
	cutFrom := uint64(0)
	script := scriptFunc(func(c *Cluster, tick uint64) {
		if cutFrom == 0 && c.checker.CommittedMax() >= c.cfg.CommitFloor {
			cutFrom = tick
		}
		if cutFrom != 0 {
			c.Network().SetLinkDown(packetsim.AnyNode, packetsim.AnyNode, true)
		}
	})
	cfg := breakConfig(14)
	cfg.Core = []int{0, 1, 2}
	res := runBreak(t, cfg, script)
	require.NotZero(t, cutFrom, "nothing committed before the cut")
	assert.Equal(t, VerdictLiveness, res.Verdict)
	assert.Equal(t, "liveness", res.Invariant)
	assert.Contains(t, res.Evidence, "core did not converge in 6000 ticks")
	for i := 0; i < 3; i++ {
		assert.Contains(t, res.Evidence, fmt.Sprintf("r%d ", i), "the evidence lists every core replica")
	}
	assert.Equal(t, cfg.FaultTicks+cfg.LivenessTicks, res.Ticks, "the run used its whole budget")
	assert.GreaterOrEqual(t, res.Committed, cfg.CommitFloor)
}

// TestBreakLivenessUnrecoverable: with two of three replicas crashed for
// good, no op can commit: the fault record proves the stall hopeless, and the
// verdict names the rule.
func TestBreakLivenessUnrecoverable(t *testing.T) {
	crashed := false
	script := scriptFunc(func(c *Cluster, tick uint64) {
		if !crashed && c.checker.CommittedMax() >= c.cfg.CommitFloor {
			c.Crash(0)
			c.Crash(1)
			crashed = true
		}
	})
	cfg := breakConfig(15)
	cfg.Core = []int{2}
	res := runBreak(t, cfg, script)
	require.True(t, crashed)
	assert.Equal(t, VerdictUnrecoverable, res.Verdict)
	assert.False(t, res.Verdict.Failed(), "unrecoverable is not a finding")
	assert.Equal(t, check.RuleTooFewUp, res.Rule)
	assert.Contains(t, res.Evidence, "r0,r1 stayed down to the end")
}

// TestBreakNoVoters: on memory journals the script crashes two of three
// replicas at once, the primary among them, and restarts them: they may not
// vote until a primary hands them a view, and none is left to.
func TestBreakNoVoters(t *testing.T) {
	crashedAt := uint64(0)
	script := scriptFunc(func(c *Cluster, tick uint64) {
		// Once r2 applied every committed op, so that no committed op
		// dies with the crashes (the loss check runs first and would name
		// committed-op-lost).
		if top := c.checker.CommittedMax(); crashedAt == 0 && top >= c.cfg.CommitFloor && c.replicas[2].Info().CommitMin == top {
			c.Crash(0)
			c.Crash(1)
			crashedAt = tick
		}
		if crashedAt != 0 && tick == crashedAt+50 {
			c.Restart(0)
			c.Restart(1)
		}
	})
	cfg := breakConfig(16)
	cfg.Durability = replica.DurabilityMemory
	res := runBreak(t, cfg, script)
	require.NotZero(t, crashedAt)
	assert.Equal(t, VerdictUnrecoverable, res.Verdict)
	assert.Equal(t, check.RuleNoVoters, res.Rule)
	assert.Contains(t, res.Evidence, "only 1 replicas could vote")
}

// TestBreakForgedIntoRealRuns forges, into a running cluster's oracle, one
// observation per rule that a correct replica never produces, once the run
// has committed a few ops; each must end the run with its rule.
func TestBreakForgedIntoRealRuns(t *testing.T) {
	for _, tc := range []struct {
		name, invariant string
		forge           func(c *Cluster, tick uint64)
	}{
		{"a request executed twice", check.InvExactlyOnce, func(c *Cluster, tick uint64) {
			op := c.checker.CommittedMax() + 1
			parent, _ := c.checker.Committed(op - 1)
			c.checker.OwnAck(0, 0, op, 0xd0b1e, parent)
			c.checker.AckDelivered(0, 1, 0, 0, op, 0xd0b1e, parent)
			c.checker.PrimaryCommit(tick, 0, 0, op, 0xd0b1e, parent, 0, 1) // client 0's first request, long executed
		}},
		{"an apply with another result", check.InvApplyResult, func(c *Cluster, tick uint64) {
			info, _ := c.Info(1)
			op := info.CommitMin + 1
			sum, ok := c.checker.Committed(op)
			if !ok {
				return
			}
			parent, _ := c.checker.Committed(op - 1)
			c.checker.Apply(tick, 1, op, sum, parent, 1<<60)
		}},
		{"a view that regresses", check.InvMonotonicity, func(c *Cluster, tick uint64) {
			c.checker.Status(tick, 1, check.StatusNormal, 0, 0, 0, 0)
			c.checker.Status(tick, 1, check.StatusViewChange, 7, 0, 0, 0)
			c.checker.Status(tick, 1, check.StatusNormal, 6, 6, 0, 0)
		}},
		{"checkpoints that disagree", check.InvCheckpoint, func(c *Cluster, tick uint64) {
			op := c.checker.CommittedMax()
			c.checker.Checkpoint(tick, 1, op, 1)
			c.checker.Checkpoint(tick, 2, op, 2)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			forged := false
			script := scriptFunc(func(c *Cluster, tick uint64) {
				if forged || c.checker.CommittedMax() < 5 {
					return
				}
				if info, ok := c.Info(0); !ok || !info.Primary || info.View != 0 {
					return
				}
				tc.forge(c, tick)
				forged = c.checker.Failed() != nil
			})
			cfg := breakConfig(31)
			cfg.Network.PartitionChance.Num = 0
			res := runBreak(t, cfg, script)
			require.True(t, forged, "the forgery never fired")
			assert.Equal(t, VerdictSafety, res.Verdict)
			assert.Equal(t, tc.invariant, res.Invariant)
		})
	}
}

// The oracle's former holes (issue 23), each planted into a real run at the
// boundary the harness observes: an event a defective replica would report,
// or a message it would send. Before the stricter rules each of these runs
// passed; now each must fail with its rule. The correct replica's side is the
// swarm: seeds 1..2000 pass with every rule on (docs/checkers.md).

// holeRun runs breakConfig(seed) with plant called once per tick after the
// cluster committed five ops while r0 leads view 0; plant reports whether it
// planted.
func holeRun(t *testing.T, seed uint64, durability replica.Durability, plant func(c *Cluster, tick uint64) bool) Result {
	t.Helper()
	planted := false
	script := scriptFunc(func(c *Cluster, tick uint64) {
		if planted || c.checker.CommittedMax() < 5 {
			return
		}
		if info, ok := c.Info(0); !ok || !info.Primary || info.View != 0 {
			return
		}
		planted = plant(c, tick)
	})
	cfg := breakConfig(seed)
	cfg.Durability = durability
	cfg.Network.PartitionChance.Num = 0
	res := runBreak(t, cfg, script)
	require.True(t, planted, "the plant never ran")
	return res
}

// TestHoleSameViewCutOfACountedCopy: a backup whose ack the commit counted
// re-adopts a late StartView of its own view and cuts the committed op. The
// same-view allowance once excused it.
func TestHoleSameViewCutOfACountedCopy(t *testing.T) {
	res := holeRun(t, 41, replica.DurabilityWAL, func(c *Cluster, tick uint64) bool {
		op := c.checker.CommittedMax()
		sum, _ := c.checker.Committed(op)
		// Chain topology: r1 is the backup r0's prepares reach first, so
		// its ack is in every commit quorum of a healthy view 0.
		e := vsr.JournalChange{Op: op, Checksum: sum, View: 0}.Event(vsr.EvJournalTruncate)
		c.report(1, &e)
		return true
	})
	assert.Equal(t, VerdictSafety, res.Verdict)
	assert.Equal(t, check.InvDurability, res.Invariant)
	assert.Contains(t, res.Evidence, "view-0 truncation dropped committed op")
}

// TestHoleMemoryFirstLifeAcks: on memory journals, a replica that never
// restarted acks an op; the next view's merge cuts it. The first life's
// acks were never counted as held, so acked_durability was off.
func TestHoleMemoryFirstLifeAcks(t *testing.T) {
	res := holeRun(t, 42, replica.DurabilityMemory, func(c *Cluster, tick uint64) bool {
		op := c.checker.CommittedMax() + 1
		parent, _ := c.checker.Committed(op - 1)
		const sum = 0xacced
		c.checker.OwnAck(0, 0, op, sum, parent)
		ack := vsr.PrepareOk{Op: op, Checksum: sum, Parent: parent}.Message().Routed(1, 0, 0)
		c.reportSend(&ack)
		c.reportDelivery(0, &ack)
		e := vsr.MergeTruncated{Op: op, Checksum: sum, View: 1}.Event()
		c.report(2, &e)
		return true
	})
	assert.Equal(t, VerdictSafety, res.Verdict)
	assert.Equal(t, check.InvAckedDurability, res.Invariant)
	assert.Contains(t, res.Evidence, "acked it in view 0 and still hold it")
}

// TestHoleIncarnationZeroAfterRestart: a replica whose restart does not bump
// its incarnation sends a PrepareOk stamped 0. A stamp of 0 was never judged.
func TestHoleIncarnationZeroAfterRestart(t *testing.T) {
	restarted := false
	res := holeRun(t, 43, replica.DurabilityMemory, func(c *Cluster, tick uint64) bool {
		if !restarted {
			c.Crash(2)
			c.Restart(2)
			restarted = true
			return false
		}
		ack := vsr.PrepareOk{Op: 1, Checksum: 1}.Message().Routed(2, 0, 0)
		c.Inject(ack)
		return true
	})
	assert.Equal(t, VerdictSafety, res.Verdict)
	assert.Equal(t, check.InvMonotonicity, res.Invariant)
	assert.Contains(t, res.Evidence, "r2 stamped incarnation 0 after its restart")
}

// TestHoleTransferInstallsWrongState: a state transfer installs a state that
// is not the committed one at its op. The install was taken on the
// replica's word.
func TestHoleTransferInstallsWrongState(t *testing.T) {
	res := holeRun(t, 44, replica.DurabilityWAL, func(c *Cluster, tick uint64) bool {
		op := c.checker.CommittedMax()
		sum, _ := c.checker.Committed(op)
		snap := &vsr.Snapshot{Op: op, OpChecksum: sum}
		snap.State.KV[3] = 0xbad
		e := vsr.TransferInstalled{Op: op, Checksum: sum, Snapshot: snap}.Event()
		c.report(2, &e)
		return true
	})
	assert.Equal(t, VerdictSafety, res.Verdict)
	assert.Equal(t, check.InvCheckpoint, res.Invariant)
	assert.Contains(t, res.Evidence, "the oracle's model there gives")
}

// TestNothingJudgedIsNothingPassed: a run whose liveness phase is skipped or
// too short to judge says so.
func TestNothingJudgedIsNothingPassed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		liveness uint64
		want     string
	}{
		{"no liveness phase", 0, LivenessUnchecked},
		{"shorter than the stable window", 1000, LivenessUnchecked},
		{"a full phase", 20000, LivenessChecked},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig(5)
			cfg.FaultTicks = 2000
			cfg.LivenessTicks = tc.liveness
			res, err := Run(cfg, Attach{})
			require.NoError(t, err)
			assert.Equal(t, VerdictPass, res.Verdict, res.Evidence)
			assert.Equal(t, tc.want, res.Liveness)
		})
	}
}

// TestLivenessAsksForANewRequest: a run that committed past its floor in
// the fault phase still has its clients ask in the liveness phase, and the
// core must serve a request issued there: once the phase only waited for old
// requests to finish, and no request was issued in it at all.
func TestLivenessAsksForANewRequest(t *testing.T) {
	cfg := DefaultConfig(6)
	cfg.FaultTicks = 3000
	res, err := Run(cfg, Attach{})
	require.NoError(t, err)
	require.GreaterOrEqual(t, res.Committed, cfg.CommitFloor, "the floor was no reason to ask")
	assert.Equal(t, VerdictPass, res.Verdict, res.Evidence)
	assert.Equal(t, LivenessChecked, res.Liveness)
	served := 0
	for _, h := range res.History {
		if h.Call > cfg.FaultTicks && h.Returned {
			served++
		}
	}
	assert.Positive(t, served, "a request issued in the liveness phase was served")
}
