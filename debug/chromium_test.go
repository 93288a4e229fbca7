//go:build unix

package debug

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/actorq/actorq/actor"
)

// chromium returns the path of a Chromium or Chrome binary. If there is
// none, the test fails when ACTORQ_REQUIRE_CHROMIUM is set (CI sets it,
// after installing Chromium) and skips otherwise, on a developer's
// machine without one.
func chromium(t *testing.T) string {
	names := []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}
	for _, name := range names {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("ACTORQ_REQUIRE_CHROMIUM") != "" {
		t.Fatalf("no headless Chromium found, and ACTORQ_REQUIRE_CHROMIUM is set: none of %v is in $PATH", names)
	}
	t.Skipf("no headless Chromium found (apt-get install chromium): none of %v is in $PATH", names)
	return ""
}

// dumpDOM loads u in headless Chromium and returns the DOM it renders.
func dumpDOM(t *testing.T, browser, u string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--dump-dom", u)
	// Its own process group, so that a timeout ends its helpers too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s --dump-dom %s: %v\n%s", browser, u, err, stderr.Bytes())
	}
	return string(out)
}

// TestChromium renders the index and a queue page in headless Chromium
// and finds the counts and the item rows in the DOM it builds.
func TestChromium(t *testing.T) {
	browser := chromium(t)
	q := actor.New(actor.Config[string]{Name: "browser"})
	defer q.ShutDown()
	for _, item := range []string{"item-1", "item-2", "item-3", "item-4"} {
		q.Add(item)
	}
	item, _ := q.Get()
	defer q.Done(item)
	q.AddAfter("later", time.Hour)
	id := idOf(t, "browser")
	base := serveMounted(t) + "/debug/queues/"

	dom := dumpDOM(t, browser, base)
	contains(t, dom,
		"<title>actorq queues</title>",
		fmt.Sprintf(`<a href="queue?id=%d">browser</a></td><td class="n">%[1]d</td><td class="n">3</td><td class="n">1</td><td class="n">1</td>`, id),
	)

	dom = dumpDOM(t, browser, fmt.Sprintf("%squeue?id=%d", base, id))
	contains(t, dom,
		"<title>browser · actorq queue</title>",
		`<td class="n" id="ready">3</td>`,
		`<td class="n" id="processing">1</td>`,
		`<td class="n" id="delayed">1</td>`,
		`Ready <small>3 of 3, in hand-out order: highest priority first, then oldest first</small>`,
		`<tr><td class="item">item-2</td><td>ready</td>`,
		`<tr><td class="item">item-3</td><td>ready</td>`,
		`<tr><td class="item">item-4</td><td>ready</td>`,
		`<tr><td class="item">item-1</td><td>processing</td>`,
		`<tr><td class="item">later</td><td>delayed</td>`,
	)
}
