package graphwire

import (
	"context"
	"encoding/json"
	"fmt"

	pb "graphwire/graphwirepb"
)

// Assistants: named, versioned configurations of the server's graphs (see
// Assistant). Every change is a new version and one version is current; a run
// names one with WithAssistant. With per-tenant tokens, each tenant has its
// own assistants and reads and runs the graphs' default ones, which changing
// is ErrPermissionDenied.

func assistant(m *pb.Assistant) (*Assistant, error) {
	out := &Assistant{
		AssistantID: m.GetAssistantId(), Graph: m.GetGraph(), Name: m.GetName(), Description: m.GetDescription(),
		Context: rawObject(m.GetContextJson()), Metadata: rawObject(m.GetMetadataJson()), Version: int(m.GetVersion()),
	}
	if text := m.GetConfigJson(); text != "" {
		if err := json.Unmarshal([]byte(text), &out.Config); err != nil {
			return nil, fmt.Errorf("graphwire: the server's assistant config %s: %w", text, err)
		}
	}
	if m.CreatedAt != nil {
		out.CreatedAt = m.GetCreatedAt().AsTime()
	}
	if m.UpdatedAt != nil {
		out.UpdatedAt = m.GetUpdatedAt().AsTime()
	}
	return out, nil
}

func assistants(ms []*pb.Assistant) ([]Assistant, error) {
	out := make([]Assistant, 0, len(ms))
	for _, m := range ms {
		a, err := assistant(m)
		if err != nil {
			return nil, err
		}
		out = append(out, *a)
	}
	return out, nil
}

// rawObject is a JSON object field's text; "{}" when empty.
func rawObject(text string) json.RawMessage {
	if text == "" {
		return json.RawMessage("{}")
	}
	return json.RawMessage(text)
}

// optionalText is v's JSON text when set; nil otherwise.
func optionalText(set bool, v any, field string) (*string, error) {
	if !set {
		return nil, nil
	}
	text, err := jsonText(v, field)
	return &text, err
}

// configText is an assistant config's JSON text; "" for nil.
func configText(c *AssistantConfig) (string, error) {
	if c == nil {
		return "", nil
	}
	return jsonText(c, "config")
}

// CreateAssistantOptions adjust CreateAssistant; the zero value makes an
// "Untitled" assistant with a new UUID and no defaults.
type CreateAssistantOptions struct {
	AssistantID    string           // its id; "": a new UUID
	Name           string           // "": "Untitled"
	Description    string           // "": none
	Config         *AssistantConfig // nil: none
	Context        any              // a JSON object (encoded with encoding/json): the runs' context, which nodes read as runtime.context; nil: none
	Metadata       map[string]any   // the caller's own, which SearchAssistants filters by
	ReturnExisting bool             // when AssistantID is taken: return that assistant instead of ErrAlreadyExists
}

// CreateAssistant makes an assistant of graph (version 1). ErrNotFound for an
// unknown graph; ErrInvalidArgument, naming the key, for a bad config.
func (c *Client) CreateAssistant(ctx context.Context, graph string, o CreateAssistantOptions) (*Assistant, error) {
	req := &pb.CreateAssistantRequest{Graph: graph, AssistantId: o.AssistantID, Name: o.Name}
	if o.Description != "" {
		req.Description = &o.Description
	}
	if o.ReturnExisting {
		req.IfExists = pb.IfExists_IF_EXISTS_DO_NOTHING
	}
	var err error
	if req.ConfigJson, err = configText(o.Config); err != nil {
		return nil, err
	}
	if req.ContextJson, err = jsonText(o.Context, "context"); err != nil {
		return nil, err
	}
	if o.Metadata != nil {
		if req.MetadataJson, err = jsonText(o.Metadata, "metadata"); err != nil {
			return nil, err
		}
	}
	m, err := c.stub().CreateAssistant(c.ctx(ctx), req)
	if err != nil {
		return nil, fromRPC(err)
	}
	return assistant(m)
}

// GetAssistant reads the assistant's current version; ErrNotFound when there is none.
func (c *Client) GetAssistant(ctx context.Context, assistantID string) (*Assistant, error) {
	m, err := c.stub().GetAssistant(c.ctx(ctx), &pb.GetAssistantRequest{AssistantId: assistantID})
	if err != nil {
		return nil, fromRPC(err)
	}
	return assistant(m)
}

// UpdateAssistantOptions say what UpdateAssistant changes; each nil field
// keeps the current version's. At least one must be set.
type UpdateAssistantOptions struct {
	Graph       *string          // another registered graph
	Name        *string          // a new name ("": "Untitled")
	Description *string          // a new description
	Config      *AssistantConfig // replaces the current config whole
	Context     any              // replaces the current context whole
	Metadata    map[string]any   // merged into the current metadata, key by key
}

// UpdateAssistant makes a new version of the assistant, current from now.
// ErrInvalidArgument when o sets nothing; ErrNotFound for an unknown assistant.
func (c *Client) UpdateAssistant(ctx context.Context, assistantID string, o UpdateAssistantOptions) (*Assistant, error) {
	req := &pb.UpdateAssistantRequest{AssistantId: assistantID, Graph: o.Graph, Name: o.Name, Description: o.Description}
	var err error
	if req.ConfigJson, err = optionalText(o.Config != nil, o.Config, "config"); err != nil {
		return nil, err
	}
	if req.ContextJson, err = optionalText(o.Context != nil, o.Context, "context"); err != nil {
		return nil, err
	}
	if req.MetadataJson, err = optionalText(o.Metadata != nil, o.Metadata, "metadata"); err != nil {
		return nil, err
	}
	m, err := c.stub().UpdateAssistant(c.ctx(ctx), req)
	if err != nil {
		return nil, fromRPC(err)
	}
	return assistant(m)
}

// SetAssistantVersion makes version the assistant's current one (an older
// one, to roll back): LangGraph's setLatest. ErrNotFound for an unknown version.
func (c *Client) SetAssistantVersion(ctx context.Context, assistantID string, version int) (*Assistant, error) {
	if version < 1 || version > 1<<31-1 {
		return nil, fmt.Errorf("graphwire: version must be from 1 to 2^31 - 1, not %d", version)
	}
	req := &pb.SetAssistantVersionRequest{AssistantId: assistantID, Version: int32(version)}
	m, err := c.stub().SetAssistantVersion(c.ctx(ctx), req)
	if err != nil {
		return nil, fromRPC(err)
	}
	return assistant(m)
}

// AssistantVersionsOptions narrow ListAssistantVersions; the zero value lists the newest 10.
type AssistantVersionsOptions struct {
	Metadata map[string]any // only versions whose metadata contains this object
	Limit    uint32         // the most versions (at most 1000); 0: the server's default (10)
	Offset   uint32         // versions to skip, for paging
}

// ListAssistantVersions lists the assistant's versions, newest first.
func (c *Client) ListAssistantVersions(ctx context.Context, assistantID string, o AssistantVersionsOptions) ([]Assistant, error) {
	req := &pb.ListAssistantVersionsRequest{AssistantId: assistantID, Offset: o.Offset}
	if o.Metadata != nil {
		var err error
		if req.MetadataJson, err = jsonText(o.Metadata, "metadata"); err != nil {
			return nil, err
		}
	}
	if o.Limit > 0 {
		req.Limit = &o.Limit
	}
	m, err := c.stub().ListAssistantVersions(c.ctx(ctx), req)
	if err != nil {
		return nil, fromRPC(err)
	}
	return assistants(m.GetVersions())
}

// AssistantSortBy is what SearchAssistants sorts by.
type AssistantSortBy string

const (
	SortByCreatedAt   AssistantSortBy = "created_at" // the default
	SortByUpdatedAt   AssistantSortBy = "updated_at" // when the current version became current
	SortByAssistantID AssistantSortBy = "assistant_id"
	SortByGraph       AssistantSortBy = "graph"
	SortByName        AssistantSortBy = "name"
)

var sortBys = map[AssistantSortBy]pb.AssistantSortBy{
	"":                pb.AssistantSortBy_ASSISTANT_SORT_BY_UNSPECIFIED,
	SortByCreatedAt:   pb.AssistantSortBy_ASSISTANT_SORT_BY_CREATED_AT,
	SortByUpdatedAt:   pb.AssistantSortBy_ASSISTANT_SORT_BY_UPDATED_AT,
	SortByAssistantID: pb.AssistantSortBy_ASSISTANT_SORT_BY_ASSISTANT_ID,
	SortByGraph:       pb.AssistantSortBy_ASSISTANT_SORT_BY_GRAPH,
	SortByName:        pb.AssistantSortBy_ASSISTANT_SORT_BY_NAME,
}

// AssistantFilter narrows SearchAssistants and CountAssistants: every field
// set must match; the zero value matches every assistant.
type AssistantFilter struct {
	Graph    string         // only the assistants of this graph
	Name     string         // only those whose name contains this text, ignoring case
	Metadata map[string]any // only those whose metadata contains this object ({"team": "x"} matches {"team": "x", "tier": 2})
}

func (f AssistantFilter) metadataJSON() (string, error) {
	if f.Metadata == nil {
		return "", nil
	}
	return jsonText(f.Metadata, "metadata")
}

// AssistantSearchOptions are a search's filter, order and page; the zero value
// finds the 10 newest assistants.
type AssistantSearchOptions struct {
	AssistantFilter
	SortBy    AssistantSortBy // "": SortByCreatedAt; ties are broken by id
	Ascending bool            // false: descending, newest first
	Limit     uint32          // the most assistants (at most 1000); 0: the server's default (10)
	Offset    uint32          // assistants to skip, for paging
}

// SearchAssistants finds assistants (their current versions).
func (c *Client) SearchAssistants(ctx context.Context, o AssistantSearchOptions) ([]Assistant, error) {
	sortBy, ok := sortBys[o.SortBy]
	if !ok {
		return nil, fmt.Errorf("graphwire: unknown AssistantSortBy %q", o.SortBy)
	}
	metadata, err := o.metadataJSON()
	if err != nil {
		return nil, err
	}
	req := &pb.SearchAssistantsRequest{Graph: o.Graph, Name: o.Name, MetadataJson: metadata, SortBy: sortBy, Offset: o.Offset}
	if o.Ascending {
		req.SortOrder = pb.SortOrder_SORT_ORDER_ASC
	}
	if o.Limit > 0 {
		req.Limit = &o.Limit
	}
	m, err := c.stub().SearchAssistants(c.ctx(ctx), req)
	if err != nil {
		return nil, fromRPC(err)
	}
	return assistants(m.GetAssistants())
}

// CountAssistants counts the assistants a search with this filter finds (all pages).
func (c *Client) CountAssistants(ctx context.Context, f AssistantFilter) (int, error) {
	metadata, err := f.metadataJSON()
	if err != nil {
		return 0, err
	}
	m, err := c.stub().CountAssistants(c.ctx(ctx), &pb.CountAssistantsRequest{Graph: f.Graph, Name: f.Name, MetadataJson: metadata})
	if err != nil {
		return 0, fromRPC(err)
	}
	return int(m.GetCount()), nil
}

// DeleteAssistant deletes the assistant and all its versions (its threads
// stay); false when there was none.
func (c *Client) DeleteAssistant(ctx context.Context, assistantID string) (bool, error) {
	m, err := c.stub().DeleteAssistant(c.ctx(ctx), &pb.DeleteAssistantRequest{AssistantId: assistantID})
	if err != nil {
		return false, fromRPC(err)
	}
	return m.GetDeleted(), nil
}
