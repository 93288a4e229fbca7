package adapter

// GlobalMetricsProvider returns the metrics provider set process-wide,
// with [SetProvider] or client-go's workqueue.SetProvider (as
// controller-runtime's metrics package does in an init function), or nil
// while none is set: client-go's no-op default records nothing, and is
// returned as nil so that a queue keeps no metrics bookkeeping for it.
//
// It is what the queues of this package use when their config names no
// provider, exported for the other adapters built on actor (package
// priorityqueue). It is safe for concurrent use with SetProvider.
func GlobalMetricsProvider() MetricsProvider {
	providerMu.Lock()
	p := clientGoProvider
	providerMu.Unlock()
	if p == nil || isNoopProvider(p) {
		return nil
	}
	return p
}
