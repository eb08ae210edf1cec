//go:build !unix

package dirfs

// oNoFollow is 0 where open has no such flag: OpenFile checks with Lstat first.
const oNoFollow = 0
