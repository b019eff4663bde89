package graphwire

import (
	"context"
	"errors"
	"io"

	"google.golang.org/grpc/metadata"

	pb "graphwire/graphwirepb"
)

// Run is a run in progress: an iterator over its events, then its Result.
//
//	for run.Next() {
//		ev := run.Event()
//		...
//	}
//	if err := run.Err(); err != nil { ... }
//	result, err := run.Result()
//
// Cancel the run by cancelling the context it was started with, or with
// Close. A Run is not safe for use by several goroutines at once.
type Run struct {
	threadID string
	recv     func() (*pb.RunEvent, error)
	trailer  func() metadata.MD
	cancel   context.CancelFunc
	current  Event
	finished *RunFinished
	started  *RunStarted
	err      error
	done     bool
	runID    string
	seq      uint32
}

func newRun(threadID string, recv func() (*pb.RunEvent, error), trailer func() metadata.MD, cancel context.CancelFunc) *Run {
	return &Run{threadID: threadID, recv: recv, trailer: trailer, cancel: cancel}
}

// Next waits for the next event and reports whether there is one. It returns
// false after RunFinished (the last event) or when the call failed (see Err).
// Events of kinds this client does not know (from a newer server) are skipped.
func (r *Run) Next() bool {
	for !r.done {
		m, err := r.recv()
		if err != nil {
			r.done = true
			r.cancel()
			if errors.Is(err, io.EOF) {
				if r.finished == nil {
					r.err = &Error{Code: ErrUnknown.Code, Message: "the run's stream ended without a RunFinished event"}
				}
				return false
			}
			r.err = withTrailer(fromRPC(err), r.trailer())
			return false
		}
		if m.GetRunId() != "" {
			r.runID = m.GetRunId()
		}
		r.seq = m.GetSeq()
		ev := event(m)
		if ev == nil {
			continue
		}
		switch e := ev.(type) {
		case *RunStarted:
			r.started = e
		case *RunFinished:
			r.finished = e
			r.done = true
			r.cancel()
		}
		r.current = ev
		return true
	}
	return false
}

// RunID is the run's id, once its first event arrived ("" before).
func (r *Run) RunID() string { return r.runID }

// Seq is the seq of the last event received (0 before any): where a later
// JoinRun(ctx, run.RunID(), run.Seq()) goes on.
func (r *Run) Seq() uint32 { return r.seq }

// Event is the event Next moved to.
func (r *Run) Event() Event { return r.current }

// Err is the error that ended the call early (an *Error), or nil.
func (r *Run) Err() error { return r.err }

// Result reads the remaining events, if any, and returns how the run ended.
// A node that raised is a Result with ReasonError, not an error.
func (r *Run) Result() (*Result, error) {
	for r.Next() {
	}
	if r.err != nil {
		return nil, r.err
	}
	f := r.finished
	out := &Result{ThreadID: r.threadID, RunID: f.RunID, Reason: f.Reason, Checkpoint: f.Checkpoint,
		Values: f.Values, Error: f.Error, Interrupts: f.Interrupts}
	if out.RunID == "" && r.started != nil {
		out.RunID = r.started.RunID
	}
	return out, nil
}

// Close ends the call; a run still going is cancelled on the server.
func (r *Run) Close() {
	r.cancel()
	r.done = true
}
