package findings

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"

	"vsrsim/sim"
)

// The rewrites that turn a finding's evidence into its shape, in order.
var (
	// hexWord is a checksum or other hex value (csum=485a, 0x3a7c91e5): a
	// word of hex digits with at least one decimal digit, or 0x and hex.
	hexWord = regexp.MustCompile(`\b(?:0x[0-9a-fA-F]+|[0-9a-f]*[0-9][0-9a-f]*)\b`)
	// hexValue is a value of key=value made of hex letters alone
	// (csum=acfe), which hexWord leaves as a word.
	hexValue = regexp.MustCompile(`=[0-9a-f]+\b`)
	// digits is any other number: ticks, ops, views, counts, replica ids.
	digits = regexp.MustCompile(`[0-9]+`)
	// replicaList and numberList are lists of one kind (r0,r2,r3; ops 4, 5):
	// one defect names more or fewer replicas or ops from seed to seed.
	replicaList = regexp.MustCompile(`r#(?:,\s?r#)+`)
	numberList  = regexp.MustCompile(`#(?:,\s?#)+`)
	// aside is a parenthesised detail of one run (how many nacks, who acked,
	// whether the client got its reply), which the seeds of one defect vary.
	aside  = regexp.MustCompile(`\s*\([^()]*\)`)
	spaces = regexp.MustCompile(`\s+`)
)

// stallClause starts the last clause of a liveness finding's evidence
// (sim/check/liveness.go): the core's state when the phase ended, which
// differs from seed to seed whatever the cause; the clauses before it name
// the cause. Its state dump is left out of the shape.
const stallClause = "core did not converge"

// Shape is evidence with what varies between seeds of one defect taken out:
// numbers and hex values become #, lists of replicas or numbers one item,
// parenthesised details and a stalled core's state dump are dropped.
func Shape(evidence string) string {
	// Asides go first, innermost out, so a "; " inside one splits nothing.
	for {
		trimmed := aside.ReplaceAllString(evidence, "")
		if trimmed == evidence {
			break
		}
		evidence = trimmed
	}
	clauses := strings.Split(evidence, "; ")
	for i, c := range clauses {
		if strings.HasPrefix(c, stallClause) {
			c, _, _ = strings.Cut(c, ":")
		}
		c = hexWord.ReplaceAllString(c, "#")
		c = hexValue.ReplaceAllString(c, "=#")
		c = digits.ReplaceAllString(c, "#")
		c = replicaList.ReplaceAllString(c, "r#")
		c = numberList.ReplaceAllString(c, "#")
		clauses[i] = strings.TrimSpace(spaces.ReplaceAllString(c, " "))
	}
	return strings.Join(clauses, "; ")
}

// Signature is a finding's class: its verdict, the invariant it broke (or,
// for an unrecoverable run, the rule that excused it), and the shape of its
// evidence. Seeds of one defect share it, whatever ticks, ops, views and
// replicas their runs reached.
func (r Record) Signature() string {
	name := r.Invariant
	if r.Rule != "" && (name == "" || r.Verdict == sim.VerdictUnrecoverable) {
		name = r.Rule // an unrecoverable run's invariant is "unrecoverable"
	}
	return string(r.Verdict) + " " + orDash(name) + ": " + Shape(r.Evidence)
}

// SignatureID is a short stable name for a signature: the first 12 hex
// digits of its SHA-256.
func SignatureID(sig string) string {
	sum := sha256.Sum256([]byte(sig))
	return hex.EncodeToString(sum[:6])
}

func orDash(s string) string {
	if s == "" {
		return NoInvariant
	}
	return s
}

// SignatureGroup is the records that share one signature.
type SignatureGroup struct {
	Signature string
	ID        string
	Count     int
	// Smallest is the record with the smallest seed: the one to replay
	// first.
	Smallest Record
}

// GroupBySignature groups recs by signature, most records first, then by
// signature; a thousand failing seeds of one defect make one group.
func GroupBySignature(recs []Record) []SignatureGroup {
	var groups []SignatureGroup
	at := map[string]int{} // looked up only; the order is the sort's
	for _, r := range recs {
		sig := r.Signature()
		i, ok := at[sig]
		if !ok {
			at[sig] = len(groups)
			groups = append(groups, SignatureGroup{Signature: sig, ID: SignatureID(sig), Smallest: r})
			i = len(groups) - 1
		}
		g := &groups[i]
		g.Count++
		if r.Seed < g.Smallest.Seed {
			g.Smallest = r
		}
	}
	slices.SortFunc(groups, func(a, b SignatureGroup) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Signature, b.Signature)
	})
	return groups
}
