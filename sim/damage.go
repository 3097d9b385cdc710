package sim

import "vsrsim/replica"

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
func damage(m *replica.Message) bool {
	switch m.Command {
	case replica.CmdPrepare, replica.CmdRepairPrepare:
		m.Header.Body.Value ^= damageBits
		return true
	case replica.CmdDoViewChange, replica.CmdStartView:
		for i := range m.Suffix {
			// A blank entry or one without a parent link is not checked
			// against its checksum (the receiver cannot tell it from a
			// header it knows only by op).
			if e := &m.Suffix[i]; !e.Blank() && e.Header.Parent != 0 {
				s := append([]replica.SuffixEntry(nil), m.Suffix...)
				s[i].Header.Body.Value ^= damageBits
				m.Suffix = s
				return true
			}
		}
	case replica.CmdStateChunk:
		if m.Snapshot != nil {
			s := *m.Snapshot
			s.State.KV[0] ^= damageBits
			m.Snapshot = &s
			return true
		}
	}
	return false
}
