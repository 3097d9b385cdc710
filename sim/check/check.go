// Package check is the run's oracle: the safety checkers, the liveness
// judgement and the recoverability rules. It imports nothing of the replica it
// judges. The harness feeds it what it can see at the boundary (messages
// delivered, effects a replica reports, the faults the harness itself
// injected, requests clients issued and replies they received) in the oracle's
// own types, and the oracle derives every verdict from that record alone: it
// never asks a replica what it holds or what it believes.
package check

import "fmt"

// Failure is the first invariant a run broke.
type Failure struct {
	Invariant string
	Evidence  string
	Tick      uint64
	// Ops and Replicas are what the finding is about: the ops its evidence
	// names and the replicas that acted in it. An excuse covers a finding
	// only through them (Excuse): damage elsewhere excuses nothing.
	Ops      []uint64
	Replicas []int
	// promise, for a finding that a replica went back on what it reached
	// (a view, a log_view, a commit point, an incarnation), is the life in
	// which it reached it: a lost superblock covers such a finding only if
	// the loss came after that life (ExcuseFailure).
	promise *promiseMade
	// forgot: for an acked op cut, the ackers whose promise a regressed
	// superblock took, without which no replication quorum held it
	// (forgotExcuse).
	forgot uint16
}

// Promised says the finding is that replica went back, in life broke, on a
// promise it made in life (lives counted as restarts): a lost superblock
// covers it only if lost in between (ExcuseFailure). The protocol model's
// findings name it so (a vote that lost an ack).
func (f *Failure) Promised(replica int, life, broke uint64) {
	f.promise = &promiseMade{replica: replica, life: life, broke: broke}
}

// promiseMade names the life of a replica in which a promise was made, and
// the life in which it went back on it.
type promiseMade struct {
	replica     int
	life, broke uint64
}

// Invariant names: a contract with reports, docs and tests.
const (
	InvAgreement       = "agreement"
	InvParentChain     = "parent_chain"
	InvAckedDurability = "acked_durability"
	InvDurability      = "durability"
	InvCommitQuorum    = "commit_quorum"
	InvCommitOrder     = "commit_order"
	InvMonotonicity    = "monotonicity"
	InvClientResult    = "client_result"
	InvApplyResult     = "apply_result"
	InvExactlyOnce     = "exactly_once"
	InvCheckpoint      = "checkpoint_state"
	InvLinearizable    = "linearizability"
)

// Status is a replica's protocol status as the oracle records it.
type Status uint8

// Statuses.
const (
	StatusNormal Status = iota
	StatusViewChange
	StatusRecovering
)

func (s Status) String() string {
	switch s {
	case StatusNormal:
		return "normal"
	case StatusViewChange:
		return "view_change"
	}
	return "recovering"
}

// Config is what the oracle needs to know of the cluster's shape.
type Config struct {
	Replicas int
	Clients  int
	// WAL says journals survive a crash; without it a restart is amnesia.
	WAL bool
}

// Checker is the whole oracle of one run.
type Checker struct {
	n, qRep, qVC int
	wal          bool

	replicas  []replicaRecord
	cutOff    uint16         // replicas the harness cut off from all others for good (CutOff)
	noServe   uint16         // replicas with no round trip to the core for good (CannotServe)
	committed []commitRecord // per op; a zero checksum means not committed
	top       uint64         // highest committed op
	// preparedTop is the highest op any replica reported holding: what a
	// replica that loses its journal now may have acked.
	preparedTop uint64
	acks        [][]ackSet  // per op: one set per (view, checksum)
	bodies      [][]bodySet // per op: who may hold a body, per checksum
	ackBlock    block[ackSet]
	bodyBlock   block[bodySet]
	clients     []clientRecord
	model       kvModel
	modelOp     uint64

	// losses counts crashes that took a journal; a replica's lostAt and a
	// body's sinceLoss are read against it.
	losses uint64

	checkpoints []uint64 // state checksum per checkpoint op
	live        livenessRecord
	// lastCommitAt is the tick the commit point last advanced: where a
	// stall began (Stalled). conds tracks since when each end-state excuse
	// has held.
	lastCommitAt uint64
	conds        conditions
	failure      *Failure
}

// New returns the oracle for a cluster. It panics on a cluster the oracle
// cannot judge: the harness validates sizes before it builds one.
func New(cfg Config) *Checker {
	if cfg.Replicas < 1 || cfg.Replicas > ReplicasMax {
		panic(fmt.Sprintf("check: %d replicas (1..%d)", cfg.Replicas, ReplicasMax))
	}
	c := &Checker{
		n:        cfg.Replicas,
		qRep:     quorumReplication(cfg.Replicas),
		qVC:      quorumViewChange(cfg.Replicas),
		wal:      cfg.WAL,
		replicas: make([]replicaRecord, cfg.Replicas),
		clients:  make([]clientRecord, cfg.Clients),
	}
	for i := range c.replicas {
		c.replicas[i].up = true
		c.replicas[i].voter = true
		// A first life stamps 0: its acks speak for its copies from the
		// start (incUnknown here once left every memory-journal run's
		// never-restarted replicas out of acked_durability).
		c.replicas[i].sendInc = 0
	}
	return c
}

// NewFrom is New keeping the memory of spare, an oracle whose run is over
// (nil: none): its per-op records, client records and key-value model grow
// into the arrays spare grew. The oracle it returns starts empty, exactly as
// New's; spare must not be used again.
func NewFrom(cfg Config, spare *Checker) *Checker {
	c := New(cfg)
	if spare == nil {
		return c
	}
	c.committed = emptied(spare.committed)
	c.acks = emptied(spare.acks)
	c.bodies = emptied(spare.bodies)
	c.checkpoints = emptied(spare.checkpoints)
	c.model.kv = emptied(spare.model.kv)
	// The blocks' unused tails: what they cut out before is no longer
	// referenced once acks and bodies are cleared.
	c.ackBlock, c.bodyBlock = spare.ackBlock, spare.bodyBlock
	for i := range c.clients {
		if i < len(spare.clients) {
			c.clients[i].reqs = emptied(spare.clients[i].reqs)
		}
	}
	*spare = Checker{}
	return c
}

// emptied returns s cleared and empty, keeping its array.
func emptied[T any](s []T) []T {
	clear(s)
	return s[:0]
}

// Failed returns the first failure, or nil.
func (c *Checker) Failed() *Failure { return c.failure }

func (c *Checker) fail(tick uint64, s subject, invariant, format string, args ...any) {
	if c.failure != nil {
		return
	}
	c.failure = &Failure{Invariant: invariant, Evidence: fmt.Sprintf(format, args...), Tick: tick,
		Ops: s.ops, Replicas: s.replicas, promise: s.promise, forgot: s.forgot}
}

// subject is what a finding is about (Failure.Ops, Failure.Replicas).
type subject struct {
	ops      []uint64
	replicas []int
	promise  *promiseMade
	forgot   uint16
}

// about is a finding about op, acted on by the given replicas.
func about(op uint64, replicas ...int) subject {
	return subject{ops: []uint64{op}, replicas: replicas}
}

// aboutReplica is a finding about replica i alone: what it did to its own
// state (a view, an incarnation, a commit point).
func aboutReplica(i int) subject { return subject{replicas: []int{i}} }

// aboutPromise is a finding that replica i, in life broke, went back on what
// it reached in life (lives counted as restarts).
func aboutPromise(i int, life, broke uint64) subject {
	return subject{replicas: []int{i}, promise: &promiseMade{replica: i, life: life, broke: broke}}
}

// QuorumViewChange is the oracle's view-change quorum for this cluster.
func (c *Checker) QuorumViewChange() int { return c.qVC }

// block hands out an op's first set cut from a shared block, so recording an
// op costs no allocation of its own: a run's allocations stay flat however many
// ops it prepares. A slice it returns has no room to grow into its neighbour's.
type block[T any] struct{ free []T }

const blockLen = 256

// add appends v to s, taking s's first element from the block.
func (b *block[T]) add(s []T, v T) []T {
	if len(s) > 0 {
		return append(s, v)
	}
	if len(b.free) == cap(b.free) {
		b.free = make([]T, 0, blockLen)
	}
	b.free = append(b.free, v)
	n := len(b.free)
	return b.free[n-1 : n : n]
}

func grow[T any](s []T, i uint64) []T {
	for uint64(len(s)) <= i {
		var zero T
		s = append(s, zero)
	}
	return s
}

func popcount(x uint16) int {
	n := 0
	for x != 0 {
		x &= x - 1
		n++
	}
	return n
}

func replicaList(mask uint16) string {
	s := ""
	for i := 0; i < 16; i++ {
		if mask&(1<<uint(i)) != 0 {
			if s != "" {
				s += ","
			}
			s += fmt.Sprintf("r%d", i)
		}
	}
	if s == "" {
		return "none"
	}
	return s
}

func short(sum uint64) uint64 { return sum & 0xffff }
