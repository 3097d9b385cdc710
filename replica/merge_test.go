package replica

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
	"vsrsim/vsr"
)

// naiveMerge is the merge written the slow, obvious way, straight from the
// rules in protocol.md "View change": every vote's entries indexed by the op
// each header names (not by position), every quantity recomputed from
// scratch for every op. mergeVotes must agree with it on every input.
func naiveMerge(votes []dvcVote) mergeResult {
	nm := newNaive(votes)
	var res mergeResult
	for _, x := range nm.valid {
		res.logView = max(res.logView, x.vote.logView)
		res.commit = max(res.commit, x.vote.commit)
	}
	for _, x := range nm.valid {
		if x.vote.logView == res.logView {
			res.votedHead = max(res.votedHead, x.vote.op)
		}
	}
	if lowest := int64(res.votedHead) - int64(vsr.SuffixMax) + 1; lowest > int64(res.commit) {
		res.commit = uint64(lowest) // every op a window below a prepared head committed
	}
	top := max(res.commit, res.votedHead)
	res.head = top
	for op := res.commit + 1; op <= top; op++ {
		parent := uint64(0)
		if k := len(res.log); k > 0 {
			parent = res.log[k-1].Checksum
		} else if h, ok := nm.canon(res.logView, op-1); ok {
			parent = h.Checksum
		} else if op == 1 {
			parent = genesisChecksum
		}
		d := nm.decide(res.logView, op, parent)
		res.decisions = append(res.decisions, d)
		switch d.verdict {
		case opTruncated:
			res.head, res.truncateNacks, res.ready = op-1, d.nacks, true
			for o := op; o <= top; o++ {
				if h, ok := nm.canon(res.logView, o); ok {
					res.truncated = append(res.truncated, h)
				}
			}
			return res
		case opAwaitHeader, opAwaitBody:
			return res
		}
		res.log = append(res.log, d.header)
		res.sources = append(res.sources, d.present)
	}
	res.ready = true
	return res
}

type naiveVote struct {
	replica int
	vote    dvcVote
	byOp    map[uint64]vsr.SuffixEntry
}

type naive struct {
	n     int
	valid []naiveVote
}

func newNaive(votes []dvcVote) *naive {
	nm := &naive{n: len(votes)}
	for i, v := range votes {
		if !v.valid {
			continue
		}
		m := map[uint64]vsr.SuffixEntry{}
		for _, e := range v.suffix {
			m[e.Header.Op] = e
		}
		nm.valid = append(nm.valid, naiveVote{i, v, m})
	}
	return nm
}

// canon: the lowest-numbered vote of the log_view that describes op; else,
// where one describes op+1, the lowest-numbered vote of any log_view whose
// entry at op is that header's parent (D89).
func (nm *naive) canon(logView, op uint64) (vsr.Header, bool) {
	if h, ok := nm.named(logView, op); ok {
		return h, true
	}
	above, ok := nm.named(logView, op+1)
	for _, x := range nm.valid {
		if e, has := x.byOp[op]; ok && has && e.Header.Checksum != 0 && e.Header.Checksum == above.Parent {
			return e.Header, true
		}
	}
	return vsr.Header{}, false
}

func (nm *naive) named(logView, op uint64) (vsr.Header, bool) {
	for _, x := range nm.valid {
		if e, ok := x.byOp[op]; ok && x.vote.logView == logView && e.Header.Checksum != 0 {
			return e.Header, true
		}
	}
	return vsr.Header{}, false
}

// nacks: sum is the canonical op's checksum, known from its header or from
// the parent the canonical op above names (D112); 0 where neither is known.
func (nm *naive) nacks(x naiveVote, op uint64, sum uint64) bool {
	e, has := x.byOp[op]
	blank := e.Header.Checksum == 0
	differs := sum != 0 && has && !blank && e.Header.Checksum != sum
	// A header held bodiless above the commit point nacks whatever the
	// canonical header (D86): another header nacks it, and so does the same.
	derived := has && !blank && !differs && !e.Nack && !e.Present && !e.Unsure && op > x.vote.commit
	return x.vote.op < op || (has && e.Nack) || differs || derived
}

// implied: with no canonical header and too few nacks, the one header the
// non-nacking votes show, if those that show none (or did not vote) are
// fewer than a replication quorum and it chains to parent (D98).
func (nm *naive) implied(op, parent uint64) (vsr.Header, bool) {
	shown := map[uint64]vsr.Header{}
	silent := nm.n - len(nm.valid)
	for _, x := range nm.valid {
		e, has := x.byOp[op]
		switch {
		case nm.nacks(x, op, 0):
		case !has || e.Blank() || e.Unsure:
			silent++
		default:
			shown[e.Header.Checksum] = e.Header
		}
	}
	if len(shown) != 1 || silent >= vsr.QuorumReplication(nm.n) || parent == 0 {
		return vsr.Header{}, false
	}
	for _, h := range shown {
		return h, h.Parent == parent
	}
	panic("unreachable")
}

func (nm *naive) weighAll(d *opDecision, sum uint64) {
	for _, x := range nm.valid {
		e, has := x.byOp[d.op]
		if nm.nacks(x, d.op, sum) {
			d.nacks++
		} else if has && d.known && e.Present && e.Header.Checksum == d.header.Checksum {
			d.present |= 1 << uint(x.replica)
		} else if has && d.known && !e.Blank() && e.Unsure {
			d.unsure++ // a copy of the header whose ack its voter cannot vouch for
		}
	}
}

func (nm *naive) decide(logView, op, parent uint64) opDecision {
	d := opDecision{op: op}
	d.header, d.known = nm.canon(logView, op)
	up, above := nm.named(logView, op+1)
	sum := d.header.Checksum
	if !d.known && above {
		sum, d.sum = up.Parent, up.Parent
	}
	nm.weighAll(&d, sum)
	if h, ok := nm.implied(op, parent); !d.known && !above && d.nacks < nm.n-vsr.QuorumReplication(nm.n)+1 && ok {
		d = opDecision{op: op, header: h, known: true, implied: true}
		nm.weighAll(&d, h.Checksum)
	}
	switch {
	case d.nacks >= nm.n-vsr.QuorumReplication(nm.n)+1:
		d.verdict = opTruncated
	case !d.known:
		d.verdict = opAwaitHeader
	case d.present == 0:
		d.verdict = opAwaitBody
	default:
		d.verdict = opCanonical
	}
	return d
}

// genChain returns a sealed hash chain of headers for ops 1..n, headers[0]
// standing for op 0; salt makes a fork's checksums differ from the main line.
func genChain(n uint64, salt uint64, base []vsr.Header, forkAt uint64) []vsr.Header {
	hs := make([]vsr.Header, n+1)
	for op := uint64(1); op <= n; op++ {
		if op < forkAt && base != nil {
			hs[op] = base[op]
			continue
		}
		h := vsr.Header{Op: op, Parent: hs[op-1].Checksum, Commit: op - min(op, vsr.PipelineMax-1), Timestamp: salt*1000 + op}
		if op == 1 {
			h.Parent = genesisChecksum
		}
		h.Seal()
		hs[op] = h
	}
	return hs
}

// genVotes draws n votes over a main chain and a fork of it: random heads,
// commit points and log_views, suffixes that hold bodies, headers alone,
// unsure headers, blanks and nacks, and windows that stop short.
func genVotes(s *prng.Stream, n int) []dvcVote {
	length, long := s.Range(0, 12), s.Chance(prng.Percent(20))
	if long {
		length = s.Range(vsr.SuffixMax-4, vsr.SuffixMax+40) // exercise the pipeline-bound inference
	}
	main := genChain(length, 1, nil, 0)
	fork := genChain(length, 2, main, s.Range(1, length+1))
	votes := make([]dvcVote, n)
	for i := range votes {
		if s.Chance(prng.Percent(20)) {
			continue
		}
		v := dvcVote{valid: true, logView: s.Uint64N(3), op: s.Uint64N(length + 1)}
		v.commit = s.Uint64N(v.op + 1)
		if long && s.Bool() {
			v.commit = s.Uint64N(min(v.op+1, 4)) // a commit point below the window
		}
		chain := main
		if s.Chance(prng.Percent(25)) {
			chain = fork
		}
		count := min(v.op-v.commit+1, vsr.SuffixMax)
		if v.op == 0 {
			count = 0
		}
		if s.Chance(prng.Percent(15)) {
			count = s.Uint64N(count + 1) // a window that stops short
		}
		for k := uint64(0); k < count && v.op-k > 0; k++ {
			v.suffix = append(v.suffix, genEntry(s, chain[v.op-k], v.commit))
		}
		votes[i] = v
	}
	return votes
}

func genEntry(s *prng.Stream, h vsr.Header, commit uint64) vsr.SuffixEntry {
	switch s.Uint64N(6) {
	case 0, 1:
		return vsr.SuffixEntry{Header: h, Present: true}
	case 2:
		return vsr.SuffixEntry{Header: h}
	case 3:
		return vsr.SuffixEntry{Header: h, Unsure: true}
	case 4:
		return vsr.SuffixEntry{Header: vsr.Header{Op: h.Op}, Nack: h.Op > commit}
	}
	return vsr.SuffixEntry{Header: vsr.Header{Op: h.Op}}
}

// TestMergeMatchesNaive holds the merge against its naive twin over
// generated votes (a fixed seed, so a failure replays).
func TestMergeMatchesNaive(t *testing.T) {
	s := prng.New(15, 1)
	verdicts := map[opVerdict]int{}
	ready, implied := 0, 0
	for c := 0; c < 3000; c++ {
		n := int(s.Range(1, 6))
		votes := genVotes(s, n)
		got, want := mergeVotes(votes), naiveMerge(votes)
		if !assert.Equal(t, want, got, "case %d n=%d", c, n) {
			return
		}
		for _, d := range got.decisions {
			verdicts[d.verdict]++
			if d.implied {
				implied++
			}
		}
		if got.ready {
			ready++
		}
	}
	// The generator must reach every verdict, or the comparison proves little.
	for _, v := range []opVerdict{opCanonical, opTruncated, opAwaitHeader, opAwaitBody} {
		assert.Positive(t, verdicts[v], "no generated case reached %v", v)
	}
	assert.Positive(t, ready)
	assert.Positive(t, implied, "no generated case implied a header (D98)")
}

// TestMergeCases pins the merge's decision on hand-built votes (n=3).
func TestMergeCases(t *testing.T) {
	chain := genChain(4, 1, nil, 0)
	fork := genChain(4, 2, chain, 2)
	present := func(ops ...uint64) []vsr.SuffixEntry {
		var s []vsr.SuffixEntry
		for _, op := range ops {
			s = append(s, vsr.SuffixEntry{Header: chain[op], Present: true})
		}
		return s
	}
	nack := func(op uint64) vsr.SuffixEntry { return vsr.SuffixEntry{Header: vsr.Header{Op: op}, Nack: true} }
	for _, tc := range []struct {
		name    string
		votes   []dvcVote
		ready   bool
		commit  uint64
		head    uint64
		verdict []opVerdict
	}{
		{"agreeing quorum keeps the log", []dvcVote{
			{valid: true, logView: 1, op: 3, commit: 1, suffix: present(3, 2, 1)},
			{valid: true, logView: 1, op: 3, commit: 1, suffix: present(3, 2, 1)},
			{},
		}, true, 1, 3, []opVerdict{opCanonical, opCanonical}},
		{"two nacks truncate op 3", []dvcVote{
			{valid: true, logView: 1, op: 3, commit: 1, suffix: present(3, 2, 1)},
			{valid: true, logView: 1, op: 3, commit: 1, suffix: append([]vsr.SuffixEntry{nack(3)}, present(2, 1)...)},
			{valid: true, logView: 1, op: 2, commit: 1, suffix: present(2, 1)},
		}, true, 1, 2, []opVerdict{opCanonical, opTruncated}},
		{"header without a body waits", []dvcVote{
			{valid: true, logView: 1, op: 2, commit: 1, suffix: []vsr.SuffixEntry{{Header: chain[2], Unsure: true}, {Header: chain[1], Present: true}}},
			{valid: true, logView: 1, op: 2, commit: 1, suffix: []vsr.SuffixEntry{{Header: chain[2], Unsure: true}, {Header: chain[1], Present: true}}},
			{},
		}, false, 1, 2, []opVerdict{opAwaitBody}},
		// Swarm seed 4208860978 from 0xfade0000 (D86): the one vote of the
		// canonical log_view nacks ops 1 and 2 and names no header, and the
		// older log's vote holds both bodiless above its commit point: a
		// nack quorum, whatever the canonical headers were (views climbed
		// 4 -> 12 over "await-header" before).
		{"bodiless headers nack where no canonical vote names the op", []dvcVote{
			{},
			{valid: true, logView: 1, op: 2, commit: 0, suffix: []vsr.SuffixEntry{{Header: chain[2]}, {Header: chain[1]}}},
			{valid: true, logView: 2, op: 2, commit: 0, suffix: []vsr.SuffixEntry{nack(2), nack(1)}},
		}, true, 0, 0, []opVerdict{opTruncated}},
		// Neither entry nacks; op 1's present header is implied (D98: of r0
		// and r1, any quorum that committed op 1 holds r1, which shows it;
		// it chains to the genesis entry), op 2's unsure one is not (r0 did
		// not vote and r1 shows nothing it vouches for).
		{"an unsure or present entry does not nack an unnamed op", []dvcVote{
			{},
			{valid: true, logView: 1, op: 2, commit: 0, suffix: []vsr.SuffixEntry{{Header: chain[2], Unsure: true}, {Header: chain[1], Present: true}}},
			{valid: true, logView: 2, op: 2, commit: 0, suffix: []vsr.SuffixEntry{nack(2), nack(1)}},
		}, false, 0, 2, []opVerdict{opCanonical, opAwaitHeader}},
		// Swarm seed 3203387342 from 0xbeef0000 (D89): the one vote of the
		// canonical log_view lost op 1's record (blank) but names op 2, whose
		// parent is op 1's checksum; the older log's vote holds that body.
		{"the parent named above gives a header no canonical vote names", []dvcVote{
			{valid: true, logView: 1, op: 2, commit: 0, suffix: present(2, 1)},
			{valid: true, logView: 2, op: 2, commit: 0, suffix: []vsr.SuffixEntry{{Header: chain[2], Present: true}, {Header: vsr.Header{Op: 1}}}},
			{},
		}, true, 0, 2, []opVerdict{opCanonical, opCanonical}},
		// Swarm seed 4276981908 from 0xfeed0000 (D98): the one vote of the
		// canonical log_view lost its head op's record (a blank: it may
		// have acked it), another nacks it, and an older log's vote holds
		// a body of it. Any version that committed was acked by two
		// replicas, one of which shows nothing and the other this header:
		// no other can have committed (views climbed 9 -> 18 before).
		{"the one header the other votes show is implied", []dvcVote{
			{valid: true, logView: 2, op: 2, commit: 0, suffix: []vsr.SuffixEntry{{Header: vsr.Header{Op: 2}}, {Header: chain[1], Unsure: true}}},
			{valid: true, logView: 1, op: 2, commit: 0, suffix: []vsr.SuffixEntry{nack(2), nack(1)}},
			{valid: true, logView: 0, op: 2, commit: 0, suffix: present(2, 1)},
		}, true, 0, 2, []opVerdict{opCanonical, opCanonical}},
		{"two versions shown imply none", []dvcVote{
			{valid: true, logView: 2, op: 2, commit: 0, suffix: []vsr.SuffixEntry{{Header: vsr.Header{Op: 2}}, {Header: chain[1], Present: true}}},
			{valid: true, logView: 1, op: 2, commit: 0, suffix: []vsr.SuffixEntry{{Header: fork[2], Present: true}, {Header: chain[1], Present: true}}},
			{valid: true, logView: 0, op: 2, commit: 0, suffix: present(2, 1)},
		}, false, 0, 2, []opVerdict{opCanonical, opAwaitHeader}},
		{"a quorum that shows nothing implies nothing", []dvcVote{
			{valid: true, logView: 2, op: 2, commit: 0, suffix: []vsr.SuffixEntry{{Header: vsr.Header{Op: 2}}, {Header: chain[1], Present: true}}},
			{},
			{valid: true, logView: 0, op: 2, commit: 0, suffix: present(2, 1)},
		}, false, 0, 2, []opVerdict{opCanonical, opAwaitHeader}},
		// The canonical vote names op 3, whose parent is op 2's checksum
		// (D89), and no vote holds that header: the one header the others
		// show at op 2 is another (a fork) and would break the chain. It is
		// not taken; it nacks the op the checksum names (D112), as it would
		// a known header, and with the explicit nack op 2 is cut.
		{"a header named above refuses an implied one", []dvcVote{
			{valid: true, logView: 2, op: 3, commit: 1, suffix: []vsr.SuffixEntry{{Header: chain[3], Present: true}, {Header: vsr.Header{Op: 2}}, {Header: chain[1], Present: true}}},
			{valid: true, logView: 0, op: 3, commit: 1, suffix: []vsr.SuffixEntry{{Header: fork[3], Present: true}, {Header: fork[2], Present: true}, {Header: chain[1], Present: true}}},
			{valid: true, logView: 1, op: 3, commit: 1, suffix: []vsr.SuffixEntry{nack(3), nack(2), {Header: chain[1], Present: true}}},
		}, true, 1, 1, []opVerdict{opTruncated}},
		// The same without the explicit nack: one nack of the two needed,
		// the merge awaits the entry the checksum names (D111).
		{"a header named above, one other shown, waits", []dvcVote{
			{valid: true, logView: 2, op: 3, commit: 1, suffix: []vsr.SuffixEntry{{Header: chain[3], Present: true}, {Header: vsr.Header{Op: 2}}, {Header: chain[1], Present: true}}},
			{valid: true, logView: 0, op: 3, commit: 1, suffix: []vsr.SuffixEntry{{Header: fork[3], Present: true}, {Header: fork[2], Present: true}, {Header: chain[1], Present: true}}},
			{},
		}, false, 1, 3, []opVerdict{opAwaitHeader}},
		{"older log_view is outvoted", []dvcVote{
			{valid: true, logView: 0, op: 4, commit: 1, suffix: present(4, 3, 2, 1)},
			{valid: true, logView: 2, op: 2, commit: 1, suffix: present(2, 1)},
			{},
		}, true, 1, 2, []opVerdict{opCanonical}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := mergeVotes(tc.votes)
			require.Equal(t, naiveMerge(tc.votes), res, "the twin agrees")
			assert.Equal(t, tc.ready, res.ready)
			assert.Equal(t, tc.commit, res.commit)
			assert.Equal(t, tc.head, res.head)
			var got []opVerdict
			for _, d := range res.decisions {
				got = append(got, d.verdict)
			}
			assert.True(t, slices.Equal(tc.verdict, got), "verdicts %v, want %v", got, tc.verdict)
		})
	}
}
