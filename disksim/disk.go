// Package disksim is the simulated disk of one replica: zones of slots of
// sectors holding opaque bytes, writes that complete after a drawn latency,
// and a disk that lies (latent read errors, damaged, misdirected and lost
// writes, writes torn by a crash), within a fault atlas drawn once per
// cluster. It knows nothing of VSR.
//
// Every random choice comes from the one PRNG stream given to New (the
// replica's prng.Disk stream). Write draws the write's latency; Advance
// draws the faults of the writes it completes; Read draws a latent error;
// Crash draws the fate of the pending writes. Every scripted injection
// (Corrupt, Misdirect, Lose) and every query draws nothing. With every
// fault ratio zero (and CrashWritten, not a fault, zero too) the disk draws
// only latencies, and none with a zero latency mean.
//
// The disk owns no clock and no loop: the caller passes now to every call,
// asks NextDue for the next completion and calls Advance(now) to collect the
// completions due, as events of its own loop. Time never goes backwards;
// every method that takes now asserts it.
package disksim

import (
	"fmt"
	"slices"

	"vsrsim/prng"
	"vsrsim/queue"
)

// damageByte fills a damaged sector as Read returns it: never all zeroes,
// so damage cannot pass for a slot never written.
const damageByte = 0xDB

// WriteID names a write: ids count Write calls from 1.
type WriteID uint64

// Completion reports a write the disk says is done. A lost or misdirected
// write is reported the same way: the disk lies.
type Completion struct {
	ID   WriteID
	Zone Zone
	Slot int
	// Tick is the tick the write fell due.
	Tick uint64
}

// pendingWrite is a write in flight: its bytes wait in the buffer pool.
type pendingWrite struct {
	id   WriteID
	zone Zone
	slot int32
	buf  int32
}

// slotState is what the disk knows of a slot beyond its bytes.
type slotState struct {
	// damaged counts its damaged sectors.
	damaged int32
	// stale: the last write reported done here did not land here (lost or
	// misdirected away). foreign: it holds a write meant for another slot.
	stale, foreign bool
	// latentDrawn: a read drew its latent error since its bytes last
	// changed. A latent error is the media's, not the reader's: a slot
	// read again draws no new one, so how often it is read (a scrubber)
	// does not change how often it goes bad.
	latentDrawn bool
	// gen counts the writes that reached the slot: a decay drawn for an
	// older one (rotEntry) finds the slot rewritten and does nothing.
	gen uint32
}

// rotEntry is a decay waiting for its tick: a sector of a slot, drawn when
// the slot's write of generation gen landed.
type rotEntry struct {
	zone   Zone
	slot   int32
	sector int32
	gen    uint32
}

// rotLimit bounds the decays waiting: one per landed write at most.
const rotLimit = 1 << 22

// Disk is one replica's simulated disk. It is not safe for concurrent use: a
// simulation is single-threaded by design.
type Disk struct {
	opts  Options
	rng   *prng.Stream
	atlas *Atlas
	lay   layout

	// media holds every sector's bytes, zone after zone; damaged marks the
	// sectors that read damaged, slots the state of each slot; landed the
	// slots any write ever reached, so a read of one never written (most of
	// a journal, early in a run) returns zeroes without copying them.
	media   []byte
	damaged []bool
	slots   []slotState
	landed  []bool
	zeroes  []byte

	pending *queue.Queue[pendingWrite]
	// rot holds the decays drawn (Options.RotMeanTicks), by tick; nil
	// without rot.
	rot *queue.Queue[rotEntry]
	// bufs holds each pending write's bytes; free lists the unused ones. The
	// pool stops growing at the most writes ever in flight at once.
	bufs [][]byte
	free []int32
	// readBuf is where Read and Peek assemble a slot.
	readBuf []byte

	armed []armedFault
	// lose are pending writes a caller asked to lose (LoseWrite); spoil
	// the ones it asked to land damaged (DamageWrite).
	lose   []WriteID
	spoil  []WriteID
	record []Fault

	faults  bool
	now     uint64
	written WriteID
}

// New returns a disk over the given options, drawing from rng, every byte
// zero and no fault yet. It returns a one-line error for nonsense options.
// Faults start enabled.
func New(opts Options, rng *prng.Stream) (*Disk, error) { return NewFrom(opts, rng, nil) }

// NewFrom is New on the memory of old, a finished disk that is never used
// again (nil: none), where its layout fits: a simulator's worker then clears
// the slots a run wrote instead of allocating a disk's media for every run
// (most of what a run on disks allocated). The disk is the one New returns:
// the same draws, every byte zero, no fault.
func NewFrom(opts Options, rng *prng.Stream, old *Disk) (*Disk, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, errNilStream
	}
	lay := newLayout(opts.Geometry)
	d := &Disk{
		opts:    opts,
		rng:     rng,
		atlas:   opts.Atlas,
		lay:     lay,
		armed:   make([]armedFault, 0, armedMax),
		faults:  true,
		pending: queue.NewIn(opts.PendingMax, min(opts.PendingMax, 64), old.pendingItems()),
	}
	if opts.RotMeanTicks > 0 {
		d.rot = queue.NewIn(rotLimit, 64, old.rotItems())
	}
	if old == nil || old.lay != lay {
		d.media = make([]byte, lay.sectorsTotal*lay.sectorSize)
		d.damaged = make([]bool, lay.sectorsTotal)
		d.slots = make([]slotState, lay.slotsTotal)
		d.landed = make([]bool, lay.slotsTotal)
		d.zeroes = make([]byte, lay.slotBytesMax)
		d.readBuf = make([]byte, lay.slotBytesMax)
		return d, nil
	}
	d.takeMedia(old)
	return d, nil
}

// Options returns the options in force, defaults filled in.
func (d *Disk) Options() Options { return d.opts }

// Replica is the id of the replica the disk belongs to.
func (d *Disk) Replica() int { return d.opts.Replica }

// AtlasOff reports whether faults may land anywhere: no atlas, or one that
// is off.
func (d *Disk) AtlasOff() bool { return d.atlas == nil || d.atlas.Off() }

// SetFaultsEnabled turns the random faults on or off (a liveness phase turns
// them off); scripted injections apply either way. It draws nothing.
func (d *Disk) SetFaultsEnabled(on bool) { d.faults = on }

// StopRot drops every decay still waiting and draws no more (a liveness
// phase: the stall is judged on what stood when it began), and returns how
// many it dropped (some may be for slots rewritten since). It draws nothing.
func (d *Disk) StopRot() int {
	if d.rot == nil {
		return 0
	}
	n := d.rot.Len()
	d.rot = nil
	return n
}

// FaultsEnabled reports whether the random faults are on.
func (d *Disk) FaultsEnabled() bool { return d.faults }

// Write submits a write of data to slot of zone z at tick now and returns its
// id. data (at most the slot's bytes) is copied, so the caller may reuse it;
// the rest of the slot is written with zeroes. The write falls due at now +
// WriteLatencyMinTicks + Exponential(WriteLatencyMeanTicks), its only draw;
// until then reads see the slot's old bytes.
func (d *Disk) Write(now uint64, z Zone, slot int, data []byte) WriteID {
	d.advance(now)
	d.lay.check(z, slot)
	lo, hi := d.lay.bytes(z, slot)
	expect(len(data) <= hi-lo, "a write larger than its slot")
	expect(d.pending.Len() < d.opts.PendingMax, "PendingMax exceeded: too many writes in flight")
	b := d.take()
	buf := d.bufs[b][:hi-lo]
	n := copy(buf, data)
	clear(buf[n:])
	d.written++
	delay := d.opts.WriteLatencyMinTicks + d.rng.Exponential(d.opts.WriteLatencyMeanTicks)
	d.pending.Push(now+delay, pendingWrite{id: d.written, zone: z, slot: int32(slot), buf: b})
	return d.written
}

// take returns an unused write buffer.
func (d *Disk) take() int32 {
	if k := len(d.free); k > 0 {
		b := d.free[k-1]
		d.free = d.free[:k-1]
		return b
	}
	d.bufs = append(d.bufs, make([]byte, d.lay.slotBytesMax))
	return int32(len(d.bufs) - 1)
}

// Pending is the number of writes in flight.
func (d *Disk) Pending() int { return d.pending.Len() }

// NextDue returns the tick the earliest pending write falls due, or a
// drawn decay comes (Options.RotMeanTicks), if any: Advance then lands the
// one or puts the other on the media, at its own tick.
func (d *Disk) NextDue() (uint64, bool) {
	it, ok := d.pending.Peek()
	if d.rot != nil {
		if r, due := d.rot.Peek(); due && (!ok || r.Tick < it.Tick) {
			return r.Tick, true
		}
	}
	return it.Tick, ok
}

// Advance completes every write due at or before now, in the order they fall
// due (ties in the order submitted), and appends their completions to out.
// Each completed write draws its faults, in order: WriteLost; if not lost,
// WriteMisdirected (and the slot it lands on); if not misdirected,
// WriteDamaged (and the sector). A fault is drawn only where the atlas allows
// it, and not at all while faults are disabled. A scripted fault waiting for
// the write takes the place of the draws.
func (d *Disk) Advance(now uint64, out []Completion) []Completion {
	d.advance(now)
	for {
		it, ok := d.pending.PopDue(now)
		if !ok {
			return out
		}
		w := it.Value
		d.complete(now, w)
		d.free = append(d.free, w.buf)
		out = append(out, Completion{ID: w.id, Zone: w.zone, Slot: int(w.slot), Tick: it.Tick})
	}
}

// complete puts a due write on the media, with whatever fault befalls it.
func (d *Disk) complete(now uint64, w pendingWrite) {
	z, slot := w.zone, int(w.slot)
	data := d.bufs[w.buf][:d.lay.slotBytes(z)]
	if k := slices.Index(d.lose, w.id); k >= 0 {
		d.lose = slices.Delete(d.lose, k, k+1)
		d.applyArmed(now, w, armedFault{kind: FaultWriteLost, zone: z, slot: slot, target: NoSlot}, data)
		return
	}
	if a, ok := d.takeArmed(z, slot); ok {
		d.applyArmed(now, w, a, data)
		return
	}
	if k := slices.Index(d.spoil, w.id); k >= 0 {
		d.spoil = slices.Delete(d.spoil, k, k+1)
		d.landDamaged(now, w, data)
		return
	}
	if !d.faults || !d.mayFault(z, slot) {
		d.land(z, slot, data)
		return
	}
	if d.rng.Chance(d.opts.WriteLost) {
		d.slots[d.lay.slotIndex(z, slot)].stale = true
		d.note(newFault(now, FaultWriteLost, z, slot, w.id))
		return
	}
	if d.lay.slots[z] > 1 && d.rng.Chance(d.opts.WriteMisdirected) {
		target := d.rng.IntN(d.lay.slots[z] - 1)
		if target >= slot {
			target++
		}
		if d.mayFaultBoth(z, slot, target) {
			d.misdirect(z, slot, target, data)
			f := newFault(now, FaultWriteMisdirected, z, slot, w.id)
			f.Target = target
			d.note(f)
			d.drawRot(now, z, target)
			return
		}
	}
	d.land(z, slot, data)
	if d.rng.Chance(d.opts.WriteDamaged) {
		sector := d.rng.IntN(d.lay.sectors[z])
		d.damage(z, slot, sector)
		d.noteSector(newFault(now, FaultWriteDamaged, z, slot, w.id), sector)
	}
	d.drawRot(now, z, slot)
}

// land writes a whole slot: its sectors hold data, undamaged, and the slot
// holds what was meant for it.
func (d *Disk) land(z Zone, slot int, data []byte) {
	d.landed[d.lay.slotIndex(z, slot)] = true
	lo, _ := d.lay.bytes(z, slot)
	copy(d.media[lo:], data)
	s, e := d.lay.sectorRange(z, slot)
	clear(d.damaged[s:e])
	st := &d.slots[d.lay.slotIndex(z, slot)]
	*st = slotState{gen: st.gen + 1}
}

// drawRot draws when a sector of the write that just reached slot decays,
// with rot on: after the write's own fault draws, so a disk without rot
// draws as before. A lost write reaches no slot and draws none (the slot
// keeps its older bytes and their decay); a misdirected one draws for the
// slot it reached.
func (d *Disk) drawRot(now uint64, z Zone, slot int) {
	if d.rot == nil {
		return
	}
	delay := 1 + d.rng.Exponential(d.opts.RotMeanTicks)
	sector := d.rng.IntN(d.lay.sectors[z])
	gen := d.slots[d.lay.slotIndex(z, slot)].gen
	d.rot.Push(now+delay, rotEntry{zone: z, slot: int32(slot), sector: int32(sector), gen: gen})
}

// decay puts on the media every decay due by now, each at its own tick: a
// slot rewritten since its decay was drawn is left alone.
func (d *Disk) decay(now uint64) {
	for d.rot != nil {
		it, ok := d.rot.PopDue(now)
		if !ok {
			return
		}
		r := it.Value
		z, slot := r.zone, int(r.slot)
		if !d.faults || d.slots[d.lay.slotIndex(z, slot)].gen != r.gen {
			continue // rewritten since, or faults off (a liveness phase)
		}
		s, _ := d.lay.sectorRange(z, slot)
		if !d.damaged[s+int(r.sector)] {
			d.damage(z, slot, int(r.sector))
			d.noteSector(newFault(it.Tick, FaultRot, z, slot, 0), int(r.sector))
		}
	}
}

// misdirect lands data meant for slot on target instead.
func (d *Disk) misdirect(z Zone, slot, target int, data []byte) {
	d.land(z, target, data)
	d.slots[d.lay.slotIndex(z, target)].foreign = true
	d.slots[d.lay.slotIndex(z, slot)].stale = true
}

// damage marks one sector of a slot damaged.
func (d *Disk) damage(z Zone, slot, sector int) {
	s, _ := d.lay.sectorRange(z, slot)
	if !d.damaged[s+sector] {
		d.damaged[s+sector] = true
		d.slots[d.lay.slotIndex(z, slot)].damaged++
	}
}

// Read returns the bytes of slot of zone z as the disk reads them now, and
// whether a sector of it read damaged (a damaged sector reads as damageByte
// throughout). Stale or misdirected bytes read clean: only a checksum over
// the record's identity tells them apart. The bytes are the disk's, valid
// until the next call; the caller copies what it keeps. With ReadLatent
// non-zero, faults enabled and the atlas allowing it, the first read of a
// slot since its bytes last changed draws whether a sector of it is a latent
// error (and which): once per write, however often the slot is read.
func (d *Disk) Read(now uint64, z Zone, slot int) ([]byte, bool) {
	d.advance(now)
	d.lay.check(z, slot)
	if st := &d.slots[d.lay.slotIndex(z, slot)]; d.faults && !d.opts.ReadLatent.Zero() && !st.latentDrawn && d.mayFault(z, slot) {
		st.latentDrawn = true
		if !d.rng.Chance(d.opts.ReadLatent) {
			return d.Peek(z, slot)
		}
		sector := d.rng.IntN(d.lay.sectors[z])
		s, _ := d.lay.sectorRange(z, slot)
		if !d.damaged[s+sector] {
			d.damage(z, slot, sector)
			d.noteSector(newFault(now, FaultLatentRead, z, slot, 0), sector)
		}
	}
	return d.Peek(z, slot)
}

// Peek is Read without its draw: what the slot reads as now. For the
// harness and tests; it draws nothing and changes nothing.
func (d *Disk) Peek(z Zone, slot int) ([]byte, bool) {
	d.lay.check(z, slot)
	i := d.lay.slotIndex(z, slot)
	if !d.landed[i] && d.slots[i].damaged == 0 {
		return d.zeroes[:d.lay.slotBytes(z)], false
	}
	lo, hi := d.lay.bytes(z, slot)
	buf := d.readBuf[:hi-lo]
	copy(buf, d.media[lo:hi])
	if d.slots[d.lay.slotIndex(z, slot)].damaged == 0 {
		return buf, false
	}
	s, e := d.lay.sectorRange(z, slot)
	size := d.lay.sectorSize
	for i := s; i < e; i++ {
		if d.damaged[i] {
			at := (i - s) * size
			fill(buf[at : at+size])
		}
	}
	return buf, true
}

func fill(b []byte) {
	for i := range b {
		b[i] = damageByte
	}
}

// Crash ends every pending write at tick now, in the order they would have
// fallen due: with faults enabled and CrashTorn drawn, the write is torn (a
// drawn count k of its first sectors hold the new bytes, sector k is damaged,
// the rest keep their old bytes); otherwise, with CrashWritten drawn, it
// lands whole; otherwise it is lost. No completion is reported for any of
// them. A torn write is outside the atlas (the caller never saw it complete),
// but with the atlas on it never damages a replica's last intact superblock
// copy: such a write is lost instead. Damage on the media survives a crash;
// so do scripted faults still waiting for their write.
func (d *Disk) Crash(now uint64) {
	d.advance(now)
	d.lose, d.spoil = d.lose[:0], d.spoil[:0] // the writes they named end here
	for {
		it, ok := d.pending.Pop()
		if !ok {
			return
		}
		w := it.Value
		z, slot := w.zone, int(w.slot)
		data := d.bufs[w.buf][:d.lay.slotBytes(z)]
		d.free = append(d.free, w.buf)
		if d.faults && d.mayTear(z, slot) && d.rng.Chance(d.opts.CrashTorn) {
			k := d.rng.IntN(d.lay.sectors[z])
			d.tear(z, slot, k, data)
			d.noteSector(newFault(now, FaultCrashTorn, z, slot, w.id), k)
			continue
		}
		if d.rng.Chance(d.opts.CrashWritten) {
			d.land(z, slot, data)
		}
	}
}

// tear writes the first k sectors of data and damages sector k.
func (d *Disk) tear(z Zone, slot, k int, data []byte) {
	d.landed[d.lay.slotIndex(z, slot)] = true
	lo, _ := d.lay.bytes(z, slot)
	size := d.lay.sectorSize
	copy(d.media[lo:lo+k*size], data[:k*size])
	s, _ := d.lay.sectorRange(z, slot)
	st := &d.slots[d.lay.slotIndex(z, slot)]
	st.latentDrawn = false
	st.gen++ // a decay drawn for what it held no longer applies
	for i := s; i < s+k; i++ {
		if d.damaged[i] {
			d.damaged[i] = false
			st.damaged--
		}
	}
	d.damage(z, slot, k)
}

// mayFault reports whether a fault may land on slot of zone z: with the
// atlas on, where it allows one and, on the superblock, only while another
// copy stays intact. Anywhere with the atlas off.
func (d *Disk) mayFault(z Zone, slot int) bool {
	return d.mayFaultBoth(z, slot, slot)
}

// mayFaultBoth reports whether one fault may hit both slot and other of zone
// z (a misdirected write spoils the slot it left and the slot it lands on).
func (d *Disk) mayFaultBoth(z Zone, slot, other int) bool {
	if d.AtlasOff() {
		return true
	}
	r := d.opts.Replica
	if !d.atlas.MayFault(r, z, slot) || !d.atlas.MayFault(r, z, other) {
		return false
	}
	return z != ZoneSuperblock || d.superblockSpare(slot, other)
}

// mayTear reports whether a crash may tear a write to slot of zone z: anywhere
// with the atlas off; with it on, anywhere but a replica's last intact
// superblock copy. The atlas's chunks do not bind it.
func (d *Disk) mayTear(z Zone, slot int) bool {
	return d.AtlasOff() || z != ZoneSuperblock || d.superblockSpare(slot, slot)
}

// SuperblockKept reports whether some superblock copy is undamaged: what the
// atlas promises a crash leaves (the harness asserts it).
func (d *Disk) SuperblockKept() bool { return d.superblockSpare(-1, -1) }

// superblockSpare reports whether a superblock copy other than a and b is
// intact now: what keeps a fault on a and b from leaving none.
func (d *Disk) superblockSpare(a, b int) bool {
	for c := 0; c < d.lay.slots[ZoneSuperblock]; c++ {
		if c != a && c != b && !d.Damaged(ZoneSuperblock, c) {
			return true
		}
	}
	return false
}

// Damaged reports whether slot of zone z is faulty now: a sector reads
// damaged, or the slot does not hold the last write reported done there
// (lost or misdirected away), or it holds a write meant for another slot.
// It draws nothing. A latent error already drawn is not one: that a read
// spent the slot's draw and found it clean is no fault.
func (d *Disk) Damaged(z Zone, slot int) bool {
	d.lay.check(z, slot)
	st := &d.slots[d.lay.slotIndex(z, slot)]
	return st.damaged > 0 || st.stale || st.foreign
}

// advance moves the disk's clock to now, which never goes back, and puts
// the decays due by then on the media.
func (d *Disk) advance(now uint64) {
	if now < d.now {
		panic(fmt.Sprintf("disksim: time went back from %d to %d", d.now, now))
	}
	d.now = now
	d.decay(now)
}
