package packetsim

import (
	"strings"
	"testing"

	"vsrsim/prng"
)

func TestNewRejectsNonsense(t *testing.T) {
	base := Options{Nodes: 4, Replicas: 3}
	cases := []struct {
		name   string
		mutate func(o *Options)
	}{
		{"no nodes", func(o *Options) { o.Nodes = 0 }},
		{"replicas above nodes", func(o *Options) { o.Replicas = 5 }},
		{"no replicas", func(o *Options) { o.Replicas = 0 }},
		{"negative capacity", func(o *Options) { o.LinkCapacity = -1 }},
		{"negative queue limit", func(o *Options) { o.QueueLimit = -1 }},
		{"loss above one", func(o *Options) { o.Loss = prng.Ratio{Num: 3, Den: 2} }},
		{"loss over zero", func(o *Options) { o.Loss = prng.Ratio{Num: 1} }},
		{"reorder without max", func(o *Options) { o.Reorder = prng.Percent(1) }},
		{"clog without mean", func(o *Options) { o.Clog = prng.Percent(1) }},
		{"partition chance without mode", func(o *Options) { o.PartitionChance = prng.Percent(1) }},
		{"partition with one replica", func(o *Options) { o.Replicas = 1; o.PartitionMode = IsolateSingle }},
		{"unknown mode", func(o *Options) { o.PartitionMode = 9 }},
		{"unknown symmetry", func(o *Options) { o.PartitionSymmetry = 9 }},
		{"huge delay", func(o *Options) { o.DelayMeanTicks = 1 << 60 }},
	}
	for _, tc := range cases {
		opts := base
		tc.mutate(&opts)
		_, err := New[int](opts, prng.New(1, prng.StreamNetwork))
		if err == nil {
			t.Errorf("%s: New accepted %v", tc.name, opts)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "packetsim: ") {
			t.Errorf("%s: error %q is not one packetsim line", tc.name, msg)
		}
	}
	if _, err := New[int](base, nil); err == nil {
		t.Error("New accepted a nil stream")
	}
}

func TestDefaults(t *testing.T) {
	n := newNetwork(t, Options{Nodes: 2, Replicas: 2}, 1)
	o := n.Options()
	if o.LinkCapacity != LinkCapacityDefault || o.QueueLimit != QueueLimitDefault {
		t.Fatalf("defaults not applied: %+v", o)
	}
	if s := o.String(); strings.Contains(s, "\n") || !strings.Contains(s, "link_capacity=64") {
		t.Fatalf("Options.String() = %q", s)
	}
}

func TestReasonNames(t *testing.T) {
	cases := []struct {
		r    DropReason
		name string
	}{
		{NotDropped, "none"}, {Loss, "loss"}, {Partition, "partition"}, {Capacity, "capacity"},
		{Filter, "filter"}, {Down, "crashed"}, {Corrupt, "corrupt"}, {200, "DropReason(200)"},
	}
	for _, tc := range cases {
		if got := tc.r.String(); got != tc.name {
			t.Errorf("DropReason(%d).String() = %q, want %q", uint8(tc.r), got, tc.name)
		}
	}
}
