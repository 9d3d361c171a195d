package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/recomp/recomp/cache"
)

type cacheCmd struct {
	Format string   `enum:"text,json,markdown" default:"text" help:"Output format: text, json or markdown."`
	Log    []string `help:"Logs of runs that used the cache: say which entries they hit, wrote or missed." placeholder:"LOG"`
	Dirs   []string `arg:"" name:"CACHE_DIR" help:"Executable-cache folders (TF-IPU executable_cache_path, PopART/PopTorch cachePath, JAX jax_compilation_cache_dir)."`
}

type cacheJSON struct {
	Version       int              `json:"version"`
	Dirs          []string         `json:"dirs"`
	Entries       int              `json:"entries"`
	Bytes         int64            `json:"bytes"`
	ByKind        map[string]int   `json:"by_kind"`
	UnusedEntries int              `json:"unused_entries"`
	UnusedBytes   int64            `json:"unused_bytes"`
	Listed        []cacheEntryJSON `json:"listed"`
	MissingMisses []string         `json:"missed_and_absent"`
	Warnings      []string         `json:"warnings"`
	Prune         string           `json:"prune_command"`
	LogsGiven     bool             `json:"logs_given"`
}

type cacheEntryJSON struct {
	Path    string `json:"path"`
	Kind    string `json:"kind"`
	Bytes   int64  `json:"bytes"`
	ModTime string `json:"mtime"`
	Status  string `json:"status"`
}

func (c *cacheCmd) Run(e *env) error {
	use := cache.NewLogUse()
	if len(c.Log) > 0 {
		inputs, err := loadLogs(c.Log, nil)
		if err != nil {
			return err
		}
		for _, in := range inputs {
			for _, ev := range in.events {
				use.Add(string(ev.Kind), ev.Path)
			}
		}
	}
	inv, err := cache.Take(c.Dirs, use)
	if err != nil {
		return usageErr("%v", err)
	}
	doc := cacheJSON{Version: jsonVersion, Dirs: c.Dirs, Entries: inv.Count, Bytes: inv.Bytes, ByKind: inv.ByKind,
		UnusedEntries: inv.Unused, UnusedBytes: inv.UnusedBytes, Listed: []cacheEntryJSON{},
		MissingMisses: nonNil(inv.MissingMisses), Warnings: nonNil(inv.Warnings), LogsGiven: len(c.Log) > 0}
	var unused []string
	for _, en := range inv.Entries {
		status := "untouched"
		switch {
		case en.Hit:
			status = "hit"
		case en.Written:
			status = "written"
		case en.Missed:
			status = "missed, then written"
		}
		if len(c.Log) == 0 {
			status = ""
		}
		path := filepath.Join(en.Dir, en.Name)
		doc.Listed = append(doc.Listed, cacheEntryJSON{Path: path, Kind: en.Kind, Bytes: en.Size,
			ModTime: en.ModTime.UTC().Format(time.RFC3339), Status: status})
		if status == "untouched" && en.Kind != cache.EntryLock {
			unused = append(unused, shellQuote(path))
		}
	}
	if len(unused) > 0 {
		doc.Prune = "rm -- " + strings.Join(unused, " ")
	}
	switch c.Format {
	case "json":
		return writeJSON(e.stdout, doc)
	case "markdown":
		writeCacheMarkdown(e.stdout, doc)
	default:
		writeCacheText(e.stdout, doc)
	}
	return nil
}

func shellQuote(s string) string {
	if strings.ContainsAny(s, " '\"$`\\!*?[]{}();&|<>~#") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}

func kindsLine(m map[string]int) string {
	var parts []string
	for _, k := range []string{cache.EntryTFIPU, cache.EntryTFIPUOld, cache.EntryPopEF, cache.EntryPopARTOld, cache.EntryJAX, cache.EntryLock, cache.EntryOther} {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	return strings.Join(parts, ", ")
}

func writeCacheText(w io.Writer, d cacheJSON) {
	fmt.Fprintf(w, "recomp cache: %s, %s (%s)\n", plural(d.Entries, "entry", "entries"), humanBytes(d.Bytes), kindsLine(d.ByKind))
	if d.LogsGiven {
		fmt.Fprintf(w, "  not used by the given runs: %s, %s\n", plural(d.UnusedEntries, "entry", "entries"), humanBytes(d.UnusedBytes))
	}
	if len(d.Listed) > 0 {
		fmt.Fprintln(w)
		t := &table{right: []bool{false, false, true, false, false}}
		t.add("ENTRY", "KIND", "SIZE", "MODIFIED", "STATUS")
		for _, en := range d.Listed {
			t.add(en.Path, en.Kind, humanBytes(en.Bytes), en.ModTime, en.Status)
		}
		t.write(w, "")
	}
	if shown := len(d.Listed); shown < d.Entries {
		fmt.Fprintf(w, "  (%d more entries counted, not listed)\n", d.Entries-shown)
	}
	for _, m := range d.MissingMisses {
		fmt.Fprintf(w, "missed and still absent: %s (the run looked for it and never wrote it: was the compile interrupted or the cache read-only?)\n", m)
	}
	for _, wn := range d.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wn)
	}
	if d.LogsGiven && d.Prune != "" {
		fmt.Fprintf(w, "\nrecomp never deletes anything. To remove the entries these runs did not use:\n  %s\n", d.Prune)
	}
}

func writeCacheMarkdown(w io.Writer, d cacheJSON) {
	fmt.Fprintf(w, "## recomp cache\n\n%s, %s (%s)\n\n| entry | kind | size | modified | status |\n|---|---|---:|---|---|\n",
		plural(d.Entries, "entry", "entries"), humanBytes(d.Bytes), kindsLine(d.ByKind))
	for _, en := range d.Listed {
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s |\n", mdEscape(en.Path), en.Kind, humanBytes(en.Bytes), en.ModTime, en.Status)
	}
}
