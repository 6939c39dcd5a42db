package schedule

import (
	"os"
	"strings"
	"testing"
	"time"
)

var base = time.Date(2026, 1, 2, 15, 4, 30, 0, time.UTC) // a Friday

func mustCron(t *testing.T, expr string, loc *time.Location) *Cron {
	t.Helper()
	c, err := ParseCron(expr, loc)
	if err != nil {
		t.Fatalf("ParseCron(%q) = %v", expr, err)
	}
	return c
}

// TestCronNext: the next runs of expressions using every part of the
// syntax, from a fixed time.
func TestCronNext(t *testing.T) {
	cases := []struct {
		expr string
		want []string // the next runs, in order
	}{
		{"* * * * *", []string{"2026-01-02 15:05", "2026-01-02 15:06"}},
		{"*/15 * * * *", []string{"2026-01-02 15:15", "2026-01-02 15:30", "2026-01-02 15:45", "2026-01-02 16:00"}},
		{"0 9 * * MON-FRI", []string{"2026-01-05 09:00", "2026-01-06 09:00"}},
		{"0 9 * * mon-fri", []string{"2026-01-05 09:00"}},
		{"30 8,12,18 * * *", []string{"2026-01-02 18:30", "2026-01-03 08:30", "2026-01-03 12:30"}},
		{"0 0 1 JAN,jul *", []string{"2026-07-01 00:00", "2027-01-01 00:00"}},
		{"0 12 * * 7", []string{"2026-01-04 12:00", "2026-01-11 12:00"}},
		{"0 12 * * 0", []string{"2026-01-04 12:00"}},
		{"0 12 * * SUN", []string{"2026-01-04 12:00"}},
		{"0 0 13 * FRI", []string{"2026-01-09 00:00", "2026-01-13 00:00", "2026-01-16 00:00"}}, // day of month OR day of week
		{"0 0 */10 * *", []string{"2026-01-11 00:00", "2026-01-21 00:00", "2026-01-31 00:00", "2026-02-01 00:00"}},
		{"5/20 * * * *", []string{"2026-01-02 15:05", "2026-01-02 15:25", "2026-01-02 15:45", "2026-01-02 16:05"}},
		{"10-20/5 9 * * *", []string{"2026-01-03 09:10", "2026-01-03 09:15", "2026-01-03 09:20", "2026-01-04 09:10"}},
		{"0 0 29 2 *", []string{"2028-02-29 00:00", "2032-02-29 00:00"}},
		{"@hourly", []string{"2026-01-02 16:00", "2026-01-02 17:00"}},
		{"@daily", []string{"2026-01-03 00:00"}},
		{"@weekly", []string{"2026-01-04 00:00"}},
		{"@monthly", []string{"2026-02-01 00:00"}},
		{"@yearly", []string{"2027-01-01 00:00"}},
		{"  0  9  *  *  1  ", []string{"2026-01-05 09:00"}},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			c := mustCron(t, tc.expr, time.UTC)
			at := base
			for _, w := range tc.want {
				at = c.Next(at)
				if got := at.Format("2006-01-02 15:04"); got != w {
					t.Fatalf("ParseCron(%q) runs at %s, want %s", tc.expr, got, w)
				}
			}
		})
	}
}

// TestCronErrors: every bad expression is refused with a message naming
// the field and what is wrong.
func TestCronErrors(t *testing.T) {
	cases := []struct{ expr, want string }{
		{"", "0 fields, want 5"},
		{"* * * *", "4 fields, want 5"},
		{"* * * * * *", "6 fields, want 5"},
		{"60 * * * *", "minute field \"60\": 60 is outside 0-59"},
		{"* 24 * * *", "hour field \"24\": 24 is outside 0-23"},
		{"* * 0 * *", "day of month field \"0\": 0 is outside 1-31"},
		{"* * * 13 *", "month field \"13\""},
		{"* * * * 8", "day of week field \"8\""},
		{"* * * FOO *", `"FOO" is not a number from 1 to 12 nor a name (JAN-DEC)`},
		{"* * * * MONDAY", `"MONDAY" is not a number`},
		{"*/0 * * * *", "step \"0\" must be a whole number of 1 or more"},
		{"*/x * * * *", "step \"x\""},
		{"5-1 * * * *", "range 5-1 goes backwards"},
		{"1,,2 * * * *", "empty list item"},
		{"- * * * *", "missing value"},
		{"0 0 30 2 *", "never runs"},
		{"0 0 31 4,6,9,11 *", "never runs"},
		{"@often", "unknown macro"},
		{strings.Repeat("1,", 200) + "1 * * * *", "cron expression is"},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			_, err := ParseCron(tc.expr, time.UTC)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseCron(%q) = %v, want an error containing %q", tc.expr, err, tc.want)
			}
		})
	}
}

// TestCronZone: fields are read in the entry's zone, across a change of
// the clocks.
func TestCronZone(t *testing.T) {
	if _, err := os.Stat("/usr/share/zoneinfo/Europe/Paris"); err != nil {
		t.Skip("no time zone database at /usr/share/zoneinfo; install tzdata to run this test")
	}
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip(err)
	}
	c := mustCron(t, "0 9 * * *", paris)
	// The clocks went forward on 29 March 2026 at 02:00.
	from := time.Date(2026, 3, 28, 8, 0, 0, 0, paris)
	got := []string{}
	for at, i := from, 0; i < 2; i++ {
		at = c.Next(at)
		got = append(got, at.UTC().Format("01-02 15:04 UTC"))
	}
	if want := []string{"03-28 08:00 UTC", "03-29 07:00 UTC"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("09:00 Paris across the change = %v, want %v", got, want)
	}
	// Every minute keeps going through the hour that does not exist.
	every := mustCron(t, "* * * * *", paris)
	at := time.Date(2026, 3, 29, 1, 59, 0, 0, paris)
	if n := every.Next(at); n.Sub(at) != time.Minute {
		t.Errorf("Next(%v) = %v, want one minute later", at, n)
	}
}

// TestCronMissed counts the runs between two times.
func TestCronMissed(t *testing.T) {
	c := mustCron(t, "*/5 * * * *", time.UTC)
	from := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	n, last := c.Missed(from, from.Add(17*time.Minute))
	if n != 3 || !last.Equal(from.Add(15*time.Minute)) {
		t.Errorf("Missed = %d, %v; want 3, 10:15", n, last)
	}
	if n, last := c.Missed(from, from.Add(4*time.Minute)); n != 0 || !last.IsZero() {
		t.Errorf("Missed(4 minutes) = %d, %v; want none", n, last)
	}
}

// FuzzParseCron: no expression panics or hangs, and a parsed one runs
// after any time it is asked about.
func FuzzParseCron(f *testing.F) {
	for _, s := range []string{"* * * * *", "*/15 9-17 * * MON-FRI", "0 0 29 2 *", "@daily", "5/20 1,2,3 1-31/7 JAN-DEC/2 SUN-SAT", "0 0 13 * FRI", "- - - - -"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		c, err := ParseCron(expr, time.UTC)
		if err != nil {
			return
		}
		if n := c.Next(base); !n.After(base) {
			t.Fatalf("ParseCron(%q).Next(%v) = %v, want a later time", expr, base, n)
		}
	})
}
