package replica

import (
	"testing"
	"vsrsim/replica/room"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAbdicateWhenDeaf: a primary that hears no backup for a heartbeat
// timeout while a prepare waits abdicates: its heartbeats are marked, it
// retransmits nothing, and the backups' timeouts run out into a view change.
// With nothing pending it keeps its view (a sparse workload whose heartbeat
// answers are lost must not churn views), unless it runs the source's
// abdication by hearing alone. Abdication off, it keeps holding them.
func TestAbdicateWhenDeaf(t *testing.T) {
	tests := []struct {
		name     string
		protocol Protocol
		pending  bool // a request reaches r0 after the cut
		moved    bool // the backups left view 0
	}{
		{"robust, a prepare pending", Protocol{}, true, true},
		{"robust, nothing pending", Protocol{}, false, false},
		{"source, abdicate by hearing", Protocol{AbdicateByHearing: true}, false, true},
		{"abdication off", Protocol{AbdicationOff: true}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestCluster(t, 3, func(o *Options) { o.Protocol = tt.protocol })
			c.commitRequests(0, 1, 2)
			c.cutLink(1, 0)
			c.cutLink(2, 0)
			if tt.pending {
				c.request(0, 0, 3, put(3, 30))
			}
			hb := smallTimeouts().HeartbeatTicks
			c.tick(int(8 * hb))
			assert.Equal(t, tt.moved, c.info(1).View > 0)
			assert.Equal(t, tt.moved, c.info(2).View > 0)
			if !tt.moved {
				assert.Empty(t, c.eventsOf(0, vsr.EvAbdicate))
				return
			}
			require.NotEmpty(t, c.eventsOf(0, vsr.EvAbdicate))
			marked := c.sent(func(m *vsr.Message) bool { return m.Command == vsr.CmdCommit && m.Commit().Abdicated })
			assert.NotEmpty(t, marked, "an abdicated primary marks its heartbeats")
		})
	}
}

// TestAbdicateOnStalledReplication: no PrepareOk reaches the primary while
// its heartbeats and the backups' answers to them flow. It hears a quorum,
// yet commits nothing: after stallWindowsMax heartbeat timeouts without an ack
// it still lacked it abdicates for good in this view, and hearing does not
// resume it. The source's abdication by hearing never leaves.
func TestAbdicateOnStalledReplication(t *testing.T) {
	for _, tt := range []struct {
		name     string
		protocol Protocol
		moved    bool
	}{
		{"robust", Protocol{}, true},
		{"source, abdicate by hearing", Protocol{AbdicateByHearing: true}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestCluster(t, 3, func(o *Options) { o.Protocol = tt.protocol })
			c.commitRequests(0, 1, 2)
			c.dropIf(func(m *vsr.Message) bool { return m.Command == vsr.CmdPrepareOK && m.To == 0 })
			c.request(0, 0, 3, put(3, 30))
			hb := smallTimeouts().HeartbeatTicks
			c.tick(int((room.StallWindowsMax + 4) * hb))
			assert.Equal(t, tt.moved, c.info(1).View > 0, "the backups left view 0")
			assert.Empty(t, c.eventsOf(0, vsr.EvResume), "hearing a quorum does not cure a stall")
			if tt.moved {
				require.NotEmpty(t, c.eventsOf(0, vsr.EvAbdicate))
			} else {
				assert.Empty(t, c.eventsOf(0, vsr.EvAbdicate))
			}
		})
	}
}

// TestAbdicatedPrimaryResumes: acks that come back within the window end the
// abdication before any backup gave up on the view.
func TestAbdicatedPrimaryResumes(t *testing.T) {
	c := newTestCluster(t, 3, nil)
	c.commitRequests(0, 1, 1)
	c.cutLink(1, 0)
	c.cutLink(2, 0)
	c.request(0, 0, 2, put(2, 20)) // pending: a deaf primary abdicates over it
	c.tickUntil(int(3*smallTimeouts().HeartbeatTicks), func() bool { return len(c.eventsOf(0, vsr.EvAbdicate)) > 0 }, "r0 abdicates")
	c.healLink(1, 0)
	c.healLink(2, 0)
	c.tickUntil(int(smallTimeouts().HeartbeatTicks), func() bool { return len(c.eventsOf(0, vsr.EvResume)) > 0 }, "r0 resumes")
	assert.Equal(t, vsr.StatusNormal, c.info(1).Status)
	c.commitRequests(0, 3, 3)
	c.tickUntil(int(10*smallTimeouts().HeartbeatTicks), func() bool { c.deliverAll(); return c.info(0).CommitMax == 3 }, "it prepares and commits again")
}
