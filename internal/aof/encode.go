package aof

import (
	"strconv"

	"github.com/corvid-kv/corvid/internal/effects"
)

// AppendSelect appends "SELECT db" as feedAppendOnlyFile writes it.
func AppendSelect(dst []byte, db int) []byte {
	var tmp [20]byte
	n := strconv.AppendInt(tmp[:0], int64(db), 10)
	dst = append(dst, "*2\r\n$6\r\nSELECT\r\n$"...)
	dst = strconv.AppendInt(dst, int64(len(n)), 10)
	dst = append(dst, '\r', '\n')
	dst = append(dst, n...)
	return append(dst, '\r', '\n')
}

// AppendTimestamp appends the annotation "#TS:<unix seconds>\r\n" that
// Valkey writes with aof-timestamp-enabled (genAofTimestampAnnotationIfNeeded).
func AppendTimestamp(dst []byte, unix int64) []byte {
	dst = append(dst, "#TS:"...)
	dst = strconv.AppendInt(dst, unix, 10)
	return append(dst, '\r', '\n')
}

// Encoder renders effects units as Valkey's feedAppendOnlyFile writes
// them: a SELECT before an op whose database is not the one last
// selected in this file, none before MULTI and EXEC (propagated with
// dictid -1, so the SELECT of a transaction's first op goes inside it).
// The zero Encoder has no database selected. An Encoder belongs to one
// goroutine at a time (the Writer keeps its own under its mutex).
type Encoder struct {
	selected int // database + 1; 0: none selected yet
}

// Reset forgets the selected database, so the next op selects its own (a
// new incr file begins so, as Valkey sets aof_selected_db to -1).
func (e *Encoder) Reset() { e.selected = 0 }

// Selected is the database the encoded stream has selected, if any.
func (e *Encoder) Selected() (db int, ok bool) { return e.selected - 1, e.selected > 0 }

// AppendUnit appends u's ops (inside MULTI/EXEC when u is wrapped), each
// preceded by a SELECT when its database differs from the selected one.
func (e *Encoder) AppendUnit(dst []byte, u *effects.Unit) []byte {
	wrapped := u.Wrapped()
	last := u.Len() + 1 // index of EXEC when wrapped
	i := 0
	u.Each(func(db int, cmd []byte) {
		ctl := wrapped && (i == 0 || i == last)
		i++
		if !ctl && db+1 != e.selected {
			dst = AppendSelect(dst, db)
			e.selected = db + 1
		}
		dst = append(dst, cmd...)
	})
	return dst
}

// AppendOp appends one command in database db, preceded by a SELECT when
// needed; db -1 never selects (MULTI, EXEC).
func (e *Encoder) AppendOp(dst []byte, db int, argv ...[]byte) []byte {
	if db >= 0 && db+1 != e.selected {
		dst = AppendSelect(dst, db)
		e.selected = db + 1
	}
	return effects.AppendCommand(dst, argv...)
}
