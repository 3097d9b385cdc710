package scenarios

import (
	"fmt"
	"strconv"
	"strings"

	"vsrsim/replica"
	"vsrsim/sim"
)

// targetKind is what a target word names.
type targetKind uint8

const (
	tReplica     targetKind = iota + 1 // "2"
	tAllReplicas                       // "*"
	tClient                            // "c0"
	tAllClients                        // "clients"
	tPrimary                           // "primary"
	tBackup                            // "backup1": n replicas after the primary in ring order
)

// target is one word of a target list. Roles are resolved when the action
// runs, from what the replicas report of themselves.
type target struct {
	kind targetKind
	n    int
}

func (t target) String() string {
	switch t.kind {
	case tReplica:
		return strconv.Itoa(t.n)
	case tAllReplicas:
		return "*"
	case tClient:
		return "c" + strconv.Itoa(t.n)
	case tAllClients:
		return "clients"
	case tPrimary:
		return "primary"
	}
	return "backup" + strconv.Itoa(t.n)
}

func (t target) role() bool { return t.kind == tPrimary || t.kind == tBackup }

func (t target) client() bool { return t.kind == tClient || t.kind == tAllClients }

const targetForms = "a replica index, *, c0.., clients, primary or backup1.."

func parseTarget(s string) (target, error) {
	small := func(d string) (int, bool) {
		n, err := strconv.Atoi(d)
		return n, err == nil && n >= 0 && n < 1<<16 && d == strconv.Itoa(n)
	}
	switch {
	case s == "*":
		return target{kind: tAllReplicas}, nil
	case s == "clients":
		return target{kind: tAllClients}, nil
	case s == "primary":
		return target{kind: tPrimary}, nil
	case strings.HasPrefix(s, "backup"):
		if n, ok := small(s[len("backup"):]); ok && n >= 1 {
			return target{kind: tBackup, n: n}, nil
		}
	case strings.HasPrefix(s, "c"):
		if n, ok := small(s[1:]); ok {
			return target{kind: tClient, n: n}, nil
		}
	default:
		if n, ok := small(s); ok {
			return target{kind: tReplica, n: n}, nil
		}
	}
	return target{}, fmt.Errorf("%q is not a target (want %s)", s, targetForms)
}

func parseTargets(words []string) ([]target, error) {
	if len(words) == 0 {
		return nil, fmt.Errorf("want targets (%s)", targetForms)
	}
	out := make([]target, 0, len(words))
	for _, w := range words {
		t, err := parseTarget(w)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// check refuses a target the cluster lacks.
func (t target) check(replicas, clients int) error {
	switch t.kind {
	case tReplica:
		if t.n >= replicas {
			return fmt.Errorf("no replica %d in a cluster of %d", t.n, replicas)
		}
	case tClient:
		if t.n >= clients {
			return fmt.Errorf("no client c%d with %d clients", t.n, clients)
		}
	case tBackup:
		if t.n >= replicas {
			return fmt.Errorf("no backup%d in a cluster of %d (backups are backup1..backup%d)", t.n, replicas, replicas-1)
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
		if ok && info.Status == replica.StatusNormal && (!found || info.View > view) {
			view, found = info.View, true
		}
	}
	return replica.PrimaryOf(view, n), found
}

// nodes appends the node ids t names now (clients are numbered after the
// replicas); ok is false if t is a role and no replica is Normal.
func (t target) nodes(c *sim.Cluster, out []int) ([]int, bool) {
	cfg := c.Config()
	n := cfg.Replicas
	switch t.kind {
	case tReplica:
		if t.n < n {
			out = append(out, t.n)
		}
	case tAllReplicas:
		for i := 0; i < n; i++ {
			out = append(out, i)
		}
	case tClient:
		if t.n < cfg.Clients {
			out = append(out, n+t.n)
		}
	case tAllClients:
		for i := 0; i < cfg.Clients; i++ {
			out = append(out, n+i)
		}
	case tPrimary, tBackup:
		p, ok := primaryNow(c)
		if !ok {
			return out, false
		}
		if t.kind == tBackup {
			p = (p + t.n) % n
		}
		out = append(out, p)
	}
	return out, true
}

func resolve(c *sim.Cluster, ts []target) ([]int, bool) {
	var out []int
	for _, t := range ts {
		var ok bool
		if out, ok = t.nodes(c, out); !ok {
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
		for cmd := replica.Command(1); cmd < 32; cmd++ {
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
