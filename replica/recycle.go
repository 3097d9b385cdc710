package replica

import "vsrsim/vsr"

// Recycling: journal rings and the pipeline are most of what a replica
// allocates. A replica that is done with them (Release) leaves them in a
// Spare for the replicas made next with it: a restart after amnesia, the next
// run of a sweep worker. Memory comes back cleared or emptied, so nothing of
// one replica reaches another, and no behaviour depends on recycling.

// Spare holds memory released replicas left. It is not safe for concurrent
// use: one run at a time uses it. A nil *Spare recycles nothing.
type Spare struct {
	slots     [][]vsr.Header
	pipelines [][]pipelineEntry
}

// spareMax bounds what a Spare keeps of each kind: a cluster's worth.
const spareMax = 4 * ReplicasMax

func (s *Spare) takeSlots(size int) []vsr.Header {
	if s != nil {
		for k := len(s.slots) - 1; k >= 0; k-- {
			if got := s.slots[k]; len(got) == size {
				s.slots = append(s.slots[:k], s.slots[k+1:]...)
				clear(got)
				return got
			}
		}
	}
	return make([]vsr.Header, size)
}

// release leaves the ring's slots in its Spare; the ring is empty afterwards.
func (r *ring) release() {
	// A ring's slots are made whole at its first put (takeSlots): only a
	// ring's own size goes back to be taken for one of that size.
	vsr.Assert(vsr.Unowned, r.slots == nil || len(r.slots) == r.size, "ring_released_whole", "slots %d size %d",
		uint64(len(r.slots)), uint64(r.size))
	if r.slots != nil && r.spare != nil && len(r.spare.slots) < spareMax {
		r.spare.slots = append(r.spare.slots, r.slots)
	}
	r.slots = nil
}

// takePipeline returns an empty pipeline with room for SuffixMax entries
// (viewchange's pipeline_capacity assertion counts on it).
func (s *Spare) takePipeline() []pipelineEntry {
	if s != nil && len(s.pipelines) > 0 {
		p := s.pipelines[len(s.pipelines)-1]
		s.pipelines = s.pipelines[:len(s.pipelines)-1]
		vsr.Assert(vsr.Unowned, cap(p) >= SuffixMax, "spare_pipeline_capacity", "capacity %d", uint64(cap(p)))
		return p[:0]
	}
	return make([]pipelineEntry, 0, SuffixMax)
}

// Release leaves the replica's pipeline, journal and header rings in its
// options' Spare for reuse. The replica must not be used again, nor a Durable
// taken from it under a write-ahead journal (which shares them); a Durable of
// a memory journal holds none of them.
func (r *Replica) Release() {
	if s := r.opts.Spare; s != nil && r.pipeline != nil && len(s.pipelines) < spareMax {
		s.pipelines = append(s.pipelines, r.pipeline[:0])
	}
	r.pipeline = nil
	r.log.journal.release()
	r.log.adopted.release()
	r.log.aside.release()
}

// Release leaves a write-ahead Durable's journal and header rings in their
// Spare; neither it nor a replica restarted from it may be used again.
func (d *Durable) Release() {
	if d.journal != nil {
		d.journal.release()
	}
	if d.view != nil {
		d.view.adopted.release()
		d.view.aside.release()
	}
}
