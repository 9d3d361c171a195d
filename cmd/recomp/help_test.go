package main

import (
	"bytes"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/report"
)

// leafCommands is every command a user can run, by its path ("scan", "hlo check").
func leafCommands(t *testing.T) []string {
	t.Helper()
	var c cli
	p, err := newParser(&c, io.Discard, io.Discard, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range p.Model.Leaves(false) {
		out = append(out, n.FullPath()[len("recomp")+1:])
	}
	if len(out) < 10 {
		t.Fatalf("only %d commands found: %v", len(out), out)
	}
	return out
}

// TestHelpHasExampleAndExitCodes: each command's --help shows one example, an example recomp
// parses, and the exit codes that command can end with.
func TestHelpHasExampleAndExitCodes(t *testing.T) {
	for _, cmd := range leafCommands(t) {
		code, out, errb := runRecomp(append(strings.Fields(cmd), "--help")...)
		if code != 0 || errb != "" {
			t.Errorf("recomp %s --help: exit %d, stderr %q", cmd, code, errb)
		}
		m := regexp.MustCompile(`(?m)^Example:\n  (recomp .*)$`).FindStringSubmatch(out)
		if m == nil {
			t.Errorf("recomp %s --help shows no example:\n%s", cmd, out)
			continue
		}
		if !strings.HasPrefix(m[1], "recomp "+cmd+" ") {
			t.Errorf("recomp %s --help: its example runs another command: %s", cmd, m[1])
		}
		args, _, _ := strings.Cut(m[1], " #") // a comment may follow the command
		var c cli
		p, err := newParser(&c, io.Discard, io.Discard, func(int) {})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Parse(strings.Fields(args)[1:]); err != nil {
			t.Errorf("recomp %s --help: its example %q does not parse: %v", cmd, m[1], err)
		}
		exits := regexp.MustCompile(`(?m)^Exit codes:\n((?:  .*\n?)+)`).FindStringSubmatch(out)
		if exits == nil {
			t.Errorf("recomp %s --help lists no exit codes:\n%s", cmd, out)
			continue
		}
		for _, want := range []string{"  0 ", "  2 ", "  3 "} {
			if !strings.Contains(exits[1], want) {
				t.Errorf("recomp %s --help: the exit codes lack %q:\n%s", cmd, want, exits[1])
			}
		}
	}
}

// TestHelpExitCodesAreTheCode pins the exit codes each command's help lists, as read from its
// Run: 1 where it finds something (exitFound), 4 for run's stop (exitStopped) and N for run's
// child, none beyond 0, 2 and 3 for scan, cache and hlo.
func TestHelpExitCodesAreTheCode(t *testing.T) {
	for cmd, want := range map[string][]string{
		"scan": {"0", "2", "3"}, "cache": {"0", "2", "3"}, "hlo fingerprint": {"0", "2", "3"}, "hlo check": {"0", "2", "3"},
		"diff": {"0", "1", "2", "3"}, "explain": {"0", "1", "2", "3"}, "guard": {"0", "1", "2", "3"},
		"ranks": {"0", "1", "2", "3"}, "watch": {"0", "1", "2", "3"}, "run": {"0", "1", "2", "3", "4", "N"},
	} {
		_, out, _ := runRecomp(append(strings.Fields(cmd), "--help")...)
		_, exits, _ := strings.Cut(out, "\nExit codes:\n")
		var got []string
		for _, m := range regexp.MustCompile(`(?m)^  (\S+) `).FindAllStringSubmatch(exits, -1) {
			got = append(got, m[1])
		}
		if !slices.Equal(got, want) {
			t.Errorf("recomp %s --help lists exit codes %v, want %v", cmd, got, want)
		}
	}
}

// TestHelpFormatsPerCommand: --format's help names the formats that command writes, no more.
func TestHelpFormatsPerCommand(t *testing.T) {
	for _, cmd := range []string{"scan", "diff", "explain", "guard", "ranks", "cache"} {
		_, out, _ := runRecomp(cmd, "--help")
		flat := regexp.MustCompile(`\s+`).ReplaceAllString(out, " ")
		var names []string
		for _, f := range report.Formats(cmd) {
			names = append(names, string(f))
		}
		want := "--format=FORMAT Output format: " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1] + " (default: text)."
		if !strings.Contains(flat, want) {
			t.Errorf("recomp %s --help lacks %q:\n%s", cmd, want, out)
		}
		if cmd != "guard" && (strings.Contains(out, "github") || strings.Contains(out, "junit")) {
			t.Errorf("recomp %s --help offers a format it does not write:\n%s", cmd, out)
		}
	}
}

// TestHelpShowsDefaults: a flag with a placeholder still says its default; --fail-on-recompile
// says the exit code it ends with under each command.
func TestHelpShowsDefaults(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--help"}, []string{"--grace=DURATION How long", "(default: 3s)", "--stop-grace=DURATION", "(default: 5s)",
			"--max-hlo-mib=MIB", "(default: 512)", "recomp exits 4", "(default: on)"}},
		{[]string{"watch", "--help"}, []string{"(default: 250ms)", "--fail-on-recompile", "Exit 1 at the first compilation"}},
		{[]string{"guard", "--help"}, []string{"--max-recompiles=N Tolerate up to N compilations after warm-up (default: 0)."}},
	} {
		_, out, _ := runRecomp(c.args...)
		flat := regexp.MustCompile(`\s+`).ReplaceAllString(out, " ")
		for _, w := range c.want {
			if !strings.Contains(flat, w) {
				t.Errorf("recomp %s lacks %q:\n%s", strings.Join(c.args, " "), w, out)
			}
		}
	}
	_, out, _ := runRecomp("run", "--help")
	flat := regexp.MustCompile(`\s+`).ReplaceAllString(out, " ")
	for _, f := range []string{"grace", "stop-grace"} {
		if !regexp.MustCompile(`--` + f + `=DURATION [^-]*\(default: \d+s\)`).MatchString(flat) {
			t.Errorf("recomp run --help: --%s does not say its default:\n%s", f, out)
		}
	}
}

// TestHelpNamesEveryStack: the summary at the top names every stack recomp reads.
func TestHelpNamesEveryStack(t *testing.T) {
	_, out, _ := runRecomp("--help")
	flat := regexp.MustCompile(`\s+`).ReplaceAllString(out, " ")
	for _, f := range frameworks.All() {
		if !strings.Contains(flat, f.Title) {
			t.Errorf("recomp --help does not name %s:\n%s", f.Title, out)
		}
	}
	if !strings.Contains(flat, "AWS Neuron") {
		t.Errorf("recomp --help does not name AWS Neuron:\n%s", out)
	}
}

// TestMistypedCommand: a command recomp does not know is an error that points at the help of
// what was typed, with no empty command name in it.
func TestMistypedCommand(t *testing.T) {
	for args, want := range map[string]string{
		"scna":    "recomp: error: unexpected argument scna, did you mean \"scan\"?\nrun 'recomp --help' for usage\n",
		"hlo foo": "recomp: error: unexpected argument foo\nrun 'recomp hlo --help' for usage\n",
	} {
		code, out, errb := runRecomp(strings.Fields(args)...)
		if code != exitUsage || out != "" || errb != want {
			t.Errorf("recomp %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, code, out, errb, want)
		}
	}
}

// TestPlumbingIsCLI: a command line that starts with session is parsed by the plumbing grammar
// alone (plumbing); what it prints and how it ends are what the whole grammar gives.
func TestPlumbingIsCLI(t *testing.T) {
	whole := func(args []string) (int, string, string) {
		var out, errb bytes.Buffer
		code := func() (code int) {
			defer func() {
				if k, ok := recover().(kongExit); ok {
					code = int(k)
				}
			}()
			var c cli
			p, err := newParser(&c, &out, &errb, func(code int) { panic(kongExit(code)) })
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Parse(args); err != nil {
				return -1
			}
			return 0
		}()
		return code, out.String(), errb.String()
	}
	var plumbing []string
	for _, cmd := range leafCommands(t) {
		if strings.HasPrefix(cmd, "session ") {
			plumbing = append(plumbing, cmd)
		}
	}
	if len(plumbing) < 4 {
		t.Fatalf("session commands: %v", plumbing)
	}
	for _, cmd := range append(plumbing, "session") {
		args := append(strings.Fields(cmd), "--help")
		code, out, errb := runRecomp(args...)
		wcode, wout, werrb := whole(args)
		if code != wcode || out != wout || errb != werrb {
			t.Errorf("recomp %s --help: exit %d, %q %q; the whole grammar: exit %d, %q %q", cmd, code, out, errb, wcode, wout, werrb)
		}
		if !strings.Contains(out, "--log-level") {
			t.Errorf("recomp %s --help lacks the global flags:\n%s", cmd, out)
		}
	}
	if code, _, errb := runRecomp("session", "open", "--dump", "bogus"); code != exitUsage || !strings.Contains(errb, "--dump") {
		t.Errorf("recomp session open --dump bogus: exit %d, %q", code, errb)
	}
}
