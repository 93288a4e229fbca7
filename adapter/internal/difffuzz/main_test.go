// Package difffuzz_test holds FuzzDifferential, which runs client-go's
// rate-limiting queue and the adapter's side by side. It is a package of its
// own so that fuzzing it instruments only what those two queues import, not
// controller-runtime, which the adapter's other tests bring in.
package difffuzz_test

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
