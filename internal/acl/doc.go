// Package acl holds Valkey 8.0.1's access control lists: users, their rule
// language (ACL SETUSER), the permission check a command passes before it
// runs, the ACL file, and the ACL log.
//
// # Ownership and immutability
//
// A *User is the identity a connection authenticates as; it lives as long
// as anyone holds it. Its permissions are a *Perms, which is immutable
// once published: ACL SETUSER builds a new Perms from a deep copy of the
// old one, applies every rule to the copy, and only if all of them are
// valid swaps the user's pointer (User.Perms is one atomic load). A
// connection therefore sees either the old or the new rules, never a
// half-applied SETUSER, and the check reads no lock.
//
// A deleted user keeps existing for connections that still hold it, but
// its Perms is replaced by one that allows nothing (Perms.Deleted): a
// connection that authenticated as it concurrently with ACL DELUSER is
// refused and closed by the server, as Valkey frees such clients.
//
// # Locking
//
// Users (the registry: names, the default user, the acl-pubsub-default
// setting) is guarded by one mutex, a leaf: nothing else is locked under
// it, and it is never held during I/O except ACL LOAD/SAVE's file read and
// write. Log has a mutex of its own, also a leaf.
//
// # The check's cost
//
// Perms.Unrestricted is precomputed: true when the root selector allows
// every command, key and channel (the default user, +@all ~* &*). The
// server tests it first, so the common case costs two loads and one
// predictable branch; only restricted users walk selectors, command bits
// and key patterns.
//
// # Facts, not copies
//
// Command ids, categories and key specs come from package command (Valkey
// 8.0.1's JSON specs). Renderings (ACL LIST, GETUSER), error texts and
// rule semantics are Valkey 8.0.1's, checked against valkey-server by
// tests/integration's differential ACL test.
package acl
