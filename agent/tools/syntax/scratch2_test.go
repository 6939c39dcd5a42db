package syntax

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/zut-go/zut/agent/tools"
)

func TestScratch2(t *testing.T) {
	a := os.Getenv("SCRATCH2")
	if a == "" {
		t.Skip()
	}
	tl := New(tools.Config{CWD: "/work/wt/codetools"}, Config{})
	r := tl.Run(context.Background(), json.RawMessage(a), nil)
	fmt.Println(r.IsError, r.Text())
	if os.Getenv("DET") != "" {
		fmt.Println(string(r.Details))
	}
}
