package graphwire

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"

	pb "graphwire/graphwirepb"
)

// maxReceive is the largest reply accepted: the server sends up to 16 MiB
// (more when its max_message_bytes is raised); grpc-go's default is 4 MiB.
const maxReceive = 64 << 20

// Client talks to one graphwire server. It is safe for concurrent use; make
// one per process and Close it when done.
type Client struct {
	conns []*grpc.ClientConn
	stubs []pb.GraphServiceClient
	turn  atomic.Uint64
	token string
}

type options struct {
	token    string
	tls      *tls.Config
	dial     []grpc.DialOption
	channels int
}

// Option configures Dial.
type Option func(*options)

// WithToken sends "authorization: Bearer <token>" on every call.
func WithToken(token string) Option { return func(o *options) { o.token = token } }

// WithTLS connects over TLS; a nil config uses the system's roots.
func WithTLS(config *tls.Config) Option {
	return func(o *options) {
		if config == nil {
			config = &tls.Config{}
		}
		o.tls = config
	}
}

// WithChannels opens n connections (default 1). A call on a thread (its runs,
// state, history, updates) takes the connection the thread's id names (its
// CRC-32 modulo n), so a thread's turns stay with one worker of --workers N;
// other calls take them in turn; a stream stays on its connection for its life
// (a re-join may take another). One connection carries any number of calls and is all one server
// process needs; a server run with --workers N gives each connection to one
// worker, so a client that alone carries a load opens a few times N.
func WithChannels(n int) Option { return func(o *options) { o.channels = n } }

// WithDialOptions adds grpc-go dial options (keepalive, interceptors, ...).
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(o *options) { o.dial = append(o.dial, opts...) }
}

// Dial makes a client for the server at address ("host:port"). It does not
// wait for the connection: the first call does.
func Dial(address string, opts ...Option) (*Client, error) {
	o := options{channels: 1}
	for _, opt := range opts {
		opt(&o)
	}
	if o.channels < 1 || o.channels > 1024 {
		return nil, fmt.Errorf("graphwire: channels must be a whole number from 1 to 1024, not %d", o.channels)
	}
	dial := []grpc.DialOption{grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxReceive))}
	if o.tls != nil {
		dial = append(dial, grpc.WithTransportCredentials(credentials.NewTLS(o.tls)))
	} else {
		dial = append(dial, grpc.WithInsecure())
	}
	c := &Client{token: o.token}
	for i := 0; i < o.channels; i++ {
		conn, err := grpc.Dial(address, append(dial, o.dial...)...) // each ClientConn its own connection
		if err != nil {
			c.Close()
			return nil, fromRPC(err)
		}
		c.conns = append(c.conns, conn)
		c.stubs = append(c.stubs, pb.NewGraphServiceClient(conn))
	}
	return c, nil
}

// stub is the next connection's, round-robin: a call made through it stays on that connection.
func (c *Client) stub() pb.GraphServiceClient {
	return c.stubs[(c.turn.Add(1)-1)%uint64(len(c.stubs))]
}

// stubOf is the stub of the connection threadID's calls take (WithChannels).
func (c *Client) stubOf(threadID string) pb.GraphServiceClient {
	return c.stubs[uint64(crc32.ChecksumIEEE([]byte(threadID)))%uint64(len(c.stubs))]
}

// Close closes the connections; calls still running end with ErrCanceled.
func (c *Client) Close() error {
	var first error
	for _, conn := range c.conns {
		if err := conn.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (c *Client) ctx(ctx context.Context) context.Context {
	if c.token == "" {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+c.token)
}

// jsonText is v as one JSON text for a *_json field; nil means no value ("").
func jsonText(v any, field string) (string, error) {
	if v == nil {
		return "", nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("graphwire: %s: %w", field, err)
	}
	return string(b), nil
}

type stream interface {
	Recv() (*pb.RunEvent, error)
	Trailer() metadata.MD
}

func (c *Client) start(ctx context.Context, threadID string, open func(context.Context) (stream, error)) (*Run, error) {
	ctx, cancel := context.WithCancel(c.ctx(ctx))
	s, err := open(ctx)
	if err != nil {
		cancel()
		return nil, fromRPC(err)
	}
	return newRun(threadID, s.Recv, s.Trailer, cancel), nil
}

// Invoke starts a run of graph on threadID with a new input (usually a map
// or struct of state keys, encoded with encoding/json; nil continues the
// thread from its newest version) and returns it as it streams.
func (c *Client) Invoke(ctx context.Context, graph, threadID string, input any, opts ...RunOption) (*Run, error) {
	s, err := runSettings(opts)
	if err != nil {
		return nil, err
	}
	req := &pb.InvokeRequest{Graph: graph, ThreadId: threadID, EventKinds: s.kinds, Enqueue: s.enqueue, Config: s.config,
		RequestId: s.requestID, OnDisconnect: s.onDisconnect, Background: s.background,
		MultitaskStrategy: s.multitask, ExpectCheckpointId: s.expect, IfInterrupted: s.ifInterrupt, AssistantId: s.assistantID}
	if req.InputJson, err = jsonText(input, "input"); err != nil {
		return nil, err
	}
	if s.checkpointID != "" {
		req.CheckpointId = &s.checkpointID
	}
	return c.start(ctx, threadID, func(ctx context.Context) (stream, error) { return c.stubOf(threadID).Invoke(ctx, req) })
}

// Resume answers the thread's pending interrupt with answer (what interrupt()
// returns in the node; nil is JSON null) and returns the run that goes on.
// WithResumes answers several by id instead. ErrFailedPrecondition when
// nothing is pending.
func (c *Client) Resume(ctx context.Context, graph, threadID string, answer any, opts ...RunOption) (*Run, error) {
	s, err := runSettings(opts)
	if err != nil {
		return nil, err
	}
	if err := s.noInterruptOption("Resume"); err != nil {
		return nil, err
	}
	req := &pb.ResumeRequest{Graph: graph, ThreadId: threadID, EventKinds: s.kinds, Enqueue: s.enqueue, Config: s.config,
		RequestId: s.requestID, OnDisconnect: s.onDisconnect, Background: s.background,
		MultitaskStrategy: s.multitask, ExpectCheckpointId: s.expect, AssistantId: s.assistantID}
	if s.resumes != nil {
		if answer != nil {
			return nil, fmt.Errorf("graphwire: pass an answer or WithResumes, not both")
		}
		req.ResumesJson = s.resumes
	} else {
		b, err := json.Marshal(answer)
		if err != nil {
			return nil, fmt.Errorf("graphwire: answer: %w", err)
		}
		req.ResumeJson = string(b)
	}
	return c.start(ctx, threadID, func(ctx context.Context) (stream, error) { return c.stubOf(threadID).Resume(ctx, req) })
}

// Fork goes back to the version checkpointID of the thread and runs from it
// on a new branch (WithUpdate changes it first): "regenerate" in a chat.
func (c *Client) Fork(ctx context.Context, graph, threadID, checkpointID string, opts ...RunOption) (*Run, error) {
	s, err := runSettings(opts)
	if err != nil {
		return nil, err
	}
	if err := s.noInterruptOption("Fork"); err != nil {
		return nil, err
	}
	req := &pb.ForkRequest{Graph: graph, ThreadId: threadID, CheckpointId: checkpointID, EventKinds: s.kinds,
		Enqueue: s.enqueue, Config: s.config, UpdateJson: s.update,
		RequestId: s.requestID, OnDisconnect: s.onDisconnect, Background: s.background,
		MultitaskStrategy: s.multitask, ExpectCheckpointId: s.expect, AssistantId: s.assistantID}
	if s.asNode != "" {
		req.AsNode = &s.asNode
	}
	return c.start(ctx, threadID, func(ctx context.Context) (stream, error) { return c.stubOf(threadID).Fork(ctx, req) })
}

// GetState reads the thread's newest version, or the one checkpointID names
// (pass "" for the newest). ErrNotFound for an unknown thread or version.
func (c *Client) GetState(ctx context.Context, graph, threadID, checkpointID string) (*StateSnapshot, error) {
	return c.GetStateWith(ctx, graph, threadID, GetStateOptions{CheckpointID: checkpointID})
}

// GetStateOptions say which version GetStateWith reads; the zero value: the newest.
type GetStateOptions struct {
	CheckpointID string // a version's id; "" for the newest
	// Subgraphs fills each subgraph task's State with the subgraph's own snapshot (nested).
	Subgraphs bool
	// CheckpointNs reads a subgraph's version instead: a task's TaskState.CheckpointNs.
	CheckpointNs string
}

// GetStateWith is GetState with its options: a subgraph's version, or subgraphs' snapshots nested.
func (c *Client) GetStateWith(ctx context.Context, graph, threadID string, o GetStateOptions) (*StateSnapshot, error) {
	req := &pb.GetStateRequest{Graph: graph, ThreadId: threadID, Subgraphs: o.Subgraphs, CheckpointNs: o.CheckpointNs}
	if o.CheckpointID != "" {
		req.CheckpointId = &o.CheckpointID
	}
	m, err := c.stubOf(threadID).GetState(c.ctx(ctx), req)
	if err != nil {
		return nil, fromRPC(err)
	}
	s := snapshot(m)
	return &s, nil
}

// HistoryOptions narrow History; the zero value lists every version.
type HistoryOptions struct {
	Limit  uint32         // the most versions to return; 0: all (up to the server's limit)
	Before string         // only versions older than this one (paging)
	Filter map[string]any // only versions whose metadata has these keys with equal values
	// CheckpointNs lists a subgraph's versions instead: a task's TaskState.CheckpointNs.
	CheckpointNs string
}

// History lists the thread's versions, newest first, across every branch.
func (c *Client) History(ctx context.Context, graph, threadID string, o HistoryOptions) ([]StateSnapshot, error) {
	req := &pb.ListHistoryRequest{Graph: graph, ThreadId: threadID, CheckpointNs: o.CheckpointNs}
	if o.Limit > 0 {
		req.Limit = &o.Limit
	}
	if o.Before != "" {
		req.Before = &o.Before
	}
	if o.Filter != nil {
		var err error
		if req.FilterJson, err = jsonText(o.Filter, "filter"); err != nil {
			return nil, err
		}
	}
	m, err := c.stubOf(threadID).ListHistory(c.ctx(ctx), req)
	if err != nil {
		return nil, fromRPC(err)
	}
	out := make([]StateSnapshot, 0, len(m.GetSnapshots()))
	for _, s := range m.GetSnapshots() {
		out = append(out, snapshot(s))
	}
	return out, nil
}

// UpdateState writes a new version as if node asNode had returned values
// (reducers apply); "" for asNode: the node that last wrote. checkpointID ""
// updates the newest version. It returns the new version.
func (c *Client) UpdateState(ctx context.Context, graph, threadID string, values any, asNode, checkpointID string) (*CheckpointRef, error) {
	return c.UpdateStateWith(ctx, graph, threadID, values, UpdateStateOptions{AsNode: asNode, CheckpointID: checkpointID})
}

// UpdateStateOptions are UpdateState's; the zero value updates the newest
// version as the node that last wrote.
type UpdateStateOptions struct {
	AsNode       string // the node the update counts as coming from; "": the node that last wrote
	CheckpointID string // the version to update; "": the newest (an older one starts a branch)
	// Configurable is the update's configurable, as WithConfigurable's
	// (AsNode's routers read it; its plain values are copied into the new
	// version's metadata); nil: none.
	Configurable map[string]any
}

// UpdateStateWith is UpdateState with its options, a configurable among them.
func (c *Client) UpdateStateWith(ctx context.Context, graph, threadID string, values any, o UpdateStateOptions) (*CheckpointRef, error) {
	text, err := jsonText(values, "values")
	if err != nil {
		return nil, err
	}
	req := &pb.UpdateStateRequest{Graph: graph, ThreadId: threadID, ValuesJson: text}
	if o.AsNode != "" {
		req.AsNode = &o.AsNode
	}
	if o.CheckpointID != "" {
		req.CheckpointId = &o.CheckpointID
	}
	if o.Configurable != nil {
		if req.ConfigurableJson, err = jsonText(o.Configurable, "configurable"); err != nil {
			return nil, err
		}
	}
	m, err := c.stubOf(threadID).UpdateState(c.ctx(ctx), req)
	if err != nil {
		return nil, fromRPC(err)
	}
	ref := checkpointRef(m.GetCheckpoint())
	return &ref, nil
}

// DeleteThread removes the thread and all its versions.
func (c *Client) DeleteThread(ctx context.Context, graph, threadID string) error {
	_, err := c.stubOf(threadID).DeleteThread(c.ctx(ctx), &pb.DeleteThreadRequest{Graph: graph, ThreadId: threadID})
	return fromRPC(err)
}

// CancelRun cancels the thread's active run (only if it is runID, unless
// runID is ""), from any connection; true when a run was cancelled.
func (c *Client) CancelRun(ctx context.Context, graph, threadID, runID string) (bool, error) {
	m, err := c.stub().CancelRun(c.ctx(ctx), &pb.CancelRunRequest{Graph: graph, ThreadId: threadID, RunId: runID})
	if err != nil {
		return false, fromRPC(err)
	}
	return m.GetCancelled(), nil
}

// Graphs lists the graphs the server runs, by name (without their edges).
func (c *Client) Graphs(ctx context.Context) ([]GraphInfo, error) {
	m, err := c.stub().ListGraphs(c.ctx(ctx), &pb.ListGraphsRequest{})
	if err != nil {
		return nil, fromRPC(err)
	}
	out := make([]GraphInfo, 0, len(m.GetGraphs()))
	for _, g := range m.GetGraphs() {
		out = append(out, graphInfo(g))
	}
	return out, nil
}

// Graph describes one graph, with its nodes and edges.
func (c *Client) Graph(ctx context.Context, graph string) (*GraphInfo, error) {
	m, err := c.stub().GetGraph(c.ctx(ctx), &pb.GetGraphRequest{Graph: graph})
	if err != nil {
		return nil, fromRPC(err)
	}
	info := graphInfo(m)
	return &info, nil
}
