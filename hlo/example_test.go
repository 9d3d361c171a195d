package hlo_test

import (
	"fmt"

	"github.com/recomp/recomp/hlo"
)

func Example() {
	src := []byte(`HloModule jit_f
ENTRY main.4 {
  x.1 = f32[32,128]{1,0} parameter(0)
  ROOT neg.2 = f32[32,128]{1,0} negate(x.1)
}`)
	m, err := hlo.Parse("jit_f.txt", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := m.Entry.Instruction("x.1")
	fmt.Println(m.Name, p.Shape, p.Shape.Elem, p.Shape.DimsString())
	// Output: jit_f f32[32,128]{1,0} f32 [32,128]
}
