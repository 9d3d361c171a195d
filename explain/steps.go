package explain

import (
	"bufio"
	"bytes"
	"io"
	"regexp"
	"slices"
	"strconv"

	"github.com/recomp/recomp/internal/input"
	"github.com/recomp/recomp/internal/lazyre"
)

// DefaultStep finds the step number in a line a training or serving loop prints ("step 3",
// "Step: 3", "global_step=3", "iteration 3"): its first group is the number. An epoch is not a
// step, and neither is a function named train_step.
var DefaultStep = lazyre.New(`(?i)\b(?:global[_ ]?)?(?:step|iter|iteration)\b\s*[:=#]?\s*(\d+)`)

// maxStepLookahead bounds how many lines after a compilation are searched for its step.
const maxStepLookahead = 100000

// maxLineHead bounds the part of a line matched against the step or --rank-from expression.
const maxLineHead = 4096

// StepsAfter finds the step each compilation belongs to: the number in the first line after
// the compilation's last line that names a step (a loop prints the step it ran after running
// it, and the step that needed a new program ran right after that compilation). lines are the
// compilations' last lines in a log; the log is read once, up to the last of them plus
// maxStepLookahead lines. A log that cannot be read again (standard input) has no steps.
func StepsAfter(path string, lines []int, re *regexp.Regexp) map[int]int {
	out := map[int]int{}
	if len(lines) == 0 || path == input.Stdin || path == "" || re == nil {
		return out
	}
	f, err := input.Open(path, nil)
	if err != nil {
		return out
	}
	defer f.Close()
	want := slices.Clone(lines)
	slices.Sort(want)
	want = slices.Compact(want)
	var open []int // compilations still looking for their step
	next := 0      // the next of want to reach
	eachLineHead(f, func(n int, head []byte) bool {
		if len(open) > 0 {
			if m := re.FindSubmatch(head); len(m) > 1 {
				if s, e := strconv.Atoi(string(bytes.TrimSpace(m[1]))); e == nil {
					for _, l := range open {
						out[l] = s
					}
					open = open[:0]
				}
			}
		}
		for next < len(want) && want[next] == n {
			open = append(open, want[next])
			next++
		}
		if len(open) > 0 && n-open[0] > maxStepLookahead {
			open = open[:0]
		}
		return next < len(want) || len(open) > 0 // until every step is found
	})
	return out
}

// eachLineHead calls fn with the number (from 1) and the first maxLineHead bytes of each line
// of r, until fn returns false, r ends or a read fails; a line longer than the reader's buffer
// (an HLO module logged on one line) is skipped past after its start, never held whole.
func eachLineHead(r io.Reader, fn func(n int, head []byte) bool) {
	br := bufio.NewReaderSize(r, 1<<20)
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if len(line) == 0 && err != nil {
			return
		}
		head := line[:min(len(line), maxLineHead)]
		if err == bufio.ErrBufferFull { // a line longer than the buffer: keep its start
			head = bytes.Clone(head)
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
		}
		if !fn(n, head) || err != nil {
			return // fn is done, the end of r, or a read error
		}
	}
}
