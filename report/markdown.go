package report

import (
	"fmt"
	"io"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/ledger"
)

type markdownRenderer struct{}

func (markdownRenderer) scan(w io.Writer, s *Scan) error {
	writeScanMarkdown(w, "recomp scan", s)
	return nil
}

func writeScanMarkdown(w io.Writer, title string, s *Scan) {
	sm := s.Ledger.Summary
	fmt.Fprintf(w, "## %s\n\n", title)
	fmt.Fprintf(w, "| compile requests | compilations | compile time | cache hits | cache misses | executable loads | load time | recompilations | after warm-up |\n")
	fmt.Fprintf(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(w, "| %d | %d | %s | %d | %d | %d | %s | %d | %d |\n\n", sm.CompileRequests, sm.Compilations, dur(sm.CompileTime),
		sm.CacheHits, sm.CacheMisses, sm.ExecutableLoads, dur(sm.LoadTime), sm.Recompilations, sm.AfterWarmup)
	if len(s.Ledger.Modules) > 0 {
		fmt.Fprintf(w, "| module family | requests | compiled | hits | misses | time | hashes |\n|---|---:|---:|---:|---:|---:|---|\n")
		for _, m := range s.Ledger.Modules {
			fmt.Fprintf(w, "| `%s` | %d | %d | %d | %d | %s | %s |\n", mdEscape(m.Family), m.CompileRequests, m.Compilations,
				m.CacheHits, m.CacheMisses, dur(m.CompileTime), mdEscape(joinOr(m.Hashes, "-")))
		}
		fmt.Fprintln(w)
	}
	writeFindingsMarkdown(w, s.Ledger.Findings)
	for _, in := range s.Inputs {
		if in.ReadError != "" {
			fmt.Fprintf(w, "- **warning** `%s`: %s\n", mdEscape(in.Path), mdEscape(in.ReadError))
		}
	}
}

func writeFindingsMarkdown(w io.Writer, fs []ledger.Finding) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintf(w, "### Findings\n\n")
	for _, f := range fs {
		loc := ""
		if f.File != "" {
			loc = fmt.Sprintf(" (`%s:%d`)", mdEscape(f.File), f.Line)
		}
		fmt.Fprintf(w, "- **%s** `%s`: %s%s  \n  %s\n", f.Severity, f.Kind, mdEscape(f.Message), loc, mdEscape(f.Advice))
	}
	fmt.Fprintln(w)
}

func (markdownRenderer) guard(w io.Writer, g *Guard) error {
	fmt.Fprintf(w, "## recomp guard: %s\n\n%s\n\n", verdict(g.Gate), mdEscape(g.Gate.Reason))
	for _, p := range g.Gate.Problems {
		fmt.Fprintf(w, "- **problem**: %s\n", mdEscape(p))
	}
	for _, f := range g.Gate.Failures {
		fmt.Fprintf(w, "- `%s:%d`: %s\n", mdEscape(f.File), f.Line, mdEscape(failureText(f)))
	}
	if len(g.Gate.Problems)+len(g.Gate.Failures) > 0 {
		fmt.Fprintln(w)
	}
	writeGuardExtrasMarkdown(w, g)
	writeScanMarkdown(w, "what the logs say", g.Scan)
	return nil
}

func (markdownRenderer) diff(w io.Writer, d *Diff) error {
	same, differ := d.Counts()
	fmt.Fprintf(w, "## recomp %s\n\n%d pair(s) compared: %d differ, %d identical, %d unpaired, %d unreadable.\n\n", d.command(),
		len(d.Pairs), differ, same, len(d.UnpairedA)+len(d.UnpairedB), len(d.Problems))
	identicalAdvice := ""
	for _, pr := range d.Pairs {
		fmt.Fprintf(w, "### `%s`\n\n`%s` → `%s`\n\n| cause | summary |\n|---|---|\n", mdEscape(pr.Label()), mdEscape(pr.A.Path), mdEscape(pr.B.Path))
		for _, c := range pr.Result.Causes {
			fmt.Fprintf(w, "| %s | %s |\n", c.Kind, mdEscape(c.Summary))
		}
		fmt.Fprintln(w)
		for _, c := range pr.Result.Causes {
			if c.Kind == diff.CauseIdentical {
				identicalAdvice = c.Advice
				continue
			}
			if len(c.Evidence) == 0 && c.Advice == "" {
				continue
			}
			fmt.Fprintf(w, "<details><summary>%s: evidence and advice</summary>\n\n", c.Kind)
			for _, ev := range c.Evidence {
				fmt.Fprintf(w, "- `%s`\n", mdEscape(ev))
			}
			fmt.Fprintf(w, "\n**Advice:** %s\n\n</details>\n\n", mdEscape(c.Advice))
		}
	}
	if identicalAdvice != "" {
		fmt.Fprintf(w, "**Advice for the identical pairs:** %s\n\n", mdEscape(identicalAdvice))
	}
	for _, f := range d.UnpairedA {
		fmt.Fprintf(w, "- only in A: `%s`\n", mdEscape(f))
	}
	for _, f := range d.UnpairedB {
		fmt.Fprintf(w, "- only in B: `%s`\n", mdEscape(f))
	}
	for _, p := range d.Problems {
		fmt.Fprintf(w, "- could not be read: `%s`\n", mdEscape(p.String()))
	}
	return nil
}

func (markdownRenderer) cache(w io.Writer, c *Cache) error {
	inv := c.Inventory
	fmt.Fprintf(w, "## recomp cache\n\n%s, %s (%s)\n\n| entry | kind | size | modified | status |\n|---|---|---:|---|---|\n",
		plural(inv.Count, "entry", "entries"), humanBytes(inv.Bytes), kindsLine(inv.ByKind))
	for _, e := range inv.Entries {
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s |\n", mdEscape(e.Dir+"/"+e.Name), e.Kind, humanBytes(e.Size),
			e.ModTime.UTC().Format("2006-01-02T15:04:05Z"), entryStatus(e, c.LogsGiven))
	}
	return nil
}
