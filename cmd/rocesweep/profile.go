package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfiles starts a CPU profile into cpuFile and arranges an allocation profile into
// memFile (either may be empty). The returned function stops the CPU profile and writes
// the allocation profile; it reports the first error. Profiles are for `go tool pprof`:
//
//	rocesweep sim configs/bench/incast-8to1-100MiB.yaml --cpuprofile cpu.out
//	go tool pprof -top rocesweep cpu.out
func startProfiles(cpuFile, memFile string) (stop func() error, err error) {
	var cpu *os.File
	if cpuFile != "" {
		if cpu, err = os.Create(cpuFile); err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		if err = pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, fmt.Errorf("--cpuprofile %s: %w", cpuFile, err)
		}
	}
	if memFile != "" {
		runtime.MemProfileRate = 4096 // sample finely: the engine should allocate little
	}
	return func() error {
		var first error
		if cpu != nil {
			pprof.StopCPUProfile()
			if err := cpu.Close(); err != nil {
				first = fmt.Errorf("--cpuprofile %s: %w", cpuFile, err)
			}
		}
		if memFile != "" {
			if err := writeHeapProfile(memFile); err != nil && first == nil {
				first = err
			}
		}
		return first
	}, nil
}

func writeHeapProfile(name string) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("--memprofile %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--memprofile %s: %w", name, err)
	}
	return nil
}
