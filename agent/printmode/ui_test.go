package printmode

import (
	"strings"
	"testing"

	"github.com/zut-go/zut/proto"
)

// stderrUI answers dialogs cancelled and prints notes.
func TestStderrUIAdditions(t *testing.T) {
	var b strings.Builder
	u := &stderrUI{w: &b}
	u.Print("plan", proto.Print{Text: "Plan mode ON", Style: proto.PrintInfo})
	u.Print("plan", proto.Print{Text: "bad", Style: proto.PrintError, Subtitle: "check"})
	var got proto.UIResponse
	u.UIRequest("plan", proto.UIRequest{Kind: proto.UIConfirm}, func(r proto.UIResponse) { got = r })
	if b.String() != "[plan] Plan mode ON\n[plan] error: check: bad\n" || !got.Cancelled {
		t.Errorf("stderrUI wrote %q and answered %+v", b.String(), got)
	}
	if u.SuspendTUI("plan") || u.ReloadExtensions("plan") {
		t.Errorf("stderrUI claims a terminal UI or a reload loop")
	}
}
