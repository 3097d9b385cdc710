package replica

import (
	"vsrsim/replica/journal"
	"vsrsim/replica/room"
	"vsrsim/vsr"
)

// Recycling: journal rings and the pipeline are most of what a replica
// allocates. A replica that is done with them (Release) leaves them in a
// Spare for the replicas made next with it: a restart after amnesia, the next
// run of a sweep worker. Memory comes back cleared or emptied, so nothing of
// one replica reaches another, and no behaviour depends on recycling.

// Spare holds memory released replicas left. It is not safe for concurrent
// use: one run at a time uses it. A nil *Spare recycles nothing.
type Spare struct {
	headers   journal.SlotPool
	pipelines [][]room.PipelineEntry
}

// pool is where the spare's header rings come from (nil: none).
func (s *Spare) pool() *journal.SlotPool {
	if s == nil {
		return nil
	}
	return &s.headers
}

// spareMax bounds what a Spare keeps of each kind: a cluster's worth.
const spareMax = 4 * vsr.ReplicasMax

// takePipeline returns an empty pipeline with room for SuffixMax entries
// (viewchange's pipeline_capacity assertion counts on it).
func (s *Spare) takePipeline() []room.PipelineEntry {
	if s != nil && len(s.pipelines) > 0 {
		p := s.pipelines[len(s.pipelines)-1]
		s.pipelines = s.pipelines[:len(s.pipelines)-1]
		vsr.Assert(vsr.Unowned, cap(p) >= vsr.SuffixMax, "spare_pipeline_capacity", "capacity %d", uint64(cap(p)))
		return p[:0]
	}
	return make([]room.PipelineEntry, 0, vsr.SuffixMax)
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
	r.log.journal.Release()
	r.log.adopted.Release()
	r.log.aside.Release()
	r.log.unplaced.Release()
	// Nothing of this replica's log stays reachable from it: a use after
	// Release would read another replica's slots.
	vsr.Assert(r.id, r.log.journal.Live.Slots == nil && r.log.adopted.Slots == nil && r.log.aside.Slots == nil && r.log.unplaced.Slots == nil,
		"released_rings_empty", vsr.DetailHolds)
}

// Release leaves a write-ahead Durable's journal and header rings in their
// Spare; neither it nor a replica restarted from it may be used again.
func (d *Durable) Release() {
	if d.journal != nil {
		d.journal.Release()
	}
	if d.view != nil {
		d.view.adopted.Release()
		d.view.aside.Release()
	}
}
