// Package skipped makes the tests that skip for want of something outside the repository (a
// live framework's virtual environment, Chromium, the shared corpus) visible at the end of
// `go test`, which otherwise prints `ok` for a package whose tests skipped and shows the skips
// only with -v.
//
// Such a test calls Skip: it records what was skipped and how to run it, then skips. A package
// with such tests, and the package `go test ./...` tests last (verdict), run their tests
// through Main. When its tests are done, Main asks whether its package is the last one the go
// command tests (go list of the go command's own arguments); the last one waits until the go
// command has nothing else running, and writes one line to the go command's standard output:
// what was skipped, counted by kind, and how to run it. The records live in a folder under
// os.TempDir named by the go command's process (its id and start time), which the last package
// removes.
//
// It is best effort and never fails a test: without /proc (not Linux), under `go test -json`
// (a line would break the JSON stream), or when the tests were not started by a go command
// (a test binary run by hand), Skip only skips and Main only runs the tests.
package skipped

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Kind is what a test needs and did not find; its how says what gets it.
type Kind struct {
	what, how string
}

// The kinds of skip the line names.
var (
	// Corpus: the real third-party corpus beside the project, ../shared/corpus.
	Corpus = Kind{"of the shared corpus", "put it in ../shared, or run .ci/run"}
	// Browser: Debian's Chromium, which opens the HTML report as a person would.
	Browser = Kind{"in a browser", "apt-get install chromium or set RECOMP_CHROMIUM"}
	// Live: a real framework run from the virtual environment of a matrix, whose Python a
	// variable names (RECOMP_LIVE_JAX_0_12 for jax-0.12); the detail is the variable.
	Live = Kind{"of live runs", "set each to what testdata/runs/gen/venv.sh testdata/runs/gen/MATRIX.txt prints, or run .ci/run"}
)

// Skip records that tb skipped for want of kind (detail: which one, "" when there is one),
// then skips it with why.
func Skip(tb testing.TB, kind Kind, detail, why string) {
	tb.Helper()
	if dir := recordDir(); dir != "" {
		if os.MkdirAll(dir, 0o700) == nil {
			if f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(os.Getpid())), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
				fmt.Fprintf(f, "%s\t%s\t%s\n", kind.what, kind.how, detail)
				f.Close()
			}
		}
	}
	tb.Skip("SKIPPED LOUDLY: " + why)
}

// Main runs the tests (m is a *testing.M), and, when its package is the last the go command
// tests, says at the end of the go command's output what all its packages skipped. It returns
// m.Run's exit code.
func Main(m interface{ Run() int }) int {
	start := time.Now()
	code := m.Run()
	goPID := os.Getppid()
	dir := recordDir()
	if dir == "" || !lastPackage(goPID) {
		return code
	}
	sweep()
	waitAlone(goPID, waitLimit(time.Since(start)))
	time.Sleep(300 * time.Millisecond) // for the go command to print the ok lines of those that just ended
	defer os.RemoveAll(dir)
	line := Line(dir)
	if line == "" {
		return code
	}
	if !appendSafe(goPID) {
		return code
	}
	if out, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/1", goPID), os.O_WRONLY|os.O_APPEND, 0); err == nil {
		fmt.Fprintln(out, line)
		out.Close()
	}
	return code
}

// appendSafe says whether a line written to the go command's standard output from here lands
// after what go wrote and before what it writes next: a terminal or a pipe, or a file go writes
// in append mode (>>). A file go writes at its own offset (>) is not: go's next lines would be
// written over the line, so none is written.
func appendSafe(goPID int) bool {
	st, err := os.Stat(fmt.Sprintf("/proc/%d/fd/1", goPID))
	if err != nil {
		return false
	}
	if !st.Mode().IsRegular() {
		return true
	}
	info, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/1", goPID))
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(info), "\n") {
		if v, ok := strings.CutPrefix(l, "flags:"); ok {
			flags, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
			return err == nil && flags&uint64(os.O_APPEND) != 0
		}
	}
	return false
}

// Line is the line the records in dir make: "go test: skipped N tests KIND (DETAILS: HOW); ...",
// the kinds in a fixed order; "" when there are none.
func Line(dir string) string {
	entries, _ := os.ReadDir(dir)
	type kind struct {
		n       int
		details []string
	}
	kinds := map[Kind]*kind{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			f := strings.Split(l, "\t")
			if len(f) != 3 {
				continue
			}
			k := Kind{f[0], f[1]}
			if kinds[k] == nil {
				kinds[k] = &kind{}
			}
			kinds[k].n++
			if f[2] != "" && !slices.Contains(kinds[k].details, f[2]) {
				kinds[k].details = append(kinds[k].details, f[2])
			}
		}
	}
	if len(kinds) == 0 {
		return ""
	}
	// the packages ran in parallel: the order of the records says nothing
	order := slices.SortedFunc(maps.Keys(kinds), func(a, b Kind) int { return strings.Compare(a.what, b.what) })
	var parts []string
	for _, k := range order {
		c := kinds[k]
		noun := "tests"
		if c.n == 1 {
			noun = "test"
		}
		how := k.how
		if len(c.details) > 0 {
			slices.Sort(c.details)
			how = strings.Join(c.details, ", ") + " not set: " + how
		}
		parts = append(parts, fmt.Sprintf("%d %s %s (%s)", c.n, noun, k.what, how))
	}
	return "go test: skipped " + strings.Join(parts, "; ")
}

// sweep removes the record folders of go commands that ended without a last package to
// report them (go test ./runner skips nothing it records, and says nothing).
func sweep() {
	old, _ := filepath.Glob(filepath.Join(os.TempDir(), "recomp-skipped-*-*"))
	for _, dir := range old {
		var pid int
		var start string
		if _, err := fmt.Sscanf(filepath.Base(dir), "recomp-skipped-%d-%s", &pid, &start); err != nil {
			continue
		}
		if started(pid) != start {
			os.RemoveAll(dir)
		}
	}
}

// started is the start time of process pid (field 22 of its stat, in clock ticks since boot),
// "" when there is no such process.
func started(pid int) string {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	_, rest, _ := bytes.Cut(stat, []byte(") "))
	f := strings.Fields(string(rest))
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// goCommand returns the command line of the go command that runs this test binary, nil when
// the parent is no go command or /proc cannot say.
func goCommand(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return nil
	}
	args := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	if len(args) < 2 || filepath.Base(args[0]) != "go" || args[1] != "test" {
		return nil
	}
	return args
}

// recordDir is the folder of this go command's records, "" when there is no go command to
// report to or its output is JSON.
func recordDir() string {
	pid := os.Getppid()
	args := goCommand(pid)
	if args == nil || slices.ContainsFunc(args, func(a string) bool { return a == "-json" || strings.HasPrefix(a, "-json=") }) {
		return ""
	}
	// the start time tells this go command from an earlier one with the same id
	start := started(pid)
	if start == "" {
		return ""
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("recomp-skipped-%d-%s", pid, start))
}

// valueFlags are the go test flags that take their value as the next argument.
var valueFlags = map[string]bool{
	"run": true, "skip": true, "count": true, "timeout": true, "p": true, "tags": true, "bench": true,
	"benchtime": true, "cpu": true, "parallel": true, "coverprofile": true, "covermode": true,
	"coverpkg": true, "o": true, "exec": true, "vet": true, "list": true, "shuffle": true, "fuzz": true,
	"fuzztime": true, "fuzzminimizetime": true, "C": true, "ldflags": true, "gcflags": true,
	"asmflags": true, "mod": true, "modfile": true, "overlay": true, "pgo": true, "buildvcs": true,
	"compiler": true, "gccgoflags": true, "installsuffix": true, "pkgdir": true, "toolexec": true,
	"blockprofile": true, "blockprofilerate": true, "cpuprofile": true, "memprofile": true,
	"memprofilerate": true, "mutexprofile": true, "mutexprofilefraction": true, "outputdir": true,
	"trace": true,
}

// listArgs are the arguments of go list that name the packages a go test command line tests:
// its build tags and its package arguments, without the test flags and what follows -args.
func listArgs(args []string) []string {
	var list []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case a == "-args":
			i = len(args)
		case !strings.HasPrefix(a, "-"):
			list = append(list, a)
		case name == "tags" && hasValue:
			list = append(list, "-tags="+value)
		case name == "tags" && i+1 < len(args):
			list = append(list, "-tags="+args[i+1])
			i++
		case valueFlags[name] && !hasValue:
			i++
		}
	}
	return list
}

// lastPackage says whether the package under test is the last the go command tests: the last
// that go list names for its arguments.
func lastPackage(goPID int) bool {
	args := goCommand(goPID)
	if args == nil {
		return false
	}
	list := listArgs(args[2:])
	cmd := exec.Command(fmt.Sprintf("/proc/%d/exe", goPID), append([]string{"list", "-e", "-f", "{{.Dir}}"}, list...)...)
	if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", goPID)); err == nil {
		cmd.Dir = cwd
	}
	out, err := cmd.Output()
	if err != nil {
		return false
	}
	dirs := strings.Fields(string(out))
	here, err := os.Getwd() // a test runs in its package's folder
	return err == nil && len(dirs) > 0 && dirs[len(dirs)-1] == here
}

// waitLimit is how long Main waits for the other packages once its tests took ran: 5 minutes
// at most, and no longer than what is left of -timeout (the go command kills a test binary a
// minute past it).
func waitLimit(ran time.Duration) time.Duration {
	limit := 5 * time.Minute
	if f := flag.Lookup("test.timeout"); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			if d, ok := g.Get().(time.Duration); ok && d > 0 {
				limit = min(limit, d-ran)
			}
		}
	}
	return limit
}

// waitAlone waits, at most for limit, until the go command runs nothing but this test binary:
// the other packages' tests have ended, and with them their records.
func waitAlone(goPID int, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if !othersRunning(goPID) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// othersRunning says whether the go command has a child other than this process.
func othersRunning(goPID int) bool {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	me := os.Getpid()
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == me {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		_, rest, _ := bytes.Cut(stat, []byte(") "))
		f := strings.Fields(string(rest))
		if len(f) > 1 && f[1] == strconv.Itoa(goPID) && f[0] != "Z" {
			return true
		}
	}
	return false
}
