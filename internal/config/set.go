package config

import "strings"

// ReplyError is an error whose text is a complete RESP error reply without
// the leading '-', e.g. "ERR Unknown option ..." or "LOADING ...". The
// server writes it unchanged with resp.Writer.Error.
type ReplyError string

func (e ReplyError) Error() string { return string(e) }

// SetOptions carries the client context CONFIG SET depends on.
type SetOptions struct {
	// ClientIsLocal: the client is on loopback or a unix socket, which
	// enable-protected-configs local requires for dir and dbfilename.
	ClientIsLocal bool
	// Loading: the server is loading its dataset; appendonly, dir and
	// repl-diskless-load are then refused with a LOADING error.
	Loading bool
}

const loadingErr = ReplyError("LOADING Valkey is loading the dataset in memory")

// Set is CONFIG SET k v [k v ...] for a non-local client outside loading.
func (c *Config) Set(pairs [][2]string) error { return c.SetWith(pairs, SetOptions{}) }

// SetWith is CONFIG SET, all or nothing: every name is checked first, then
// every value is parsed into a new snapshot, which is published only if all
// succeed; then the OnChange hooks of changed directives run, and if one
// fails the old snapshot is restored and the hooks run again. Error texts
// and their precedence are Valkey's (configSetCommand).
func (c *Config) SetWith(pairs [][2]string, o SetOptions) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.snap()

	refs := make([]*ref, len(pairs))
	var (
		invalid            bool
		unknown            bool // the first invalid name is not a parameter
		unknownName        string
		errArg, errStr     string
		denyLoadingRefused bool
	)
	prot := old.v[idxEnableProtectedCfgs].n
	allowProtected := prot == ProtectedYes || (prot == ProtectedLocal && o.ClientIsLocal)
	for i, p := range pairs {
		r := lookup(p[0])
		if r == nil {
			if !invalid {
				unknownName, unknown = p[0], true
				invalid = true
			}
			continue
		}
		if invalid {
			continue
		}
		e := r.e
		if e.has(fImmutable) || (e.has(fProtected) && !allowProtected) {
			errStr = "can't set protected config"
			if e.has(fImmutable) {
				errStr = "can't set immutable config"
			}
			errArg, invalid = p[0], true
			continue
		}
		if o.Loading && e.has(fDenyLoading) {
			denyLoadingRefused, invalid = true, true
			continue
		}
		for j := 0; j < i; j++ {
			// Valkey compares registered entries: an alias and its
			// canonical name are distinct and not duplicates.
			if refs[j] == r {
				errStr, errArg, invalid = "duplicate parameter", p[0], true
				break
			}
		}
		refs[i] = r
	}
	if invalid {
		switch {
		case denyLoadingRefused:
			return loadingErr
		case unknown:
			return replyErrorf("ERR Unknown option or number of arguments for CONFIG SET - '" + unknownName + "'")
		}
		return failed(errArg, errStr)
	}

	ns := old.clone()
	var changed []*ref
	for i, p := range pairs {
		e := refs[i].e
		args := []string{p[1]}
		if e.has(fMultiArg) {
			args = splitSpaces(p[1])
		}
		nv, ch, msg := e.set(ns.v[e.idx], args, nil)
		if msg == "" {
			msg = c.checkUnsupported(e.name, e.format(nv))
		}
		if msg != "" {
			return failed(refs[i].name, msg)
		}
		ns.v[e.idx] = nv
		if ch {
			changed = append(changed, refs[i])
		}
	}
	c.cur.Store(ns)

	// Run hooks once per changed directive, remembering which ran so they
	// can re-apply the restored values after a failure.
	var ran []func(*Config) error
	seen := map[int]bool{}
	for _, r := range changed {
		if seen[r.e.idx] {
			continue
		}
		seen[r.e.idx] = true
		for _, h := range c.hooks[r.e.idx] {
			ran = append(ran, h)
			if err := h(c); err != nil {
				c.cur.Store(old)
				for _, again := range ran {
					_ = again(c) // best effort, as restoreBackupConfig
				}
				return failed(r.name, err.Error())
			}
		}
	}
	return nil
}

func failed(arg, msg string) error {
	if msg == "" {
		return replyErrorf("ERR CONFIG SET failed (possibly related to argument '" + arg + "')")
	}
	return replyErrorf("ERR CONFIG SET failed (possibly related to argument '" + arg + "') - " + msg)
}

// replyErrorf makes an error reply safe for RESP the way Valkey's
// addReplyErrorFormat does: user-supplied names may contain CR or LF, which
// become spaces.
func replyErrorf(s string) ReplyError {
	return ReplyError(strings.NewReplacer("\r", " ", "\n", " ").Replace(s))
}
