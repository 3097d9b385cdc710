package replica

import (
	"vsrsim/replica/room"
	"vsrsim/vsr"
)

// The protocol options (Options.Protocol, D13) are read here and nowhere
// else (TestProtocolReadInOnePlace): each turns off a robust mechanism in
// the room that carries it out, once, when the replica is made or
// restarted, and the handlers ask the room. The zero Protocol is the robust
// protocol, the default everywhere.
func (r *Replica) applyProtocol(p Protocol) {
	r.timers.Init(r.opts.Timeouts, !p.BackoffOff)
	r.abd.SetMode(room.AbdicationMode{Off: p.AbdicationOff, ByHearing: p.AbdicateByHearing, NoPush: p.PushStartViewOff})
	r.peers.SetMechanisms(!p.RelayStartViewOff, !p.BackoffResetOff)
	r.vc.quorumWindow = !p.SVCQuorumOff
	r.fwd.BackupReplies = !p.BackupRepliesOff
	r.log.sourceInstall = p.SourceTransfer
	r.log.gapCheckOnly = p.PrepareRepairOff
	// The rooms say what the options said, and nothing reads them again.
	vsr.Assert(r.id, r.abd.On() == !p.AbdicationOff && r.peers.Relays() == !p.RelayStartViewOff &&
		r.peers.ResetsBackoff() == !p.BackoffResetOff && r.timers.Repair.Backoff == !p.BackoffOff,
		"protocol_applied", vsr.DetailHolds)
}
