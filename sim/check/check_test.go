package check_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/replica"
	"vsrsim/sim/check"
)

// Every checker is broken on purpose with synthetic events and must fire with
// an evidence line that names what broke; the negative space (the legal
// version of each sequence) must stay silent.

const (
	sumA   = 0xaaaa0000000a1111
	sumB   = 0xbbbb0000000b2222
	sumC   = 0xcccc0000000c3333
	sumGen = 0x5eed5eed5eed5eed
)

func commit(r int, op, checksum, parent, result uint64) *replica.Event {
	return &replica.Event{Kind: replica.EvCommit, Replica: r, Op: op, Checksum: checksum, Parent: parent, Aux: result}
}

// parentOf links the test checksums into one chain: gen <- A <- B <- C.
var parentOf = map[uint64]uint64{sumA: sumGen, sumB: sumA, sumC: sumB}

func ack(r int, op, checksum uint64) *replica.Event {
	return &replica.Event{Kind: replica.EvAck, Replica: r, Op: op, Checksum: checksum, Parent: parentOf[checksum]}
}

func mergeTruncate(r int, view, op, checksum, nacks uint64) *replica.Event {
	return &replica.Event{Kind: replica.EvMergeTruncate, Replica: r, View: view, Op: op, Checksum: checksum, Aux: nacks}
}

func feed(c *check.Checker, es ...*replica.Event) {
	for k, e := range es {
		c.OnEvent(uint64(10+k), e)
	}
}

// fired asserts the checker failed on invariant with evidence containing
// every fragment.
func fired(t *testing.T, c *check.Checker, invariant string, fragments ...string) {
	t.Helper()
	f := c.Failed()
	require.NotNil(t, f, "expected %s to fire", invariant)
	assert.Equal(t, invariant, f.Invariant)
	for _, s := range fragments {
		assert.Contains(t, f.Evidence, s)
	}
	assert.NotContains(t, f.Evidence, "\n", "evidence is one line")
}

func silent(t *testing.T, c *check.Checker) {
	t.Helper()
	if f := c.Failed(); f != nil {
		t.Fatalf("unexpected %s: %s", f.Invariant, f.Evidence)
	}
}

func TestAgreement(t *testing.T) {
	c := check.New(3)
	feed(c, commit(0, 1, sumA, sumGen, 0), commit(1, 1, sumA, sumGen, 0))
	silent(t, c)
	feed(c, commit(2, 1, sumB, sumGen, 0))
	fired(t, c, check.InvAgreement, "r2 committed op 1", "csum=2222", "csum=1111")
	assert.Equal(t, uint64(10), c.Failed().Tick, "the tick of the offending event")
}

func TestParentChain(t *testing.T) {
	t.Run("child links to a different parent", func(t *testing.T) {
		c := check.New(3)
		feed(c, commit(0, 1, sumA, sumGen, 0), commit(0, 2, sumB, sumA, 0))
		silent(t, c)
		feed(c, commit(1, 1, sumA, sumGen, 0), commit(1, 2, sumB, sumA, 0))
		silent(t, c)
		c2 := check.New(3)
		feed(c2, commit(0, 1, sumA, sumGen, 0), commit(1, 2, sumB, sumC, 0))
		fired(t, c2, check.InvParentChain, "r1 committed op 2 with parent 3333", "op 1 is csum=1111")
	})
	t.Run("parent committed after a child that disowns it", func(t *testing.T) {
		c := check.New(3)
		feed(c, commit(0, 2, sumB, sumA, 0)) // r0 caught up by transfer at op 1
		silent(t, c)
		feed(c, commit(1, 1, sumC, sumGen, 0))
		fired(t, c, check.InvParentChain, "r1 committed op 1 csum=3333", "op 2 links to parent 1111")
	})
}

func TestAckedDurability(t *testing.T) {
	t.Run("a quorum-acked op above the committed prefix truncated", func(t *testing.T) {
		c := check.New(3)
		feed(c, ack(0, 1, sumA), ack(1, 1, sumA), commit(0, 1, sumA, sumGen, 0),
			ack(0, 2, sumB), ack(1, 2, sumB))
		silent(t, c)
		feed(c, mergeTruncate(2, 1, 2, sumB, 2))
		fired(t, c, check.InvAckedDurability, "r2's view-1 merge truncated op 2", "csum=2222",
			"with 2 nacks", "(r0,r1)")
	})
	t.Run("a committed op truncated", func(t *testing.T) {
		c := check.New(3)
		feed(c, ack(0, 1, sumA), ack(1, 1, sumA), commit(0, 1, sumA, sumGen, 0),
			mergeTruncate(1, 3, 1, sumA, 2))
		fired(t, c, check.InvAckedDurability, "merge truncated op 1", "and it committed")
	})
	t.Run("silent above a never-quorate op", func(t *testing.T) {
		// Op 1 never reached a quorum, so op 2 could never have committed
		// (commits are in order) although a quorum acked it.
		c := check.New(3)
		feed(c, ack(0, 1, sumA), ack(0, 2, sumB), ack(1, 2, sumB),
			mergeTruncate(1, 1, 2, sumB, 2), mergeTruncate(1, 1, 1, sumA, 2))
		silent(t, c)
	})
	t.Run("silent above a quorum-acked op of another chain", func(t *testing.T) {
		// Op 2 links to sumA, but the quorum at op 1 acked sumC: op 2's own
		// chain never had a quorum, so it could never have committed.
		c := check.New(3)
		feed(c, ack(0, 1, sumC), ack(1, 1, sumC), ack(0, 2, sumB), ack(1, 2, sumB),
			mergeTruncate(1, 1, 2, sumB, 2))
		silent(t, c)
	})
	t.Run("silent for a merge in a view below the acks", func(t *testing.T) {
		// A view change that completes late, in view 2, after view 3 has
		// acked and committed op 1: view 2 was never bound by those acks, and
		// no replica in view 3 follows it.
		c := check.New(3)
		inView3 := func(e *replica.Event) *replica.Event { e.View = 3; return e }
		feed(c, inView3(ack(0, 1, sumA)), inView3(ack(1, 1, sumA)), commit(0, 1, sumA, sumGen, 7))
		c.OnReply(20, 0, 3, 1, 1, 7)
		feed(c, mergeTruncate(2, 2, 1, sumA, 2))
		silent(t, c)
		feed(c, mergeTruncate(2, 4, 1, sumA, 2))
		fired(t, c, check.InvAckedDurability, "view-4 merge truncated op 1")
	})
	t.Run("silent when the acks of a quorum span views", func(t *testing.T) {
		// r1 acked op 1 in view 1, r0 the same header re-prepared in view 2:
		// no primary ever held a quorum of PrepareOKs for it in one view.
		c := check.New(3)
		inView := func(v uint64, e *replica.Event) *replica.Event { e.View = v; return e }
		feed(c, inView(1, ack(1, 1, sumA)), inView(2, ack(0, 1, sumA)), mergeTruncate(1, 3, 1, sumA, 1))
		silent(t, c)
		feed(c, inView(2, ack(2, 1, sumA)), mergeTruncate(1, 3, 1, sumA, 1))
		fired(t, c, check.InvAckedDurability, "view-3 merge truncated op 1", "(r0,r2)")
	})
	t.Run("silent for a different checksum at a quorum-acked op", func(t *testing.T) {
		c := check.New(3)
		feed(c, ack(0, 1, sumA), ack(1, 1, sumA), ack(2, 1, sumB), mergeTruncate(1, 1, 1, sumB, 2))
		silent(t, c)
	})
	t.Run("a truncated op whose reply a client received", func(t *testing.T) {
		c := check.New(5)
		feed(c, ack(0, 1, sumA), commit(0, 1, sumA, sumGen, 7))
		c.OnReply(20, 0, 0, 1, 1, 7)
		silent(t, c)
		feed(c, mergeTruncate(1, 1, 1, sumA, 3))
		fired(t, c, check.InvAckedDurability, "truncated op 1", "whose reply a client received")
	})
}

// TestAckedDurabilityAmnesia: with a memory journal a restarted replica's acks
// no longer count toward a quorum not yet reached; acks that already made a
// quorum stay durable.
func TestAckedDurabilityAmnesia(t *testing.T) {
	for _, tc := range []struct {
		name     string
		restart  func(c *check.Checker)
		durable  bool
		evidence string
	}{
		{"amnesia forgets a pre-quorum ack", func(c *check.Checker) { c.OnRestart(1, true, 0, 0) }, false, ""},
		{"a WAL restart keeps it", func(c *check.Checker) { c.OnRestart(1, false, 0, 0) }, true, "(r0,r1,r2)"},
		{"no restart", func(*check.Checker) {}, true, "(r0,r1,r2)"},
		{"a journal truncation withdraws a pre-quorum ack", func(c *check.Checker) {
			feed(c, &replica.Event{Kind: replica.EvJournalTruncate, Replica: 1, Op: 1, Checksum: sumA})
		}, false, ""},
		{"a truncation of another checksum does not", func(c *check.Checker) {
			feed(c, &replica.Event{Kind: replica.EvJournalTruncate, Replica: 1, Op: 1, Checksum: sumB})
		}, true, "(r0,r1,r2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := check.New(5) // replication quorum 3
			feed(c, ack(0, 1, sumA), ack(1, 1, sumA))
			tc.restart(c)
			feed(c, ack(2, 1, sumA), mergeTruncate(3, 1, 1, sumA, 3))
			if !tc.durable {
				silent(t, c)
				return
			}
			fired(t, c, check.InvAckedDurability, "merge truncated op 1", tc.evidence)
		})
	}
	t.Run("a quorum reached before the restart stays", func(t *testing.T) {
		c := check.New(5)
		feed(c, ack(0, 1, sumA), ack(1, 1, sumA), ack(2, 1, sumA))
		c.OnRestart(1, true, 0, 0)
		feed(c, mergeTruncate(3, 1, 1, sumA, 3))
		fired(t, c, check.InvAckedDurability, "merge truncated op 1", "(r0,r1,r2)")
	})
}

func TestCheckDurableCommitted(t *testing.T) {
	c := check.New(3)
	feed(c, ack(0, 1, sumA), ack(1, 1, sumA), commit(0, 1, sumA, sumGen, 0), ack(0, 2, sumB), ack(2, 2, sumB))
	c.CheckDurableCommitted(99, 2)
	silent(t, c)
	c.CheckDurableCommitted(100, 1)
	fired(t, c, check.InvAckedDurability, "op 2 csum=2222 was acked by a replication quorum", "ends at 1")
	var ops []uint64
	c.DurableOps(func(op, _ uint64) { ops = append(ops, op) })
	assert.Equal(t, []uint64{1, 2}, ops)
}

func TestMonotonicity(t *testing.T) {
	t.Run("view regression", func(t *testing.T) {
		c := check.New(3)
		st := func(view uint64) *replica.Event {
			return &replica.Event{Kind: replica.EvStatus, Replica: 2, View: view, Status: replica.StatusNormal}
		}
		feed(c, st(1), st(3), st(3))
		silent(t, c)
		feed(c, st(2))
		fired(t, c, check.InvMonotonicity, "r2 view regressed 3 -> 2")
	})
	t.Run("commit regression", func(t *testing.T) {
		c := check.New(3)
		feed(c, commit(1, 1, sumA, sumGen, 0), commit(1, 2, sumB, sumA, 0))
		silent(t, c)
		feed(c, commit(1, 2, sumB, sumA, 0))
		fired(t, c, check.InvMonotonicity, "r1 committed op 2 after op 2")
	})
	t.Run("state transfer rewinds commit", func(t *testing.T) {
		c := check.New(3)
		feed(c, commit(1, 1, sumA, sumGen, 0), commit(1, 2, sumB, sumA, 0),
			&replica.Event{Kind: replica.EvTransferInstall, Replica: 1, Op: 1})
		fired(t, c, check.InvMonotonicity, "r1 state transfer rewound commit 2 -> 1")
	})
	t.Run("a restart resets the floor to the checkpoint", func(t *testing.T) {
		c := check.New(3)
		feed(c, commit(1, 1, sumA, sumGen, 0), commit(1, 2, sumB, sumA, 0))
		c.OnRestart(1, true, 0, 1)
		feed(c, commit(1, 2, sumB, sumA, 0))
		silent(t, c)
	})
}

func TestClientResult(t *testing.T) {
	t.Run("result differs from the canonical chain", func(t *testing.T) {
		c := check.New(3)
		feed(c, commit(0, 1, sumA, sumGen, 7))
		c.OnReply(20, 2, 0, 5, 1, 7)
		silent(t, c)
		c.OnReply(21, 3, 0, 9, 1, 8)
		fired(t, c, check.InvClientResult, "client c3 request 9", "op 1 result=8", "gives 7")
		assert.Equal(t, uint64(21), c.Failed().Tick)
	})
	t.Run("reply for an op nobody committed", func(t *testing.T) {
		c := check.New(3)
		c.OnReply(20, 1, 0, 4, 6, 0)
		fired(t, c, check.InvClientResult, "client c1 got a reply for op 6 (request 4)", "no replica committed")
	})
}

// TestClientResultThenTruncate: a reply for an op no replica committed is
// recorded, then a merge truncates that op. The checker must keep its first
// failure, not panic indexing the canonical log.
func TestClientResultThenTruncate(t *testing.T) {
	c := check.New(3)
	c.OnReply(20, 1, 0, 4, 6, 0)
	require.NotPanics(t, func() { feed(c, mergeTruncate(1, 1, 6, sumA, 2)) })
	fired(t, c, check.InvClientResult, "op 6")
}

func TestCheckpointState(t *testing.T) {
	cp := func(r int, op, state uint64) *replica.Event {
		return &replica.Event{Kind: replica.EvCheckpoint, Replica: r, Op: op, Aux: state}
	}
	c := check.New(3)
	feed(c, cp(0, 64, sumA), cp(1, 64, sumA), cp(0, 128, sumB))
	silent(t, c)
	feed(c, cp(2, 64, sumC))
	fired(t, c, check.InvCheckpoint, "r2 checkpoint at op 64 has state 3333", "another replica had 1111")
}

// TestFirstFailureSticks: the run reports the first invariant broken, not
// the last.
func TestFirstFailureSticks(t *testing.T) {
	c := check.New(3)
	feed(c, commit(0, 1, sumA, sumGen, 0), commit(1, 1, sumB, sumGen, 0))
	feed(c, &replica.Event{Kind: replica.EvStatus, Replica: 0, View: 5},
		&replica.Event{Kind: replica.EvStatus, Replica: 0, View: 1})
	fired(t, c, check.InvAgreement, "op 1")
}

func TestCanonicalAndCommittedMax(t *testing.T) {
	c := check.New(3)
	_, ok := c.Canonical(1)
	assert.False(t, ok)
	assert.Equal(t, uint64(0), c.CommittedMax())
	feed(c, commit(0, 1, sumA, sumGen, 0), commit(0, 2, sumB, sumA, 0))
	sum, ok := c.Canonical(2)
	assert.True(t, ok)
	assert.Equal(t, uint64(sumB), sum)
	assert.Equal(t, uint64(2), c.CommittedMax())
	silent(t, c)
}
