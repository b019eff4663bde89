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
