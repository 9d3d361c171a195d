//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/logscan"
)

// runShapes is recomp scan side by side with ripgrep on three shapes of log: noise (a TF-VLOG
// log where 1 line in 500 matters), a Poplar/TF-IPU log 1.5 times as large (Poplar debug lines
// and TF lines, 1 line in 150 matters) and a dense TF VLOG (1 line in 20 matters). ripgrep
// counts the lines holding the prefilter's anchors as fixed strings (rg -c -F -f), the same
// literals recomp's prefilter searches for. Each round runs every command once, interleaved;
// the fastest round and the largest peak RSS are reported.
func runShapes(mb, rounds int, dir string, keep bool) error {
	if mb <= 0 || rounds <= 0 {
		return fmt.Errorf("-mb and -rounds must be positive")
	}
	dir, bin, cleanup, err := buildIn(dir, "recomp-shapes-", keep)
	if err != nil {
		return err
	}
	defer cleanup()
	anchors := filepath.Join(dir, "anchors.txt")
	if err := os.WriteFile(anchors, []byte(strings.Join(frameworks.Grammar().Anchors(), "\n")+"\n"), 0o644); err != nil {
		return err
	}
	type shape struct {
		name  string
		path  string
		write func(*os.File) error
	}
	shapes := []shape{
		{name: "noise", write: func(f *os.File) error {
			_, _, err := logscan.WriteSynthetic(f, logscan.Synthetic{Size: int64(mb) << 20, Every: 500})
			return err
		}},
		{name: "poplar", write: func(f *os.File) error { return writePoplarLog(f, int64(mb)<<20*3/2) }},
		{name: "dense", write: func(f *os.File) error {
			_, _, err := logscan.WriteSynthetic(f, logscan.Synthetic{Size: int64(mb) << 20, Every: 20})
			return err
		}},
	}
	var jobs []*job
	for i := range shapes {
		s := &shapes[i]
		s.path = filepath.Join(dir, s.name+".log")
		f, err := os.Create(s.path)
		if err != nil {
			return err
		}
		err = s.write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		size := fileSize(s.path)
		jobs = append(jobs, &job{group: s.name, name: "recomp scan", argv: []string{bin, "scan", "--format", "json", s.path}, bytes: size})
		if have("rg") {
			jobs = append(jobs, &job{group: s.name, name: "rg -c -F -f anchors", argv: []string{"rg", "-c", "-F", "-f", anchors, s.path}, bytes: size})
		}
		fmt.Printf("%s: %d MB\n", s.name, size>>20)
	}
	if !have("rg") {
		fmt.Println("ripgrep not found: skipped (apt-get install ripgrep, or cargo install ripgrep)")
	}
	out := filepath.Join(dir, "out")
	for range rounds {
		for _, j := range jobs {
			if err := warm(j.argv[len(j.argv)-1]); err != nil {
				return err
			}
			d, rss, err := timeOne(j, out)
			if err != nil {
				return fmt.Errorf("%s %s: %v", j.group, j.name, err)
			}
			j.times = append(j.times, d)
			j.rssKB = append(j.rssKB, rss)
		}
	}
	fmt.Printf("\n%-8s %-22s %9s %9s %8s %10s %7s\n", "SHAPE", fmt.Sprintf("COMMAND (%d rounds)", rounds), "FASTEST", "MEDIAN", "MB/s", "PEAK RSS", "RATIO")
	first := map[string]*job{}
	for _, j := range jobs {
		base := first[j.group]
		if base == nil {
			first[j.group] = j
		}
		ratio := ""
		if base != nil {
			ratio = fmt.Sprintf("%.2f", slices.Min(base.times).Seconds()/slices.Min(j.times).Seconds())
		}
		fmt.Printf("%-8s %-22s %9.3f %9.3f %8.0f %7.1f MB %7s\n", j.group, j.name, slices.Min(j.times).Seconds(), median(j.times).Seconds(),
			float64(j.bytes)/(1<<20)/slices.Min(j.times).Seconds(), float64(slices.Max(j.rssKB))/1024, ratio)
	}
	fmt.Println("\nRATIO: recomp's fastest time over the command's (<= 1.00: recomp is at least as fast).")
	return nil
}

// writePoplarLog writes a Poplar/TF-IPU-shaped log of about size bytes: Poplar compiler, engine,
// graph and target debug lines, TF VLOG lines, and 1 line in 150 that matters (a Poplar phase
// starting or ending, or a TF-IPU compile request).
func writePoplarLog(f *os.File, size int64) error {
	w := bufio.NewWriterSize(f, 1<<20)
	noise := []string{
		"%02d:%02d:%02d.%03d %d PO:COMPILER [D] Lowering vertex poplin::ConvPartialnx1<half,float,true,false,4,0,0,true> for tile %d\n",
		"%02d:%02d:%02d.%03d %d PO:ENGINE   [D] Stream copy: host buffer 0x%x -> tile %d (bytes 4096)\n",
		"%02d:%02d:%02d.%03d %d PO:GRAPH    [D] Created tensor 'conv2d/Conv2D/fwd/partials' on tile %d%.0d\n",
		"%02d:%02d:%02d.%03d %d PO:TARGET   [D] Reading IPU memory at tile %d, exchange block 0x%x\n",
	}
	var n int64
	for i := 0; n < size; i++ {
		var k int
		var err error
		h, m, s, ms := i/3600000%24, i/60000%60, i/1000%60, i%1000
		switch {
		case i%150 == 149 && i/150%3 == 0:
			k, err = fmt.Fprintf(w, "%02d:%02d:%02d.%03d %d PO:ENGINE   [I] Starting phase: Graph construction\n", h, m, s, ms, 4242)
		case i%150 == 149 && i/150%3 == 1:
			k, err = fmt.Fprintf(w, "%02d:%02d:%02d.%03d %d PO:ENGINE   [I] Ending phase: Loading executable (duration 600 ms; diff RSS: 0 MB)\n", h, m, s, ms, 4242)
		case i%150 == 149:
			k, err = fmt.Fprintf(w, "2024-05-02 10:00:02.%06d: I tensorflow/compiler/plugin/poplar/driver/poplar_compiler.cc:1487] Begin XLA compilation: cluster_%d  (Hash: 0x%x) for ordinal  0\n", i%1000000, i%7, i)
		case i%10 == 3:
			k, err = fmt.Fprintf(w, "2024-05-02 10:00:02.%06d: I tensorflow/compiler/xla/service/hlo_pass_pipeline.cc:301] Running HLO pass pipeline on module cluster_%d: optimization\n", i%1000000, i%7)
		case i%4 == 0:
			k, err = fmt.Fprintf(w, noise[0], h, m, s, ms, 4242, i%1472)
		case i%4 == 1:
			k, err = fmt.Fprintf(w, noise[1], h, m, s, ms, 4242, i*64, i%1472)
		case i%4 == 2:
			k, err = fmt.Fprintf(w, noise[2], h, m, s, ms, 4242, i%1472, 0)
		default:
			k, err = fmt.Fprintf(w, noise[3], h, m, s, ms, 4242, i%1472, i*64)
		}
		if err != nil {
			return err
		}
		n += int64(k)
	}
	return w.Flush()
}
