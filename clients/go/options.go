package graphwire

import (
	"encoding/json"
	"fmt"

	pb "graphwire/graphwirepb"
)

// RunOption configures Invoke, Resume and Fork.
type RunOption func(*settings) error

type settings struct {
	kinds        []pb.EventKind
	enqueue      bool
	config       *pb.RunConfig
	checkpointID string            // Invoke
	resumes      map[string]string // Resume
	update       string            // Fork
	asNode       string            // Fork
	requestID    string
	onDisconnect pb.OnDisconnect
	background   bool
	multitask    pb.MultitaskStrategy
	expect       string           // expect_checkpoint_id
	ifInterrupt  pb.IfInterrupted // Invoke
	assistantID  string
}

var kinds = map[EventKind]pb.EventKind{
	KindRunStarted:      pb.EventKind_EVENT_KIND_RUN_STARTED,
	KindStepStarted:     pb.EventKind_EVENT_KIND_STEP_STARTED,
	KindStepFinished:    pb.EventKind_EVENT_KIND_STEP_FINISHED,
	KindTaskStarted:     pb.EventKind_EVENT_KIND_TASK_STARTED,
	KindTaskFinished:    pb.EventKind_EVENT_KIND_TASK_FINISHED,
	KindValues:          pb.EventKind_EVENT_KIND_VALUES,
	KindCustom:          pb.EventKind_EVENT_KIND_CUSTOM,
	KindMessageChunk:    pb.EventKind_EVENT_KIND_MESSAGE_CHUNK,
	KindCheckpointSaved: pb.EventKind_EVENT_KIND_CHECKPOINT_SAVED,
	KindInterrupt:       pb.EventKind_EVENT_KIND_INTERRUPT,
	KindRunFinished:     pb.EventKind_EVENT_KIND_RUN_FINISHED,
}

var durabilities = map[Durability]pb.Durability{
	DurabilityAsync: pb.Durability_DURABILITY_ASYNC,
	DurabilitySync:  pb.Durability_DURABILITY_SYNC,
	DurabilityExit:  pb.Durability_DURABILITY_EXIT,
}

func runSettings(opts []RunOption) (*settings, error) {
	s := &settings{}
	for _, opt := range opts {
		if err := opt(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *settings) runConfig() *pb.RunConfig {
	if s.config == nil {
		s.config = &pb.RunConfig{}
	}
	return s.config
}

// WithEventKinds sends only these kinds of events (and always RunStarted and
// RunFinished); without it, every event comes.
func WithEventKinds(names ...EventKind) RunOption {
	return func(s *settings) error {
		for _, name := range names {
			kind, ok := kinds[name]
			if !ok {
				return fmt.Errorf("graphwire: unknown event kind %q", name)
			}
			s.kinds = append(s.kinds, kind)
		}
		return nil
	}
}

// WithEnqueue waits for a busy thread's run instead of failing with ErrAborted.
func WithEnqueue() RunOption { return func(s *settings) error { s.enqueue = true; return nil } }

// WithRecursionLimit caps the supersteps the run may take.
func WithRecursionLimit(n uint32) RunOption {
	return func(s *settings) error { s.runConfig().RecursionLimit = &n; return nil }
}

// WithDurability says when the run writes the versions it saves.
func WithDurability(d Durability) RunOption {
	return func(s *settings) error {
		v, ok := durabilities[d]
		if !ok {
			return fmt.Errorf("graphwire: unknown durability %q", d)
		}
		s.runConfig().Durability = v
		return nil
	}
}

// WithRunMetadata stores a JSON object in the metadata of every version the
// run saves (HistoryOptions.Filter finds them).
func WithRunMetadata(metadata map[string]any) RunOption {
	return func(s *settings) error {
		text, err := jsonText(metadata, "run metadata")
		s.runConfig().MetadataJson = text
		return err
	}
}

// WithConfigurable passes the run's configurable (a JSON object such as
// {"model": "small", "user_id": "u1"}): what LangGraph's
// config={"configurable": ...} passes. Nodes, tools and chat models read it
// from their config["configurable"], beside the thread id. The keys
// thread_id, checkpoint_id, checkpoint_ns, checkpoint_map and any starting
// with "__" are the service's: InvalidArgument naming the key.
func WithConfigurable(configurable map[string]any) RunOption {
	return func(s *settings) error {
		text, err := jsonText(configurable, "configurable")
		s.runConfig().ConfigurableJson = text
		return err
	}
}

// WithInterruptBefore and WithInterruptAfter pause the run before/after these
// nodes ("*": every node), replacing the graph's own breakpoints.
func WithInterruptBefore(nodes ...string) RunOption {
	return func(s *settings) error { s.runConfig().InterruptBefore = nodes; return nil }
}

// WithInterruptAfter: see WithInterruptBefore.
func WithInterruptAfter(nodes ...string) RunOption {
	return func(s *settings) error { s.runConfig().InterruptAfter = nodes; return nil }
}

// WithRequestID names the logical call: a retry of it (after ErrUnavailable,
// say) with the same id is never applied twice; the server answers it with the
// first attempt's outcome, or joins that attempt while it runs. This client
// does not retry by itself, nor make up ids: without it, no id is sent.
func WithRequestID(id string) RunOption {
	return func(s *settings) error { s.requestID = id; return nil }
}

// WithOnDisconnect says what the run does when its caller's stream ends before
// it does: OnDisconnectCancel (the server's default) or OnDisconnectContinue
// (it goes on; JoinRun reads it again, and another replica continues it should
// its replica die).
func WithOnDisconnect(d OnDisconnect) RunOption {
	return func(s *settings) error {
		v, ok := onDisconnects[d]
		if !ok {
			return fmt.Errorf("graphwire: unknown OnDisconnect %q", d)
		}
		s.onDisconnect = v
		return nil
	}
}

// WithBackground makes the call return right after RunStarted; the run goes
// on with no caller (follow it with JoinRun or GetRun, by Run.RunID).
func WithBackground() RunOption { return func(s *settings) error { s.background = true; return nil } }

// MultitaskStrategy says what a run call does when its thread already has a run.
type MultitaskStrategy string

const (
	MultitaskReject    MultitaskStrategy = "reject"    // fail at once with ErrAborted (the default without WithEnqueue)
	MultitaskEnqueue   MultitaskStrategy = "enqueue"   // wait for the running run, then run (as WithEnqueue)
	MultitaskInterrupt MultitaskStrategy = "interrupt" // cancel the running run, keep its versions, then run
	MultitaskRollback  MultitaskStrategy = "rollback"  // cancel the running run, delete its versions, then run
)

var strategies = map[MultitaskStrategy]pb.MultitaskStrategy{
	MultitaskReject:    pb.MultitaskStrategy_MULTITASK_STRATEGY_REJECT,
	MultitaskEnqueue:   pb.MultitaskStrategy_MULTITASK_STRATEGY_ENQUEUE,
	MultitaskInterrupt: pb.MultitaskStrategy_MULTITASK_STRATEGY_INTERRUPT,
	MultitaskRollback:  pb.MultitaskStrategy_MULTITASK_STRATEGY_ROLLBACK,
}

// WithMultitaskStrategy says what the call does when the thread already has
// a run (double texting). With WithEnqueue, only MultitaskEnqueue agrees.
func WithMultitaskStrategy(m MultitaskStrategy) RunOption {
	return func(s *settings) error {
		v, ok := strategies[m]
		if !ok {
			return fmt.Errorf("graphwire: unknown MultitaskStrategy %q", m)
		}
		s.multitask = v
		return nil
	}
}

// WithExpectCheckpoint runs only if the thread's newest version is
// checkpointID (the one the caller displayed); otherwise the call fails with
// ErrFailedPrecondition and RefusedOf(err) names the newest.
func WithExpectCheckpoint(checkpointID string) RunOption {
	return func(s *settings) error { s.expect = checkpointID; return nil }
}

// WithRejectInterrupted (Invoke) refuses a thread waiting at an interrupt
// (ErrFailedPrecondition; RefusedOf(err).Interrupts are the pending ones)
// instead of dropping the interrupt and starting a new turn.
func WithRejectInterrupted() RunOption {
	return func(s *settings) error { s.ifInterrupt = pb.IfInterrupted_IF_INTERRUPTED_REJECT; return nil }
}

// noInterruptOption is the error of WithRejectInterrupted on a Resume or Fork.
func (s *settings) noInterruptOption(call string) error {
	if s.ifInterrupt != pb.IfInterrupted_IF_INTERRUPTED_UNSPECIFIED {
		return fmt.Errorf("graphwire: WithRejectInterrupted is an Invoke option, not %s's", call)
	}
	return nil
}

var onDisconnects = map[OnDisconnect]pb.OnDisconnect{
	OnDisconnectCancel:   pb.OnDisconnect_ON_DISCONNECT_CANCEL,
	OnDisconnectContinue: pb.OnDisconnect_ON_DISCONNECT_CONTINUE,
}

// WithAssistant runs as this assistant (see CreateAssistant): its graph, with
// its config and context as the run's defaults (the run's own WithConfigurable
// keys and WithRecursionLimit win), and its id in the metadata
// of the versions the run saves. The graph argument may then be "" (or must be
// the assistant's graph). A graph's name stands for its default assistant.
func WithAssistant(assistantID string) RunOption {
	return func(s *settings) error { s.assistantID = assistantID; return nil }
}

// WithCheckpoint (Invoke) runs from this older version instead of the newest, on a new branch.
func WithCheckpoint(checkpointID string) RunOption {
	return func(s *settings) error { s.checkpointID = checkpointID; return nil }
}

// WithResumes (Resume) answers several pending interrupts by Interrupt.InterruptID.
func WithResumes(answers map[string]any) RunOption {
	return func(s *settings) error {
		if len(answers) == 0 {
			return fmt.Errorf("graphwire: WithResumes: name at least one interrupt id")
		}
		s.resumes = make(map[string]string, len(answers))
		for id, answer := range answers {
			b, err := json.Marshal(answer)
			if err != nil {
				return fmt.Errorf("graphwire: the answer to %q: %w", id, err)
			}
			s.resumes[id] = string(b)
		}
		return nil
	}
}

// WithUpdate (Fork) applies a state update to the version before running, as
// if node asNode had returned it ("": the node that last wrote).
func WithUpdate(values any, asNode string) RunOption {
	return func(s *settings) error {
		text, err := jsonText(values, "update")
		if err == nil && text == "" {
			err = fmt.Errorf("graphwire: WithUpdate: the update is nil")
		}
		s.update, s.asNode = text, asNode
		return err
	}
}
