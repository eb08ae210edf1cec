package sim

// Prefetch (prefetch_amd64.s, a no-op elsewhere) asks the processor to start loading the
// cache line that holds p, which the event loop will read soon. A large fabric's hot
// state outgrows the caches, and each event's state is a chain of dependent loads (event
// payload, link, frame, port): a hint issued an event or two ahead overlaps those misses
// with the current event's work. A hint changes no result: the model never sees it, and
// a prefetch never faults, whatever p is.
