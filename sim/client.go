package sim

import (
	"vsrsim/replica"
	"vsrsim/sim/check"
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
	op       replica.Operation
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

// tickClients issues new requests (fault phase only) and resends timed-out ones.
func (c *Cluster) tickClients() {
	for i := range c.clients {
		cl := &c.clients[i]
		if cl.inFlight {
			if c.now >= cl.resendAt {
				cl.target = (cl.target + 1) % c.cfg.Replicas
				c.sendRequest(cl)
			}
			continue
		}
		if c.workloadOn && c.now >= cl.nextAt {
			c.issue(cl)
		}
	}
}

func (c *Cluster) issue(cl *client) {
	cl.request++
	cl.inFlight = true
	key := uint32(c.workload.Uint64N(replica.KeySpace))
	switch c.workload.Uint64N(5) {
	case 0, 1:
		cl.op = replica.Operation{Kind: replica.OpPut, Key: key, Value: uint64(cl.index+1)<<32 | cl.request}
	case 2:
		// Not idempotent: an update executed twice, or lost, changes every
		// later answer for the key.
		cl.op = replica.Operation{Kind: replica.OpIncr, Key: key, Value: 1 + c.workload.Uint64N(9)}
	default:
		cl.op = replica.Operation{Kind: replica.OpGet, Key: key}
	}
	c.checker.Request(cl.index, cl.request, checkOp(cl.op))
	cl.callTick = c.now
	c.history = append(c.history, HistoryOp{Client: cl.index, Input: checkOp(cl.op), Call: c.now})
	cl.history = len(c.history) - 1
	c.stats.Requests++
	c.sendRequest(cl)
}

func (c *Cluster) sendRequest(cl *client) {
	m := replica.Request{Client: uint64(cl.node), Request: cl.request, Body: cl.op}.Message().Routed(cl.node, cl.target, 0)
	c.submit(&m)
	cl.resendAt = c.now + c.cfg.ClientTimeoutTicks
}

func (c *Cluster) onReply(msg *replica.Message) {
	cl := &c.clients[msg.To-c.cfg.Replicas]
	m := msg.Reply()
	// Every reply a client receives is checked, a late duplicate included.
	c.checker.Reply(c.now, cl.index, m.Request, m.Op, m.Result)
	if !cl.inFlight || m.Request != cl.request {
		return
	}
	cl.inFlight = false
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
