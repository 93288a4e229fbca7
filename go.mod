module github.com/actorq/actorq

go 1.26.0

require (
	go.uber.org/goleak v1.3.0
	golang.org/x/time v0.16.0
)
