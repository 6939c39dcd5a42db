package schedule

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// Cron is a parsed five-field cron expression: minute, hour, day of
// month, month and day of week, read in a time zone. Each field is a
// comma-separated list of terms: *, a value, a range a-b, each with an
// optional step /n (*/15, 1-30/2, 5/10 meaning 5-max/10). Months and days
// of the week may be written as names (JAN-DEC, SUN-SAT, case does not
// matter); day of week 7 is Sunday, like 0. When both the day of month
// and the day of week are restricted, a day matching either runs, as in
// Vixie cron. The macros @yearly (@annually), @monthly, @weekly, @daily
// (@midnight) and @hourly stand for their usual expressions.
type Cron struct {
	expr    string
	minute  uint64 // bit n: minute n
	hour    uint64
	dom     uint64 // bits 1-31
	month   uint64 // bits 1-12
	dow     uint64 // bits 0-6
	domStar bool   // the day-of-month field is unrestricted
	dowStar bool
	loc     *time.Location
}

// cronField describes one field for parsing and messages.
type cronField struct {
	name     string
	min, max int
	names    []string // names of min, min+1 ...; nil when the field has none
}

var cronFields = [5]cronField{
	{name: "minute", min: 0, max: 59},
	{name: "hour", min: 0, max: 23},
	{name: "day of month", min: 1, max: 31},
	{name: "month", min: 1, max: 12, names: []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}},
	{name: "day of week", min: 0, max: 7, names: []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}},
}

func cronMacros() map[string]string {
	return cronMacrosLazy.get(func() map[string]string {
		return map[string]string{
			"@yearly":   "0 0 1 1 *",
			"@annually": "0 0 1 1 *",
			"@monthly":  "0 0 1 * *",
			"@weekly":   "0 0 * * 0",
			"@daily":    "0 0 * * *",
			"@midnight": "0 0 * * *",
			"@hourly":   "0 * * * *",
		}
	})
}

var cronMacrosLazy lazy[map[string]string]

// maxCronLen bounds an expression: nothing sensible is longer.
const maxCronLen = 256

// cronHorizon is how far ahead Next looks before deciding that an
// expression never runs (a 29 February that falls on a Monday comes
// back within 28 years).
const cronHorizon = 30

// ParseCron parses expr, whose times are read in loc (nil: time.Local).
// An expression that can never run (30 February) is an error too.
func ParseCron(expr string, loc *time.Location) (*Cron, error) {
	if loc == nil {
		loc = time.Local
	}
	orig := strings.TrimSpace(expr)
	if len(orig) > maxCronLen {
		return nil, fmt.Errorf("cron expression is %d bytes; a cron expression is five short fields such as \"*/15 9-17 * * MON-FRI\"", len(orig))
	}
	body := orig
	if strings.HasPrefix(body, "@") {
		m, ok := cronMacros()[strings.ToLower(body)]
		if !ok {
			return nil, fmt.Errorf("cron %q: unknown macro; use @hourly, @daily, @weekly, @monthly or @yearly, or five fields", orig)
		}
		body = m
	}
	fields := strings.Fields(body)
	if len(fields) != 5 {
		return nil, fmt.Errorf("cron %q: %d fields, want 5 (minute hour day-of-month month day-of-week), as in \"0 9 * * MON-FRI\"", orig, len(fields))
	}
	c := &Cron{expr: orig, loc: loc}
	sets := [5]*uint64{&c.minute, &c.hour, &c.dom, &c.month, &c.dow}
	for i, f := range fields {
		set, err := parseCronField(f, cronFields[i])
		if err != nil {
			return nil, fmt.Errorf("cron %q: %s field %q: %v", orig, cronFields[i].name, f, err)
		}
		*sets[i] = set
	}
	if c.dow&(1<<7) != 0 {
		c.dow = c.dow&^(1<<7) | 1 // 7 is Sunday
	}
	c.domStar = fields[2][0] == '*'
	c.dowStar = fields[4][0] == '*'
	from := time.Date(2000, 1, 1, 0, 0, 0, 0, loc)
	if c.next(from, cronHorizon).IsZero() {
		return nil, fmt.Errorf("cron %q never runs: no date matches its day and month fields", orig)
	}
	return c, nil
}

// parseCronField parses one field into a bit set.
func parseCronField(s string, f cronField) (uint64, error) {
	var set uint64
	for _, term := range strings.Split(s, ",") {
		if term == "" {
			return 0, fmt.Errorf("empty list item")
		}
		rng, stepText, hasStep := strings.Cut(term, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepText)
			if err != nil || n < 1 {
				return 0, fmt.Errorf("step %q must be a whole number of 1 or more", stepText)
			}
			step = n
		}
		lo, hi := f.min, f.max
		switch {
		case rng == "*":
			if f.name == "day of week" {
				hi = 6 // 7 would repeat Sunday
			}
		case strings.Contains(rng, "-"):
			a, b, _ := strings.Cut(rng, "-")
			var err error
			if lo, err = cronValue(a, f); err != nil {
				return 0, err
			}
			if hi, err = cronValue(b, f); err != nil {
				return 0, err
			}
			if lo > hi {
				return 0, fmt.Errorf("range %s goes backwards; write it from low to high", rng)
			}
		default:
			v, err := cronValue(rng, f)
			if err != nil {
				return 0, err
			}
			lo = v
			if !hasStep {
				hi = v
			}
		}
		for v := lo; v <= hi; v += step {
			set |= 1 << uint(v)
		}
	}
	return set, nil
}

// cronValue reads a number or a name of field f.
func cronValue(s string, f cronField) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("missing value")
	}
	if f.names != nil {
		for i, n := range f.names {
			if strings.EqualFold(s, n) {
				return f.min + i, nil
			}
		}
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		if f.names != nil {
			return 0, fmt.Errorf("%q is not a number from %d to %d nor a name (%s-%s)", s, f.min, f.max, strings.ToUpper(f.names[0]), strings.ToUpper(f.names[len(f.names)-1]))
		}
		return 0, fmt.Errorf("%q is not a number from %d to %d", s, f.min, f.max)
	}
	if v < f.min || v > f.max {
		return 0, fmt.Errorf("%d is outside %d-%d", v, f.min, f.max)
	}
	return v, nil
}

// String returns the expression as written.
func (c *Cron) String() string { return c.expr }

// Location returns the time zone the expression is read in.
func (c *Cron) Location() *time.Location { return c.loc }

// Next returns the first time strictly after t, to the minute, that the
// expression matches; the zero time when there is none within 30 years.
func (c *Cron) Next(t time.Time) time.Time { return c.next(t, cronHorizon) }

func (c *Cron) next(after time.Time, years int) time.Time {
	t := after.In(c.loc).Truncate(time.Minute).Add(time.Minute)
	limit := t.AddDate(years, 0, 0)
	for t.Before(limit) {
		y, mo, d := t.Date()
		h, mi := t.Hour(), t.Minute()
		var n time.Time
		switch {
		case c.month&(1<<uint(mo)) == 0:
			n = time.Date(y, mo+1, 1, 0, 0, 0, 0, c.loc)
		case !c.dayMatches(t):
			n = time.Date(y, mo, d+1, 0, 0, 0, 0, c.loc)
		case c.hour&(1<<uint(h)) == 0:
			n = time.Date(y, mo, d, h+1, 0, 0, 0, c.loc)
		case c.minute&(1<<uint(mi)) == 0:
			n = t.Add(time.Minute)
		default:
			return t
		}
		if !n.After(t) {
			// A clock change made the calendar step land on or before t.
			n = t.Add(time.Minute)
		}
		t = n
	}
	return time.Time{}
}

// dayMatches applies the day-of-month and day-of-week fields: a day
// must match both when either field starts with *, and either one when
// both are restricted (Vixie cron's rule).
func (c *Cron) dayMatches(t time.Time) bool {
	dom := c.dom&(1<<uint(t.Day())) != 0
	dow := c.dow&(1<<uint(t.Weekday())) != 0
	if c.domStar || c.dowStar {
		return dom && dow
	}
	return dom || dow
}

// maxMissed bounds the runs Missed counts.
const maxMissed = 100000

// Missed counts the runs due after from and up to and including to, and
// returns the last of them (zero when none). It stops counting at 100000.
func (c *Cron) Missed(from, to time.Time) (n int, last time.Time) {
	for t := c.Next(from); !t.IsZero() && !t.After(to); t = c.Next(t) {
		n++
		last = t
		if n >= maxMissed {
			break
		}
	}
	return n, last
}

// PerDay estimates how many times a day the expression runs, for
// warnings about very frequent schedules.
func (c *Cron) PerDay() int {
	return bits.OnesCount64(c.minute) * bits.OnesCount64(c.hour)
}
