package replica

import (
	"testing"
	"vsrsim/replica/timer"
	"vsrsim/vsr"

	"github.com/stretchr/testify/require"
)

// A tiny in-test harness: n replicas built with New, a FIFO queue of messages
// delivered one at a time, ticks, crashes and restarts through Durable/Restart,
// per-link cuts and message filters, and a jitter stream that always draws 0.
// Clients follow the replicas in node ids: client i is node n+i, and its
// requests carry Client = n+i. Messages to clients are recorded, not delivered.

// zeroJitter is a deterministic jitter stream that never spreads a timeout.
type zeroJitter struct{}

func (zeroJitter) Uint64N(uint64) uint64 { return 0 }

// deliverStepsMax bounds one deliverAll: a protocol that ping-pongs forever is
// a test failure, not a hang.
const deliverStepsMax = 200_000

// smallTimeouts keep tests short: the ratios of the defaults (retransmit well
// below the heartbeat timeout) with every period a few ticks.
func smallTimeouts() timer.Timeouts {
	return timer.Timeouts{
		PrepareTicks:         4,
		CommitTicks:          5,
		HeartbeatTicks:       30,
		ViewChangeMsgTicks:   5,
		ViewChangeStatusTick: 60,
		StartViewProbeTicks:  10,
		RepairTicks:          10,
	}
}

type testCluster struct {
	t        testing.TB
	n        int
	opts     []Options
	replicas []*Replica
	durable  []Durable

	queue     []vsr.Message
	cut       map[[2]int]bool
	filters   map[int]func(m *vsr.Message) bool
	filterSeq int

	delivered []vsr.Message // every message a replica received, in order
	dropped   []vsr.Message // every message lost to a cut, a filter or a crash
	toClients []vsr.Message // every message sent to a client
	events    []vsr.Event   // every event, in order
	sentLog   []vsr.Message // every message a replica sent, in order
	out       vsr.Output

	// What a transcript has printed of events and sentLog.
	lastEvents, lastSent int
}

// newTestCluster builds n replicas with DefaultOptions and small timeouts;
// configure, if not nil, adjusts each replica's options (ID and Replicas are
// set already).
func newTestCluster(t testing.TB, n int, configure func(o *Options)) *testCluster {
	t.Helper()
	c := &testCluster{
		t:        t,
		n:        n,
		opts:     make([]Options, n),
		replicas: make([]*Replica, n),
		durable:  make([]Durable, n),
		cut:      map[[2]int]bool{},
		filters:  map[int]func(m *vsr.Message) bool{},
	}
	for i := 0; i < n; i++ {
		o := DefaultOptions(i, n)
		o.Timeouts = smallTimeouts()
		if configure != nil {
			configure(&o)
		}
		r, err := New(o, zeroJitter{})
		require.NoError(t, err)
		c.opts[i] = o
		c.replicas[i] = r
	}
	return c
}

// r returns live replica i.
func (c *testCluster) r(i int) *Replica {
	c.t.Helper()
	require.NotNil(c.t, c.replicas[i], "replica %d is crashed", i)
	return c.replicas[i]
}

func (c *testCluster) info(i int) Info { return c.r(i).Info() }

// clientNode is the node id of client i.
func (c *testCluster) clientNode(i int) int { return c.n + i }

// request sends client i's request number req to replica to.
func (c *testCluster) request(to, client int, req uint64, body vsr.Operation) {
	node := c.clientNode(client)
	c.queue = append(c.queue, vsr.Request{Client: uint64(node), Request: req, Body: body}.Message().Routed(node, to, 0))
}

// inject queues m as if it had just been sent.
func (c *testCluster) inject(m vsr.Message) { c.queue = append(c.queue, m) }

// collect records what the last step produced and queues its messages.
func (c *testCluster) collect() {
	c.events = append(c.events, c.out.Events...)
	c.sentLog = append(c.sentLog, c.out.Messages...)
	for _, m := range c.out.Messages {
		if m.To >= c.n {
			c.toClients = append(c.toClients, m)
			continue
		}
		c.queue = append(c.queue, m)
	}
	c.out.Reset()
}

// lost reports whether m is dropped by a cut, a filter or a crash.
func (c *testCluster) lost(m *vsr.Message) bool {
	if c.cut[[2]int{m.From, m.To}] || c.replicas[m.To] == nil {
		return true
	}
	for id := 1; id <= c.filterSeq; id++ {
		if f, ok := c.filters[id]; ok && f(m) {
			return true
		}
	}
	return false
}

// deliverOne delivers the oldest queued message; it reports false when the
// queue is empty.
func (c *testCluster) deliverOne() bool {
	if len(c.queue) == 0 {
		return false
	}
	m := c.queue[0]
	c.queue = c.queue[1:]
	if c.lost(&m) {
		c.dropped = append(c.dropped, m)
		return true
	}
	c.delivered = append(c.delivered, m)
	c.replicas[m.To].Step(&m, &c.out)
	c.collect()
	return true
}

// deliverAll delivers until the queue is empty.
func (c *testCluster) deliverAll() {
	c.t.Helper()
	for steps := 0; c.deliverOne(); steps++ {
		if steps >= deliverStepsMax {
			c.dumpTail(20)
			require.Less(c.t, steps, deliverStepsMax, "messages never quiesce")
		}
	}
}

// dumpTail logs the last k messages delivered and events, for triage.
func (c *testCluster) dumpTail(k int) {
	c.t.Helper()
	for _, m := range c.delivered[max(0, len(c.delivered)-k):] {
		c.t.Log(string(vsr.AppendMessage(nil, &m, c.n)))
	}
	for _, e := range c.events[max(0, len(c.events)-k):] {
		c.t.Log(e.String())
	}
}

// tick advances every live replica k ticks, delivering everything after each.
func (c *testCluster) tick(k int) {
	c.t.Helper()
	for ; k > 0; k-- {
		for _, r := range c.replicas {
			if r == nil {
				continue
			}
			r.Tick(&c.out)
			c.collect()
		}
		c.deliverAll()
	}
}

// tickUntil ticks until cond holds, at most limit ticks; it fails the test if
// cond never holds.
func (c *testCluster) tickUntil(limit int, cond func() bool, what string) {
	c.t.Helper()
	for k := 0; k < limit; k++ {
		if cond() {
			return
		}
		c.tick(1)
	}
	require.True(c.t, cond(), "after %d ticks: %s", limit, what)
}

// crash stops replica i; only its durable state survives.
func (c *testCluster) crash(i int) {
	c.durable[i] = c.r(i).Durable()
	c.replicas[i] = nil
}

// restart brings crashed replica i back from its durable state.
func (c *testCluster) restart(i int) {
	c.t.Helper()
	require.Nil(c.t, c.replicas[i], "replica %d is running", i)
	r, err := Restart(c.opts[i], zeroJitter{}, c.durable[i])
	require.NoError(c.t, err)
	c.replicas[i] = r
}

// cutLink drops every message from -> to until healLink.
func (c *testCluster) cutLink(from, to int)  { c.cut[[2]int{from, to}] = true }
func (c *testCluster) healLink(from, to int) { delete(c.cut, [2]int{from, to}) }

// dropIf installs a filter: a message for which f returns true is dropped.
func (c *testCluster) dropIf(f func(m *vsr.Message) bool) int {
	c.filterSeq++
	c.filters[c.filterSeq] = f
	return c.filterSeq
}

func (c *testCluster) removeFilter(id int) { delete(c.filters, id) }

// take removes and returns the queued messages matching f (to hold them back
// and inject them later).
func (c *testCluster) take(f func(m *vsr.Message) bool) []vsr.Message {
	var took, kept []vsr.Message
	for _, m := range c.queue {
		if f(&m) {
			took = append(took, m)
		} else {
			kept = append(kept, m)
		}
	}
	c.queue = kept
	return took
}

// eventsOf returns replica i's events of kind k (i < 0: every replica's).
func (c *testCluster) eventsOf(i int, k vsr.EventKind) []vsr.Event {
	var es []vsr.Event
	for _, e := range c.events {
		if e.Kind == k && (i < 0 || e.Replica == i) {
			es = append(es, e)
		}
	}
	return es
}

// drops returns replica i's drop events with the given reason.
func (c *testCluster) drops(i int, reason string) []vsr.Event {
	var es []vsr.Event
	for _, e := range c.eventsOf(i, vsr.EvDrop) {
		if e.Dropped().Reason.String() == reason {
			es = append(es, e)
		}
	}
	return es
}

// sent returns the messages delivered or dropped so far that match f: the
// delivered ones in order, then the dropped ones in order.
func (c *testCluster) sent(f func(m *vsr.Message) bool) []vsr.Message {
	return c.sentSince(traffic{}, f)
}

// traffic marks a point in the cluster's message history.
type traffic struct{ delivered, dropped int }

func (c *testCluster) mark() traffic { return traffic{len(c.delivered), len(c.dropped)} }

// sentSince is sent restricted to messages delivered or dropped after mark.
func (c *testCluster) sentSince(mark traffic, f func(m *vsr.Message) bool) []vsr.Message {
	var ms []vsr.Message
	for _, m := range c.delivered[mark.delivered:] {
		if f(&m) {
			ms = append(ms, m)
		}
	}
	for _, m := range c.dropped[mark.dropped:] {
		if f(&m) {
			ms = append(ms, m)
		}
	}
	return ms
}

// repliesTo returns the replies client i received.
func (c *testCluster) repliesTo(client int) []reply {
	var ms []reply
	for _, m := range c.toClients {
		if m.Command == vsr.CmdReply && m.To == c.clientNode(client) {
			ms = append(ms, reply{From: m.From, Reply: m.Reply()})
		}
	}
	return ms
}

// commitRequests has client 0 issue requests first..last to replica to, one at
// a time, delivering everything after each.
func (c *testCluster) commitRequests(to int, first, last uint64) {
	c.t.Helper()
	for req := first; req <= last; req++ {
		c.request(to, 0, req, put(uint32(req), req*10))
		c.deliverAll()
	}
}

func put(key uint32, value uint64) vsr.Operation {
	return vsr.Operation{Kind: vsr.OpPut, Key: key, Value: value}
}

func cmd(command vsr.Command) func(m *vsr.Message) bool {
	return func(m *vsr.Message) bool { return m.Command == command }
}

func cmdTo(command vsr.Command, to int) func(m *vsr.Message) bool {
	return func(m *vsr.Message) bool { return m.Command == command && m.To == to }
}

func cmdFrom(command vsr.Command, from int) func(m *vsr.Message) bool {
	return func(m *vsr.Message) bool { return m.Command == command && m.From == from }
}

// chainHeaders returns sealed prepares for ops 1..n, each linking to the
// previous one's checksum (op 1 to the genesis checksum), as a primary of view
// would build them.
func chainHeaders(n int, view uint64) []vsr.Header {
	hs := make([]vsr.Header, n+1) // index by op; hs[0] unused
	parent := uint64(genesisChecksum)
	for op := 1; op <= n; op++ {
		h := vsr.Header{Op: uint64(op), View: view, Parent: parent, Client: 0, Request: 0,
			Timestamp: uint64(op), Body: put(uint32(op), uint64(op))}
		h.Seal()
		hs[op] = h
		parent = h.Checksum
	}
	return hs
}

// TestHarnessDeterministic checks the harness itself: the same inputs give
// the same messages and events, so every test below is reproducible.
func TestHarnessDeterministic(t *testing.T) {
	run := func() ([]vsr.Message, []vsr.Event) {
		c := newTestCluster(t, 3, nil)
		c.commitRequests(0, 1, 3)
		c.crash(0)
		c.tick(100)
		return c.delivered, c.events
	}
	m1, e1 := run()
	m2, e2 := run()
	require.NotEmpty(t, m1)
	require.Equal(t, m1, m2)
	require.Equal(t, e1, e2)
}

// reply is a reply as its client received it.
type reply struct {
	From int
	vsr.Reply
}

// msg is p sent from one node to another in view.
func msg[P interface{ Message() vsr.Message }](p P, from, to int, view uint64) *vsr.Message {
	m := p.Message().Routed(from, to, view)
	return &m
}
