package graphwire_test

import (
	"encoding/json"
	"errors"
	"testing"

	"graphwire"
)

// Every thread call against a live server (issue 33); the server's own behaviour
// is pinned by the Python tests (tests/server/test_thread_records.py).
func TestThreads(t *testing.T) {
	client, _ := shared(t)
	c := ctx(t)
	made, err := client.CreateThread(c, "chain3", graphwire.CreateThreadOptions{Metadata: map[string]any{"tag": "go", "user": "ann"},
		TTL: &graphwire.TTL{Seconds: 3600}})
	if err != nil {
		t.Fatal(err)
	}
	if made.Status != graphwire.ThreadIdle || made.TTL == nil || made.TTL.Seconds != 3600 || made.ExpiresAt == nil || made.ThreadID == "" {
		t.Fatalf("created: %+v", made)
	}
	if _, err := client.CreateThread(c, "chain3", graphwire.CreateThreadOptions{ThreadID: made.ThreadID}); !errors.Is(err, graphwire.ErrAlreadyExists) {
		t.Fatalf("again: %v", err)
	}
	for _, n := range []int{1, 10} {
		run, err := client.Invoke(c, "chain3", made.ThreadID, map[string]int{"n": n})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := run.Result(); err != nil {
			t.Fatal(err)
		}
	}
	got, err := client.GetThread(c, "chain3", made.ThreadID, true)
	if err != nil {
		t.Fatal(err)
	}
	var values struct{ N int }
	if err := json.Unmarshal(got.Values, &values); err != nil || values.N != 13 || !got.UpdatedAt.After(made.UpdatedAt) {
		t.Fatalf("got %+v (%v)", got, err)
	}
	updated, err := client.UpdateThread(c, "chain3", made.ThreadID, map[string]any{"user": "bob"}, &graphwire.TTL{})
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]string
	if err := json.Unmarshal(updated.Metadata, &meta); err != nil || meta["user"] != "bob" || meta["tag"] != "go" || updated.TTL != nil {
		t.Fatalf("updated %+v (%v)", updated, err)
	}
	second, err := client.CreateThread(c, "chain3", graphwire.CreateThreadOptions{ThreadID: "go-second", Metadata: map[string]any{"tag": "go"}})
	if err != nil {
		t.Fatal(err)
	}
	filter := graphwire.ThreadFilter{Graph: "chain3", Metadata: map[string]any{"tag": "go"}}
	page, err := client.SearchThreads(c, graphwire.SearchThreadsOptions{Filter: filter, Limit: 1})
	if err != nil || len(page.Threads) != 1 || page.Threads[0].ThreadID != second.ThreadID || page.NextPageToken == "" {
		t.Fatalf("first page %+v (%v)", page, err)
	}
	rest, err := client.SearchThreads(c, graphwire.SearchThreadsOptions{Filter: filter, Limit: 1, PageToken: page.NextPageToken})
	if err != nil || len(rest.Threads) != 1 || rest.Threads[0].ThreadID != made.ThreadID {
		t.Fatalf("second page %+v (%v)", rest, err)
	}
	idle := filter
	idle.Statuses = []graphwire.ThreadStatus{graphwire.ThreadIdle}
	if n, err := client.CountThreads(c, idle); err != nil || n != 2 {
		t.Fatalf("count %d (%v)", n, err)
	}
	copied, err := client.CopyThread(c, "chain3", made.ThreadID, "")
	if err != nil || copied.ThreadID == made.ThreadID {
		t.Fatalf("copy %+v (%v)", copied, err)
	}
	a, _ := client.History(c, "chain3", made.ThreadID, graphwire.HistoryOptions{})
	b, _ := client.History(c, "chain3", copied.ThreadID, graphwire.HistoryOptions{})
	if len(a) < 2 || len(a) != len(b) {
		t.Fatalf("histories %d and %d", len(a), len(b))
	}
	if n, err := client.PruneThread(c, "chain3", made.ThreadID, 0); err != nil || int(n) != len(a)-1 {
		t.Fatalf("pruned %d (%v)", n, err)
	}
	if err := client.DeleteThread(c, "chain3", copied.ThreadID); err != nil {
		t.Fatal(err)
	}
	if _, err := client.GetThread(c, "chain3", copied.ThreadID, false); !errors.Is(err, graphwire.ErrNotFound) {
		t.Fatalf("deleted: %v", err)
	}
}
