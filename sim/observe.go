package sim

import (
	"vsrsim/replica"
	"vsrsim/sim/check"
)

// The boundary between the replicas and the oracle: the harness translates
// what it sees (effects a replica reports, messages it delivers) into the
// oracle's own terms. The oracle never reads a replica.

func checkStatus(s replica.Status) check.Status {
	switch s {
	case replica.StatusNormal:
		return check.StatusNormal
	case replica.StatusViewChange:
		return check.StatusViewChange
	}
	return check.StatusRecovering
}

func checkOp(o replica.Operation) check.Op {
	k := check.OpNoop
	switch o.Kind {
	case replica.OpPut:
		k = check.OpPut
	case replica.OpGet:
		k = check.OpGet
	case replica.OpIncr:
		k = check.OpIncr
	}
	return check.Op{Kind: k, Key: o.Key, Value: o.Value}
}

// checkReason maps the replica's refusal reasons that the liveness evidence
// weighs to the oracle's own words, by name rather than by text, so renaming a
// reason's trace word can never silently disable evidence. Every other reason
// maps to "": the oracle counts none of them.
func checkReason(r replica.Reason) string {
	switch r {
	case replica.ReasonGap:
		return check.ReasonGap
	case replica.ReasonDVCUnreadable:
		return check.ReasonDVCUnreadable
	case replica.ReasonDVCGap:
		return check.ReasonDVCGap
	case replica.ReasonStale:
		return check.ReasonStale
	case replica.ReasonBelowAcceptedHead:
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
func (c *Cluster) report(i int, e *replica.Event) {
	o := c.checker
	switch e.Kind {
	case replica.EvJournalAppend, replica.EvAck, replica.EvJournalTruncate, replica.EvMergeTruncate, replica.EvJournalPrune, replica.EvJournalEvict:
		c.reportJournal(i, e)
	case replica.EvPrimaryCommit:
		p := e.PrimaryCommitted()
		o.PrimaryCommit(c.now, i, p.View, p.Op, p.Checksum, p.Parent, c.clientIndex(p.Client), p.Request)
	case replica.EvCommit:
		p := e.Applied()
		o.Apply(c.now, i, p.Op, p.Checksum, p.Parent, p.Result)
	case replica.EvStatus:
		p := e.StatusChanged()
		o.Status(c.now, i, checkStatus(p.Status), p.View, p.LogView, p.Op, p.Commit)
	case replica.EvCheckpoint:
		o.Checkpoint(c.now, i, e.Op, e.Checkpointed().StateChecksum)
	case replica.EvTransferInstall:
		p := e.TransferInstalled()
		o.Install(c.now, i, p.Op, p.Checksum, check.StateHash(p.Snapshot.State.KV[:]))
	case replica.EvDrop:
		p := e.Dropped()
		o.ReplicaDropped(i, checkReason(p.Reason), p.Op, p.Commit, p.Detail)
	case replica.EvOfferRefused:
		p := e.OfferRefused()
		o.OfferRefused(checkReason(p.Reason), p.Op, p.Guard)
	case replica.EvViewEscalate:
		o.Escalated(i)
	case replica.EvHold:
		o.Held()
	}
}

// reportJournal hands the oracle one event of a replica's journal.
func (c *Cluster) reportJournal(i int, e *replica.Event) {
	o := c.checker
	switch e.Kind {
	case replica.EvJournalAppend:
		o.Journaled(i, e.Op, e.Checksum)
	case replica.EvAck:
		c.reportOwnAck(i, e.Acked())
	case replica.EvJournalTruncate:
		o.Dropped(c.now, i, check.DropTruncate, e.View, e.Op, e.Checksum, 0)
	case replica.EvMergeTruncate:
		o.Dropped(c.now, i, check.DropMergeTruncate, e.View, e.Op, e.Checksum, e.MergeTruncated().Nacks)
	case replica.EvJournalPrune:
		o.Dropped(c.now, i, check.DropPrune, e.View, e.Op, e.Checksum, 0)
	case replica.EvJournalEvict:
		o.Evicted(i, e.Op, e.Checksum)
	}
}

// reportSend tells the oracle the incarnation a replica stamps on what it
// sends now, a stamp of 0 included: a restarted life that stamps 0 is a
// defect the oracle must see.
func (c *Cluster) reportSend(m *replica.Message) {
	if m.From >= c.cfg.Replicas {
		return
	}
	switch m.Command {
	case replica.CmdPrepareOK, replica.CmdCommitOK, replica.CmdRequestStartView:
		c.checker.Sent(c.now, m.From, m.SenderIncarnation())
	}
	if m.Command == replica.CmdPrepareOK {
		p := m.PrepareOk()
		c.checker.AckSent(m.From, p.Op, p.Checksum)
	}
}

// reportDelivery tells the oracle what reached live replica to, before it
// steps: acks reaching a primary, and incarnations a probe reveals.
func (c *Cluster) reportDelivery(to int, m *replica.Message) {
	switch m.Command {
	case replica.CmdPrepareOK:
		p := m.PrepareOk()
		c.checker.AckDelivered(to, m.From, p.Incarnation, m.View, p.Op, p.Checksum, p.Parent)
	case replica.CmdRequestStartView:
		c.checker.Delivered(to, m.From, m.RequestStartView().Incarnation)
	}
}
