package sim

import (
	"fmt"
	"slices"
	"strings"

	"vsrsim/prng"
)

// AimedFaults are faults the harness aims rather than scatters: directed link
// cuts (one link one way, a replica that can only send, one that can only
// receive, a client's link), each for an exponential while, and crashes aimed
// at the primary or at a replica in the middle of repair or state transfer.
// They draw from their own stream, so turning them on moves no other draw.
// The zero value is off.
type AimedFaults struct {
	// LinkChance, per fault-phase tick, starts one link fault lasting
	// 1 + Exponential(LinkMeanTicks).
	LinkChance    prng.Ratio
	LinkMeanTicks uint64
	// ClientLinks lets a link fault cut a client's link to a replica.
	ClientLinks bool
	// AimPrimary aims half of the link faults at the current primary: a
	// burst of them is a burst of view changes.
	AimPrimary bool
	// CrashChance, per fault-phase tick, crashes the primary or a replica
	// that is repairing or transferring state (at most f down, as always).
	CrashChance prng.Ratio
	// CrashPeers aims those crashes at the primary while another replica
	// repairs or transfers: the view change then needs the lagging replica.
	CrashPeers bool
}

// On reports whether any aimed fault can happen.
func (a *AimedFaults) On() bool { return !a.LinkChance.Zero() || !a.CrashChance.Zero() }

// link fault kinds, in draw order.
const (
	cutOneWay = iota
	cutSendOnly
	cutReceiveOnly
	cutClient
)

var cutKindNames = [...]string{"one-way", "send-only", "receive-only", "client"}

// linkFault is one active directed cut: the links it holds down, until a tick.
type linkFault struct {
	links []int // from*nodes + to
	until uint64
}

// aimedState is the harness's record of the aimed faults in force. down
// counts, per directed link, the faults holding it, so two overlapping faults
// on one link do not restore it early.
type aimedState struct {
	rng    *prng.Stream
	active []linkFault
	down   []int
	// kept lists the replicas outside the core whose cuts outlived the
	// fault phase and that are not yet cut off whole.
	kept []int
	// keptLinks are the directed links among replicas held down for good.
	keptLinks []int
	// stragglers are the replicas outside the core that a source protocol's
	// swarm run, or its recording, may cut off once the grace is over;
	// recordedStragglers says a recording named them (to cut off or heal).
	stragglers         []straggler
	recordedStragglers bool
}

func (c *Cluster) nodes() int { return c.cfg.Replicas + c.cfg.Clients }

// injectAimed ends the link faults that are due, then draws new ones.
func (c *Cluster) injectAimed() {
	st := &c.aimed
	// A cut the second storage events aimed (holdLinks) ends here too.
	kept := st.active[:0]
	for _, f := range st.active {
		if c.now < f.until {
			kept = append(kept, f)
			continue
		}
		c.releaseLinks(f.links)
	}
	st.active = kept
	a := &c.cfg.Aimed
	if !a.On() {
		return
	}
	if st.rng == nil {
		st.rng = prng.New(c.cfg.Seed, prng.StreamAimed)
		st.startDown(c.nodes())
	}
	if st.rng.Chance(a.LinkChance) {
		c.startLinkFault()
	}
	if st.rng.Chance(a.CrashChance) {
		c.crashAimed()
	}
}

// startLinkFault draws a kind, a target and a duration, and cuts.
func (c *Cluster) startLinkFault() {
	a, st := &c.cfg.Aimed, &c.aimed
	n := c.cfg.Replicas
	kinds := uint64(3)
	if a.ClientLinks {
		kinds = 4
	}
	kind := int(st.rng.Uint64N(kinds))
	x := st.rng.IntN(n)
	if a.AimPrimary && st.rng.Bool() {
		if p, ok := c.currentPrimary(); ok {
			x = p
		}
	}
	if n < 2 {
		kind = cutClient
	}
	links, x := c.cutLinks(kind, x)
	until := c.now + 1 + st.rng.Exponential(a.LinkMeanTicks)
	c.holdLinks(links, until)
	if kind != cutClient {
		c.stats.DirectedCuts++
	}
	c.noteRecorded(fmt.Sprintf("aimed %s cut at r%d until t=%d", cutKindNames[kind], x, until))
}

// startDown makes the count of faults holding each directed link down.
func (st *aimedState) startDown(nodes int) {
	if st.down == nil {
		st.down = make([]int, nodes*nodes)
	}
}

// holdLinks takes links down until a tick, as an aimed fault that
// injectAimed ends.
func (c *Cluster) holdLinks(links []int, until uint64) {
	st, nodes := &c.aimed, c.nodes()
	st.startDown(nodes)
	for _, l := range links {
		if st.down[l] == 0 {
			c.net.SetLinkDown(l/nodes, l%nodes, true)
		}
		st.down[l]++
	}
	st.active = append(st.active, linkFault{links: links, until: until})
}

// cutLinks draws the links a cut of kind at replica x takes down, and the
// replica it names (a one-way cut may name its other end).
func (c *Cluster) cutLinks(kind, x int) (links []int, at int) {
	st, n, nodes := &c.aimed, c.cfg.Replicas, c.nodes()
	switch kind {
	case cutOneWay:
		y := (x + 1 + st.rng.IntN(n-1)) % n
		if st.rng.Bool() {
			x, y = y, x
		}
		links = append(links, x*nodes+y)
	case cutSendOnly, cutReceiveOnly:
		for y := 0; y < n; y++ {
			switch {
			case y == x:
			case kind == cutSendOnly:
				links = append(links, y*nodes+x)
			default:
				links = append(links, x*nodes+y)
			}
		}
	case cutClient:
		k := n + st.rng.IntN(c.cfg.Clients)
		if st.rng.Bool() {
			links = append(links, k*nodes+x)
		} else {
			links = append(links, x*nodes+k)
		}
	}
	return links, x
}

func (c *Cluster) releaseLinks(links []int) {
	st, nodes := &c.aimed, c.nodes()
	for _, l := range links {
		st.down[l]--
		if st.down[l] == 0 {
			c.net.SetLinkDown(l/nodes, l%nodes, false)
		}
	}
}

// currentPrimary is the primary of the highest view a live replica leads.
func (c *Cluster) currentPrimary() (int, bool) {
	best, view, ok := 0, uint64(0), false
	for i, r := range c.replicas {
		if r == nil {
			continue
		}
		if info := r.Info(); info.Primary && (!ok || info.View > view) {
			best, view, ok = i, info.View, true
		}
	}
	return best, ok
}

// crashAimed crashes, within the usual bound on replicas down, a replica in
// the middle of state transfer, else one in the middle of repair (commit lag),
// else the primary: the moments a crash is most likely to find a defect.
func (c *Cluster) crashAimed() {
	victim := c.aimedVictim()
	if p, ok := c.currentPrimary(); ok && c.cfg.Aimed.CrashPeers && victim >= 0 && victim != p {
		victim = p
	}
	if victim < 0 || !c.crashKeepsQuorum(victim) {
		return
	}
	c.Crash(victim)
	c.recordNode("crash", victim)
	c.restartAt[victim] = c.now + 1 + c.aimed.rng.Exponential(c.cfg.RestartMeanTicks)
}

// aimedVictim is the first live replica in the middle of state transfer,
// else in the middle of repair, else the primary; -1 if none is.
func (c *Cluster) aimedVictim() int {
	for pass := 0; pass < 3; pass++ {
		for i, r := range c.replicas {
			if r == nil {
				continue
			}
			info := r.Info()
			if (pass == 0 && info.Transferring) || (pass == 1 && info.CommitMin < info.CommitMax) || (pass == 2 && info.Primary) {
				return i
			}
		}
	}
	return -1
}

// aimedAtLiveness runs as the liveness phase starts, after the network
// healed: the link faults end, except that with LivenessKeepFaults a replica
// outside the core keeps its cut links among the replicas for good. It also
// lists the replicas outside the core that keep a fault (a cut, or a slow
// link, which the liveness phase always keeps) for aimedInLiveness.
func (c *Cluster) aimedAtLiveness(core []int) {
	st := &c.aimed
	c.watchOutside(core)
	st.recordedStragglers = len(c.cfg.LivenessIsolate) > 0 || len(c.cfg.LivenessHeal) > 0
	c.keepCuts(core)
	st.active = nil
	clear(st.down)
	slices.Sort(st.kept)
	if c.recording != nil {
		c.recording.livenessStart(c)
	}
}

// outsideCore reports whether i is a replica outside core.
func (c *Cluster) outsideCore(core []int, i int) bool { return i < c.cfg.Replicas && !inCore(core, i) }

// watchOutside lists the replicas outside the core that straggle (a
// recorded run's cut-offs, in a source protocol's swarm run those that hear
// late) and those that keep a slow link.
func (c *Cluster) watchOutside(core []int) {
	st := &c.aimed
	n := c.cfg.Replicas
	source := c.cfg.Protocol.SVCQuorumOff && c.swarmJudged()
	for i := 0; i < n; i++ {
		if !c.outsideCore(core, i) {
			continue
		}
		if slices.Contains(c.cfg.LivenessIsolate, i) {
			st.stragglers = append(st.stragglers, straggler{i, "the recorded run cut it off here", false})
		} else if slices.Contains(c.cfg.LivenessHeal, i) {
			st.stragglers = append(st.stragglers, straggler{i, "the recorded run healed it here", true})
		} else if late, cause := c.hearsLate(i); source && late {
			st.stragglers = append(st.stragglers, straggler{i, cause, false})
		}
		for j := 0; j < n && !slices.Contains(st.kept, i); j++ {
			if c.slowLink(i, j) || c.slowLink(j, i) {
				st.kept = append(st.kept, i)
			}
		}
	}
}

// swarmJudged reports whether the run's liveness phase gets the swarm's own
// help for a source protocol's stragglers: a swarm run, and a scenario file
// that records no cut-offs of its own. A recording of a swarm run that
// needed none replays the same decision, since the rule reads the run as it
// stands; a file the guided search mutated is judged as a swarm run is,
// rather than failing for want of a cut-off its parent never needed (the
// help is an assist all the same). A named scenario keeps its own network.
func (c *Cluster) swarmJudged() bool {
	return c.cfg.Scenario == "" || strings.HasPrefix(c.cfg.Scenario, "file:") && len(c.cfg.LivenessIsolate) == 0 && len(c.cfg.LivenessHeal) == 0
}

// keepCuts keeps down for good, with LivenessKeepFaults, the aimed cuts among
// replicas that touch one outside the core, and a recorded run's cut-offs
// (LivenessCuts): its replicas outside the core are watched as the kept ones
// are, so one that comes to lead is cut off whole.
func (c *Cluster) keepCuts(core []int) {
	st := &c.aimed
	nodes, n := c.nodes(), c.cfg.Replicas
	keep := func(from, to int) {
		c.net.SetLinkDown(from, to, true)
		st.keptLinks = append(st.keptLinks, from*nodes+to)
		for _, i := range []int{from, to} {
			if c.outsideCore(core, i) && !slices.Contains(st.kept, i) {
				st.kept = append(st.kept, i)
			}
		}
	}
	for _, f := range st.active {
		for _, l := range f.links {
			from, to := l/nodes, l%nodes
			if c.cfg.LivenessKeepFaults && from < n && to < n && (c.outsideCore(core, from) || c.outsideCore(core, to)) {
				keep(from, to)
			}
		}
	}
	for _, l := range c.cfg.LivenessCuts {
		keep(l.From, l.To)
	}
	c.noteSilenced(core)
}

// noteSilenced tells the oracle of each replica outside the core whose every
// link into the core the harness keeps down for good: it can neither serve
// the core an op nor vote to it, so no correct core can count on it (the
// oracle's record, not the replica's word; swarm seed 5284, where the only
// copy of a committed op left sat on such a replica).
func (c *Cluster) noteSilenced(core []int) {
	for _, i := range silenced(c.cfg.Replicas, c.nodes(), core, c.aimed.keptLinks) {
		c.checker.CutOff(c.now, i)
	}
	for _, i := range unserving(c.cfg.Replicas, c.nodes(), core, c.aimed.keptLinks) {
		c.checker.CannotServe(c.now, i)
	}
}

// unserving lists the replicas outside core (of n, link ids from*nodes+to)
// with no round trip to any core replica: for each, the link to it or the
// link from it is among kept. Such a replica may still vote (it hears one
// core replica and speaks to another), but cannot serve the core an op, a
// request it must hear and an answer the asker must hear (swarm seed
// 2124434655 from 0x7ea00000).
func unserving(n, nodes int, core []int, kept []int) []int {
	var out []int
	for i := 0; i < n && len(core) > 0; i++ {
		if inCore(core, i) {
			continue
		}
		trip := false
		for _, j := range core {
			trip = trip || (!slices.Contains(kept, i*nodes+j) && !slices.Contains(kept, j*nodes+i))
		}
		if !trip {
			out = append(out, i)
		}
	}
	return out
}

// silenced lists the replicas outside core (of n, link ids from*nodes+to)
// every link of which into the core, or every link from the core into
// which, is among kept: serving the core an op takes a request the replica
// must hear and an answer the core must hear, and a vote answers the core's
// StartViewChange: at most f replicas stand outside a core of a quorum, so
// one deaf to the core hears fewer than the f others a vote needs (swarm
// seed 3737862620 from 0xdecade00: r0, outside the core, held committed op
// 23's last copy and heard nothing of the core).
func silenced(n, nodes int, core []int, kept []int) []int {
	var out []int
	for i := 0; i < n && len(core) > 0; i++ {
		if inCore(core, i) {
			continue
		}
		mute, deaf := true, true
		for _, j := range core {
			mute = mute && slices.Contains(kept, i*nodes+j)
			deaf = deaf && slices.Contains(kept, j*nodes+i)
		}
		if mute || deaf {
			out = append(out, i)
		}
	}
	return out
}

// aimedInLiveness cuts off, both ways, a replica outside the core of a run
// of a source protocol that leads a view, as the oracle's record has it,
// while it keeps a fault the source cannot get past: without abdication, a
// link into it from the core cut for good or slower than a backup's
// heartbeat timeout (a primary that cannot hear its backups never steps
// down, and its heartbeats keep them in its view: swarm seed 981247863);
// without relayed views, such a link out of it to the core (a core backup
// that cannot hear it asks to leave alone, and nobody hands it the view:
// D21, D28). The robust protocol gets no cut-off: such a primary abdicates,
// and a leader that speaks late to the core loses its backups to the view
// their peers relay (replica/relay.go, D43). Every cut-off is an assist in
// the run's record.
func (c *Cluster) aimedInLiveness() {
	st := &c.aimed
	if c.now < c.liveness.since+c.cutOffGrace() {
		// The core gets its chance first: most cores converge around a
		// slow leader outside them (a cut-off at once helped 69 runs of
		// seeds 1..2000 where 3 needed it).
		return
	}
	if c.now == c.liveness.since+c.cutOffGrace() {
		c.stragglersInLiveness()
	}
	for k := 0; k < len(st.kept) && (c.cfg.Protocol.AbdicationOff || c.cfg.Protocol.RelayStartViewOff); k++ {
		i := st.kept[k]
		if c.replicas[i] == nil || !c.checker.LeadsNormal(i) {
			continue
		}
		late, cause := false, ""
		if c.cfg.Protocol.AbdicationOff {
			late, cause = c.hearsCoreLate(i)
		}
		if !late && c.cfg.Protocol.RelayStartViewOff {
			// Nor does a backup relay the view to a core replica the
			// leader speaks late to (D21, D28).
			late, cause = c.speaksLate(i)
		}
		if !late {
			continue
		}
		if c.healsInstead(i, AssistHolderHealed, cause) {
			k-- // heal took i out of kept
			continue
		}
		c.isolate(i)
		st.kept = slices.Delete(st.kept, k, k+1)
		k--
		c.Note(fmt.Sprintf("r%d leads with kept faults: cut off", i))
		c.assist(i, AssistLeaderCutOff, cause)
	}
}

// stragglersInLiveness runs once the grace is over. Without the quorum
// window one replica's StartViewChange pulls every replica into its view,
// so a replica outside the core of a source protocol's swarm run that hears
// the core later than the heartbeat timeout escalates alone and keeps the
// core from settling: the source's own livelock (D27, swarm seed 953). If the
// core's view has climbed three views since the phase began, each such
// straggler is cut off whole. One that
// only speaks late stays: a replica that hears its primary must hold its
// view, and one that does not is the defect escalate-without-hold. A scenario
// keeps its own network; a recorded run replays its cut-offs at the same tick
// (LivenessIsolate), note and all.
func (c *Cluster) stragglersInLiveness() {
	st := &c.aimed
	if len(st.stragglers) == 0 || (!st.recordedStragglers && !c.checker.ViewClimbing()) {
		st.stragglers = nil
		return
	}
	for _, sg := range st.stragglers {
		if st.recordedStragglers && sg.heal {
			c.heal(sg.replica, AssistRecordedHeal, sg.cause)
			continue
		}
		if !st.recordedStragglers && c.healsInstead(sg.replica, AssistHolderHealed, sg.cause) {
			if r := c.recording; r != nil {
				r.Healed = append(r.Healed, sg.replica)
			}
			continue
		}
		c.isolate(sg.replica)
		c.Note(fmt.Sprintf("r%d outside the core of a source protocol: cut off", sg.replica))
		rule := AssistSourceStraggler
		if st.recordedStragglers {
			rule = AssistRecordedCutOff
		}
		c.assist(sg.replica, rule, sg.cause)
		st.kept = slices.DeleteFunc(st.kept, func(i int) bool { return i == sg.replica })
		if r := c.recording; r != nil {
			r.Isolated = append(r.Isolated, sg.replica)
		}
	}
	st.stragglers = nil
}

// straggler is a replica outside the core the harness may cut off once the
// grace is over, with the fault that makes it one.
type straggler struct {
	replica int
	cause   string
	heal    bool // a recording healed it (D64)
}

// cutOffGrace is how long the liveness phase runs before the harness may cut
// a replica off.
func (c *Cluster) cutOffGrace() uint64 { return c.cfg.StableTicks * cutOffGraceStable }

// cutOffGraceStable is how many StableTicks of the liveness phase pass
// before a replica outside the core may be cut off.
const cutOffGraceStable = 2

// lateTicks is how slow a link must be before the harness counts it as a
// fault the core cannot outwait: a backup's heartbeat timeout, the longest a
// backup waits to hear its primary. A constant delay below it only shifts
// every message by the same amount; at or above it, a view's first
// heartbeat arrives after the backup gave up (docs/checkers.md).
func (c *Cluster) lateTicks() uint64 { return c.cfg.Timeouts.HeartbeatTicks }

// slowLink reports whether the directed link from -> to is slower than
// lateTicks.
func (c *Cluster) slowLink(from, to int) bool { return c.net.ExtraDelay(from, to) >= c.lateTicks() }

// hearsLate reports whether replica i keeps a fault on a link into it from a
// replica: a link slower than lateTicks, or (with LivenessKeepFaults) a
// directed cut still in force; cause names it.
func (c *Cluster) hearsLate(i int) (bool, string) {
	n, nodes := c.cfg.Replicas, c.nodes()
	for _, j := range c.liveness.core {
		if j != i && c.slowLink(j, i) {
			return true, fmt.Sprintf("link r%d->r%d delays %d ticks, at least the heartbeat timeout of %d", j, i, c.net.ExtraDelay(j, i), c.lateTicks())
		}
	}
	if !c.cfg.LivenessKeepFaults {
		return false, ""
	}
	for _, f := range c.aimed.active {
		for _, l := range f.links {
			if from, to := l/nodes, l%nodes; to == i && from < n {
				return true, fmt.Sprintf("link r%d->r%d cut for good", from, to)
			}
		}
	}
	return false, ""
}

// speaksLate reports whether replica i keeps a fault on a link out of it to
// a replica of the core: a link slower than lateTicks, or a directed cut
// kept down; cause names it.
func (c *Cluster) speaksLate(i int) (bool, string) {
	for _, j := range c.liveness.core {
		if late, cause := c.linkLate(i, j); late {
			return true, cause + " (relay off)"
		}
	}
	return false, ""
}

// hearsCoreLate reports whether replica i keeps a fault on a link into it
// from a replica of the core: a link slower than lateTicks, or a directed cut
// kept down; cause names it.
func (c *Cluster) hearsCoreLate(i int) (bool, string) {
	for _, j := range c.liveness.core {
		if late, cause := c.linkLate(j, i); late {
			return true, cause + " (abdication off)"
		}
	}
	return false, ""
}

// linkLate reports whether the directed link from -> to, between two
// different replicas, is slower than lateTicks or cut for good.
func (c *Cluster) linkLate(from, to int) (bool, string) {
	switch {
	case from == to:
		return false, ""
	case c.slowLink(from, to):
		return true, fmt.Sprintf("link r%d->r%d delays %d ticks, at least the heartbeat timeout of %d", from, to, c.net.ExtraDelay(from, to), c.lateTicks())
	case slices.Contains(c.aimed.keptLinks, from*c.nodes()+to):
		return true, fmt.Sprintf("link r%d->r%d cut for good", from, to)
	}
	return false, ""
}

// isolate cuts replica i off from every other replica, both ways.
func (c *Cluster) isolate(i int) {
	for j := 0; j < c.cfg.Replicas; j++ {
		if j != i {
			c.net.SetLinkDown(i, j, true)
			c.net.SetLinkDown(j, i, true)
		}
	}
	c.checker.CutOff(c.now, i)
}
