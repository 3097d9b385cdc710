package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/replica"
	"vsrsim/sim/check"
)

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
	cfg := breakConfig(seed, scriptFunc(func(c *Cluster, tick uint64) {
		if planted || c.checker.CommittedMax() < 5 {
			return
		}
		if info, ok := c.Info(0); !ok || !info.Primary || info.View != 0 {
			return
		}
		planted = plant(c, tick)
	}))
	cfg.Durability = durability
	cfg.Network.PartitionChance.Num = 0
	res := runBreak(t, cfg)
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
		e := replica.JournalChange{Op: op, Checksum: sum, View: 0}.Event(replica.EvJournalTruncate)
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
		ack := replica.PrepareOk{Op: op, Checksum: sum, Parent: parent}.Message().Routed(1, 0, 0)
		c.reportSend(&ack)
		c.reportDelivery(0, &ack)
		e := replica.MergeTruncated{Op: op, Checksum: sum, View: 1}.Event()
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
		ack := replica.PrepareOk{Op: 1, Checksum: 1}.Message().Routed(2, 0, 0)
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
		snap := &replica.Snapshot{Op: op, OpChecksum: sum}
		snap.State.KV[3] = 0xbad
		e := replica.TransferInstalled{Op: op, Checksum: sum, Snapshot: snap}.Event()
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
			res, err := Run(cfg, nil)
			require.NoError(t, err)
			assert.Equal(t, VerdictPass, res.Verdict, res.Evidence)
			assert.Equal(t, tc.want, res.Liveness)
		})
	}
}

// TestLivenessAsksForANewRequest: the liveness phase serves at least one
// request issued after it began, even in a run whose clients were quiet
// before it.
func TestLivenessAsksForANewRequest(t *testing.T) {
	cfg := DefaultConfig(6)
	cfg.FaultTicks = 2000
	cfg.WorkloadOff = true
	before := ^uint64(0)
	cfg.Script = scriptFunc(func(c *Cluster, tick uint64) {
		if tick == cfg.FaultTicks+1 {
			before = c.stats.Requests // the phase begins later this tick
		}
	})
	res, err := Run(cfg, nil)
	require.NoError(t, err)
	assert.Equal(t, VerdictPass, res.Verdict, res.Evidence)
	assert.Equal(t, LivenessChecked, res.Liveness)
	assert.Zero(t, before, "no request before the phase")
	assert.Positive(t, res.Stats.Replies, "the core served requests issued in the phase")
}
