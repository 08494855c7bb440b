package db
import ("testing";"strconv";"github.com/corvid-kv/corvid/internal/resp")
func BenchmarkZZSetTouch(b *testing.B) {
	ks := New(16)
	c := &Ctx{KS: ks, W: resp.NewWriter(256), Now: testNow}
	keys := make([][]byte, 1000)
	for i := range keys { keys[i] = []byte("key:" + strconv.Itoa(i)) }
	v := []byte("0123456789012345678901234567890123456789")
	b.Run("set+touch", func(b *testing.B) {
		for i := 0; i < b.N; i++ { k := keys[i%1000]; c.SetString(k, v, false); c.Touch(k) }
	})
	b.Run("set+accountKey-only", func(b *testing.B) {
		for i := 0; i < b.N; i++ { k := keys[i%1000]; ks.accountKey(0, k) }
	})
}
