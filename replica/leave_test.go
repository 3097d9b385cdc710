package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
)

// TestLeaveNeedsAQuorum: a backup that cannot hear its primary asks to leave
// the view but, alone, moves nobody, itself included; with the window off
// (the source's protocol) it climbs and drags the working pair along. Two
// backups that both lost the primary leave together.
func TestLeaveNeedsAQuorum(t *testing.T) {
	tests := []struct {
		name     string
		protocol Protocol
		deaf     []int // backups that stop hearing r0
		moved    bool  // r1 left view 0
	}{
		{"one deaf backup", Protocol{}, []int{2}, false},
		{"one deaf backup, window off", Protocol{SVCQuorumOff: true}, []int{2}, true},
		{"both backups deaf", Protocol{}, []int{1, 2}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestCluster(t, 3, func(o *Options) { o.Protocol = tt.protocol })
			c.commitRequests(0, 1, 1)
			for _, b := range tt.deaf {
				c.cutLink(0, b)
			}
			c.tick(int(4 * smallTimeouts().HeartbeatTicks))
			assert.Equal(t, tt.moved, c.info(1).View > 0)
			if !tt.protocol.SVCQuorumOff {
				asks := c.sent(func(m *vsr.Message) bool {
					return m.Command == vsr.CmdStartViewChange && m.From == 2 && m.StartViewChange().Leave
				})
				assert.NotEmpty(t, asks, "r2 asks to leave")
			}
			if !tt.moved {
				assert.Equal(t, uint64(0), c.info(2).View, "alone, r2 stays in view 0")
				c.commitRequests(0, 2, 2)
				assert.Equal(t, uint64(2), c.info(0).CommitMax, "the working pair keeps committing")
			}
		})
	}
}

// TestLeaveRequestsExpire: two requests to leave count only within one window.
func TestLeaveRequestsExpire(t *testing.T) {
	window := smallTimeouts().ViewChangeStatusTick
	tests := []struct {
		name  string
		gap   uint64
		moved bool
	}{
		{"within the window", window / 2, true},
		{"after the window", window + 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// r1 of 5 (view-change quorum 3) hears two others ask; it does
			// not ask itself, and its primary keeps heartbeating it.
			c := newTestCluster(t, 5, nil)
			out := &vsr.Output{}
			r := c.r(1)
			ask := func(from int) {
				r.Step(msg(vsr.StartViewChange{Leave: true}, from, 1, 0), out)
			}
			ask(2)
			ask(3)
			for k := uint64(0); k < tt.gap; k++ {
				r.Tick(out)
				if k%3 == 0 {
					r.Step(msg(vsr.Commit{}, 0, 1, 0), out)
				}
			}
			ask(4)
			assert.Equal(t, tt.moved, r.Info().View > 0)
		})
	}
}
