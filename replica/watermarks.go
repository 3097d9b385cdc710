package replica

import "vsrsim/vsr"

// watermarks are the replica's positions in its log, each an op with the
// checksum that pins it where a chain is walked from there. Their order is the
// protocol's spine: nothing is applied that is not known committed
// (commitMin <= commitMax), and a log holds what it applied
// (commitMin <= sequencer). The primary's head also covers what it committed;
// a backup's commit point may run ahead of its log, since heartbeats carry the
// primary's commit_max before repair brings the ops.
type watermarks struct {
	sequencer uint64 // the head op: the highest op of the log this replica knows
	headSum   uint64 // checksum of the header at sequencer
	commitMin uint64 // the highest op applied to the state machine
	commitSum uint64 // checksum of the prepare at commitMin
	commitMax uint64 // the highest op known committed
}

// checkWatermarks asserts the watermarks' order after every step, and where
// each stands against what the superblock made durable: the checkpoint is an
// applied op, and the durable commit point never runs ahead of the live one.
func (r *Replica) checkWatermarks() {
	w := &r.wm
	vsr.Assert(r.id, w.commitMin <= w.commitMax, "commit_min_le_commit_max",
		"commit_min=%d commit_max=%d", w.commitMin, w.commitMax)
	vsr.Assert(r.id, w.commitMin <= w.sequencer, "commit_min_le_sequencer",
		"commit_min=%d sequencer=%d", w.commitMin, w.sequencer)
	vsr.Assert(r.id, r.dur.sb.Checkpoint.Op <= w.commitMin, "checkpoint_le_commit_min",
		"checkpoint=%d commit_min=%d", r.dur.sb.Checkpoint.Op, w.commitMin)
	vsr.Assert(r.id, r.dur.sb.CommitMax <= w.commitMax, "durable_commit_le_commit_max",
		"superblock=%d commit_max=%d", r.dur.sb.CommitMax, w.commitMax)
	// isPrimary divides: it goes last.
	vsr.Assert(r.id, r.status != vsr.StatusNormal || w.commitMax <= w.sequencer || !r.isPrimary(), "primary_head_ge_commit_max",
		"commit_max=%d sequencer=%d", w.commitMax, w.sequencer)
}
