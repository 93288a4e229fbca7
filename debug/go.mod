module github.com/actorq/actorq/debug

go 1.26.0

require (
	github.com/actorq/actorq v0.1.0
	go.uber.org/goleak v1.3.0
)

require golang.org/x/time v0.16.0 // indirect

replace github.com/actorq/actorq => ../
