package graphwire

import (
	"encoding/json"
	"fmt"
	"time"
)

// EventKind names a kind of run event; WithEventKinds picks which a run sends.
// RunStarted and RunFinished always come.
type EventKind string

const (
	KindRunStarted      EventKind = "run_started"
	KindStepStarted     EventKind = "step_started"
	KindStepFinished    EventKind = "step_finished"
	KindTaskStarted     EventKind = "task_started"
	KindTaskFinished    EventKind = "task_finished"
	KindValues          EventKind = "values"
	KindCustom          EventKind = "custom"
	KindMessageChunk    EventKind = "message_chunk"
	KindCheckpointSaved EventKind = "checkpoint_saved"
	KindInterrupt       EventKind = "interrupt"
	KindRunFinished     EventKind = "run_finished"
)

// FinishReason says why a run ended.
type FinishReason string

const (
	ReasonEnd            FinishReason = "END"             // the graph reached END
	ReasonInterrupt      FinishReason = "INTERRUPT"       // a node asked a question (Resume answers it) or a breakpoint
	ReasonError          FinishReason = "ERROR"           // a node raised; Error says what
	ReasonRecursionLimit FinishReason = "RECURSION_LIMIT" // too many steps without reaching END
	ReasonCancelled      FinishReason = "CANCELLED"       // cancelled (CancelRun, the caller, the server stopping)
	ReasonUnspecified    FinishReason = "UNSPECIFIED"     // a reason this client does not know (a newer server)
)

// Durability says when a run writes the versions it saves.
type Durability string

const (
	DurabilityAsync Durability = "async" // while the next step runs (the default)
	DurabilitySync  Durability = "sync"  // before the next step starts
	DurabilityExit  Durability = "exit"  // only when the run returns
)

// ErrorInfo is an exception raised inside a run: its class name and message.
type ErrorInfo struct {
	Type    string
	Message string
}

func (e *ErrorInfo) String() string { return e.Type + ": " + e.Message }

// Interrupt is a question a node asked with interrupt(value).
type Interrupt struct {
	InterruptID string // the key of WithResumes, when several are pending
	Node        string
	TaskID      string
	Value       json.RawMessage // what the node passed to interrupt(), as JSON
	// The JSON Schema an answer must match, when the node gave one
	// (interrupt(value, response_schema=...)); nil otherwise.
	ResponseSchema json.RawMessage
}

// CheckpointRef names one saved version of a thread and places it in the history.
type CheckpointRef struct {
	CheckpointID string
	ParentID     string // empty for the thread's first version
	Step         int    // -1 for an input version
	Source       string // "input", "loop", "update" or "fork"
	Next         []string
	CreatedAt    time.Time
}

// TaskState is a task due in a version's next step.
type TaskState struct {
	TaskID     string
	Node       string
	Interrupts []Interrupt
	Error      *ErrorInfo // set when the task raised the last time it ran
	// Result is the task's writes once it finished (LangGraph's PregelTask.result),
	// "{}" when it wrote none; nil while it has not finished.
	Result json.RawMessage
	// CheckpointNs is, for a subgraph node's task, the namespace its versions
	// are stored under (read them with GetStateWith and HistoryOptions.CheckpointNs).
	CheckpointNs string
	// State is the subgraph's own snapshot, when read with GetStateOptions.Subgraphs.
	State *StateSnapshot
	// Path is where it comes from, as LangGraph's PregelTask.path (a JSON array,
	// ["__pregel_pull", node]); nil when unknown.
	Path json.RawMessage
}

// StateSnapshot is one version of a thread's state.
type StateSnapshot struct {
	Values     json.RawMessage // a JSON object of state keys
	Next       []string
	Checkpoint CheckpointRef
	Metadata   json.RawMessage // "source", "step", "parents" and the run's metadata
	Tasks      []TaskState
	Interrupts []Interrupt
}

// DecodeValues unmarshals the state into v (a pointer to your state's struct or a map).
func (s *StateSnapshot) DecodeValues(v any) error { return decode(s.Values, v) }

// GraphNode is a node of a graph ("__start__" and "__end__" included).
type GraphNode struct {
	Name     string
	Metadata json.RawMessage
	// Subgraph is, for a subgraph node (a compiled graph added as a node), that
	// graph's own nodes and edges, nested; nil otherwise (and from Client.Graphs).
	Subgraph *GraphInfo
}

// GraphEdge is an edge of a graph; Conditional when a router may take it.
type GraphEdge struct {
	Source, Target string
	Conditional    bool
	Label          string
}

// GraphInfo describes a graph the server runs (Edges only from Client.Graph).
type GraphInfo struct {
	Name        string
	Description string
	Nodes       []GraphNode
	Edges       []GraphEdge
}

// Result is how a run ended.
type Result struct {
	RunID      string
	ThreadID   string
	Reason     FinishReason
	Checkpoint *CheckpointRef  // the thread's newest version; nil only for a thread with none
	Values     json.RawMessage // the state at Checkpoint; nil when too large to send
	Error      *ErrorInfo      // set for ReasonError and ReasonRecursionLimit
	Interrupts []Interrupt     // the questions pending, for ReasonInterrupt
}

// Interrupted reports whether the run stopped at a question or a breakpoint.
func (r *Result) Interrupted() bool { return r.Reason == ReasonInterrupt }

// DecodeValues unmarshals the final state into v.
func (r *Result) DecodeValues(v any) error { return decode(r.Values, v) }

func decode(raw json.RawMessage, v any) error {
	if raw == nil {
		return fmt.Errorf("graphwire: no values to decode")
	}
	return json.Unmarshal(raw, v)
}

// AssistantConfig is an assistant's config, in LangGraph's shape: the
// defaults of the runs that name the assistant (a run's own configurable keys
// and recursion limit win).
type AssistantConfig struct {
	Configurable   map[string]any `json:"configurable,omitempty"`    // as WithConfigurable
	RecursionLimit uint32         `json:"recursion_limit,omitempty"` // as WithRecursionLimit; 0: none
}

// Assistant is one version of an assistant: a named, versioned configuration
// of a registered graph, as in LangGraph's Agent Server. A run that names it
// (WithAssistant) takes its Config and Context as defaults. Each graph has a
// default assistant, made by the server with the id LangGraph's Agent Server
// gives it (metadata {"created_by": "system"}).
type Assistant struct {
	AssistantID string
	Graph       string // the registered graph it runs
	Name        string // "Untitled" unless one was given
	Description string // empty when it has none
	Config      AssistantConfig
	Context     json.RawMessage // a JSON object, the runs' runtime.context; {} when none
	Metadata    json.RawMessage // a JSON object, the caller's own
	Version     int             // this version's number: 1, 2, ...
	CreatedAt   time.Time       // when the assistant was created
	UpdatedAt   time.Time       // when this version was made current
}
