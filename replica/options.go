package replica

import (
	"fmt"

	"vsrsim/replica/timer"
	"vsrsim/vsr"
)

// Topology is how the primary replicates prepares.
type Topology uint8

// Replication topologies.
const (
	// TopologyChain: each replica forwards to the next, stopping before the primary.
	TopologyChain Topology = iota
	// TopologyStar: the primary sends to every backup.
	TopologyStar
)

func (t Topology) String() string {
	if t == TopologyStar {
		return "star"
	}
	return "chain"
}

// Durability is what the journal keeps across a restart.
type Durability uint8

// Journal durabilities.
const (
	// DurabilityWAL: the journal survives a restart.
	DurabilityWAL Durability = iota
	// DurabilityMemory: the journal reads empty after a restart (amnesia).
	DurabilityMemory
)

func (d Durability) String() string {
	if d == DurabilityMemory {
		return "memory"
	}
	return "wal"
}

// Timeouts are the replica's timeouts in ticks (the timer package's).
type Timeouts = timer.Timeouts

// DefaultTimeouts are protocol.md's defaults.
func DefaultTimeouts() Timeouts { return timer.DefaultTimeouts() }

// offerSnapshotsMax bounds the state-transfer offers a primary keeps.
const offerSnapshotsMax = 4

// Protocol turns off robust mechanisms that a modelled source system lacks.
// The zero value is the robust protocol, the default everywhere; a scenario
// that replays a source's failure shape turns off what hides it
// (D13).
type Protocol struct {
	// AbdicationOff: a primary never abdicates, and backups do not answer
	// its heartbeats with CommitOk.
	AbdicationOff bool
	// SVCQuorumOff: a replica leaves its view on its own timeouts alone, and
	// a single StartViewChange for a higher view pulls any replica into it.
	SVCQuorumOff bool
	// BackoffOff: the view-change status, repair and state-transfer retry
	// timeouts keep their base period however often they fire in a row.
	BackoffOff bool
	// PushStartViewOff: a primary sends its StartView only when asked, never
	// to a backup it has not heard from for a heartbeat timeout.
	PushStartViewOff bool
	// SourceTransfer: a state-transfer install replaces the whole journal,
	// ops above the checkpoint included, as the source system's does; the
	// stale guard then refuses an offer below a held op this replica may
	// have acked (up to its accepted head), since installing would lose it.
	// Off, the install keeps the journaled ops above the checkpoint, so no
	// acked op is ever lost and the guard refuses nothing: a replica whose
	// acked ops above the cluster's commit point were cut by a later view
	// would otherwise refuse every offer once writes stop. Its pull, too,
	// is the source's: one chunk per request, in order; off, a peer sends
	// every chunk from the one asked on and the requester takes them in
	// any order (D114).
	SourceTransfer bool
	// AbdicateByHearing: the source's abdication (D15), by hearing alone: a
	// primary abdicates when fewer than a replication quorum reached it in a
	// heartbeat timeout, even with nothing pending, and resumes when it hears
	// one again; it never abdicates over stalled replication it still hears
	// through, and its backups keep counting bare heartbeats after they
	// forward a request (D40).
	AbdicateByHearing bool
	// BackupRepliesOff: only the primary answers clients, as in VRR; backups
	// forward every request, one they applied included.
	BackupRepliesOff bool
	// RelayStartViewOff: only a view's primary sends its StartView; a
	// backup never hands its view to a peer that asks to leave it or that
	// is still in an older view (relay.go).
	RelayStartViewOff bool
	// BackoffResetOff: backed-off retries keep their long period until
	// they make progress, even once the replica hears a quorum again or a
	// backup answers a heartbeat; a repair, a RangeEvicted and a request for
	// a state-transfer offer go to peers in a fixed rotation, a silent
	// primary included (recency.go).
	BackoffResetOff bool
	// PrepareRepairOff: a backup drops a Prepare of an op at or below its
	// head whose body it lacks by the gap check, as the source's does, and
	// leaves the hole to repair alone (the hollow-op failure shape); the
	// robust backup takes the body as the repair it asks for, verified as
	// one (D83).
	PrepareRepairOff bool
}

// Options configure one replica. Every replica of a cluster gets the same
// options but its ID.
type Options struct {
	ID                 int
	Replicas           int
	Topology           Topology
	Durability         Durability
	JournalSlots       int    // ops retained in the journal; as many again in the evicted ring
	CheckpointInterval uint64 // ops between checkpoints (see CheckpointEvery)
	Timeouts           Timeouts
	Protocol           Protocol
	Bugs               Bugs
	// RequestQueue bounds the requests a primary holds waiting to prepare;
	// one past it is dropped (request-queue-full) and its client retries.
	// 0 means RequestQueueMax, the most it may be.
	RequestQueue int
	// Storage: the write-ahead journal and the superblock live on a disk the
	// harness simulates; the replica asks for writes and recovers from what
	// the disk reads back (storage.go, restart.go). Needs DurabilityWAL.
	Storage bool
	// Spare, if set, is memory released replicas left for reuse (see
	// Release). It never changes what a replica does.
	Spare *Spare
}

// DefaultOptions returns options for replica id of n.
func DefaultOptions(id, n int) Options {
	return Options{
		ID:                 id,
		Replicas:           n,
		JournalSlots:       1024,
		CheckpointInterval: 64,
		Timeouts:           DefaultTimeouts(),
	}
}

// Validate returns a one-line error for options the model cannot run.
func (o *Options) Validate() error {
	if o.Replicas < 1 || o.Replicas > vsr.ReplicasMax {
		return fmt.Errorf("replicas must be 1..%d, got %d", vsr.ReplicasMax, o.Replicas)
	}
	if o.ID < 0 || o.ID >= o.Replicas {
		return fmt.Errorf("replica id %d out of range for %d replicas", o.ID, o.Replicas)
	}
	if o.JournalSlots < vsr.JournalSlotsMin || o.JournalSlots > vsr.JournalSlotsMax {
		return fmt.Errorf("journal slots must be %d..%d, got %d", vsr.JournalSlotsMin, vsr.JournalSlotsMax, o.JournalSlots)
	}
	if o.JournalSlots < 2*vsr.PipelineMax {
		return fmt.Errorf("journal slots must be at least %d (twice the pipeline)", 2*vsr.PipelineMax)
	}
	if o.RequestQueue < 0 || o.RequestQueue > vsr.RequestQueueMax {
		return fmt.Errorf("request queue must be 0..%d (0: %d), got %d", vsr.RequestQueueMax, vsr.RequestQueueMax, o.RequestQueue)
	}
	if o.Storage && o.Durability != DurabilityWAL {
		return fmt.Errorf("storage needs a write-ahead journal")
	}
	if o.CheckpointInterval == 0 {
		return fmt.Errorf("checkpoint interval must be positive")
	}
	t := o.Timeouts
	for _, v := range []uint64{t.PrepareTicks, t.CommitTicks, t.HeartbeatTicks, t.ViewChangeMsgTicks,
		t.ViewChangeStatusTick, t.StartViewProbeTicks, t.RepairTicks} {
		if v == 0 {
			return fmt.Errorf("every timeout must be positive")
		}
	}
	o.checkValid()
	return nil
}

// checkValid asserts what valid options promise the protocol: a replication
// quorum and a view-change quorum always share a replica, and none is larger
// than the cluster; the journal holds every op since a checkpoint and a full
// pipeline above it.
func (o *Options) checkValid() {
	n := o.Replicas
	vsr.Assert(o.ID, vsr.QuorumReplication(n)+vsr.QuorumViewChange(n) > n, "validated_quorums_intersect", "replicas %d", uint64(n))
	vsr.Assert(o.ID, vsr.QuorumViewChange(n) <= n && vsr.QuorumNack(n) <= n, "validated_quorums_within_cluster", "replicas %d", uint64(n))
	every := CheckpointEvery(o.CheckpointInterval, o.JournalSlots)
	vsr.Assert(o.ID, every > 0 && every+vsr.PipelineMax <= uint64(o.JournalSlots), "validated_checkpoints_fit_journal",
		"every %d slots %d", every, uint64(o.JournalSlots))
}

// requestQueue is the bound in force on the request queue.
func (o *Options) requestQueue() int {
	if o.RequestQueue == 0 {
		return vsr.RequestQueueMax
	}
	return o.RequestQueue
}

// CheckpointEvery is the checkpoint interval a replica uses: the configured
// one, capped so the journal always holds every op since the last checkpoint
// plus a full pipeline. A wider interval would leave a restarted replica
// unable to replay from its checkpoint without evicting ops it acked.
func CheckpointEvery(interval uint64, journalSlots int) uint64 {
	// Valid options hold two pipelines in the journal: the cap is positive.
	vsr.Assert(vsr.Unowned, journalSlots >= 2*vsr.PipelineMax, "checkpoint_every_journal_validated", "slots %d", uint64(journalSlots))
	limit := uint64(journalSlots - vsr.PipelineMax)
	if interval > limit {
		return limit
	}
	return interval
}
