package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/packetsim"
	"vsrsim/replica"
	"vsrsim/sim/check"
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
func breakConfig(seed uint64, s Script) Config {
	cfg := DefaultConfig(seed)
	cfg.FaultTicks = 3000
	cfg.LivenessTicks = 6000
	cfg.CrashChance.Num = 0
	cfg.Script = s
	return cfg
}

func runBreak(t *testing.T, cfg Config) Result {
	t.Helper()
	res, err := Run(cfg, nil)
	require.NoError(t, err)
	t.Logf("verdict=%s invariant=%s evidence=%s", res.Verdict, res.Invariant, res.Evidence)
	return res
}

// TestBreakAgreementForgedCommit forges, into the checker, a commit by a live
// backup of the next op it would commit, with a checksum other than the one
// the cluster committed there.
func TestBreakAgreementForgedCommit(t *testing.T) {
	var forgedOp uint64
	var forgedBy int
	script := scriptFunc(func(c *Cluster, tick uint64) {
		if forgedOp != 0 || c.checker.CommittedMax() < 5 {
			return
		}
		for i := 0; i < c.cfg.Replicas; i++ {
			info, ok := c.Info(i)
			if !ok || info.Primary {
				continue
			}
			op := info.CommitMin + 1
			sum, committed := c.checker.Canonical(op)
			parent, hasParent := c.checker.Canonical(op - 1)
			if !committed || (op > 1 && !hasParent) {
				continue
			}
			forgedOp, forgedBy = op, i
			c.checker.OnEvent(tick, &replica.Event{Kind: replica.EvCommit, Replica: i, Op: op,
				Checksum: sum ^ 0xbad, Parent: parent})
			return
		}
	})
	res := runBreak(t, breakConfig(11, script))
	require.NotZero(t, forgedOp, "the script never found a lagging backup to forge")
	assert.Equal(t, VerdictSafety, res.Verdict)
	assert.Equal(t, check.InvAgreement, res.Invariant)
	assert.Contains(t, res.Evidence, fmt.Sprintf("r%d committed op %d", forgedBy, forgedOp))
	assert.Contains(t, res.Evidence, "elsewhere")
	assert.True(t, res.Verdict.Failed())
	assert.NotEmpty(t, res.Tail, "a failed run carries the trace tail for triage")
}

// TestBreakAckedDurabilityForgedTruncate forges a merge that truncates an op a
// replication quorum acked and the cluster committed.
func TestBreakAckedDurabilityForgedTruncate(t *testing.T) {
	var forgedOp uint64
	script := scriptFunc(func(c *Cluster, tick uint64) {
		if forgedOp != 0 || c.checker.CommittedMax() < 5 {
			return
		}
		op := c.checker.CommittedMax()
		sum, _ := c.checker.Canonical(op)
		forgedOp = op
		// A merge belongs to a view above every view that acked the op.
		info, _ := c.Info(1)
		c.checker.OnEvent(tick, &replica.Event{Kind: replica.EvMergeTruncate, Replica: 1, View: info.View + 1, Op: op,
			Checksum: sum, Aux: 2})
	})
	res := runBreak(t, breakConfig(12, script))
	require.NotZero(t, forgedOp)
	assert.Equal(t, VerdictSafety, res.Verdict)
	assert.Equal(t, check.InvAckedDurability, res.Invariant)
	assert.Contains(t, res.Evidence, fmt.Sprintf("merge truncated op %d", forgedOp))
	assert.Contains(t, res.Evidence, "and it committed")
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
			c.Network().AddFilter(func(from, to packetsim.NodeID, m replica.Message) bool {
				return to == client && m.Command == replica.CmdReply && m.Result != forgedResult
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
		c.Inject(replica.Message{Command: replica.CmdReply, From: 0, To: client, Client: uint64(client),
			Request: cl.request, Op: top, Result: forgedResult})
	})
	res := runBreak(t, breakConfig(13, script))
	require.NotZero(t, forged)
	assert.Equal(t, VerdictSafety, res.Verdict)
	assert.Equal(t, check.InvClientResult, res.Invariant)
	assert.Contains(t, res.Evidence, "client c0")
	assert.Contains(t, res.Evidence, fmt.Sprintf("result=%d", uint64(forgedResult)))
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
	cfg := breakConfig(14, script)
	cfg.Core = []int{0, 1, 2}
	res := runBreak(t, cfg)
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

// TestBreakLivenessUnrecoverable: the same cut, but with two of three
// replicas crashed for good, is a stall no correct VSR can end. It must be
// classed unrecoverable, not a liveness failure.
func TestBreakLivenessUnrecoverable(t *testing.T) {
	crashed := false
	script := scriptFunc(func(c *Cluster, tick uint64) {
		if !crashed && c.checker.CommittedMax() >= c.cfg.CommitFloor {
			c.Crash(0)
			c.Crash(1)
			crashed = true
		}
	})
	cfg := breakConfig(15, script)
	cfg.Core = []int{2}
	res := runBreak(t, cfg)
	require.True(t, crashed)
	assert.Equal(t, VerdictUnrecoverable, res.Verdict)
	assert.False(t, res.Verdict.Failed(), "unrecoverable is not a finding")
	assert.True(t, strings.Contains(res.Evidence, "can vote") || strings.Contains(res.Evidence, "no core replica holds"),
		"the evidence says why: %s", res.Evidence)
}
