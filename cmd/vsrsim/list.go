package main

import (
	"io"

	"github.com/spf13/cobra"

	"vsrsim/replica"
	"vsrsim/scenarios"
)

// listJSON is `vsrsim list -o json`. Both arrays are never null, so a reader
// can iterate without a check even while the registry is empty.
type listJSON struct {
	Scenarios []scenarioJSON `json:"scenarios"`
	Bugs      []bugJSON      `json:"bugs"`
}

type scenarioJSON struct {
	Name        string `json:"name"`
	Bug         string `json:"bug"`
	Expect      string `json:"expect"` // the verdict with the bug on; off, it must pass
	Description string `json:"description"`
}

type bugJSON struct {
	Name        string `json:"name"`
	Scenario    string `json:"scenario"`
	Description string `json:"description"`
}

func newListCmd() *cobra.Command {
	output := newEnumFlag("table", "table", "json")
	cmd := &cobra.Command{
		Use:               "list",
		Short:             "List the scenarios and bug switches",
		Args:              cobra.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if output.value == "json" {
				err = writeJSON(cmd.OutOrStdout(), catalog())
			} else {
				err = writeListTables(cmd.OutOrStdout(), catalog())
			}
			if err != nil {
				return internalErrorf("writing output: %v", err)
			}
			return nil
		},
	}
	cmd.Flags().VarP(output, "output", "o", "output format")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(output.allowed, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func catalog() listJSON {
	out := listJSON{Scenarios: []scenarioJSON{}, Bugs: []bugJSON{}}
	for _, s := range scenarios.All() {
		out.Scenarios = append(out.Scenarios, scenarioJSON{Name: s.Name, Bug: s.Bug, Expect: string(s.Expect), Description: s.Description})
	}
	for _, b := range replica.BugCatalog {
		out.Bugs = append(out.Bugs, bugJSON{Name: b.Name, Scenario: b.Scenario, Description: b.Description})
	}
	return out
}

func writeListTables(w io.Writer, c listJSON) error {
	if len(c.Scenarios) == 0 {
		if _, err := io.WriteString(w, "scenarios: none registered\n"); err != nil {
			return err
		}
	} else {
		t := newTable(w, "scenario", "bug switch", "verdict with bug", "description")
		for _, s := range c.Scenarios {
			if err := t.Append([]string{s.Name, s.Bug, s.Expect, s.Description}); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	t := newTable(w, "bug switch", "scenario", "description")
	for _, b := range c.Bugs {
		if err := t.Append([]string{b.Name, b.Scenario, b.Description}); err != nil {
			return err
		}
	}
	return t.Render()
}
