package replica

import (
	"vsrsim/marks"
	"vsrsim/vsr"
)

// markMerge counts the decisions of a merge that is ready to install: the
// quorum itself, and each kind of verdict it reached on the ops it weighed.
func (r *Replica) markMerge(res *mergeResult) {
	vsr.Assert(r.id, res.ready, "mark_merge_ready", vsr.DetailHolds)
	r.fx.Mark(marks.DVCQuorum)
	for i := range res.decisions {
		d := &res.decisions[i]
		if d.unsure > 0 {
			r.fx.Mark(marks.MergeUnsure)
		}
		if d.implied {
			r.fx.Mark(marks.MergeImplied)
		}
		switch d.verdict {
		case opCanonical:
			r.fx.Mark(marks.MergeKeep)
		case opTruncated:
			r.fx.Mark(marks.MergeTruncate)
		}
	}
}
