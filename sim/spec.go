package sim

import (
	"vsrsim/disksim"
	"vsrsim/replica"
	"vsrsim/sim/check"
	"vsrsim/spec"
	"vsrsim/vsr"
)

// The boundary between the replicas and the protocol model (spec/), as
// observe.go is the oracle's: the harness translates each replica step (what
// started it, the events it reports, the messages it sends) into the model's
// own types. The model never reads a replica, and changes nothing in a run:
// it only judges, and a broken rule ends the run as a safety failure
// (invariant "spec/<rule>").

// newSpec returns the model for a run, or nil with Config.SpecOff; old is
// a finished run's model whose memory it may reuse, or nil.
func newSpec(cfg *Config, old *spec.Model) *spec.Model {
	if cfg.SpecOff {
		return nil
	}
	return spec.NewFrom(spec.Config{
		Replicas:    cfg.Replicas,
		Star:        cfg.Topology == replica.TopologyStar,
		LeaveWindow: !cfg.Protocol.SVCQuorumOff,
		Relay:       !cfg.Protocol.RelayStartViewOff,
		ViewFloor:   !cfg.Storage.On,
		Disk:        cfg.Storage.On,
		// The storage rules judge the writes of replicas on disks only.
		JournalSlots: cfg.JournalSlots,
	}, old)
}

// takeSpec returns the model spare holds, if any, and forgets it.
func (s *Spare) takeSpec() *spec.Model {
	if s == nil {
		return nil
	}
	m := s.spec
	s.spec = nil
	return m
}

func specStatus(s vsr.Status) spec.Status {
	switch s {
	case vsr.StatusNormal:
		return spec.StatusNormal
	case vsr.StatusViewChange:
		return spec.StatusViewChange
	}
	return spec.StatusRecovering
}

// specSuffix translates a suffix into buf, reused from message to message:
// the model reads a suffix only within the step that sends it.
func specSuffix(buf *[]spec.Entry, s []vsr.SuffixEntry) []spec.Entry {
	if buf == nil {
		return nil
	}
	out := (*buf)[:0]
	for k := range s {
		e := &s[k]
		out = append(out, spec.Entry{Op: e.Header.Op, Checksum: e.Header.Checksum, Parent: e.Header.Parent,
			Present: e.Present, Nack: e.Nack, Unsure: e.Unsure})
	}
	*buf = out
	return out
}

// specMessage translates a message into the model's terms; a command no
// rule reads becomes spec.CmdOther with its envelope only. A suffix is
// translated into buf, or left out with a nil buf.
func specMessage(m *vsr.Message, buf *[]spec.Entry) spec.Message {
	s := spec.Message{Name: m.Command.String(), From: m.From, To: m.To, View: m.View}
	switch m.Command {
	case vsr.CmdPrepare:
		h := m.Prepare().Header
		s.Command, s.Op, s.Checksum = spec.CmdPrepare, h.Op, h.Checksum
	case vsr.CmdPrepareOK:
		p := m.PrepareOk()
		s.Command, s.Op, s.Checksum = spec.CmdPrepareOk, p.Op, p.Checksum
	case vsr.CmdCommit:
		s.Command = spec.CmdCommit
	case vsr.CmdCommitOK:
		p := m.CommitOk()
		s.Command, s.Commit, s.Checksum = spec.CmdCommitOk, p.Commit, p.Checksum
	case vsr.CmdStartViewChange:
		s.Command, s.Leave = spec.CmdStartViewChange, m.StartViewChange().Leave
	case vsr.CmdDoViewChange:
		p := m.DoViewChange()
		s.Command, s.LogView, s.Op, s.Commit = spec.CmdDoViewChange, p.LogView, p.Op, p.Commit
		s.Suffix = specSuffix(buf, p.Suffix)
	case vsr.CmdStartView:
		p := m.StartView()
		s.Command, s.LogView, s.Op, s.Commit = spec.CmdStartView, p.LogView, p.Op, p.Commit
		s.Suffix = specSuffix(buf, p.Suffix)
	case vsr.CmdRequestStartView:
		s.Command = spec.CmdRequestStartView
	case vsr.CmdRepairPrepare:
		p := m.RepairPrepare()
		s.Command, s.Op, s.Checksum, s.Commit = spec.CmdRepairPrepare, p.Header.Op, p.Header.Checksum, p.Commit
	case vsr.CmdStateChunk:
		p := m.StateChunk()
		s.Command, s.Op = spec.CmdStateChunk, p.SnapshotOp
		if p.Snapshot != nil {
			s.Checksum = p.Snapshot.OpChecksum
		}
	}
	return s
}

// specCause translates a delivered message as far as a rule reads it: the
// step's cause, the votes it carries and an older primary's heartbeat need
// its envelope and a StartViewChange's mark, and the commit walk a Commit's
// or StartView's commit point (a StartView's log_view and head come along
// for the evidence), so no suffix is decoded (a delivery is the most
// frequent step).
func specCause(m *vsr.Message) spec.Message {
	s := spec.Message{Name: m.Command.String(), From: m.From, To: m.To, View: m.View}
	switch m.Command {
	case vsr.CmdStartViewChange:
		s.Command, s.Leave = spec.CmdStartViewChange, m.StartViewChange().Leave
	case vsr.CmdDoViewChange:
		s.Command = spec.CmdDoViewChange
	case vsr.CmdStartView:
		sv := m.StartView()
		s.Command, s.LogView, s.Op, s.Commit = spec.CmdStartView, sv.LogView, sv.Op, sv.Commit
	case vsr.CmdRequestStartView:
		s.Command = spec.CmdRequestStartView
	case vsr.CmdCommit:
		s.Command, s.Commit = spec.CmdCommit, m.Commit().Commit
	}
	return s
}

// specDelivered opens replica to's step on message m.
func (c *Cluster) specDelivered(to int, m *vsr.Message) {
	if c.spec == nil {
		return
	}
	s := specCause(m)
	c.spec.Delivered(c.now, to, &s)
}

// specTicked opens replica i's step on the clock.
func (c *Cluster) specTicked(i int) {
	if c.spec != nil {
		c.spec.Ticked(c.now, i)
	}
}

// specStep hands the model replica i's step: its events in order, then its
// messages.
func (c *Cluster) specStep(i int) {
	s := c.spec
	if s == nil {
		return
	}
	if s.Failed() == nil {
		c.specFeed(i)
	}
	if f := s.Failed(); f != nil && c.failure == nil {
		c.failure = &check.Failure{Invariant: f.Invariant(), Evidence: f.Evidence, Tick: f.Tick, Replicas: []int{f.Replica}}
		if f.Op != 0 {
			c.failure.Ops = []uint64{f.Op}
		}
		if f.Promise {
			c.failure.Promised(f.Replica, f.Life, f.Broke)
		}
	}
}

// specFeed hands the model one step's events and messages.
func (c *Cluster) specFeed(i int) {
	s := c.spec
	for k := range c.out.Events {
		e := &c.out.Events[k]
		switch e.Kind {
		case vsr.EvStatus:
			p := e.StatusChanged()
			s.Status(i, specStatus(p.Status), p.View, p.LogView)
			s.LogHead(i, p.LogView, p.Op)
		case vsr.EvTimeout:
			s.TimedOut(i, specTimer(e.TimedOut().Timer))
		case vsr.EvHold:
			s.Held(i)
		case vsr.EvJournalAppend:
			s.Journaled(i, e.Op, e.Checksum)
		case vsr.EvCommit:
			s.Applied(i, e.View, e.Op, e.Checksum)
			s.Settled(i, e.Op)
		case vsr.EvCheckpoint:
			s.Settled(i, e.Op)
		case vsr.EvTransferInstall:
			s.Settled(i, e.Op)
			s.Installed(i, e.Op, e.TransferInstalled().Commit)
		case vsr.EvDrop:
			s.Refused(i)
		case vsr.EvJournalRestore:
			s.Restored(i, e.Op, e.Checksum, e.JournalRestored().Parent)
		case vsr.EvJournalAsideRelease:
			s.AsideReleased(i, e.Op, e.Checksum)
		case vsr.EvJournalTruncate:
			s.Truncated(i, e.Op, e.Checksum)
			s.Unjournaled(i, e.Op, e.Checksum)
		case vsr.EvJournalPrune, vsr.EvJournalSetAside, vsr.EvJournalEvict:
			s.Unjournaled(i, e.Op, e.Checksum)
		}
	}
	if c.disks != nil {
		c.specWrites(i)
	}
	for k := range c.out.Messages {
		m := specMessage(&c.out.Messages[k], &c.specSuffix)
		s.Sent(i, &m)
	}
	s.EndStep(i)
}

// specWrites hands the model the journal writes of replica i's step, in
// the order asked, read in the on-disk format (the entries decodeWrites
// read, replica.DiskRemoval for the rest) as the harness's ledger reads
// them.
func (c *Cluster) specWrites(i int) {
	// A step writes every superblock copy of one version: the first is
	// decoded, and the rest say the same (a decode a copy was 7% of a
	// busy run on disks).
	var sb spec.Durable
	sbRead := false
	for k := range c.out.Writes {
		w := &c.out.Writes[k]
		z := disksim.Zone(w.Zone)
		sw := spec.Write{Slot: w.Slot, Fenced: w.Fenced, AfterSuperblock: w.AfterSuperblock}
		switch z {
		case disksim.ZoneSuperblock:
			sw.Zone = spec.ZoneSuperblock
			if !sbRead {
				sb, sbRead = specDurable(w.Slot, c.out.Bytes(w)), true
			}
			sw.Superblock = sb
			c.spec.Wrote(i, &sw)
			continue
		case disksim.ZonePrepares:
			sw.Zone = spec.ZonePrepare
		case disksim.ZoneHeaders:
			sw.Zone = spec.ZoneHeader
		default:
			// A checkpoint record: no rule reads it, but its fence counts.
			sw.Zone = spec.ZoneOther
			c.spec.Wrote(i, &sw)
			continue
		}
		if e := c.stepEntries[k]; e.op != 0 {
			sw.Kind, sw.Op, sw.Checksum = spec.WriteEntry, e.op, e.sum
		} else if removal, aside := replica.DiskRemoval(w.Zone, w.Slot, c.cfg.JournalSlots, c.out.Bytes(w)); removal {
			sw.Kind = spec.WriteBlank
			if aside {
				sw.Kind = spec.WriteAside
			}
		}
		c.spec.Wrote(i, &sw)
	}
}

// specDurable reads what superblock copy c, as written, makes durable (the
// zero Durable if it does not decode, which keeps no promise).
func specDurable(c int, buf []byte) spec.Durable {
	sb, ok := replica.DiskSuperblock(c, buf, false)
	if !ok {
		return spec.Durable{}
	}
	return spec.Durable{View: sb.View, LogView: sb.LogView, AckHead: sb.AckHead, AckView: sb.AckView, AckViewHead: sb.AckViewHead, CommitMax: sb.CommitMax}
}

// specTimerViewChangeStatus is the replica's name for its view-change
// status timeout. Timers are named by their trace word only; the
// vc-straggler shape of TestSpecCatchesShapes (scenarios/spec_test.go)
// fails if this one stops matching.
const specTimerViewChangeStatus = "view_change_status"

// specTimer maps a timeout's name to the model's timer.
func specTimer(name string) spec.Timer {
	if name == specTimerViewChangeStatus {
		return spec.TimerViewChangeStatus
	}
	return spec.TimerOther
}

// specOnWire tells the model a replica's message left for the network.
func (c *Cluster) specOnWire(m *vsr.Message) {
	if c.spec == nil {
		return
	}
	switch m.Command {
	case vsr.CmdPrepareOK, vsr.CmdPrepare, vsr.CmdStartView:
		s := specMessage(m, &c.specSuffix)
		c.spec.OnWire(&s)
	}
}

// specRestart tells the model replica i came back in a new life.
func (c *Cluster) specRestart(i int) {
	if c.spec != nil {
		c.spec.Restart(i, c.cfg.Durability == replica.DurabilityWAL)
		if c.disks != nil && !c.disks.r[i].readSuperblock {
			c.spec.Forgot(i)
		}
		if c.disks != nil && c.disks.r[i].readWhole {
			// The restart came back at the newest whole copy (the highest
			// sequence number): its commit point and log_view.
			sb := &c.disks.r[i].readNewest
			c.spec.Recovered(i, sb.CommitMax)
			if !sb.Amnesiac {
				c.spec.RecoveredLogView(i, sb.LogView)
			}
		}
	}
}
