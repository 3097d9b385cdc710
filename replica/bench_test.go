package replica_test

import (
	"testing"

	"vsrsim/prng"
	"vsrsim/replica"
	"vsrsim/vsr"
)

// BenchmarkStepPrepareRound measures the replica state machine alone, with no
// network and no harness: one op is a client request to the primary, its
// Prepare to the backups, their PrepareOks back, and the commit. Messages are
// handed from replica to replica in FIFO order; replies to the client are
// discarded. It reports committed ops/s and Step calls per op.
func BenchmarkStepPrepareRound(b *testing.B) {
	for _, tc := range []struct {
		name     string
		replicas int
		topology replica.Topology
	}{
		{"chain-3", 3, replica.TopologyChain},
		{"star-5", 5, replica.TopologyStar},
	} {
		b.Run(tc.name, func(b *testing.B) {
			benchPrepareRound(b, tc.replicas, tc.topology)
		})
	}
}

func benchPrepareRound(b *testing.B, n int, topology replica.Topology) {
	rs := make([]*replica.Replica, n)
	for i := range rs {
		o := replica.DefaultOptions(i, n)
		o.Topology = topology
		r, err := replica.New(o, prng.ReplicaJitter(1, i))
		if err != nil {
			b.Fatal(err)
		}
		rs[i] = r
	}
	client := n // the first client's node id
	var out vsr.Output
	queue := make([]vsr.Message, 0, 64)
	steps := uint64(0)
	request := uint64(0)
	round := func() {
		request++
		queue = append(queue[:0], vsr.Request{Client: uint64(client), Request: request,
			Body: vsr.Operation{Kind: vsr.OpPut, Key: uint32(request % vsr.KeySpace), Value: request}}.Message().Routed(client, 0, 0))
		for k := 0; k < len(queue); k++ {
			m := queue[k]
			if m.To >= n {
				continue // a reply to the client
			}
			out.Reset()
			rs[m.To].Step(&m, &out)
			steps++
			queue = append(queue, out.Messages...)
		}
	}
	// Warm up past the first journal wrap and checkpoint, so the figure is
	// the steady state.
	for i := 0; i < 2048; i++ {
		round()
	}
	if got := rs[0].Info().CommitMax; got != request {
		b.Fatalf("primary committed %d of %d ops", got, request)
	}
	b.ReportAllocs()
	b.ResetTimer()
	steps = 0
	for i := 0; i < b.N; i++ {
		round()
	}
	b.StopTimer()
	if got := rs[0].Info().CommitMax; got != request {
		b.Fatalf("primary committed %d of %d ops", got, request)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(float64(steps)/float64(b.N), "steps/op")
}
