package replica

import (
	"vsrsim/marks"
	"vsrsim/vsr"
)

// State transfer (protocol.md "State transfer"): a replica whose next op is no
// longer retained by its peers pulls a checkpoint instead.

// The chunks pulled fit transferState.got's bits (a constant that overflows
// uint8 fails the build).
const _ = uint8(1<<vsr.SnapshotChunks - 1)

// transferPatience is how many retry periods without a chunk a pinned offer
// survives at first.
const transferPatience = 3

func (r *Replica) startTransfer() {
	if r.transfer.active {
		return
	}
	r.fx.Mark(marks.TransferStarted)
	r.transfer = transferState{active: true}
	r.requestOffer()
	r.timers.Transfer.Start(r.jitter)
}

// offerAsksOfPrimary is how many requests in a row a transferring backup
// sends its primary before it asks its other peers too.
const offerAsksOfPrimary = 2

// requestOffer asks the primary for an offer; a lagging primary asks its
// backups in turn, since nobody else can answer for it. A backup whose
// primary left two requests unanswered, or whose pinned offer went silent,
// asks every peer in turn: its link to the primary may be slow or full while
// a caught-up peer is one hop away (a backup of the core behind a slow link
// to a primary outside it never caught up, swarm seed 17943942941257122543),
// and any caught-up replica's state is committed.
func (r *Replica) requestOffer() {
	if r.status != vsr.StatusNormal || r.n == 1 {
		return
	}
	peer := r.primary()
	if peer == r.id || r.transfer.unanswered >= offerAsksOfPrimary || r.transfer.abandons > 0 || r.primarySilent() {
		r.transfer.asks++
		peer = (r.id + 1 + int(r.transfer.asks%uint64(r.n-1))) % r.n
		peer = r.nextPeer(peer, r.anyPeer)
	}
	r.transfer.unanswered++
	r.fx.Send(peer, vsr.RequestStateTransfer{}.Message())
}

// primarySilent reports whether this backup's primary has not been heard
// lately while another peer has: an offer request to it would only wait out
// a retry period (recency.go).
func (r *Replica) primarySilent() bool {
	if !r.silentPrimary(r.primary()) || r.peersHeard() == 0 {
		return false
	}
	r.fx.Mark(marks.PeerRecentChosen)
	return true
}

func (r *Replica) onTransferTimeout() {
	if !r.transfer.active {
		r.timers.Transfer.Stop()
		return
	}
	if r.status != vsr.StatusNormal {
		r.timers.Transfer.Reset(r.jitter)
		return
	}
	if r.wm.commitMin == r.wm.commitMax || (r.log.repairFloor > 0 && r.wm.commitMin+1 >= r.log.repairFloor) {
		// Repair caught up past what peers had evicted: nothing to transfer.
		r.transfer = transferState{}
		r.log.repairFloor = 0
		r.timers.Transfer.Stop()
		return
	}
	if !r.transfer.pinned {
		r.requestOffer()
	} else {
		// One chunk in flight, pulled on the retry cadence.
		r.fx.Send(r.transfer.peer, vsr.RequestStateChunk{SnapshotOp: r.transfer.commitOp, Chunk: r.transfer.next}.Message())
		r.transfer.stalls++
		if r.transfer.stalls > transferPatience<<min(r.transfer.abandons, 6) {
			r.transfer.pinned = false
			r.transfer.snapshot = nil
			r.transfer.abandons++
		}
	}
	// A chunk that arrived reset stalls: the pull keeps its cadence. Every
	// request in a row that went unanswered doubles the wait (capped).
	r.timers.Transfer.Retry(r.jitter, uint64(max(r.transfer.stalls-1, 0)))
}

func (r *Replica) onRequestStateTransfer(m *vsr.Envelope) {
	vsr.Assert(r.id, r.status == vsr.StatusNormal, "request_state_transfer_gate_caught_up", vsr.DetailGate)
	vsr.Assert(r.id, r.wm.commitMin == r.wm.commitMax, "request_state_transfer_gate_caught_up", vsr.DetailGate)
	s := &vsr.Snapshot{Op: r.wm.commitMin, OpChecksum: r.wm.commitSum, State: r.sm}
	s.StateChecksum = s.State.Checksum()
	if len(r.offers) > 0 && r.offers[len(r.offers)-1].Op == s.Op {
		s = r.offers[len(r.offers)-1]
	} else {
		if len(r.offers) >= offerSnapshotsMax {
			copy(r.offers, r.offers[1:])
			r.offers = r.offers[:len(r.offers)-1]
		}
		r.offers = append(r.offers, s)
	}
	vsr.Assert(r.id, len(r.offers) <= offerSnapshotsMax, "offer_kept_at_commit_min", vsr.DetailHolds)
	vsr.Assert(r.id, r.offers[len(r.offers)-1].Op == r.wm.commitMin, "offer_kept_at_commit_min", vsr.DetailHolds)
	r.fx.Send(m.From, vsr.StateTransferOffer{SnapshotOp: s.Op}.Message())
}

func (r *Replica) onStateTransferOffer(m *vsr.Envelope, p vsr.StateTransferOffer) {
	vsr.Assert(r.id, r.transfer.active, "offer_gate_wanted", vsr.DetailGate)
	vsr.Assert(r.id, !r.transfer.pinned, "offer_gate_wanted", vsr.DetailGate)
	vsr.Assert(r.id, r.status == vsr.StatusNormal, "offer_gate_wanted", vsr.DetailGate)
	vsr.Assert(r.id, p.SnapshotOp > r.wm.commitMin, "offer_gate_newer", vsr.DetailGate)
	r.transfer.pinned = true
	r.transfer.unanswered = 0
	r.transfer.peer = m.From
	r.transfer.offerView = m.View
	r.transfer.commitOp = p.SnapshotOp
	r.transfer.next, r.transfer.got = 0, 0
	r.transfer.stalls = 0
	r.transfer.snapshot = nil
}

func (r *Replica) onRequestStateChunk(m *vsr.Envelope, p vsr.RequestStateChunk) {
	s := r.offerAt(p.SnapshotOp)
	vsr.Assert(r.id, s != nil, "state_chunk_gate_offer", vsr.DetailGate)
	vsr.Assert(r.id, p.Chunk >= 0, "state_chunk_gate_offer", vsr.DetailGate)
	vsr.Assert(r.id, p.Chunk < vsr.SnapshotChunks, "state_chunk_gate_offer", vsr.DetailGate)
	// Every chunk from the one asked on, at once: one chunk per round trip
	// took four round trips of the link to the peer pinned, and a backup
	// behind a slow one never installed (D114; swarm seed 1796080266 from
	// 0x6b0e0000, a 6,251-tick link from its primary). The source's
	// transfer pulls one (Protocol.SourceTransfer).
	last := p.Chunk
	if !r.log.sourceInstall {
		last = vsr.SnapshotChunks - 1
	}
	for c := p.Chunk; c <= last; c++ {
		r.fx.Send(m.From, vsr.StateChunk{SnapshotOp: s.Op, Chunk: c, Snapshot: s}.Message())
	}
}

// offerAt returns the offered snapshot at op, or nil once it aged out.
func (r *Replica) offerAt(op uint64) *vsr.Snapshot {
	for _, s := range r.offers {
		if s.Op == op {
			return s
		}
	}
	return nil
}

func (r *Replica) onStateChunk(m *vsr.Envelope, p vsr.StateChunk) {
	t := &r.transfer
	vsr.Assert(r.id, t.active, "state_chunk_gate_wanted", vsr.DetailGate)
	vsr.Assert(r.id, t.pinned, "state_chunk_gate_wanted", vsr.DetailGate)
	vsr.Assert(r.id, p.SnapshotOp == t.commitOp, "state_chunk_gate_wanted", vsr.DetailGate)
	vsr.Assert(r.id, p.Chunk >= t.next && t.got&(1<<uint(p.Chunk)) == 0, "state_chunk_gate_wanted", vsr.DetailGate)
	vsr.Assert(r.id, p.Snapshot != nil, "state_chunk_gate_wanted", vsr.DetailGate)
	t.snapshot = p.Snapshot
	t.got |= 1 << uint(p.Chunk)
	for t.next < vsr.SnapshotChunks && t.got&(1<<uint(t.next)) != 0 {
		t.next++
	}
	t.stalls = 0
	if t.next == vsr.SnapshotChunks {
		r.installTransfer()
	}
	vsr.Assert(r.id, r.transfer.next < vsr.SnapshotChunks || !r.transfer.pinned, "state_chunk_pull_bounded", vsr.DetailHolds)
}

// Offer refusals: the fixed guard's and the defect's have their own reasons,
// so a trace tells a rightful refusal from the stale-offer defect.
const (
	// refuseAcked: the offer lies below an op this replica holds and may have
	// acknowledged.
	refuseAcked = vsr.ReasonBelowAcceptedHead
	// refuseStale: the defect's guard, up to max(journal head, commit_max).
	refuseStale = vsr.ReasonStale
)

// acceptedHead bounds what this replica may have acknowledged. With a WAL
// every PrepareOk waits for the op to be journaled in order, so the highest op
// acked (the ack head) is the accepted head: nothing above it was ever
// acknowledged, and ops repair fetched above it are committed and need no
// protection. Without a WAL the source guards up to commit_max.
func (r *Replica) acceptedHead() uint64 {
	if r.opts.Durability == DurabilityMemory {
		return r.wm.commitMax
	}
	return r.dur.ackHead
}

// staleGuard returns the op that makes an offer at commitOp stale, and the
// reason, or 0 when the offer may install. A guard protects only what the
// install would lose: nothing, with the default install; with the source's
// (Protocol.SourceTransfer) the held ops above the offer up to the accepted
// head, as the source's fixed guard does. The defect protects everything
// up to max(journal head, commit_max), which under steady writes repair and
// heartbeats push past every pinned offer.
func (r *Replica) staleGuard(commitOp uint64) (uint64, vsr.Reason) {
	if r.opts.Bugs.StaleGuardUsesCommitMax {
		if g := max(r.log.journal.Head, r.wm.commitMax); g > commitOp {
			return g, refuseStale
		}
		return 0, vsr.ReasonNone
	}
	if !r.log.sourceInstall {
		return 0, vsr.ReasonNone // the install keeps every held op above the checkpoint
	}
	for op := min(r.acceptedHead(), r.knownHead()); op > commitOp; op-- {
		if _, ok := r.log.journal.Get(op); ok {
			return op, refuseAcked
		}
	}
	return 0, vsr.ReasonNone
}

func (r *Replica) installTransfer() {
	t := &r.transfer
	s := t.snapshot
	if s.Op <= r.wm.commitMin {
		r.fx.Mark(marks.TransferOfferRefusedNotNewer)
		r.fx.Emit(vsr.OfferRefused{Op: s.Op, Guard: r.wm.commitMin, Reason: vsr.ReasonNotNewer}.Event())
		t.pinned = false
		t.snapshot = nil
		return
	}
	if guard, reason := r.staleGuard(s.Op); guard != 0 {
		r.fx.Mark(marks.TransferOfferRefusedStale)
		r.fx.Emit(vsr.OfferRefused{Op: s.Op, Guard: guard, Reason: reason}.Event())
		t.pinned = false
		t.snapshot = nil
		return
	}
	r.fx.Mark(marks.TransferInstall)
	if s.Op < r.wm.commitMax {
		r.fx.Mark(marks.TransferInstallBelowCommit)
	}
	r.journalInstall(s.Op)
	r.sm = s.State
	r.wm.commitMin = s.Op
	r.wm.commitSum = s.OpChecksum
	r.advanceCommitMax(s.Op)
	if r.opts.Bugs.TransferRewindsSequencer {
		// The defect rewinds a backup to the checkpoint, head and commit
		// point both, while the view's adopted headers stay: its next vote
		// says what the source's said (op and commit at the checkpoint).
		r.wm.sequencer = s.Op
		r.wm.headSum = s.OpChecksum
		if !r.isPrimary() {
			r.rewoundCommit = s.Op
		}
	} else {
		r.log.journalGen++
		if r.wm.sequencer < s.Op {
			r.wm.sequencer = s.Op
			r.wm.headSum = s.OpChecksum
		}
	}
	vsr.Assert(r.id, r.wm.commitMin == s.Op, "install_at_snapshot", vsr.DetailHolds)
	vsr.Assert(r.id, r.wm.commitMax >= s.Op, "install_at_snapshot", vsr.DetailHolds)
	r.dur.sb.Checkpoint = *s
	r.writeSuperblock()
	r.log.repairFloor = 0
	r.transfer = transferState{}
	r.timers.Transfer.Stop()
	r.fx.Emit(vsr.TransferInstalled{Op: s.Op, Checksum: s.OpChecksum, Head: r.knownHead(), Commit: r.wm.commitMax, Snapshot: s}.Event())
	switch {
	case r.isPrimary():
		r.commitWalk()
	case !r.opts.Bugs.TransferRewindsSequencer:
		// What the journal holds above the checkpoint, up to the commit
		// point it knows, applies now: nothing else may come to walk it
		// (a backup cut off from its primary learns no commit point it
		// does not know already; D77). The defect's install keeps its
		// rewound head and commit point, as the source's does.
		r.commitUpTo()
	}
	r.log.repairArmedTo = r.fetchToOp()
	r.repairKick()
}
