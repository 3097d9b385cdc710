package sim

import (
	"math"

	"vsrsim/sim/check"
	"vsrsim/vsr"
)

// HistoryOp is one client operation as the client saw it, for linearizability.
type HistoryOp = check.HistoryOp

// client issues one request at a time, resends on timeout to the next replica,
// and records its history.
type client struct {
	node     int // node id: replicas + index
	index    int
	request  uint64
	inFlight bool
	op       vsr.Operation
	target   int
	callTick uint64
	resendAt uint64
	nextAt   uint64
	history  int // index into the cluster history of the in-flight op
}

func (c *Cluster) initClients() {
	c.clients = make([]client, c.cfg.Clients)
	for i := range c.clients {
		cl := &c.clients[i]
		cl.node = c.cfg.Replicas + i
		cl.index = i
		cl.target = 0
		cl.nextAt = 1 + c.workload.Exponential(c.cfg.RequestMeanTicks)
	}
}

// clientsIdle is when the clients next have something to do, unless a reply
// or a change of the workload comes first: most ticks none has, and a scan of
// every client on every tick was a few percent of a run.
type clientsIdle struct {
	until    uint64 // no client acts before this tick
	workload bool   // the workload switch it was computed under
}

// tickClients issues new requests (fault phase only) and resends timed-out ones.
func (c *Cluster) tickClients() {
	if c.now < c.idle.until && c.workloadOn == c.idle.workload {
		return
	}
	next := uint64(math.MaxUint64)
	for i := range c.clients {
		cl := &c.clients[i]
		if cl.inFlight {
			if c.now >= cl.resendAt {
				cl.target = (cl.target + 1) % c.cfg.Replicas
				c.sendRequest(cl)
			}
			next = min(next, cl.resendAt)
			continue
		}
		if c.workloadOn && c.now >= cl.nextAt {
			c.issue(cl)
		}
		switch {
		case cl.inFlight:
			next = min(next, cl.resendAt)
		case c.workloadOn:
			next = min(next, cl.nextAt)
		}
	}
	c.idle = clientsIdle{until: next, workload: c.workloadOn}
}

func (c *Cluster) issue(cl *client) {
	cl.request++
	cl.inFlight = true
	key := uint32(c.workload.Uint64N(vsr.KeySpace))
	switch c.workload.Uint64N(5) {
	case 0, 1:
		cl.op = vsr.Operation{Kind: vsr.OpPut, Key: key, Value: uint64(cl.index+1)<<32 | cl.request}
	case 2:
		// Not idempotent: an update executed twice, or lost, changes every
		// later answer for the key.
		cl.op = vsr.Operation{Kind: vsr.OpIncr, Key: key, Value: 1 + c.workload.Uint64N(9)}
	default:
		cl.op = vsr.Operation{Kind: vsr.OpGet, Key: key}
	}
	c.checker.Request(cl.index, cl.request, checkOp(cl.op))
	cl.callTick = c.now
	c.history = append(c.history, HistoryOp{Client: cl.index, Input: checkOp(cl.op), Call: c.now})
	cl.history = len(c.history) - 1
	c.stats.Requests++
	c.sendRequest(cl)
}

func (c *Cluster) sendRequest(cl *client) {
	m := vsr.Request{Client: uint64(cl.node), Request: cl.request, Body: cl.op}.Message().Routed(cl.node, cl.target, 0)
	c.submit(&m)
	cl.resendAt = c.now + c.cfg.ClientTimeoutTicks
}

func (c *Cluster) onReply(msg *vsr.Message) {
	cl := &c.clients[msg.To-c.cfg.Replicas]
	m := msg.Reply()
	// Every reply a client receives is checked, a late duplicate included.
	c.checker.Reply(c.now, cl.index, m.Request, m.Op, m.Result)
	if !cl.inFlight || m.Request != cl.request {
		return
	}
	cl.inFlight = false
	c.idle = clientsIdle{} // its next request is due sooner than its resend was
	if msg.From < c.cfg.Replicas {
		cl.target = msg.From
	}
	h := &c.history[cl.history]
	h.Output = m.Result
	h.Return = c.now
	h.Returned = true
	c.stats.Replies++
	cl.nextAt = c.now + 1
	switch {
	case c.cfg.ThinkSteady:
		cl.nextAt += c.cfg.RequestMeanTicks
	case !c.workload.Chance(c.cfg.BurstChance):
		cl.nextAt += c.workload.Exponential(c.cfg.RequestMeanTicks)
	}
}

func (c *Cluster) outstandingRequests() int {
	n := 0
	for i := range c.clients {
		if c.clients[i].inFlight {
			n++
		}
	}
	return n
}
