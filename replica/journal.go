package replica

import "vsrsim/vsr"

// ring holds headers in slots indexed by op mod size. An empty slot has a zero
// checksum. It is the storage of the journal, the evicted ring and the adopted
// headers; lookups are by op, never by iteration order. Its slots are made at
// the first put: most runs never fill an evicted or set-aside ring, and a
// ring's 88 KB a replica and restart were most of a run's garbage.
type ring struct {
	size  int
	slots []vsr.Header // nil until the first put: every slot empty
	spare *Spare       // where slots come from and go back to, if set
	// store, on the journal's live ring of a replica on a disk, collects
	// the slots to write back (storage.go); nil otherwise.
	store *storageState
}

func newRing(size int, spare *Spare) ring { return ring{size: size, spare: spare} }

func (r *ring) get(op uint64) (vsr.Header, bool) {
	if r.slots == nil {
		return vsr.Header{}, false
	}
	h := r.slots[op%uint64(len(r.slots))]
	if h.Checksum == 0 || h.Op != op {
		return vsr.Header{}, false
	}
	return h, true
}

// put stores h and returns what it displaced (a different op in the same slot).
func (r *ring) put(h vsr.Header) (vsr.Header, bool) {
	vsr.Assert(vsr.Unowned, h.Checksum != 0, "ring_put_sealed", vsr.DetailStorage)
	if r.slots == nil {
		r.slots = r.spare.takeSlots(r.size)
	}
	i := h.Op % uint64(len(r.slots))
	old := r.slots[i]
	r.slots[i] = h
	r.store.touch(int(i))
	vsr.Assert(vsr.Unowned, r.slots[i].Checksum == h.Checksum, "ring_put_stored", vsr.DetailStorage)
	vsr.Assert(vsr.Unowned, r.slots[i].Op == h.Op, "ring_put_stored", vsr.DetailStorage)
	if old.Checksum != 0 && old.Op != h.Op {
		return old, true
	}
	return vsr.Header{}, false
}

func (r *ring) remove(op uint64) (vsr.Header, bool) {
	if r.slots == nil {
		return vsr.Header{}, false
	}
	i := op % uint64(len(r.slots))
	h := r.slots[i]
	if h.Checksum == 0 || h.Op != op {
		return vsr.Header{}, false
	}
	r.slots[i] = vsr.Header{}
	r.store.touch(int(i))
	vsr.Assert(vsr.Unowned, r.slots[i].Checksum == 0, "ring_remove_empties", vsr.DetailStorage)
	return h, true
}

func (r *ring) clear() {
	if r.store != nil {
		for i := range r.slots {
			if r.slots[i].Checksum != 0 {
				r.store.touch(i)
			}
		}
	}
	clear(r.slots)
}

// journal is a replica's log of prepares (header and body) with bounded
// retention: the last len(slots) ops, and an evicted ring as large again that
// can still serve repair but is never read for commit or votes.
type journal struct {
	live    ring
	evicted ring
	head    uint64 // highest op ever put and not truncated; 0 when empty
	// gone is the entry the last put let go for good (off the evicted ring,
	// or a newer op displaced by an older one); a zero checksum: none.
	gone vsr.Header
	// moved is the entry the last put displaced from the live ring into the
	// evicted one: still served to repairs, but no longer read by a restart
	// or a vote.
	moved vsr.Header
}

func newJournal(slots int, spare *Spare) *journal {
	live := newRing(slots, spare)
	live.slots = spare.takeSlots(slots) // every prepare lands here
	return &journal{live: live, evicted: newRing(slots, spare)}
}

// get returns the prepare at op if the journal holds it.
func (j *journal) get(op uint64) (vsr.Header, bool) { return j.live.get(op) }

// has reports whether the journal holds op with the given checksum.
func (j *journal) has(op, checksum uint64) bool {
	h, ok := j.live.get(op)
	return ok && h.Checksum == checksum
}

// getForRepair also reads the evicted ring.
func (j *journal) getForRepair(op uint64) (vsr.Header, bool) {
	if h, ok := j.live.get(op); ok {
		return h, true
	}
	return j.evicted.get(op)
}

// firstRetained is the lowest op repair could still serve: everything below is
// gone, and a requester must state-transfer.
func (j *journal) firstRetained() uint64 {
	size := uint64(j.live.size)
	if j.head < 2*size {
		return 1
	}
	return j.head - 2*size + 1
}

// put journals h, moving a displaced older op into the evicted ring. An op
// older than the one holding its slot is refused unless displace is set: the
// newer op is then lost from the journal, and a repair that fetched it has to
// fetch it again.
func (j *journal) put(h vsr.Header, displace bool) bool {
	vsr.Assert(vsr.Unowned, h.Op > 0, "journal_put_real_op", vsr.DetailStorage)
	vsr.Assert(vsr.Unowned, h.Checksum != 0, "journal_put_real_op", vsr.DetailStorage)
	j.gone, j.moved = vsr.Header{}, vsr.Header{}
	i := h.Op % uint64(j.live.size)
	if cur := j.live.slots[i]; cur.Checksum != 0 && cur.Op > h.Op && !displace {
		return false
	}
	if old, displaced := j.live.put(h); displaced && old.Op < h.Op {
		j.moved = old
		if lost, out := j.evicted.put(old); out {
			j.gone = lost
		}
	} else if displaced {
		j.gone = old
	}
	vsr.Assert(vsr.Unowned, j.gone.Op != h.Op, "journal_put_keeps_what_it_put", vsr.DetailStorage)
	if h.Op > j.head {
		j.head = h.Op
	}
	// A put then a get round-trips, and the head covers the op.
	g, ok := j.live.get(h.Op)
	vsr.Assert(vsr.Unowned, ok, "journal_put_get_round_trip", vsr.DetailStorage)
	vsr.Assert(vsr.Unowned, g.Checksum == h.Checksum, "journal_put_get_round_trip", vsr.DetailStorage)
	vsr.Assert(vsr.Unowned, j.head >= h.Op, "journal_head_covers_put", vsr.DetailStorage)
	return true
}

// lowestHoldable is the lowest op the live ring can hold beside its head.
func (j *journal) lowestHoldable() uint64 {
	size := uint64(j.live.size)
	if j.head < size {
		return 1
	}
	return j.head - size + 1
}

// truncateAbove removes every op above op and reports each through fn.
func (j *journal) truncateAbove(op uint64, fn func(vsr.Header)) {
	if j.head <= op {
		return
	}
	for o := j.head; o > op; o-- {
		if h, ok := j.live.remove(o); ok {
			fn(h)
		}
		j.evicted.remove(o)
		if j.head-o >= uint64(j.live.size) {
			break
		}
	}
	j.head = op
	_, above := j.live.get(op + 1)
	vsr.Assert(vsr.Unowned, !above, "journal_truncate_leaves_nothing_above", vsr.DetailStorage)
}

// remove drops one op (a view change found it disagrees with the canonical log).
func (j *journal) remove(op uint64) (vsr.Header, bool) {
	h, ok := j.live.remove(op)
	_, still := j.live.get(op)
	vsr.Assert(vsr.Unowned, !still, "journal_remove_removes", vsr.DetailStorage)
	return h, ok
}

func (j *journal) release() {
	j.live.release()
	j.evicted.release()
}

// dropThrough removes every op at or below op, live and evicted: a
// state-transfer install replaces them with the checkpoint.
func (j *journal) dropThrough(op uint64) {
	for _, r := range []*ring{&j.live, &j.evicted} {
		for i := range r.slots {
			if h := r.slots[i]; h.Checksum != 0 && h.Op <= op {
				r.slots[i] = vsr.Header{}
				r.store.touch(i)
			}
		}
	}
	if j.head <= op {
		j.head = 0
	}
	_, held := j.live.get(op)
	vsr.Assert(vsr.Unowned, !held, "journal_drop_through_drops", vsr.DetailStorage)
}

// wipe empties the journal: amnesia.
func (j *journal) wipe() {
	j.live.clear()
	j.evicted.clear()
	j.head = 0
	vsr.Assert(vsr.Unowned, j.firstRetained() == 1, "journal_wipe_empties", vsr.DetailStorage)
}
