package sim

import (
	"vsrsim/marks"
	"vsrsim/packetsim"
	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/sim/check"
	"vsrsim/spec"
	"vsrsim/vsr"
)

// Script drives a scenario over virtual time. At is called at the start of
// every tick, before faults, the network and the replicas, so an action at tick
// t shapes everything that happens at t.
type Script interface {
	At(c *Cluster, tick uint64)
}

// Stats count what a run exercised.
type Stats struct {
	Requests       uint64
	Replies        uint64
	Crashes        uint64
	Restarts       uint64
	ViewChanges    uint64
	Repairs        uint64
	StateTransfers uint64
	OffersRefused  uint64
	Checkpoints    uint64
	Timeouts       uint64
	// DirectedCuts counts the aimed cuts among replicas (one-way,
	// send-only, receive-only): a partition of one direction, which the
	// network's partition count does not see.
	DirectedCuts uint64
	// CrashesSkipped counts the scripted crashes a scenario file asked for
	// that would have left more replicas down or amnesiac than the protocol
	// survives (CrashBeyondF), skipped with a trace note.
	CrashesSkipped uint64
	Network        packetsim.Stats
}

// Cluster is one simulated cluster: replicas, clients, network and checkers,
// stepped one tick at a time by a single thread.
type Cluster struct {
	cfg       Config
	script    Script     // Attach.Script
	recording *Recording // Attach.Recording
	spare     *Spare     // Attach.Spare
	now       uint64
	replicas  []*replica.Replica
	durable   []replica.Durable
	jitter    []*prng.Stream
	restartAt []uint64
	net       *packetsim.Network[vsr.Message]
	faults    *prng.Stream
	workload  *prng.Stream
	scenario  *prng.Stream

	clients    []client
	history    []HistoryOp
	workloadOn bool
	idle       clientsIdle

	checker *check.Checker
	spec    *spec.Model // nil with Config.SpecOff
	// specSuffix is the buffer suffixes are translated into for the model.
	specSuffix []spec.Entry
	// stepEntries holds, per write of the step being flushed, the entry
	// its bytes carry (decodeWrites).
	stepEntries []entryID
	trace       *Trace
	out         vsr.Output
	stats       Stats

	deliverFn func(*packetsim.Delivery[vsr.Message])
	liveness  livenessState
	failure   *check.Failure
	assists   []Assist
	watch     []watch
	expect    expectState
	aimed     aimedState
	disks     *disks // nil without Config.Storage
}

func newCluster(cfg Config, at Attach, trace *Trace) (*Cluster, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	spare := at.Spare
	n := cfg.Replicas
	netOpts := cfg.Network
	netOpts.Nodes = n + cfg.Clients
	netOpts.Replicas = n
	c := &Cluster{
		cfg:       cfg,
		spare:     spare,
		script:    at.Script,
		recording: at.Recording,
		replicas:  make([]*replica.Replica, n),
		durable:   make([]replica.Durable, n),
		jitter:    make([]*prng.Stream, n),
		restartAt: make([]uint64, n),
		faults:    prng.New(cfg.Seed, prng.StreamFaults),
		workload:  prng.New(cfg.Seed, prng.StreamWorkload),
		scenario:  prng.New(cfg.Seed, prng.StreamScenario),
		checker: check.NewFrom(check.Config{Replicas: n, Clients: cfg.Clients,
			WAL: cfg.Durability == replica.DurabilityWAL}, spare.takeChecker()),
		trace:      trace,
		workloadOn: !cfg.WorkloadOff,
	}
	c.spec = newSpec(&c.cfg, spare.takeSpec())
	var netSpare *packetsim.Spare[vsr.Message]
	if spare != nil {
		netSpare = &spare.net
	}
	net, err := packetsim.NewFrom(netOpts, prng.New(cfg.Seed, prng.StreamNetwork), netSpare)
	if err != nil {
		return nil, err
	}
	c.net = net
	if cfg.Storage.On {
		if c.disks, err = newDisks(&cfg, cfg.Seed, spare.takeDisks()); err != nil {
			return nil, err
		}
	}
	c.net.SetWeatherStream(prng.New(cfg.Seed, prng.StreamWeather))
	for _, d := range cfg.ExtraDelays {
		c.net.SetExtraDelay(d.From, d.To, d.Ticks)
	}
	for i := 0; i < n; i++ {
		c.jitter[i] = prng.ReplicaJitter(cfg.Seed, i)
		r, err := replica.New(c.replicaOptions(i), c.jitter[i])
		if err != nil {
			return nil, err
		}
		c.replicas[i] = r
	}
	c.initClients()
	c.deliverFn = c.deliver
	// A step's output is a few messages and events; the buffers grow to the
	// largest step and stay.
	c.out.Messages = make([]vsr.Message, 0, 16)
	c.out.Events = make([]vsr.Event, 0, 16)
	return c, nil
}

// Now is the current tick.
func (c *Cluster) Now() uint64 { return c.now }

// Config is the run's configuration.
func (c *Cluster) Config() *Config { return &c.cfg }

// Network is the packet simulator, for scenario hooks.
func (c *Cluster) Network() *packetsim.Network[vsr.Message] { return c.net }

// Rand is the scenario's own stream: draws here never shift the network's,
// faults' or workload's.
func (c *Cluster) Rand() *prng.Stream { return c.scenario }

// Info returns a replica's read-only state; ok is false while it is crashed.
func (c *Cluster) Info(i int) (replica.Info, bool) {
	if c.replicas[i] == nil {
		return replica.Info{}, false
	}
	return c.replicas[i].Info(), true
}

// Alive reports whether replica i is running.
func (c *Cluster) Alive(i int) bool { return c.replicas[i] != nil }

// Journaled reports whether live replica i journals op.
func (c *Cluster) Journaled(i int, op uint64) bool {
	return c.replicas[i] != nil && c.replicas[i].Journaled(op)
}

// SetWorkload turns new client requests on or off.
func (c *Cluster) SetWorkload(on bool) { c.workloadOn = on }

// SetThinkTicks changes the clients' think time between requests from now on:
// a mean, or with steady set exactly that many ticks (a scenario's steady write
// rate).
func (c *Cluster) SetThinkTicks(ticks uint64, steady bool) {
	c.cfg.RequestMeanTicks = ticks
	c.cfg.ThinkSteady = steady
}

// Crash stops replica i; it keeps only its durable state.
func (c *Cluster) Crash(i int) {
	r := c.replicas[i]
	if r == nil {
		return
	}
	c.durable[i] = r.Durable()
	c.crashDisk(i)
	c.releaseCrashed(r)
	c.replicas[i] = nil
	c.restartAt[i] = 0
	c.net.SetNodeDown(i, true)
	c.stats.Crashes++
	c.checker.Crash(c.now, i)
	if c.disks != nil {
		c.examineDisk(i)
	} else if c.cfg.Durability == replica.DurabilityWAL {
		c.checker.DurableState(i, c.durableCheckpoint(i))
	}
	c.trace.node(c.now, lineCrash, i)
}

// Restart brings crashed replica i back from its durable state.
func (c *Cluster) Restart(i int) {
	if c.replicas[i] != nil {
		return
	}
	d := c.durable[i]
	if c.disks != nil {
		d.Read = c.readBack(i)
		d.Boot = c.now
	}
	r, err := replica.Restart(c.replicaOptions(i), c.jitter[i], d)
	if err != nil {
		panic(err)
	}
	c.replicas[i] = r
	c.restartAt[i] = 0
	c.net.SetNodeDown(i, false)
	c.stats.Restarts++
	checkpoint := d.Superblock.Checkpoint.Op
	if c.disks != nil {
		// The disk may give back an older superblock than memory held: the
		// replica replays from the checkpoint it read.
		checkpoint = r.Info().CommitMin
	}
	c.checker.Restart(c.now, i, checkpoint)
	c.specRestart(i)
	if c.disks != nil {
		if l, lost := c.checkpointLost(i, checkpoint); lost {
			c.disks.r[i].cpLost = append(c.disks.r[i].cpLost, l)
			c.checker.CheckpointLost(c.now, i, l.from, l.to)
		}
		c.checker.RestartFromDisk(i, c.disks.r[i].promised, c.disks.r[i].promisedLogView)
		c.traceFaults(i)
		c.examineDisk(i)
	}
	c.trace.node(c.now, lineRestart, i)
	c.aimSecond(i)
	c.staleAskOnRestart(i)
}

// Inject puts a copy of a message on the network now, as a late duplicate of
// one the sender sent earlier would arrive (a straggler). It is traced like any
// send.
func (c *Cluster) Inject(m vsr.Message) {
	c.submit(&m)
}

// Note writes a scenario line into the trace (it is hashed like any other).
func (c *Cluster) Note(text string) {
	b := c.trace.begin(c.now, "note")
	b = append(b, text...)
	c.trace.end(c.now, "note", b)
}

// step runs one tick.
func (c *Cluster) step() {
	if c.script != nil {
		c.script.At(c, c.now)
	}
	if c.now == c.cfg.FaultTicks+1 {
		c.startLiveness()
	}
	if !c.liveness.active {
		c.injectFaults()
		c.injectAimed()
		c.injectSecond()
		c.injectStaleAsk()
	} else if len(c.aimed.kept) > 0 || len(c.aimed.stragglers) > 0 {
		c.aimedInLiveness()
	}
	c.net.Tick(c.now)
	c.tickDisks()
	if c.recording != nil && !c.liveness.active {
		c.recording.links(c)
	}
	c.net.Deliver(c.now, c.deliverFn)
	for i, r := range c.replicas {
		if r == nil {
			continue
		}
		c.out.Reset()
		r.Tick(&c.out)
		if len(c.out.Events) == 0 && len(c.out.Messages) == 0 && len(c.out.Writes) == 0 && len(c.out.Reads) == 0 {
			// Most ticks a replica says nothing; flush would only check
			// the events bound.
			c.checkEventsMax()
			continue
		}
		c.specTicked(i)
		c.flush(i)
	}
	c.tickClients()
	if f := c.checker.Failed(); f != nil && c.failure == nil {
		c.failure = f
	}
}

func (c *Cluster) submit(m *vsr.Message) {
	c.trace.message(c.now, lineSend, m, c.net.NextPacketID(), packetsim.NotDropped, false)
	c.reportSend(m)
	c.specOnWire(m)
	c.net.SubmitCopy(c.now, m.From, m.To, m)
}

func (c *Cluster) deliver(d *packetsim.Delivery[vsr.Message]) {
	m := &d.Payload
	if d.Damaged && !damage(m) {
		d.Dropped, d.Reason = true, packetsim.Corrupt
	}
	if d.Dropped {
		if d.Reason == packetsim.Corrupt {
			// The link's checksum, which the harness stands in for: the
			// replica never sees this damaged packet (see damage).
			c.out.Marks.Hit(marks.NetCorrupt)
		}
		c.trace.message(c.now, lineDrop, m, d.ID, d.Reason, d.Duplicate)
		return
	}
	c.trace.message(c.now, lineRecv, m, d.ID, packetsim.NotDropped, d.Duplicate)
	if d.To >= c.cfg.Replicas {
		if m.Command == vsr.CmdReply {
			c.onReply(m)
		}
		return
	}
	r := c.replicas[d.To]
	if r == nil {
		return
	}
	c.reportDelivery(d.To, m)
	c.specDelivered(d.To, m)
	c.out.Reset()
	r.Step(m, &c.out)
	c.flush(d.To)
}

// flush traces a replica's events, feeds the checkers, and sends its messages.
func (c *Cluster) flush(i int) {
	for k := range c.out.Events {
		e := &c.out.Events[k]
		c.trace.event(c.now, e)
		c.report(i, e)
		c.observe(e)
	}
	if c.disks != nil {
		c.decodeWrites()
	}
	c.specStep(i)
	if c.disks != nil {
		c.writes(i)
		c.asks(i)
		c.settleOwnAcks(i)
	}
	for k := range c.out.Messages {
		c.send(i, &c.out.Messages[k])
	}
	c.checkEventsMax()
}

// checkEventsMax ends the run once it has traced more than EventsMax lines.
func (c *Cluster) checkEventsMax() {
	if c.trace.lines > c.cfg.EventsMax {
		panic(eventsExceeded{})
	}
}

type eventsExceeded struct{}

// observe counts events for stats and liveness evidence.
func (c *Cluster) observe(e *vsr.Event) {
	switch e.Kind {
	case vsr.EvStatus:
		if e.StatusChanged().Status == vsr.StatusViewChange {
			c.stats.ViewChanges++
		}
		if c.disks != nil {
			c.secondOnStatus(e)
		}
	case vsr.EvJournalTruncate:
		if c.disks != nil {
			c.secondOnTruncate(e)
		}
	case vsr.EvRepairRequest:
		c.stats.Repairs++
	case vsr.EvTransferInstall:
		c.stats.StateTransfers++
	case vsr.EvOfferRefused:
		c.stats.OffersRefused++
	case vsr.EvCheckpoint:
		c.stats.Checkpoints++
	case vsr.EvTimeout:
		c.stats.Timeouts++
	}
	for k := range c.watch {
		c.watch[k].fn(e)
	}
}

type watch struct {
	fn func(*vsr.Event)
}

// Watch registers fn to see every replica event from now on (for scenario
// scripts that wait on replica state).
func (c *Cluster) Watch(fn func(*vsr.Event)) {
	c.watch = append(c.watch, watch{fn: fn})
}

// injectFaults crashes and restarts replicas during the fault phase. By default
// at most f replicas are down (crashed or still recovering) at once.
func (c *Cluster) injectFaults() {
	n := c.cfg.Replicas
	for i := 0; i < n; i++ {
		if c.replicas[i] == nil {
			if c.restartAt[i] != 0 && c.now >= c.restartAt[i] {
				// Recorded first: a restart that fails the replica's own
				// assertion (a crash verdict) replays from the recording.
				c.recordNode("restart", i)
				c.Restart(i)
			}
			continue
		}
		if c.cfg.CrashChance.Zero() {
			continue
		}
		if !c.faults.Chance(c.cfg.CrashChance) {
			continue
		}
		if !c.crashKeepsQuorum(i) {
			continue
		}
		c.Crash(i)
		c.recordNode("crash", i)
		c.restartAt[i] = c.now + 1 + c.faults.Exponential(c.cfg.RestartMeanTicks)
	}
}

// notWholeAfterCrash counts the replicas that would be down or without their
// journal if replica i crashed now, from the oracle's record of the faults.
func (c *Cluster) notWholeAfterCrash(i int) int {
	k := c.checker.NotWhole()
	if c.checker.Whole(i) {
		k++
	}
	return k
}

// crashKeepsQuorum is the random and aimed crash injectors' bound: crashing
// replica i now leaves at most n minus a view-change quorum replicas down or
// amnesiac (by the oracle's record), so a view-change quorum stays up and
// whole, unless the run lifts the bound (Config.CrashesUnbounded).
func (c *Cluster) crashKeepsQuorum(i int) bool {
	return c.cfg.CrashesUnbounded || c.notWholeAfterCrash(i) <= c.cfg.Replicas-c.checker.QuorumViewChange()
}

// CrashBeyondF reports whether crashing replica i now would leave more
// replicas amnesiac than the protocol survives (f, n minus a view-change
// quorum: a memory journal forgets what its replica acked, and more than f
// such replicas may forget a committed op), unless the run lifts the bound
// (Config.CrashesUnbounded). A scenario file's script skips such a crash
// unless the file says `crashes beyond-f`. A write-ahead journal survives its
// replica's crash, so no number of crashes on one is beyond f: the cluster
// waits for the restarts (a whole cluster crashing together elects a view
// again), and the crash injectors' own bound (crashKeepsQuorum) is about
// keeping a quorum up, not about what the protocol survives.
func (c *Cluster) CrashBeyondF(i int) bool {
	return c.cfg.Durability == replica.DurabilityMemory && !c.crashKeepsQuorum(i)
}

// SkipCrash notes that a script skipped a crash CrashBeyondF refused, and
// counts it (Stats.CrashesSkipped).
func (c *Cluster) SkipCrash(note string) {
	c.stats.CrashesSkipped++
	c.Note(note)
}

// LivenessStarter is a Script told when the liveness phase begins: after the
// network is healed and the core chosen, before the core restarts. A scenario
// file's script uses it to drop its scripted faults, or, with
// LivenessKeepFaults, to put back those on links of replicas outside the core.
type LivenessStarter interface {
	LivenessStart(c *Cluster, core []int)
}
