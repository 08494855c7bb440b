package rdb_test

import (
	"bytes"
	"fmt"

	"github.com/corvid-kv/corvid/internal/rdb"
)

// A snapshot streams keys database by database into a Writer; a Loader
// hands them back one at a time.
func Example() {
	var file bytes.Buffer
	w := rdb.NewWriter(&file, rdb.DefaultOptions())
	w.BeginDB(0, 2, 1) // 2 keys, 1 with an expiry
	s := rdb.NewEntry(0, []byte("greeting"), rdb.KindString)
	s.String = []byte("hello")
	s.ExpireMs = 4102444800000
	w.WriteEntry(s)
	z := rdb.NewEntry(0, []byte("scores"), rdb.KindZSet)
	z.ZSet = []rdb.ZMember{{Member: []byte("b"), Score: 2}, {Member: []byte("a"), Score: 1}}
	w.WriteEntry(z)
	if err := w.Close(); err != nil {
		panic(err)
	}

	l := rdb.Loader{OnEntry: func(e *rdb.Entry) error {
		fmt.Printf("db%d %s %s expire=%d\n", e.DB, e.Key, e.Kind, e.ExpireMs)
		return nil
	}}
	info, err := l.Load(&file)
	fmt.Println(info.Version, info.Keys, err)
	// Output:
	// db0 greeting string expire=4102444800000
	// db0 scores zset expire=-1
	// 11 2 <nil>
}
