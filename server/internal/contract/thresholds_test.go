package contract

import "testing"

func TestParseThresholds(t *testing.T) {
	th, err := ParseThresholds("- technical_depth: 7\n- overall: 80\n- weight code_quality: 2\n")
	if err != nil || th.Category["technical_depth"] != 7 || th.Overall != 80 || th.Weights["code_quality"] != 2 || th.Category["code_quality"] != 6 {
		t.Fatalf("%+v %v", th, err)
	}
	for _, bad := range []string{"- depth: 7", "- overall: 200", "- technical_depth: 11", "- technical_depth seven", "- weight overall: 2"} {
		if _, err := ParseThresholds(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestContractThresholds(t *testing.T) {
	c := Parse("/w/pipeline/05-critique/CONTEXT.md", []byte("# Stage: 05-critique\n\n## Process\nJudge.\n\n## Outputs\n- v.md -> output/\n\n## Thresholds\n- overall: 75\n"))
	th, err := c.Thresholds()
	if err != nil || th.Overall != 75 || th.Category["citation_fidelity"] != 6 {
		t.Errorf("%+v %v", th, err)
	}
	none := Parse("/w/pipeline/01-a/CONTEXT.md", []byte("# Stage: 01-a\n\n## Process\nGo.\n\n## Outputs\n- a.md -> output/\n"))
	if th, err := none.Thresholds(); err != nil || th.Overall != DefaultThresholds().Overall {
		t.Errorf("defaults: %+v %v", th, err)
	}
}
