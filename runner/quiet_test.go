package runner

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/internal/livetest"
	"github.com/recomp/recomp/runfolder"
)

var testQuiet = &Quiet{
	Lines: []*lazyre.Regexp{
		lazyre.New(`Finished XLA compilation of \S+ in|Compiling \S+ with global shapes and types`),
		lazyre.New(`TRACING CACHE MISS at `),
		lazyre.New(`^Execution Analysis: `),
		lazyre.New(`^I\d{4} \d\d:\d\d:\d+\.\d+ +-?\d+ \S+:\d+\] `),
	},
	Continued: []bool{false, true, false, false},
}

// The compile logging recomp switched on stays out of the terminal: whole lines, a record and
// its indented explanation, lines glued after a bar's last frame; the program's own output,
// its progress bars and an indented line of its own come through unchanged.
func TestQuietWriter(t *testing.T) {
	var screen livetest.Buffer
	qw := newQuietWriter(&screen, testQuiet)
	for _, chunk := range []string{
		"epoch 1\n",
		"Compiling jit(f) with global shapes and types (x). Argument mapping: (y).\nFinished XLA ",
		"compilation of jit(f) in 0.1 sec\n",
		"  10/16 [===>   ]\r  16/16 [======]\rTRACING CACHE MISS at a.py:1 (f):\n",
		"  for f defined at a.py:1\n  * at x, now f32[24] and before f32[32]\n",
		"loss 0.5\n  an indented line of the program's own\n",
		"Execution Analysis: Graph Hash: 1\r\n",
		"\r1/4 [==] loss: 1.1589I0000 00:00:1795514674.274491   22776 device_compilation_profiler.cc:113] Compiled f 2 times\n",
		"\r\x1b[1m2/4\x1b[0mI1124 10:02:03.123456 1 device_compilation_profiler.cc:113] Compiled f 3 times\n",
		"Status: OK, CPU Info I0000 is the program's own\n",
		"\nExecution Analysis: x\n\n",
		"step 2\n\n\nstep 3\n",
		"Enter a value: ",
	} {
		qw.Write([]byte(chunk))
	}
	// A prompt that waits for input is shown once holdFor passes without output: waited for
	// (a loaded machine runs the timer late), up to 50 times holdFor.
	for deadline := time.Now().Add(50 * qw.holdFor); !strings.HasSuffix(screen.String(), "Enter a value: "); {
		if time.Now().After(deadline) {
			t.Fatalf("the prompt is held back: %q", screen.String())
		}
		time.Sleep(qw.holdFor / 10)
	}
	qw.Write([]byte("42\nInfo at the end without newline"))
	qw.Close()
	want := "epoch 1\n  10/16 [===>   ]\r  16/16 [======]\rloss 0.5\n  an indented line of the program's own\n" +
		"\r1/4 [==] loss: 1.1589\r\x1b[1m2/4\x1b[0m" + "Status: OK, CPU Info I0000 is the program's own\n" + "step 2\n\n\nstep 3\n" +
		"Enter a value: 42\nInfo at the end without newline"
	if got := screen.String(); got != want {
		t.Errorf("terminal\n got %q\nwant %q", got, want)
	}
}

// Under recomp run, the command's terminal (a pseudo-terminal) shows the program's output
// without the logging recomp switched on; run.log keeps every line.
func TestQuietUnderATerminal(t *testing.T) {
	_, tty, screen := recompsTerminal(t, 24, 80)
	var log livetest.Buffer
	script := `echo 'step 1'; echo 'Compiling jit(f) with global shapes and types (x). Argument mapping: (y).'; ` +
		`printf 'TRACING CACHE MISS at a.py:1 (f):\n  for f defined at a.py:1\n'; printf 'bar 1/2\rbar 2/2\r'; echo 'step 2'`
	res, err := Run(Options{Command: []string{"sh", "-c", script}, Stdout: tty, Stderr: tty, Terminal: true, Log: &log, Quiet: testQuiet})
	if err != nil || res.ExitCode != 0 {
		t.Fatal(err, res)
	}
	for i := 0; !strings.Contains(screen.String(), "step 2"); i++ {
		if i > 2000 { // 20 s: a loaded machine is slow
			t.Fatalf("recomp's terminal shows %q", screen.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	got := screen.String()
	if strings.Contains(got, "Compiling") || strings.Contains(got, "TRACING") || strings.Contains(got, "defined at") ||
		!strings.Contains(got, "step 1") || !strings.Contains(got, "bar 2/2\rstep 2") {
		t.Errorf("terminal shows %q", got)
	}
	for _, w := range []string{"Compiling jit(f)", "TRACING CACHE MISS", "  for f defined at", "step 2"} {
		if !strings.Contains(log.String(), w) {
			t.Errorf("run.log lacks %q: %q", w, log.String())
		}
	}
}

// Empty lines are the program's own unless they border a quiet line: those the output ends
// with, and those between lines of the program's, come through.
func TestQuietBlankLines(t *testing.T) {
	var screen livetest.Buffer
	qw := newQuietWriter(&screen, testQuiet)
	qw.Write([]byte("a\n\nComputation\n\n\nExecution Analysis: 1\n\nb\n\n"))
	qw.Close()
	if got, want := screen.String(), "a\n\nComputation\nb\n\n"; got != want {
		t.Errorf("terminal %q, want %q", got, want)
	}
}

// BenchmarkQuietWriter passes a program's output through the quiet filter of every stack's
// settings: ordinary lines, and long lines full of capitals after spaces (each a place a glued
// record could start), the worst case of gluedAt.
func BenchmarkQuietWriter(b *testing.B) {
	settings, _ := Evidence(runfolder.FrameworkAuto, runfolder.DumpNone, "", "", nil, nil)
	q := QuietOf(settings)
	for _, c := range []struct {
		name string
		line string
	}{
		{"ordinary", "Epoch 3/10 step 120 loss 0.5342 accuracy 0.87 Learning Rate 0.001\n"},
		{"capitals", strings.Repeat("A B C D E F G H ", 4000) + "\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			qw := newQuietWriter(io.Discard, q)
			data := []byte(strings.Repeat(c.line, max(1, 64<<10/len(c.line))))
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				qw.Write(data)
			}
			qw.Close()
		})
	}
}

// The literals the filter looks for before running an expression are in every line the
// expression matches: over every line of the example runs, the filter with them and without
// them says the same. And they are found where they exist.
func TestRequiredLiteralsAreRequired(t *testing.T) {
	settings, _ := Evidence(runfolder.FrameworkAuto, runfolder.DumpNone, "", "", nil, nil)
	q := QuietOf(settings)
	q.once.Do(q.compile)
	withLiterals := 0
	for _, n := range q.needs {
		if n != nil {
			withLiterals++
		}
	}
	if withLiterals < 4 {
		t.Errorf("only %d of %d expressions have literals to look for: %q", withLiterals, len(q.Lines), q.needs)
	}
	logs, _ := filepath.Glob("../testdata/runs/*/*/run.log")
	if len(logs) < 40 {
		t.Fatalf("%d example runs", len(logs))
	}
	matched := 0
	for _, p := range logs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range bytes.Split(b, []byte("\n")) {
			for _, seg := range bytes.Split(line, []byte("\r")) {
				for i, re := range q.Lines {
					if re.Match(seg) {
						matched++
						if !q.mayMatch(i, seg) {
							t.Errorf("%s:%d: %s matches, but no literal of %q is in %q", p, n+1, re, q.needs[i], seg)
						}
					}
				}
			}
		}
	}
	if matched < 1000 {
		t.Errorf("only %d lines matched: the check says little", matched)
	}
	for src, want := range map[string]string{
		`TRACING CACHE MISS at |PERSISTENT COMPILATION CACHE MISS for `:   `[TRACING CACHE MISS at  PERSISTENT COMPILATION CACHE MISS for ]`,
		`\b(?:device_compiler\.h|device_compilation_profiler\.cc):\d+\] `: `[device_compil]`,
		`Compiling \S+ (?:\(\d+\) )?for args|x+`:                          `[]`,
		`(?i)compiling`:                                                   `[]`,
	} {
		tree, err := syntax.Parse(src, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(requiredLiterals(tree.Simplify())); got != want {
			t.Errorf("requiredLiterals(%s) = %s, want %s", src, got, want)
		}
	}
}

// Under a launcher that tags each rank's lines (torchrun's [rank2]: and [default0]:, mpirun's
// [1,0]<stderr>:), the tagged compile logging stays out as the untagged does, its indented
// explanation included, and no tag is written without the line it tagged: the terminal shows
// the program's own tagged lines, whole, and nothing else.
func TestQuietTaggedLines(t *testing.T) {
	var screen livetest.Buffer
	qw := newQuietWriter(&screen, testQuiet)
	var want strings.Builder
	for step := range 3 {
		for _, tag := range []string{"[rank3]:", "[rank1]:", "[default0]:", "[1,2]<stderr>:"} {
			qw.Write([]byte(tag + "TRACING CACHE MISS at /w/train.py:9 (main):\n"))
			qw.Write([]byte(tag + "  never seen function:\n" + tag + "    step id=1 defined at /w/train.py:3\n"))
			qw.Write([]byte(tag + "Compiling jit(step) with global shapes and types (x). Argument mapping: (y).\n"))
			qw.Write([]byte(tag + "Execution Analysis: Graph Hash: 1\n")) // an anchored record: no tag left behind
			own := fmt.Sprintf("%sstep %d loss 0.5\n", tag, step)
			qw.Write([]byte(own))
			want.WriteString(own)
		}
	}
	qw.Write([]byte("[rank0]:  an indented line of the program's own\n"))
	qw.Close()
	if got := screen.String(); got != want.String()+"[rank0]:  an indented line of the program's own\n" {
		t.Errorf("terminal:\n%s\nwant:\n%s", got, want.String())
	}
	for line, n := range map[string]int{"[rank12]:x": 9, "[default0]:": 11, "[1,0]<stdout>:a": 14, "[1,0]<stdin>:a": 0, "[rank]:x": 0, "rank3]:": 0, "[abc]:": 0} {
		if got := tagLen([]byte(line)); got != n {
			t.Errorf("tagLen(%q) = %d, want %d", line, got, n)
		}
	}
}

// A real job's console as torchrun --tee tags it (testdata ranks-job: four JAX processes, every
// line tagged [rankI]: as it arrived), through the quiet terminal with the settings recomp run
// switches on for JAX: what is left is the program's own lines, each whole with its one tag.
func TestQuietRealTaggedJob(t *testing.T) {
	b, err := os.ReadFile("../testdata/runs/jax-0.12/ranks-job/launcher.txt")
	if err != nil {
		t.Fatal(err)
	}
	settings, _ := Evidence(runfolder.Framework("jax"), runfolder.DumpNone, "", "", nil, nil)
	var screen livetest.Buffer
	qw := newQuietWriter(&screen, QuietOf(settings))
	qw.Write(b)
	qw.Close()
	// the program's lines, and gloo's, which it prints whatever recomp switches on
	own := regexp.MustCompile(`^\[rank(\d)\]:(?:rank|\[Gloo\] Rank) (\d) (?:of 4: process \d, local devices .*|step \d batch \d+|is connected to 3 peer ranks.*)$`)
	lines := strings.Split(strings.TrimSuffix(screen.String(), "\n"), "\n")
	for _, line := range lines {
		if m := own.FindStringSubmatch(line); m == nil || m[1] != m[2] {
			t.Errorf("on the terminal, not the program's own line: %q", line)
		}
	}
	if len(lines) != 4*10 { // each rank: its greeting, gloo's and 8 steps
		t.Errorf("%d lines on the terminal, want 40:\n%s", len(lines), screen.String())
	}
}

// A partial line the program printed ("step 0: ", flushed without a line end) and a record
// recomp switched on written after it end up on one line: the record stays out, the program's
// bytes reach the terminal as it wrote them, whichever expression (anchored or not) matched.
func TestQuietKeepsTheProgramsPartialLine(t *testing.T) {
	got := quietScreen(
		"step 0: ", "Compiling jit(f) with global shapes and types (x). Argument mapping: (y).\n",
		"loss 1.5\n",
		"step 1: ", "I0000 00:00:1.000000 1 device_compilation_profiler.cc:113] Compiled f 2 times\n", "loss 1.2\n",
		"Compiling jit(g) with global shapes and types (x).", " Argument mapping: (y).\n", // one record in two writes
		"step 2: done", "Finished XLA compilation of jit(f) in 0.1 sec",
	)
	if want := "step 0: loss 1.5\nstep 1: loss 1.2\nstep 2: done"; got != want {
		t.Errorf("terminal\n got %q\nwant %q", got, want)
	}
}

// The quiet writer only removes: whatever the writes and however they are split, the terminal
// gets a subsequence of the command's bytes, in order, and a line that no expression matches
// anywhere comes through whole.
func FuzzQuietWriter(f *testing.F) {
	f.Add([]byte("step 0: Compiling jit(f) with global shapes and types (x).\nloss 1\n"), uint8(8))
	f.Add([]byte("bar\r\x1b[1m2/4\x1b[0mI1124 10:02:03.123456 1 a.cc:1] x\n\n\nTRACING CACHE MISS at a\n  b\nc"), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, size uint8) {
		var screen bytes.Buffer
		qw := newQuietWriter(&screen, testQuiet)
		qw.holdFor = time.Hour
		n := int(size%32) + 1
		for p := data; len(p) > 0; {
			k := min(n, len(p))
			qw.Write(p[:k])
			p = p[k:]
		}
		qw.Close()
		out, in := screen.Bytes(), data
		for _, c := range out {
			i := bytes.IndexByte(in, c)
			if i < 0 {
				t.Fatalf("the terminal got bytes the command did not write: %q from %q", out, data)
			}
			in = in[i+1:]
		}
		if !bytes.ContainsAny(data, "\r\x1b") && !bytes.Contains(data, []byte("  ")) {
			for _, line := range bytes.SplitAfter(data, []byte("\n")) {
				body := bytes.TrimRight(line, "\n")
				if len(body) == 0 || bytes.ContainsAny(body, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
					continue // a capital may start a glued record
				}
				if !bytes.Contains(out, body) {
					t.Fatalf("a line of the program's own is lost: %q in %q", body, out)
				}
			}
		}
	})
}

// The program's partial line and the record after it read at once (one read of the terminal,
// no write boundary between them): the record still starts at its own first word, and a
// record's own header before its message is never taken for the program's text.
func TestQuietPartialLineInOneRead(t *testing.T) {
	got := quietScreen(
		"step 5: WARNING:2026-11-27 00:19:04,232:jax._src.dispatch:236: Finished XLA compilation of jit(f) in 0.1 sec\n10.0\n",
		"WARNING:2026-11-27 00:19:04,232:jax._src.dispatch:236: Finished XLA compilation of jit(f) in 0.1 sec\n",
		"W1122 06:47:28.138073 3516 pxla.py:1514] Finished XLA compilation of pmap(g) in 2.5 sec\n",
		"WARNING:jax._src.interpreters.pxla:Compiling jit(f) with global shapes and types (x). Argument mapping: (y).\n",
		"\x1b[1mloss 2\x1b[0mCompiling jit(f) with global shapes and types (x). Argument mapping: (y).\n",
	)
	if want := "step 5: 10.0\n\x1b[1mloss 2\x1b[0m"; got != want {
		t.Errorf("terminal\n got %q\nwant %q", got, want)
	}
}

// A read of the terminal that ends inside a record (a write boundary in "DEB" + "UG:…") does not
// split the record: nothing of it reaches the terminal.
func TestQuietRecordSplitAcrossReads(t *testing.T) {
	got := quietScreen(
		"step 4: ", "WARNING:2026-11-27 00:40:51,833:jax._src.dispatch:236: Finished XLA compilation of jit(f) in 0.1 sec\nDEB",
		"UG:2026-11-27 00:40:51,840:jax._src.dispatch:236: Finished XLA compilation of jit(g) in 0.1 sec\n",
		"WARNING:2026-11-27 00:40:51,833:jax._src.interpreters.pxla:", "732: Compiling jit(f) with global shapes and types (x). Argument mapping: (y).\n",
		"WARNING:2026-11-27 00:40:51,833:jax._src.interpreters.pxla:732: ", "Compiling jit(f) with global shapes and types (x). Argument mapping: (y).\n",
		"8.0\n",
	)
	if want := "step 4: 8.0\n"; got != want {
		t.Errorf("terminal\n got %q\nwant %q", got, want)
	}
}

// quietScreen is what the terminal shows of the command's writes through the quiet writer.
func quietScreen(writes ...string) string {
	var screen livetest.Buffer
	qw := newQuietWriter(&screen, testQuiet)
	for _, w := range writes {
		qw.Write([]byte(w))
	}
	qw.Close()
	return screen.String()
}

// A record whose first words are a record's start of their own (PyTorch/XLA's "Post Compilation
// Analysis: " holds "Compilation Analysis: ") is one record: no word of it reaches the terminal,
// whether the terminal read it at once or cut it at any byte. (Every analysis block printed
// "Post " on the terminal.)
func TestQuietRecordInsideARecord(t *testing.T) {
	settings, _ := Evidence(runfolder.Framework("torch-xla"), runfolder.DumpNone, "", "", nil, nil)
	q := QuietOf(settings)
	block := "Post Compilation Analysis: ================================================================================\n" +
		"Post Compilation Analysis: Graph input size: 0.000053 GB\n" +
		"Compilation Analysis: Compilation Cause\n" +
		"Execution Analysis: Graph Info: \n"
	for cut := 0; cut <= len(block); cut++ {
		var screen livetest.Buffer
		qw := newQuietWriter(&screen, q)
		qw.Write([]byte("epoch 0 step 0 loss 2.004\n" + block[:cut]))
		qw.Write([]byte(block[cut:] + "epoch 0 step 1 loss 1.779\n"))
		qw.Close()
		if got, want := screen.String(), "epoch 0 step 0 loss 2.004\nepoch 0 step 1 loss 1.779\n"; got != want {
			t.Fatalf("cut at %d: terminal\n got %q\nwant %q", cut, got, want)
		}
	}
}

// A launcher tags the empty lines around PyTorch/XLA's records too ("[default1]:" alone, from
// torchrun --tee 3 of two ranks): they stay out as the untagged empty lines do, and the ranks'
// own lines pass. (Fifteen bare tags reached the terminal of a real 2-rank torchrun job.)
func TestQuietTaggedEmptyLines(t *testing.T) {
	settings, _ := Evidence(runfolder.Framework("torch-xla"), runfolder.DumpNone, "", "", nil, nil)
	block := func(tag string) string {
		return tag + "\n" +
			tag + "Compilation Analysis: ================================================================================\n" +
			tag + "Compilation Analysis: Compilation Cause\n" +
			tag + "Compilation Analysis:   user torch_xla.sync\n" +
			tag + "Compilation Analysis:   <module> (/tmp/p/tx_rank.py:9)\n" +
			tag + "Compilation Analysis: ================================================================================\n"
	}
	post := func(tag string) string {
		return tag + "\n" + tag + "Computation hash: 1114132c038df033c94db286e72a8e6e\n" + tag + "\n" +
			tag + "Post Compilation Analysis: ================================================================================\n" +
			tag + "Post Compilation Analysis: Graph input size: 0.000000 GB\n"
	}
	log := block("[default1]:") + block("[default0]:") + post("[default1]:") + block("[default1]:") +
		"[default1]:step 0 batch 32\n" + "[default0]:step 0 batch 32\n" + post("[default0]:") + "[default0]:step 1 batch 32\n"
	var screen livetest.Buffer
	qw := newQuietWriter(&screen, QuietOf(settings))
	qw.Write([]byte(log))
	qw.Close()
	if got, want := screen.String(), "[default1]:step 0 batch 32\n[default0]:step 0 batch 32\n[default0]:step 1 batch 32\n"; got != want {
		t.Errorf("terminal\n got %q\nwant %q", got, want)
	}
}
