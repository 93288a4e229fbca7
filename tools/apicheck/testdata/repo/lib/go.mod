module example.com/lib

go 1.26.0
