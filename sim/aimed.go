package sim

import (
	"fmt"
	"slices"

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
}

func (c *Cluster) nodes() int { return c.cfg.Replicas + c.cfg.Clients }

// injectAimed ends the link faults that are due, then draws new ones.
func (c *Cluster) injectAimed() {
	a := &c.cfg.Aimed
	if !a.On() {
		return
	}
	st := &c.aimed
	if st.rng == nil {
		st.rng = prng.New(c.cfg.Seed, prng.StreamAimed)
		st.down = make([]int, c.nodes()*c.nodes())
	}
	kept := st.active[:0]
	for _, f := range st.active {
		if c.now < f.until {
			kept = append(kept, f)
			continue
		}
		c.releaseLinks(f.links)
	}
	st.active = kept
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
	nodes := c.nodes()
	var links []int
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
	until := c.now + 1 + st.rng.Exponential(a.LinkMeanTicks)
	for _, l := range links {
		if st.down[l] == 0 {
			c.net.SetLinkDown(l/nodes, l%nodes, true)
		}
		st.down[l]++
	}
	st.active = append(st.active, linkFault{links: links, until: until})
	c.noteRecorded(fmt.Sprintf("aimed %s cut at r%d until t=%d", cutKindNames[kind], x, until))
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
	victim := -1
	for pass := 0; pass < 3 && victim < 0; pass++ {
		for i, r := range c.replicas {
			if r == nil {
				continue
			}
			info := r.Info()
			if (pass == 0 && info.Transferring) || (pass == 1 && info.CommitMin < info.CommitMax) || (pass == 2 && info.Primary) {
				victim = i
				break
			}
		}
	}
	if p, ok := c.currentPrimary(); ok && c.cfg.Aimed.CrashPeers && victim >= 0 && victim != p {
		victim = p
	}
	if victim < 0 || (!c.cfg.CrashesUnbounded && c.notWholeAfterCrash(victim) > c.cfg.Replicas-c.checker.QuorumViewChange()) {
		return
	}
	c.Crash(victim)
	c.recordNode("crash", victim)
	c.restartAt[victim] = c.now + 1 + c.aimed.rng.Exponential(c.cfg.RestartMeanTicks)
}

// aimedAtLiveness runs as the liveness phase starts, after the network
// healed: the link faults end, except that with LivenessKeepFaults a replica
// outside the core keeps its cut links among the replicas for good. It also
// lists the replicas outside the core that keep a fault (a cut, or a slow
// link, which the liveness phase always keeps) for aimedInLiveness.
func (c *Cluster) aimedAtLiveness(core []int) {
	st := &c.aimed
	nodes, n := c.nodes(), c.cfg.Replicas
	outside := func(i int) bool { return i < n && !inCore(core, i) }
	var cutOff []int
	for i := 0; i < n; i++ {
		swarmCut := c.cfg.Protocol.SVCQuorumOff && c.cfg.Scenario == "" && c.hearsLate(i)
		if outside(i) && (swarmCut || slices.Contains(c.cfg.LivenessIsolate, i)) {
			// Without the quorum window one replica's StartViewChange
			// pulls every replica into its view: a swarm run of such a
			// source cuts off whole a replica outside the core that
			// cannot hear the core in time, or it escalates alone and
			// keeps the core from settling (swarm seed 953). One that
			// only speaks late (a straggler) stays: a replica that hears
			// its primary must hold its view, and one that does not is
			// the defect escalate-without-hold. A scenario keeps its own
			// network; a recorded run replays its cut-offs, note and all
			// (LivenessIsolate).
			c.isolate(i)
			cutOff = append(cutOff, i)
			c.Note(fmt.Sprintf("r%d outside the core of a source protocol: cut off", i))
			if r := c.cfg.Recording; r != nil {
				r.Isolated = append(r.Isolated, i)
			}
			continue
		}
		for j := 0; j < n && outside(i) && !slices.Contains(st.kept, i); j++ {
			if c.net.ExtraDelay(i, j) > 0 || c.net.ExtraDelay(j, i) > 0 {
				st.kept = append(st.kept, i)
			}
		}
	}
	for _, f := range st.active {
		for _, l := range f.links {
			from, to := l/nodes, l%nodes
			if c.cfg.LivenessKeepFaults && from < n && to < n && (outside(from) || outside(to)) {
				c.net.SetLinkDown(from, to, true)
				st.keptLinks = append(st.keptLinks, l)
				for _, i := range []int{from, to} {
					if outside(i) && !slices.Contains(st.kept, i) {
						st.kept = append(st.kept, i)
					}
				}
			}
		}
	}
	// A recorded run's cut-offs: its replicas outside the core are watched
	// as the kept ones were, so one that comes to lead is cut off whole.
	for _, l := range c.cfg.LivenessCuts {
		c.net.SetLinkDown(l.From, l.To, true)
		st.keptLinks = append(st.keptLinks, l.From*nodes+l.To)
		for _, i := range []int{l.From, l.To} {
			if outside(i) && !slices.Contains(st.kept, i) {
				st.kept = append(st.kept, i)
			}
		}
	}
	st.active = nil
	clear(st.down)
	// A replica cut off whole already is not watched: a recorded run, which
	// replays its cut links, then notes the same cut-offs as the run did.
	st.kept = slices.DeleteFunc(st.kept, func(i int) bool { return slices.Contains(cutOff, i) })
	slices.Sort(st.kept)
	if c.cfg.Recording != nil {
		c.cfg.Recording.livenessStart(c)
	}
}

// aimedInLiveness cuts off, both ways, a replica outside the core that
// keeps a fault on a link out of it to the core (a one-way cut, or a link as
// slow as a restart) and now leads a view. A core backup that cannot hear
// such a primary times out, but its wish to leave is one vote: the rest of
// the core, served well, never joins it (D14), and no backup relays the view
// to it, so it would lag for good (swarm seeds 258, 1744, 2460 once the
// cut-off was narrowed, D28). A leader outside the core that only hears
// the core late or not at all is no longer cut off: it pushes its StartView
// to a backup it does not hear from (D28).
func (c *Cluster) aimedInLiveness() {
	st := &c.aimed
	for k := 0; k < len(st.kept); k++ {
		i := st.kept[k]
		if c.replicas[i] == nil || !c.replicas[i].Info().Primary || !c.speaksLate(i) {
			continue
		}
		c.isolate(i)
		st.kept = slices.Delete(st.kept, k, k+1)
		k--
		c.Note(fmt.Sprintf("r%d leads with kept faults: cut off", i))
	}
}

// hearsLate reports whether replica i, outside the core, keeps a fault on a
// link into it from a replica: a slow link, or (with LivenessKeepFaults) a
// directed cut still in force.
func (c *Cluster) hearsLate(i int) bool {
	n, nodes := c.cfg.Replicas, c.nodes()
	for j := 0; j < n; j++ {
		if j != i && c.net.ExtraDelay(j, i) > 0 {
			return true
		}
	}
	if !c.cfg.LivenessKeepFaults {
		return false
	}
	for _, f := range c.aimed.active {
		for _, l := range f.links {
			if from, to := l/nodes, l%nodes; to == i && from < n {
				return true
			}
		}
	}
	return false
}

// speaksLate reports whether replica i keeps a fault on a link out of it to
// a replica of the core: a slow link, or a directed cut still down.
func (c *Cluster) speaksLate(i int) bool {
	for _, j := range c.liveness.core {
		if j != i && (c.net.ExtraDelay(i, j) > 0 || slices.Contains(c.aimed.keptLinks, i*c.nodes()+j)) {
			return true
		}
	}
	return false
}

// isolate cuts replica i off from every other replica, both ways.
func (c *Cluster) isolate(i int) {
	for j := 0; j < c.cfg.Replicas; j++ {
		if j != i {
			c.net.SetLinkDown(i, j, true)
			c.net.SetLinkDown(j, i, true)
		}
	}
}

// aimedString describes the link faults for the option dump.
func aimedString(a *AimedFaults) (links, crash string) {
	links = "off"
	if !a.LinkChance.Zero() {
		links = fmt.Sprintf("%s mean=%d ticks", ratioString(a.LinkChance), a.LinkMeanTicks)
		if a.ClientLinks {
			links += " clients"
		}
		if a.AimPrimary {
			links += " aim-primary"
		}
	}
	return links, ratioString(a.CrashChance)
}
