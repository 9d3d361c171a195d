package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/recomp/recomp/cache"
)

type guardCmd struct {
	Format        string `enum:"text,json,github,junit" default:"text" help:"Output format: text, json, github (workflow annotations) or junit."`
	Baseline      string `help:"Known-good families and hashes (written by --write-baseline): any compilation not in it fails." placeholder:"FILE" type:"path"`
	WriteBaseline string `name:"write-baseline" help:"Write the families and hashes of these logs to FILE as a baseline, and pass." placeholder:"FILE" type:"path"`
	MaxRecompiles int    `name:"max-recompiles" default:"0" help:"Tolerate up to N compilations after warm-up." placeholder:"N"`
	Loads         bool   `help:"Also fail on executable loads after warm-up (executables switching on the device)."`
	warmupFlags
	Logs []string `arg:"" name:"LOG" help:"Log files ('-' for stdin, .gz read transparently)."`
}

// baselineJSON is the --baseline file: module families and the graph hashes they compiled with.
type baselineJSON struct {
	Version  int                 `json:"version"`
	Families map[string][]string `json:"families"`
}

func (c *guardCmd) Run(e *env) error {
	if c.MaxRecompiles < 0 {
		return usageErr("--max-recompiles %d: want a number >= 0", c.MaxRecompiles)
	}
	opt, marker, err := c.options()
	if err != nil {
		return err
	}
	if c.Baseline != "" && (opt.Warmup > 0 || opt.AfterMarker) {
		return usageErr("--baseline replaces --warmup and --after: choose one")
	}
	var base *baselineJSON
	if c.Baseline != "" {
		if base, err = readBaseline(c.Baseline); err != nil {
			return usageErr("%v", err)
		}
	}
	inputs, err := loadLogs(c.Logs, marker)
	if err != nil {
		return err
	}
	rep := ledgerOf(inputs, opt)
	if c.WriteBaseline != "" {
		return writeBaseline(e, c.WriteBaseline, rep, c.Logs)
	}
	doc := scanDocument(inputs, rep)
	gate := evaluateGate(rep, base, c.MaxRecompiles, c.Loads)
	doc.Gate = &gate
	switch c.Format {
	case "json":
		err = writeJSON(e.stdout, doc)
	case "github":
		writeGitHub(e.stdout, gate)
	case "junit":
		err = writeJUnit(e.stdout, rep, gate)
	default:
		writeGuardText(e.stdout, gate, painter{e.color})
	}
	if err != nil {
		return err
	}
	if !gate.Passed {
		return found
	}
	return nil
}

func readBaseline(path string) (*baselineJSON, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var base baselineJSON
	if err := json.Unmarshal(b, &base); err != nil {
		return nil, fmt.Errorf("%s: not a recomp baseline: %v", path, err)
	}
	if base.Version != 1 {
		return nil, fmt.Errorf("%s: baseline version %d, this recomp reads version 1", path, base.Version)
	}
	return &base, nil
}

func writeBaseline(e *env, path string, rep *cache.Report, logs []string) error {
	for _, l := range logs {
		if l == path {
			return usageErr("--write-baseline %s would overwrite an input log", path)
		}
	}
	base := baselineJSON{Version: 1, Families: map[string][]string{}}
	for _, m := range rep.Modules {
		if m.Family == cache.Unnamed || m.Compilations == 0 {
			continue
		}
		base.Families[m.Family] = nonNil(m.Hashes)
	}
	f, err := os.Create(path)
	if err != nil {
		return usageErr("%v", err)
	}
	if err := writeJSON(f, base); err != nil {
		f.Close()
		return usageErr("%s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		return usageErr("%s: %v", path, err)
	}
	fmt.Fprintf(e.stdout, "recomp guard: wrote a baseline of %d module families to %s\n", len(base.Families), path)
	return nil
}

// evaluateGate lists what fails the gate: compilations after warm-up (or not in the baseline),
// and with loads, executable loads after warm-up.
func evaluateGate(rep *cache.Report, base *baselineJSON, allowed int, loads bool) gateJSON {
	g := gateJSON{Allowed: allowed, Failures: []gateFailureJSON{}}
	for _, u := range rep.Units {
		if !u.Compiled {
			continue
		}
		var why string
		switch {
		case base != nil:
			hashes, known := base.Families[u.Family]
			switch {
			case u.Family == cache.Unnamed:
				continue // nothing to compare against
			case !known:
				why = "module family not in the baseline"
			case u.Hash != "" && !slices.Contains(hashes, u.Hash):
				why = "graph hash not in the baseline: the graph changed"
			default:
				continue
			}
		case u.AfterWarmup:
			why = "compiled after warm-up"
		default:
			continue
		}
		f := gateFailureJSON{Module: u.Module, Family: u.Family, Hash: u.Hash, File: u.File, Line: u.Line,
			Kind: "compilation", Seconds: seconds(u.Duration), Message: why}
		if u.Why != "" {
			f.Reason = u.Producer + " said: " + cache.SummarizeWhy(u.Why)
		}
		g.Failures = append(g.Failures, f)
	}
	compilations := len(g.Failures)
	if loads {
		for _, ld := range rep.Loads {
			if ld.AfterWarmup {
				g.Failures = append(g.Failures, gateFailureJSON{File: ld.File, Line: ld.Line, Kind: "executable_load",
					Seconds: seconds(ld.Duration), Message: "executable loaded after warm-up: executables are switching on the device"})
			}
		}
	}
	switch {
	case compilations > allowed:
		g.Reason = fmt.Sprintf("%d compilation(s) after warm-up, %d allowed", compilations, allowed)
	case len(g.Failures) > compilations:
		g.Reason = fmt.Sprintf("%d executable load(s) after warm-up", len(g.Failures)-compilations)
	default:
		g.Passed = true
		g.Reason = fmt.Sprintf("%d compilation(s) after warm-up, %d allowed", compilations, allowed)
	}
	return g
}

func failureText(f gateFailureJSON) string {
	what := f.Message
	if f.Family != "" {
		what = f.Family + ": " + what
	}
	if f.Hash != "" {
		what += " (hash " + f.Hash + ")"
	}
	if f.Seconds > 0 {
		what += ", " + fmtSec(f.Seconds) + " lost"
	}
	if f.Reason != "" {
		what += "; " + f.Reason
	}
	return what
}

func writeGuardText(w io.Writer, g gateJSON, p painter) {
	verdict := "PASS"
	if !g.Passed {
		verdict = p.sev("FAIL")
	}
	fmt.Fprintf(w, "%s %s: %s\n", p.bold("recomp guard"), verdict, g.Reason)
	for _, f := range g.Failures {
		fmt.Fprintf(w, "  %s:%d: %s\n", f.File, f.Line, failureText(f))
	}
}

// writeGitHub writes GitHub Actions workflow commands: one ::error per failure.
func writeGitHub(w io.Writer, g gateJSON) {
	esc := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	prop := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
	for _, f := range g.Failures {
		level := "error"
		if g.Passed {
			level = "warning"
		}
		fmt.Fprintf(w, "::%s file=%s,line=%d,title=%s::%s\n", level, prop.Replace(f.File), f.Line,
			prop.Replace("recomp guard: "+f.Kind), esc.Replace(failureText(f)))
	}
	level := "notice"
	if !g.Passed {
		level = "error"
	}
	fmt.Fprintf(w, "::%s title=recomp guard::%s\n", level, esc.Replace(g.Reason))
}

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      float64       `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// writeJUnit writes one test case per module family (and one for executable loads).
func writeJUnit(w io.Writer, rep *cache.Report, g gateJSON) error {
	byFamily := map[string][]gateFailureJSON{}
	var loads []gateFailureJSON
	for _, f := range g.Failures {
		if f.Kind == "executable_load" {
			loads = append(loads, f)
		} else {
			byFamily[f.Family] = append(byFamily[f.Family], f)
		}
	}
	suite := junitSuite{Name: "recomp guard"}
	add := func(name string, time float64, fails []gateFailureJSON) {
		c := junitCase{Name: name, ClassName: "recomp.guard", Time: time}
		if len(fails) > 0 && !g.Passed {
			var body []string
			for _, f := range fails {
				body = append(body, fmt.Sprintf("%s:%d: %s", f.File, f.Line, failureText(f)))
			}
			c.Failure = &junitFailure{Message: fails[0].Message, Type: fails[0].Kind, Body: strings.Join(body, "\n")}
			suite.Failures++
		}
		suite.Cases = append(suite.Cases, c)
		suite.Tests++
	}
	var fams []string
	times := map[string]float64{}
	for _, m := range rep.Modules {
		fams = append(fams, m.Family)
		times[m.Family] = seconds(m.CompileTime)
	}
	sort.Strings(fams)
	for _, f := range fams {
		add(f, times[f], byFamily[f])
	}
	if len(loads) > 0 {
		add("executable loads after warm-up", 0, loads)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitSuites{Suites: []junitSuite{suite}}); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
