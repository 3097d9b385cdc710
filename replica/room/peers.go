package room

import (
	"math/bits"
	"vsrsim/vsr"
)

// Peers is what a replica knows of the other replicas, one room of its state
// (issue 36): when it last heard each (recency.go), the incarnation each
// last showed it (normal.go's learnIncarnation), which it heard in the
// current abdication window (abdicate.go), and when it last relayed its view
// to each (relay.go). It never holds anything of the replica itself.
type Peers struct {
	Self int
	N    int
	// LastHeard is one past the tick each peer was last heard (0: never).
	LastHeard [vsr.ReplicasMax]uint64
	// Incarnations is the highest incarnation each peer showed this
	// replica: acks of a lower one speak for a journal that may be gone.
	Incarnations [vsr.ReplicasMax]uint64
	// RelayedAt is the tick this replica last relayed its view's StartView
	// to each peer (0: never).
	RelayedAt [vsr.ReplicasMax]uint64
	// Window is the peers heard, following this view, in the current
	// abdication window.
	Window uint16

	// relays and resetsBackoff: the mechanisms of this room the replica
	// runs (SetMechanisms): both, unless a protocol option models a source
	// system that lacks one.
	relays, resetsBackoff bool
}

// SetMechanisms sets, once at the replica's making, whether it relays its
// view's StartView (to a peer that probes, and its commit point to its
// primary), and whether hearing a peer resets the retries that backed off
// towards it.
func (p *Peers) SetMechanisms(relays, resetsBackoff bool) {
	p.relays, p.resetsBackoff = relays, resetsBackoff
}

// Relays reports whether the replica relays views and commit points.
func (p *Peers) Relays() bool { return p.relays }

// ResetsBackoff reports whether hearing a peer resets backed-off retries.
func (p *Peers) ResetsBackoff() bool { return p.resetsBackoff }

func NewPeers(self, n int) Peers { return Peers{Self: self, N: n} }

// IsPeer reports whether i names another replica of the cluster.
func (p *Peers) IsPeer(i int) bool { return i >= 0 && i < p.N && i != p.Self }

// Hear notes that peer i was heard at tick now, and reports whether it had
// already been heard within recent ticks before.
func (p *Peers) Hear(i int, now, recent uint64) (wasRecent bool) {
	t := now + 1 // 0 means never heard
	was := p.LastHeard[i]
	vsr.Assert(p.Self, was <= t, "heard_in_order", vsr.DetailHolds)
	p.LastHeard[i] = t
	p.CheckPeer(i)
	return was != 0 && t-was <= recent
}

// HeardWithin reports whether peer i was heard within recent ticks of now.
func (p *Peers) HeardWithin(i int, now, recent uint64) bool {
	t := p.LastHeard[i]
	return t != 0 && now+1-t <= recent
}

// CountHeardWithin counts the peers heard within recent ticks of now.
func (p *Peers) CountHeardWithin(now, recent uint64) int {
	k := 0
	for i := 0; i < p.N; i++ {
		if i != p.Self && p.HeardWithin(i, now, recent) {
			k++
		}
	}
	return k
}

// LearnIncarnation records that peer i showed incarnation inc, and reports
// whether it is newer than any it showed before (it restarted since).
func (p *Peers) LearnIncarnation(i int, inc uint64) bool {
	if inc <= p.Incarnations[i] {
		return false
	}
	vsr.Assert(p.Self, p.IsPeer(i), "learn_incarnation_of_a_peer", vsr.DetailHolds)
	p.Incarnations[i] = inc
	p.CheckPeer(i)
	return true
}

// Incarnation is the highest incarnation peer i showed.
func (p *Peers) Incarnation(i int) uint64 { return p.Incarnations[i] }

// MayRelay reports whether a StartView may be relayed to peer i at now: at
// most one per period, as its asks are resent anyway.
func (p *Peers) MayRelay(i int, now, period uint64) bool {
	last := p.RelayedAt[i]
	return last == 0 || now >= last+period
}

// Relayed notes a StartView relayed to peer i at now.
func (p *Peers) Relayed(i int, now uint64) {
	vsr.Assert(p.Self, p.IsPeer(i), "relay_to_a_peer", vsr.DetailHolds)
	p.RelayedAt[i] = now
	p.CheckPeer(i)
}

// HeardInWindow notes peer i following this view in the abdication window.
func (p *Peers) HeardInWindow(i int) {
	vsr.Assert(p.Self, p.IsPeer(i), "window_of_peers", vsr.DetailHolds)
	p.Window |= 1 << uint(i)
}

// InWindow reports whether peer i was heard in the abdication window.
func (p *Peers) InWindow(i int) bool { return p.Window&(1<<uint(i)) != 0 }

// WindowQuorum reports whether the peers heard in the window, with this
// replica, make q.
func (p *Peers) WindowQuorum(q int) bool { return bits.OnesCount16(p.Window|1<<uint(p.Self)) >= q }

// NewWindow starts an abdication window: no peer heard in it yet.
func (p *Peers) NewWindow() { p.Window = 0 }

// CheckPeer asserts, after a change to what is known of i, that i is a peer:
// nothing is ever known of the replica itself or of one outside the cluster.
func (p *Peers) CheckPeer(i int) {
	vsr.Assert(p.Self, p.IsPeer(i), "peers_only_others", "replica %d", uint64(i))
}

// Check asserts the same of every entry and of the window (tests).
func (p *Peers) Check() {
	for i := 0; i < vsr.ReplicasMax; i++ {
		if p.IsPeer(i) {
			continue
		}
		vsr.Assert(p.Self, p.LastHeard[i] == 0 && p.Incarnations[i] == 0 && p.RelayedAt[i] == 0,
			"peers_only_others", "replica %d", uint64(i))
	}
	vsr.Assert(p.Self, p.Window&(1<<uint(p.Self)) == 0 && p.Window>>uint(p.N) == 0, "peers_window_only_others", vsr.DetailHolds)
}
