package sim

import (
	"fmt"
	"slices"

	"vsrsim/disksim"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/vsr"
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
	// aimed draws the aimed faults (Storage.AimedCorrupt, AimedMisdirect);
	// quiet the corruption aimed at a disk with no fault yet (aimQuiet).
	quiet *prng.Stream
	aimed *prng.Stream
	// nextDue is no later than the earliest tick a write falls due on any
	// disk: most ticks, nothing does, and tickDisks returns at once.
	nextDue uint64
	// ackedBy holds, for the last ackRing ops, which replicas' PrepareOks
	// for it left: where an aimed fault finds an op only a bare quorum
	// holds.
	ackedBy [ackRing]ackedOp
	// second is the second events aimed at a fault (storage_second.go).
	second secondState
	// readLatency draws the latency of the reads replicas make in their
	// life (disk_reads.go).
	readLatency *prng.Stream
	// readBuf holds the bytes of the read a replica is handed.
	readBuf []byte
	// rewrite draws the lost writes aimed at a rewrite (nil: none aimed);
	// rewriteBoth whether such a loss takes the header copy's rewrite too;
	// rewriteSpoil, where it does not, whether that rewrite lands damaged.
	rewrite, rewriteBoth, rewriteSpoil *prng.Stream
	// superblockLoss draws the aimed superblock losses (nil: none aimed);
	// superblockLost: one took place (one a run).
	superblockLoss *prng.Stream
	superblockLost bool
	// staleAsk is the peer steered at a stale entry (storage_stale_ask.go).
	staleAsk staleAskState
}

// diskOf is one replica's disk and what is in flight on it.
type diskOf struct {
	disk *disksim.Disk
	// fences counts the fenced writes the running replica asked for.
	fences uint64
	open   []uint64 // fence numbers asked for and not landed, ascending
	// inFlight are the writes submitted and not landed, in id order
	// (ascending), each with its slot, journal entry, batch and fence
	// (busy, the superblock's wait, the ledger of what landed).
	inFlight []inFlightWrite
	// busy counts the writes in flight per journal slot (headers, then
	// prepares): a disk may land two writes to one slot in either order,
	// so a second waits for the first.
	busy [2][]uint16
	// cpLost are the checkpoint losses of its restarts (faultProof).
	cpLost []checkpointLoss
	// busyCheckpoint counts them per checkpoint slot.
	busyCheckpoint [vsr.CheckpointSlots]uint16
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
	// crashedInFlight says its last crash caught writes in flight.
	crashedInFlight bool
	// readSuperblock says its last restart's reads returned a whole
	// superblock copy or a blank one, never written (readBack): one that
	// found every copy damaged comes back amnesiac. readNewest is the whole
	// copy with the highest sequence number it read back (readWhole: one
	// was whole): the superblock it came back at, whose commit point and
	// log_view the model judges its restart by.
	readSuperblock bool
	readWhole      bool
	readNewest     replica.SuperblockOnDisk
	// reads are the reads in flight, in due order (disk_reads.go).
	reads []readInFlight
	// slotFence is, per journal slot, the fence of the last write asked
	// of it: as the replica counts it, to know when the slot's write
	// has landed.
	slotFence []uint64
	// loseHeader lists the slots whose next header copy write an aimed
	// lost rewrite takes along with the prepare copy's (aimLostRewriteCopy).
	loseHeader []int
	// spoilHeader lists the slots whose next header copy write lands
	// damaged, where an aimed lost rewrite of the prepare copy kept it (D123).
	spoilHeader []int
	// due is no later than the earliest tick a write, a decay or a read
	// falls due on it (0 until tickDisks first asks): a write or a read
	// asked for lowers it, and only tickDisks, having asked, raises it.
	// One too early costs a look, never a landing.
	due uint64
}

// newDisks makes the cluster's storage, on the memory of old, a finished
// run's (nil: none), where it fits (takeDiskOf).
func newDisks(cfg *Config, seed uint64, old *disks) (*disks, error) {
	s := &cfg.Storage
	geo := cfg.diskGeometry()
	atlas, err := disksim.NewAtlas(disksim.AtlasOptions{
		Replicas: cfg.Replicas, Quorum: vsr.QuorumReplication(cfg.Replicas), Geometry: geo, Off: s.AtlasOff,
	}, prng.New(seed, prng.StreamDiskAtlas))
	if err != nil {
		return nil, err
	}
	ds := &disks{atlas: atlas, r: make([]diskOf, cfg.Replicas), aimed: prng.New(seed, prng.StreamDiskAimed),
		readLatency: prng.New(seed, prng.StreamDiskRead)}
	ds.takeBuffers(old)
	if !s.AimedLostRewrite.Zero() {
		ds.rewrite = prng.New(seed, prng.StreamDiskRewrite)
		ds.rewriteBoth = prng.New(seed, prng.StreamDiskRewriteBoth)
		if !s.AimedSpoilRewrite.Zero() {
			ds.rewriteSpoil = prng.New(seed, prng.StreamDiskRewriteSpoil)
		}
	}
	if !s.AimedStaleAsk.Zero() {
		ds.staleAsk.start(seed, cfg.Replicas)
	}
	if !s.AimedSuperblockLoss.Zero() && s.AtlasOff {
		ds.superblockLoss = prng.New(seed, prng.StreamDiskSuperblockLoss)
	}
	for i := range ds.r {
		d, err := disksim.NewFrom(disksim.Options{
			Geometry: geo, Replica: i, Atlas: atlas,
			WriteLatencyMinTicks: s.LatencyMinTicks, WriteLatencyMeanTicks: s.LatencyMeanTicks,
			ReadLatent: s.ReadFault, WriteDamaged: s.WriteFault, WriteMisdirected: s.Misdirect,
			WriteLost: s.Lost, CrashTorn: s.Torn, RotMeanTicks: s.RotMeanTicks,
			// A step may ask for a write to every slot of both journal
			// zones (a transfer's install, a restart's blanks) and every
			// superblock copy: the queue starts each one whose slot is
			// free, so the disk must take that many in flight.
			PendingMax: max(disksim.PendingMaxDefault, 2*cfg.JournalSlots+diskSuperblocks),
		}, prng.New(seed, prng.StreamDiskBase+prng.StreamID(i)), old.disk(i))
		if err != nil {
			return nil, err
		}
		ds.all = append(ds.all, d)
		ds.r[i] = old.takeDiskOf(i, cfg.JournalSlots)
		ds.r[i].disk = d
	}
	return ds, nil
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
		if d.due > c.now {
			// Nothing due here on the tick another disk has: the disk's
			// queues are not asked (asking every disk's write queue on
			// every such tick, twice, was 2.5% of a busy run).
			c.disks.nextDue = min(c.disks.nextDue, d.due)
			continue
		}
		due, ok := d.disk.NextDue()
		acted := ok && due <= c.now
		if acted {
			c.landWrites(i)
		}
		if rd, ok := d.nextRead(); ok && rd <= c.now {
			c.completeReads(i)
			acted = true
		}
		if acted {
			// Only landing (and the decays it draws) or a read's step
			// (which may write) moves the disk's next tick.
			due, ok = d.disk.NextDue()
		}
		d.due = ^uint64(0)
		if ok {
			d.due = due
		}
		if rd, ok := d.nextRead(); ok {
			d.due = min(d.due, rd)
		}
		c.disks.nextDue = min(c.disks.nextDue, d.due)
	}
}

// landWrites lands the writes due on replica i's disk, starts the writes
// that were waiting for them, and lets go of the messages whose writes
// landed.
func (c *Cluster) landWrites(i int) {
	d := &c.disks.r[i]
	c.disks.completions = d.disk.Advance(c.now, c.disks.completions[:0])
	for _, w := range c.disks.completions {
		c.landed(d, w.ID)
	}
	c.startDeferred(d)
	c.releaseHeld(d)
	if r := c.replicas[i]; r != nil {
		n := d.landedFences()
		r.Landed(n)
		if c.spec != nil {
			c.spec.Landed(i, n)
		}
		c.releaseOwnAcks(i, d)
	}
	c.traceFaults(i)
}

// crashDisk ends what was in flight on replica i's disk: the disk decides the
// fate of each pending write; deferred writes and held messages never left.
func (c *Cluster) crashDisk(i int) {
	if c.disks == nil {
		return
	}
	d := &c.disks.r[i]
	d.crashedInFlight = len(d.inFlight) > 0
	c.disarmSecond(i)
	d.disk.Crash(c.now)
	c.noteCrashed(d)
	c.aimCorrupt(i)
	c.aimCheckpoint(i)
	c.aimSuperblockLoss(i)
	// The disk model's own promise, checked where it is most at risk: with
	// the atlas on a crash leaves one superblock copy undamaged (disksim's
	// mayTear). A disk that breaks it would pass off a lost superblock as
	// the protocol's to survive; no storage excuse covers a crash verdict.
	vsr.Assert(i, c.disks.atlas.Off() || d.disk.SuperblockKept(), "disk_atlas_keeps_a_superblock",
		"the disk model's crash left every superblock copy damaged with the atlas on")
	if n := len(d.held); n > 0 {
		c.Note(fmt.Sprintf("r%d crashed with %d messages waiting for its disk", i, n))
	}
	for k := range d.deferred {
		d.bufs = append(d.bufs, d.deferred[k].data[:0])
	}
	d.held, d.deferred, d.open, d.inFlight = d.held[:0], d.deferred[:0], d.open[:0], d.inFlight[:0]
	d.loseHeader, d.spoilHeader = d.loseHeader[:0], d.spoilHeader[:0]
	d.reads = d.reads[:0]
	clear(d.slotFence)
	// The restarted replica counts its fenced writes from one again (Landed);
	// its own acks still waiting for their writes were never made.
	d.fences = 0
	d.ownAcks = d.ownAcks[:0]
	clear(d.busy[0])
	clear(d.busy[1])
	clear(d.busyCheckpoint[:])
	c.traceFaults(i)
}

// readBack is the ReadFunc of replica i's restart: every read goes to its
// disk now (and may draw a latent error).
// It records whether a superblock copy read back whole or blank, from the
// bytes it served, for the protocol model (specRestart).
func (c *Cluster) readBack(i int) vsr.ReadFunc {
	do := &c.disks.r[i]
	do.readSuperblock, do.readWhole = false, false
	return func(z vsr.StorageZone, slot int) ([]byte, bool) {
		buf, ioErr := do.disk.Read(c.now, disksim.Zone(z), slot)
		if z == vsr.ZoneSuperblock {
			sb, whole := replica.DiskSuperblock(slot, buf, ioErr)
			do.readSuperblock = do.readSuperblock || whole || (!ioErr && !slices.ContainsFunc(buf, func(b byte) bool { return b != 0 }))
			if whole {
				if !do.readWhole || sb.Seq > do.readNewest.Seq {
					do.readNewest = sb
				}
				do.readWhole = true
			}
		}
		return buf, ioErr
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
	// Decay stops on every disk, the core's and the others': a decay that
	// came after the stall began could excuse nothing (a verdict is judged
	// on what held when it began) and only blur which fault did. Said in
	// the trace, as every fault the phase lifts is.
	for i := range c.disks.r {
		if n := c.disks.r[i].disk.StopRot(); n > 0 {
			c.Note(fmt.Sprintf("liveness: r%d's disk decays no more (%d decays waiting dropped)", i, n))
		}
	}
}
