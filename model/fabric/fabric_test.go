package fabric

import (
	"context"
	"testing"
	"time"

	"github.com/rocesweep/rocesweep/model/config"
)

func fixedClock() time.Time { return time.Date(2026, 1, 13, 19, 11, 38, 0, time.UTC) }

func TestSmokeDefault(t *testing.T) {
	cfg := config.Default()
	res, err := Run(context.Background(), cfg, Options{JobID: "j", Clock: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res.Summary)
}
