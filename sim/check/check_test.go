package check

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each test plants one defect in a hand-built record and checks the rule
// that must name it; the end-to-end versions, forged into real runs, are in
// sim/checker_break_test.go.

func newTest(wal bool) *Checker { return New(Config{Replicas: 3, Clients: 2, WAL: wal}) }

// commitOp drives a correct commit of op (checksum sum, parent) by r0 in view
// 0 with r1's ack, executing request req of client 0 (a put of value).
func commitOp(c *Checker, op, sum, parent, req, value uint64) {
	c.Request(0, req, Op{Kind: OpPut, Key: 1, Value: value})
	c.OwnAck(0, 0, op, sum, parent)
	c.AckDelivered(0, 1, 1, 0, op, sum, parent)
	c.PrimaryCommit(op, 0, 0, op, sum, parent, 0, req)
}

func requireInvariant(t *testing.T, c *Checker, inv, evidence string) {
	t.Helper()
	f := c.Failed()
	require.NotNil(t, f, "no rule fired; want %s", inv)
	assert.Equal(t, inv, f.Invariant)
	assert.Contains(t, f.Evidence, evidence)
}

func TestCorrectRecordPasses(t *testing.T) {
	c := newTest(true)
	commitOp(c, 1, 0xa1, 0, 1, 10)
	commitOp(c, 2, 0xa2, 0xa1, 2, 20)
	c.Apply(3, 0, 1, 0xa1, 0, 0)
	c.Apply(3, 0, 2, 0xa2, 0xa1, 10) // a put returns the previous value
	c.Apply(4, 1, 1, 0xa1, 0, 0)
	c.Reply(5, 0, 2, 2, 10)
	assert.Nil(t, c.Failed())
	assert.Equal(t, uint64(2), c.CommittedMax())
}

func TestRules(t *testing.T) {
	for _, tc := range []struct {
		name, inv, evidence string
		wal                 bool
		plant               func(c *Checker)
	}{
		{"commit without quorum", InvCommitQuorum, "on acks from r0;", true, func(c *Checker) {
			c.Request(0, 1, Op{Kind: OpGet})
			c.OwnAck(0, 0, 1, 0xa1, 0)
			c.PrimaryCommit(1, 0, 0, 1, 0xa1, 0, 0, 1)
		}},
		{"ack from an incarnation the primary knows is gone", InvCommitQuorum, "on acks from r0;", true, func(c *Checker) {
			c.Request(0, 1, Op{Kind: OpGet})
			c.OwnAck(0, 0, 1, 0xa1, 0)
			c.AckDelivered(0, 1, 1, 0, 1, 0xa1, 0)
			c.Delivered(0, 1, 2) // r1's probe from its next incarnation
			c.PrimaryCommit(2, 0, 0, 1, 0xa1, 0, 0, 1)
		}},
		{"a backup commits as if primary", InvCommitQuorum, "as if primary of view 0", true, func(c *Checker) {
			c.PrimaryCommit(1, 1, 0, 1, 0xa1, 0, NoClient, 0)
		}},
		{"commit out of order", InvCommitOrder, "committed op 2 while op 0", true, func(c *Checker) {
			c.OwnAck(0, 0, 2, 0xa2, 0xa1)
			c.AckDelivered(0, 1, 1, 0, 2, 0xa2, 0xa1)
			c.PrimaryCommit(1, 0, 0, 2, 0xa2, 0xa1, NoClient, 0)
		}},
		{"apply before any commit", InvCommitQuorum, "before any primary committed it", true, func(c *Checker) {
			c.Apply(1, 1, 1, 0xa1, 0, 0)
		}},
		{"apply skips an op", InvCommitOrder, "commit_min advances by one", true, func(c *Checker) {
			commitOp(c, 1, 0xa1, 0, 1, 10)
			commitOp(c, 2, 0xa2, 0xa1, 2, 20)
			c.Apply(3, 1, 2, 0xa2, 0xa1, 10)
		}},
		{"apply twice", InvMonotonicity, "committed op 1 after op 1", true, func(c *Checker) {
			commitOp(c, 1, 0xa1, 0, 1, 10)
			c.Apply(3, 1, 1, 0xa1, 0, 0)
			c.Apply(4, 1, 1, 0xa1, 0, 0)
		}},
		{"agreement", InvAgreement, "op 1 is csum=00a1 elsewhere", true, func(c *Checker) {
			commitOp(c, 1, 0xa1, 0, 1, 10)
			c.Apply(3, 1, 1, 0xb1, 0, 0)
		}},
		{"a second primary commits another op at the slot", InvAgreement, "committed as csum=00a1", true, func(c *Checker) {
			commitOp(c, 1, 0xa1, 0, 1, 10)
			c.Status(2, 1, StatusNormal, 1, 1, 1, 0)
			c.OwnAck(1, 1, 1, 0xb1, 0)
			c.AckDelivered(1, 2, 1, 1, 1, 0xb1, 0)
			c.PrimaryCommit(3, 1, 1, 1, 0xb1, 0, NoClient, 0)
		}},
		{"parent chain", InvParentChain, "with parent 0bad", true, func(c *Checker) {
			commitOp(c, 1, 0xa1, 0, 1, 10)
			commitOp(c, 2, 0xa2, 0xbad, 2, 20)
		}},
		{"wrong apply result", InvApplyResult, "result 7; the oracle's model", true, func(c *Checker) {
			commitOp(c, 1, 0xa1, 0, 1, 10)
			c.Apply(2, 0, 1, 0xa1, 0, 7)
		}},
		{"request executed twice", InvExactlyOnce, "executed twice: at op 1 and again at op 2", true, func(c *Checker) {
			commitOp(c, 1, 0xa1, 0, 1, 10)
			c.OwnAck(0, 0, 2, 0xa2, 0xa1)
			c.AckDelivered(0, 1, 1, 0, 2, 0xa2, 0xa1)
			c.PrimaryCommit(2, 0, 0, 2, 0xa2, 0xa1, 0, 1)
		}},
		{"request never issued", InvExactlyOnce, "never issued", true, func(c *Checker) {
			c.OwnAck(0, 0, 1, 0xa1, 0)
			c.AckDelivered(0, 1, 1, 0, 1, 0xa1, 0)
			c.PrimaryCommit(1, 0, 0, 1, 0xa1, 0, 1, 9)
		}},
		{"reply with a wrong result", InvClientResult, "result=5, the oracle's model gives 0", true, func(c *Checker) {
			commitOp(c, 1, 0xa1, 0, 1, 10)
			c.Reply(2, 0, 1, 1, 5)
		}},
		{"reply for another request", InvClientResult, "which executed request 1 of client c0", true, func(c *Checker) {
			commitOp(c, 1, 0xa1, 0, 1, 10)
			c.Reply(2, 1, 1, 1, 0)
		}},
		{"reply for an uncommitted op", InvClientResult, "that no replica committed", true, func(c *Checker) {
			c.Reply(2, 0, 1, 4, 0)
		}},
		{"merge drops a committed op", InvDurability, "merge dropped committed op 1", true, func(c *Checker) {
			commitOp(c, 1, 0xa1, 0, 1, 10)
			c.Dropped(2, 1, DropMergeTruncate, 1, 1, 0xa1, 2)
		}},
		{"prune drops a committed op", InvDurability, "prune dropped committed op 1", true, func(c *Checker) {
			commitOp(c, 1, 0xa1, 0, 1, 10)
			c.Dropped(2, 1, DropPrune, 0, 1, 0xa1, 0)
		}},
		{"merge drops a quorum-acked op", InvAckedDurability, "but r0,r1 acked it in view 0", true, func(c *Checker) {
			c.OwnAck(0, 0, 1, 0xa1, 0)
			c.AckDelivered(0, 1, 1, 0, 1, 0xa1, 0)
			c.Dropped(2, 2, DropMergeTruncate, 1, 1, 0xa1, 2)
		}},
		{"view regresses", InvMonotonicity, "view regressed 3 -> 2", true, func(c *Checker) {
			c.Status(1, 1, StatusViewChange, 3, 0, 0, 0)
			c.Crash(2, 1)
			c.Restart(3, 1, 0)
			c.Status(4, 1, StatusViewChange, 2, 0, 0, 0)
		}},
		{"a restart reuses an incarnation", InvMonotonicity, "r1 stamped incarnation 2 after its restart, but an earlier life stamped 2", false, func(c *Checker) {
			c.Sent(1, 1, 1)
			c.Crash(2, 1)
			c.Restart(3, 1, 0)
			c.Sent(4, 1, 2)
			c.Crash(5, 1)
			c.Restart(6, 1, 0)
			c.Sent(7, 1, 2)
		}},
		{"state transfer rewinds", InvMonotonicity, "rewound commit 2 -> 1", true, func(c *Checker) {
			commitOp(c, 1, 0xa1, 0, 1, 10)
			commitOp(c, 2, 0xa2, 0xa1, 2, 20)
			c.Install(3, 1, 2, 0xa2, StateHash([]uint64{0, 20}))
			c.Install(4, 1, 1, 0xa1, StateHash([]uint64{0, 10}))
		}},
		{"state transfer installs a state the model never had", InvCheckpoint, "installed a state at op 2", true, func(c *Checker) {
			commitOp(c, 1, 0xa1, 0, 1, 10)
			commitOp(c, 2, 0xa2, 0xa1, 2, 20)
			c.Install(3, 1, 2, 0xa2, StateHash([]uint64{0, 10}))
		}},
		{"state transfer installs another op's checkpoint", InvAgreement, "installed a checkpoint at op 2 csum=00b2", true, func(c *Checker) {
			commitOp(c, 1, 0xa1, 0, 1, 10)
			commitOp(c, 2, 0xa2, 0xa1, 2, 20)
			c.Install(3, 1, 2, 0xb2, StateHash([]uint64{0, 20}))
		}},
		{"a restarted life stamps 0", InvMonotonicity, "stamped incarnation 0 after its restart", false, func(c *Checker) {
			c.Sent(1, 1, 0)
			c.Crash(2, 1)
			c.Restart(3, 1, 0)
			c.Sent(4, 1, 0)
		}},
		{"a backup in the commit quorum cuts the op in its view", InvDurability, "view-0 truncation dropped committed op 1", true, func(c *Checker) {
			commitOp(c, 1, 0xa1, 0, 1, 10)
			c.Dropped(2, 1, DropTruncate, 0, 1, 0xa1, 0)
		}},
		{"a counted acker cuts a quorum-acked op in its view", InvAckedDurability, "its own ack was counted", true, func(c *Checker) {
			c.OwnAck(0, 0, 1, 0xa1, 0)
			c.AckDelivered(0, 1, 0, 0, 1, 0xa1, 0)
			c.Dropped(2, 1, DropTruncate, 0, 1, 0xa1, 0)
		}},
		{"memory journal: a first life's acks hold copies", InvAckedDurability, "acked it in view 0", false, func(c *Checker) {
			c.OwnAck(0, 0, 1, 0xa1, 0)
			c.Sent(1, 1, 0)
			c.AckDelivered(0, 1, 0, 0, 1, 0xa1, 0)
			c.Dropped(4, 2, DropMergeTruncate, 1, 1, 0xa1, 2)
		}},
		{"checkpoints disagree", InvCheckpoint, "checkpoint at op 8 has state 0002", true, func(c *Checker) {
			c.Checkpoint(1, 0, 8, 1)
			c.Checkpoint(2, 1, 8, 2)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTest(tc.wal)
			tc.plant(c)
			requireInvariant(t, c, tc.inv, tc.evidence)
		})
	}
}

// TestAmnesiaWithdrawsCopies: without a WAL a crash loses the acker's copy,
// so a merge may cut an op that only it and the primary held; with a WAL the
// same merge breaks the acked op's durability.
func TestAmnesiaWithdrawsCopies(t *testing.T) {
	plant := func(c *Checker) {
		c.OwnAck(0, 0, 1, 0xa1, 0)
		c.AckDelivered(0, 1, 1, 0, 1, 0xa1, 0)
		c.Sent(1, 1, 1)
		c.Crash(2, 0)
		c.Crash(3, 1)
		c.Dropped(4, 2, DropMergeTruncate, 1, 1, 0xa1, 2)
	}
	mem := newTest(false)
	plant(mem)
	assert.Nil(t, mem.Failed())
	wal := newTest(true)
	plant(wal)
	requireInvariant(t, wal, InvAckedDurability, "acked it in view 0")
}

// TestRegressedSuperblockForgetsAcksAboveItsHead: a replica whose restart
// came back from an older superblock version (every copy of the newer one
// damaged) holds nothing above that version's head and votes it absent. A
// merge that cuts an op it acked above that head still breaks acked
// durability, but only because the disk took the promise: the finding names
// the replica, and storage-beyond-f excuses it by name. An ack at or below
// the head still holds: the finding stands, unexcused.
func TestRegressedSuperblockForgetsAcksAboveItsHead(t *testing.T) {
	for _, tc := range []struct {
		name    string
		head    uint64
		excused bool
	}{
		{"regressed below the ack", 0, true},
		{"regressed, the ack at the head", 1, false},
	} {
		c := newTest(true)
		c.OwnAck(0, 0, 1, 0xa1, 0)
		c.AckDelivered(0, 1, 1, 0, 1, 0xa1, 0)
		c.Crash(1, 0)
		c.SuperblockRegressed(2, 0, tc.head)
		c.Dropped(3, 2, DropMergeTruncate, 1, 1, 0xa1, 2)
		requireInvariant(t, c, InvAckedDurability, "acked it in view 0")
		f := c.Failed()
		ex, ok := c.ExcuseFailure(f)
		assert.Equal(t, tc.excused, ok, tc.name)
		if tc.excused {
			assert.Equal(t, RuleStorageBeyondF, ex.Rule)
			assert.Equal(t, []int{0}, ex.Replicas, "the replica whose superblock regressed, by name")
			assert.Equal(t, []uint64{1}, ex.Ops)
			assert.Contains(t, f.Evidence, "r0 forgot it to a regressed superblock")
		}
	}
}

// TestNoVotersCountsNoPrimaryBelowARecoveringView: three replicas of five
// come back recovering (memory journals), and the two voters left are the
// primary of view 1 and its backup. Where the three stand in view 2 (they
// formed it before their crashes) that primary can hand them no view (a
// recovering replica takes none below its own), so no primary is up for
// them and no-voters holds; where they stand in view 1 it can, and the stall
// is a finding.
func TestNoVotersCountsNoPrimaryBelowARecoveringView(t *testing.T) {
	for _, tc := range []struct {
		name           string
		recoveringView uint64
		excused        bool
	}{
		{"recovering in a view above the primary's", 2, true},
		{"recovering in the primary's view", 1, false},
	} {
		c := New(Config{Replicas: 5, Clients: 2})
		c.Status(1, 1, StatusNormal, 1, 1, 0, 0) // r1 leads view 1
		c.Status(1, 3, StatusNormal, 1, 1, 0, 0)
		for _, i := range []int{0, 2, 4} {
			c.Status(2, i, StatusNormal, tc.recoveringView, tc.recoveringView, 0, 0)
			c.Crash(3, i)
			c.Restart(4, i, 0)
		}
		c.StartLiveness(5, []int{0, 1, 2, 3, 4})
		unrec, rule, _ := judge(c)
		assert.Equal(t, tc.excused, unrec, tc.name)
		if tc.excused {
			assert.Equal(t, RuleNoVoters, rule, tc.name)
		}
	}
}

// TestUnrecoverableRules: each rule fires from the fault record alone, and a
// stall inside the fault model is a finding.
func TestUnrecoverableRules(t *testing.T) {
	c := newTest(false)
	c.StartLiveness(0, []int{0, 1, 2})
	unrec, rule, _ := judge(c)
	assert.False(t, unrec, "a stall with every replica whole is a finding")
	assert.Empty(t, rule)

	c.Crash(1, 0)
	c.Crash(2, 1)
	unrec, rule, why := judge(c)
	assert.True(t, unrec)
	assert.Equal(t, RuleTooFewUp, rule)
	assert.Contains(t, why, "r0,r1 stayed down to the end")

	c.Restart(3, 0, 0)
	c.Restart(3, 1, 0)
	unrec, rule, why = judge(c)
	assert.True(t, unrec)
	assert.Equal(t, RuleNoVoters, rule)
	assert.Contains(t, why, "only 1 replicas could vote")
	c.Status(4, 0, StatusNormal, 1, 1, 0, 0)
	unrec, _, _ = judge(c)
	assert.False(t, unrec, "a replica that adopted a view votes again")

	// Three write-ahead voters, two of them cut off whole by the harness.
	v := newTest(true)
	for i := 0; i < 3; i++ {
		v.Status(1, i, StatusViewChange, 1, 0, 0, 0)
	}
	v.StartLiveness(0, []int{0, 1, 2})
	unrec, _, _ = judge(v)
	assert.False(t, unrec, "every voter reachable: a finding")
	v.CutOff(1, 1)
	v.CutOff(1, 2)
	unrec, rule, why = judge(v)
	assert.True(t, unrec)
	assert.Equal(t, RuleNoVoters, rule)
	assert.Contains(t, why, "the harness cut them off (r1,r2)")

	// Every copy of committed op 1 dies with the memory journals of r0 and r1.
	l := newTest(false)
	commitOp(l, 1, 0xa1, 0, 1, 10)
	l.Crash(2, 0)
	l.Crash(3, 1)
	l.Restart(4, 0, 0)
	l.Restart(4, 1, 0)
	l.Status(5, 0, StatusViewChange, 1, 0, 0, 0)
	l.Status(5, 1, StatusViewChange, 1, 0, 0, 0)
	unrec, rule, why = judge(l)
	assert.True(t, unrec)
	assert.Equal(t, RuleCommittedOpLost, rule)
	assert.Contains(t, why, "committed op 1 csum=00a1")
	l2 := newTest(false)
	commitOp(l2, 1, 0xa1, 0, 1, 10)
	l2.Journaled(2, 1, 0xa1)
	l2.Crash(2, 0)
	l2.Crash(3, 1)
	l2.Restart(4, 0, 0)
	l2.Restart(4, 1, 0)
	l2.Status(5, 0, StatusViewChange, 1, 0, 0, 0)
	l2.Status(5, 1, StatusViewChange, 1, 0, 0, 0)
	unrec, _, _ = judge(l2)
	assert.False(t, unrec, "r2 still holds op 1")

	// A drop and one crash, within f: the op was the protocol's to keep.
	d := newTest(false)
	commitOp(d, 1, 0xa1, 0, 1, 10)
	d.Dropped(2, 1, DropTruncate, 1, 1, 0xa1, 0)
	require.NotNil(t, d.Failed(), "a later view's truncation of a committed op fails at once")
	d2 := newTest(false)
	commitOp(d2, 1, 0xa1, 0, 1, 10)
	d2.Evicted(1, 1, 0xa1)
	d2.Crash(2, 0)
	d2.Restart(3, 0, 0)
	d2.StartLiveness(0, []int{0, 1, 2})
	unrec, _, _ = judge(d2)
	assert.False(t, unrec, "an eviction and one crash are within f")
	requireInvariant(t, d2, InvDurability, "only 1 replicas lost their journal")

	// A write-ahead copy on a replica that is down is not lost.
	w0 := newTest(true)
	commitOp(w0, 1, 0xa1, 0, 1, 10)
	w0.Evicted(1, 1, 0xa1)
	w0.Crash(2, 0)
	w0.StartLiveness(0, []int{1, 2})
	unrec, rule, _ = judge(w0)
	assert.False(t, unrec, "down, not lost: r0's journal still holds op 1")
	assert.Empty(t, rule)
	assert.Nil(t, w0.Failed())

	w := newTest(true)
	w.Crash(1, 0)
	w.Restart(2, 0, 0)
	w.Crash(3, 1)
	w.Restart(4, 1, 0)
	unrec, _, _ = judge(w)
	assert.False(t, unrec, "with a WAL a restart loses nothing: a stall is a finding")
}

// TestOracleImportsNothingOfOurs: the oracle (this package and the ones below
// it) imports no package of this module, so nothing of the replica it judges.
func TestOracleImportsNothingOfOurs(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, "vsrsim/") && !strings.HasPrefix(p, "vsrsim/sim/check") {
				t.Errorf("%s imports %s: the oracle must not lean on the code it judges", path, p)
			}
		}
		return nil
	})
	require.NoError(t, err)
}

// An oracle made from a finished one's memory judges as a new one: nothing of
// the earlier record (commits, acks, bodies, checkpoints, requests, model)
// leaks into its verdicts. The earlier record commits other checksums at the
// same ops, so a stale entry would read as a disagreement.
func TestRecycledOracleJudgesAsNew(t *testing.T) {
	for _, tc := range []struct {
		name string
		feed func(c *Checker)
		inv  string // "" for a pass
	}{
		{"correct record passes", func(c *Checker) {
			commitOp(c, 1, 0xb1, 0, 1, 7)
			commitOp(c, 2, 0xb2, 0xb1, 2, 8)
			c.Apply(3, 0, 1, 0xb1, 0, 0)
			c.Apply(3, 0, 2, 0xb2, 0xb1, 7)
			c.Reply(5, 0, 2, 2, 7)
		}, ""},
		{"a planted defect still fires", func(c *Checker) {
			commitOp(c, 1, 0xb1, 0, 1, 7)
			c.Apply(3, 1, 1, 0xb9, 0, 0)
		}, InvAgreement},
	} {
		t.Run(tc.name, func(t *testing.T) {
			busy := newTest(true)
			commitOp(busy, 1, 0xa1, 0, 1, 10)
			commitOp(busy, 2, 0xa2, 0xa1, 2, 20)
			commitOp(busy, 3, 0xa3, 0xa2, 3, 30)
			busy.Apply(3, 0, 1, 0xa1, 0, 0)
			busy.Apply(3, 0, 2, 0xa2, 0xa1, 10)
			busy.Checkpoint(4, 0, 2, 0x55)
			require.Nil(t, busy.Failed())

			fresh := newTest(true)
			recycled := NewFrom(Config{Replicas: 3, Clients: 2, WAL: true}, busy)
			tc.feed(fresh)
			tc.feed(recycled)
			if tc.inv == "" {
				assert.Nil(t, recycled.Failed())
			} else {
				require.NotNil(t, recycled.Failed())
				assert.Equal(t, tc.inv, recycled.Failed().Invariant)
			}
			assert.Equal(t, fresh.Failed(), recycled.Failed())
			assert.Equal(t, fresh.CommittedMax(), recycled.CommittedMax())
		})
	}
}

// TestRestartsStampNewIncarnations: each life stamping above the last is the
// correct case, and a restart alone (nothing stamped yet) proves nothing.
func TestRestartsStampNewIncarnations(t *testing.T) {
	c := newTest(false)
	c.Sent(1, 1, 1)
	c.Crash(2, 1)
	c.Restart(3, 1, 0)
	c.Crash(4, 1)
	c.Restart(5, 1, 0)
	c.Sent(6, 1, 3)
	assert.Nil(t, c.Failed())
}

// TestConvergedNeedsANewRequestServed: a settled, caught-up core with nothing
// outstanding has not converged until a request issued in the liveness
// phase was served; an old request's reply does not count.
func TestConvergedNeedsANewRequestServed(t *testing.T) {
	c := newTest(true)
	commitOp(c, 1, 0xa1, 0, 1, 10)
	for _, i := range []int{0, 1, 2} {
		c.Apply(2, i, 1, 0xa1, 0, 0)
	}
	c.StartLiveness(0, []int{0, 1, 2})
	c.Reply(3, 0, 1, 1, 0) // the reply to a request of the fault phase
	assert.False(t, c.Converged(100, 10, 1, 0), "the stable window begins")
	assert.False(t, c.Converged(111, 10, 1, 0), "settled, caught up, idle: but no request of the phase served")
	assert.False(t, c.ServedNew())
	c.Request(0, 2, Op{Kind: OpGet, Key: 1})
	c.OwnAck(0, 0, 2, 0xa2, 0xa1)
	c.AckDelivered(0, 1, 1, 0, 2, 0xa2, 0xa1)
	c.PrimaryCommit(101, 0, 0, 2, 0xa2, 0xa1, 0, 2)
	for _, i := range []int{0, 1, 2} {
		c.Apply(101, i, 2, 0xa2, 0xa1, 10)
	}
	c.Reply(102, 0, 2, 2, 10)
	assert.True(t, c.ServedNew())
	assert.True(t, c.Converged(112, 10, 1, 0), "the view held since tick 100")
	assert.Nil(t, c.Failed())
}

// TestProgressingNeedsTheCoreCaughtUp: under a continuing workload the core
// progresses only once it held one view for the stable window, served a
// request of the phase in it, and every core replica applied what was
// committed when the view began to hold; a lagging core replica holds it.
func TestProgressingNeedsTheCoreCaughtUp(t *testing.T) {
	c := newTest(true)
	commitOp(c, 1, 0xa1, 0, 1, 10)
	c.Apply(2, 0, 1, 0xa1, 0, 0)
	c.Apply(2, 1, 1, 0xa1, 0, 0)
	c.StartLiveness(0, []int{0, 1, 2})
	c.Request(0, 2, Op{Kind: OpGet, Key: 1})
	assert.False(t, c.Progressing(10, 20), "the stable window has just begun")
	c.OwnAck(0, 0, 2, 0xa2, 0xa1)
	c.AckDelivered(0, 1, 1, 0, 2, 0xa2, 0xa1)
	c.PrimaryCommit(20, 0, 0, 2, 0xa2, 0xa1, 0, 2)
	c.Reply(21, 0, 2, 2, 10)
	assert.False(t, c.Progressing(40, 20), "r2 applied nothing of what was committed")
	c.Apply(41, 2, 1, 0xa1, 0, 0)
	assert.True(t, c.Progressing(42, 20))
	assert.Nil(t, c.Failed())
}

// judge judges a stall with a grace that covers the whole record, so the
// end-state rules alone decide (TestExcusesJudgedOverTime holds the timing).
func judge(c *Checker) (bool, string, string) {
	ex, why := c.Stalled(100, 0, 1<<40)
	if ex == nil {
		return false, "", why
	}
	return true, ex.Rule, why
}

// TestSameViewStartViewIsNotALoss: a StartView built when a view began, and
// delivered late, may cut a backup's copy of an op committed later in that
// view; the backup fetches it again. A view above the commit may not.
func TestSameViewStartViewIsNotALoss(t *testing.T) {
	c := newTest(true)
	commitOp(c, 1, 0xa1, 0, 1, 10)
	c.Dropped(2, 2, DropTruncate, 0, 1, 0xa1, 0)
	assert.Nil(t, c.Failed())
	c.Dropped(3, 2, DropTruncate, 1, 1, 0xa1, 0)
	requireInvariant(t, c, InvDurability, "view-1 truncation dropped committed op 1")
}

// TestSameViewAllowanceIsOnlyForUncountedCopies: the backup whose ack the
// commit never counted may lose its copy to a late StartView of the commit's
// view; one whose ack it counted may not.
func TestSameViewAllowanceIsOnlyForUncountedCopies(t *testing.T) {
	c := newTest(true)
	commitOp(c, 1, 0xa1, 0, 1, 10)
	c.Dropped(2, 2, DropTruncate, 0, 1, 0xa1, 0)
	assert.Nil(t, c.Failed(), "r2 never acked op 1")
	c.Dropped(3, 1, DropTruncate, 0, 1, 0xa1, 0)
	requireInvariant(t, c, InvDurability, "acks from r0,r1")
}

// TestInstallMatchesModel: a transfer that installs the committed state at
// its op passes.
func TestInstallMatchesModel(t *testing.T) {
	c := newTest(true)
	commitOp(c, 1, 0xa1, 0, 1, 10)
	commitOp(c, 2, 0xa2, 0xa1, 2, 20)
	c.Request(0, 3, Op{Kind: OpIncr, Key: 3, Value: 4})
	c.OwnAck(0, 0, 3, 0xa3, 0xa2)
	c.AckDelivered(0, 1, 1, 0, 3, 0xa3, 0xa2)
	c.PrimaryCommit(3, 0, 0, 3, 0xa3, 0xa2, 0, 3)
	c.Install(4, 2, 2, 0xa2, StateHash([]uint64{0, 20}))
	c.Install(5, 2, 3, 0xa3, StateHash([]uint64{0, 20, 0, 4}))
	assert.Nil(t, c.Failed())
}

func TestFirstFailureSticks(t *testing.T) {
	c := newTest(true)
	c.Apply(1, 1, 1, 0xa1, 0, 0)
	c.Checkpoint(2, 0, 8, 1)
	c.Checkpoint(3, 1, 8, 2)
	assert.Equal(t, InvCommitQuorum, c.Failed().Invariant)
}

func TestModel(t *testing.T) {
	var m kvModel
	assert.Equal(t, uint64(0), m.apply(Op{Kind: OpPut, Key: 3, Value: 5}))
	assert.Equal(t, uint64(5), m.apply(Op{Kind: OpGet, Key: 3}))
	assert.Equal(t, uint64(8), m.apply(Op{Kind: OpIncr, Key: 3, Value: 3}))
	assert.Equal(t, uint64(8), m.apply(Op{Kind: OpPut, Key: 3, Value: 1}))
	assert.Equal(t, uint64(0), m.apply(Op{Kind: OpGet, Key: 4}))
	assert.Equal(t, uint64(0), m.apply(Op{Kind: OpNoop}))
}
