module example.com/lib/bench

go 1.26.0
