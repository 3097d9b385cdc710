package replica

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/marks"
	"vsrsim/vsr"
)

// awaitingBody is r1 of four, primary-elect of view 5, whose merge knows op
// 1's header and finds its body at no voter: r1 adopted op 1 header-only in
// view 2, r2's slot of it is unsure, r3 never reached it. Two nacks of a
// needed three: the merge waits. r0, whose vote is not in, holds the body.
func awaitingBody(t *testing.T) (*Replica, *vsr.Output, vsr.Header) {
	t.Helper()
	hs := chainHeaders(1, 2)
	r, err := New(DefaultOptions(1, 4), zeroJitter{})
	require.NoError(t, err)
	out := &vsr.Output{}
	r.Step(msg(vsr.StartView{LogView: 2, Op: 1, Suffix: []vsr.SuffixEntry{headerOnly(hs[1])}}, 2, 1, 2), out)
	require.Equal(t, uint64(1), r.Info().Sequencer, "r1 adopted op 1 without its body")
	require.False(t, r.Journaled(1))
	for _, p := range []int{2, 3} {
		r.Step(msg(vsr.StartViewChange{}, p, 1, 5), out)
	}
	require.True(t, r.vc.dvcs[1].valid, "the primary-elect voted for itself")
	out.Reset()
	r.Step(voteIn(5, 2, 2, 1, 1, vsr.SuffixEntry{Header: hs[1], Unsure: true}), out)
	r.Step(voteIn(5, 0, 3, 1, 0), out)
	require.False(t, r.vc.merged, "two nacks of three, and no voter holds the body")
	return r, out, hs[1]
}

func repairAsks(out *vsr.Output, to int) []vsr.RequestPrepares {
	var asks []vsr.RequestPrepares
	for _, m := range out.Messages {
		if m.Command == vsr.CmdRequestPrepares && m.To == to {
			asks = append(asks, m.RequestPrepares())
		}
	}
	return asks
}

// TestMergeFetchesABodyNoVoterHolds: the primary-elect asks the replica
// whose vote is not in for the body, and the voter whose vote holds op 1
// unsure (a restart may keep a copy it could not vouch for set aside), never
// the voter that nacked it; again on its message timeout; it takes the body
// that matches the canonical header, votes again with it and starts the view
// with op 1 kept.
func TestMergeFetchesABodyNoVoterHolds(t *testing.T) {
	r, out, h := awaitingBody(t)
	assert.Equal(t, []vsr.RequestPrepares{{From: 1, To: 1}}, repairAsks(out, 0), "r0 is asked for op 1")
	assert.Equal(t, []vsr.RequestPrepares{{From: 1, To: 1}}, repairAsks(out, 2), "r2's vote says nothing of op 1")
	assert.Empty(t, repairAsks(out, 3), "r3's vote nacks op 1: it never reached it")

	out.Reset()
	for k := 0; k < int(DefaultOptions(1, 4).Timeouts.ViewChangeMsgTicks); k++ {
		r.Tick(out)
	}
	assert.NotEmpty(t, repairAsks(out, 0), "asked again on the message timeout")

	out.Reset()
	r.Step(msg(vsr.RepairPrepare{Header: h}, 0, 1, 5), out)
	assert.True(t, r.Journaled(1))
	assert.Equal(t, vsr.StatusNormal, r.Info().Status, "the view starts")
	assert.Equal(t, uint64(5), r.Info().View)
	assert.Equal(t, uint64(1), r.Info().Sequencer, "op 1 kept")
	assert.Empty(t, eventsIn(out, vsr.EvMergeTruncate))
}

// TestMergeTakesOnlyTheCanonicalBody: a body for the awaited op that is not
// the canonical header's (an abandoned view's op 1) is refused and the merge
// keeps waiting.
func TestMergeTakesOnlyTheCanonicalBody(t *testing.T) {
	r, out, _ := awaitingBody(t)
	other := vsr.Header{Op: 1, View: 3, Parent: genesisChecksum, Timestamp: 1, Body: put(1, 99)}
	other.Seal()
	out.Reset()
	r.Step(msg(vsr.RepairPrepare{Header: other}, 0, 1, 5), out)
	assert.False(t, r.Journaled(1))
	assert.False(t, r.vc.merged)
	assert.Equal(t, vsr.StatusViewChange, r.Info().Status)
}

// The fetch's assertions fire when their premises are broken on purpose.
func TestAwaitBodyAssertionsFire(t *testing.T) {
	violation := func(t *testing.T, name string, fn func()) {
		t.Helper()
		defer func() {
			v, ok := recover().(vsr.Violation)
			require.True(t, ok, "no violation")
			assert.Equal(t, name, v.Invariant)
		}()
		fn()
	}
	t.Run("known", func(t *testing.T) {
		r, _, h := awaitingBody(t)
		res := mergeResult{decisions: []opDecision{{op: h.Op, verdict: opAwaitBody}}}
		violation(t, "await_body_known", func() { r.awaitBodyOf(&res) })
	})
	t.Run("before merge", func(t *testing.T) {
		r, _, _ := awaitingBody(t)
		r.vc.merged = true
		violation(t, "await_body_before_merge", r.askAwaitedBody)
	})
	t.Run("primary-elect", func(t *testing.T) {
		r, _, _ := awaitingBody(t)
		r.view++ // view 6's primary is r2
		violation(t, "await_body_primary_elect", r.askAwaitedBody)
	})
	t.Run("in own vote", func(t *testing.T) {
		r, _, _ := awaitingBody(t)
		r.fx.Out = &vsr.Output{} // as Step sets it: the vote marks its cache
		r.vc.awaitBody.Op = 5    // above the primary-elect's own head, op 1
		violation(t, "await_body_in_own_vote", r.revote)
	})
}

// TestAwaitBodyOnlyWhatFitsOwnLog: the primary-elect fetches and takes an
// awaited body only where its own log chains through it. A canonical op 1
// from a higher log_view under its own op 2 that names another parent would
// splice two logs into its journal, and its later votes of its own
// log_view would be unreadable (swarm seed 3238084946 of 100,000 from
// 0xc0ffee00, the protocol model's suffix_readable).
func TestAwaitBodyOnlyWhatFitsOwnLog(t *testing.T) {
	for _, fits := range []bool{true, false} {
		r, _, h := awaitingBody(t)
		require.Equal(t, h, r.vc.awaitBody, "awaiting op 1")
		above := vsr.Header{Op: 2, View: 2, Parent: h.Checksum, Timestamp: 2, Body: put(2, 2)}
		if !fits {
			above.Parent = h.Checksum ^ 1 // its own op 2 chains to another op 1
		}
		above.Seal()
		r.log.adopted.Put(above)
		assert.Equal(t, fits, r.awaitedBody(&h), "fits its own log: %v", fits)
		res := mergeResult{decisions: []opDecision{{op: h.Op, verdict: opAwaitBody, known: true, header: h}}}
		r.vc.awaitBody = vsr.Header{}
		assert.Equal(t, fits, r.awaitBodyOf(&res), "awaited only if it fits: %v", fits)
		assert.Equal(t, fits, r.vc.awaitBody == h, "awaited only if it fits: %v", fits)
	}
}

// TestMergeTakesTheAwaitedBodyFromItsOwnAside: a primary-elect whose own
// restart set aside an intact copy of the op its merge awaits (D90) takes it
// from there, asks no peer and starts the view with the op kept; a set-aside
// copy of another entry of that op (another checksum) is not taken, and
// the peers are asked as before (swarm seed 3405668755 from 0xcafe0000).
func TestMergeTakesTheAwaitedBodyFromItsOwnAside(t *testing.T) {
	hs := chainHeaders(1, 2)
	other := vsr.Header{Op: 1, View: 3, Parent: genesisChecksum, Timestamp: 1, Body: put(1, 99)}
	other.Seal()
	for _, own := range []vsr.Header{hs[1], other} {
		r, out := adoptedFromR2(t, 4, vsr.StartView{LogView: 2, Op: 1, Suffix: []vsr.SuffixEntry{headerOnly(hs[1])}})
		require.False(t, r.Journaled(1))
		r.log.aside.Put(own) // as a restart's setAsideCopy leaves it
		for _, p := range []int{2, 3} {
			r.Step(msg(vsr.StartViewChange{}, p, 1, 5), out)
		}
		out.Reset()
		r.Step(voteIn(5, 2, 2, 1, 1, vsr.SuffixEntry{Header: hs[1], Unsure: true}), out)
		r.Step(voteIn(5, 0, 3, 1, 0), out)
		if own == hs[1] {
			assert.True(t, r.Journaled(1), "taken from its own aside")
			assert.Empty(t, repairAsks(out, 0), "no peer asked")
			assert.Empty(t, repairAsks(out, 2))
			assert.Equal(t, vsr.StatusNormal, r.Info().Status, "the view starts")
			assert.Equal(t, uint64(1), r.Info().Sequencer, "op 1 kept")
			_, still := r.log.aside.Get(1)
			assert.False(t, still, "out of the aside, into the journal")
			continue
		}
		assert.False(t, r.Journaled(1), "another entry of op 1 is not the awaited body")
		assert.NotEmpty(t, repairAsks(out, 0), "the peers are asked")
		assert.Equal(t, vsr.StatusViewChange, r.Info().Status)
	}
}

// TestMergeAwaitsTheHeaderTheOpAboveNames (D111): where no vote names op 1
// at all and too few nack it, but a vote of the canonical log_view names op
// 2, whose parent is op 1's checksum, the primary-elect awaits that entry:
// its own restart's set-aside copy of it is taken, and the merge completes
// with op 1 kept; a set-aside copy of another entry of op 1 is not, and the
// merge waits (swarm seed 3233833457 from 0xc0c00000: the one intact copy
// of op 1 lay set aside at the primary-elect, and views climbed 4 -> 9).
func TestMergeAwaitsTheHeaderTheOpAboveNames(t *testing.T) {
	hs := chainHeaders(2, 2)
	other := vsr.Header{Op: 1, View: 1, Parent: genesisChecksum, Timestamp: 1, Body: put(1, 99)}
	other.Seal()
	for _, own := range []vsr.Header{hs[1], other} {
		blank := vsr.SuffixEntry{Header: vsr.Header{Op: 1}}
		r, out := adoptedFromR2(t, 3, vsr.StartView{LogView: 2, Op: 2, Suffix: []vsr.SuffixEntry{headerOnly(hs[2]), blank}})
		require.Equal(t, uint64(2), r.Info().Sequencer)
		// A restart could not vouch for its copy of op 1: unsure, set aside.
		r.log.setUnsure(r.id, []uint64{1})
		r.log.aside.Put(own)
		r.Step(msg(vsr.StartViewChange{}, 0, 1, 4), out)
		r.Step(msg(vsr.StartViewChange{}, 2, 1, 4), out)
		require.True(t, r.vc.dvcs[1].valid, "the primary-elect voted for itself")
		require.True(t, r.vc.dvcs[1].suffix[1].Blank() && !r.vc.dvcs[1].suffix[1].Nack, "its vote says nothing of op 1")
		out.Reset()
		r.Step(voteIn(4, 2, 2, 1, 2, present(hs[2]), nackBlank(1)), out)
		tookOwnAside(t, r, own, hs[1], 2) // op 1 and op 2 kept (op 2's body is fetched next)
	}
}

// adoptedFromR2 is r1 of n replicas, Normal in view 2 on sv, r2's StartView.
func adoptedFromR2(t *testing.T, n int, sv vsr.StartView) (*Replica, *vsr.Output) {
	t.Helper()
	r, err := New(DefaultOptions(1, n), zeroJitter{})
	require.NoError(t, err)
	out := &vsr.Output{}
	r.Step(msg(sv, 2, 1, 2), out)
	require.Equal(t, vsr.StatusNormal, r.Info().Status, "r1 adopted view 2")
	return r, out
}

// A merge whose head lies at the commit point, where no vote describes it,
// awaits the entry the op above names, though the merge cut that op: a vote
// of the canonical log_view states its log's op above, whose parent is its
// log's op at the commit point, the committed one (D117; swarm seed
// 2585753772 from 0x9a1e0000: the primary-elect held committed op 10 only set
// aside, its restart's walk broken above it, the other holder's copies
// damaged, and every view's merge waited for a vote that describes op 10).
func TestMergeAwaitsTheHeadTheCutOpAboveNames(t *testing.T) {
	hs := chainHeaders(4, 2)
	other := vsr.Header{Op: 1, View: 1, Parent: genesisChecksum, Timestamp: 1, Body: put(1, 99)}
	other.Seal()
	blank := func(op uint64) vsr.SuffixEntry { return vsr.SuffixEntry{Header: vsr.Header{Op: op}} }
	for _, own := range []vsr.Header{hs[1], other} {
		// r1 holds ops 2 and 4, knows nothing of op 3, and holds op 1,
		// committed, only set aside (a restart could not vouch for it).
		sv := vsr.StartView{LogView: 2, Op: 4, Commit: 1, Suffix: []vsr.SuffixEntry{present(hs[4]), blank(3), present(hs[2]), blank(1)}}
		r, out := adoptedFromR2(t, 3, sv)
		for _, o := range []int{4, 2} {
			r.Step(msg(vsr.RepairPrepare{Header: hs[o]}, 2, 1, 2), out)
			require.True(t, r.Journaled(uint64(o)), "op %d's body journaled", o)
		}
		require.False(t, r.Journaled(1))
		r.log.setUnsure(r.id, []uint64{3}) // a faulty slot at a restart: never nacked
		r.log.aside.Put(own)
		r.Step(msg(vsr.StartViewChange{}, 0, 1, 4), out)
		r.Step(msg(vsr.StartViewChange{}, 2, 1, 4), out)
		require.True(t, r.vc.dvcs[1].valid, "the primary-elect voted for itself")
		r.Step(voteIn(4, 2, 0, 1, 0), out)
		require.False(t, r.vc.merged, "one nack of ops 2..4: op 3, which no vote names, waits")
		out.Reset()
		r.Step(voteIn(4, 2, 2, 1, 1, blank(1)), out) // r2: its head, op 1, lost to its disk
		// Ops 2..4 cut, no vote describes op 1, the merged head: op 2 names it.
		assert.False(t, out.Marks.Reached(marks.MergeHeadUnknown), "a vote names the head from above")
		tookOwnAside(t, r, own, hs[1], 1) // ops 2..4 cut, op 1 the head
	}
}

// tookOwnAside checks a merge awaiting op 1, the entry want that op 2
// names: it took its own set-aside copy own if it is want and merged with
// head as its head, or else refused it and waits for want.
func tookOwnAside(t *testing.T, r *Replica, own, want vsr.Header, head uint64) {
	t.Helper()
	if own == want {
		assert.True(t, r.Journaled(1), "taken from its own aside")
		assert.True(t, r.vc.merged, "the merge completes")
		assert.Equal(t, head, r.Info().Sequencer, "the merged head")
		return
	}
	assert.False(t, r.Journaled(1), "another entry of op 1 is not the one op 2 names")
	assert.False(t, r.vc.merged, "the merge waits")
	assert.Equal(t, want.Checksum, r.vc.awaitBody.Checksum, "for the entry op 2 names")
}

// TestAwaitNamedHeadOnlyWithinOwnVote (D127): the merged head a vote names
// from above is awaited only at or below the primary-elect's own head, as
// awaitBodyOf awaits a body: above it, the body fetched would sit apart from
// its own log, and the vote it rebuilds could not state it (swarm seed
// 1819029250 from 0x6c6c0000: own head 37, op 53 awaited, the replica's
// await_body_in_own_vote assertion). The merge waits for a vote that
// describes the head instead.
func TestAwaitNamedHeadOnlyWithinOwnVote(t *testing.T) {
	hs := chainHeaders(6, 2)
	for _, tc := range []struct {
		own    uint64
		awaits bool
	}{{5, true}, {4, true}, {3, false}} {
		r, err := New(DefaultOptions(1, 3), zeroJitter{})
		require.NoError(t, err)
		r.fx.Out = &vsr.Output{}
		r.status, r.view = vsr.StatusViewChange, 4
		r.vc.dvcs[1] = dvcVote{valid: true, logView: 1, op: tc.own}
		r.vc.dvcs[2] = dvcVote{valid: true, logView: 2, op: 5, commit: 4, suffix: []vsr.SuffixEntry{present(hs[5])}}
		assert.Equal(t, tc.awaits, r.awaitNamedHead(4), "own head %d", tc.own)
		assert.Equal(t, tc.awaits, r.vc.awaitBody.Op == 4, "own head %d", tc.own)
		if tc.awaits {
			assert.Equal(t, hs[4].Checksum, r.vc.awaitBody.Checksum, "the entry op 5 names")
		}
	}
}
