package sim

import (
	"fmt"

	"vsrsim/disksim"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/vsr"
)

// Storage configures the replicas' simulated disks (disksim). Off (the zero
// value), a write-ahead journal survives a restart exactly as written and the
// run draws nothing for storage, so every trace from before disks existed is
// unchanged. On, each replica journals to a disk of its own: writes land after
// a drawn latency, the messages a replica sends wait for the writes it made
// before them, and a restart reads back what the disk holds, faults and all.
type Storage struct {
	On bool
	// Fault ratios, per read of a slot (ReadFault: a latent sector error) or
	// per completed write (WriteFault: a damaged sector; Misdirect: the write
	// lands on another slot of its zone; Lost: it never lands), and per write
	// pending at a crash (Torn).
	ReadFault  prng.Ratio
	WriteFault prng.Ratio
	Misdirect  prng.Ratio
	Lost       prng.Ratio
	Torn       prng.Ratio
	// LatencyMinTicks and LatencyMeanTicks shape a write's latency: the
	// least, and the mean of an exponential extra on top.
	LatencyMinTicks  uint64
	LatencyMeanTicks uint64
	// RotMeanTicks, non-zero, makes the media decay with time: each write
	// that lands where the atlas allows a fault has a sector decay after an
	// exponential delay of this mean, drawn as it lands (disksim's
	// RotMeanTicks). The damage a scrubber exists to find before a read
	// needs it. The swarm never draws it; a file sets it.
	RotMeanTicks uint64
	// AimedCorrupt, per crash of a replica, damages both copies of the slot
	// of the op below the last it acknowledged (a PrepareOk that left); AimedMisdirect,
	// per PrepareOk that leaves, arms a misdirect of the next op's prepare
	// onto the acknowledged op's slot. Both only where the atlas allows, and
	// drawn from a stream of their own: they aim storage faults at the ops a
	// restart must not vote away, which uniform faults rarely hit.
	AimedCorrupt   prng.Ratio
	AimedMisdirect prng.Ratio
	// AimedQuietCorrupt is AimedCorrupt for a crash of a replica whose disk
	// has met no fault yet in the run, drawn from a stream of its own and
	// only there: a quiet cluster writes little, and uniform faults drawn
	// per write leave its disks whole, so its restarts never recover
	// anything (issue 38: a tenth of the disk seeds met no storage fault).
	AimedQuietCorrupt prng.Ratio
	// AimedCheckpoint, per crash of a replica, damages a sector of the state
	// in its newest landed checkpoint record, where the atlas allows: the
	// restart must fall back to an older checkpoint, or the genesis state,
	// and catch up from its peers, never restore it. Drawn from the aimed
	// stream, and only when set, so a run without it draws as before.
	AimedCheckpoint prng.Ratio
	// AimedLostRewrite, per write of a prepare copy that replaces another
	// entry of the same op number (or takes it out) on the media, loses
	// the write where the atlas allows: the slot keeps an older op that
	// verifies on its own, which a replica serving a repair from its disk
	// must tell from the one its journal names (reads in a life,
	// disk_reads.go). Half the time the slot's header copy rewrite is lost
	// too, so both copies keep the older op (D75). Drawn from streams of
	// its own, and only when set.
	AimedLostRewrite prng.Ratio
	// AimedSpoilRewrite, per aimed lost rewrite of a prepare copy whose
	// header copy's rewrite is not lost with it, lands that header copy
	// rewrite damaged (D123): a restart reads the older prepare beside a
	// header copy it cannot read, at an op it may have acknowledged last;
	// where second events are on, half the time the replica is crashed once
	// its disk is quiet (storage_second.go). Drawn from a stream of its
	// own, and only when set with AimedLostRewrite.
	AimedSpoilRewrite prng.Ratio
	// AimedSuperblockLoss, per crash of a replica, damages every copy of
	// its superblock, only with the atlas off (the atlas keeps one copy
	// whole): the restart comes back amnesiac (storage-superblock-lost), the
	// path a disk beyond the atlas takes, which uniform faults reach in
	// almost no run. Drawn from a stream of its own, and only when set.
	AimedSuperblockLoss prng.Ratio
	// AimedWindowCrash, per fault-phase tick and live replica whose disk
	// has writes in flight (its write window open), crashes it, within the
	// crash injectors' bound: the writes tear, land or are lost as the disk
	// draws, mid-window (storage_second.go).
	AimedWindowCrash prng.Ratio
	// AimedSecond, per fault-phase restart of a replica whose last crash
	// caught writes in flight or whose disk holds a faulty journal slot,
	// aims a second event before the replica can have repaired: it crashes
	// again as it rejoins, or the primary is taken out (crashed within the
	// bound, else its links out cut) as it rejoins or at once, so a view
	// change runs on an unsure vote (storage_second.go).
	//
	// Both second-event chances draw from a stream of their own, are the
	// swarm's alone (no setting names them) and each action they take is a
	// trace note, a crash or a cut a recording replays as it is.
	AimedSecond prng.Ratio
	// AimedStaleAsk, per aimed lost rewrite (AimedLostRewrite), steers a
	// peer at the replica whose slot kept the older entry: the peer crashes
	// (or, if down already, stays armed) and, from its restart, its
	// requests reach that replica alone for a while, so the repair it needs
	// is asked of the disk that holds the stale copy (repair-serves-unread;
	// storage_stale_ask.go). The swarm's alone, like the second events.
	AimedStaleAsk prng.Ratio
	// Drawn says the swarm drew these disks for a write-ahead journal: a
	// memory journal asked for afterwards drops them (sim/settings), where
	// disks a setting asked for are refused with it.
	Drawn bool
	// AtlasOff lets a fault land anywhere, beyond what the protocol promises
	// to survive; the verdict then names storage-beyond-f where the disks'
	// own record shows a slot faulty on a replication quorum.
	AtlasOff bool
	// ScrubOff turns the replicas' scrubber off (replica/repair_serve.go): the
	// journal is read back only to serve a repair and at a restart. For
	// comparing with it; the scrubber runs on every disk otherwise.
	ScrubOff bool
}

// StorageLatencyMax bounds a write latency setting: a second of virtual time.
const StorageLatencyMax = 100

// StorageRotMax bounds the rot setting's mean: ten million ticks.
const StorageRotMax = 10_000_000

func (c *Config) validateStorage() error { return c.Storage.validate(c) }

func (s *Storage) validate(c *Config) error {
	if !s.On {
		return nil
	}
	if c.Durability != replica.DurabilityWAL {
		return fmt.Errorf("storage needs a write-ahead journal (journal wal): a memory journal writes nothing to disk")
	}
	if s.LatencyMinTicks > StorageLatencyMax || s.LatencyMeanTicks > StorageLatencyMax {
		return fmt.Errorf("storage latency must be 0..%d ticks, got min=%d mean=%d", StorageLatencyMax, s.LatencyMinTicks, s.LatencyMeanTicks)
	}
	if s.RotMeanTicks > StorageRotMax {
		return fmt.Errorf("storage rot mean must be 0..%d ticks, got %d", StorageRotMax, s.RotMeanTicks)
	}
	for _, r := range []prng.Ratio{s.ReadFault, s.WriteFault, s.Misdirect, s.Lost, s.Torn, s.AimedCorrupt, s.AimedMisdirect, s.AimedQuietCorrupt, s.AimedCheckpoint, s.AimedLostRewrite, s.AimedSpoilRewrite, s.AimedSuperblockLoss, s.AimedWindowCrash, s.AimedSecond, s.AimedStaleAsk} {
		if !r.Zero() && r.Num > r.Den {
			return fmt.Errorf("a storage fault probability must be at most 1, got %d/%d", r.Num, r.Den)
		}
	}
	return nil
}

// Disk geometry of a replica: a sector holds a header record, a prepare two
// sectors (so a crash can tear one), the superblock four copies, and the
// checkpoint zone the replica's two checkpoint records (a state each).
const (
	diskSectorSize     = 128
	diskPrepareSectors = 2
	diskSuperblocks    = 4
)

func (c *Config) diskGeometry() disksim.Geometry {
	return disksim.Geometry{
		SectorSize:        diskSectorSize,
		SuperblockCopies:  diskSuperblocks,
		JournalSlots:      c.JournalSlots,
		HeaderSectors:     1,
		PrepareSectors:    diskPrepareSectors,
		CheckpointSlots:   vsr.CheckpointSlots,
		CheckpointSectors: vsr.CheckpointRecordBytes / diskSectorSize,
	}
}

// EntryCopy names which copies of a journal entry a scripted corruption hits.
type EntryCopy uint8

// The copies of a journal entry: the header ring's and the prepare's.
const (
	EntryHeader EntryCopy = 1 << iota
	EntryBody
	EntryBoth = EntryHeader | EntryBody
)

func (e EntryCopy) String() string {
	switch e {
	case EntryHeader:
		return "header"
	case EntryBody:
		return "body"
	case EntryBoth:
		return "both"
	}
	return fmt.Sprintf("EntryCopy(%d)", uint8(e))
}

// ParseEntryCopy reads header, body or both.
func ParseEntryCopy(s string) (EntryCopy, error) {
	switch s {
	case "header":
		return EntryHeader, nil
	case "body":
		return EntryBody, nil
	case "both":
		return EntryBoth, nil
	}
	return 0, fmt.Errorf("%q: want header, body or both", s)
}
