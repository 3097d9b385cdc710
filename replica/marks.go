package replica

import "vsrsim/marks"

// noMark: a reason whose drop names no protocol branch worth a mark.
const noMark = marks.Count

// dropMarks maps a drop reason to its coverage mark (docs/marks.md). The
// drop path counts through it, so each reason is marked wherever it is
// refused (gate or handler) from one call site. An offer the gate refuses as
// not newer is the same branch installTransfer marks for a snapshot that
// arrived too late.
var dropMarks = func() (t [reasonCount]marks.Mark) {
	for i := range t {
		t[i] = noMark
	}
	t[ReasonBadChecksum] = marks.DropBadChecksum
	t[ReasonGap] = marks.DropGap
	t[ReasonOldView] = marks.DropOldView
	t[ReasonNewerView] = marks.DropNewerView
	t[ReasonStaleIncarnation] = marks.DropStaleIncarnation
	t[ReasonParentMismatch] = marks.DropParentMismatch
	t[ReasonHeaderMismatch] = marks.DropHeaderMismatch
	t[ReasonUnverified] = marks.DropUnverified
	t[ReasonRecovering] = marks.DropRecovering
	t[ReasonTransferring] = marks.DropTransferring
	t[ReasonRequestQueueFull] = marks.DropRequestQueueFull
	t[ReasonOldRequest] = marks.DropOldRequest
	t[ReasonChunkCorrupt] = marks.DropChunkCorrupt
	t[ReasonDVCUnreadable] = marks.DropDVCUnreadable
	t[ReasonDVCGap] = marks.DropDVCUnreadable
	t[ReasonStartViewUnreadable] = marks.DropStartViewUnreadable
	t[ReasonBelowCommit] = marks.DropBelowCommit
	t[ReasonBelowAck] = marks.DropBelowAck
	t[ReasonOfferNotNewer] = marks.TransferOfferRefusedNotNewer
	return t
}()

// markMerge counts the decisions of a merge that is ready to install: the
// quorum itself, and each kind of verdict it reached on the ops it weighed.
func (r *Replica) markMerge(res *mergeResult) {
	r.mark(marks.DVCQuorum)
	for i := range res.decisions {
		d := &res.decisions[i]
		if d.unsure > 0 {
			r.mark(marks.MergeUnsure)
		}
		switch d.verdict {
		case opCanonical:
			r.mark(marks.MergeKeep)
		case opTruncated:
			r.mark(marks.MergeTruncate)
		}
	}
}
