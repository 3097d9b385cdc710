package replica

import (
	"vsrsim/marks"
	"vsrsim/vsr"
)

// Replies (protocol.md "Replies"). The primary answers every request it
// commits. So does one backup per op, the same one on every replica, chosen
// from the op alone, and any backup answers a request it already applied from
// its client table: a primary the clients cannot reach, or whose replies are
// lost, then still serves them through its backups. Every such reply carries
// the result of an applied, so committed, op: a client that takes the first
// one it gets sees what the primary would have said, exactly once.

// repliesTo reports whether this replica answers the client of h, an op it
// just applied: the primary always; with backup replies on, a Normal backup
// when the op is its to answer and still recent (a backup catching up through
// hundreds of old ops owes their clients nothing: they were answered or moved
// on long ago).
func (r *Replica) repliesTo(h *vsr.Header) bool {
	if r.status != vsr.StatusNormal {
		return false
	}
	if r.isPrimary() {
		return true
	}
	return r.fwd.BackupReplies && r.replyBackup(h.Op) == r.id && h.Op+vsr.PipelineMax > r.wm.commitMax
}

// replyBackup is the backup of this view that answers op's client beside the
// primary: a hash of the op picks one of the n-1 backups, so the load spreads
// and every replica agrees which one it is without a message.
func (r *Replica) replyBackup(op uint64) int {
	k := int(vsr.ChecksumMix(op) % uint64(r.n-1)) // scatters consecutive ops
	if k >= r.primary() {
		k++ // skip the primary
	}
	vsr.Assert(r.id, k != r.primary(), "reply_backup_is_a_backup", vsr.DetailHolds)
	vsr.Assert(r.id, k < r.n, "reply_backup_is_a_backup", vsr.DetailHolds)
	return k
}

// answerFromTable answers a client's request this backup already applied,
// from its client table, as the primary would, and reports whether it did: a
// client whose reply from the primary was lost, or that cannot reach the
// primary, gets its answer from the first backup it tries.
func (r *Replica) answerFromTable(p vsr.Request) bool {
	if !r.fwd.BackupReplies {
		return false
	}
	idx := r.clientIndex(p.Client)
	if idx < 0 || idx >= vsr.ClientsMax {
		return false
	}
	entry := r.sm.Clients[idx]
	if entry.Request == 0 || p.Request != entry.Request {
		return false
	}
	vsr.Assert(r.id, entry.Op <= r.wm.commitMin, "table_reply_applied", "op %d applied %d", entry.Op, r.wm.commitMin)
	r.fx.Mark(marks.ReplyFromBackupTable)
	r.replyFromTable(p, entry)
	return true
}

// replyFromTable answers request p with the op and result its client table
// row recorded: the committed answer, never a re-execution (exactly once).
func (r *Replica) replyFromTable(p vsr.Request, entry vsr.ClientEntry) {
	r.fx.Send(int(p.Client), vsr.Reply{Client: p.Client, Request: p.Request, Op: entry.Op, Result: entry.Result}.Message())
}
