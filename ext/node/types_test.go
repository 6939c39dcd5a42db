package node_test

import (
	"bytes"
	"testing"

	"github.com/zut-go/zut/ext/node"
)

// TestTypeFilesAgree keeps the two declaration files one text:
// zut_ext.d.mts is what tsc resolves for "./zut_ext.mjs", zut_ext.d.ts
// what editors and older settings read. host/extinit's TestNodeTypes runs
// tsc on a scaffold that carries both.
func TestTypeFilesAgree(t *testing.T) {
	if !bytes.Equal(node.Types(), node.ModuleTypes()) {
		t.Errorf("%s and %s differ; keep them the same text (cp %s %s)", node.TypesFileName, node.ModuleTypesFileName, node.TypesFileName, node.ModuleTypesFileName)
	}
}
