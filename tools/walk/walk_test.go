package main

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestArchitectureWalk checks that ARCHITECTURE.md's walk of one Add and
// one Get says what the code shows: each step's count and names, the
// total of names and of functions and types, and the totals of the Get
// that claims its item from the lane.
func TestArchitectureWalk(t *testing.T) {
	steps, err := measure("../..", "", false)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(doc)), " ")
	for i, step := range steps {
		ids := make([]string, len(step))
		for j, n := range step {
			ids[j] = n.id
		}
		re := regexp.MustCompile(strconv.Itoa(i+1) + `\. \*\*` + regexp.QuoteMeta(stepNames[i]) + `\*\* \((\d+) names\): (.*?)(?: \d\. \*\*| That is \*\*)`)
		m := re.FindStringSubmatch(text)
		if m == nil {
			t.Errorf("ARCHITECTURE.md has no step %d. **%s** (N names): ...", i+1, stepNames[i])
			continue
		}
		if m[1] != strconv.Itoa(len(step)) {
			t.Errorf("step %d: ARCHITECTURE.md says %s names, the code meets %d", i+1, m[1], len(step))
		}
		var said []string
		for _, q := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(m[2], -1) {
			said = append(said, q[1])
		}
		slices.Sort(said)
		slices.Sort(ids)
		for _, id := range ids {
			if _, ok := slices.BinarySearch(said, id); !ok {
				t.Errorf("step %d: the code meets %s, which ARCHITECTURE.md does not list", i+1, id)
			}
		}
		for _, id := range said {
			if _, ok := slices.BinarySearch(ids, id); !ok {
				t.Errorf("step %d: ARCHITECTURE.md lists %s, which the code does not meet there", i+1, id)
			}
		}
	}
	all, funcs := count(steps)
	total := "That is **" + strconv.Itoa(all) + " names, of which " + strconv.Itoa(funcs) + " are functions and types**"
	if !strings.Contains(text, total) {
		t.Errorf("ARCHITECTURE.md does not say %q", total)
	}

	// The Get that claims the item from the lane: the total only.
	if steps, err = measure("../..", "", true); err != nil {
		t.Fatal(err)
	}
	all, funcs = count(steps)
	claim := "the Get claims it without the owner (`lane.receive`, `lane.claim`, `lane.seize`, `slot.state`, `entry.clear`): " +
		strconv.Itoa(all) + " names, " + strconv.Itoa(funcs) + " of them functions and types"
	if !strings.Contains(text, claim) {
		t.Errorf("ARCHITECTURE.md does not say %q", claim)
	}
}
