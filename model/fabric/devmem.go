package fabric

// DeviceBytes is the heap the job's devices will take once built, estimated from the
// topology's shape alone: its NICs and its switch ports, each with its cable end (the
// per-item costs of the memory estimate). The caller sizes its memory policy by it (the
// sweep's worker: huge pages for a large fabric, internal/memory), before New builds
// anything.
func (e Estimate) DeviceBytes() int64 {
	return int64(memPerHost)*int64(e.Hosts) + int64(memPerPort)*int64(e.Hosts+e.SwitchPorts)
}
