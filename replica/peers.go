package replica

import (
	"math/bits"
	"vsrsim/vsr"
)

// peers is what a replica knows of the other replicas, one room of its state
// (issue 36): when it last heard each (recency.go), the incarnation each
// last showed it (normal.go's learnIncarnation), which it heard in the
// current abdication window (abdicate.go), and when it last relayed its view
// to each (relay.go). It never holds anything of the replica itself.
type peers struct {
	self int
	n    int
	// lastHeard is one past the tick each peer was last heard (0: never).
	lastHeard [vsr.ReplicasMax]uint64
	// incarnations is the highest incarnation each peer showed this
	// replica: acks of a lower one speak for a journal that may be gone.
	incarnations [vsr.ReplicasMax]uint64
	// relayedAt is the tick this replica last relayed its view's StartView
	// to each peer (0: never).
	relayedAt [vsr.ReplicasMax]uint64
	// window is the peers heard, following this view, in the current
	// abdication window.
	window uint16
}

func newPeers(self, n int) peers { return peers{self: self, n: n} }

// isPeer reports whether i names another replica of the cluster.
func (p *peers) isPeer(i int) bool { return i >= 0 && i < p.n && i != p.self }

// hear notes that peer i was heard at tick now, and reports whether it had
// already been heard within recent ticks before.
func (p *peers) hear(i int, now, recent uint64) (wasRecent bool) {
	t := now + 1 // 0 means never heard
	was := p.lastHeard[i]
	vsr.Assert(p.self, was <= t, "heard_in_order", vsr.DetailHolds)
	p.lastHeard[i] = t
	p.checkPeer(i)
	return was != 0 && t-was <= recent
}

// heardWithin reports whether peer i was heard within recent ticks of now.
func (p *peers) heardWithin(i int, now, recent uint64) bool {
	t := p.lastHeard[i]
	return t != 0 && now+1-t <= recent
}

// countHeardWithin counts the peers heard within recent ticks of now.
func (p *peers) countHeardWithin(now, recent uint64) int {
	k := 0
	for i := 0; i < p.n; i++ {
		if i != p.self && p.heardWithin(i, now, recent) {
			k++
		}
	}
	return k
}

// learnIncarnation records that peer i showed incarnation inc, and reports
// whether it is newer than any it showed before (it restarted since).
func (p *peers) learnIncarnation(i int, inc uint64) bool {
	if inc <= p.incarnations[i] {
		return false
	}
	vsr.Assert(p.self, p.isPeer(i), "learn_incarnation_of_a_peer", vsr.DetailHolds)
	p.incarnations[i] = inc
	p.checkPeer(i)
	return true
}

// incarnation is the highest incarnation peer i showed.
func (p *peers) incarnation(i int) uint64 { return p.incarnations[i] }

// mayRelay reports whether a StartView may be relayed to peer i at now: at
// most one per period, as its asks are resent anyway.
func (p *peers) mayRelay(i int, now, period uint64) bool {
	last := p.relayedAt[i]
	return last == 0 || now >= last+period
}

// relayed notes a StartView relayed to peer i at now.
func (p *peers) relayed(i int, now uint64) {
	vsr.Assert(p.self, p.isPeer(i), "relay_to_a_peer", vsr.DetailHolds)
	p.relayedAt[i] = now
	p.checkPeer(i)
}

// heardInWindow notes peer i following this view in the abdication window.
func (p *peers) heardInWindow(i int) {
	vsr.Assert(p.self, p.isPeer(i), "window_of_peers", vsr.DetailHolds)
	p.window |= 1 << uint(i)
}

// inWindow reports whether peer i was heard in the abdication window.
func (p *peers) inWindow(i int) bool { return p.window&(1<<uint(i)) != 0 }

// windowQuorum reports whether the peers heard in the window, with this
// replica, make q.
func (p *peers) windowQuorum(q int) bool { return bits.OnesCount16(p.window|1<<uint(p.self)) >= q }

// newWindow starts an abdication window: no peer heard in it yet.
func (p *peers) newWindow() { p.window = 0 }

// checkPeer asserts, after a change to what is known of i, that i is a peer:
// nothing is ever known of the replica itself or of one outside the cluster.
func (p *peers) checkPeer(i int) {
	vsr.Assert(p.self, p.isPeer(i), "peers_only_others", "replica %d", uint64(i))
}

// check asserts the same of every entry and of the window (tests).
func (p *peers) check() {
	for i := 0; i < vsr.ReplicasMax; i++ {
		if p.isPeer(i) {
			continue
		}
		vsr.Assert(p.self, p.lastHeard[i] == 0 && p.incarnations[i] == 0 && p.relayedAt[i] == 0,
			"peers_only_others", "replica %d", uint64(i))
	}
	vsr.Assert(p.self, p.window&(1<<uint(p.self)) == 0 && p.window>>uint(p.n) == 0, "peers_window_only_others", vsr.DetailHolds)
}
