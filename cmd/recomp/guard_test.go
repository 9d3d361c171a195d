package main

import (
	"encoding/xml"
	"regexp"
	"strings"
	"testing"
)

// The GitHub annotations and the JUnit report are parsed back the way CI systems read them.

var reAnnotation = regexp.MustCompile(`^::(error|warning|notice) ([^:]*)::(.*)$`)

// junitSuites is JUnit XML as CI systems read it.
type junitSuites struct {
	Suites []struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Name    string  `xml:"name,attr"`
			Time    float64 `xml:"time,attr"`
			Failure *struct {
				Body string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestGuardGitHubAnnotations(t *testing.T) {
	code, out, _ := runRecomp("guard", "--format", "github", example+"/run.log")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one annotation per failure and a summary, got %q", lines)
	}
	m := reAnnotation.FindStringSubmatch(lines[0])
	if m == nil || m[1] != "error" {
		t.Fatalf("not an annotation: %q", lines[0])
	}
	props := map[string]string{}
	for _, kv := range strings.Split(m[2], ",") {
		k, v, _ := strings.Cut(kv, "=")
		props[k] = strings.NewReplacer("%3A", ":", "%2C", ",", "%25", "%").Replace(v)
	}
	if props["file"] != example+"/run.log" || props["line"] != "26" || props["title"] != "recomp guard: compilation" {
		t.Errorf("properties %v", props)
	}
	if !strings.Contains(m[3], "compiled after warm-up (hash 0x0c41d2e9a8f7b6a5)") {
		t.Errorf("message %q", m[3])
	}
	if s := reAnnotation.FindStringSubmatch(lines[1]); s == nil || s[1] != "error" || s[3] != "1 compilation(s) after warm-up, 0 allowed" {
		t.Errorf("summary %q", lines[1])
	}
}

func TestGuardJUnit(t *testing.T) {
	code, out, _ := runRecomp("guard", "--format", "junit", "--loads", "--after", "Epoch 2/", example+"/run.log")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	var doc junitSuites
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, out)
	}
	s := doc.Suites[0]
	if s.Tests != 3 || s.Failures != 2 || len(s.Cases) != 3 {
		t.Fatalf("suite %+v", s)
	}
	train := s.Cases[1]
	if train.Name != "a_inference_train_step_N__XlaMustCompile_true__" || train.Failure == nil ||
		!strings.Contains(train.Failure.Body, "run.log:26:") || train.Time != 168 {
		t.Errorf("train case %+v", train)
	}
	if s.Cases[0].Failure != nil {
		t.Errorf("the test step was served from the cache: %+v", s.Cases[0])
	}
	if loads := s.Cases[2]; loads.Name != "executable loads after warm-up" || loads.Failure == nil {
		t.Errorf("loads case %+v", loads)
	}
}
