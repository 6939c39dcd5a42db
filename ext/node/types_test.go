package node_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/zut-go/zut/ext/node"
)

// TestTypeFilesAgree keeps the two declaration files one text:
// zut_ext.d.mts is what tsc resolves for "./zut_ext.mjs", zut_ext.d.ts
// what editors and older settings read. The binary embeds zut_ext.d.ts
// alone and writes it under both names, so the file zut_ext.d.mts in the
// repository must be the same text. host/extinit's TestNodeTypes runs
// tsc on a scaffold that carries both.
func TestTypeFilesAgree(t *testing.T) {
	mts, err := os.ReadFile(node.ModuleTypesFileName)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(node.Types(), mts) || !bytes.Equal(node.ModuleTypes(), mts) {
		t.Errorf("%s and %s differ; keep them the same text (cp %s %s)", node.TypesFileName, node.ModuleTypesFileName, node.TypesFileName, node.ModuleTypesFileName)
	}
}
