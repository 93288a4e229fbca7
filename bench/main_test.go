package bench

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if any goroutine outlives the tests. client-go's
// delaying queue and controller-runtime's queue end their goroutines
// shortly after ShutDown returns; goleak's retries wait for that.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
