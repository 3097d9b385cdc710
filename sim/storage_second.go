package sim

import (
	"fmt"

	"vsrsim/disksim"
	"vsrsim/prng"
	"vsrsim/vsr"
)

// The second event (Storage.AimedWindowCrash, AimedSecond; issue 38 item 8):
// a storage fault alone rarely shows a wrong recovery. The swarm reaches the
// faults, but a recovery slip shows only when something else happens before
// the replica has repaired what it lost: a crash while its writes are in
// flight, a second crash as it rejoins, a view change before its repair is
// done, a crash just after a view change cut ops from its log. These draws
// aim those events from what the harness itself knows: the writes in flight
// on a replica's disk, the faults its disk holds, the restart, and the status
// and journal events a replica emits. They never read a replica's state.
// Every crash keeps the crash injectors' bound (crashKeepsQuorum), every
// action is a trace note, and a recording replays each as an explicit crash
// or cut (the settings leave the chances out), so a recorded file needs none.

// The kinds of a second event, in draw order.
const (
	// secondRecrash crashes the restarted replica again as it rejoins (its
	// first normal status after the restart): adopted a view, not yet
	// repaired.
	secondRecrash = iota
	// secondViewAtRejoin takes out the primary of the view the restarted
	// replica rejoined, so a view change runs on its vote before it repairs.
	secondViewAtRejoin
	// secondViewAtRestart takes out the primary at once, so a view change
	// runs while the restarted replica still recovers (its head unsure).
	secondViewAtRestart
	secondKinds
	// secondTruncated arms a replica whose view change truncated its log
	// (secondOnTruncate), never drawn: at its normal status it is recrashed
	// and its restart takes the primary out at once, so the view change
	// runs on the vote of a replica that acked ops of an older view above
	// its durable log's head.
	secondTruncated = secondKinds
)

var secondKindNames = [...]string{"recrash", "view change at rejoin", "view change at restart"}

// secondState is the harness's record of the second events in waiting.
type secondState struct {
	// rng draws them: its own stream, so a seed's other aimed storage
	// faults keep their draws whether these are on or not, and a recorded
	// file, which replays them as actions, keeps them too.
	rng *prng.Stream
	// armed holds, per replica, the kind aimed at its rejoin plus one (0:
	// none), and armedAny counts them: most events find none armed.
	armed    []uint8
	armedAny int
	// restartView marks a replica so crashed: its next restart takes the
	// primary out at once.
	restartView []bool
	// due are the actions to take at the start of a tick.
	due []secondDue
}

// secondDue is an aimed action waiting for its tick.
type secondDue struct {
	tick   uint64
	kind   uint8
	victim int // recrash: the restarted replica; else: the replica it aims for
	cause  string
	// thenView: a recrash whose restart takes the primary out at once;
	// quiet: it waits until no write of the replica's is in flight.
	thenView, quiet bool
}

// secondStart starts the second events' stream and records, once.
func (c *Cluster) secondStart() *secondState {
	st := &c.disks.second
	if st.rng == nil {
		st.rng = prng.New(c.cfg.Seed, prng.StreamDiskSecond)
		st.armed = make([]uint8, c.cfg.Replicas)
		st.restartView = make([]bool, c.cfg.Replicas)
	}
	return st
}

// secondOn reports whether any second event can be aimed.
func (s *Storage) secondOn() bool { return !s.AimedWindowCrash.Zero() || !s.AimedSecond.Zero() }

// injectSecond runs as a fault-phase tick starts: the due second events, then
// the crashes aimed at open write windows.
func (c *Cluster) injectSecond() {
	if c.disks == nil || !c.cfg.Storage.secondOn() {
		return
	}
	st := c.secondStart()
	if len(st.due) > 0 {
		kept := st.due[:0]
		for _, a := range st.due {
			if a.tick > c.now || !c.takeSecond(a) {
				kept = append(kept, a)
			}
		}
		st.due = kept
	}
	if c.cfg.Storage.AimedWindowCrash.Zero() {
		return
	}
	for i := range c.disks.r {
		if c.replicas[i] == nil || len(c.disks.r[i].inFlight) == 0 || !st.rng.Chance(c.cfg.Storage.AimedWindowCrash) {
			continue
		}
		c.crashSecond(i, fmt.Sprintf("aimed window crash r%d: %d writes in flight", i, len(c.disks.r[i].inFlight)))
	}
}

// crashSecond crashes replica i, within the crash injectors' bound, and
// draws its restart; false if the bound refused it.
func (c *Cluster) crashSecond(i int, note string) bool {
	if c.replicas[i] == nil || !c.crashKeepsQuorum(i) {
		return false
	}
	c.noteRecorded(note)
	c.Crash(i)
	c.recordNode("crash", i)
	c.restartAt[i] = c.now + 1 + c.disks.second.rng.Exponential(c.cfg.RestartMeanTicks)
	return true
}

// exposed reports whether replica i's disk, as it restarts, may leave it
// unsure of a slot: its crash caught writes in flight (torn or lost), or a
// journal slot of its disk is faulty now. The disk's record alone says so.
func (c *Cluster) exposed(i int) bool {
	d := &c.disks.r[i]
	if d.crashedInFlight {
		return true
	}
	for slot := 0; slot < c.cfg.JournalSlots; slot++ {
		if d.disk.Damaged(disksim.ZoneHeaders, slot) || d.disk.Damaged(disksim.ZonePrepares, slot) {
			return true
		}
	}
	return false
}

// aimSecond runs as replica i restarts in the fault phase: if its disk may
// leave it unsure of a slot, with chance AimedSecond it draws the second
// event to aim at the restart.
func (c *Cluster) aimSecond(i int) {
	if c.disks == nil || c.cfg.Storage.AimedSecond.Zero() || c.liveness.active {
		return
	}
	st := c.secondStart()
	if st.restartView[i] {
		st.restartView[i] = false
		st.due = append(st.due, secondDue{tick: c.now + 1, kind: secondViewAtRestart, victim: i,
			cause: fmt.Sprintf("r%d restarted above a truncated log", i)})
		return
	}
	if !c.exposed(i) || !st.rng.Chance(c.cfg.Storage.AimedSecond) {
		return
	}
	kind := uint8(st.rng.Uint64N(secondKinds))
	if kind == secondViewAtRestart {
		st.due = append(st.due, secondDue{tick: c.now + 1, kind: kind, victim: i,
			cause: fmt.Sprintf("r%d restarted", i)})
		return
	}
	if st.armed[i] == 0 {
		st.armedAny++
	}
	st.armed[i] = kind + 1
}

// secondOnStatus sees every status event: a replica armed for a second event
// that goes normal has rejoined, and its event is due next tick.
func (c *Cluster) secondOnStatus(e *vsr.Event) {
	st := &c.disks.second
	i := e.Replica
	if st.armedAny == 0 || i < 0 || i >= len(st.armed) || st.armed[i] == 0 {
		return
	}
	p := e.StatusChanged()
	if p.Status != vsr.StatusNormal {
		return
	}
	kind := st.armed[i] - 1
	st.armed[i] = 0
	st.armedAny--
	if c.liveness.active {
		return
	}
	if kind == secondTruncated {
		// Half the time at once, inside the window where the new view's
		// writes are in flight; half once its disk is quiet, the new
		// log_view durable above ops it acked in the older view.
		quiet := st.rng.Bool()
		when := "at once"
		if quiet {
			when = "once its disk is quiet"
		}
		st.due = append(st.due, secondDue{tick: c.now + 1, kind: secondRecrash, victim: i, thenView: true, quiet: quiet,
			cause: fmt.Sprintf("r%d truncated its log and holds view %d, crashed %s", i, p.View, when)})
		return
	}
	victim := i
	if kind == secondViewAtRejoin {
		victim = vsr.PrimaryOf(p.View, c.cfg.Replicas)
		if victim == i {
			return
		}
	}
	st.due = append(st.due, secondDue{tick: c.now + 1, kind: kind, victim: victim,
		cause: fmt.Sprintf("r%d rejoined view %d", i, p.View)})
}

// disarmSecond forgets what was aimed at replica i's rejoin: it crashed.
func (c *Cluster) disarmSecond(i int) {
	st := &c.disks.second
	if st.armedAny > 0 && st.armed[i] != 0 {
		st.armed[i] = 0
		st.armedAny--
	}
}

// takeSecond takes one due second event, or reports it must wait: a recrash
// of the restarted replica (a quiet one waits for its writes to land), or
// the primary taken out so a view change runs (crashed if the bound allows
// and the draw says so, else its links out cut for longer than a backup
// waits to hear it).
func (c *Cluster) takeSecond(a secondDue) (taken bool) {
	st := &c.disks.second
	name := secondKindNames[a.kind]
	if a.kind == secondRecrash {
		if a.quiet && c.replicas[a.victim] != nil && len(c.disks.r[a.victim].inFlight) > 0 {
			return false // its writes are still landing: wait
		}
		if c.crashSecond(a.victim, fmt.Sprintf("aimed second event r%d (%s): %s", a.victim, name, a.cause)) && a.thenView {
			st.restartView[a.victim] = true
		}
		return true
	}
	p := a.victim
	if a.kind == secondViewAtRestart {
		q, ok := c.currentPrimary()
		if !ok || q == p {
			return true
		}
		p = q
	}
	if c.replicas[p] == nil {
		return true
	}
	if st.rng.Bool() && c.crashSecond(p, fmt.Sprintf("aimed second event (%s): crash primary r%d, %s", name, p, a.cause)) {
		return true
	}
	until := c.now + 1 + c.lateTicks() + st.rng.Exponential(c.lateTicks())
	c.noteRecorded(fmt.Sprintf("aimed second event (%s): cut primary r%d's links out until t=%d, %s", name, p, until, a.cause))
	c.holdLinks(c.receiveOnlyLinks(p), until)
	c.stats.DirectedCuts++
	return true
}

// receiveOnlyLinks are the links from replica x to every other replica: cut,
// x hears the cluster and no replica hears it.
func (c *Cluster) receiveOnlyLinks(x int) []int {
	var links []int
	nodes := c.nodes()
	for y := 0; y < c.cfg.Replicas; y++ {
		if y != x {
			links = append(links, x*nodes+y)
		}
	}
	return links
}

// secondOnTruncate sees every journal truncation in the fault phase: a
// replica whose view change cut ops from its log may have acked them in an
// older view, above the head of the log it now holds. With chance
// AimedSecond it is crashed once it holds the new view (its log_view durable),
// and its restart takes the primary out, so the view change needs its vote
// while it is unsure of what it acked (the restart's ack bound).
func (c *Cluster) secondOnTruncate(e *vsr.Event) {
	if c.cfg.Storage.AimedSecond.Zero() || c.liveness.active {
		return
	}
	st := c.secondStart()
	i := e.Replica
	if i < 0 || i >= len(st.armed) || st.armed[i] != 0 || !st.rng.Chance(c.cfg.Storage.AimedSecond) {
		return
	}
	st.armed[i] = secondTruncated + 1
	st.armedAny++
}

// aimSpoiledCrash runs as an aimed lost rewrite of replica i's prepare copy
// at slot marks the header copy's rewrite to land damaged (D123): where
// second events are on, half the time (the rewrite's own stream) it crashes
// the replica once its disk is quiet, the damaged write landed and whatever
// it acknowledged on it gone out, so its restart reads the older prepare
// beside a header copy it cannot read, likely at the op it acknowledged
// last; and half of those take the primary out at the restart, so a view
// change needs the vote that op's reading makes.
//
// Both draws are made whether or not second events are on: a recording
// leaves their chances out and replays the crash as an action, and its
// spoils must draw as the recorded run's did.
func (c *Cluster) aimSpoiledCrash(i, slot int) {
	crash, thenView := c.disks.rewriteSpoil.Bool(), c.disks.rewriteSpoil.Bool()
	if !crash || !c.cfg.Storage.secondOn() || c.liveness.active {
		return
	}
	st := c.secondStart()
	st.due = append(st.due, secondDue{tick: c.now + 1, kind: secondRecrash, victim: i, quiet: true, thenView: thenView,
		cause: fmt.Sprintf("r%d's header copy rewrite at slot %d lands damaged over a lost prepare rewrite", i, slot)})
}
