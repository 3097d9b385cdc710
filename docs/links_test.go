package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

var (
	// mdLink is a Markdown link's target, without its #fragment.
	mdLink = regexp.MustCompile(`\]\(([^)#\s]+)(?:#[^)]*)?\)`)
	// urlScheme marks a target that is no file of the tree (https:, mailto:).
	urlScheme = regexp.MustCompile(`^[a-z][a-z0-9+.-]*:`)
	// citation is a decision cited by number, D18.
	citation = regexp.MustCompile(`\bD(\d+)\b`)
)

// TestDocLinks checks that every relative link of README.md and docs/**.md
// names a file or directory that exists, and that every record a decision
// record cites (D18) exists.
func TestDocLinks(t *testing.T) {
	root := moduleRoot(t)
	files := []string{filepath.Join(root, "README.md")}
	for _, pattern := range []string{"docs/*.md", "docs/decisions/*.md"} {
		m, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pattern)))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	records := readRecords(t)
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, file)
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			if urlScheme.MatchString(m[1]) {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(file), filepath.FromSlash(m[1]))); err != nil {
				t.Errorf("%s links %s, which does not exist", rel, m[1])
			}
		}
		if filepath.Dir(file) != filepath.Join(root, "docs", "decisions") {
			continue
		}
		for _, m := range citation.FindAllStringSubmatch(string(data), -1) {
			if n, _ := strconv.Atoi(m[1]); records[n].file == "" {
				t.Errorf("%s cites D%s, which is no record", rel, m[1])
			}
		}
	}
}
