package replica

import (
	"vsrsim/marks"
	"vsrsim/vsr"
)

// noMark: a reason whose drop names no protocol branch worth a mark.
const noMark = marks.Count

// dropMarks maps a drop reason to its coverage mark (docs/marks.md). The
// drop path counts through it, so each reason is marked wherever it is
// refused (gate or handler) from one call site. An offer the gate refuses as
// not newer is the same branch installTransfer marks for a snapshot that
// arrived too late.
var dropMarks = func() (t [vsr.ReasonCount]marks.Mark) {
	for i := range t {
		t[i] = noMark
	}
	t[vsr.ReasonBadChecksum] = marks.DropBadChecksum
	t[vsr.ReasonGap] = marks.DropGap
	t[vsr.ReasonOldView] = marks.DropOldView
	// A partial admission counts as the refusal it was before it took its
	// fact: the same branch of the gate.
	t[vsr.ReasonProbeNewerView] = marks.DropNewerView
	t[vsr.ReasonRelayView] = marks.DropOldView
	t[vsr.ReasonOldPrimaryAlive] = marks.DropOldView
	t[vsr.ReasonStaleIncarnation] = marks.DropStaleIncarnation
	t[vsr.ReasonParentMismatch] = marks.DropParentMismatch
	t[vsr.ReasonHeaderMismatch] = marks.DropHeaderMismatch
	t[vsr.ReasonUnverified] = marks.DropUnverified
	t[vsr.ReasonRecovering] = marks.DropRecovering
	t[vsr.ReasonTransferring] = marks.DropTransferring
	t[vsr.ReasonRequestQueueFull] = marks.DropRequestQueueFull
	t[vsr.ReasonOldRequest] = marks.DropOldRequest
	t[vsr.ReasonChunkCorrupt] = marks.DropChunkCorrupt
	t[vsr.ReasonDVCUnreadable] = marks.DropDVCUnreadable
	t[vsr.ReasonDVCGap] = marks.DropDVCUnreadable
	t[vsr.ReasonStartViewUnreadable] = marks.DropStartViewUnreadable
	t[vsr.ReasonBelowCommit] = marks.DropBelowCommit
	t[vsr.ReasonBelowAck] = marks.DropBelowAck
	t[vsr.ReasonOfferNotNewer] = marks.TransferOfferRefusedNotNewer
	return t
}()

// markMerge counts the decisions of a merge that is ready to install: the
// quorum itself, and each kind of verdict it reached on the ops it weighed.
func (r *Replica) markMerge(res *mergeResult) {
	vsr.Assert(r.id, res.ready, "mark_merge_ready", vsr.DetailHolds)
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
