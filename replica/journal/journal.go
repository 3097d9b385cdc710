package journal

import "vsrsim/vsr"

// Ring holds headers in slots indexed by op mod size. An empty slot has a zero
// checksum. It is the storage of the journal, the evicted ring and the adopted
// headers; lookups are by op, never by iteration order. Its slots are made at
// the first put: most runs never fill an evicted or set-aside ring, and a
// Ring's 88 KB a replica and restart were most of a run's garbage.
type Ring struct {
	Size  int
	Slots []vsr.Header // nil until the first put: every slot empty
	Spare *SlotPool    // where slots come from and go back to, if set
	// Store, on the journal's live ring of a replica on a disk, collects
	// the slots to write back (storage.go); nil otherwise.
	Store *DirtySlots
}

func NewRing(size int, spare *SlotPool) Ring { return Ring{Size: size, Spare: spare} }

func (r *Ring) Get(op uint64) (vsr.Header, bool) {
	if r.Slots == nil {
		return vsr.Header{}, false
	}
	h := r.Slots[op%uint64(len(r.Slots))]
	if h.Checksum == 0 || h.Op != op {
		return vsr.Header{}, false
	}
	return h, true
}

// Any reports whether the ring holds an op of from..to (at most a ring's
// width of ops is looked at).
func (r *Ring) Any(from, to uint64) bool {
	for op := from; op <= to && op-from < uint64(len(r.Slots)); op++ {
		if _, ok := r.Get(op); ok {
			return true
		}
	}
	return false
}

// Keep puts every entry of src where it goes without displacing a newer
// one (Holds).
func (r *Ring) Keep(src *Ring) {
	for _, h := range src.Slots {
		if h.Checksum != 0 && r.Holds(h.Op) {
			r.Put(h)
		}
	}
}

// Put stores h and returns what it displaced (a different op in the same slot).
func (r *Ring) Put(h vsr.Header) (vsr.Header, bool) {
	vsr.Assert(vsr.Unowned, h.Checksum != 0, "ring_put_sealed", vsr.DetailStorage)
	if r.Slots == nil {
		r.Slots = r.Spare.TakeSlots(r.Size)
	}
	i := h.Op % uint64(len(r.Slots))
	old := r.Slots[i]
	r.Slots[i] = h
	r.Store.Touch(int(i))
	vsr.Assert(vsr.Unowned, r.Slots[i].Checksum == h.Checksum, "ring_put_stored", vsr.DetailStorage)
	vsr.Assert(vsr.Unowned, r.Slots[i].Op == h.Op, "ring_put_stored", vsr.DetailStorage)
	if old.Checksum != 0 && old.Op != h.Op {
		return old, true
	}
	return vsr.Header{}, false
}

func (r *Ring) Remove(op uint64) (vsr.Header, bool) { return r.take(op, true) }

// take empties op's slot; touch says whether the slot is noted for a write
// back (Store).
func (r *Ring) take(op uint64, touch bool) (vsr.Header, bool) {
	if r.Slots == nil {
		return vsr.Header{}, false
	}
	i := op % uint64(len(r.Slots))
	h := r.Slots[i]
	if h.Checksum == 0 || h.Op != op {
		return vsr.Header{}, false
	}
	r.Slots[i] = vsr.Header{}
	if touch {
		r.Store.Touch(int(i))
	}
	vsr.Assert(vsr.Unowned, r.Slots[i].Checksum == 0, "ring_remove_empties", vsr.DetailStorage)
	return h, true
}

func (r *Ring) Clear() {
	if r.Store != nil {
		for i := range r.Slots {
			if r.Slots[i].Checksum != 0 {
				r.Store.Touch(i)
			}
		}
	}
	clear(r.Slots)
}

// Journal is a replica's log of prepares (header and body) with bounded
// retention: the last len(slots) ops, and an evicted ring as large again that
// can still serve repair but is never read for commit or votes.
type Journal struct {
	Live    Ring
	Evicted Ring
	Head    uint64 // highest op ever put and not truncated; 0 when empty
	// Gone is the entry the last put let go for good (off the evicted ring,
	// or a newer op displaced by an older one); a zero checksum: none.
	Gone vsr.Header
	// Moved is the entry the last put displaced from the live ring into the
	// evicted one: still served to repairs, but no longer read by a restart
	// or a vote.
	Moved vsr.Header
}

func NewJournal(slots int, spare *SlotPool) *Journal {
	live := NewRing(slots, spare)
	live.Slots = spare.TakeSlots(slots) // every prepare lands here
	return &Journal{Live: live, Evicted: NewRing(slots, spare)}
}

// Get returns the prepare at op if the journal holds it.
func (j *Journal) Get(op uint64) (vsr.Header, bool) { return j.Live.Get(op) }

// Has reports whether the journal holds op with the given checksum.
func (j *Journal) Has(op, checksum uint64) bool {
	h, ok := j.Live.Get(op)
	return ok && h.Checksum == checksum
}

// GetForRepair also reads the evicted ring.
func (j *Journal) GetForRepair(op uint64) (vsr.Header, bool) {
	if h, ok := j.Live.Get(op); ok {
		return h, true
	}
	return j.Evicted.Get(op)
}

// FirstRetained is the lowest op repair could still serve: everything below is
// gone, and a requester must state-transfer.
func (j *Journal) FirstRetained() uint64 {
	size := uint64(j.Live.Size)
	if j.Head < 2*size {
		return 1
	}
	return j.Head - 2*size + 1
}

// Put journals h, moving a displaced older op into the evicted ring. An op
// older than the one holding its slot is refused unless displace is set: the
// newer op is then lost from the journal, and a repair that fetched it has to
// fetch it again.
func (j *Journal) Put(h vsr.Header, displace bool) bool {
	vsr.Assert(vsr.Unowned, h.Op > 0, "journal_put_real_op", vsr.DetailStorage)
	vsr.Assert(vsr.Unowned, h.Checksum != 0, "journal_put_real_op", vsr.DetailStorage)
	j.Gone, j.Moved = vsr.Header{}, vsr.Header{}
	i := h.Op % uint64(j.Live.Size)
	if cur := j.Live.Slots[i]; cur.Checksum != 0 && cur.Op > h.Op && !displace {
		return false
	}
	if old, displaced := j.Live.Put(h); displaced && old.Op < h.Op {
		j.Moved = old
		if lost, out := j.Evicted.Put(old); out && (lost.Op != h.Op || lost.Checksum != h.Checksum) {
			// The evicted ring shares the live ring's slots, so the op put
			// may push its own older version off it (one a view change
			// truncated above, say: swarm seed 3520017557 from 0xd1ce0000,
			// a repair of op 66 while the evicted ring still held another
			// op 66); an evicted copy of the very entry put is not lost.
			j.Gone = lost
		}
	} else if displaced {
		j.Gone = old // a newer op, displaced on request (Ring.Put reports another op only)
	}
	vsr.Assert(vsr.Unowned, j.Gone.Op != h.Op || j.Gone.Checksum != h.Checksum, "journal_put_keeps_what_it_put", vsr.DetailStorage)
	if h.Op > j.Head {
		j.Head = h.Op
	}
	// A put then a get round-trips, and the head covers the op.
	g, ok := j.Live.Get(h.Op)
	vsr.Assert(vsr.Unowned, ok, "journal_put_get_round_trip", vsr.DetailStorage)
	vsr.Assert(vsr.Unowned, g.Checksum == h.Checksum, "journal_put_get_round_trip", vsr.DetailStorage)
	vsr.Assert(vsr.Unowned, j.Head >= h.Op, "journal_head_covers_put", vsr.DetailStorage)
	return true
}

// LowestHoldable is the lowest op the live ring can hold beside its head.
func (j *Journal) LowestHoldable() uint64 {
	size := uint64(j.Live.Size)
	if j.Head < size {
		return 1
	}
	return j.Head - size + 1
}

// TruncateAbove removes every op above op and reports each through fn.
func (j *Journal) TruncateAbove(op uint64, fn func(vsr.Header)) {
	if j.Head <= op {
		return
	}
	for o := j.Head; o > op; o-- {
		if h, ok := j.Live.Remove(o); ok {
			fn(h)
		}
		j.Evicted.Remove(o)
		if j.Head-o >= uint64(j.Live.Size) {
			break
		}
	}
	j.Head = op
	_, above := j.Live.Get(op + 1)
	vsr.Assert(vsr.Unowned, !above, "journal_truncate_leaves_nothing_above", vsr.DetailStorage)
}

// Remove drops one op (a view change found it disagrees with the canonical log).
func (j *Journal) Remove(op uint64) (vsr.Header, bool) {
	h, ok := j.Live.Remove(op)
	_, still := j.Live.Get(op)
	vsr.Assert(vsr.Unowned, !still, "journal_remove_removes", vsr.DetailStorage)
	return h, ok
}

// Forget drops op from memory and leaves its slot on the disk as it is (no
// blank is written): a body a read found unreadable there, which a restart
// must find faulty, never taken out. Repair's copy is its next write.
func (j *Journal) Forget(op uint64) (vsr.Header, bool) {
	h, ok := j.Live.take(op, false)
	_, still := j.Live.Get(op)
	vsr.Assert(vsr.Unowned, !still, "journal_remove_removes", vsr.DetailStorage)
	return h, ok
}

// Holds reports whether the ring's slot of op is empty or holds an op no
// newer than op: where op may go without displacing a newer one.
func (r *Ring) Holds(op uint64) bool {
	if r.Slots == nil {
		return true
	}
	h := r.Slots[op%uint64(len(r.Slots))]
	return h.Checksum == 0 || h.Op <= op
}

func (j *Journal) Release() {
	j.Live.Release()
	j.Evicted.Release()
}

// DropThrough removes every op at or below op, live and evicted: a
// state-transfer install replaces them with the checkpoint.
func (j *Journal) DropThrough(op uint64) {
	for _, r := range []*Ring{&j.Live, &j.Evicted} {
		for i := range r.Slots {
			if h := r.Slots[i]; h.Checksum != 0 && h.Op <= op {
				r.Slots[i] = vsr.Header{}
				r.Store.Touch(i)
			}
		}
	}
	if j.Head <= op {
		j.Head = 0
	}
	_, held := j.Live.Get(op)
	vsr.Assert(vsr.Unowned, !held, "journal_drop_through_drops", vsr.DetailStorage)
}

// Wipe empties the journal: amnesia.
func (j *Journal) Wipe() {
	j.Live.Clear()
	j.Evicted.Clear()
	j.Head = 0
	vsr.Assert(vsr.Unowned, j.FirstRetained() == 1, "journal_wipe_empties", vsr.DetailStorage)
}

// SlotPool holds the slots of rings released replicas left (recycle.go's
// Spare): not safe for concurrent use, and a nil *slotPool keeps nothing.
type SlotPool struct {
	Slots [][]vsr.Header
}

// SlotPoolMax bounds the rings a pool keeps: a cluster's worth.
const SlotPoolMax = 36

func (s *SlotPool) TakeSlots(size int) []vsr.Header {
	if s != nil {
		for k := len(s.Slots) - 1; k >= 0; k-- {
			if got := s.Slots[k]; len(got) == size {
				s.Slots = append(s.Slots[:k], s.Slots[k+1:]...)
				clear(got)
				return got
			}
		}
	}
	return make([]vsr.Header, size)
}

// Release leaves the ring's slots in its Spare; the ring is empty afterwards.
func (r *Ring) Release() {
	// A ring's slots are made whole at its first put (takeSlots): only a
	// ring's own size goes back to be taken for one of that size.
	vsr.Assert(vsr.Unowned, r.Slots == nil || len(r.Slots) == r.Size, "ring_released_whole", "slots %d size %d",
		uint64(len(r.Slots)), uint64(r.Size))
	if r.Slots != nil && r.Spare != nil && len(r.Spare.Slots) < SlotPoolMax {
		r.Spare.Slots = append(r.Spare.Slots, r.Slots)
	}
	r.Slots = nil
}

// DirtySlots lists the journal slots changed since the last flush (a
// replica on a disk writes them back); marked says which are listed.
type DirtySlots struct {
	List   []int32
	Marked []bool
}

func NewDirtySlots(slots int) DirtySlots {
	return DirtySlots{Marked: make([]bool, slots), List: make([]int32, 0, 16)}
}

// Touch notes that journal slot i changed.
func (s *DirtySlots) Touch(i int) {
	if s != nil && !s.Marked[i] {
		s.Marked[i] = true
		s.List = append(s.List, int32(i))
	}
}
