package actor

// WithoutFastPaths returns cfg with every fast path of the transport off:
// the queue is the reference transport (fastpaths.go).
func WithoutFastPaths[T comparable](cfg Config[T]) Config[T] {
	cfg.paths = &fastPaths{}
	return cfg
}
