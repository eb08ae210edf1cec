package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/rocesweep/rocesweep/model/config"
)

// clipLong shortens what a message echoes of the user's input: a quoted value or an
// unbroken run of text longer than clipAt bytes keeps its first clipKeep bytes and says
// how long it was (`name "xxxx…" (1,000,000 bytes)`), so that a megabyte value in a spec
// or a flag does not come back as a megabyte of error (issue 38). The rest of the message
// (the file, line, field and rule) is kept whole.
func clipLong(msg string) string {
	if len(msg) <= clipAt {
		return msg
	}
	msg = quotedRE.ReplaceAllStringFunc(msg, func(q string) string {
		if len(q) <= clipAt {
			return q
		}
		return `"` + clipText(q[1:len(q)-1]) + `"` + fmt.Sprintf(" (%s bytes)", config.Commas(int64(len(q)-2)))
	})
	return runRE.ReplaceAllStringFunc(msg, func(r string) string {
		if len(r) <= clipAt {
			return r
		}
		body := strings.TrimRight(r, ":,;)") // the message's own punctuation stays
		return clipText(body) + fmt.Sprintf(" (%s bytes)", config.Commas(int64(len(body)))) + r[len(body):]
	})
}

// clipAt is the longest value a message echoes whole; clipKeep what it keeps of a
// longer one.
const (
	clipAt   = 200
	clipKeep = 60
)

// clipText is the first clipKeep bytes of s (not cutting a UTF-8 sequence) and "…".
func clipText(s string) string {
	end := clipKeep
	for end > 0 && end < len(s) && s[end]&0xc0 == 0x80 {
		end--
	}
	return s[:end] + "…"
}

var (
	// quotedRE is a Go-quoted string (%q) of more than clipAt bytes, quotes included.
	quotedRE = regexp.MustCompile(`"(?:[^"\\\n]|\\.){199,}"`)
	// runRE is a run of more than clipAt bytes without a space or a quote.
	runRE = regexp.MustCompile(`[^\s"]{201,}`)
)

// clipLines applies clipLong to each line of a message.
func clipLines(msg string) string {
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		lines[i] = clipLong(l)
	}
	return strings.Join(lines, "\n")
}
