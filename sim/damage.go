package sim

import "vsrsim/vsr"

// damageBits is what the harness flips in a damaged packet: a few bits of a
// value its checksum covers, never the checksum itself.
const damageBits = 0x10204

// damage corrupts, in place, the part of a packet the network damaged that a
// checksum of the protocol covers, so the receiver's own check rejects it:
// a prepare's header (Prepare, RepairPrepare), a header of a DoViewChange
// vote or a StartView, a state chunk's state. It reports false for every
// other message: those carry no checksum of their own, and a real link's
// CRC and the transport's envelope checksum discard them before any replica
// reads them, which the harness stands for by dropping them (mark
// net-corrupt). It is the only place the harness touches message fields;
// slices and snapshots are shared with the sender, so it copies what it
// changes.
func damage(m *vsr.Message) bool {
	env := m.Envelope
	switch m.Command {
	case vsr.CmdPrepare:
		p := m.Prepare()
		p.Header.Body.Value ^= damageBits
		*m = p.Message()
	case vsr.CmdRepairPrepare:
		p := m.RepairPrepare()
		p.Header.Body.Value ^= damageBits
		*m = p.Message()
	case vsr.CmdDoViewChange:
		p := m.DoViewChange()
		if !damageSuffix(&p.Suffix) {
			return false
		}
		*m = p.Message()
	case vsr.CmdStartView:
		p := m.StartView()
		if !damageSuffix(&p.Suffix) {
			return false
		}
		*m = p.Message()
	case vsr.CmdStateChunk:
		p := m.StateChunk()
		if p.Snapshot == nil {
			return false
		}
		s := *p.Snapshot
		s.State.KV[0] ^= damageBits
		p.Snapshot = &s
		*m = p.Message()
	default:
		return false
	}
	m.Envelope = env
	return true
}

// damageSuffix damages a copy of the first header of a vote or StartView a
// receiver checks against its checksum: a blank entry, or one without a
// parent link, is not (the receiver cannot tell it from a header it knows
// only by op).
func damageSuffix(suffix *[]vsr.SuffixEntry) bool {
	for i := range *suffix {
		if e := &(*suffix)[i]; !e.Blank() && e.Header.Parent != 0 {
			s := append([]vsr.SuffixEntry(nil), (*suffix)...)
			s[i].Header.Body.Value ^= damageBits
			*suffix = s
			return true
		}
	}
	return false
}
