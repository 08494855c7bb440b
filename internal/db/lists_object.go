package db

// ListHashEncoding reports OBJECT ENCODING for a list or hash, and "" for
// any other type (for composing EncodingOf with SetZSetEncoding).
func ListHashEncoding(o *Object) string {
	switch o.Type {
	case TypeList:
		return listEncoding(listOf(o))
	case TypeHash:
		return hashEncoding(o.Val)
	}
	return ""
}

// ListHashCopy deep-copies a list or hash for COPY, keeping its encoding,
// and returns nil for any other type (for composing CopyValue).
func ListHashCopy(o *Object) any {
	switch o.Type {
	case TypeList:
		return listCopy(o)
	case TypeHash:
		return hashCopy(o)
	}
	return nil
}
