module github.com/actorq/actorq

go 1.26
