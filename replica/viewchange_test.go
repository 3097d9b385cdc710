package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// View change: VRR Revisited §4.2; protocol.md "View change".

// TestViewChangeCrashedPrimaryKeepsQuorumOp: the primary crashes after op 2
// was acked by a replication quorum (itself and r1) but before it committed.
// The backups elect r1 (primary of view 1); op 2 survives although only r1 of
// the live replicas holds it, and it commits in the new view.
func TestViewChangeCrashedPrimaryKeepsQuorumOp(t *testing.T) {
	c := newTestCluster(t, 3, nil)
	c.commitRequests(0, 1, 1)
	c.tick(int(smallTimeouts().CommitTicks))
	require.Equal(t, uint64(1), c.info(2).CommitMin)

	noForward := c.dropIf(func(m *vsr.Message) bool { return m.Command == vsr.CmdPrepare && m.To == 2 })
	noAcks := c.dropIf(func(m *vsr.Message) bool { return m.Command == vsr.CmdPrepareOK && m.To == 0 })
	c.request(0, 0, 2, put(2, 20))
	c.deliverAll()
	op2, ok := c.r(0).log.journal.Get(2)
	require.True(t, ok)
	require.True(t, c.r(1).Journaled(2))
	require.False(t, c.r(2).Journaled(2))
	require.Equal(t, uint64(1), c.info(0).CommitMax, "op 2 is not committed")
	ackers := map[int]bool{}
	for _, e := range c.eventsOf(-1, vsr.EvAck) {
		if e.Op == 2 {
			ackers[e.Replica] = true
		}
	}
	require.Equal(t, map[int]bool{0: true, 1: true}, ackers, "a replication quorum acked op 2")

	c.crash(0)
	c.removeFilter(noForward)
	c.removeFilter(noAcks)
	c.tickUntil(200, func() bool {
		return c.info(1).Primary && c.info(2).Status == vsr.StatusNormal && c.info(2).View == 1 && c.info(1).CommitMax >= 2
	}, "r1 leads view 1 and commits op 2")

	inf := c.info(1)
	assert.Equal(t, uint64(1), inf.View)
	assert.Equal(t, uint64(1), inf.LogView)
	assert.Equal(t, uint64(2), inf.Sequencer)
	assert.Empty(t, c.eventsOf(-1, vsr.EvMergeTruncate), "nothing a quorum acked is truncated")
	assert.True(t, c.r(1).log.journal.Has(2, op2.Checksum), "op 2 survives with its checksum")
	c.tick(int(smallTimeouts().CommitTicks))
	for _, i := range []int{1, 2} {
		assert.Equal(t, uint64(2), c.info(i).CommitMin, "r%d", i)
	}
	for _, e := range c.eventsOf(-1, vsr.EvCommit) {
		if e.Op == 2 {
			assert.Equal(t, op2.Checksum, e.Checksum)
		}
	}
	// The new primary replies for op 2 to the client that asked (its
	// chosen backup may too).
	var fromPrimary []reply
	for _, rp := range c.repliesTo(0) {
		if rp.From == 1 {
			fromPrimary = append(fromPrimary, rp)
		}
	}
	require.NotEmpty(t, fromPrimary)
	last := fromPrimary[len(fromPrimary)-1]
	assert.Equal(t, uint64(2), last.Op)
	assert.Equal(t, uint64(2), last.Request)

	// DoViewChanges went only to the primary-elect, and only after StartViewChange.
	dvcs := c.sent(cmd(vsr.CmdDoViewChange))
	require.NotEmpty(t, dvcs)
	for _, m := range dvcs {
		assert.Equal(t, 1, m.To)
		assert.Equal(t, uint64(1), m.View)
	}
}

// TestViewChangeLosesOnlyUnackedOp: an op only the crashed primary held was
// never acked by a quorum; the new view does without it and reuses the op
// number for a new request.
func TestViewChangeLosesOnlyUnackedOp(t *testing.T) {
	c := newTestCluster(t, 3, nil)
	c.commitRequests(0, 1, 1)
	c.dropIf(func(m *vsr.Message) bool { return m.From == 0 && m.Command == vsr.CmdPrepare })
	c.request(0, 0, 2, put(2, 20))
	c.deliverAll()
	lost, ok := c.r(0).log.journal.Get(2)
	require.True(t, ok)
	c.crash(0)
	c.tickUntil(200, func() bool { return c.info(1).Primary && c.info(2).View == 1 && c.info(2).Status == vsr.StatusNormal },
		"r1 leads view 1")
	assert.Equal(t, uint64(1), c.info(1).Sequencer)
	c.request(1, 1, 1, put(9, 90))
	c.deliverAll()
	require.Len(t, c.repliesTo(1), 1)
	assert.Equal(t, uint64(2), c.repliesTo(1)[0].Op)
	h, ok := c.r(1).log.journal.Get(2)
	require.True(t, ok)
	assert.NotEqual(t, lost.Checksum, h.Checksum)
}

// TestViewChangeEscalatesPastCrashedPrimaryElect: n=5 with r0 and r1 down; the
// primary-elect of view 1 never answers, so the status timeout escalates to
// view 2, whose primary r2 gathers a view-change quorum of three.
func TestViewChangeEscalatesPastCrashedPrimaryElect(t *testing.T) {
	c := newTestCluster(t, 5, nil)
	c.commitRequests(0, 1, 2)
	c.crash(0)
	c.crash(1)
	c.tickUntil(400, func() bool { return c.info(2).Primary }, "r2 leads")
	assert.Equal(t, uint64(2), c.info(2).View)
	assert.NotEmpty(t, c.eventsOf(-1, vsr.EvViewEscalate))
	for _, i := range []int{3, 4} {
		assert.Equal(t, vsr.StatusNormal, c.info(i).Status)
		assert.Equal(t, uint64(2), c.info(i).View)
	}
	c.request(2, 0, 3, put(3, 3))
	c.deliverAll()
	require.NotEmpty(t, c.repliesTo(0))
	assert.Equal(t, uint64(3), c.repliesTo(0)[len(c.repliesTo(0))-1].Op)
}

// TestViewChangeWaitsForStartViewChanges: a replica sends its DoViewChange only
// after f others joined the view change.
func TestViewChangeWaitsForStartViewChanges(t *testing.T) {
	r, err := New(DefaultOptions(3, 5), zeroJitter{})
	require.NoError(t, err)
	var out vsr.Output
	r.Step(msg(vsr.StartViewChange{}, 2, 3, 1), &out)
	assert.Equal(t, vsr.StatusViewChange, r.Info().Status)
	for _, m := range out.Messages {
		assert.NotEqual(t, vsr.CmdDoViewChange, m.Command, "one StartViewChange is not f=2")
	}
	out.Reset()
	r.Step(msg(vsr.StartViewChange{}, 4, 3, 1), &out)
	var dvc []vsr.Message
	for _, m := range out.Messages {
		if m.Command == vsr.CmdDoViewChange {
			dvc = append(dvc, m)
		}
	}
	require.Len(t, dvc, 1)
	assert.Equal(t, 1, dvc[0].To, "to the primary of view 1")
	assert.Equal(t, uint64(1), dvc[0].View)
}

// ---- the merge, driven by crafted DoViewChanges ----

// electing returns replica id (the primary of view) in view change for view,
// with its own (empty-log) vote recorded, after StartViewChange from peers.
func electing(t *testing.T, view uint64, id, n int, peers ...int) (*Replica, *vsr.Output) {
	t.Helper()
	require.Equal(t, id, vsr.PrimaryOf(view, n))
	r, err := New(DefaultOptions(id, n), zeroJitter{})
	require.NoError(t, err)
	out := &vsr.Output{}
	for _, p := range peers {
		r.Step(msg(vsr.StartViewChange{}, p, id, view), out)
	}
	require.Equal(t, vsr.StatusViewChange, r.Info().Status)
	require.True(t, r.vc.dvcs[id].valid, "the primary-elect voted for itself")
	return r, out
}

// vote is a DoViewChange for view 1 from `from` with log_view 0, head op,
// commit 0 and the given suffix (top first).
func vote(from, to int, op uint64, suffix ...vsr.SuffixEntry) *vsr.Message {
	return voteIn(1, 0, from, to, op, suffix...)
}

// committedVote is a vote for view 1 that states commit.
func committedVote(from, to int, op, commit uint64, suffix ...vsr.SuffixEntry) *vsr.Message {
	return msg(vsr.DoViewChange{Op: op, Commit: commit, Suffix: suffix}, from, to, 1)
}

// voteIn is a DoViewChange for view with logView.
func voteIn(view, logView uint64, from, to int, op uint64, suffix ...vsr.SuffixEntry) *vsr.Message {
	return msg(vsr.DoViewChange{LogView: logView, Op: op, Suffix: suffix}, from, to, view)
}

func present(h vsr.Header) vsr.SuffixEntry    { return vsr.SuffixEntry{Header: h, Present: true} }
func headerOnly(h vsr.Header) vsr.SuffixEntry { return vsr.SuffixEntry{Header: h} }
func nackBlank(op uint64) vsr.SuffixEntry {
	return vsr.SuffixEntry{Header: vsr.Header{Op: op}, Nack: true}
}

func eventsIn(out *vsr.Output, k vsr.EventKind) []vsr.Event {
	var es []vsr.Event
	for _, e := range out.Events {
		if e.Kind == k {
			es = append(es, e)
		}
	}
	return es
}

// TestMergeDerivedNackTruncates (n=3): the primary-elect never saw op 2 (its
// head is below: a nack), and the only other voter holds op 2's header but not
// its body above its commit (a derived nack). Two nacks are a nack quorum:
// op 2 is truncated, op 1 is kept and fetched from the voter that has it.
func TestMergeDerivedNackTruncates(t *testing.T) {
	hs := chainHeaders(2, 0)
	r, out := electing(t, 1, 1, 3, 2)
	out.Reset()
	r.Step(vote(2, 1, 2, headerOnly(hs[2]), present(hs[1])), out)

	tr := eventsIn(out, vsr.EvMergeTruncate)
	require.Len(t, tr, 1)
	assert.Equal(t, uint64(2), tr[0].Op)
	assert.Equal(t, hs[2].Checksum, tr[0].Checksum)
	assert.Equal(t, uint64(2), tr[0].MergeTruncated().Nacks, "one plain nack and one derived nack")
	assert.Equal(t, uint64(1), r.Info().Sequencer, "the merged log ends at op 1")

	// Op 1 is present only at r2: the primary-elect repairs it before starting.
	require.Equal(t, vsr.StatusViewChange, r.Info().Status)
	var reqs []vsr.Message
	for _, m := range out.Messages {
		if m.Command == vsr.CmdRequestPrepares {
			reqs = append(reqs, m)
		}
	}
	require.Len(t, reqs, 1)
	assert.Equal(t, 2, reqs[0].To)
	assert.Equal(t, vsr.RequestPrepares{From: 1, To: 1}, reqs[0].RequestPrepares())

	out.Reset()
	r.Step(msg(vsr.RepairPrepare{Header: hs[1]}, 2, 1, 1), out)
	inf := r.Info()
	assert.Equal(t, vsr.StatusNormal, inf.Status)
	assert.True(t, inf.Primary)
	assert.Equal(t, uint64(1), inf.LogView)
	assert.Equal(t, 1, inf.Pipeline, "op 1 is uncommitted: it is re-replicated in the new view")
	var starts int
	for _, m := range out.Messages {
		if m.Command == vsr.CmdStartView {
			starts++
			assert.Equal(t, uint64(1), m.StartView().Op)
		}
	}
	assert.Equal(t, 2, starts)
}

// TestMergeNackQuorumThreshold (n=5, nack quorum 3): op 2 is truncated with
// three nacks and kept with two when some voter can serve its body.
func TestMergeNackQuorumThreshold(t *testing.T) {
	hs := chainHeaders(2, 0)
	cases := []struct {
		name      string
		r2, r3    []vsr.SuffixEntry
		truncated bool
		nacks     uint64
	}{
		{"two nacks and a body: kept",
			[]vsr.SuffixEntry{present(hs[2]), present(hs[1])},
			[]vsr.SuffixEntry{headerOnly(hs[2]), present(hs[1])}, false, 0},
		{"own nack plus two derived nacks: truncated",
			[]vsr.SuffixEntry{headerOnly(hs[2]), present(hs[1])},
			[]vsr.SuffixEntry{headerOnly(hs[2]), present(hs[1])}, true, 3},
		{"own nack, a nack bit and a derived nack: truncated",
			[]vsr.SuffixEntry{headerOnly(hs[2]), present(hs[1])},
			[]vsr.SuffixEntry{nackBlank(2), present(hs[1])}, true, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, out := electing(t, 1, 1, 5, 2, 3)
			r.Step(vote(2, 1, 2, tc.r2...), out)
			require.False(t, r.vc.merged, "two votes are not a view-change quorum of 3")
			out.Reset()
			r.Step(vote(3, 1, 2, tc.r3...), out)
			require.True(t, r.vc.merged)
			tr := eventsIn(out, vsr.EvMergeTruncate)
			if !tc.truncated {
				assert.Empty(t, tr)
				assert.Equal(t, uint64(2), r.Info().Sequencer)
				return
			}
			require.Len(t, tr, 1)
			assert.Equal(t, uint64(2), tr[0].Op)
			assert.Equal(t, tc.nacks, tr[0].MergeTruncated().Nacks)
			assert.Equal(t, uint64(1), r.Info().Sequencer)
		})
	}
}

// TestMergeWaitsWithoutBodyOrQuorum (n=5): op 2's canonical header is known,
// no voter can serve its body, and only two nack it: the merge neither copies
// nor truncates but waits for another vote.
func TestMergeWaitsWithoutBodyOrQuorum(t *testing.T) {
	hs := chainHeaders(2, 0)
	r, out := electing(t, 1, 1, 5, 2, 3)
	r.Step(vote(2, 1, 2, headerOnly(hs[2]), present(hs[1])), out)
	// r3 carries a blank without the nack bit: it neither holds nor denies op 2.
	r.Step(vote(3, 1, 2, vsr.SuffixEntry{Header: vsr.Header{Op: 2}}, present(hs[1])), out)
	assert.False(t, r.vc.merged, "neither a body nor a nack quorum: wait")
	assert.Empty(t, eventsIn(out, vsr.EvMergeTruncate))
	assert.Equal(t, vsr.StatusViewChange, r.Info().Status)

	// A fourth vote that can serve op 2 settles it.
	out.Reset()
	r.Step(vote(4, 1, 2, present(hs[2]), present(hs[1])), out)
	assert.True(t, r.vc.merged)
	assert.Empty(t, eventsIn(out, vsr.EvMergeTruncate))
	assert.Equal(t, uint64(2), r.Info().Sequencer)
}

// TestMergeHighestLogViewIsCanonical (n=5, view 2): the canonical log comes
// from the votes with the highest log_view. An older log_view's longer log and
// its different op 1 lose: the different checksum counts as a nack.
func TestMergeHighestLogViewIsCanonical(t *testing.T) {
	older := chainHeaders(2, 0)
	newer := chainHeaders(1, 1)
	newer[1].Body = put(99, 99)
	newer[1].Seal()
	require.NotEqual(t, older[1].Checksum, newer[1].Checksum)

	r, out := electing(t, 2, 2, 5, 0, 1)
	settled := voteIn(2, 1, 0, 2, 1, present(newer[1]))
	stale := voteIn(2, 0, 1, 2, 2, present(older[2]), present(older[1]))
	r.Step(settled, out)
	r.Step(stale, out)
	require.True(t, r.vc.merged)
	assert.Equal(t, uint64(1), r.Info().Sequencer, "the head is the highest log_view's head")
	h, ok := r.log.adopted.Get(1)
	require.True(t, ok)
	assert.Equal(t, newer[1].Checksum, h.Checksum)
	_, ok = r.log.adopted.Get(2)
	assert.False(t, ok, "the stale log's op 2 is not canonical")
	assert.Empty(t, eventsIn(out, vsr.EvMergeTruncate), "op 1 (2 nacks of 3) is kept")
}

// TestMergeUnreadableVoteDropped: a DoViewChange whose suffix does not start at
// its op is dropped whole; the vote does not count toward the quorum.
func TestMergeUnreadableVoteDropped(t *testing.T) {
	hs := chainHeaders(3, 0)
	r, out := electing(t, 1, 1, 3, 2)
	out.Reset()
	r.Step(vote(2, 1, 3, present(hs[2]), present(hs[1])), out) // claims op 3, starts at 2
	drops := eventsIn(out, vsr.EvDrop)
	require.Len(t, drops, 1)
	assert.Equal(t, vsr.ReasonDVCUnreadable, drops[0].Dropped().Reason)
	assert.False(t, r.vc.dvcs[2].valid)
	assert.False(t, r.vc.merged)
	assert.Equal(t, vsr.StatusViewChange, r.Info().Status)
}

// TestStartViewAdoptionSetsSequencerWithoutBodies: a backup adopting a
// StartView takes its head even for ops whose bodies it lacks, keeps their
// headers, and asks for repair.
func TestStartViewAdoptionSetsSequencerWithoutBodies(t *testing.T) {
	hs := chainHeaders(3, 0)
	r, err := New(DefaultOptions(2, 3), zeroJitter{})
	require.NoError(t, err)
	out := &vsr.Output{}
	sv := msg(vsr.StartView{LogView: 1, Op: 3, Commit: 1,
		Suffix: []vsr.SuffixEntry{present(hs[3]), present(hs[2]), present(hs[1])}}, 1, 2, 1)
	r.Step(sv, out)
	inf := r.Info()
	assert.Equal(t, vsr.StatusNormal, inf.Status)
	assert.Equal(t, uint64(1), inf.View)
	assert.Equal(t, uint64(1), inf.LogView)
	assert.Equal(t, uint64(3), inf.Sequencer, "sequencer = StartView.op with no bodies held")
	assert.Equal(t, uint64(1), inf.CommitMax)
	assert.False(t, r.Journaled(3))
	for op := uint64(2); op <= 3; op++ {
		h, ok := r.log.adopted.Get(op)
		require.True(t, ok, "op %d header kept", op)
		assert.Equal(t, hs[op].Checksum, h.Checksum)
	}
	assert.Empty(t, eventsIn(out, vsr.EvAck), "nothing acked without a body")
	reqs := eventsIn(out, vsr.EvRepairRequest)
	require.Len(t, reqs, 1)
	assert.Equal(t, uint64(1), reqs[0].Op)
	assert.Equal(t, uint64(3), reqs[0].RepairRequested().To, "repair reaches the adopted head")
	assert.Equal(t, 1, reqs[0].RepairRequested().Peer)
}
