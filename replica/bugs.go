package replica

import (
	"fmt"
	"strings"
	"vsrsim/vsr"
)

// Bugs are switches that bring back known defects of production VSR
// implementations (failure-shapes.md). Each is off by default, the fixed
// behaviour, and touches only the mechanism it breaks.
type Bugs struct {
	// NarrowRepairUnderCommitLag: under commit lag, repair fetches only up to
	// commit_max even when adopted headers above it lack bodies (hollow-op).
	NarrowRepairUnderCommitLag bool
	// TransferRewindsSequencer: a state-transfer install rewinds the sequencer
	// (and, on a backup, the commit point) to the checkpoint op, keeps the
	// adopted headers, and does not count its journal wipe as a mutation
	// (transfer-rewind; with the adopted head more than a window above,
	// transfer-rewind-wide).
	TransferRewindsSequencer bool
	// StaleGuardUsesCommitMax: the stale guard protects every op up to
	// max(journal head, commit_max) instead of the held ops up to the accepted
	// head (stale-offer).
	StaleGuardUsesCommitMax bool
	// EscalateWithoutHold: a replica in view change escalates on its status
	// timeout even while an older view's primary still heartbeats it
	// (vc-straggler).
	EscalateWithoutHold bool
	// DVCCacheIgnoresJournal: the cached DoViewChange suffix is tagged by (op,
	// commit) only, so journal writes that move neither leave it stale
	// (stale-dvc-cache).
	DVCCacheIgnoresJournal bool
	// RestartSkipsAdoptedHead: a write-ahead restart counts the adopted view
	// as proven for the prefix its journal chains up to and skips the adopted
	// head above it, so its next vote puts the view's head at that prefix
	// (restart-before-repair).
	RestartSkipsAdoptedHead bool
	// TruncateOnCorrupt: a restart from disk truncates its journal at the
	// first damaged entry above the checkpoint and rejoins as if it never
	// held the ops it cut (corrupt-committed-entry; the PAR finding).
	TruncateOnCorrupt bool
	// CorruptSlotNacks: a restart from disk takes a damaged slot for an empty
	// one and votes at once, nacking whatever the slot held
	// (corrupt-uncommitted-vote).
	CorruptSlotNacks bool
	// SuperblockTrustsTorn: the replica acts on a superblock write before it
	// has landed, so a crash that tears it brings the replica back below a
	// view it already voted in (torn-superblock).
	SuperblockTrustsTorn bool
	// CheckpointTrustsUnverified: a restart from disk takes the checkpoint
	// record the superblock names as it reads, without checking its
	// checksum or that its state hashes to its digest.
	CheckpointTrustsUnverified bool
	// RepairServesUnread: a replica serving a repair from its disk sends
	// the record it read once the record verifies as the op asked for,
	// without checking it against the header its journal names or that its
	// own write of the slot has landed, so a stale copy (a lost or pending
	// rewrite of the op) goes out as the committed op.
	RepairServesUnread bool
	// ChecksumIgnoresSlot: a restart from disk checks a record's checksum
	// but not the slot it names, and trusts the prepare copy over the header
	// copy, so a misdirected write is taken for the op of the slot it landed
	// in and the op it overwrote is forgotten (misdirected-write).
	ChecksumIgnoresSlot bool
	// OwnAckBeforeWriteLands: a primary on a disk counts its own ack of an
	// op as soon as it asks for the op's write, so a replication quorum of
	// one commits an op a crash can still take from the disk, and the
	// restarted replica commits another op at its place (unlanded-commit).
	OwnAckBeforeWriteLands bool
}

// BugInfo describes one switch for the CLI.
type BugInfo struct {
	Name        string
	Scenario    string
	Description string
	set         func(*Bugs)
	get         func(*Bugs) bool
}

// BugCatalog lists every switch, in a fixed order. Names are a contract.
var BugCatalog = []BugInfo{
	{"narrow-repair-under-commit-lag", "hollow-op",
		"repair under commit lag stops at commit_max and never fetches an adopted head it lacks",
		func(b *Bugs) { b.NarrowRepairUnderCommitLag = true }, func(b *Bugs) bool { return b.NarrowRepairUnderCommitLag }},
	{"transfer-rewinds-sequencer", "transfer-rewind",
		"a state-transfer install rewinds the sequencer and commit point below an adopted view head",
		func(b *Bugs) { b.TransferRewindsSequencer = true }, func(b *Bugs) bool { return b.TransferRewindsSequencer }},
	{"stale-guard-uses-commit-max", "stale-offer",
		"the stale guard protects ops up to commit_max, so every offer under steady writes is refused",
		func(b *Bugs) { b.StaleGuardUsesCommitMax = true }, func(b *Bugs) bool { return b.StaleGuardUsesCommitMax }},
	{"escalate-without-hold", "vc-straggler",
		"a replica in view change escalates even while an older primary still heartbeats it",
		func(b *Bugs) { b.EscalateWithoutHold = true }, func(b *Bugs) bool { return b.EscalateWithoutHold }},
	{"dvc-cache-ignores-journal", "stale-dvc-cache",
		"the cached DoViewChange suffix ignores journal writes and can nack an op it holds",
		func(b *Bugs) { b.DVCCacheIgnoresJournal = true }, func(b *Bugs) bool { return b.DVCCacheIgnoresJournal }},
	{"restart-skips-adopted-head", "restart-before-repair",
		"a restart before repair votes the adopted view with its head at the journal's chained prefix",
		func(b *Bugs) { b.RestartSkipsAdoptedHead = true }, func(b *Bugs) bool { return b.RestartSkipsAdoptedHead }},
	{"truncate-on-corrupt", "corrupt-committed-entry",
		"a restart from disk truncates the journal at the first damaged entry and forgets the acked ops above it",
		func(b *Bugs) { b.TruncateOnCorrupt = true }, func(b *Bugs) bool { return b.TruncateOnCorrupt }},
	{"corrupt-slot-nacks", "corrupt-uncommitted-vote",
		"a restart from disk takes a damaged journal slot for an empty one and votes it absent",
		func(b *Bugs) { b.CorruptSlotNacks = true }, func(b *Bugs) bool { return b.CorruptSlotNacks }},
	{"superblock-trusts-torn", "torn-superblock",
		"the replica acts on a superblock write before it lands, so a torn write regresses it below a view it voted in",
		func(b *Bugs) { b.SuperblockTrustsTorn = true }, func(b *Bugs) bool { return b.SuperblockTrustsTorn }},
	{"checksum-ignores-slot", "misdirected-write",
		"a restart from disk does not check the slot a record names, so a misdirected write passes for the op it overwrote",
		func(b *Bugs) { b.ChecksumIgnoresSlot = true }, func(b *Bugs) bool { return b.ChecksumIgnoresSlot }},
	{"own-ack-before-write-lands", "unlanded-commit",
		"a primary on a disk counts its own ack before the op's write lands, so a cluster of one commits an op a crash takes back",
		func(b *Bugs) { b.OwnAckBeforeWriteLands = true }, func(b *Bugs) bool { return b.OwnAckBeforeWriteLands }},
	{"checkpoint-trusts-unverified", "damaged-checkpoint",
		"a restart from disk takes the checkpoint record its superblock names without verifying it, so a damaged record's state is restored",
		func(b *Bugs) { b.CheckpointTrustsUnverified = true }, func(b *Bugs) bool { return b.CheckpointTrustsUnverified }},
	{"repair-serves-unread", "stale-repair-read",
		"a replica serves a repair from the copy its disk returns without verifying it is the entry its journal names, so a stale copy goes out as the committed op",
		func(b *Bugs) { b.RepairServesUnread = true }, func(b *Bugs) bool { return b.RepairServesUnread }},
}

// ParseBugs turns CLI names into switches. Unknown names are an error naming the
// known ones.
func ParseBugs(names []string) (Bugs, error) {
	var b Bugs
	for _, name := range names {
		found := false
		for i := range BugCatalog {
			if BugCatalog[i].Name == name {
				BugCatalog[i].set(&b)
				vsr.Assert(vsr.Unowned, BugCatalog[i].get(&b), "bug_switch_reads_as_set", "catalog entry %d", uint64(i))
				found = true
			}
		}
		if !found {
			known := make([]string, len(BugCatalog))
			for i := range BugCatalog {
				known[i] = BugCatalog[i].Name
			}
			return Bugs{}, fmt.Errorf("unknown bug %q (known: %s)", name, strings.Join(known, ", "))
		}
	}
	return b, nil
}

// Names returns the CLI names of the switches that are on, in catalog order.
func (b Bugs) Names() []string {
	names := []string{}
	for i := range BugCatalog {
		if BugCatalog[i].get(&b) {
			names = append(names, BugCatalog[i].Name)
		}
	}
	// The names parse back to these very switches: none is missing from
	// the catalog.
	back, err := ParseBugs(names)
	vsr.Assert(vsr.Unowned, err == nil && back == b, "bug_names_round_trip", "%d names", uint64(len(names)))
	return names
}
