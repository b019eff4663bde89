package graphwire_test

import (
	"errors"
	"testing"
	"time"

	"graphwire"
)

type memory struct {
	Text string `json:"text"`
	Kind string `json:"kind"`
}

func TestStore(t *testing.T) {
	client, _ := shared(t)
	c := ctx(t)
	user := []string{"memories", "user-42"}
	before := time.Now().Add(-time.Minute)

	if err := client.PutItem(c, user, "food", memory{"likes pizza", "preference"}, graphwire.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := client.PutItem(c, user, "city", memory{"lives in Lyon", "fact"}, graphwire.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	never := time.Duration(0)
	if err := client.PutItem(c, []string{"memories", "user-7"}, "food", memory{"likes soup", "preference"},
		graphwire.PutOptions{TTL: &never}); err != nil {
		t.Fatal(err)
	}

	got, err := client.GetItem(c, user, "food")
	if err != nil {
		t.Fatal(err)
	}
	var m memory
	if err := got.DecodeValue(&m); err != nil {
		t.Fatal(err)
	}
	if m.Text != "likes pizza" || got.Key != "food" || len(got.Namespace) != 2 || got.Namespace[1] != "user-42" {
		t.Fatalf("got %+v (%+v)", got, m)
	}
	if got.CreatedAt.Before(before) || got.UpdatedAt.Before(got.CreatedAt) || got.Score != nil {
		t.Fatalf("times or score: %+v", got)
	}

	facts, err := client.SearchItems(c, []string{"memories"}, graphwire.SearchOptions{Filter: map[string]any{"kind": "fact"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 1 || facts[0].Key != "city" {
		t.Fatalf("search by filter: %+v", facts)
	}
	page, err := client.SearchItems(c, user, graphwire.SearchOptions{Limit: 1, Offset: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 1 || page[0].Key != "city" { // items in the order they were first written
		t.Fatalf("second page: %+v", page)
	}

	spaces, err := client.ListNamespaces(c, graphwire.NamespaceOptions{Prefix: []string{"memories"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(spaces) != 2 || spaces[0][1] != "user-42" || spaces[1][1] != "user-7" {
		t.Fatalf("namespaces: %v", spaces)
	}
	cut, err := client.ListNamespaces(c, graphwire.NamespaceOptions{MaxDepth: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(cut) != 1 || len(cut[0]) != 1 || cut[0][0] != "memories" {
		t.Fatalf("max depth 1: %v", cut)
	}

	deleted, err := client.DeleteItem(c, user, "food")
	if err != nil || !deleted {
		t.Fatalf("delete: %v %v", deleted, err)
	}
	again, err := client.DeleteItem(c, user, "food")
	if err != nil || again {
		t.Fatalf("delete again: %v %v", again, err)
	}
	if _, err := client.GetItem(c, user, "food"); !errors.Is(err, graphwire.ErrNotFound) {
		t.Fatalf("get after delete: %v", err)
	}
	if err := client.PutItem(c, user, "x", []int{1}, graphwire.PutOptions{}); !errors.Is(err, graphwire.ErrInvalidArgument) {
		t.Fatalf("a value that is not an object: %v", err)
	}
	if err := client.PutItem(c, user, "x", nil, graphwire.PutOptions{}); err == nil {
		t.Fatal("a nil value was accepted")
	}
}
