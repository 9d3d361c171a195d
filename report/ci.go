package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/recomp/recomp/across"
	"github.com/recomp/recomp/gate"
)

// githubRenderer writes GitHub Actions workflow commands: one ::error per gate failure or
// problem, and a summary.
func writeGitHub(w io.Writer, g *across.Guard, st Style) error {
	gr := g.Gate
	for _, p := range gr.Problems {
		fmt.Fprintf(w, "::error title=%s::%s\n", ghProp("recomp guard: no verdict"), ghData(p))
	}
	for _, f := range gr.Failures {
		level := "error"
		if gr.Passed {
			level = "warning"
		}
		file, line, msg := f.File, f.Line, failureText(f)
		if rel, ok := repoPath(f.Site.File, st.Root); ok && f.Site.Line > 0 {
			// the user's own line, which a pull request shows; the log's line is in the message
			file, line = rel, f.Site.Line
			msg = fmt.Sprintf("%s (%s:%d)", msg, f.File, f.Line)
		}
		fmt.Fprintf(w, "::%s file=%s,line=%d,title=%s::%s\n", level, ghProp(file), line,
			ghProp("recomp guard: "+string(f.Kind)), ghData(msg))
	}
	level := "notice"
	if !gr.Passed {
		level = "error"
	}
	fmt.Fprintf(w, "::%s title=recomp guard::%s\n", level, ghData(gr.Reason))
	return nil
}

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      float64       `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Error     *junitFailure `xml:"error,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// visibleAll is visible of each string.
func visibleAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = visible(x)
	}
	return out
}

// junitRenderer writes one test case per module family, one for executable loads, and one
// error case when the gate could not judge. Text from the logs is shown with visible: XML 1.0
// has no way to write most control characters, and a failure is one line of its body.
func writeJUnit(w io.Writer, g *across.Guard) error {
	gr := g.Gate
	byFamily := map[string][]gate.Failure{}
	var loads []gate.Failure
	for _, f := range gr.Failures {
		if f.Kind == gate.FailLoad {
			loads = append(loads, f)
		} else {
			byFamily[f.Family] = append(byFamily[f.Family], f)
		}
	}
	suite := junitSuite{Name: "recomp guard"}
	add := func(name string, time float64, fails []gate.Failure) {
		c := junitCase{Name: visible(name), ClassName: "recomp.guard", Time: time}
		if len(fails) > 0 && !gr.Passed {
			var body []string
			for _, f := range fails {
				body = append(body, visible(fmt.Sprintf("%s:%d: %s", f.File, f.Line, failureText(f))))
			}
			c.Failure = &junitFailure{Message: visible(fails[0].Message), Type: string(fails[0].Kind), Body: strings.Join(body, "\n")}
			suite.Failures++
		}
		suite.Cases = append(suite.Cases, c)
		suite.Tests++
	}
	if gr.Inconclusive {
		suite.Cases = append(suite.Cases, junitCase{Name: "evidence", ClassName: "recomp.guard",
			Error: &junitFailure{Message: visible(gr.Reason), Type: "inconclusive", Body: strings.Join(visibleAll(gr.Problems), "\n")}})
		suite.Tests++
		suite.Errors++
	}
	var fams []string
	times := map[string]float64{}
	for _, m := range g.Scan.Ledger.Modules {
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

// RepoRoot is the repository GitHub annotations name the program's files relative to (Style's
// Root): the workflow's checkout (GITHUB_WORKSPACE), else the working directory.
func RepoRoot() string {
	if w := os.Getenv("GITHUB_WORKSPACE"); w != "" {
		return w
	}
	wd, _ := os.Getwd()
	return wd
}

// repoPath is a program's file as a path relative to the repository root, when it is under it:
// an absolute path under root, or a relative one that does not climb out.
func repoPath(file, root string) (string, bool) {
	if file == "" || root == "" {
		return "", false
	}
	if !filepath.IsAbs(file) {
		clean := filepath.ToSlash(filepath.Clean(file))
		return clean, !strings.HasPrefix(clean, "../") && clean != ".."
	}
	rel, err := filepath.Rel(root, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
