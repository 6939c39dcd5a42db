package schedule

import (
	"strings"
	"testing"
	"time"
)

// TestParseAt reads each form of one-shot time relative to a fixed now.
func TestParseAt(t *testing.T) {
	now := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	cases := []struct{ in, want, err string }{
		{in: "+10m", want: "2026-01-02 15:14:05"},
		{in: "+ 90s", want: "2026-01-02 15:05:35"},
		{in: "in 1h30m", want: "2026-01-02 16:34:05"},
		{in: "In 2 h", want: "2026-01-02 17:04:05"},
		{in: "17:30", want: "2026-01-02 17:30:00"},
		{in: "09:00", want: "2026-01-03 09:00:00"},
		{in: "15:04:06", want: "2026-01-02 15:04:06"},
		{in: "2026-05-01 09:00", want: "2026-05-01 09:00:00"},
		{in: "2026-05-01T09:00:30", want: "2026-05-01 09:00:30"},
		{in: "2026-05-01T09:00:00+02:00", want: "2026-05-01 07:00:00"},
		{in: "", err: "at is empty"},
		{in: "+0s", err: "not a positive duration"},
		{in: "+soon", err: "not a positive duration"},
		{in: "tomorrow", err: "is not a time zut reads"},
		{in: "2025-12-31 10:00", err: "which has passed"},
		{in: "2040-01-01 00:00", err: "more than five years ahead"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseAt(tc.in, now, time.UTC)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("ParseAt(%q) = %v, %v; want an error containing %q", tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil || got.Format("2006-01-02 15:04:05") != tc.want {
				t.Errorf("ParseAt(%q) = %v, %v; want %s", tc.in, got, err, tc.want)
			}
		})
	}
}
