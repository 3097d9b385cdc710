package replica

// State transfer (protocol.md "State transfer"): a replica whose next op is no
// longer retained by its peers pulls a checkpoint instead.

// transferPatience is how many retry periods without a chunk a pinned offer
// survives at first.
const transferPatience = 3

func (r *Replica) startTransfer() {
	if r.transfer.active {
		return
	}
	r.transfer = transferState{active: true}
	r.requestOffer()
	r.tTransfer.start(r.jitter)
}

// requestOffer asks the primary for an offer; a lagging primary asks its
// backups in turn, since nobody else can answer for it.
func (r *Replica) requestOffer() {
	if r.status != StatusNormal || r.n == 1 {
		return
	}
	peer := r.primary()
	if peer == r.id {
		r.transfer.asks++
		peer = (r.id + 1 + int(r.transfer.asks%uint64(r.n-1))) % r.n
	}
	r.send(peer, Message{Command: CmdRequestStateTransfer})
}

func (r *Replica) onTransferTimeout() {
	if !r.transfer.active {
		r.tTransfer.stop()
		return
	}
	if r.status != StatusNormal {
		r.tTransfer.reset(r.jitter)
		return
	}
	if r.commitMin == r.commitMax || (r.repairFloor > 0 && r.commitMin+1 >= r.repairFloor) {
		// Repair caught up past what peers had evicted: nothing to transfer.
		r.transfer = transferState{}
		r.repairFloor = 0
		r.tTransfer.stop()
		return
	}
	if !r.transfer.pinned {
		r.requestOffer()
	} else {
		// One chunk in flight, pulled on the retry cadence.
		r.send(r.transfer.peer, Message{Command: CmdRequestStateChunk, Commit: r.transfer.commitOp,
			Chunk: r.transfer.next, Chunks: SnapshotChunks})
		r.transfer.stalls++
		if r.transfer.stalls > transferPatience<<min(r.transfer.abandons, 6) {
			r.transfer.pinned = false
			r.transfer.snapshot = nil
			r.transfer.abandons++
		}
	}
	// A chunk that arrived reset stalls: the pull keeps its cadence. Every
	// request in a row that went unanswered doubles the wait (capped).
	r.tTransfer.retry(r.jitter, uint64(max(r.transfer.stalls-1, 0)))
}

func (r *Replica) onRequestStateTransfer(m *Message) {
	caughtUp := r.status == StatusNormal && r.commitMin == r.commitMax
	if !caughtUp || !(r.isPrimary() || m.From == r.primary()) || m.From < 0 || m.From >= r.n {
		r.drop(m, "cannot-offer", 0)
		return
	}
	s := &Snapshot{Op: r.commitMin, OpChecksum: r.commitSum, State: r.sm}
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
	r.send(m.From, Message{Command: CmdStateTransferOffer, Commit: s.Op})
}

func (r *Replica) onStateTransferOffer(m *Message) {
	if !r.transfer.active || r.transfer.pinned || r.status != StatusNormal {
		return
	}
	if m.Commit <= r.commitMin {
		r.drop(m, "offer-not-newer", r.commitMin)
		return
	}
	r.transfer.pinned = true
	r.transfer.peer = m.From
	r.transfer.offerView = m.View
	r.transfer.commitOp = m.Commit
	r.transfer.next = 0
	r.transfer.stalls = 0
	r.transfer.snapshot = nil
}

func (r *Replica) onRequestStateChunk(m *Message) {
	if m.Chunk < 0 || m.Chunk >= SnapshotChunks {
		r.drop(m, "bad-chunk", 0)
		return
	}
	for _, s := range r.offers {
		if s.Op == m.Commit {
			r.send(m.From, Message{Command: CmdStateChunk, Commit: s.Op, Chunk: m.Chunk, Chunks: SnapshotChunks, Snapshot: s})
			return
		}
	}
	r.drop(m, "offer-gone", m.Commit)
}

func (r *Replica) onStateChunk(m *Message) {
	t := &r.transfer
	if !t.active || !t.pinned || m.Commit != t.commitOp || m.Chunk != t.next || m.Snapshot == nil {
		return
	}
	if m.Snapshot.Op != t.commitOp || m.Snapshot.State.Checksum() != m.Snapshot.StateChecksum {
		r.drop(m, "chunk-corrupt", 0)
		return
	}
	t.snapshot = m.Snapshot
	t.next++
	t.stalls = 0
	if t.next == SnapshotChunks {
		r.installTransfer()
	}
}

// staleGuard is the highest op an install at a lower op would wrongly
// discard. The install keeps every journaled op above the checkpoint, so what
// this replica acked (its ack head) survives any newer offer and the fixed
// guard refuses nothing; ops fetched by repair are committed and need no
// protection either. The defect guards max(journal head, commit_max) and, under
// steady writes, refuses every offer.
func (r *Replica) staleGuard() uint64 {
	if r.opts.Bugs.StaleGuardUsesCommitMax {
		g := r.commitMax
		if r.journal.head > g {
			g = r.journal.head
		}
		return g
	}
	// Committed ops need no protection; above commit_max an acked op whose
	// body is gone (none should be) must never be cut below.
	for op := min(r.ackHead, r.knownHead()); op > r.commitMax; op-- {
		if _, ok := r.journal.get(op); !ok {
			return op
		}
	}
	return 0
}

func (r *Replica) installTransfer() {
	t := &r.transfer
	s := t.snapshot
	if s.Op <= r.commitMin {
		r.emit(Event{Kind: EvOfferRefused, Op: s.Op, Aux: r.commitMin, Reason: "not-newer"})
		t.pinned = false
		t.snapshot = nil
		return
	}
	if guard := r.staleGuard(); guard > s.Op {
		r.emit(Event{Kind: EvOfferRefused, Op: s.Op, Aux: guard, Reason: "stale"})
		t.pinned = false
		t.snapshot = nil
		return
	}
	// The checkpoint replaces every op up to it; journaled ops above it stay
	// (this replica may have acked them), and repair fetches what is missing.
	r.journal.dropThrough(s.Op)
	r.journalFloor = s.Op + 1
	r.sm = s.State
	r.commitMin = s.Op
	r.commitSum = s.OpChecksum
	r.advanceCommitMax(s.Op)
	if r.opts.Bugs.TransferRewindsSequencer {
		r.sequencer = s.Op
		r.headSum = s.OpChecksum
	} else {
		r.journalGen++
		if r.sequencer < s.Op {
			r.sequencer = s.Op
			r.headSum = s.OpChecksum
		}
	}
	r.sb.Checkpoint = *s
	r.writeSuperblock()
	r.repairFloor = 0
	r.transfer = transferState{}
	r.tTransfer.stop()
	r.emit(Event{Kind: EvTransferInstall, Op: s.Op, Aux: r.knownHead()})
	if r.isPrimary() {
		r.commitWalk()
	}
	r.repairArmedTo = r.fetchToOp()
	r.repairKick()
}
