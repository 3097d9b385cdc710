package scenarios

import (
	"fmt"
	"path/filepath"
	"slices"

	"vsrsim/packetsim"
	"vsrsim/scenarios/vsrfile"
	"vsrsim/sim"
	"vsrsim/vsr"
)

// fileScript runs a file's actions over virtual time. It keeps its own table
// of the faults it put on each directed link, so that a partition replaces
// the previous partition without lifting a cut, and heal (or the liveness
// phase) can lift exactly what the file put there. A node's link to itself
// is never touched: it is not a network link.
type fileScript struct {
	file  *File
	next  int
	nodes int
	// Per directed link, index from*nodes+to.
	cut       []bool   // cut / uncut
	parted    []bool   // the current partition
	held      []bool   // hold / release
	drop      []uint32 // drop / pass: bit per replica.Command
	filtering bool     // the drop filter is installed
}

func (s *fileScript) init(c *sim.Cluster) {
	if s.nodes != 0 {
		return
	}
	s.nodes = c.Config().Replicas + c.Config().Clients
	k := s.nodes * s.nodes
	s.cut, s.parted, s.held, s.drop = make([]bool, k), make([]bool, k), make([]bool, k), make([]uint32, k)
}

func (s *fileScript) At(c *sim.Cluster, tick uint64) {
	s.init(c)
	for s.next < len(s.file.actions) && s.file.actions[s.next].At <= tick {
		s.run(c, &s.file.actions[s.next])
		s.next++
	}
}

// note writes a trace note naming the action's line. The file is named by
// its base name: a run's trace must not depend on the directory the file was
// read from (a fuzz finding saved to disk and replayed from there drifted).
func (s *fileScript) note(c *sim.Cluster, a *action, format string, args ...any) {
	c.Note(s.where(a) + fmt.Sprintf(format, args...))
}

// where is the prefix of a note about a: the file's base name and the line.
func (s *fileScript) where(a *action) string {
	return fmt.Sprintf("%s:%d: ", filepath.Base(s.file.Name), a.Line)
}

// resolve names the nodes of ts now. A role is noted in the trace with the
// replica it named; if no replica is Normal the action is skipped with a note.
func (s *fileScript) resolve(c *sim.Cluster, a *action, ts []vsrfile.Target) ([]int, bool) {
	nodes, ok := resolve(c, ts)
	if !slices.ContainsFunc(ts, vsrfile.Target.Role) {
		return nodes, true
	}
	p, _ := primaryNow(c)
	if !ok {
		s.note(c, a, "%s skipped: no replica is normal, so no role resolves", a.Verb)
		return nil, false
	}
	s.note(c, a, "primary is r%d", p)
	return nodes, true
}

func (s *fileScript) run(c *sim.Cluster, a *action) {
	switch a.Verb {
	case "crash", "restart":
		s.crashOrRestart(c, a)
	case "partition":
		s.partition(c, a)
	case "heal":
		s.heal(c)
	case "cut", "uncut", "hold", "release", "drop", "pass":
		s.links(c, a)
	case "extra-delay":
		s.extraDelay(c, a)
	case "network":
		s.network(c, a)
	case "note":
		c.Note(a.Text)
	case "corrupt", "misdirect":
		s.disk(c, a)
	}
}

// disk injects a storage action's fault on each replica it names, down or
// up: a disk keeps its damage across a crash. Apply refused what the
// cluster's methods would, so a refusal here is only noted.
func (s *fileScript) disk(c *sim.Cluster, a *action) {
	nodes, ok := s.resolve(c, a, a.Targets)
	if !ok {
		return
	}
	for _, i := range nodes {
		var err error
		switch {
		case a.Verb == vsrfile.Misdirect:
			if err = c.MisdirectEntry(i, a.Op, a.OpTo); err == nil {
				// The disk traces the fault only when the write lands.
				s.note(c, a, "r%d's next write of op %d's prepare lands on op %d's slot", i, a.Op, a.OpTo)
			}
		case a.Copy == vsrfile.CopySuperblock:
			err = c.CorruptSuperblock(i)
		default:
			err = c.CorruptEntry(i, a.Op, a.copy)
		}
		if err != nil {
			s.note(c, a, "%s refused: %v", a.Verb, err)
		}
	}
}

// crashOrRestart crashes or restarts each node the action names; one already
// in the state asked for is noted, not touched. A crash that would leave more
// replicas down or amnesiac than the protocol survives is skipped with a note,
// unless the file says `crashes beyond-f` (docs/scenario-files.md).
func (s *fileScript) crashOrRestart(c *sim.Cluster, a *action) {
	nodes, ok := s.resolve(c, a, a.Targets)
	if !ok {
		return
	}
	for _, i := range nodes {
		switch {
		case a.Verb == "crash" && !c.Alive(i):
			s.note(c, a, "r%d is already down", i)
		case a.Verb == "crash" && c.CrashBeyondF(i):
			c.SkipCrash(s.where(a) + fmt.Sprintf("crash of r%d skipped: it would leave more replicas down or amnesiac than f (crashes beyond-f lifts the bound)", i))
		case a.Verb == "crash":
			c.Crash(i)
		case c.Alive(i):
			s.note(c, a, "r%d is already up", i)
		default:
			c.Restart(i)
		}
	}
}

// heal lifts every fault on the network, and forgets the file's own.
func (s *fileScript) heal(c *sim.Cluster) {
	c.Network().HealAll()
	clear(s.cut)
	clear(s.parted)
	clear(s.held)
	clear(s.drop)
}

// links applies a directed-link action to every link from a From node to a
// To node, but a node's link to itself.
func (s *fileScript) links(c *sim.Cluster, a *action) {
	from, ok1 := s.resolve(c, a, a.From)
	to, ok2 := s.resolve(c, a, a.To)
	if !ok1 || !ok2 {
		return
	}
	for _, x := range from {
		for _, y := range to {
			if x != y {
				s.link(c, a, x, y)
			}
		}
	}
}

// extraDelay sets the extra delay between two ends, each one node or every
// replica; an end that does not resolve to one node skips the action.
func (s *fileScript) extraDelay(c *sim.Cluster, a *action) {
	var ends [2]int
	for i, t := range a.Delay {
		if t.Kind == vsrfile.AllReplicas {
			ends[i] = packetsim.AnyNode
			continue
		}
		nodes, ok := s.resolve(c, a, []vsrfile.Target{t})
		if !ok || len(nodes) != 1 {
			return
		}
		ends[i] = nodes[0]
	}
	// No randomness: a zero delay replays the run without it.
	c.Network().SetExtraDelay(ends[0], ends[1], a.Ticks)
}

// network changes one network option; a value the network refuses is noted
// and the options stay as they were.
func (s *fileScript) network(c *sim.Cluster, a *action) {
	net := c.Network()
	opts := net.Options()
	a.net.Apply(&opts)
	if err := net.SetOptions(opts); err != nil {
		s.note(c, a, "network %s refused: %v", a.net.Key, err)
	}
}

// link applies a directed-link action to x -> y.
func (s *fileScript) link(c *sim.Cluster, a *action, x, y int) {
	net := c.Network()
	l := x*s.nodes + y
	switch a.Verb {
	case "cut", "uncut":
		s.cut[l] = a.Verb == "cut"
		net.SetLinkDown(x, y, s.cut[l] || s.parted[l])
	case "hold":
		s.held[l] = true
		net.Hold(x, y)
	case "release":
		s.held[l] = false
		net.Release(c.Now(), x, y)
	case "drop":
		s.drop[l] |= a.kinds
		if !s.filtering {
			s.filtering = true
			net.AddFilter(func(from, to int, m vsr.Message) bool {
				return s.drop[from*s.nodes+to]&(1<<m.Command) != 0
			})
		}
	case "pass":
		s.drop[l] &^= a.kinds
	}
}

// partition replaces the current partition. "*" and "clients" on a side
// stand for the replicas (clients) no other side names. A role that resolves
// to a node another side names skips the action with a note.
func (s *fileScript) partition(c *sim.Cluster, a *action) {
	side := make([]int, s.nodes) // side+1 of each node, 0 for none
	// The named nodes first, so that a wildcard on an earlier side cannot
	// take a node a later side names.
	if !s.placeNamed(c, a, side) {
		return
	}
	s.placeRest(c, a, side)
	for x := 0; x < s.nodes; x++ {
		for y := 0; y < s.nodes; y++ {
			l := x*s.nodes + y
			parted := side[x] != 0 && side[y] != 0 && side[x] != side[y]
			if parted != s.parted[l] {
				s.parted[l] = parted
				c.Network().SetLinkDown(x, y, s.cut[l] || parted)
			}
		}
	}
}

// isWildcard says whether t stands for the replicas or clients no side names.
func isWildcard(t vsrfile.Target) bool {
	return t.Kind == vsrfile.AllReplicas || t.Kind == vsrfile.AllClients
}

// placeNamed puts each node a side names on that side (side[i] = k+1). It
// reports false, having noted why, if a target does not resolve or a node
// would be on two sides: the partition is then skipped.
func (s *fileScript) placeNamed(c *sim.Cluster, a *action, side []int) bool {
	for k, ts := range a.Sides {
		for _, t := range ts {
			if isWildcard(t) {
				continue
			}
			nodes, ok := s.resolve(c, a, []vsrfile.Target{t})
			if !ok {
				return false
			}
			for _, i := range nodes {
				if side[i] != 0 && side[i] != k+1 {
					s.note(c, a, "partition skipped: r%d would be on two sides", i)
					return false
				}
				side[i] = k + 1
			}
		}
	}
	return true
}

// placeRest puts every replica (client) no side names yet on the first side
// whose "*" ("clients") stands for it.
func (s *fileScript) placeRest(c *sim.Cluster, a *action, side []int) {
	replicas := c.Config().Replicas
	for k, ts := range a.Sides {
		for _, t := range ts {
			if !isWildcard(t) {
				continue
			}
			lo, hi := 0, replicas
			if t.Kind == vsrfile.AllClients {
				lo, hi = replicas, s.nodes
			}
			for i := lo; i < hi; i++ {
				if side[i] == 0 {
					side[i] = k + 1
				}
			}
		}
	}
}

// LivenessStart runs as the liveness phase begins, after the network healed.
// By default the file's faults end with the fault phase. With `liveness
// keep-faults`, every link of a replica outside the core keeps its cut,
// partition, hold and drops (the network put back as the file left it);
// links among the core and its clients stay healed.
func (s *fileScript) LivenessStart(c *sim.Cluster, core []int) {
	s.init(c)
	keep := c.Config().LivenessKeepFaults
	replicas := c.Config().Replicas
	outside := func(i int) bool { return i < replicas && !slices.Contains(core, i) }
	net := c.Network()
	for x := 0; x < s.nodes; x++ {
		for y := 0; y < s.nodes; y++ {
			l := x*s.nodes + y
			if keep && (outside(x) || outside(y)) {
				if s.cut[l] || s.parted[l] {
					net.SetLinkDown(x, y, true)
				}
				if s.held[l] {
					net.Hold(x, y)
				}
				continue
			}
			s.cut[l], s.parted[l], s.held[l], s.drop[l] = false, false, false, 0
		}
	}
}
