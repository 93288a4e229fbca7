// Command walk lists the names that one Add of a new item and one Get that
// returns it meet in package actor, by the rule of ARCHITECTURE.md's walk,
// and prints them as the walk gives them: by step, each name once, where
// it is first met. Its test checks that ARCHITECTURE.md says what the
// code shows.
//
//	cd tools && go run ./walk                  # the walk, with the fast paths on
//	cd tools && go run ./walk -tags actorq_nolane,actorq_nofilter
//	cd tools && go run ./walk -claim            # the Get claims the item from the lane
//
// The rule: every type, function, method, field, constant and variable of
// the module that the statements that run use (the signatures of the
// functions that run included), plus every name in a condition that is
// evaluated (a case of a switch up to the one taken, every case of a
// select reached). Local variables and parameters are not counted, nor
// names declared below actor (the core's own walk), though actor's uses
// of them are. What runs is statement coverage: the script
// (walk/script) is built with coverage of package actor and writes the
// counters at the end of each step.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	root := flag.String("root", "..", "the repository's root")
	tags := flag.String("tags", "", "build tags, comma-separated (actorq_nolane, actorq_nofilter)")
	claim := flag.Bool("claim", false, "in a queue whose lane a Get asked for before: the Get claims the item from the lane")
	flag.Parse()
	steps, err := measure(*root, *tags, *claim)
	if err != nil {
		fmt.Fprintln(os.Stderr, "walk:", err)
		os.Exit(1)
	}
	for i, s := range steps {
		fmt.Printf("%d. %s (%d names): %s\n", i+1, stepNames[i], len(s), strings.Join(quoted(s), ", "))
	}
	all, funcs := count(steps)
	fmt.Printf("%d names, of which %d are functions and types\n", all, funcs)
}

// stepNames are the walk's steps, as ARCHITECTURE.md titles them.
var stepNames = []string{
	"Add, in the caller",
	"Add, in the owner, which then ends its round and sleeps",
	"Get: the caller finds the lane empty and asks; the owner answers it and ends its round",
}

func quoted(names []name) []string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n.id + "`"
	}
	return q
}
