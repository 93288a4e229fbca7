module github.com/actorq/actorq/tools

go 1.26.0

require (
	github.com/actorq/actorq v0.0.0
	go.uber.org/goleak v1.3.0
	golang.org/x/mod v0.43.0
	golang.org/x/tools v0.52.0
)

require (
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/time v0.16.0 // indirect
)

// walk measures the library of this repository.
replace github.com/actorq/actorq => ../
