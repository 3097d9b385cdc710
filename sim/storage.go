package sim

import (
	"fmt"
	"slices"

	"vsrsim/disksim"
	"vsrsim/prng"
	"vsrsim/replica"
)

// The harness side of storage (Config.Storage; docs/storage.md): each replica's
// disk, the writes a replica asked for in flight on it, and the messages held
// until those writes land. A replica's messages wait for every fenced write it
// asked for up to when it sent them, as a process that syncs before it sends;
// a superblock write starts only once every earlier write of its replica has
// landed, as a superblock written after the data it describes. A crash ends
// the writes in flight (the disk may tear them) and the messages still held:
// they never left.

// disks is the cluster's storage: nil when Storage is off.
type disks struct {
	atlas *disksim.Atlas
	r     []diskOf
	all   []*disksim.Disk // r's disks, for the atlas's cluster-wide checks
	// completions is Advance's buffer, reused.
	completions []disksim.Completion
	// faults counts the faults traced so far, of every disk.
	faults int
	// aimed draws the aimed faults (Storage.AimedCorrupt, AimedMisdirect).
	aimed *prng.Stream
	// nextDue is no later than the earliest tick a write falls due on any
	// disk: most ticks, nothing does, and tickDisks returns at once.
	nextDue uint64
	// ackedBy holds, for the last ackRing ops, which replicas' PrepareOks
	// for it left: where an aimed fault finds an op only a bare quorum
	// holds.
	ackedBy [ackRing]ackedOp
}

const ackRing = 256

type ackedOp struct {
	op      uint64
	backups uint16
}

// diskOf is one replica's disk and what is in flight on it.
type diskOf struct {
	disk *disksim.Disk
	// fenced maps a fenced write in flight to its fence number; fences
	// counts the fenced writes the running replica asked for.
	fenced map[disksim.WriteID]uint64
	fences uint64
	open   []uint64 // fence numbers asked for and not landed, ascending
	// inFlight are the ids of writes submitted and not landed, ascending,
	// and slotOf the zone and slot of each, for busy.
	inFlight []disksim.WriteID
	slotOf   map[disksim.WriteID]slotKey
	// busy counts the writes in flight per slot: a disk may land two writes
	// to one slot in either order, so a second waits for the first.
	busy map[slotKey]int
	// deferred are writes waiting, in the order asked for: a journal write
	// for its slot to be free, a superblock batch (every copy of one
	// version) for every earlier write to land. Once one waits, every
	// later write waits behind it.
	deferred []deferredWrite
	// bufs are the byte buffers of writes that waited, free for the next:
	// writes wait often (a slot busy, a superblock behind data), and a copy
	// each would be most of a run's allocations.
	bufs    [][]byte
	batches uint64
	batchIn map[disksim.WriteID]uint64
	// held are messages waiting for their fence.
	held []heldMessage
	// ownAcks are the primary's acks of its own prepares waiting for their
	// writes to land (reportOwnAck).
	ownAcks []ownAck
	// traced counts this disk's faults already traced.
	traced int
	// promised is the highest view the replica acted in on the wire, and
	// promisedLogView the highest log_view.
	promised, promisedLogView uint64
	// ledger is what its disk should hold and what landed
	// (storage_ledger.go).
	ledger ledger
	// acked is the op of the last PrepareOk that left it (0: none).
	acked uint64
}

type deferredWrite struct {
	zone  disksim.Zone
	slot  int
	data  []byte
	fence uint64 // 0: not fenced
	batch uint64 // superblock copies of one version share a batch; 0 for the journal
}

type slotKey struct {
	zone disksim.Zone
	slot int
}

type heldMessage struct {
	m     replica.Message
	fence uint64
}

func newDisks(cfg *Config, seed uint64) (*disks, error) {
	s := &cfg.Storage
	geo := cfg.diskGeometry()
	atlas, err := disksim.NewAtlas(disksim.AtlasOptions{
		Replicas: cfg.Replicas, Quorum: replica.QuorumReplication(cfg.Replicas), Geometry: geo, Off: s.AtlasOff,
	}, prng.New(seed, prng.StreamDiskAtlas))
	if err != nil {
		return nil, err
	}
	ds := &disks{atlas: atlas, r: make([]diskOf, cfg.Replicas), aimed: prng.New(seed, prng.StreamDiskAimed)}
	for i := range ds.r {
		d, err := disksim.New(disksim.Options{
			Geometry: geo, Replica: i, Atlas: atlas,
			WriteLatencyMinTicks: s.LatencyMinTicks, WriteLatencyMeanTicks: s.LatencyMeanTicks,
			ReadLatent: s.ReadFault, WriteDamaged: s.WriteFault, WriteMisdirected: s.Misdirect,
			WriteLost: s.Lost, CrashTorn: s.Torn,
		}, prng.New(seed, prng.StreamDiskBase+prng.StreamID(i)))
		if err != nil {
			return nil, err
		}
		ds.all = append(ds.all, d)
		ds.r[i] = diskOf{disk: d, fenced: make(map[disksim.WriteID]uint64),
			slotOf: make(map[disksim.WriteID]slotKey), busy: make(map[slotKey]int), batchIn: make(map[disksim.WriteID]uint64),
			ledger: newLedger(cfg.JournalSlots)}
	}
	return ds, nil
}

// writes hands a step's writes to replica i's disk, in the order asked for:
// each starts now if it may (mayStart), or waits in line.
func (c *Cluster) writes(i int) {
	d := &c.disks.r[i]
	out := &c.out
	batch := uint64(0)
	for k := range out.Writes {
		w := &out.Writes[k]
		fence := uint64(0)
		if w.Fenced {
			d.fences++
			fence = d.fences
			d.open = append(d.open, fence)
		}
		dw := deferredWrite{zone: disksim.Zone(w.Zone), slot: w.Slot, fence: fence}
		if w.Zone == replica.ZoneSuperblock {
			if batch == 0 {
				d.batches++
				batch = d.batches
			}
			dw.batch = batch
		}
		if d.mayStart(&dw, len(d.deferred)) {
			c.submitWrite(d, &dw, out.Bytes(w))
			continue
		}
		dw.data = append(d.takeBuf(), out.Bytes(w)...)
		d.deferred = append(d.deferred, dw)
	}
}

// takeBuf returns an empty buffer for a waiting write's bytes.
func (d *diskOf) takeBuf() []byte {
	if k := len(d.bufs); k > 0 {
		b := d.bufs[k-1]
		d.bufs = d.bufs[:k-1]
		return b
	}
	return make([]byte, 0, replica.PrepareRecordBytes)
}

// mayStart reports whether a write may go to the disk now, with the first
// ahead writes of the waiting line before it. A journal write waits for a
// write to its slot in flight or waiting ahead (a disk may land two writes
// to one slot in either order), a header copy also for its slot's prepare
// (the prepare lands first, so a header copy never names an op newer than
// the prepare beside it unless the disk lost a write), and both for a
// superblock batch waiting ahead. A superblock copy waits for every write
// ahead of it and in flight but the copies of its own version.
func (d *diskOf) mayStart(w *deferredWrite, ahead int) bool {
	if w.batch != 0 {
		if ahead > 0 {
			return false
		}
		for _, id := range d.inFlight {
			if d.batchOf(id) != w.batch {
				return false
			}
		}
		return true
	}
	if d.busy[slotKey{w.zone, w.slot}] > 0 {
		return false
	}
	if w.zone == disksim.ZoneHeaders && d.busy[slotKey{disksim.ZonePrepares, w.slot}] > 0 {
		return false
	}
	for k := 0; k < ahead; k++ {
		if a := &d.deferred[k]; a.batch != 0 || a.slot == w.slot {
			return false
		}
	}
	return true
}

// submitWrite puts a write on the disk and notes what waits for it.
func (c *Cluster) submitWrite(d *diskOf, w *deferredWrite, data []byte) {
	id := d.disk.Write(c.now, w.zone, w.slot, data)
	if due, ok := d.disk.NextDue(); ok && due < c.disks.nextDue {
		c.disks.nextDue = due
	}
	d.inFlight = append(d.inFlight, id)
	c.noteSubmitted(d, id, w.zone, w.slot, data)
	key := slotKey{w.zone, w.slot}
	d.slotOf[id] = key
	d.busy[key]++
	if w.batch != 0 {
		d.batchIn[id] = w.batch
	}
	if w.fence != 0 {
		d.fenced[id] = w.fence
	}
}

// batchOf is the superblock batch of a write in flight, 0 for the journal.
func (d *diskOf) batchOf(id disksim.WriteID) uint64 { return d.batchIn[id] }

// send puts replica i's message on the network, or holds it for its fence.
func (c *Cluster) send(i int, m *replica.Message) {
	if c.disks == nil {
		c.submit(m)
		return
	}
	d := &c.disks.r[i]
	if len(d.open) == 0 && len(d.held) == 0 {
		c.sent(d, m)
		return
	}
	d.held = append(d.held, heldMessage{m: *m, fence: d.fences})
}

// sent submits a message that left, noting the view it acts in.
func (c *Cluster) sent(d *diskOf, m *replica.Message) {
	if promises(m) {
		d.promised = max(d.promised, m.View)
	}
	d.promisedLogView = max(d.promisedLogView, actedLogView(m))
	if m.Command == replica.CmdPrepareOK && m.From < c.cfg.Replicas {
		c.aimMisdirect(m.From, m.PrepareOk().Op)
	}
	c.submit(m)
}

// promises reports whether a message acts in its view: a vote for it, or
// normal work within it. A wish to leave a view (a leave StartViewChange)
// names a view the sender may never have been in, and promises nothing.
func promises(m *replica.Message) bool {
	switch m.Command {
	case replica.CmdPrepare, replica.CmdPrepareOK, replica.CmdCommit, replica.CmdCommitOK,
		replica.CmdDoViewChange, replica.CmdStartView:
		return true
	case replica.CmdStartViewChange:
		return !m.StartViewChange().Leave
	}
	return false
}

// actedLogView is the log_view a message shows its sender acted in: a
// Prepare, PrepareOk or Commit is sent in Normal status in its view; a
// DoViewChange and a StartView name the sender's log_view. 0 for the rest.
func actedLogView(m *replica.Message) uint64 {
	switch m.Command {
	case replica.CmdPrepare, replica.CmdPrepareOK, replica.CmdCommit:
		return m.View
	case replica.CmdDoViewChange:
		return m.DoViewChange().LogView
	case replica.CmdStartView:
		return m.StartView().LogView
	}
	return 0
}

// tickDisks lands the writes due on every disk, starts the superblock writes
// that were waiting for them, and lets go of the messages whose writes landed.
func (c *Cluster) tickDisks() {
	if c.disks == nil || c.now < c.disks.nextDue {
		return
	}
	c.disks.nextDue = ^uint64(0)
	for i := range c.disks.r {
		d := &c.disks.r[i]
		due, ok := d.disk.NextDue()
		if ok && due > c.now {
			c.disks.nextDue = min(c.disks.nextDue, due)
		}
		if !ok || due > c.now {
			continue
		}
		c.disks.completions = d.disk.Advance(c.now, c.disks.completions[:0])
		for _, w := range c.disks.completions {
			c.landed(d, w.ID)
		}
		c.startDeferred(d)
		c.releaseHeld(d)
		if r := c.replicas[i]; r != nil {
			r.Landed(d.landedFences())
			c.releaseOwnAcks(i, d)
		}
		c.traceFaults(i)
		if due, ok := d.disk.NextDue(); ok {
			c.disks.nextDue = min(c.disks.nextDue, due)
		}
	}
}

// landed forgets a write that landed and, if fenced, its fence.
func (c *Cluster) landed(d *diskOf, id disksim.WriteID) {
	if k, ok := slices.BinarySearch(d.inFlight, id); ok {
		d.inFlight = slices.Delete(d.inFlight, k, k+1)
	}
	if key, ok := d.slotOf[id]; ok {
		d.noteLanded(id, key)
		delete(d.slotOf, id)
		if d.busy[key]--; d.busy[key] == 0 {
			delete(d.busy, key)
		}
	}
	delete(d.batchIn, id)
	if f, ok := d.fenced[id]; ok {
		delete(d.fenced, id)
		if k, ok := slices.BinarySearch(d.open, f); ok {
			d.open = slices.Delete(d.open, k, k+1)
		}
	}
}

// startDeferred starts the waiting writes that may start now, in order.
func (c *Cluster) startDeferred(d *diskOf) {
	kept := 0
	for k := range d.deferred {
		w := d.deferred[k]
		if d.mayStart(&w, kept) {
			c.submitWrite(d, &w, w.data)
			d.bufs = append(d.bufs, w.data[:0])
			continue
		}
		d.deferred[kept] = w
		kept++
	}
	d.deferred = d.deferred[:kept]
}

// landedFences is how many of the fenced writes the replica asked for since
// it started have landed, counted from the first: every fence below the
// first one open.
func (d *diskOf) landedFences() uint64 {
	if len(d.open) == 0 {
		return d.fences
	}
	return d.open[0] - 1
}

// releaseHeld sends the held messages whose fence has landed, in order.
func (c *Cluster) releaseHeld(d *diskOf) {
	k := 0
	for ; k < len(d.held); k++ {
		if len(d.open) > 0 && d.open[0] <= d.held[k].fence {
			break
		}
		c.sent(d, &d.held[k].m)
	}
	d.held = d.held[:copy(d.held, d.held[k:])]
}

// crashDisk ends what was in flight on replica i's disk: the disk decides the
// fate of each pending write; deferred writes and held messages never left.
func (c *Cluster) crashDisk(i int) {
	if c.disks == nil {
		return
	}
	d := &c.disks.r[i]
	d.disk.Crash(c.now)
	c.noteCrashed(d)
	c.aimCorrupt(i)
	if n := len(d.held); n > 0 {
		c.Note(fmt.Sprintf("r%d crashed with %d messages waiting for its disk", i, n))
	}
	for k := range d.deferred {
		d.bufs = append(d.bufs, d.deferred[k].data[:0])
	}
	d.held, d.deferred, d.open, d.inFlight = d.held[:0], d.deferred[:0], d.open[:0], d.inFlight[:0]
	// The restarted replica counts its fenced writes from one again (Landed);
	// its own acks still waiting for their writes were never made.
	d.fences = 0
	d.ownAcks = d.ownAcks[:0]
	clear(d.fenced)
	clear(d.slotOf)
	clear(d.busy)
	clear(d.batchIn)
	c.traceFaults(i)
}

// readBack is the ReadFunc of replica i's restart: every read goes to its
// disk now (and may draw a latent error).
func (c *Cluster) readBack(i int) replica.ReadFunc {
	d := c.disks.r[i].disk
	return func(z replica.StorageZone, slot int) ([]byte, bool) {
		return d.Read(c.now, disksim.Zone(z), slot)
	}
}

// traceFaults traces the faults replica i's disk injected since last time.
// A fault on a down replica's disk re-examines its disk for the oracle at
// once (a live replica holds its ops and its superblock in memory until it
// crashes: its disk matters again at its crash and its restart).
func (c *Cluster) traceFaults(i int) {
	d := &c.disks.r[i]
	faults := d.disk.Faults()
	n := d.traced
	for ; d.traced < len(faults); d.traced++ {
		c.disks.faults++
		c.Note("disk " + faults[d.traced].String())
	}
	if d.traced > n && c.replicas[i] == nil {
		c.examineDisk(i)
	}
}

// StorageFaults is the number of faults the disks injected so far.
func (c *Cluster) StorageFaults() int {
	if c.disks == nil {
		return 0
	}
	return c.disks.faults
}

// coreDisksClean stops the random faults of the core's disks as the liveness
// phase begins, as the VOPR does: the core must converge, and faults it no
// longer meets cannot excuse it. Scripted faults still apply.
func (c *Cluster) coreDisksClean(core []int) {
	if c.disks == nil {
		return
	}
	for _, i := range core {
		c.disks.r[i].disk.SetFaultsEnabled(false)
	}
}

// errNoDisk is the one-line error of a storage action in a run without disks.
var errNoDisk = fmt.Errorf("no disks: storage actions need storage on (a storage setting) and a write-ahead journal")

// CorruptEntry damages the copies of op's journal slot on replica i's disk
// (which may be down): the header ring's, the prepare's, or both. The damage
// lasts until the slot is written again.
func (c *Cluster) CorruptEntry(i int, op uint64, which EntryCopy) error {
	if c.disks == nil {
		return errNoDisk
	}
	d := c.disks.r[i].disk
	slot := int(op % uint64(c.cfg.JournalSlots))
	if which&EntryHeader != 0 {
		d.Corrupt(c.now, disksim.ZoneHeaders, slot)
	}
	if which&EntryBody != 0 {
		d.Corrupt(c.now, disksim.ZonePrepares, slot)
	}
	c.traceFaults(i)
	return nil
}

// CorruptSuperblock damages every superblock copy of replica i's disk but the
// last, which a script may then leave for a torn or later write to spoil.
func (c *Cluster) CorruptSuperblock(i int) error {
	if c.disks == nil {
		return errNoDisk
	}
	for s := 0; s < diskSuperblocks-1; s++ {
		c.disks.r[i].disk.Corrupt(c.now, disksim.ZoneSuperblock, s)
	}
	c.traceFaults(i)
	return nil
}

// MisdirectEntry arms replica i's disk so that the next write of op's prepare
// lands on target's slot instead, leaving op's slot as it was.
func (c *Cluster) MisdirectEntry(i int, op, target uint64) error {
	if c.disks == nil {
		return errNoDisk
	}
	n := uint64(c.cfg.JournalSlots)
	if op%n == target%n {
		return fmt.Errorf("misdirect op %d -> op %d: both ops share a journal slot", op, target)
	}
	c.disks.r[i].disk.Misdirect(disksim.ZonePrepares, int(op%n), int(target%n))
	return nil
}

// aimMisdirect notes op as replica i's last acknowledged op and, with chance
// AimedMisdirect and where the atlas allows, arms its disk to land the next
// op's prepare on op's slot.
func (c *Cluster) aimMisdirect(i int, op uint64) {
	d := &c.disks.r[i]
	d.acked = op
	a := &c.disks.ackedBy[op%ackRing]
	if a.op != op {
		*a = ackedOp{op: op}
	}
	a.backups |= 1 << uint(i)
	if !c.disks.aimed.Chance(c.cfg.Storage.AimedMisdirect) || d.disk.Armed() >= disksim.ArmedMax/2 {
		return
	}
	if a.backups != 1<<uint(i) {
		// Another backup holds op already: the copy this would spoil is
		// not one the cluster may be left without.
		return
	}
	n := uint64(c.cfg.JournalSlots)
	from, to := int((op+1)%n), int(op%n)
	if c.disks.atlas.Off() || (c.disks.atlas.MayFault(i, disksim.ZonePrepares, from) && c.disks.atlas.MayFault(i, disksim.ZonePrepares, to)) {
		d.disk.Misdirect(disksim.ZonePrepares, from, to)
		c.Note(fmt.Sprintf("aimed misdirect r%d: op %d's prepare will land on op %d's slot", i, op+1, op))
	}
}

// aimCorrupt, with chance AimedCorrupt and where the atlas allows, damages
// both copies of the slot of the op below replica i's last acknowledged one
// as it crashes.
func (c *Cluster) aimCorrupt(i int) {
	d := &c.disks.r[i]
	if d.acked < 2 || !c.disks.aimed.Chance(c.cfg.Storage.AimedCorrupt) {
		return
	}
	op := c.aimedOp(i)
	slot := int(op % uint64(c.cfg.JournalSlots))
	a := c.disks.atlas
	if !a.Off() && (!a.MayFault(i, disksim.ZoneHeaders, slot) || !a.MayFault(i, disksim.ZonePrepares, slot)) {
		return
	}
	c.Note(fmt.Sprintf("aimed corrupt r%d: op %d, acknowledged just before its last ack", i, op))
	d.disk.Corrupt(c.now, disksim.ZoneHeaders, slot)
	d.disk.Corrupt(c.now, disksim.ZonePrepares, slot)
}

// aimedOp is the op an aimed corruption of replica i hits: below its last
// acknowledged op (so its head stays one it can describe), preferring, within
// the last 32, one that no other backup acknowledged, so that its primary and
// this replica may be the only copies: the copy a restart must not vote away.
func (c *Cluster) aimedOp(i int) uint64 {
	d := &c.disks.r[i]
	bit := uint16(1) << uint(i)
	for op := d.acked - 1; op >= 1 && op+32 >= d.acked; op-- {
		if a := &c.disks.ackedBy[op%ackRing]; a.op == op && a.backups == bit {
			return op
		}
	}
	return d.acked - 1
}
