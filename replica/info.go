package replica

import (
	"math/bits"
	"vsrsim/vsr"
)

// Info is a read-only snapshot of a replica's state for checkers and reports.
type Info struct {
	ID           int
	Status       vsr.Status
	View         uint64
	LogView      uint64
	Sequencer    uint64
	CommitMin    uint64
	CommitMax    uint64
	JournalHead  uint64
	AckHead      uint64
	Incarnation  uint64
	Checkpoint   uint64
	Transferring bool
	TransferOp   uint64 // commit_op of the pinned state-transfer offer, 0 if none
	Primary      bool
	Pipeline     int

	// The first uncommitted op of a primary's pipeline and its acks, and the
	// first later op that already holds a replication quorum (if any).
	PipelineHead          uint64
	PipelineHeadAcks      int
	PipelineLaterQuorum   bool
	PipelineLaterQuorumOp uint64
}

// Info returns the replica's current state.
func (r *Replica) Info() Info {
	i := Info{
		ID:           r.id,
		Status:       r.status,
		View:         r.view,
		LogView:      r.logView,
		Sequencer:    r.wm.sequencer,
		CommitMin:    r.wm.commitMin,
		CommitMax:    r.wm.commitMax,
		JournalHead:  r.log.journal.Head,
		AckHead:      r.dur.ackHead,
		Incarnation:  r.dur.incarnation,
		Checkpoint:   r.dur.sb.Checkpoint.Op,
		Transferring: r.transfer.active,
		Primary:      r.status == vsr.StatusNormal && r.isPrimary(),
		Pipeline:     len(r.pipeline),
	}
	if r.transfer.pinned {
		// An offer is pinned only by a transfer under way, and a transfer
		// that ends or starts afresh is replaced whole.
		vsr.Assert(r.id, r.transfer.active, "info_pinned_transfer_active", "offer %d", r.transfer.commitOp)
		i.TransferOp = r.transfer.commitOp
	}
	if len(r.pipeline) > 0 && i.Primary {
		i.PipelineHead = r.pipeline[0].Header.Op
		i.PipelineHeadAcks = bits.OnesCount16(r.pipeline[0].Acks)
		vsr.Assert(r.id, i.PipelineHeadAcks <= r.n, "info_pipeline_acks_within_cluster", "acks %d", uint64(i.PipelineHeadAcks))
		for _, e := range r.pipeline[1:] {
			if bits.OnesCount16(e.Acks) >= vsr.QuorumReplication(r.n) {
				vsr.Assert(r.id, e.Header.Op > i.PipelineHead, "info_later_quorum_above_head", "op %d head %d", e.Header.Op, i.PipelineHead)
				i.PipelineLaterQuorum = true
				i.PipelineLaterQuorumOp = e.Header.Op
				break
			}
		}
	}
	return i
}

// Holds reports whether the replica can still produce op with this checksum:
// journaled, or already folded into its applied state.
func (r *Replica) Holds(op, checksum uint64) bool {
	if op <= r.wm.commitMin {
		return true
	}
	if h, ok := r.log.aside.Get(op); ok && h.Checksum == checksum {
		return true
	}
	return r.log.journal.Has(op, checksum)
}

// Journaled reports whether the journal holds op (any checksum).
func (r *Replica) Journaled(op uint64) bool {
	_, ok := r.log.journal.Get(op)
	return ok
}

// DurableView is the view in the superblock.
func (d Durable) DurableView() uint64 { return d.Superblock.View }

// UnsureHollow calls fn for each op above commit_min that this replica may
// have acknowledged before it lost its journal and whose body it lacks: its
// votes neither nack nor copy such an op, so a view change needs another
// replica that holds the body.
func (r *Replica) UnsureHollow(fn func(op, checksum uint64)) {
	for op := r.wm.commitMin + 1; op <= r.log.unsureTop; op++ {
		if h, ok := r.log.adopted.Get(op); ok && !r.log.journal.Has(op, h.Checksum) {
			fn(op, h.Checksum)
		}
	}
}

// StateChecksum is the checksum of the replica's state machine: two replicas
// at the same commit point must agree on it.
func (r *Replica) StateChecksum() uint64 { return r.sm.Checksum() }
