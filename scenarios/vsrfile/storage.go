package vsrfile

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// The storage actions: scripted faults on one replica's disk.

const (
	corruptForm   = "want: at TICK corrupt R op N header|body|both, or at TICK corrupt R superblock"
	misdirectForm = "want: at TICK misdirect R op N -> op M"
)

// entryCopies are the words naming which copies of an entry corrupt hits.
var entryCopies = []string{CopyHeader, CopyBody, CopyBoth}

// parseCorrupt reads `R superblock` or `R op N COPY`.
func (a *Action) parseCorrupt(args []string) error {
	switch {
	case len(args) == 2 && args[1] == CopySuperblock:
		a.Copy = CopySuperblock
		return a.parseDisk(args[0])
	case len(args) != 4 || args[1] != "op":
		return errors.New(corruptForm)
	}
	if err := a.parseDisk(args[0]); err != nil {
		return err
	}
	var err error
	if a.Op, err = parseOp(args[2]); err != nil {
		return err
	}
	if !slices.Contains(entryCopies, args[3]) {
		return fmt.Errorf("corrupt: %q is not a copy (want header, body or both)", args[3])
	}
	a.Copy = args[3]
	return nil
}

// parseMisdirect reads `R op N -> op M`.
func (a *Action) parseMisdirect(args []string) error {
	if len(args) != 6 || args[1] != "op" || args[3] != "->" || args[4] != "op" {
		return errors.New(misdirectForm)
	}
	if err := a.parseDisk(args[0]); err != nil {
		return err
	}
	var err error
	if a.Op, err = parseOp(args[2]); err != nil {
		return err
	}
	if a.OpTo, err = parseOp(args[5]); err != nil {
		return err
	}
	if a.Op == a.OpTo {
		return fmt.Errorf("misdirect: op %d -> op %d lands where it was meant", a.Op, a.OpTo)
	}
	return nil
}

// parseDisk reads the one replica whose disk a storage action hits.
func (a *Action) parseDisk(word string) error {
	t, err := parseTarget(word)
	if err != nil {
		return err
	}
	if t.IsClient() {
		return fmt.Errorf("%s: %s is not a replica (a client has no disk)", a.Verb, t)
	}
	a.Targets = []Target{t}
	return nil
}

// parseOp reads an op number; ops count from 1, as the journal's do.
func parseOp(word string) (uint64, error) {
	op, err := strconv.ParseUint(word, 10, 64)
	if err != nil || strconv.FormatUint(op, 10) != word {
		return 0, fmt.Errorf("op %q is not a number", word)
	}
	if op == 0 {
		return 0, fmt.Errorf("op 0: ops count from 1")
	}
	return op, nil
}

// storageWords are a storage action's words after its verb.
func storageWords(a *Action) []string {
	w := appendTargets(nil, a.Targets)
	switch {
	case a.Verb == Corrupt && a.Copy == CopySuperblock:
		return append(w, CopySuperblock)
	case a.Verb == Corrupt:
		return append(w, "op", u(a.Op), a.Copy)
	}
	return append(w, "op", u(a.Op), "->", "op", u(a.OpTo))
}
