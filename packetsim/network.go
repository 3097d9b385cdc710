// Package packetsim is the simulated network: it carries opaque packets between
// nodes with random delay, loss, replay, reordering, bounded links, clogs and
// partitions, and scripted hooks for scenarios. It knows nothing of VSR.
//
// Every random choice comes from the one PRNG stream given to New, and only
// Submit and Tick draw from it: Deliver, Drain and every scripted hook draw
// nothing. So the draws of a run depend only on the sequence of Submit and Tick
// calls, and a hook such as SetExtraDelay cannot shift any other packet's fate.
//
// The caller drives time: call Tick(now) once per tick, then Deliver(now).
// Time never goes backwards; every method that takes now asserts it.
package packetsim

import (
	"errors"
	"slices"

	"vsrsim/prng"
	"vsrsim/queue"
)

// queueCapacityHint preallocates the heap so a steady state does not grow it;
// it grows past this on demand, up to QueueLimit.
const queueCapacityHint = 1024

var errNilStream = errors.New("packetsim: the PRNG stream is nil")

// packet is one copy in flight, as the queue holds it: small, so the heap
// moves a few words and never the payload. Its payload and the rest of its
// report wait in the network's slot pool.
type packet struct {
	// link is the index of its directed link in Network.links; to is the
	// receiver. 32 bits each keep a queue item at 32 bytes.
	link, to int32
	slot     int32 // index into Network.slots
	// lost is the loss drawn at submit, applied when the packet falls due.
	lost    bool
	corrupt bool
}

// cut is a bit set of the reasons a directed link is cut.
type cut uint8

const (
	cutRandom cut = 1 << iota
	cutScripted
	cutLinkDown
)

// link is the state of one directed link.
type link struct {
	// inFlight counts its packets queued or parked, for LinkCapacity.
	inFlight  int
	extra     uint64
	cut       cut
	held      bool
	clogged   bool
	clogUntil uint64
}

// waits reports whether packets that fall due on the link park instead of
// arriving. A hold or clog only delays; a cut is checked when they arrive.
func (l *link) waits() bool { return l.held || l.clogged }

type filter[P any] struct {
	id int
	f  func(from, to NodeID, p P) bool
}

// Network is a simulated network carrying payloads of type P. It is not safe
// for concurrent use: a simulation is single-threaded by design.
type Network[P any] struct {
	opts Options
	rng  *prng.Stream
	// weather draws the per-tick faults (partitions, clogs); by default the
	// same stream as rng, see SetWeatherStream.
	weather *prng.Stream

	queue *queue.Queue[packet]
	// pushed mirrors the queue's insertion counter, so Deliver can tell the
	// packets it started with from those its callback submits.
	pushed uint64
	// parked holds, in the order they fell due, packets waiting on a clogged
	// or held link. They count against QueueLimit and LinkCapacity.
	parked []packet
	// pending holds the slots of drops decided at submit (Filter, Capacity),
	// in order, until Deliver or Drain reports them.
	pending []int32
	// slots holds each copy in flight as the Delivery it will be reported
	// as, payload included; free lists the unused ones. A copy takes a slot at
	// submit and gives it back after its report, so the pool stops growing
	// at the most copies ever in flight at once.
	slots []Delivery[P]
	free  []int32

	links    []link // index from*Nodes + to
	nodeDown []bool

	filters      []filter[P]
	filterNextID int

	faults bool
	// now is the latest tick any call has seen.
	now      uint64
	ticked   bool
	lastTick uint64

	// Random partition state machine: partitioned or healed since a tick.
	randomPartitioned bool
	// clogs counts the links clogged now, so a tick without one skips the
	// scan for clogs to open (a sixteenth of a swarm run's time).
	clogs       int
	randomSince uint64
	// sides and order are scratch space for drawing a partition.
	sides []bool
	order []NodeID

	delivering bool
	stats      Stats
	// submitted numbers the Submit calls: packet ids.
	submitted uint64
}

// New returns a network over the given options, drawing from rng. It returns a
// one-line error for nonsense options. Faults start enabled.
func New[P any](opts Options, rng *prng.Stream) (*Network[P], error) {
	return NewFrom[P](opts, rng, nil)
}

// NewFrom is New taking its memory from spare, if not nil: what an earlier
// network left there with Recycle.
func NewFrom[P any](opts Options, rng *prng.Stream, spare *Spare[P]) (*Network[P], error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, errNilStream
	}
	var items []queue.Item[packet]
	if spare != nil {
		items = spare.items
	}
	n := &Network[P]{
		opts:     opts,
		rng:      rng,
		weather:  rng,
		queue:    queue.NewIn(opts.QueueLimit, min(opts.QueueLimit, queueCapacityHint), items),
		links:    make([]link, opts.Nodes*opts.Nodes),
		nodeDown: make([]bool, opts.Nodes),
		faults:   true,
		sides:    make([]bool, opts.Replicas),
		order:    make([]NodeID, opts.Replicas),
	}
	if spare != nil {
		spare.take(n)
	}
	return n, nil
}

// NextPacketID is the id the next Submit gives its packet (ids count Submit
// calls from 1), so a caller can name a packet in its own record of the send.
func (n *Network[P]) NextPacketID() uint64 { return n.submitted + 1 }

// Options returns the options in force, defaults filled in.
func (n *Network[P]) Options() Options { return n.opts }

// Submit sends p from one node to another at tick now. Sending to oneself is
// allowed. The draws, in order: Replay; then for the packet and for its
// replayed copy, the delay, Reorder (and its extra delay), Loss, and, if the
// link is full, the packet to evict. Corrupt, when non-zero, is drawn right
// after Loss. With faults disabled only the delay is
// drawn; a packet a filter refuses draws nothing.
//
// The delivery tick is now + DelayMinTicks + Exponential(DelayMeanTicks) +
// reorder extra + the link's extra delay. The extra delay is added last and
// draws nothing, so it never changes the draws.
func (n *Network[P]) Submit(now uint64, from, to NodeID, p P) {
	n.SubmitCopy(now, from, to, &p)
}

// SubmitCopy is Submit with the payload copied from *p, once, straight into
// the network's pool: a large payload passed by value is copied twice.
func (n *Network[P]) SubmitCopy(now uint64, from, to NodeID, p *P) {
	n.advance(now)
	n.checkNode(from)
	n.checkNode(to)
	n.stats.Sent++
	n.submitted++
	id := n.submitted
	slot := n.take()
	d := &n.slots[slot]
	// Every field, set one by one: the slot is reused, and a literal would
	// copy the payload once more.
	d.Payload = *p
	d.From, d.To, d.Sent, d.ID = from, to, now, id
	d.At, d.Dropped, d.Reason, d.Damaged, d.Duplicate = 0, false, NotDropped, false, false
	pk := packet{link: int32(n.linkIndex(from, to)), to: int32(to), slot: slot}
	for _, f := range n.filters {
		if f.f(from, to, d.Payload) {
			n.dropAtSubmit(now, pk, Filter)
			return
		}
	}
	replay := n.faults && n.rng.Chance(n.opts.Replay)
	n.enqueue(now, pk)
	if replay {
		n.stats.Duplicated++
		twin := n.take()
		n.slots[twin] = n.slots[slot]
		n.slots[twin].Duplicate = true
		n.enqueue(now, packet{link: pk.link, to: pk.to, slot: twin})
	}
}

// take returns an unused slot.
func (n *Network[P]) take() int32 {
	if k := len(n.free); k > 0 {
		s := n.free[k-1]
		n.free = n.free[:k-1]
		return s
	}
	n.slots = append(n.slots, Delivery[P]{})
	return int32(len(n.slots) - 1)
}

// report hands the copy in slot to fn, then frees the slot. The pointer is
// fn's only for the call: a Submit from fn may move the pool, but not the
// slot's contents, which stay where fn sees them until fn returns.
func (n *Network[P]) report(slot int32, fn func(*Delivery[P])) {
	fn(&n.slots[slot])
	n.free = append(n.free, slot)
}

// enqueue draws one copy's delay and loss and queues it, evicting from a full
// link first.
func (n *Network[P]) enqueue(now uint64, pk packet) {
	delay := n.opts.DelayMinTicks + n.rng.Exponential(n.opts.DelayMeanTicks)
	if n.faults && n.rng.Chance(n.opts.Reorder) {
		delay += n.rng.Range(0, n.opts.ReorderMaxTicks)
	}
	pk.lost = n.faults && n.rng.Chance(n.opts.Loss)
	pk.corrupt = n.faults && n.rng.Chance(n.opts.Corrupt)
	l := &n.links[pk.link]
	// A link holds more than its capacity only after SetOptions lowered it;
	// it sheds the excess on its next submit.
	for l.inFlight >= n.opts.LinkCapacity {
		n.evict(now, pk.link)
	}
	assert(n.queue.Len()+len(n.parked) < n.opts.QueueLimit, "QueueLimit exceeded: too many packets in flight")
	l.inFlight++
	n.push(now+delay+l.extra, pk)
}

// evict drops a random in-flight packet of the given link, counting the
// queued packets in heap-index order, then the parked ones in order.
func (n *Network[P]) evict(now uint64, link int32) {
	l := &n.links[link]
	assert(l.inFlight > 0, "evict from an empty link")
	victim := n.rng.IntN(l.inFlight)
	for i := 0; i < n.queue.Len(); i++ {
		pk := n.queue.At(i).Value
		if pk.link != link {
			continue
		}
		if victim == 0 {
			n.queue.RemoveAt(i)
			l.inFlight--
			n.dropAtSubmit(now, pk, Capacity)
			return
		}
		victim--
	}
	for i, pk := range n.parked {
		if pk.link != link {
			continue
		}
		if victim == 0 {
			n.parked = slices.Delete(n.parked, i, i+1)
			l.inFlight--
			n.dropAtSubmit(now, pk, Capacity)
			return
		}
		victim--
	}
	panic("packetsim: link in-flight count does not match its packets")
}

// dropAtSubmit records a drop decided at submit for the next Deliver or Drain.
func (n *Network[P]) dropAtSubmit(now uint64, pk packet, reason DropReason) {
	assert(len(n.pending) < n.opts.QueueLimit, "too many unreported drops: call Deliver or Drain")
	n.stats.Dropped[reason]++
	d := &n.slots[pk.slot]
	d.At, d.Dropped, d.Reason = now, true, reason
	n.pending = append(n.pending, pk.slot)
}

func (n *Network[P]) push(tick uint64, pk packet) {
	n.queue.Push(tick, pk)
	n.pushed++
}

// Deliver reports, first, the drops decided at submit since the last report
// (see Drain), then every packet due at or before now in (tick, submit) order:
// each is delivered, dropped (Partition, Down, Loss), or, on a held or clogged
// link, parked without a report until the link opens. fn may call Submit and
// the hooks; what it submits or releases is reported by the next call, which
// keeps one call bounded. fn must not call Deliver or Drain, nor keep the
// pointer it gets: the Delivery is the network's, and reused after the call.
func (n *Network[P]) Deliver(now uint64, fn func(*Delivery[P])) {
	// Most ticks have nothing to report: that case is checked here, cheap
	// enough to inline, and everything else, misuse included, goes the
	// long way.
	if now >= n.now && !n.delivering && len(n.pending) == 0 && !n.queue.DueBy(now) {
		n.now = now
		return
	}
	n.deliver(now, fn)
}

func (n *Network[P]) deliver(now uint64, fn func(*Delivery[P])) {
	n.advance(now)
	assert(!n.delivering, "Deliver or Drain called from a delivery callback")
	n.delivering = true
	defer func() { n.delivering = false }()

	n.drain(fn)
	last := n.pushed
	for {
		it, ok := n.queue.PopDueUpTo(now, last)
		if !ok {
			return
		}
		pk := it.Value
		l := &n.links[pk.link]
		if l.waits() {
			n.parked = append(n.parked, pk)
			continue
		}
		l.inFlight--
		d := &n.slots[pk.slot]
		d.At = it.Tick
		switch {
		case l.cut != 0:
			d.Reason = Partition
		case n.nodeDown[pk.to]:
			d.Reason = Down
		case pk.lost:
			d.Reason = Loss
		case pk.corrupt && n.opts.CorruptDelivered:
			d.Damaged = true
		case pk.corrupt:
			d.Reason = Corrupt
		}
		if d.Reason != NotDropped {
			d.Dropped = true
			n.stats.Dropped[d.Reason]++
		} else {
			n.stats.Delivered++
		}
		n.report(pk.slot, fn)
	}
}

// Drain reports the drops decided at submit (Filter, Capacity) since the last
// report, in the order they happened, and nothing else. Deliver reports them
// too, before the due packets, so a caller that delivers every tick need not
// call Drain.
func (n *Network[P]) Drain(fn func(*Delivery[P])) {
	assert(!n.delivering, "Deliver or Drain called from a delivery callback")
	n.delivering = true
	defer func() { n.delivering = false }()
	n.drain(fn)
}

// drain reports the pending drops that exist now; drops that fn causes stay
// for the next report.
func (n *Network[P]) drain(fn func(*Delivery[P])) {
	count := len(n.pending)
	if count == 0 {
		return
	}
	for i := 0; i < count; i++ {
		n.report(n.pending[i], fn)
	}
	rest := copy(n.pending, n.pending[count:])
	n.pending = n.pending[:rest]
}

// NextDue returns the earliest tick at which Deliver has something to report:
// the latest tick seen if drops at submit wait to be reported, else the tick of
// the earliest queued packet. Parked packets are not due until their link
// opens.
func (n *Network[P]) NextDue() (uint64, bool) {
	if len(n.pending) > 0 {
		return n.now, true
	}
	it, ok := n.queue.Peek()
	if !ok {
		return 0, false
	}
	return it.Tick, true
}

// Stats returns the counters so far.
func (n *Network[P]) Stats() Stats {
	s := n.stats
	s.InFlight = n.queue.Len() + len(n.parked)
	return s
}

// unpark queues, due at now and in the order they parked, the parked packets
// whose link is neither held nor clogged any more.
func (n *Network[P]) unpark(now uint64) {
	kept := 0
	for _, pk := range n.parked {
		l := &n.links[pk.link]
		if l.waits() {
			n.parked[kept] = pk
			kept++
			continue
		}
		n.push(now, pk)
	}
	clear(n.parked[kept:])
	n.parked = n.parked[:kept]
}

// advance moves the clock to now, asserting it never goes backwards.
func (n *Network[P]) advance(now uint64) {
	assert(now >= n.now, "time went backwards")
	n.now = now
}

func (n *Network[P]) linkIndex(from, to NodeID) int { return from*n.opts.Nodes + to }

func (n *Network[P]) checkNode(id NodeID) {
	assert(id >= 0 && id < n.opts.Nodes, "node id out of range")
}

// nodes returns the id range [lo, hi) that id names: itself, or every replica
// for AnyNode.
func (n *Network[P]) nodes(id NodeID) (lo, hi NodeID) {
	if id == AnyNode {
		return 0, n.opts.Replicas
	}
	n.checkNode(id)
	return id, id + 1
}

func assert(ok bool, msg string) {
	if !ok {
		panic("packetsim: " + msg)
	}
}
