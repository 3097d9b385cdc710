package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReplyBackupIsOneBackup: the replier beside the primary is a backup of
// the view (never the primary), the same on every replica, and every backup
// gets its share of ops.
func TestReplyBackupIsOneBackup(t *testing.T) {
	for n := 2; n <= 6; n++ {
		for view := uint64(0); view < uint64(n); view++ {
			r := newReplica(DefaultOptions(0, n), nil)
			r.view = view
			other := newReplica(DefaultOptions(n-1, n), nil)
			other.view = view
			share := make([]int, n)
			for op := uint64(1); op <= 600; op++ {
				b := r.replyBackup(op)
				require.NotEqual(t, r.primary(), b, "n=%d view=%d op=%d", n, view, op)
				require.Equal(t, b, other.replyBackup(op), "every replica picks the same backup")
				share[b]++
			}
			for i := 0; i < n; i++ {
				if i != vsr.PrimaryOf(view, n) {
					assert.Greater(t, share[i], 600/(n-1)/2, "n=%d view=%d: backup %d answers its share", n, view, i)
				}
			}
		}
	}
}

// TestBackupReplies: the op's chosen backup answers its client with the
// committed result once it applies it, beside the primary, and any backup
// answers a retried request it applied from its client table instead of
// forwarding it. With backup replies off only the primary answers, and a
// retry at a backup is forwarded.
func TestBackupReplies(t *testing.T) {
	for _, off := range []bool{false, true} {
		c := newTestCluster(t, 3, func(o *Options) { o.Protocol.BackupRepliesOff = off })
		c.commitRequests(0, 1, 6)
		c.tick(int(smallTimeouts().CommitTicks)) // the backups apply on the heartbeat
		c.deliverAll()
		byOp := map[uint64][]int{}
		for _, rp := range c.repliesTo(0) {
			byOp[rp.Op] = append(byOp[rp.Op], rp.From)
		}
		for op := uint64(1); op <= 6; op++ {
			want := []int{0}
			if !off {
				want = append(want, c.r(1).replyBackup(op))
			}
			assert.ElementsMatch(t, want, byOp[op], "off=%v: repliers of op %d", off, op)
		}

		before := len(c.repliesTo(0))
		forwarded := len(c.sent(cmdFrom(vsr.CmdRequest, 2)))
		c.request(2, 0, 6, put(1, 1)) // a retry of the last request, at a backup
		c.deliverAll()
		replies := c.repliesTo(0)
		require.Greater(t, len(replies), before, "off=%v: the retry is answered", off)
		last := replies[len(replies)-1]
		assert.Equal(t, uint64(6), last.Request)
		assert.Equal(t, uint64(6), last.Op, "with the op it committed as")
		if off {
			assert.Equal(t, 0, last.From, "the primary answers the forwarded retry")
			assert.Len(t, c.sent(cmdFrom(vsr.CmdRequest, 2)), forwarded+1, "r2 forwarded it")
		} else {
			assert.Equal(t, 2, last.From, "r2 answers from its table")
			assert.Len(t, c.sent(cmdFrom(vsr.CmdRequest, 2)), forwarded, "r2 forwarded nothing")
		}
	}
}

// TestRetransmitOnHeard: prepares to a backup are lost and the primary's
// retransmits back off; once the backup answers a heartbeat (its link works
// again), the primary re-sends what it lacks at once and starts the
// retransmit timer afresh, instead of waiting out the backed-off period.
// With backoff-reset-off it waits.
func TestRetransmitOnHeard(t *testing.T) {
	for _, off := range []bool{false, true} {
		c := newTestCluster(t, 3, func(o *Options) {
			o.Topology = TopologyStar
			o.Protocol.BackoffResetOff = off
		})
		lose := c.dropIf(cmd(vsr.CmdPrepare))
		c.request(0, 0, 1, put(1, 1))
		c.deliverAll()
		c.tick(100) // retransmits back off to 16 periods
		c.removeFilter(lose)
		before := len(c.sent(cmd(vsr.CmdPrepare)))
		c.tick(int(smallTimeouts().CommitTicks) + 1) // a heartbeat and its answers
		resent := len(c.sent(cmd(vsr.CmdPrepare))) - before
		if off {
			assert.Zero(t, c.info(0).CommitMax, "off: still waiting out the backoff")
		} else {
			assert.Positive(t, resent, "re-sent on the heartbeat's answer")
			assert.Equal(t, uint64(1), c.info(0).CommitMax, "committed within a heartbeat of the link's return")
		}
	}
}
