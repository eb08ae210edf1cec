//go:build unix

package dirfs

import "syscall"

// oNoFollow makes open(2) fail on a link in the last element of the path.
const oNoFollow = syscall.O_NOFOLLOW
