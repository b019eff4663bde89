package graphwire

import (
	"context"
	"encoding/json"
	"time"

	pb "graphwire/graphwirepb"
)

// OnDisconnect says what a run does when its caller's stream ends before it does.
type OnDisconnect string

const (
	OnDisconnectCancel   OnDisconnect = "cancel"   // the run is cancelled (the server's default)
	OnDisconnectContinue OnDisconnect = "continue" // the run goes on without its caller
)

// RunStatus says where a run is, by its record.
type RunStatus string

const (
	RunPending     RunStatus = "pending"
	RunRunning     RunStatus = "running"
	RunInterrupted RunStatus = "interrupted"
	RunSuccess     RunStatus = "success"
	RunError       RunStatus = "error"
	RunCancelled   RunStatus = "cancelled"
	RunRecovering  RunStatus = "recovering"  // its replica died; another one is about to continue it
	RunRolledBack  RunStatus = "rolled_back" // cancelled by a MultitaskRollback call; its versions were deleted
	RunUnspecified RunStatus = "unspecified" // a status this client does not know (a newer server)
)

var statuses = map[pb.RunStatus]RunStatus{
	pb.RunStatus_RUN_STATUS_PENDING:     RunPending,
	pb.RunStatus_RUN_STATUS_RUNNING:     RunRunning,
	pb.RunStatus_RUN_STATUS_INTERRUPTED: RunInterrupted,
	pb.RunStatus_RUN_STATUS_SUCCESS:     RunSuccess,
	pb.RunStatus_RUN_STATUS_ERROR:       RunError,
	pb.RunStatus_RUN_STATUS_CANCELLED:   RunCancelled,
	pb.RunStatus_RUN_STATUS_RECOVERING:  RunRecovering,
	pb.RunStatus_RUN_STATUS_ROLLED_BACK: RunRolledBack,
}

// RunInfo is a run's record, as every replica sees it.
type RunInfo struct {
	RunID, ThreadID, Graph string
	Status                 RunStatus
	RequestID              string // of the call that started it; "" when none
	Replica                string // the replica running it, or that ran it last
	Attempts               uint32 // 1, plus one per recovery after its replica died
	StartedAt, EndedAt     time.Time
	CheckpointID           string       // the thread's newest version when it ended
	Call                   string       // "Invoke", "Resume", "Fork" or "UpdateState"
	CallJSON               []byte       // what the call asked, as a JSON object (long strings cut)
	Reason                 FinishReason // "" while it runs
	Error                  *ErrorInfo
	Interrupts             []Interrupt
	LastSeq                uint32 // the seq of its last event so far
	Background             bool
	// Values is the thread's state when it ended (JSON), read by GetRun and by
	// ListRunsPage with IncludeValues; nil otherwise, and while it runs.
	Values json.RawMessage
	// ReplacedBy is the run that cancelled this one (MultitaskInterrupt or
	// MultitaskRollback), Replaces the run this one cancelled; "" when none.
	ReplacedBy, Replaces string
}

// DecodeValues unmarshals the run's final state (Values) into v.
func (r *RunInfo) DecodeValues(v any) error { return decode(r.Values, v) }

// ListRunsOptions picks a page of a thread's runs (ListRunsPage).
type ListRunsOptions struct {
	Limit         uint32 // the most runs to return; 0: all of them
	Before        string // only the runs after this one, newest first (a page's NextBefore); "": from the newest
	IncludeValues bool   // with each run's final state (RunInfo.Values), which the server otherwise does not read
}

// RunPage is a page of a thread's runs, newest first.
type RunPage struct {
	Runs       []RunInfo
	NextBefore string // where the next page starts (ListRunsOptions.Before); "" on the last page
}

// Ended reports whether the run has ended (a run cancelled by its caller
// leaving may have no Reason).
func (r *RunInfo) Ended() bool { return !r.EndedAt.IsZero() || r.Reason != "" }

func runInfo(m *pb.RunInfo) RunInfo {
	status, ok := statuses[m.GetStatus()]
	if !ok {
		status = RunUnspecified
	}
	info := RunInfo{RunID: m.GetRunId(), ThreadID: m.GetThreadId(), Graph: m.GetGraph(), Status: status,
		RequestID: m.GetRequestId(), Replica: m.GetReplica(), Attempts: m.GetAttempts(),
		CheckpointID: m.GetCheckpointId(), Call: m.GetCall(), CallJSON: []byte(m.GetCallJson()),
		Error: errorInfo(m.GetError()), Interrupts: interrupts(m.GetInterrupts()), LastSeq: m.GetLastSeq(),
		Background: m.GetBackground(), ReplacedBy: m.GetReplacedBy(), Replaces: m.GetReplaces()}
	if m.GetValuesJson() != "" {
		info.Values = json.RawMessage(m.GetValuesJson())
	}
	if m.GetStartedAt() != nil {
		info.StartedAt = m.GetStartedAt().AsTime()
	}
	if m.GetEndedAt() != nil {
		info.EndedAt = m.GetEndedAt().AsTime()
	}
	if m.GetReason() != pb.FinishReason_FINISH_REASON_UNSPECIFIED {
		if info.Reason = reasons[m.GetReason()]; info.Reason == "" {
			info.Reason = ReasonUnspecified
		}
	}
	return info
}

// JoinRun follows a run from any replica: its events after afterSeq (0: all
// of them) to its RunFinished, for a run started with a request id,
// OnDisconnectContinue or WithBackground, while it runs and for the server's
// retention window after it ended. Closing a join never cancels its run.
func (c *Client) JoinRun(ctx context.Context, runID string, afterSeq uint32, kinds ...EventKind) (*Run, error) {
	s, err := runSettings([]RunOption{WithEventKinds(kinds...)})
	if err != nil {
		return nil, err
	}
	req := &pb.JoinRunRequest{RunId: runID, AfterSeq: afterSeq, EventKinds: s.kinds}
	run, err := c.start(ctx, "", func(ctx context.Context) (stream, error) { return c.stub().JoinRun(ctx, req) })
	if run != nil {
		run.runID, run.seq = runID, afterSeq
	}
	return run, err
}

// GetRun reads a run's record (status, call, replica, attempts, outcome). ErrNotFound for an unknown run.
func (c *Client) GetRun(ctx context.Context, runID string) (*RunInfo, error) {
	m, err := c.stub().GetRun(c.ctx(ctx), &pb.GetRunRequest{RunId: runID})
	if err != nil {
		return nil, fromRPC(err)
	}
	info := runInfo(m)
	return &info, nil
}

// ListRuns lists a thread's runs, newest first, from the records of every
// replica; limit 0 lists them all.
func (c *Client) ListRuns(ctx context.Context, graph, threadID string, limit uint32) ([]RunInfo, error) {
	page, err := c.ListRunsPage(ctx, graph, threadID, ListRunsOptions{Limit: limit})
	if err != nil {
		return nil, err
	}
	return page.Runs, nil
}

// ListRunsPage reads a page of a thread's runs (at most opts.Limit, newest
// first, after opts.Before) and where the next one starts. The server reads
// only the runs it returns, so paging to the end reads each run once.
// ErrNotFound when Before is not a run of the thread.
func (c *Client) ListRunsPage(ctx context.Context, graph, threadID string, opts ListRunsOptions) (*RunPage, error) {
	req := &pb.ListRunsRequest{Graph: graph, ThreadId: threadID, IncludeValues: opts.IncludeValues}
	if opts.Limit > 0 {
		req.Limit = &opts.Limit
	}
	if opts.Before != "" {
		req.Before = &opts.Before
	}
	resp, err := c.stub().ListRuns(c.ctx(ctx), req)
	if err != nil {
		return nil, fromRPC(err)
	}
	page := &RunPage{Runs: make([]RunInfo, 0, len(resp.GetRuns())), NextBefore: resp.GetNextBefore()}
	for _, m := range resp.GetRuns() {
		page.Runs = append(page.Runs, runInfo(m))
	}
	return page, nil
}
