package scenarios

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim"
)

// File is a scenario written as plain text: settings, timed actions and an
// optional expected verdict, one per line (docs/scenario-files.md):
//
//	# comment
//	replicas 3            # also: clients N, journal wal|memory,
//	                      # journal-slots N, ticks N (fault phase), core 0 1
//	at 300 crash 1
//	at 900 restart 1
//	at 900 partition 0 | 1 2
//	at 1200 extra-delay 2:*=600
//	at 2000 heal
//	at 2100 note the cluster is whole again
//	expect pass
//
// A run starts from sim.DefaultConfig without random crashes or partitions,
// so the file alone decides what breaks; the seed varies network delays,
// client timing and timeout jitter. Actions at one tick run in file order.
type File struct {
	Name    string
	Expect  sim.Verdict // "" if the file names none
	set     []setting
	actions []action
}

type setting struct {
	line  int
	key   string
	value string
}

type action struct {
	line  int
	at    uint64
	verb  string
	nodes []int          // crash, restart: one replica
	sides [][]int        // partition
	delay sim.ExtraDelay // extra-delay
	text  string         // note
}

// fileError is a malformed file: "NAME:LINE: problem".
func fileError(name string, line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...))
}

// ParseFile reads a scenario file. Its error is one line naming the file, the
// line and the problem.
func ParseFile(name string, r io.Reader) (*File, error) {
	f := &File{Name: name}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		w := strings.Fields(text)
		if len(w) == 0 {
			continue
		}
		if err := f.parseLine(line, w); err != nil {
			return nil, fileError(name, line, "%v", err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fileError(name, line+1, "%v", err)
	}
	if len(f.actions) == 0 && len(f.set) == 0 && f.Expect == "" {
		return nil, fmt.Errorf("%s: no settings or actions", name)
	}
	// Stable: actions at one tick keep their file order.
	slices.SortStableFunc(f.actions, func(a, b action) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
	return f, nil
}

var settingKeys = []string{"replicas", "clients", "journal", "journal-slots", "ticks", "core"}

func (f *File) parseLine(line int, w []string) error {
	switch {
	case w[0] == "expect":
		if len(w) != 2 {
			return fmt.Errorf("want: expect pass|safety|liveness|crash")
		}
		for _, v := range []sim.Verdict{sim.VerdictPass, sim.VerdictSafety, sim.VerdictLiveness, sim.VerdictCrash} {
			if string(v) == w[1] {
				f.Expect = v
				return nil
			}
		}
		return fmt.Errorf("unknown verdict %q (want pass, safety, liveness or crash)", w[1])
	case slices.Contains(settingKeys, w[0]):
		if len(w) < 2 || (w[0] != "core" && len(w) != 2) {
			return fmt.Errorf("want: %s VALUE", w[0])
		}
		f.set = append(f.set, setting{line: line, key: w[0], value: strings.Join(w[1:], " ")})
		return nil
	case w[0] != "at":
		return fmt.Errorf("unknown line %q (want at, expect, or a setting: %s)", w[0], strings.Join(settingKeys, ", "))
	}
	if len(w) < 3 {
		return fmt.Errorf("want: at TICK ACTION ...")
	}
	at, err := strconv.ParseUint(w[1], 10, 64)
	if err != nil {
		return fmt.Errorf("tick %q is not a number", w[1])
	}
	a := action{line: line, at: at, verb: w[2]}
	args := w[3:]
	switch a.verb {
	case "crash", "restart":
		if len(args) != 1 {
			return fmt.Errorf("want: at TICK %s REPLICA", a.verb)
		}
		n, err := replicaIndex(args[0])
		if err != nil {
			return err
		}
		a.nodes = []int{n}
	case "partition":
		side := []int{}
		for _, s := range args {
			if s == "|" {
				a.sides = append(a.sides, side)
				side = []int{}
				continue
			}
			n, err := replicaIndex(s)
			if err != nil {
				return err
			}
			side = append(side, n)
		}
		a.sides = append(a.sides, side)
		if len(a.sides) < 2 {
			return fmt.Errorf("want: at TICK partition A B | C D (at least two sides)")
		}
		for _, s := range a.sides {
			if len(s) == 0 {
				return fmt.Errorf("partition: an empty side")
			}
		}
	case "heal":
		if len(args) != 0 {
			return fmt.Errorf("want: at TICK heal")
		}
	case "extra-delay":
		if len(args) != 1 {
			return fmt.Errorf("want: at TICK extra-delay FROM:TO=TICKS")
		}
		if a.delay, err = sim.ParseExtraDelay(args[0]); err != nil {
			return fmt.Errorf("extra-delay %v", err)
		}
	case "note":
		a.text = strings.Join(args, " ")
	default:
		return fmt.Errorf("unknown action %q (want crash, restart, partition, heal, extra-delay or note)", a.verb)
	}
	f.actions = append(f.actions, a)
	return nil
}

func replicaIndex(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a replica index", s)
	}
	return n, nil
}

// Apply shapes cfg for the file: quiet faults, its settings, its script. It
// checks every replica index and tick against the cluster the settings give.
func (f *File) Apply(cfg *sim.Config) error {
	base := filepath.Base(f.Name)
	cfg.Scenario = "file:" + strings.TrimSuffix(base, filepath.Ext(base))
	cfg.CrashChance = prng.Ratio{}
	cfg.Network.PartitionMode = packetsim.PartitionNone
	cfg.Network.PartitionChance = prng.Ratio{}
	cfg.ExtraDelays = nil
	for _, s := range f.set {
		if err := applySetting(cfg, s); err != nil {
			return fileError(f.Name, s.line, "%v", err)
		}
	}
	for _, a := range f.actions {
		if a.at > cfg.FaultTicks {
			return fileError(f.Name, a.line, "tick %d is after the fault phase (ticks %d)", a.at, cfg.FaultTicks)
		}
		nodes := slices.Clone(a.nodes)
		for _, s := range a.sides {
			nodes = append(nodes, s...)
		}
		for _, d := range []int{a.delay.From, a.delay.To} {
			if a.verb == "extra-delay" && d != packetsim.AnyNode {
				nodes = append(nodes, d)
			}
		}
		for _, n := range nodes {
			if n >= cfg.Replicas {
				return fileError(f.Name, a.line, "no replica %d in a cluster of %d", n, cfg.Replicas)
			}
		}
	}
	cfg.Script = &fileScript{file: f}
	return nil
}

func applySetting(cfg *sim.Config, s setting) error {
	num := func() (uint64, error) {
		v, err := strconv.ParseUint(s.value, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s %q is not a number", s.key, s.value)
		}
		return v, nil
	}
	switch s.key {
	case "replicas", "clients", "journal-slots", "ticks":
		v, err := num()
		if err != nil {
			return err
		}
		switch s.key {
		case "replicas":
			if v < 1 || v > replica.ReplicasMax {
				return fmt.Errorf("replicas must be 1..%d", replica.ReplicasMax)
			}
			cfg.Replicas = int(v)
		case "clients":
			cfg.Clients = int(v)
		case "journal-slots":
			cfg.JournalSlots = int(v)
		case "ticks":
			cfg.FaultTicks = v
		}
	case "journal":
		switch s.value {
		case "wal":
			cfg.Durability = replica.DurabilityWAL
		case "memory":
			cfg.Durability = replica.DurabilityMemory
		default:
			return fmt.Errorf("journal %q: want wal or memory", s.value)
		}
	case "core":
		cfg.Core = nil
		for _, w := range strings.Fields(s.value) {
			n, err := replicaIndex(w)
			if err != nil {
				return err
			}
			if n >= cfg.Replicas {
				return fmt.Errorf("core: no replica %d in a cluster of %d", n, cfg.Replicas)
			}
			cfg.Core = append(cfg.Core, n)
		}
	}
	return nil
}

// fileScript runs a file's actions over virtual time.
type fileScript struct {
	file *File
	next int
}

func (s *fileScript) At(c *sim.Cluster, tick uint64) {
	for s.next < len(s.file.actions) && s.file.actions[s.next].at <= tick {
		s.run(c, s.file.actions[s.next])
		s.next++
	}
}

func (s *fileScript) run(c *sim.Cluster, a action) {
	switch a.verb {
	case "crash":
		if !c.Alive(a.nodes[0]) {
			c.Note(fmt.Sprintf("%s:%d: r%d is already down", s.file.Name, a.line, a.nodes[0]))
			return
		}
		c.Crash(a.nodes[0])
	case "restart":
		if c.Alive(a.nodes[0]) {
			c.Note(fmt.Sprintf("%s:%d: r%d is already up", s.file.Name, a.line, a.nodes[0]))
			return
		}
		c.Restart(a.nodes[0])
	case "partition":
		net := c.Network()
		for i, x := range a.sides {
			for _, y := range a.sides[i+1:] {
				for _, p := range x {
					for _, q := range y {
						net.SetLinkDown(p, q, true)
						net.SetLinkDown(q, p, true)
					}
				}
			}
		}
	case "heal":
		c.Network().HealAll()
	case "extra-delay":
		// No trace line and no randomness: a zero delay replays the run
		// without it.
		c.Network().SetExtraDelay(a.delay.From, a.delay.To, a.delay.Ticks)
	case "note":
		c.Note(a.text)
	}
}
