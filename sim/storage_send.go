package sim

import "vsrsim/vsr"

// The send path of every message a replica hands the harness: straight to the
// network without disks; on disks, held until every fenced write the replica
// asked for before it has landed (a process that syncs before it sends), and
// noted as it leaves (the views and log_views it acts in, for the oracle's
// restart floors; the acks aimed misdirects key on).

type heldMessage struct {
	m     vsr.Message
	fence uint64
}

// send puts replica i's message on the network, or holds it for its fence.
func (c *Cluster) send(i int, m *vsr.Message) {
	if c.disks == nil {
		c.submit(m)
		return
	}
	d := &c.disks.r[i]
	if len(d.open) == 0 && len(d.held) == 0 {
		c.sent(d, m)
		return
	}
	d.held = append(d.held, heldMessage{m: *m, fence: d.fences})
}

// sent submits a message that left, noting the view it acts in.
func (c *Cluster) sent(d *diskOf, m *vsr.Message) {
	if promises(m) {
		d.promised = max(d.promised, m.View)
	}
	d.promisedLogView = max(d.promisedLogView, actedLogView(m))
	if m.Command == vsr.CmdPrepareOK && m.From < c.cfg.Replicas {
		c.aimMisdirect(m.From, m.PrepareOk().Op)
	}
	c.submit(m)
}

// promises reports whether a message acts in its view: a vote for it, or
// normal work within it. A wish to leave a view (a leave StartViewChange)
// names a view the sender may never have been in, and promises nothing.
func promises(m *vsr.Message) bool {
	switch m.Command {
	case vsr.CmdPrepare, vsr.CmdPrepareOK, vsr.CmdCommit, vsr.CmdCommitOK,
		vsr.CmdDoViewChange, vsr.CmdStartView:
		return true
	case vsr.CmdStartViewChange:
		return !m.StartViewChange().Leave
	}
	return false
}

// actedLogView is the log_view a message shows its sender acted in: a
// Prepare, PrepareOk or Commit is sent in Normal status in its view; a
// DoViewChange and a StartView name the sender's log_view. 0 for the rest.
func actedLogView(m *vsr.Message) uint64 {
	switch m.Command {
	case vsr.CmdPrepare, vsr.CmdPrepareOK, vsr.CmdCommit:
		return m.View
	case vsr.CmdDoViewChange:
		return m.DoViewChange().LogView
	case vsr.CmdStartView:
		return m.StartView().LogView
	}
	return 0
}

// releaseHeld sends the held messages whose fence has landed, in order.
func (c *Cluster) releaseHeld(d *diskOf) {
	k := 0
	for ; k < len(d.held); k++ {
		if len(d.open) > 0 && d.open[0] <= d.held[k].fence {
			break
		}
		c.sent(d, &d.held[k].m)
	}
	d.held = d.held[:copy(d.held, d.held[k:])]
}
