package packetsim

import (
	"testing"

	"vsrsim/prng"
)

type benchPayload struct {
	op, view, commit uint64
}

// BenchmarkSubmitDeliver measures the steady state of a three-replica run: per
// op one tick passes, one packet is submitted and the due ones delivered. It
// must not allocate.
func BenchmarkSubmitDeliver(b *testing.B) {
	opts := Options{Nodes: 3, Replicas: 3, DelayMinTicks: 2, DelayMeanTicks: 10}
	n, err := New[benchPayload](opts, prng.New(1, prng.StreamNetwork))
	if err != nil {
		b.Fatal(err)
	}
	var delivered uint64
	deliver := func(d *Delivery[benchPayload]) { delivered += d.Payload.op }
	now := uint64(0)
	step := func() {
		now++
		n.Tick(now)
		n.Submit(now, int(now%3), int((now+1)%3), benchPayload{op: now})
		n.Deliver(now, deliver)
	}
	for i := 0; i < 10_000; i++ {
		step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step()
	}
	if delivered == 0 {
		b.Fatal("nothing delivered")
	}
}

func TestSubmitDeliverDoesNotAllocate(t *testing.T) {
	opts := faultyOptions()
	opts.PartitionMode, opts.PartitionChance = PartitionNone, prng.Ratio{}
	n := newNetwork(t, opts, 1)
	deliver := func(*Delivery[int]) {}
	now := uint64(0)
	step := func() {
		now++
		n.Tick(now)
		n.Submit(now, int(now%5), int((now+1)%3), int(now))
		n.Deliver(now, deliver)
	}
	for i := 0; i < 10_000; i++ {
		step()
	}
	if allocs := testing.AllocsPerRun(10_000, step); allocs != 0 {
		t.Fatalf("steady state allocates %.2f times per op", allocs)
	}
}
