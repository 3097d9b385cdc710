package fuzz

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"strings"

	"vsrsim/replica"
	"vsrsim/scenarios"
	"vsrsim/scenarios/vsrfile"
	"vsrsim/sim"
	"vsrsim/sim/swarm"
)

// Input is what the search runs: a seed and a scenario file, or, for a
// fresh draw, a swarm seed alone (File nil), whose run is recorded into the
// file its children are mutated from.
type Input struct {
	Seed uint64
	File []byte // vsrfile.Format output, nil for a swarm seed
	// Op names the mutations that made the input, for the progress log.
	Op string
	// Unfocused draws a swarm seed without its focus slice (swarm.Unfocused):
	// the measurement of the foci sets it (`vsrsim fuzz --no-foci`).
	Unfocused bool
}

// Swarm reports whether the input is a plain swarm seed.
func (in *Input) Swarm() bool { return in.File == nil }

// Name is the file name the input runs under. The name reaches the run's
// trace (its scenario is "file:NAME"), so it is derived from the input
// alone: the saved file replays with the same trace hash.
func (in *Input) Name() string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\n", in.Seed)
	h.Write(in.File)
	return fmt.Sprintf("fuzz-%016x.vsr", h.Sum64())
}

// Config is the run of the input with bugs on, and its attachments. A file
// the scenarios package refuses is an error.
func (in *Input) Config(bugs replica.Bugs) (sim.Config, sim.Attach, error) {
	if in.Swarm() {
		cfg := swarm.Config(in.Seed)
		if in.Unfocused {
			cfg = swarm.Unfocused(in.Seed)
		}
		cfg.Bugs = bugs
		return cfg, sim.Attach{}, nil
	}
	f, err := scenarios.ParseFile(in.Name(), bytes.NewReader(in.File))
	if err != nil {
		return sim.Config{}, sim.Attach{}, err
	}
	cfg := sim.DefaultConfig(in.Seed)
	cfg.Bugs = bugs
	script, err := f.Apply(&cfg)
	if err != nil {
		return sim.Config{}, sim.Attach{}, err
	}
	if err := f.CheckDisks(&cfg); err != nil {
		return sim.Config{}, sim.Attach{}, err
	}
	return cfg, sim.Attach{Script: script}, nil
}

// Replay is the command that reruns the input, its file saved at path.
func (in *Input) Replay(path string, bugs replica.Bugs) string {
	args := []string{"vsrsim", "run", "--seed", fmt.Sprint(in.Seed)}
	if !in.Swarm() {
		args = append(args, "--scenario-file", quote(path))
	} else if in.Unfocused {
		args = append(args, "--no-foci")
	}
	for _, b := range bugs.Names() {
		args = append(args, "--bug", b)
	}
	return strings.Join(args, " ")
}

// quote is path as one shell word.
func quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Saved is the input as a file to keep, with notes (why it was kept, how to
// replay it) as comments after its last line. A run's trace names the lines
// of the file's actions, so comments above them would move every line and
// the saved file would not replay the run's trace hash.
func (in *Input) Saved(notes []string) ([]byte, error) {
	if in.Swarm() {
		return nil, fmt.Errorf("a swarm seed has no file")
	}
	var b bytes.Buffer
	b.Write(in.File)
	for _, n := range notes {
		b.WriteString("# " + strings.ReplaceAll(n, "\n", " ") + "\n")
	}
	return b.Bytes(), nil
}

// FromFile reads a saved input: the file's seed line is its seed. Comments
// are dropped, so the input (and its name) is the same file however it was
// annotated.
func FromFile(data []byte) (Input, error) {
	t, err := vsrfile.Parse(data)
	if err != nil {
		return Input{}, err
	}
	seed, ok := t.SeedValue()
	if !ok {
		return Input{}, fmt.Errorf("no seed line")
	}
	t.Comments = nil
	in := Input{Seed: seed, File: vsrfile.Format(t), Op: "corpus"}
	if _, _, err := in.Config(replica.Bugs{}); err != nil {
		return Input{}, err
	}
	return in, nil
}
