package adapter

import (
	"reflect"
	"strings"
	"testing"

	"github.com/actorq/actorq/adapter/compattest"
)

// TestCheckLinkedProvider checks the start-up check of the go:linkname to
// client-go's globalMetricsProvider: it accepts the linked variable and
// rejects the nil that an unmatched link would leave, with a message that
// names the variable and client-go's version.
func TestCheckLinkedProvider(t *testing.T) {
	providerMu.Lock()
	linked := clientGoProvider
	providerMu.Unlock()
	if err := checkLinkedProvider(linked); err != nil {
		t.Errorf("checkLinkedProvider(clientGoProvider) = %v; want nil", err)
	}

	// The value the variable held at initialisation has a type of
	// client-go's workqueue package, its no-op default: only client-go's
	// own variable can hold that, so the link reaches it.
	if linkedAtInit == nil || linkedAtInit.PkgPath() != "k8s.io/client-go/util/workqueue" {
		t.Fatalf("clientGoProvider held a %v at initialisation; want client-go's no-op provider", linkedAtInit)
	}
	// isNoopProvider recognises that no-op provider by its type, and
	// nothing else.
	noop := reflect.New(linkedAtInit).Elem().Interface().(MetricsProvider)
	if !isNoopProvider(noop) {
		t.Errorf("isNoopProvider(%T) = false; want true", noop)
	}
	if isNoopProvider(nil) || isNoopProvider(&compattest.Recorder{}) {
		t.Error("isNoopProvider of nil or a Recorder = true; want false")
	}

	// A test binary has no module versions in its build information, so
	// the version is "(version unknown)" here; a program's names v0.37.2.
	version := clientGoVersion()
	err := checkLinkedProvider(nil)
	if err == nil {
		t.Fatal("checkLinkedProvider(nil) = nil; want an error")
	}
	for _, want := range []string{"adapter: ", "k8s.io/client-go/util/workqueue.globalMetricsProvider", "client-go " + version} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("checkLinkedProvider(nil) = %q; want it to contain %q", err, want)
		}
	}
}
