package graphwire_test

import (
	"testing"

	"graphwire"
)

// A run started with a request id is recorded: GetRun and ListRuns show it,
// JoinRun reads its events again after it ended, and a retry with the same id
// answers with the first attempt's outcome instead of running again.
func TestRunRecordsAndJoin(t *testing.T) {
	client, _ := shared(t)
	c := ctx(t)
	run, err := client.Invoke(c, "chain3", "go-runs", map[string]any{"n": 0}, graphwire.WithRequestID("go-call-1"))
	if err != nil {
		t.Fatal(err)
	}
	first, err := run.Result()
	if err != nil {
		t.Fatal(err)
	}
	if run.RunID() != first.RunID || run.Seq() == 0 {
		t.Fatalf("run id %q seq %d, result run id %q", run.RunID(), run.Seq(), first.RunID)
	}
	info, err := client.GetRun(c, first.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if info.Status != graphwire.RunSuccess || info.RequestID != "go-call-1" || info.Call != "Invoke" || !info.Ended() {
		t.Fatalf("record %+v", info)
	}
	if info.LastSeq != run.Seq() || info.CheckpointID != first.Checkpoint.CheckpointID || info.Attempts != 1 {
		t.Fatalf("record %+v, last seq %d", info, run.Seq())
	}
	joined, err := client.JoinRun(c, first.RunID, 1)
	if err != nil {
		t.Fatal(err)
	}
	again, err := joined.Result()
	if err != nil {
		t.Fatal(err)
	}
	if again.Reason != graphwire.ReasonEnd || again.Checkpoint.CheckpointID != first.Checkpoint.CheckpointID {
		t.Fatalf("joined %+v", again)
	}
	retry, err := client.Invoke(c, "chain3", "go-runs", map[string]any{"n": 0}, graphwire.WithRequestID("go-call-1"))
	if err != nil {
		t.Fatal(err)
	}
	retried, err := retry.Result()
	if err != nil {
		t.Fatal(err)
	}
	if retried.Checkpoint.CheckpointID != first.Checkpoint.CheckpointID {
		t.Fatalf("the retry ran again: %s, not %s", retried.Checkpoint.CheckpointID, first.Checkpoint.CheckpointID)
	}
	runs, err := client.ListRuns(c, "chain3", "go-runs", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].RunID != first.RunID {
		t.Fatalf("runs %+v", runs)
	}
}

// ListRunsPage pages a thread's runs to the end, each once; a listing leaves
// their final states out unless asked for, and GetRun reads it.
func TestListRunsPages(t *testing.T) {
	client, _ := shared(t)
	c := ctx(t)
	var last *graphwire.Result
	for n := 0; n < 5; n++ {
		run, err := client.Invoke(c, "chain3", "go-pages", map[string]any{"n": n})
		if err != nil {
			t.Fatal(err)
		}
		if last, err = run.Result(); err != nil {
			t.Fatal(err)
		}
	}
	all, err := client.ListRuns(c, "chain3", "go-pages", 0)
	if err != nil || len(all) != 5 {
		t.Fatalf("runs %+v, %v", all, err)
	}
	var paged []string
	opts := graphwire.ListRunsOptions{Limit: 2}
	for pages := 0; ; pages++ {
		page, err := client.ListRunsPage(c, "chain3", "go-pages", opts)
		if err != nil || pages > 3 {
			t.Fatalf("page %d: %+v, %v", pages, page, err)
		}
		for _, r := range page.Runs {
			paged = append(paged, r.RunID)
		}
		if page.NextBefore == "" {
			break
		}
		opts.Before = page.NextBefore
	}
	for i, r := range all {
		if paged[i] != r.RunID || r.Values != nil || r.Reason != graphwire.ReasonEnd {
			t.Fatalf("paged %v, all %+v", paged, all)
		}
	}
	full, err := client.ListRunsPage(c, "chain3", "go-pages", graphwire.ListRunsOptions{Limit: 1, IncludeValues: true})
	if err != nil || len(full.Runs) != 1 || full.NextBefore != all[0].RunID {
		t.Fatalf("page %+v, %v", full, err)
	}
	var values, want struct{ N int }
	if err := full.Runs[0].DecodeValues(&values); err != nil || last.DecodeValues(&want) != nil || values != want {
		t.Fatalf("values %s: %+v, want %+v, %v", full.Runs[0].Values, values, want, err)
	}
	got, err := client.GetRun(c, all[0].RunID)
	if err != nil || string(got.Values) != string(full.Runs[0].Values) {
		t.Fatalf("GetRun values %s, %v", got.Values, err)
	}
}
