package actor

import "os"

// WithoutFastPaths returns cfg with every fast path of the transport off:
// the queue is the reference transport (fastpaths.go).
func WithoutFastPaths[T comparable](cfg Config[T]) Config[T] {
	cfg.paths = &fastPaths{}
	return cfg
}

// With ACTORQ_FASTPATHS=off in the environment, every queue of the tests
// is made with every fast path off: scripts/test.sh runs the package's
// tests once each way.
func init() {
	if os.Getenv("ACTORQ_FASTPATHS") == "off" {
		defaultPaths = fastPaths{}
	}
}

// allPaths turns every fast path on, whatever ACTORQ_FASTPATHS says: the
// tests of a fast path's own invariant use it.
var allPaths = fastPaths{lane: true, batch: true, filter: true}
