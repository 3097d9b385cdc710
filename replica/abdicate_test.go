package replica

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAbdicateWhenDeaf: a primary that hears no backup for a heartbeat
// timeout abdicates: its heartbeats are marked, it retransmits nothing, and
// the backups' timeouts run out into a view change. Protocol off, it keeps
// holding them.
func TestAbdicateWhenDeaf(t *testing.T) {
	tests := []struct {
		name     string
		protocol Protocol
		moved    bool // the backups left view 0
	}{
		{"robust", Protocol{}, true},
		{"abdication off", Protocol{AbdicationOff: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestCluster(t, 3, func(o *Options) { o.Protocol = tt.protocol })
			c.commitRequests(0, 1, 2)
			c.cutLink(1, 0)
			c.cutLink(2, 0)
			hb := smallTimeouts().HeartbeatTicks
			c.tick(int(4 * hb))
			assert.Equal(t, tt.moved, c.info(1).View > 0)
			assert.Equal(t, tt.moved, c.info(2).View > 0)
			if tt.protocol.AbdicationOff {
				assert.Empty(t, c.eventsOf(0, EvAbdicate))
				return
			}
			require.NotEmpty(t, c.eventsOf(0, EvAbdicate))
			marked := c.sent(func(m *Message) bool { return m.Command == CmdCommit && m.Commit().Abdicated })
			assert.NotEmpty(t, marked, "an abdicated primary marks its heartbeats")
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
	c.tickUntil(int(3*smallTimeouts().HeartbeatTicks), func() bool { return len(c.eventsOf(0, EvAbdicate)) > 0 }, "r0 abdicates")
	c.healLink(1, 0)
	c.healLink(2, 0)
	c.tickUntil(int(smallTimeouts().HeartbeatTicks), func() bool { return len(c.eventsOf(0, EvResume)) > 0 }, "r0 resumes")
	assert.Equal(t, StatusNormal, c.info(1).Status)
	c.commitRequests(0, 2, 3)
	assert.Equal(t, uint64(3), c.info(0).CommitMax, "it prepares and commits again")
}
