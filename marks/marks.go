// Package marks names the protocol branches a sweep should reach, and counts
// how often a run reached each. It is a leaf: the replica and the harness
// import it, it imports nothing of theirs.
//
// Counting is a slice increment on a value the caller owns (replica.Output
// carries one per cluster), so there is no global state, nothing leaks from
// one run or goroutine to another, and nothing here enters the trace or its
// hash. docs/marks.md is the contract: each mark's meaning and where it goes.
package marks

import "fmt"

// Mark names one protocol branch. The order of the constants is the order of
// every listing; append new marks before Count.
type Mark uint8

const (
	// Network, counted by the harness at the receiver.
	NetCorrupt Mark = iota // a packet failed its checksum and was dropped

	// Drops: a replica refused a message.
	DropBadChecksum
	DropGap
	DropOldView
	DropNewerView
	DropStaleIncarnation
	DropParentMismatch
	DropHeaderMismatch
	DropUnverified
	DropRecovering
	DropTransferring
	DropRequestQueueFull
	DropOldRequest
	DropChunkCorrupt
	DropDVCUnreadable
	DropStartViewUnreadable

	// Normal operation and the client table.
	AckOldIncarnationInPipeline
	RequestForwarded
	ReplyFromClientTable
	CommitCatchUp

	// View change and merge.
	SVCQuorumReached
	SVCHeldByWindow
	EscalateOnStatusTimeout
	EscalateHeldByPrimary
	DVCQuorum
	DVCCacheHit
	DVCCacheRebuilt
	MergeTruncate
	MergeKeep
	MergeUnsure
	StartViewInstalled
	Abdicate
	LeaveCarriedForward
	BackoffCapped

	// Repair.
	RepairRequested
	RepairServed
	RepairBodyMismatch
	RepairRangeEvicted
	RepairHeldPending

	// State transfer.
	TransferStarted
	TransferOfferRefusedStale
	TransferOfferRefusedNotNewer
	TransferInstall
	TransferInstallBelowCommit

	// Restart and checkpoints.
	RestartWAL
	RestartWALVote
	RestartAmnesiac
	RestartAmnesiacUnsureHeld
	Checkpoint

	// Appended after the restructure: branches the first list missed.
	DropBelowCommit
	ProbeUnanswered
	LeaveResent
	CommitFromBackup
	StartViewPushed
	DropBelowAck
	AbdicateStalled
	ForwardUnanswered

	// Storage: recovery from a simulated disk (docs/storage.md).
	StorageSlotFaulty
	StorageSlotForeign
	StoragePrepareKept
	StorageRecoveringHead
	StorageHeadRecovered
	StorageSuperblockCopyBad
	StorageSuperblockLost
	StorageTruncated
	StorageSlotUnacked
	StorageUnsureVoted
	StorageHeaderVouched
	StorageRangeLost
	MergeHeadUnknown

	// Replies from backups (issue 26).
	ReplyFromBackup
	ReplyFromBackupTable
	StartViewRelayed
	StartViewRelayAdopted
	CommitRelayed
	BackoffReset
	PeerRecentChosen
	CommitToldPrimary

	// A primary-elect fetches a body no voter holds.
	MergeBodyFetched

	// A restart keeps an unvouched header copy set aside (D49).
	StorageHeaderSetAside

	// A restart finds the checkpoint its superblock names damaged on the
	// disk and restores an older one, or none (issue 38).
	StorageCheckpointOlder
	StorageCheckpointLost
	// A restart from disk finds a body its durable log_view's adopted header
	// names otherwise: a removal the disk lost (issue 38).
	StorageStaleBody
	// A repair served from the disk (issue 38 item 1): the prepare copy
	// did not verify and the header ring's copy was read instead; neither
	// did and the body left the journal for a peer's copy (read repair);
	// a read came back after the log moved on, or while the replica's own
	// write of the slot was still in flight (served from memory).
	StorageReadRetried
	StorageReadLost
	StorageReadRepaired
	// A restart from disk finds a journaled entry the durable head's chain
	// does not pass through: an older entry of that op a lost write left.
	StorageOffChain
	// A restart sets aside a committed entry the durable head's chain
	// cannot reach: it is replayed only once something vouches for it.
	StorageUnvouchedSetAside
	// The scrubber (issue 38 item 5) read an op's copies back: one did not
	// hold the entry and both were written again from the other; neither
	// did and the body left the journal for a peer's copy (read repair).
	StorageScrubRewritten
	StorageScrubLost
	// A primary-elect takes the body its merge awaits from its own
	// set-aside copy (D90).
	MergeBodyOwnAside
	// A merge took an op's header as the one every version that may have
	// committed must carry, no canonical vote naming it (D98).
	MergeImplied
	// A replica more than a journal behind its head kept a repaired body
	// below the live ring, and applied an op from there, vouched for by the
	// chain down from the ring (D105).
	RepairBelowWindow
	CommitBelowWindow

	// Count is the number of marks, not a mark.
	Count
)

var names = [Count]string{
	"net-corrupt",
	"drop-bad-checksum", "drop-gap", "drop-old-view", "drop-newer-view", "drop-stale-incarnation",
	"drop-parent-mismatch", "drop-header-mismatch", "drop-unverified", "drop-recovering",
	"drop-transferring", "drop-request-queue-full", "drop-old-request", "drop-chunk-corrupt",
	"drop-dvc-unreadable", "drop-start-view-unreadable",
	"ack-old-incarnation-in-pipeline", "request-forwarded", "reply-from-client-table", "commit-catch-up",
	"svc-quorum-reached", "svc-held-by-window", "escalate-on-status-timeout", "escalate-held-by-primary",
	"dvc-quorum", "dvc-cache-hit", "dvc-cache-rebuilt", "merge-truncate", "merge-keep", "merge-unsure",
	"start-view-installed", "abdicate", "leave-carried-forward", "backoff-capped",
	"repair-requested", "repair-served", "repair-body-mismatch", "repair-range-evicted", "repair-held-pending",
	"transfer-started", "transfer-offer-refused-stale", "transfer-offer-refused-not-newer",
	"transfer-install", "transfer-install-below-commit",
	"restart-wal", "restart-wal-vote", "restart-amnesiac", "restart-amnesiac-unsure-held", "checkpoint",
	"drop-below-commit", "probe-unanswered", "leave-resent",
	"commit-from-backup", "start-view-pushed", "drop-below-ack",
	"abdicate-stalled", "forward-unanswered",
	"storage-slot-faulty", "storage-slot-foreign", "storage-prepare-kept", "storage-recovering-head",
	"storage-head-recovered", "storage-superblock-copy-bad", "storage-superblock-lost", "storage-truncated",
	"storage-slot-unacked", "storage-unsure-voted", "storage-header-vouched", "storage-range-lost", "merge-head-unknown",
	"reply-from-backup", "reply-from-backup-table", "start-view-relayed", "start-view-relay-adopted",
	"commit-relayed", "backoff-reset", "peer-recent-chosen", "commit-told-primary",
	"merge-body-fetched",
	"storage-header-set-aside",
	"storage-checkpoint-older", "storage-checkpoint-lost", "storage-stale-body",
	"storage-read-retried", "storage-read-lost", "storage-read-repaired",
	"storage-off-chain", "storage-unvouched-set-aside",
	"storage-scrub-rewritten", "storage-scrub-lost", "merge-body-own-aside",
	"merge-implied",
	"repair-below-window", "commit-below-window",
}

// String is the mark's name, the key of every JSON and table output.
func (m Mark) String() string {
	if m < Count {
		return names[m]
	}
	return fmt.Sprintf("Mark(%d)", uint8(m))
}

// Parse returns the mark with the given name.
func Parse(name string) (Mark, error) {
	for m := Mark(0); m < Count; m++ {
		if names[m] == name {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown mark %q", name)
}

// Counts holds one counter per mark. The zero value is ready; it is a plain
// array, so copying it copies the counts.
type Counts [Count]uint64

// Hit counts one pass through m's branch.
func (c *Counts) Hit(m Mark) { c[m]++ }

// Reached reports whether m was hit at least once.
func (c *Counts) Reached(m Mark) bool { return c[m] > 0 }

// Map returns the marks hit at least once, name -> count, for JSON (which
// sorts the keys, so the output is deterministic).
func (c *Counts) Map() map[string]uint64 {
	out := make(map[string]uint64)
	for m := Mark(0); m < Count; m++ {
		if c[m] > 0 {
			out[names[m]] = c[m]
		}
	}
	return out
}

// Runs counts, per mark, the runs that reached it: the sweep-wide view.
type Runs [Count]uint64

// Add counts one run's marks.
func (r *Runs) Add(c *Counts) {
	for m := Mark(0); m < Count; m++ {
		if c[m] > 0 {
			r[m]++
		}
	}
}

// Map returns every mark's run count, name -> runs, zeros included: a mark
// no run reached is the finding.
func (r *Runs) Map() map[string]uint64 {
	out := make(map[string]uint64, Count)
	for m := Mark(0); m < Count; m++ {
		out[names[m]] = r[m]
	}
	return out
}

// never gives, for a mark no correct run of the default protocol can reach,
// the reason (docs/marks.md, "Marks no correct run reaches"). The branch stays
// as a defence; a run that reaches it met a defect (a planted bug switch, a
// source protocol's mechanism, or a real one), which a sweep reports as a
// finding rather than as coverage.
var never = [Count]string{
	DropParentMismatch: "a Normal backup holds the chain its view's StartView (or a checkpoint's chained walk) gave it, " +
		"and every prepare of that view at sequencer+1 names the chain's head; a damaged prepare fails its checksum first",
	StorageTruncated: "only the truncate-on-corrupt defect cuts a journal at a damaged entry; the fixed recovery keeps " +
		"every intact entry and holds the damaged ones unsure",
	TransferOfferRefusedStale: "the default install keeps journaled ops above the checkpoint, so its guard refuses nothing " +
		"(D7); only Protocol.SourceTransfer and the stale-guard-uses-commit-max defect refuse",
	MergeHeadUnknown: "a commit point a vote states was acked by a replication quorum, which meets every view-change quorum " +
		"in a voter whose head reaches it (a replica that lost the op is recovering and votes nothing), so some vote " +
		"describes the merged head or, where that voter's restart set it aside, names it as the parent of the op above (D117)",
}

// Never returns why no correct run of the default protocol reaches m, or ""
// if some can: a reachable mark is a coverage goal, a never-mark a tripwire.
func (m Mark) Never() string {
	if m < Count {
		return never[m]
	}
	return ""
}

// NeverHit is a never-mark some run reached: the finding, with the first run
// (in seed order) that reached it.
type NeverHit struct {
	Mark      Mark
	Runs      uint64
	FirstSeed uint64
}

// Firsts records, per mark, the first seed whose run reached it. Runs.Add
// takes no seed, so a sweep feeds Firsts alongside it, in seed order.
type Firsts struct {
	seen [Count]bool
	seed [Count]uint64
}

// Add notes the marks run seed reached that no earlier run did.
func (f *Firsts) Add(seed uint64, c *Counts) {
	for m := Mark(0); m < Count; m++ {
		if c[m] > 0 && !f.seen[m] {
			f.seen[m], f.seed[m] = true, seed
		}
	}
}

// First returns the first seed that reached m, and whether one did.
func (f *Firsts) First(m Mark) (uint64, bool) { return f.seed[m], f.seen[m] }

// NeverReached lists, in mark order, the never-marks some run reached.
func NeverReached(r *Runs, f *Firsts) []NeverHit {
	var hits []NeverHit
	for m := Mark(0); m < Count; m++ {
		if never[m] == "" || r[m] == 0 {
			continue
		}
		seed, _ := f.First(m)
		hits = append(hits, NeverHit{Mark: m, Runs: r[m], FirstSeed: seed})
	}
	return hits
}
