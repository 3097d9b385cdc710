package packetsim

import "fmt"

// DropReason says why a packet was not delivered. The zero value, NotDropped,
// goes with a delivered packet.
type DropReason uint8

const (
	// NotDropped marks a delivered packet.
	NotDropped DropReason = iota
	// Loss: the random loss drawn at submit.
	Loss
	// Partition: a random or scripted partition, or SetLinkDown, cut the link
	// when the packet fell due.
	Partition
	// Capacity: evicted at submit because its link was full.
	Capacity
	// Filter: a filter refused it at submit.
	Filter
	// Down: its destination was marked down (crashed) when it fell due.
	Down
	// Corrupt: the packet arrived damaged, failed its checksum at the
	// receiver and was discarded there; drawn at submit like Loss.
	Corrupt
	reasonCount
)

var reasonNames = [reasonCount]string{"none", "loss", "partition", "capacity", "filter", "crashed", "corrupt"}

func (r DropReason) String() string {
	if r < reasonCount {
		return reasonNames[r]
	}
	return fmt.Sprintf("DropReason(%d)", uint8(r))
}

// Delivery is one packet's outcome, handed to the callback of Deliver or Drain.
type Delivery[P any] struct {
	From, To NodeID
	Payload  P
	// Sent is the tick of the Submit.
	Sent uint64
	// At is the tick the packet fell due (or, for a drop at submit, the submit
	// tick). A packet that waited on a clogged or held link falls due again at
	// the tick the link opened.
	At uint64
	// Dropped is true when the packet is not delivered; Reason says why.
	Dropped bool
	Reason  DropReason
	// Damaged marks a delivered packet that the network corrupted, under
	// Options.CorruptDelivered: the receiver must check what it got.
	Damaged bool
	// Duplicate marks the second copy made by Replay.
	Duplicate bool
	// ID is the packet's number, NextPacketID at its Submit; a replayed copy
	// shares its original's.
	ID uint64
}

// Stats counts what the network did. Every packet ends in exactly one of
// Delivered, Dropped or InFlight: Sent + Duplicated == Delivered +
// DroppedTotal() + InFlight.
type Stats struct {
	// Sent counts Submit calls, Duplicated the replayed copies they made.
	Sent       uint64
	Duplicated uint64
	Delivered  uint64
	// Dropped counts drops by reason, indexed by DropReason. A drop at submit
	// counts when it happens, before Deliver or Drain reports it.
	Dropped [reasonCount]uint64
	// InFlight is the packets queued or waiting on a clogged or held link.
	InFlight int
	// Clogs counts random link clogs, Partitions random partitions, Heals
	// random heals.
	Clogs      uint64
	Partitions uint64
	Heals      uint64
}

// DroppedTotal sums Dropped over all reasons.
func (s Stats) DroppedTotal() uint64 {
	var total uint64
	for _, c := range s.Dropped {
		total += c
	}
	return total
}
