package docs

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"vsrsim/marks"
	"vsrsim/replica"
	"vsrsim/scenarios"
	"vsrsim/sim/settings"
	"vsrsim/sim/swarm"
)

// glossaryEntry is a glossary line: "- `name`: ..." or "- `name` (...): ...".
var glossaryEntry = regexp.MustCompile("^- `([^`]+)`(?: \\([^)]*\\))?: \\S")

// readGlossary returns docs/glossary.md's entries under each "## " heading.
func readGlossary(t *testing.T) map[string][]string {
	t.Helper()
	sections := map[string][]string{}
	section := ""
	for i, line := range readDoc(t, "docs/glossary.md") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			section = h
			if _, dup := sections[section]; dup {
				t.Errorf("docs/glossary.md:%d: heading %q twice", i+1, section)
			}
			sections[section] = nil
			continue
		}
		if !strings.HasPrefix(line, "- ") || section == "" {
			continue
		}
		m := glossaryEntry.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("docs/glossary.md:%d: an entry is \"- `name`: what it is\", got %q", i+1, line)
			continue
		}
		sections[section] = append(sections[section], m[1])
	}
	return sections
}

// protocolWords lists the `protocol` setting's words: settings.Protocol
// names each option of replica.Protocol that is on, so with every one on
// it names them all.
func protocolWords(t *testing.T) []string {
	t.Helper()
	var p replica.Protocol
	v := reflect.ValueOf(&p).Elem()
	for i := 0; i < v.NumField(); i++ {
		if v.Field(i).Kind() != reflect.Bool {
			t.Fatalf("replica.Protocol.%s is not a bool: glossary_test.go cannot name it", v.Type().Field(i).Name)
		}
		v.Field(i).SetBool(true)
	}
	words := strings.Split(settings.Protocol(p), ",")
	if len(words) != v.NumField() {
		t.Errorf("replica.Protocol has %d options but the protocol setting names %d (%s)",
			v.NumField(), len(words), strings.Join(words, ", "))
	}
	return words
}

// plantedDefects lists tools/mutants/*.patch by name.
func plantedDefects(t *testing.T) []string {
	t.Helper()
	dir := filepath.Join(moduleRoot(t), "tools", "mutants")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".patch"); ok && !e.IsDir() {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// TestGlossary checks each group of docs/glossary.md against the code's own
// list of that kind of name, and names every entry missing or stale.
func TestGlossary(t *testing.T) {
	var bugs, marksList, scenarioNames []string
	for _, b := range replica.BugCatalog {
		bugs = append(bugs, b.Name)
	}
	for m := marks.Mark(0); m < marks.Count; m++ {
		marksList = append(marksList, m.String())
	}
	for _, s := range scenarios.All() {
		scenarioNames = append(scenarioNames, s.Name)
	}
	groups := []struct {
		heading string
		source  string
		names   []string
	}{
		{"Bug switches", "replica.BugCatalog", bugs},
		{"Protocol options", "the protocol setting (settings.Protocol)", protocolWords(t)},
		{"Planted defects", "tools/mutants/*.patch", plantedDefects(t)},
		{"Swarm foci", "swarm.FocusNames", swarm.FocusNames()},
		{"Coverage marks", "marks.Mark", marksList},
		{"Scenarios", "scenarios.All", scenarioNames},
	}
	sections := readGlossary(t)
	for _, g := range groups {
		if len(g.names) == 0 {
			t.Errorf("%s lists no names", g.source)
		}
		entries, ok := sections[g.heading]
		if !ok {
			t.Errorf("docs/glossary.md has no %q heading (for %s)", "## "+g.heading, g.source)
			continue
		}
		compareSets(t, "docs/glossary.md, "+g.heading, g.names, entries,
			"missing (in "+g.source+")", "stale (not in "+g.source+")")
		delete(sections, g.heading)
	}
	for heading := range sections {
		t.Errorf("docs/glossary.md: heading %q is no kind this test knows", heading)
	}
}
