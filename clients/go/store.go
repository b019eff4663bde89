package graphwire

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	pb "graphwire/graphwirepb"
)

// The store: long-term memory shared by a tenant's threads (a user's
// memories, preferences, facts), read and written by the graph's nodes and,
// through these methods, by the chat server. Items live in namespaces (lists
// of labels, outermost first, e.g. {"memories", "user-42"}) under a key;
// values are JSON objects.

// Item is one stored value.
type Item struct {
	Namespace []string
	Key       string
	Value     json.RawMessage // a JSON object
	CreatedAt time.Time       // when the key was first written
	UpdatedAt time.Time       // when the item was last written
	Score     *float64        // a search with a query: the similarity to it; nil otherwise
}

// DecodeValue decodes the item's value into v (a pointer to a struct or map).
func (i *Item) DecodeValue(v any) error { return json.Unmarshal(i.Value, v) }

func item(m *pb.Item) Item {
	out := Item{Namespace: m.GetNamespace(), Key: m.GetKey(), Value: json.RawMessage(m.GetValueJson())}
	if m.CreatedAt != nil {
		out.CreatedAt = m.GetCreatedAt().AsTime()
	}
	if m.UpdatedAt != nil {
		out.UpdatedAt = m.GetUpdatedAt().AsTime()
	}
	if m.Score != nil {
		score := m.GetScore()
		out.Score = &score
	}
	return out
}

// PutOptions adjust PutItem; the zero value uses the server's defaults.
type PutOptions struct {
	IndexFields []string       // paths into the value to embed for semantic search; nil: the server's configured fields
	NoIndex     bool           // embed nothing of this item (filters still find it)
	TTL         *time.Duration // until the item expires; nil: the server's default; 0: never
}

// PutItem stores value (encoded with encoding/json; it must encode as a JSON
// object) under namespace and key, replacing what was there.
func (c *Client) PutItem(ctx context.Context, namespace []string, key string, value any, o PutOptions) error {
	text, err := jsonText(value, "value")
	if err != nil {
		return err
	}
	if text == "" {
		return fmt.Errorf("graphwire: value: a JSON object is required, got nil")
	}
	req := &pb.PutItemRequest{Namespace: namespace, Key: key, ValueJson: text, IndexFields: o.IndexFields, NoIndex: o.NoIndex}
	if o.TTL != nil {
		minutes := o.TTL.Minutes()
		req.TtlMinutes = &minutes
	}
	_, err = c.stub().PutItem(c.ctx(ctx), req)
	return fromRPC(err)
}

// GetItem reads the item under namespace and key; ErrNotFound when there is none.
func (c *Client) GetItem(ctx context.Context, namespace []string, key string) (*Item, error) {
	m, err := c.stub().GetItem(c.ctx(ctx), &pb.GetItemRequest{Namespace: namespace, Key: key})
	if err != nil {
		return nil, fromRPC(err)
	}
	i := item(m)
	return &i, nil
}

// SearchOptions narrow SearchItems; the zero value finds the first 10 items
// of every namespace.
type SearchOptions struct {
	Filter map[string]any // only values with these keys and equal values, or {"$gte": 4}-style comparisons
	Query  string         // rank by similarity to this text (semantic search; needs the server's store index)
	Limit  uint32         // the most items; 0: the server's default (10)
	Offset uint32         // matching items to skip, for paging
}

// SearchItems finds items whose namespace starts with prefix (nil: every namespace).
func (c *Client) SearchItems(ctx context.Context, prefix []string, o SearchOptions) ([]Item, error) {
	req := &pb.SearchItemsRequest{NamespacePrefix: prefix, Query: o.Query, Offset: o.Offset}
	if o.Filter != nil {
		var err error
		if req.FilterJson, err = jsonText(o.Filter, "filter"); err != nil {
			return nil, err
		}
	}
	if o.Limit > 0 {
		req.Limit = &o.Limit
	}
	m, err := c.stub().SearchItems(c.ctx(ctx), req)
	if err != nil {
		return nil, fromRPC(err)
	}
	out := make([]Item, 0, len(m.GetItems()))
	for _, i := range m.GetItems() {
		out = append(out, item(i))
	}
	return out, nil
}

// DeleteItem deletes the item under namespace and key; false when there was none.
func (c *Client) DeleteItem(ctx context.Context, namespace []string, key string) (bool, error) {
	m, err := c.stub().DeleteItem(c.ctx(ctx), &pb.DeleteItemRequest{Namespace: namespace, Key: key})
	if err != nil {
		return false, fromRPC(err)
	}
	return m.GetDeleted(), nil
}

// NamespaceOptions narrow ListNamespaces; the zero value lists the first 100.
type NamespaceOptions struct {
	Prefix   []string // only namespaces starting with these labels ("*" matches any one label)
	Suffix   []string // only namespaces ending with these labels ("*" matches any one label)
	MaxDepth uint32   // cut each namespace to this many labels; 0: whole namespaces
	Limit    uint32   // the most namespaces; 0: the server's default (100)
	Offset   uint32   // namespaces to skip, for paging
}

// ListNamespaces lists the namespaces that hold items, sorted label by label.
func (c *Client) ListNamespaces(ctx context.Context, o NamespaceOptions) ([][]string, error) {
	req := &pb.ListNamespacesRequest{Prefix: o.Prefix, Suffix: o.Suffix, Offset: o.Offset}
	if o.MaxDepth > 0 {
		req.MaxDepth = &o.MaxDepth
	}
	if o.Limit > 0 {
		req.Limit = &o.Limit
	}
	m, err := c.stub().ListNamespaces(c.ctx(ctx), req)
	if err != nil {
		return nil, fromRPC(err)
	}
	out := make([][]string, 0, len(m.GetNamespaces()))
	for _, ns := range m.GetNamespaces() {
		out = append(out, ns.GetLabels())
	}
	return out, nil
}
