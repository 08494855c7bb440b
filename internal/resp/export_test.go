package resp

// SetBigArg sets the length from which r reads a bulk into a buffer of
// its own (BigArg in production; 0: never), for the black-box tests.
func SetBigArg(r *Reader, n int) { r.bigArg = uint16(n) }
