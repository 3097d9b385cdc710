package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	// recordFile is a record's file name: its number in four digits, a title.
	recordFile = regexp.MustCompile(`^(\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$`)
	// indexLink is an index row's first cell: [D18](0018-title.md).
	indexLink = regexp.MustCompile(`^\[D(\d+)\]\(([^)]+)\)$`)
	// recordTitle is a record's first line: # D18. Title
	recordTitle = regexp.MustCompile(`^# D(\d+)\. (\S.*)$`)
	// statusLine is a record's third line.
	statusLine = regexp.MustCompile(`^Status: (accepted|superseded by (\d{4}))$`)
	// amendedLine optionally follows it: the records that narrow this one.
	amendedLine = regexp.MustCompile(`^Amended by: (\d{4}(?:, \d{4})*)$`)
	// amendsLine optionally follows the status too: the records this one
	// narrows or extends, the other end of their Amended by lines.
	amendsLine = regexp.MustCompile(`^Amends: (\d{4}(?:, \d{4})*)$`)
	// supersedesLine names the records this one replaced, the other end of
	// their `Status: superseded by` line.
	supersedesLine = regexp.MustCompile(`^Supersedes: (\d{4}(?:, \d{4})*)$`)
	// proseAmends is a record's own sentence naming what it amends or
	// supersedes (`Amends D21, D28 and D40.`): the records it names must be on
	// its header lines too, so the prose and the links cannot part.
	proseAmends = regexp.MustCompile(`\b(Amends|Supersedes) (D\d+(?:(?:, | and |, and )D\d+)*)`)
)

// record is one decision record as its file states it.
type record struct {
	file         string
	title        string
	status       string
	supersededBy int // 0 unless superseded
	amendedBy    []int
	amends       []int // the records this one amends (its Amends line)
	supersedes   []int // the records this one superseded (its Supersedes line)
	// proseAmends and proseSupersedes are the records the text names in an
	// `Amends D..` or `Supersedes D..` sentence.
	proseAmends, proseSupersedes []int
}

// readRecords reads every record file of docs/decisions, by number.
func readRecords(t *testing.T) map[int]record {
	t.Helper()
	dir := filepath.Join(moduleRoot(t), "docs", "decisions")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	records := map[int]record{}
	for _, e := range entries {
		name := e.Name()
		if name == "README.md" || e.IsDir() {
			continue
		}
		m := recordFile.FindStringSubmatch(name)
		if m == nil {
			t.Errorf("docs/decisions/%s: not a record's name (NNNN-title.md, lower case, hyphens)", name)
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if prev, ok := records[n]; ok {
			t.Errorf("docs/decisions: number %04d used twice: %s and %s", n, prev.file, name)
			continue
		}
		r, err := parseRecord(n, readDoc(t, "docs/decisions/"+name))
		if err != nil {
			t.Errorf("docs/decisions/%s: %v", name, err)
			continue
		}
		r.file = name
		records[n] = r
	}
	return records
}

// parseRecord reads a record's heading, status and amendments.
func parseRecord(n int, lines []string) (record, error) {
	var r record
	if len(lines) < 4 {
		return r, fmt.Errorf("too short for a heading, a blank line and a status")
	}
	m := recordTitle.FindStringSubmatch(lines[0])
	if m == nil {
		return r, fmt.Errorf("first line %q is not `# DN. Title`", lines[0])
	}
	if got, _ := strconv.Atoi(m[1]); got != n {
		return r, fmt.Errorf("heading says D%s, file name says %04d", m[1], n)
	}
	r.title = m[2]
	if lines[1] != "" {
		return r, fmt.Errorf("second line must be blank")
	}
	s := statusLine.FindStringSubmatch(lines[2])
	if s == nil {
		return r, fmt.Errorf("third line %q is not `Status: accepted` or `Status: superseded by NNNN`", lines[2])
	}
	r.status = strings.TrimPrefix(lines[2], "Status: ")
	if s[2] != "" {
		r.supersededBy, _ = strconv.Atoi(s[2])
	}
	header := 3
	for ; header < len(lines) && lines[header] != ""; header++ {
		if err := r.headerLine(lines[header]); err != nil {
			return r, err
		}
	}
	for _, line := range lines[header:] {
		for _, m := range proseAmends.FindAllStringSubmatch(line, -1) {
			for _, d := range citation.FindAllStringSubmatch(m[2], -1) {
				k, _ := strconv.Atoi(d[1])
				if m[1] == "Amends" {
					r.proseAmends = append(r.proseAmends, k)
				} else {
					r.proseSupersedes = append(r.proseSupersedes, k)
				}
			}
		}
	}
	return r, nil
}

// headerLine reads one line of the block after the status: an Amended by,
// Amends or Supersedes line, or another note (Formerly: ...), which is kept
// as text. A line that starts like a link but does not parse is an error,
// so a typo cannot drop a link silently.
func (r *record) headerLine(line string) error {
	numbers := func(list string) []int {
		var ks []int
		for _, f := range strings.Split(list, ", ") {
			k, _ := strconv.Atoi(f)
			ks = append(ks, k)
		}
		return ks
	}
	if a := amendedLine.FindStringSubmatch(line); a != nil {
		r.amendedBy = append(r.amendedBy, numbers(a[1])...)
		return nil
	}
	if a := amendsLine.FindStringSubmatch(line); a != nil {
		r.amends = append(r.amends, numbers(a[1])...)
		return nil
	}
	if a := supersedesLine.FindStringSubmatch(line); a != nil {
		r.supersedes = append(r.supersedes, numbers(a[1])...)
		return nil
	}
	for _, prefix := range []string{"Status", "Amended by", "Amends", "Supersedes"} {
		if strings.HasPrefix(line, prefix) {
			return fmt.Errorf("malformed line %q", line)
		}
	}
	return nil
}

// TestDecisionIndex checks docs/decisions/README.md against the record
// files: every file listed once, every listed file there, numbers unique
// and matching the file names and headings, titles and statuses as the
// files state them, and every record a status or amendment names exists.
func TestDecisionIndex(t *testing.T) {
	records := readRecords(t)
	if len(records) == 0 {
		t.Fatal("docs/decisions holds no records")
	}
	listed := map[int]bool{}
	rows := 0
	for i, line := range readDoc(t, "docs/decisions/README.md") {
		cells := tableCells(line)
		if cells == nil || isRule(cells) || cells[0] == "record" {
			continue
		}
		rows++
		at := fmt.Sprintf("docs/decisions/README.md:%d", i+1)
		if len(cells) != 3 {
			t.Errorf("%s: want 3 cells (record, title, status), got %d", at, len(cells))
			continue
		}
		m := indexLink.FindStringSubmatch(cells[0])
		if m == nil {
			t.Errorf("%s: first cell %q is not [DN](NNNN-title.md)", at, cells[0])
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if listed[n] {
			t.Errorf("%s: D%d listed twice", at, n)
			continue
		}
		listed[n] = true
		r, ok := records[n]
		if !ok {
			t.Errorf("%s: D%d is listed but no docs/decisions/%04d-*.md exists", at, n, n)
			continue
		}
		if m[2] != r.file {
			t.Errorf("%s: D%d links %s, the record is %s", at, n, m[2], r.file)
		}
		if cells[1] != r.title {
			t.Errorf("%s: D%d's title %q, the record says %q", at, n, cells[1], r.title)
		}
		if cells[2] != r.status {
			t.Errorf("%s: D%d's status %q, the record says %q", at, n, cells[2], r.status)
		}
	}
	if rows == 0 {
		t.Fatal("docs/decisions/README.md: no index table")
	}
	for n, r := range records {
		if !listed[n] {
			t.Errorf("docs/decisions/%s is not in the index (docs/decisions/README.md)", r.file)
		}
		if k := r.supersededBy; k != 0 {
			if _, ok := records[k]; !ok || k == n {
				t.Errorf("docs/decisions/%s: superseded by %04d, which is no other record", r.file, k)
			}
		}
		for _, k := range r.amendedBy {
			if _, ok := records[k]; !ok || k == n {
				t.Errorf("docs/decisions/%s: amended by %04d, which is no other record", r.file, k)
			}
		}
	}
}

// TestDecisionFormat pins the parser on records it must refuse, so that a
// malformed status cannot pass for a well-formed one.
func TestDecisionFormat(t *testing.T) {
	good := []string{"# D7. A title", "", "Status: superseded by 0031", "Amended by: 0002, 0003", "", "Text."}
	r, err := parseRecord(7, good)
	if err != nil || r.supersededBy != 31 || len(r.amendedBy) != 2 || r.title != "A title" {
		t.Fatalf("well-formed record read as %+v, %v", r, err)
	}
	for _, bad := range [][]string{
		{"# D8. A title", "", "Status: accepted", "", "Text."},       // number differs from the file's
		{"# D7 A title", "", "Status: accepted", "", "Text."},        // no period
		{"# D7. A title", "", "Status: Accepted", "", "Text."},       // case
		{"# D7. A title", "", "Status: superseded by 31", "", "Te."}, // not four digits
		{"# D7. A title", "", "Status: rejected", "", "Text."},
		{"# D7. A title", "Status: accepted", "", "Text."},
		{"# D7. A title", "", "Status: accepted", "Amended by: 12", ""},
	} {
		if _, err := parseRecord(7, bad); err == nil {
			t.Errorf("accepted a malformed record: %q", bad)
		}
	}
}
