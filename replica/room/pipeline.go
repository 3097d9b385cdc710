package room

import "vsrsim/vsr"

// Pipeline is the primary's prepares in flight, oldest first, each with the
// replicas whose acks it counted: one room of a replica's state (issue 36).
// The primary's handlers (normal.go) take ops in, count acks and commit off
// the front; a view change empties it. Its ops are consecutive, and the
// primary's own ack is in every entry (its fence decides when it counts).
type Pipeline []PipelineEntry

type PipelineEntry struct {
	Header vsr.Header
	Acks   uint16 // bit per replica
	// Fence is how many fenced writes the primary had asked for by the end
	// of the step that took the op into its pipeline: its own ack counts
	// once that many have landed (quorumAcks).
	Fence uint64
}

// Push takes op h in with the primary self's own ack, counted once fence
// fenced writes have landed.
func (p *Pipeline) Push(self int, h vsr.Header, fence uint64) {
	if n := len(*p); n > 0 {
		vsr.Assert(self, h.Op == (*p)[n-1].Header.Op+1, "pipeline_consecutive", "op %d after %d", h.Op, (*p)[n-1].Header.Op)
	}
	*p = append(*p, PipelineEntry{Header: h, Acks: 1 << uint(self), Fence: fence})
}

// First is the oldest op in flight, 0 if none.
func (p Pipeline) First() uint64 {
	if len(p) == 0 {
		return 0
	}
	return p[0].Header.Op
}

// Find returns the entry of (op, checksum), or nil.
func (p Pipeline) Find(op, checksum uint64) *PipelineEntry {
	for i := range p {
		if e := &p[i]; e.Header.Op == op && e.Header.Checksum == checksum {
			return e
		}
	}
	return nil
}

// Forget takes replica i's acks out of every entry: it restarted, and what it
// acked before speaks for a journal that may be gone.
func (p Pipeline) Forget(self, i int) {
	vsr.Assert(self, i != self, "pipeline_forgets_a_peer", vsr.DetailHolds)
	keep := ^uint16(1 << uint(i))
	for k := range p {
		p[k].Acks &= keep
	}
}

// PopFront drops the oldest op (committed).
func (p *Pipeline) PopFront() {
	copy(*p, (*p)[1:])
	*p = (*p)[:len(*p)-1]
}

// Check asserts what a pipeline always holds: the primary's own ack in every
// entry, and consecutive ops.
func (p Pipeline) Check(self int) {
	for k := range p {
		vsr.Assert(self, p[k].Acks&(1<<uint(self)) != 0, "pipeline_holds_own_ack", vsr.DetailHolds)
		vsr.Assert(self, k == 0 || p[k].Header.Op == p[k-1].Header.Op+1, "pipeline_consecutive", "op %d", p[k].Header.Op)
	}
}
