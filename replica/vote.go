package replica

import (
	"slices"
	"vsrsim/marks"
	"vsrsim/vsr"
)

// A view change vote (DoViewChange) as this replica writes it and reads
// another's: the commit point it states, the suffix of its log, and whether a
// suffix is readable (protocol.md "View change").

// voteCommit is the commit point a DoViewChange states: commit_max, except
// under the transfer-rewinds-sequencer defect, whose rewound install makes
// the vote state the checkpoint it installed (as the source's votes stated
// their commit floor) until the replica settles a view again. The replica's
// own commit_max never regresses.
func (r *Replica) voteCommit() uint64 {
	vsr.Assert(r.id, r.rewoundCommit == 0 || r.opts.Bugs.TransferRewindsSequencer, "rewound_commit_only_under_defect",
		"rewound to %d", r.rewoundCommit)
	if r.rewoundCommit != 0 && r.rewoundCommit < r.wm.commitMax {
		return r.rewoundCommit
	}
	return r.wm.commitMax
}

func (r *Replica) doViewChange() vsr.DoViewChange {
	// A recovering replica votes nothing until a primary hands it a view.
	vsr.Assert(r.id, r.status != vsr.StatusRecovering, "vote_not_recovering", "view %d", r.view)
	return vsr.DoViewChange{
		LogView: r.logView,
		Op:      r.voteOp(),
		Commit:  r.voteCommit(),
		Suffix:  r.dvcSuffix(),
	}
}

// dvcSuffix returns this replica's DoViewChange suffix, rebuilt only when its
// cache tag changes. The journal generation belongs in the tag: a body that lands
// without moving op or commit changes what the suffix must say.
func (r *Replica) dvcSuffix() []vsr.SuffixEntry {
	tag := dvcCacheTag{op: r.voteOp(), commit: r.voteCommit(), generation: r.log.journalGen}
	if r.opts.Bugs.DVCCacheIgnoresJournal {
		tag.generation = 0
	}
	if r.vc.dvcCacheOK && r.vc.dvcCacheTag == tag {
		r.fx.Mark(marks.DVCCacheHit)
		return r.vc.dvcCache
	}
	if r.vc.dvcCacheOK {
		r.fx.Mark(marks.DVCCacheRebuilt)
	}
	r.vc.dvcCache = r.buildSuffix(r.voteHead(), r.voteCommit())
	r.vc.dvcCacheTag = tag
	r.vc.dvcCacheOK = true
	return r.vc.dvcCache
}

// knownHead is the highest op this replica knows a header for. It equals the
// sequencer unless a state transfer rewound the sequencer below an adopted head.
func (r *Replica) knownHead() uint64 {
	if r.log.adoptedHead > r.wm.sequencer {
		return r.log.adoptedHead
	}
	return r.wm.sequencer
}

// voteOp is the head a vote states (its Op), and voteHead the op its suffix
// starts at: the sequencer and the known head, which differ only under the
// transfer-rewinds-sequencer defect. A replica recovering its head may have
// acked ops up to its unsure top that it can no longer show: its vote states
// them, unsure, rather than a head that would nack them.
func (r *Replica) voteOp() uint64 {
	if r.log.recoveringHead {
		return r.voteHead()
	}
	return r.wm.sequencer
}

func (r *Replica) voteHead() uint64 {
	if r.log.recoveringHead {
		return max(r.knownHead(), r.log.unsureTop)
	}
	return r.knownHead()
}

// buildSuffix lists headers from top down to commit (inclusive), at most
// SuffixMax: journaled (present), adopted (header only), or blank (a nack).
// A new slice every time: a sent suffix is never mutated.
func (r *Replica) buildSuffix(top, commit uint64) []vsr.SuffixEntry {
	count := uint64(0)
	if top >= commit {
		count = top - commit + 1
	}
	if top == 0 && commit == 0 {
		count = 0
	}
	if count > vsr.SuffixMax {
		count = vsr.SuffixMax
	}
	s := make([]vsr.SuffixEntry, 0, count)
	for i := uint64(0); i < count; i++ {
		o := top - i
		if o == 0 {
			break
		}
		e := r.suffixEntry(o, commit)
		// From the top down, one op at a time; a nack names no header
		// and a copy always does (the merge reads them so).
		vsr.Assert(r.id, e.Header.Op == o, "suffix_entry_at_its_op", "op %d entry %d", o, e.Header.Op)
		vsr.Assert(r.id, !e.Nack || e.Blank(), "suffix_nack_is_blank", "op %d", o)
		vsr.Assert(r.id, !e.Present || !e.Blank(), "suffix_copy_has_header", "op %d", o)
		s = append(s, e)
	}
	vsr.Assert(r.id, len(s) == 0 || s[len(s)-1].Header.Op >= commit, "suffix_down_to_commit", "commit %d", commit)
	return s
}

// suffixEntry is what this replica says of op o in a suffix down to commit.
func (r *Replica) suffixEntry(o, commit uint64) vsr.SuffixEntry {
	if h, ok := r.log.journal.Get(o); ok {
		return vsr.SuffixEntry{Header: h, Present: true}
	}
	// Adopted headers of another log_view than the one voted (a restart
	// back in an older durable log_view keeps them under their own label,
	// D65) describe another log: a vote states only its own (D80; the
	// model's one_log_per_view, swarm seed 3238043820 of 100,000 from
	// 0xc0ffee00).
	if h, ok := r.log.adopted.Get(o); ok && r.log.adoptedLogView == r.logView {
		if o <= r.log.unsureTop {
			r.fx.Mark(marks.RestartAmnesiacUnsureHeld)
		}
		return vsr.SuffixEntry{Header: h, Unsure: o <= r.log.unsureTop || r.unsureOp(o)}
	}
	if o == r.log.commitAnchor.Op && o > r.wm.commitMin && r.log.commitAnchor.Checksum != 0 && r.log.adoptedLogView == r.logView {
		// A primary-elect may know the commit point's header only from
		// the votes: pass it on, so backups can anchor their journals.
		// Unsure where this replica may have acked the op and lost its
		// body, as for an adopted header (the open finding
		// lost-rewrite-source-vote-drops-acked-body.vsr: the anchor passed
		// on as a bare header an acked op whose slot a restart found faulty).
		return vsr.SuffixEntry{Header: r.log.commitAnchor, Unsure: o <= r.log.unsureTop || r.unsureOp(o)}
	}
	if o == r.wm.commitMin && o > 0 {
		return vsr.SuffixEntry{Header: vsr.Header{Op: o, Checksum: r.wm.commitSum}}
	}
	if r.unsureOp(o) {
		// Its slot was faulty at a restart: this replica may have acked it.
		r.fx.Mark(marks.StorageUnsureVoted)
		return vsr.SuffixEntry{Header: vsr.Header{Op: o}}
	}
	return vsr.SuffixEntry{Header: vsr.Header{Op: o}, Nack: o > commit && o > r.log.unsureTop}
}

// suffixReadable checks that a suffix starts at op and walks down one op at a
// time with a consistent parent chain. A receiver drops an unreadable vote whole.
func suffixReadable(op, commit uint64, s []vsr.SuffixEntry) bool {
	if len(s) == 0 {
		return op <= commit || op == 0
	}
	if s[0].Header.Op != op {
		return false
	}
	for i := range s {
		e := &s[i]
		if e.Header.Op != op-uint64(i) {
			return false
		}
		if !e.Blank() && e.Header.Parent != 0 && !e.Header.Valid() {
			return false
		}
		if i+1 < len(s) {
			next := &s[i+1]
			if !e.Blank() && !next.Blank() && e.Header.Parent != 0 && e.Header.Parent != next.Header.Checksum {
				return false
			}
		}
	}
	return true
}

// suffixGap returns the ops a full window leaves between a vote's commit
// point and the bottom of its suffix: above the commit, so uncommitted by the
// voter's own account, and described by no entry.
func suffixGap(commit uint64, s []vsr.SuffixEntry) (lo, hi uint64, ok bool) {
	if len(s) < vsr.SuffixMax {
		return 0, 0, false
	}
	bottom := s[len(s)-1].Header.Op
	if bottom <= commit+1 {
		return 0, 0, false
	}
	return commit + 1, bottom - 1, true
}

// dropUnreadable drops an unreadable vote whole. One whose window also leaves
// a gap above its commit point gets its own reason, with the vote's commit and
// the window's bottom: a readable vote's gap lies more than a window below the
// head it announces, where the pipeline bound proves every op committed (see
// tryMerge), but this vote announces a head below its window, so nothing
// places the ops in the gap.
func (r *Replica) dropUnreadable(from int, view uint64, m vsr.DoViewChange) {
	d := vsr.Dropped{Command: vsr.CmdDoViewChange, From: from, View: view, Op: m.Op, Reason: vsr.ReasonDVCUnreadable, Detail: m.Op}
	if lo, _, ok := suffixGap(m.Commit, m.Suffix); ok {
		d.Reason, d.Commit, d.Detail = vsr.ReasonDVCGap, lo-1, m.Suffix[len(m.Suffix)-1].Header.Op
	}
	r.fx.MarkReason(d.Reason)
	r.fx.Emit(d.Event())
}

// unsureOp reports whether op's slot was faulty at the restart and the op is
// neither applied nor journaled since: the vote must not nack it.
func (r *Replica) unsureOp(o uint64) bool {
	if o <= r.wm.commitMin || len(r.log.unsureOps) == 0 {
		return false
	}
	// The search holds only on a list kept sorted (the list is a restart's
	// faulty slots and the bodies reads gave up: short).
	vsr.Assert(r.id, slices.IsSorted(r.log.unsureOps), "unsure_ops_sorted", "op %d", o)
	_, found := slices.BinarySearch(r.log.unsureOps, o)
	return found
}
