package schedule

import (
	"fmt"
	"strings"
	"time"
)

// maxAhead is how far ahead a one-shot time may be.
const maxAhead = 5 * 366 * 24 * time.Hour

// ParseAt reads a one-shot time, relative to now and in loc (nil:
// time.Local): "+10m" or "in 1h30m" (a Go duration), "15:04" (today, or
// tomorrow when that time has passed), "2006-01-02 15:04" or
// "2006-01-02T15:04" (local), or RFC 3339 with a zone. The time must be
// in the future and within five years.
func ParseAt(s string, now time.Time, loc *time.Location) (time.Time, error) {
	if loc == nil {
		loc = time.Local
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, fmt.Errorf("at is empty: give a time such as \"+10m\", \"17:30\" or \"2026-05-01 09:00\"")
	}
	now = now.In(loc)
	var t time.Time
	switch rel, ok := relative(s); {
	case ok:
		d, err := time.ParseDuration(rel)
		if err != nil || d <= 0 {
			return time.Time{}, fmt.Errorf("at %q: %q is not a positive duration such as 90s, 10m or 1h30m", s, rel)
		}
		t = now.Add(d)
	default:
		var err error
		if t, err = absolute(s, now, loc); err != nil {
			return time.Time{}, err
		}
	}
	if !t.After(now) {
		return time.Time{}, fmt.Errorf("at %q is %s, which has passed (it is %s now); give a time in the future", s, t.Format("2006-01-02 15:04:05 MST"), now.Format("15:04:05 MST"))
	}
	if t.Sub(now) > maxAhead {
		return time.Time{}, fmt.Errorf("at %q is more than five years ahead", s)
	}
	return t, nil
}

// relative returns the duration text of "+10m" or "in 10m".
func relative(s string) (string, bool) {
	if r, ok := strings.CutPrefix(s, "+"); ok {
		return strings.TrimSpace(r), true
	}
	if r, ok := strings.CutPrefix(strings.ToLower(s), "in "); ok {
		return strings.ReplaceAll(strings.TrimSpace(r), " ", ""), true
	}
	return "", false
}

// absoluteLayouts are the local layouts of absolute times.
var absoluteLayouts = []string{
	"2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04:05", "2006-01-02T15:04",
}

func absolute(s string, now time.Time, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.In(loc), nil
	}
	for _, l := range absoluteLayouts {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t, nil
		}
	}
	for _, l := range []string{"15:04:05", "15:04"} {
		if c, err := time.Parse(l, s); err == nil {
			t := time.Date(now.Year(), now.Month(), now.Day(), c.Hour(), c.Minute(), c.Second(), 0, loc)
			if !t.After(now) {
				t = time.Date(now.Year(), now.Month(), now.Day()+1, c.Hour(), c.Minute(), c.Second(), 0, loc)
			}
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("at %q is not a time zut reads: use \"+10m\", \"in 2h\", \"17:30\", \"2026-05-01 09:00\" or RFC 3339 (2026-05-01T09:00:00+02:00)", s)
}
