package graphwire

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	pb "graphwire/graphwirepb"
)

// Error is a failed call: the gRPC status code and the server's readable
// message (which names the field or thread that is wrong).
type Error struct {
	Code    codes.Code
	Message string
	// Refused says why a chat-safe turn was refused (WithRejectInterrupted,
	// WithExpectCheckpoint): nil for any other error. See RefusedOf.
	Refused *TurnRefused
}

// TurnRefused is why the server refused a chat-safe turn, decoded from the
// call's trailing metadata (graphwire-turn-refused-bin).
type TurnRefused struct {
	Reason       string // "interrupted" or "stale_checkpoint"
	CheckpointID string // the thread's newest version; "" when it has none
	Interrupts   []Interrupt
}

// RefusedOf is the refusal err carries (a run call's ErrFailedPrecondition
// from a chat-safe check), or nil.
func RefusedOf(err error) *TurnRefused {
	var e *Error
	if errors.As(err, &e) {
		return e.Refused
	}
	return nil
}

const turnRefusedKey = "graphwire-turn-refused-bin"

var refusals = map[pb.TurnRefusedReason]string{
	pb.TurnRefusedReason_TURN_REFUSED_REASON_INTERRUPTED:      "interrupted",
	pb.TurnRefusedReason_TURN_REFUSED_REASON_STALE_CHECKPOINT: "stale_checkpoint",
}

// withTrailer adds to err what the call's trailing metadata says about it.
func withTrailer(err error, md metadata.MD) error {
	var e *Error
	values := md.Get(turnRefusedKey)
	if len(values) == 0 || !errors.As(err, &e) || e.Code != codes.FailedPrecondition {
		return err
	}
	var m pb.TurnRefused
	if proto.Unmarshal([]byte(values[0]), &m) != nil {
		return err
	}
	reason, ok := refusals[m.GetReason()]
	if !ok {
		reason = "unspecified"
	}
	e.Refused = &TurnRefused{Reason: reason, CheckpointID: m.GetCheckpointId(), Interrupts: interrupts(m.GetInterrupts())}
	return e
}

func (e *Error) Error() string { return e.Code.String() + ": " + e.Message }

// Is makes errors.Is(err, ErrNotFound) and the other sentinels match by code.
func (e *Error) Is(target error) bool {
	var t *Error
	return errors.As(target, &t) && t.Message == "" && t.Code == e.Code
}

// Unwrap lets errors.Is(err, context.Canceled / context.DeadlineExceeded) see
// a call that ended because its context did.
func (e *Error) Unwrap() error {
	switch e.Code {
	case codes.Canceled:
		return context.Canceled
	case codes.DeadlineExceeded:
		return context.DeadlineExceeded
	}
	return nil
}

// One sentinel per status code the server answers with (see the proto's
// "Errors" section); match them with errors.Is.
var (
	ErrNotFound           = &Error{Code: codes.NotFound}           // unknown graph, thread or checkpoint
	ErrAlreadyExists      = &Error{Code: codes.AlreadyExists}      // CreateThread, CopyThread, CreateAssistant: the id is taken
	ErrInvalidArgument    = &Error{Code: codes.InvalidArgument}    // malformed request; the message names the field
	ErrFailedPrecondition = &Error{Code: codes.FailedPrecondition} // Resume with nothing pending
	ErrAborted            = &Error{Code: codes.Aborted}            // the thread has a run already
	ErrResourceExhausted  = &Error{Code: codes.ResourceExhausted}  // over a size limit
	ErrUnauthenticated    = &Error{Code: codes.Unauthenticated}    // missing or wrong token
	ErrPermissionDenied   = &Error{Code: codes.PermissionDenied}
	ErrUnavailable        = &Error{Code: codes.Unavailable} // the server or its checkpointer cannot be reached
	ErrCanceled           = &Error{Code: codes.Canceled}
	ErrDeadlineExceeded   = &Error{Code: codes.DeadlineExceeded}
	ErrDataLoss           = &Error{Code: codes.DataLoss} // a stored version that does not decode
	ErrInternal           = &Error{Code: codes.Internal}
	ErrUnknown            = &Error{Code: codes.Unknown}
)

// fromRPC turns what grpc-go returned into an *Error (nil stays nil).
func fromRPC(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) {
		return &Error{Code: codes.Canceled, Message: err.Error()}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Code: codes.DeadlineExceeded, Message: err.Error()}
	}
	s, ok := status.FromError(err)
	if !ok {
		return &Error{Code: codes.Unknown, Message: err.Error()}
	}
	return &Error{Code: s.Code(), Message: s.Message()}
}
