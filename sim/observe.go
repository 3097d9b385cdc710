package sim

import (
	"vsrsim/sim/check"
	"vsrsim/vsr"
)

// The boundary between the replicas and the oracle: the harness translates
// what it sees (effects a replica reports, messages it delivers) into the
// oracle's own terms. The oracle never reads a replica.

func checkStatus(s vsr.Status) check.Status {
	switch s {
	case vsr.StatusNormal:
		return check.StatusNormal
	case vsr.StatusViewChange:
		return check.StatusViewChange
	}
	return check.StatusRecovering
}

func checkOp(o vsr.Operation) check.Op {
	k := check.OpNoop
	switch o.Kind {
	case vsr.OpPut:
		k = check.OpPut
	case vsr.OpGet:
		k = check.OpGet
	case vsr.OpIncr:
		k = check.OpIncr
	}
	return check.Op{Kind: k, Key: o.Key, Value: o.Value}
}

// checkReason maps the replica's refusal reasons that the liveness evidence
// weighs to the oracle's own words, by name rather than by text, so renaming a
// reason's trace word can never silently disable evidence. Every other reason
// maps to "": the oracle counts none of them.
func checkReason(r vsr.Reason) string {
	switch r {
	case vsr.ReasonGap:
		return check.ReasonGap
	case vsr.ReasonDVCUnreadable:
		return check.ReasonDVCUnreadable
	case vsr.ReasonDVCGap:
		return check.ReasonDVCGap
	case vsr.ReasonStale:
		return check.ReasonStale
	case vsr.ReasonBelowAcceptedHead:
		return check.ReasonBelowAcceptedHead
	}
	return ""
}

// clientIndex maps a client node id to its index (check.NoClient if none).
func (c *Cluster) clientIndex(node uint64) int {
	n := uint64(c.cfg.Replicas)
	if node < n || node >= n+uint64(c.cfg.Clients) {
		return check.NoClient
	}
	return int(node - n)
}

// report hands one replica event to the oracle.
func (c *Cluster) report(i int, e *vsr.Event) {
	o := c.checker
	switch e.Kind {
	case vsr.EvJournalAppend, vsr.EvAck, vsr.EvJournalTruncate, vsr.EvMergeTruncate, vsr.EvJournalPrune, vsr.EvJournalEvict, vsr.EvJournalSetAside, vsr.EvJournalAsideRelease:
		c.reportJournal(i, e)
	case vsr.EvPrimaryCommit:
		p := e.PrimaryCommitted()
		o.PrimaryCommit(c.now, i, p.View, p.Op, p.Checksum, p.Parent, c.clientIndex(p.Client), p.Request)
	case vsr.EvCommit:
		p := e.Applied()
		o.Apply(c.now, i, p.Op, p.Checksum, p.Parent, p.Result)
	case vsr.EvStatus:
		p := e.StatusChanged()
		o.Status(c.now, i, checkStatus(p.Status), p.View, p.LogView, p.Op, p.Commit)
	case vsr.EvCheckpoint:
		o.Checkpoint(c.now, i, e.Op, e.Checkpointed().StateChecksum)
	case vsr.EvTransferInstall:
		p := e.TransferInstalled()
		o.Install(c.now, i, p.Op, p.Checksum, check.StateHash(p.Snapshot.State.KV[:]))
	case vsr.EvDrop:
		p := e.Dropped()
		o.ReplicaDropped(i, checkReason(p.Reason), p.Op, p.Commit, p.Detail)
	case vsr.EvOfferRefused:
		p := e.OfferRefused()
		o.OfferRefused(checkReason(p.Reason), p.Op, p.Guard)
	case vsr.EvViewEscalate:
		o.Escalated(i)
	case vsr.EvHold:
		o.Held()
	}
}

// reportJournal hands the oracle one event of a replica's journal.
func (c *Cluster) reportJournal(i int, e *vsr.Event) {
	o := c.checker
	switch e.Kind {
	case vsr.EvJournalAppend:
		o.Journaled(i, e.Op, e.Checksum)
	case vsr.EvAck:
		o.AckNoted(i, e.Op, e.Checksum)
		c.reportOwnAck(i, e.Acked())
	case vsr.EvJournalTruncate:
		o.Dropped(c.now, i, check.DropTruncate, e.View, e.Op, e.Checksum, 0)
	case vsr.EvMergeTruncate:
		o.Dropped(c.now, i, check.DropMergeTruncate, e.View, e.Op, e.Checksum, e.MergeTruncated().Nacks)
	case vsr.EvJournalPrune:
		o.Dropped(c.now, i, check.DropPrune, e.View, e.Op, e.Checksum, 0)
	case vsr.EvJournalEvict:
		o.Evicted(i, e.Op, e.Checksum)
	case vsr.EvJournalSetAside:
		o.SetAside(i, e.Op, e.Checksum, c.cfg.JournalSlots)
	case vsr.EvJournalAsideRelease:
		o.AsideReleased(i, e.Op, e.Checksum)
	}
}

// reportSend tells the oracle the incarnation a replica stamps on what it
// sends now, a stamp of 0 included: a restarted life that stamps 0 is a
// defect the oracle must see.
func (c *Cluster) reportSend(m *vsr.Message) {
	if m.From >= c.cfg.Replicas {
		return
	}
	switch m.Command {
	case vsr.CmdPrepareOK, vsr.CmdCommitOK, vsr.CmdRequestStartView:
		c.checker.Sent(c.now, m.From, m.SenderIncarnation())
	}
	if m.Command == vsr.CmdPrepareOK {
		p := m.PrepareOk()
		c.checker.AckSent(m.From, p.Op, p.Checksum)
	}
}

// reportDelivery tells the oracle what reached live replica to, before it
// steps: acks reaching a primary, and incarnations a probe reveals.
func (c *Cluster) reportDelivery(to int, m *vsr.Message) {
	switch m.Command {
	case vsr.CmdPrepareOK:
		p := m.PrepareOk()
		c.checker.AckDelivered(to, m.From, p.Incarnation, m.View, p.Op, p.Checksum, p.Parent)
	case vsr.CmdRequestStartView:
		c.checker.Delivered(to, m.From, m.RequestStartView().Incarnation)
	}
}
