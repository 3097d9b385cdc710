package scenarios_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/scenarios"
	"vsrsim/sim"
	"vsrsim/verify"
	"vsrsim/vsr"
)

// replyWatch wraps a script and counts the replies for op that pass the
// script's own filters, so the ones a client really receives.
type replyWatch struct {
	inner     sim.Script
	op        uint64
	installed bool
	replies   int
}

func (w *replyWatch) At(c *sim.Cluster, tick uint64) {
	w.inner.At(c, tick) // the script's filters first: ours sees what they let through
	if !w.installed {
		w.installed = true
		c.Network().AddFilter(func(from, to int, m vsr.Message) bool {
			if m.Command == vsr.CmdReply && m.Reply().Op == w.op {
				w.replies++
			}
			return false
		})
	}
}

var truncatedAcked = regexp.MustCompile(`r(\d)'s view-(\d+) merge dropped committed op (\d+) csum=([0-9a-f]{4}) with (\d) nacks \(committed in view \d+ on acks from (r\d(?:,r\d)+)\)`)

// TestStaleDVCCacheTruncatesAckedOp: on 3 WAL replicas the two backups' stale
// cached votes are a nack quorum; the merge truncates op 21, which both of
// them journaled and acked in one view and the primary committed. No client
// got a reply for it: the ack quorum alone convicts. The fixed cache keeps
// op 21 and the next primary commits it.
func TestStaleDVCCacheTruncatesAckedOp(t *testing.T) {
	s, err := scenarios.Lookup("stale-dvc-cache")
	require.NoError(t, err)
	const k = uint64(21)
	keep := func(e *vsr.Event) bool {
		return e.Op == k && (e.Kind == vsr.EvMergeTruncate || e.Kind == vsr.EvAck ||
			e.Kind == vsr.EvJournalAppend || e.Kind == vsr.EvCommit)
	}
	run := func(seed uint64, bugs []string) (sim.Result, *eventLog, *replyWatch) {
		cfg, at := shapeConfig(t, s, seed, bugs)
		replies := &replyWatch{inner: at.Script, op: k}
		w := &eventLog{inner: replies, keep: keep}
		at.Script = w
		res, err := verify.Run(cfg, at)
		require.NoError(t, err)
		return res, w, replies
	}
	for seed := uint64(1); seed <= 5; seed++ {
		bug, w, replies := run(seed, []string{s.Bug})
		require.Equal(t, sim.VerdictSafety, bug.Verdict, "seed %d: %s", seed, bug.Evidence)
		assert.Equal(t, "durability", bug.Invariant, "seed %d", seed)
		assert.Zero(t, replies.replies, "seed %d: no client received op 21's reply", seed)

		truncs := w.of(vsr.EvMergeTruncate)
		require.NotEmpty(t, truncs, "seed %d", seed)
		trunc := truncs[0]
		assert.Equal(t, uint64(2), trunc.MergeTruncated().Nacks, "seed %d: two stale votes, a nack quorum at n=3", seed)
		m := truncatedAcked.FindStringSubmatch(bug.Evidence)
		require.NotNil(t, m, "seed %d: %s", seed, bug.Evidence)
		assert.Equal(t, fmt.Sprint(trunc.Replica), m[1], "seed %d: the merging replica", seed)
		assert.Equal(t, fmt.Sprint(trunc.View), m[2], "seed %d: the merge's view", seed)
		assert.Equal(t, fmt.Sprint(k), m[3], "seed %d: the truncated op", seed)
		assert.Equal(t, fmt.Sprintf("%04x", trunc.Checksum&0xffff), m[4], "seed %d", seed)
		assert.Regexp(t, `^r0,r[12]$`, m[6], "seed %d: the quorum r0 committed it on: itself and a backup", seed)

		// The two voters held op 21 and acked it, in one view, before the
		// merge their own votes made truncated it.
		ackView := map[int]uint64{}
		for _, e := range w.events {
			if e.Kind == vsr.EvMergeTruncate {
				break
			}
			if e.Kind == vsr.EvAck && e.Replica != 0 && e.Checksum == trunc.Checksum {
				ackView[e.Replica] = e.View
			}
		}
		require.Contains(t, ackView, 1, "seed %d: r1 acked op 21", seed)
		require.Contains(t, ackView, 2, "seed %d: r2 acked op 21", seed)
		assert.Equal(t, ackView[1], ackView[2], "seed %d: both acks in one view", seed)
		assert.Less(t, ackView[1], trunc.View, "seed %d", seed)
		committed := false
		for _, e := range w.of(vsr.EvCommit) {
			committed = committed || (e.Replica == 0 && e.Checksum == trunc.Checksum)
		}
		assert.True(t, committed, "seed %d: r0 committed op 21 first", seed)

		fix, w, replies := run(seed, nil)
		assert.Equal(t, sim.VerdictPass, fix.Verdict, "seed %d: %s", seed, fix.Evidence)
		assert.Empty(t, w.of(vsr.EvMergeTruncate), "seed %d: the fixed cache keeps op 21", seed)
		kept := false
		for _, e := range w.of(vsr.EvCommit) {
			kept = kept || e.Replica == 1
		}
		assert.True(t, kept, "seed %d: r1 commits op 21 in the next view", seed)
		assert.Positive(t, replies.replies, "seed %d: the new primary's reply gets through", seed)
	}
}
