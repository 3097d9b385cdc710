package swarm

import (
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
)

// drawStorage puts the replicas of most write-ahead seeds on simulated disks
// (97% of them outside a focus; docs/storage.md), from a stream of its own
// drawn after every other swarm draw, so no earlier draw of any seed moves.
// One storage seed in thirty turns the atlas off, so storage-beyond-f is
// exercised too (and aims a superblock loss, D60). Seeds of a focus
// (focus.go) keep their disks off.
func drawStorage(seed uint64, c *sim.Config) {
	if c.Durability != replica.DurabilityWAL || c.Focus != "" {
		// A focus aims a seed at one mechanism; disks would only dilute it.
		return
	}
	s := prng.New(seed, prng.StreamSwarmStorage)
	if s.Uint64N(20) < 3 && s.Uint64N(5) == 0 {
		// A write-ahead journal in memory keeps a share of its own (3%,
		// and every focus seed): issue 38 asks for storage faults in three
		// quarters of the write-ahead seeds, where 15% kept memory before.
		return
	}
	st := sim.Storage{On: true, Drawn: true}
	st.LatencyMinTicks = s.Uint64N(3)
	st.LatencyMeanTicks = []uint64{0, 2, 5, 10}[s.Uint64N(4)]
	st.ReadFault = pick(s, 0, 3000, 500)
	st.WriteFault = pick(s, 0, 1000, 300, 100)
	st.Misdirect = pick(s, 0, 3000, 1000)
	st.Torn = pick(s, 0, 4, 2, 1)
	st.AtlasOff = s.Uint64N(30) == 0
	if s.Uint64N(3) == 0 {
		// Aim a third of the storage seeds at the acknowledged ops a
		// restart must hold unsure: uniform faults rarely hit them.
		st.AimedCorrupt = pick(s, 4, 2, 1)
		st.AimedMisdirect = pick(s, 50, 10)
	}
	// Lost writes, drawn last so no earlier draw moves: half the storage
	// seeds lose one completed write in a thousand or three. A lost write
	// leaves the slot's older record, which verifies; the restart tells it
	// from the acked op by the durable ack head that names it (D53).
	st.Lost = pick(s, 0, 0, 3000, 1000)
	if s.Uint64N(10) == 0 {
		highBand(s, &st)
	}
	secondEvents(s, &st)
	// Last: a third of the storage seeds aim a fault at the state in a
	// replica's newest checkpoint record as it crashes (issue 38 item 2):
	// uniform faults rarely hit the one record a restart reads.
	if s.Uint64N(3) == 0 {
		st.AimedCheckpoint = pick(s, 4, 2, 1)
	}
	// Last: a third of the storage seeds lose the writes that replace or
	// take out an op's prepare copy, where the atlas allows (issue 38): the
	// stale entry that verifies on its own, which a repair read must
	// refuse (repair-serves-unread) and a restart must not bring back
	// (D57). Uniform lost writes rarely leave one.
	if s.Uint64N(3) == 0 {
		st.AimedLostRewrite = pick(s, 2, 1)
	}
	// Last: a storage seed without damaged writes draws them at the low
	// end of the band (issue 38: storage faults exercised in three
	// quarters of the write-ahead seeds; a quarter drew none, and most of
	// the disk seeds that met no fault were among them).
	if st.WriteFault.Zero() {
		st.WriteFault = pick(s, 300, 100)
	}
	// Last: an atlas-off seed loses every superblock copy of a replica at
	// one crash in four or two (issue 38: the amnesiac restart a disk past
	// the atlas forces was reached in one seed of 1..2000, and its two
	// findings came from sweeps of 100,000).
	if st.AtlasOff {
		st.AimedSuperblockLoss = pick(s, 4, 2)
	}
	// Last: a crash of a replica whose disk met no fault yet takes the
	// aimed corruption half the time or always (issue 38: storage faults in
	// three quarters of the write-ahead seeds; of the disk seeds of 1..2000
	// that met none, most ran quiet clusters whose few writes drew no
	// fault, though their replicas crashed and restarted).
	st.AimedQuietCorrupt = pick(s, 2, 1)
	// Last: two thirds of the seeds that aim lost rewrites steer a peer at
	// the stale entry one leaves (issue 38 item 9: a repair read of it was
	// first met at swarm seed 2338; sim/storage_stale_ask.go).
	if !st.AimedLostRewrite.Zero() {
		st.AimedStaleAsk = pick(s, 0, 2, 1)
		// And half of the lost prepare rewrites whose header copy lands
		// land it damaged (D123), with no draw of this stream: a restart
		// then reads the older prepare beside a header copy it cannot
		// read, the state a slip in its reading needs.
		st.AimedSpoilRewrite = prng.Ratio{Num: 1, Den: 2}
	}
	c.Storage = st
}

// secondEvents draws, last so that no earlier draw moves, the events aimed
// to combine with a storage fault (issue 38 item 8, sim/storage_second.go):
// in half the storage seeds crashes aimed at a replica whose writes are in
// flight, and in half a second event aimed at a restart that may leave a
// slot unsure (a recrash as it rejoins, or a view change before it repairs).
// A slip in recovery shows only when such an event follows the fault, and
// the scattered crashes rarely time one.
func secondEvents(s *prng.Stream, st *sim.Storage) {
	if s.Bool() {
		st.AimedWindowCrash = pick(s, 5000, 2000, 500)
	}
	if s.Bool() {
		st.AimedSecond = pick(s, 4, 2, 1)
	}
}

// highBand raises a storage seed's faults to a production disk's worst (one
// storage seed in ten, issue 38 item 4): 1 to 10 % per read and per write in
// the zones the atlas allows, misdirects and lost writes at 1 %, and every
// write in flight at a crash torn. The atlas still keeps a replication quorum
// of intact copies of every slot.
func highBand(s *prng.Stream, st *sim.Storage) {
	st.ReadFault = pick(s, 100, 30, 10)
	st.WriteFault = pick(s, 100, 30, 10)
	st.Misdirect = prng.Ratio{Num: 1, Den: 100}
	st.Lost = prng.Ratio{Num: 1, Den: 100}
	st.Torn = prng.Ratio{Num: 1, Den: 1}
}

// pick draws one of the chances one in den (0: never).
func pick(s *prng.Stream, dens ...uint32) prng.Ratio {
	d := dens[s.Uint64N(uint64(len(dens)))]
	if d == 0 {
		return prng.Ratio{}
	}
	return prng.Ratio{Num: 1, Den: d}
}
