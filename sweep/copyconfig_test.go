package sweep

import (
	"reflect"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
)

// copyConfig copies the one part of a Config that a value copy shares, its workload's
// mix entries: a reference field added to Config must be copied there too.
func TestCopyConfigSharesNothing(t *testing.T) {
	var refs []string
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type, path string)
	walk = func(t reflect.Type, path string) {
		switch t.Kind() {
		case reflect.Struct:
			if seen[t] {
				return
			}
			seen[t] = true
			for i := 0; i < t.NumField(); i++ {
				walk(t.Field(i).Type, path+"."+t.Field(i).Name)
			}
		case reflect.Array:
			walk(t.Elem(), path+"[i]")
		case reflect.Slice, reflect.Pointer:
			refs = append(refs, path)
			walk(t.Elem(), path+"[i]")
		case reflect.Map, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
			refs = append(refs, path)
		}
	}
	walk(reflect.TypeFor[config.Config](), "Config")
	if want := []string{"Config.Workload.Mix"}; !reflect.DeepEqual(refs, want) {
		t.Errorf("Config's reference fields are %q, want %q: copyConfig copies only these", refs, want)
	}

	c := config.Default()
	c.Workload.Mix = []config.Workload{{Kind: "incast", Mix: []config.Workload{{Kind: "load"}}}}
	cp := copyConfig(&c)
	cp.Workload.Mix[0].Kind = "permutation"
	cp.Workload.Mix[0].Mix[0].Kind = "none"
	if c.Workload.Mix[0].Kind != "incast" || c.Workload.Mix[0].Mix[0].Kind != "load" {
		t.Errorf("a copy's mix entries write the original's: %+v", c.Workload.Mix)
	}
	if !reflect.DeepEqual(copyConfig(&c), c) {
		t.Error("a copy differs from its original")
	}
}
