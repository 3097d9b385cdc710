package packetsim

import (
	"slices"
	"testing"

	"vsrsim/prng"
)

func TestHoldReleaseKeepsOrder(t *testing.T) {
	opts := Options{Nodes: 3, Replicas: 3, DelayMinTicks: 1, DelayMeanTicks: 10}
	n := newNetwork(t, opts, 4)
	n.Hold(0, 1)
	for i := 0; i < 20; i++ {
		n.Submit(uint64(i), 0, 1, i)
		n.Submit(uint64(i), 0, 2, 100+i)
	}
	// The order they fall due in, from a twin run without the hold.
	twin := newNetwork(t, opts, 4)
	for i := 0; i < 20; i++ {
		twin.Submit(uint64(i), 0, 1, i)
		twin.Submit(uint64(i), 0, 2, 100+i)
	}
	var want []int
	twin.Deliver(1000, func(d *Delivery[int]) {
		if d.To == 1 {
			want = append(want, d.Payload)
		}
	})

	n.Deliver(1000, func(d *Delivery[int]) {
		if d.To == 1 {
			t.Fatalf("held packet delivered: %+v", d)
		}
	})
	if n.Stats().InFlight != 20 {
		t.Fatalf("InFlight = %d while held, want 20", n.Stats().InFlight)
	}
	var got []int
	n.Release(1501, 0, 1)
	n.Deliver(1501, func(d *Delivery[int]) {
		if d.At != 1501 {
			t.Fatalf("released packet due at %d, want 1501", d.At)
		}
		got = append(got, d.Payload)
	})
	if !slices.Equal(got, want) {
		t.Fatalf("released in order %v, want %v", got, want)
	}
}

// TestReleaseQueuesAfterDuePackets: released packets fall due at the release
// tick, after the packets already queued for that tick.
func TestReleaseQueuesAfterDuePackets(t *testing.T) {
	n := newNetwork(t, Options{Nodes: 3, Replicas: 3, DelayMinTicks: 1}, 1)
	n.Hold(0, 1)
	n.Submit(1, 0, 1, 1)
	n.Submit(1, 0, 1, 2)
	n.Deliver(2, func(d *Delivery[int]) { t.Fatalf("reported %+v while held", d) })
	n.Submit(2, 2, 1, 3) // due at 3
	n.Release(3, 0, 1)
	var got []int
	n.Deliver(3, func(d *Delivery[int]) { got = append(got, d.Payload) })
	if !slices.Equal(got, []int{3, 1, 2}) {
		t.Fatalf("delivered %v, want [3 1 2]", got)
	}
}

func TestHoldBeatsCut(t *testing.T) {
	n := newNetwork(t, Options{Nodes: 2, Replicas: 2, DelayMinTicks: 1}, 1)
	n.Hold(0, 1)
	n.Submit(1, 0, 1, 1)
	n.SetLinkDown(0, 1, true)
	n.Deliver(2, func(d *Delivery[int]) { t.Fatalf("reported %+v while held", d) })
	n.SetLinkDown(0, 1, false)
	n.Release(3, 0, 1)
	var got []Delivery[int]
	n.Deliver(3, func(d *Delivery[int]) { got = append(got, *d) })
	if len(got) != 1 || got[0].Dropped {
		t.Fatalf("got %+v", got)
	}
}

func TestFilters(t *testing.T) {
	n := newNetwork(t, Options{Nodes: 3, Replicas: 3, DelayMinTicks: 1}, 1)
	fromZero := n.AddFilter(func(from, to NodeID, p int) bool { return from == 0 })
	odd := n.AddFilter(func(from, to NodeID, p int) bool { return p%2 == 1 })
	for i := 0; i < 6; i++ {
		n.Submit(1, i%3, (i+1)%3, i)
	}
	var got []Delivery[int]
	n.Deliver(2, func(d *Delivery[int]) { got = append(got, *d) })
	// Dropped at submit, in submit order: 0 (from 0), 1 (odd), 3 (from 0 and
	// odd), 5 (odd); then the due packets 2 and 4.
	var order []int
	for _, d := range got {
		order = append(order, d.Payload)
		if d.Dropped != (d.Reason == Filter) || (d.Payload == 2 || d.Payload == 4) == d.Dropped {
			t.Fatalf("bad report %+v", d)
		}
	}
	if !slices.Equal(order, []int{0, 1, 3, 5, 2, 4}) {
		t.Fatalf("report order %v", order)
	}
	n.RemoveFilter(fromZero)
	n.Submit(2, 0, 1, 10)
	n.RemoveFilter(odd)
	n.Submit(2, 0, 1, 11)
	got = got[:0]
	n.Deliver(3, func(d *Delivery[int]) { got = append(got, *d) })
	if len(got) != 2 || got[0].Dropped || got[1].Dropped {
		t.Fatalf("filters still active: %+v", got)
	}
	if n.Stats().Dropped[Filter] != 4 {
		t.Fatalf("Dropped[Filter] = %d", n.Stats().Dropped[Filter])
	}
}

func TestSetNodeDown(t *testing.T) {
	n := newNetwork(t, Options{Nodes: 3, Replicas: 3, DelayMinTicks: 2}, 1)
	n.Submit(1, 0, 1, 1)
	n.Submit(1, 1, 2, 2) // sent by 1 before it goes down: still arrives
	n.SetNodeDown(1, true)
	var got []Delivery[int]
	n.Deliver(3, func(d *Delivery[int]) { got = append(got, *d) })
	if len(got) != 2 || got[0].Reason != Down || got[1].Dropped {
		t.Fatalf("got %+v", got)
	}
	n.SetNodeDown(1, false)
	n.Submit(3, 0, 1, 3)
	got = got[:0]
	n.Deliver(5, func(d *Delivery[int]) { got = append(got, *d) })
	if len(got) != 1 || got[0].Dropped {
		t.Fatalf("after restart got %+v", got)
	}
}

func TestSetLinkDownDirected(t *testing.T) {
	n := newNetwork(t, Options{Nodes: 4, Replicas: 3, DelayMinTicks: 1}, 1)
	n.SetLinkDown(AnyNode, 0, true) // every replica, 0 itself included
	for a := 0; a < 4; a++ {
		if n.Connected(a, 0) != (a == 3) {
			t.Fatalf("Connected(%d, 0) = %v", a, n.Connected(a, 0))
		}
		if a != 0 && !n.Connected(0, a) {
			t.Fatalf("Connected(0, %d) cut: the link is directed", a)
		}
	}
	if n.Partitioned() {
		t.Fatal("a link down counts as a partition")
	}
	n.SetLinkDown(3, 0, true) // a client link, named explicitly
	n.Submit(1, 3, 0, 1)
	n.Submit(1, 0, 3, 2)
	var got []Delivery[int]
	n.Deliver(2, func(d *Delivery[int]) { got = append(got, *d) })
	if len(got) != 2 || got[0].Reason != Partition || got[1].Dropped {
		t.Fatalf("got %+v", got)
	}
	n.SetLinkDown(AnyNode, 0, false)
	if !n.Connected(1, 0) || n.Connected(3, 0) {
		t.Fatal("restoring AnyNode touched the wrong links")
	}
}

// TestSetOptions: new options rule later submits; nonsense is refused and
// changes nothing; a link over a lowered capacity sheds on its next submit.
func TestSetOptions(t *testing.T) {
	opts := faultyOptions()
	opts.Loss, opts.Replay = prng.Ratio{}, prng.Ratio{}
	n := newNetwork(t, opts, 1)
	for i := 0; i < 6; i++ {
		n.Submit(1, 0, 1, i)
	}
	bad := n.Options()
	bad.Loss = prng.Ratio{Num: 3, Den: 2}
	if err := n.SetOptions(bad); err == nil || !n.Options().Loss.Zero() {
		t.Fatalf("a loss above 1 was taken: err %v, loss %v", err, n.Options().Loss)
	}

	quiet := n.Options()
	quiet.LinkCapacity = 2
	quiet.Nodes = 99 // ignored: the network keeps its nodes
	if err := n.SetOptions(quiet); err != nil || n.Options().Nodes != 5 {
		t.Fatalf("SetOptions: err %v, nodes %d", err, n.Options().Nodes)
	}
	n.Submit(2, 0, 1, 100)
	if got := n.Stats().Dropped[Capacity]; got != 5 {
		t.Errorf("six in flight over a capacity of two: shed %d, want 5", got)
	}

	all := n.Options()
	all.Loss = prng.Ratio{Num: 1, Den: 1}
	if err := n.SetOptions(all); err != nil {
		t.Fatal(err)
	}
	n.Submit(3, 1, 0, 7)
	lost := 0
	for now := uint64(3); now < 2000; now++ {
		n.Tick(now)
		n.Deliver(now, func(d *Delivery[int]) {
			if d.Payload == 7 && d.Reason == Loss {
				lost++
			}
		})
	}
	if lost != 1 {
		t.Errorf("loss 1/1: packet lost %d times, want 1", lost)
	}
}
