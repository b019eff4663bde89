package graphwire

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"
	pb "graphwire/graphwirepb"
)

// Thread records: every thread has one beside its versions (its graph, a
// metadata object, when it was created and last updated, its status, its
// TTL). The first run on an unknown thread creates it; CreateThread makes one
// before any run. With per-tenant tokens, each tenant sees only its own.

// ThreadStatus says where a thread is.
type ThreadStatus string

// A thread's statuses.
const (
	ThreadIdle        ThreadStatus = "idle"        // no run holds it
	ThreadBusy        ThreadStatus = "busy"        // a run holds it
	ThreadInterrupted ThreadStatus = "interrupted" // its last run stopped at an interrupt (Interrupts are pending)
	ThreadError       ThreadStatus = "error"       // its last run ended with an error
)

var threadStatuses = map[pb.ThreadStatus]ThreadStatus{
	pb.ThreadStatus_THREAD_STATUS_IDLE: ThreadIdle, pb.ThreadStatus_THREAD_STATUS_BUSY: ThreadBusy,
	pb.ThreadStatus_THREAD_STATUS_INTERRUPTED: ThreadInterrupted, pb.ThreadStatus_THREAD_STATUS_ERROR: ThreadError,
}

// TTL is a thread's time to live: it expires Seconds after its last update,
// then is deleted, or (KeepLatest) pruned to its newest version.
type TTL struct {
	Seconds    uint32
	KeepLatest bool
}

// Thread is a thread's record.
type Thread struct {
	ThreadID   string
	Graph      string
	Metadata   json.RawMessage // a JSON object
	CreatedAt  time.Time
	UpdatedAt  time.Time
	Status     ThreadStatus
	Interrupts []Interrupt     // pending when Status is ThreadInterrupted
	Values     json.RawMessage // its newest values, when asked for (IncludeValues); nil otherwise
	TTL        *TTL            // nil: it never expires
	ExpiresAt  *time.Time      // nil: it does not expire
	Error      *ErrorInfo      // its last run's error when Status is ThreadError; nil otherwise
}

func thread(m *pb.ThreadInfo) Thread {
	out := Thread{ThreadID: m.GetThreadId(), Graph: m.GetGraph(), Metadata: raw(m.GetMetadataJson()), Status: threadStatuses[m.GetStatus()],
		Interrupts: interrupts(m.GetInterrupts()), Values: raw(m.GetValuesJson()), Error: errorInfo(m.GetError())}
	if m.CreatedAt != nil {
		out.CreatedAt = m.GetCreatedAt().AsTime()
	}
	if m.UpdatedAt != nil {
		out.UpdatedAt = m.GetUpdatedAt().AsTime()
	}
	if m.Ttl != nil {
		out.TTL = &TTL{Seconds: m.GetTtl().GetSeconds(), KeepLatest: m.GetTtl().GetStrategy() == pb.TtlStrategy_TTL_STRATEGY_KEEP_LATEST}
	}
	if m.ExpiresAt != nil {
		at := m.GetExpiresAt().AsTime()
		out.ExpiresAt = &at
	}
	return out
}

func ttl(t *TTL) *pb.ThreadTtl {
	if t == nil {
		return nil
	}
	strategy := pb.TtlStrategy_TTL_STRATEGY_DELETE
	if t.KeepLatest {
		strategy = pb.TtlStrategy_TTL_STRATEGY_KEEP_LATEST
	}
	return &pb.ThreadTtl{Seconds: t.Seconds, Strategy: strategy}
}

// CreateThreadOptions adjust CreateThread.
type CreateThreadOptions struct {
	ThreadID  string // empty: the server makes one
	Metadata  any    // encoded with encoding/json as a JSON object; nil: {}
	DoNothing bool   // the thread exists: return it (default: ErrAlreadyExists)
	TTL       *TTL   // nil: the graph's default
}

// CreateThread creates a thread's record (no version yet).
func (c *Client) CreateThread(ctx context.Context, graph string, o CreateThreadOptions) (*Thread, error) {
	meta, err := jsonText(o.Metadata, "metadata")
	if err != nil {
		return nil, err
	}
	req := &pb.CreateThreadRequest{Graph: graph, ThreadId: o.ThreadID, MetadataJson: meta, Ttl: ttl(o.TTL)}
	if o.DoNothing {
		req.IfExists = pb.IfExists_IF_EXISTS_DO_NOTHING
	}
	return c.threadCall(c.stub().CreateThread(c.ctx(ctx), req))
}

// GetThread reads a thread's record (with its newest values when includeValues); ErrNotFound when there is none.
func (c *Client) GetThread(ctx context.Context, graph, threadID string, includeValues bool) (*Thread, error) {
	return c.threadCall(c.stub().GetThread(c.ctx(ctx), &pb.GetThreadRequest{Graph: graph, ThreadId: threadID, IncludeValues: includeValues}))
}

// UpdateThread merges metadata (a JSON object; each top-level key replaces the
// thread's; nil: none) into the thread's, and sets its TTL (nil: as it is;
// Seconds 0: it no longer expires).
func (c *Client) UpdateThread(ctx context.Context, graph, threadID string, metadata any, t *TTL) (*Thread, error) {
	meta, err := jsonText(metadata, "metadata")
	if err != nil {
		return nil, err
	}
	return c.threadCall(c.stub().UpdateThread(c.ctx(ctx), &pb.UpdateThreadRequest{Graph: graph, ThreadId: threadID, MetadataJson: meta, Ttl: ttl(t)}))
}

// ThreadFilter says which threads a search or a count reads: every condition set must hold.
type ThreadFilter struct {
	Graph         string
	Metadata      any // contained in the thread's metadata (as PostgreSQL's jsonb @>)
	Statuses      []ThreadStatus
	ThreadIDs     []string
	CreatedAfter  time.Time // zero: any
	CreatedBefore time.Time
	UpdatedAfter  time.Time
	UpdatedBefore time.Time
}

func stamp(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

func (f ThreadFilter) proto() (*pb.ThreadFilter, error) {
	meta, err := jsonText(f.Metadata, "metadata")
	if err != nil {
		return nil, err
	}
	out := &pb.ThreadFilter{Graph: f.Graph, MetadataJson: meta, ThreadIds: f.ThreadIDs, CreatedAfter: stamp(f.CreatedAfter),
		CreatedBefore: stamp(f.CreatedBefore), UpdatedAfter: stamp(f.UpdatedAfter), UpdatedBefore: stamp(f.UpdatedBefore)}
	for _, s := range f.Statuses {
		found := false
		for number, name := range threadStatuses {
			if name == s {
				out.Statuses = append(out.Statuses, number)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("graphwire: statuses: %q is not a thread status", s)
		}
	}
	return out, nil
}

// SearchThreadsOptions adjust SearchThreads.
type SearchThreadsOptions struct {
	Filter        ThreadFilter
	ByUpdatedAt   bool   // sort by updated_at (default: created_at)
	Ascending     bool   // oldest first (default: newest first)
	Limit         uint32 // 1 to 1000; 0: 20
	PageToken     string // the previous page's NextPageToken
	IncludeValues bool
}

// ThreadPage is one page of a search; NextPageToken is empty on the last page.
type ThreadPage struct {
	Threads       []Thread
	NextPageToken string
}

// SearchThreads reads one page of the threads the filter matches.
func (c *Client) SearchThreads(ctx context.Context, o SearchThreadsOptions) (*ThreadPage, error) {
	filter, err := o.Filter.proto()
	if err != nil {
		return nil, err
	}
	req := &pb.SearchThreadsRequest{Filter: filter, Limit: o.Limit, PageToken: o.PageToken, IncludeValues: o.IncludeValues}
	if o.ByUpdatedAt {
		req.SortBy = pb.ThreadSortBy_THREAD_SORT_BY_UPDATED_AT
	}
	if o.Ascending {
		req.SortOrder = pb.SortOrder_SORT_ORDER_ASC
	}
	resp, err := c.stub().SearchThreads(c.ctx(ctx), req)
	if err != nil {
		return nil, fromRPC(err)
	}
	page := &ThreadPage{NextPageToken: resp.GetNextPageToken()}
	for _, t := range resp.GetThreads() {
		page.Threads = append(page.Threads, thread(t))
	}
	return page, nil
}

// CountThreads counts the threads the filter matches.
func (c *Client) CountThreads(ctx context.Context, f ThreadFilter) (uint32, error) {
	filter, err := f.proto()
	if err != nil {
		return 0, err
	}
	resp, err := c.stub().CountThreads(c.ctx(ctx), &pb.CountThreadsRequest{Filter: filter})
	if err != nil {
		return 0, fromRPC(err)
	}
	return resp.GetCount(), nil
}

// CopyThread makes a new thread (newThreadID; empty: the server makes one) with
// the same history and metadata.
func (c *Client) CopyThread(ctx context.Context, graph, threadID, newThreadID string) (*Thread, error) {
	return c.threadCall(c.stub().CopyThread(c.ctx(ctx), &pb.CopyThreadRequest{Graph: graph, ThreadId: threadID, NewThreadId: newThreadID}))
}

// PruneThread deletes the thread's older versions, keeping the newest keepLast
// (0: 1); how many were deleted.
func (c *Client) PruneThread(ctx context.Context, graph, threadID string, keepLast uint32) (uint32, error) {
	resp, err := c.stub().PruneThread(c.ctx(ctx), &pb.PruneThreadRequest{Graph: graph, ThreadId: threadID, KeepLast: keepLast})
	if err != nil {
		return 0, fromRPC(err)
	}
	return resp.GetDeleted(), nil
}

func (c *Client) threadCall(m *pb.ThreadInfo, err error) (*Thread, error) {
	if err != nil {
		return nil, fromRPC(err)
	}
	t := thread(m)
	return &t, nil
}
