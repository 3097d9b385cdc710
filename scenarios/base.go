package scenarios

import (
	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
	"vsrsim/vsr"
)

// quietCluster shapes a scripted run: no random faults, so the script alone
// decides what breaks; the seed still varies network delays, client timing and
// timeout jitter.
func quietCluster(cfg *sim.Config, replicas int) {
	cfg.Replicas = replicas
	cfg.Clients = 4
	cfg.Topology = replica.TopologyChain
	cfg.Durability = replica.DurabilityWAL
	cfg.JournalSlots = 1024
	cfg.CheckpointInterval = 1024
	cfg.Network = packetsim.Options{
		DelayMinTicks:  1,
		DelayMeanTicks: 2,
		LinkCapacity:   1024,
	}
	cfg.CrashChance = prng.Ratio{}
	cfg.RequestMeanTicks = 30
	cfg.BurstChance = prng.Ratio{}
	cfg.ClientTimeoutTicks = 300
	cfg.FaultTicks = 4000
	cfg.LivenessTicks = 12000
	cfg.StableTicks = 1500
	cfg.CommitFloor = 10
	cfg.Core = nil
}

func isPrepare(m *vsr.Message) bool {
	return m.Command == vsr.CmdPrepare
}

// prepareOp is the op of the prepare a Prepare or RepairPrepare carries.
func prepareOp(m *vsr.Message) (uint64, bool) {
	switch m.Command {
	case vsr.CmdPrepare:
		return m.Prepare().Header.Op, true
	case vsr.CmdRepairPrepare:
		return m.RepairPrepare().Header.Op, true
	}
	return 0, false
}

// sourceWithoutLivenessGuards is the protocol of the system the failure
// shapes come from: no abdication, no StartViewChange quorum window, fixed
// retry timeouts that never start afresh, and no backup that hands a
// straggler the view (D43), and a backup that drops a Prepare of an op it
// holds hollow by the gap check (D83).
var sourceWithoutLivenessGuards = replica.Protocol{AbdicationOff: true, SVCQuorumOff: true, BackoffOff: true, RelayStartViewOff: true, BackoffResetOff: true, BackupRepliesOff: true, PrepareRepairOff: true}
