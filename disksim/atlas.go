package disksim

import (
	"errors"
	"fmt"

	"vsrsim/prng"
)

// ReplicasMax bounds the replicas an atlas covers: a chunk's faulty replicas
// are a bit set of one word.
const ReplicasMax = 64

// Atlas chunk defaults, for the zero values of AtlasOptions.
const (
	JournalChunkSlotsDefault    = 8
	CheckpointChunkSlotsDefault = 1
)

// AtlasOptions configure NewAtlas.
type AtlasOptions struct {
	// Replicas is the cluster's replica count, ids 0..Replicas-1.
	Replicas int
	// Quorum is the replication quorum: a chunk may be faulty on at most
	// Quorum-1 replicas, so a quorum of intact copies of every slot remains.
	Quorum int
	// Geometry is the disks' layout (every replica's disk has the same).
	Geometry Geometry
	// JournalChunkSlots is the journal slots a chunk of the headers and
	// prepares zones spans. Both zones share the chunks: slot i of either
	// zone is the same journal entry, so the same replicas may be faulty at
	// both of its copies and no other replica at either.
	JournalChunkSlots int
	// CheckpointChunkSlots is the slots a chunk of the checkpoint zone spans.
	CheckpointChunkSlots int
	// Off turns the atlas off: every fault may land anywhere, and building
	// it draws nothing.
	Off bool
}

// Atlas decides, once per cluster, where each replica's disk may be faulty.
// It is immutable once built, so every disk of the cluster may hold it.
//
// The rules it keeps, with the atlas on:
//   - a journal chunk and a checkpoint chunk are faulty on at most Quorum-1
//     replicas (exactly that many, drawn afresh for each chunk), so no slot
//     is ever damaged on a replication quorum;
//   - one superblock copy of each replica, drawn, is never faulty;
//   - with one replica (Quorum 1) only the superblock may be faulty.
//
// Crash faults (a torn write of a pending write) are outside the atlas: they
// hit a write the caller never saw complete (Disk.Crash).
type Atlas struct {
	opts AtlasOptions
	// journal and checkpoint hold, per chunk, the set of replicas that may be
	// faulty there; superblock, per replica, the set of copies that may be.
	journal    []uint64
	checkpoint []uint64
	superblock []uint64
}

// NewAtlas draws an atlas from rng (the cluster's StreamDiskAtlas). Its draws,
// in order: for each journal chunk, then each checkpoint chunk, the Quorum-1
// faulty replicas; then, for each replica, its one clean superblock copy. An
// atlas that is off draws nothing.
func NewAtlas(opts AtlasOptions, rng *prng.Stream) (*Atlas, error) {
	opts.Geometry = opts.Geometry.withDefaults()
	if opts.JournalChunkSlots == 0 {
		opts.JournalChunkSlots = JournalChunkSlotsDefault
	}
	if opts.CheckpointChunkSlots == 0 {
		opts.CheckpointChunkSlots = CheckpointChunkSlotsDefault
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	a := &Atlas{opts: opts}
	if opts.Off {
		return a, nil
	}
	if rng == nil {
		return nil, errNilStream
	}
	a.journal = drawChunks(rng, opts.Replicas, opts.Quorum-1, chunks(opts.Geometry.JournalSlots, opts.JournalChunkSlots))
	a.checkpoint = drawChunks(rng, opts.Replicas, opts.Quorum-1, chunks(opts.Geometry.CheckpointSlots, opts.CheckpointChunkSlots))
	copies := opts.Geometry.SuperblockCopies
	a.superblock = make([]uint64, opts.Replicas)
	for r := range a.superblock {
		clean := rng.IntN(copies)
		a.superblock[r] = (uint64(1)<<copies - 1) &^ (1 << clean)
	}
	return a, nil
}

func (o AtlasOptions) validate() error {
	if err := o.Geometry.validate(); err != nil {
		return err
	}
	if o.Replicas < 1 || o.Replicas > ReplicasMax {
		return fmt.Errorf("disksim: %d replicas, outside [1, %d]", o.Replicas, ReplicasMax)
	}
	if o.Quorum < 1 || o.Quorum > o.Replicas {
		return fmt.Errorf("disksim: replication quorum %d, outside [1, %d replicas]", o.Quorum, o.Replicas)
	}
	if o.JournalChunkSlots < 1 || o.CheckpointChunkSlots < 1 {
		return errors.New("disksim: an atlas chunk spans at least one slot")
	}
	if o.Geometry.SuperblockCopies > 64 {
		return errors.New("disksim: an atlas covers at most 64 superblock copies")
	}
	return nil
}

// chunks is the number of chunks of chunkSlots that cover slots.
func chunks(slots, chunkSlots int) int { return (slots + chunkSlots - 1) / chunkSlots }

// drawChunks draws, for each of n chunks, k distinct replicas of replicas: a
// partial Fisher-Yates shuffle of the ids, restarted from the identity order
// for each chunk so that a chunk's draw depends on nothing before it.
func drawChunks(rng *prng.Stream, replicas, k, n int) []uint64 {
	out := make([]uint64, n)
	if k == 0 {
		return out
	}
	var order [ReplicasMax]int
	for c := range out {
		for i := 0; i < replicas; i++ {
			order[i] = i
		}
		for i := 0; i < k; i++ {
			j := i + rng.IntN(replicas-i)
			order[i], order[j] = order[j], order[i]
			out[c] |= 1 << order[i]
		}
	}
	return out
}

// Off reports whether the atlas is off: every fault may land anywhere.
func (a *Atlas) Off() bool { return a.opts.Off }

// Options returns the options in force, defaults filled in.
func (a *Atlas) Options() AtlasOptions { return a.opts }

// Chunk returns the index of the chunk that holds slot of zone z within its
// zone's chunks: the journal zones share theirs, a superblock copy is a chunk
// of its own.
func (a *Atlas) Chunk(z Zone, slot int) int {
	switch {
	case z.journal():
		return slot / a.opts.JournalChunkSlots
	case z == ZoneCheckpoint:
		return slot / a.opts.CheckpointChunkSlots
	}
	return slot
}

// FaultyReplicas returns the set of replicas (bit r for replica r) that may be
// faulty at slot of zone z. With the atlas off it is every replica.
func (a *Atlas) FaultyReplicas(z Zone, slot int) uint64 {
	if a.opts.Off {
		return uint64(1)<<a.opts.Replicas - 1
	}
	c := a.Chunk(z, slot)
	switch {
	case z.journal():
		return a.journal[c]
	case z == ZoneCheckpoint:
		return a.checkpoint[c]
	}
	var set uint64
	for r, copies := range a.superblock {
		if copies&(1<<slot) != 0 {
			set |= 1 << r
		}
	}
	return set
}

// MayFault reports whether replica's disk may be faulty at slot of zone z.
func (a *Atlas) MayFault(replica int, z Zone, slot int) bool {
	expect(replica >= 0 && replica < a.opts.Replicas, "replica outside the atlas")
	if a.opts.Off {
		return true
	}
	switch {
	case z.journal():
		return a.journal[a.Chunk(z, slot)]&(1<<replica) != 0
	case z == ZoneCheckpoint:
		return a.checkpoint[a.Chunk(z, slot)]&(1<<replica) != 0
	}
	return a.superblock[replica]&(1<<slot) != 0
}

// Describe is one line naming the atlas's shape, for a run's option dump.
func (a *Atlas) Describe() string {
	if a.opts.Off {
		return "atlas off"
	}
	return fmt.Sprintf("atlas on: %d replicas, %d faulty per chunk; slots a chunk: journal %d, checkpoint %d",
		a.opts.Replicas, a.opts.Quorum-1, a.opts.JournalChunkSlots, a.opts.CheckpointChunkSlots)
}
