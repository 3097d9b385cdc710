package room

import "vsrsim/vsr"

// Reads are the disk reads a replica has in flight to answer repair
// requests, and the answers (batches) waiting on them: one room of a replica
// on a disk (issue 38 item 1). A batch is one RequestPrepares: its
// RepairDone leaves once its last read completes, naming the last op served.
// Reads complete in any order; each names its batch. The lists stay short (a
// request asks for at most vsr.RepairBatchMax ops), so they are searched.
type Reads struct {
	tag     uint64
	pending []PendingRead
	batches []ReadBatch
	// Lost are ops whose body a read gave up to read repair, until repair
	// journals them again (storage-read-repaired).
	Lost []uint64
}

// PendingRead is one read in flight: its tag, its batch, the entry it was
// asked for and the zone it reads.
type PendingRead struct {
	Tag, Batch   uint64
	Op, Checksum uint64
	Zone         vsr.StorageZone
	// Scrub: the scrubber's read, of no batch (AddScrub).
	Scrub bool
}

// ReadBatch is one request's answer in progress: the peer that asked, the
// reads still in flight for it and the last op served so far.
type ReadBatch struct {
	ID   uint64
	Peer int
	Left int
	Last uint64
}

// Batch opens an answer to peer and returns its id; it holds nothing until a
// read is added, and Open drops it if none was.
func (r *Reads) Batch(peer int) uint64 {
	r.tag++
	r.batches = append(r.batches, ReadBatch{ID: r.tag, Peer: peer})
	return r.tag
}

// Add puts a read of (op, checksum) in zone z in flight for batch and
// returns its tag.
func (r *Reads) Add(batch uint64, z vsr.StorageZone, op, checksum uint64) uint64 {
	b := r.batchOf(batch)
	vsr.Assert(vsr.Unowned, b != nil, "read_batch_open", "batch %d", batch)
	r.tag++
	b.Left++
	r.pending = append(r.pending, PendingRead{Tag: r.tag, Batch: batch, Op: op, Checksum: checksum, Zone: z})
	return r.tag
}

// AddScrub puts the scrubber's read of (op, checksum) in zone z in flight,
// outside every batch, and returns its tag.
func (r *Reads) AddScrub(z vsr.StorageZone, op, checksum uint64) uint64 {
	vsr.Assert(vsr.Unowned, op > 0, "scrub_reads_an_op", vsr.DetailHolds)
	r.tag++
	r.pending = append(r.pending, PendingRead{Tag: r.tag, Op: op, Checksum: checksum, Zone: z, Scrub: true})
	return r.tag
}

// Open closes the asking of batch, whose ops served from memory end at last,
// and reports whether reads of it are still in flight; a batch without any
// is dropped (its RepairDone goes now).
func (r *Reads) Open(batch, last uint64) bool {
	k := r.batchIndex(batch)
	vsr.Assert(vsr.Unowned, k >= 0, "read_batch_open", "batch %d", batch)
	b := &r.batches[k]
	b.Last = max(b.Last, last)
	if b.Left > 0 {
		return true
	}
	r.batches = append(r.batches[:k], r.batches[k+1:]...)
	return false
}

// Take removes and returns the read of tag; false if it is unknown (a read
// asked for by an earlier life).
func (r *Reads) Take(tag uint64) (PendingRead, bool) {
	for k := range r.pending {
		if p := r.pending[k]; p.Tag == tag {
			r.pending = append(r.pending[:k], r.pending[k+1:]...)
			return p, true
		}
	}
	return PendingRead{}, false
}

// Peer is the replica that asked for batch's reads.
func (r *Reads) Peer(batch uint64) int {
	b := r.batchOf(batch)
	vsr.Assert(vsr.Unowned, b != nil, "read_batch_open", "batch %d", batch)
	return b.Peer
}

// Finish ends read p; served says its op went out. When it was its batch's
// last read in flight, the batch closes and done reports the peer and the
// last op served, for its RepairDone.
func (r *Reads) Finish(p PendingRead, served bool) (peer int, last uint64, done bool) {
	k := r.batchIndex(p.Batch)
	vsr.Assert(vsr.Unowned, k >= 0, "read_batch_open", "batch %d", p.Batch)
	b := &r.batches[k]
	vsr.Assert(vsr.Unowned, b.Left > 0, "read_batch_counts_its_reads", "batch %d", p.Batch)
	b.Left--
	if served {
		b.Last = max(b.Last, p.Op)
	}
	if b.Left > 0 {
		return 0, 0, false
	}
	peer, last = b.Peer, b.Last
	r.batches = append(r.batches[:k], r.batches[k+1:]...)
	return peer, last, true
}

// InFlight is how many reads are in flight.
func (r *Reads) InFlight() int { return len(r.pending) }

func (r *Reads) batchIndex(id uint64) int {
	for k := range r.batches {
		if r.batches[k].ID == id {
			return k
		}
	}
	return -1
}

func (r *Reads) batchOf(id uint64) *ReadBatch {
	if k := r.batchIndex(id); k >= 0 {
		return &r.batches[k]
	}
	return nil
}

// Scrub is the scrubber's place and its read in flight (replica/repair_serve.go):
// one op's two copies at a time, the prepare's first.
type Scrub struct {
	// Next is the next op to read back.
	Next uint64
	// Tag is the read in flight (0: none).
	Tag uint64
	// PrepareBad says the op's prepare copy did not hold its entry.
	PrepareBad bool
}
