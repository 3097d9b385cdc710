package scenarios

import (
	"fmt"
	"strings"

	"vsrsim/scenarios/vsrfile"
	"vsrsim/sim"
	"vsrsim/vsr"
)

// checkTarget refuses a target the cluster lacks.
func checkTarget(t vsrfile.Target, replicas, clients int) error {
	switch t.Kind {
	case vsrfile.Replica:
		if t.N >= replicas {
			return fmt.Errorf("no replica %d in a cluster of %d", t.N, replicas)
		}
	case vsrfile.Client:
		if t.N >= clients {
			return fmt.Errorf("no client c%d with %d clients", t.N, clients)
		}
	case vsrfile.Backup:
		if t.N >= replicas {
			return fmt.Errorf("no backup%d in a cluster of %d (backups are backup1..backup%d)", t.N, replicas, replicas-1)
		}
	}
	return nil
}

// primaryNow is the primary of the highest view any live replica is Normal
// in, as the replicas report it; false if no live replica is Normal.
func primaryNow(c *sim.Cluster) (int, bool) {
	n := c.Config().Replicas
	var view uint64
	found := false
	for i := 0; i < n; i++ {
		info, ok := c.Info(i)
		if ok && info.Status == vsr.StatusNormal && (!found || info.View > view) {
			view, found = info.View, true
		}
	}
	return vsr.PrimaryOf(view, n), found
}

// nodes appends the node ids t names now (clients are numbered after the
// replicas); ok is false if t is a role and no replica is Normal.
func nodesOf(t vsrfile.Target, c *sim.Cluster, out []int) ([]int, bool) {
	cfg := c.Config()
	n := cfg.Replicas
	switch t.Kind {
	case vsrfile.Replica:
		if t.N < n {
			out = append(out, t.N)
		}
	case vsrfile.AllReplicas:
		for i := 0; i < n; i++ {
			out = append(out, i)
		}
	case vsrfile.Client:
		if t.N < cfg.Clients {
			out = append(out, n+t.N)
		}
	case vsrfile.AllClients:
		for i := 0; i < cfg.Clients; i++ {
			out = append(out, n+i)
		}
	case vsrfile.Primary, vsrfile.Backup:
		p, ok := primaryNow(c)
		if !ok {
			return out, false
		}
		if t.Kind == vsrfile.Backup {
			p = (p + t.N) % n
		}
		out = append(out, p)
	}
	return out, true
}

func resolve(c *sim.Cluster, ts []vsrfile.Target) ([]int, bool) {
	var out []int
	for _, t := range ts {
		var ok bool
		if out, ok = nodesOf(t, c, out); !ok {
			return nil, false
		}
	}
	return out, true
}

// parseKinds reads KIND[,KIND..], names as the trace prints them, any case.
func parseKinds(s string) (uint32, error) {
	var mask uint32
	for _, k := range strings.Split(s, ",") {
		found := false
		for cmd := vsr.Command(1); cmd < 32; cmd++ {
			if name := cmd.String(); !strings.HasPrefix(name, "Command(") && strings.EqualFold(name, k) {
				mask |= 1 << cmd
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("%q is not a message kind (e.g. Prepare, PrepareOk, Commit, StartViewChange, DoViewChange, StartView)", k)
		}
	}
	return mask, nil
}
