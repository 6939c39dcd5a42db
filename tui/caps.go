package tui

import (
	"context"
	"github.com/zut-go/zut/tui/ansi"
	"io"
	"strings"
	"time"
)

// Caps is what zut knows about the terminal: the colour profile from the
// environment, and the features the terminal confirmed by answering the
// queries Probe sends.
type Caps struct {
	Profile ansi.Profile
	// Answered says the terminal replied to the device attributes query;
	// when false nothing below was confirmed.
	Answered bool
	// SyncOutput says the terminal supports synchronized output (mode 2026).
	SyncOutput bool
	// KittyKeyboard says the terminal speaks the kitty keyboard protocol.
	KittyKeyboard bool
	// Background is the terminal's background colour, when it reported it.
	Background    ansi.Color
	HasBackground bool
	// Reflow says whether the terminal rewraps lines on resize (see
	// Screen.SetReflow); it is a guess from the environment.
	Reflow bool
}

// DarkBackground reports whether the terminal's background is dark, and
// whether that is known.
func (c Caps) DarkBackground() (dark, known bool) {
	if !c.HasBackground || c.Background.Kind != ansi.ColorRGB {
		return false, false
	}
	v := c.Background.Value
	r, g, b := float64(v>>16&0xff), float64(v>>8&0xff), float64(v&0xff)
	// Relative luminance, close enough without gamma for dark or light.
	return 0.2126*r+0.7152*g+0.0722*b < 128, true
}

// DetectProfile chooses the colour profile from the environment, read
// through getenv (os.Getenv in production): no colour when stdout is not a
// terminal or for TERM=dumb; attributes without colour (ProfileMono) when
// NO_COLOR is set to anything non-empty; truecolor for COLORTERM=truecolor or 24bit; 256 colours for TERM
// containing "256color"; 16 colours otherwise.
func DetectProfile(getenv func(string) string, isTTY bool) ansi.Profile {
	term := getenv("TERM")
	switch {
	case !isTTY, term == "dumb":
		return ansi.ProfileNone
	case getenv("NO_COLOR") != "":
		return ansi.ProfileMono
	}
	switch strings.ToLower(getenv("COLORTERM")) {
	case "truecolor", "24bit":
		return ansi.ProfileTrueColor
	}
	if strings.Contains(term, "256color") || strings.Contains(term, "direct") {
		return ansi.ProfileANSI256
	}
	return ansi.ProfileANSI
}

// DetectReflow guesses from the environment whether the terminal rewraps
// lines when it is resized: xterm (which sets XTERM_VERSION) and the Linux
// console do not; tmux, screen and the common graphical terminals do.
func DetectReflow(getenv func(string) string) bool {
	if getenv("TMUX") != "" {
		return true
	}
	return getenv("XTERM_VERSION") == "" && getenv("TERM") != "linux"
}

// probeQuery asks, in order, for the kitty keyboard flags, the state of
// mode 2026, the background colour and the primary device attributes.
// Terminals answer in order and all answer DA1, so its reply closes the
// probe.
const probeQuery = "\x1b[?u\x1b[?2026$p\x1b]11;?\x1b\\\x1b[c"

// Probe writes the capability queries to w and reads the replies from
// events until the device attributes reply arrives, timeout passes or ctx
// ends. Queries left unanswered mean unsupported. Events that are not
// replies (keys typed meanwhile) are returned in order so that nothing
// typed is lost. The Profile and Reflow fields are left for the caller.
func Probe(ctx context.Context, w io.Writer, events <-chan Event, timeout time.Duration) (Caps, []Event, error) {
	var c Caps
	if _, err := io.WriteString(w, probeQuery); err != nil {
		return c, nil, err
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var other []Event
	for {
		select {
		case <-ctx.Done():
			return c, other, ctx.Err()
		case <-timer.C:
			return c, other, nil
		case ev, ok := <-events:
			if !ok {
				return c, other, nil
			}
			switch e := ev.(type) {
			case DeviceAttributes:
				c.Answered = true
				return c, other, nil
			case ModeReport:
				if e.Mode == 2026 {
					c.SyncOutput = e.Supported()
				}
			case KeyboardFlags:
				c.KittyKeyboard = true
			case ColorReport:
				if e.Code == 11 {
					c.Background, c.HasBackground = ansi.RGB(e.R, e.G, e.B), true
				}
			default:
				other = append(other, ev)
			}
		}
	}
}
