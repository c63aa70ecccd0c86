package envelope

import "testing"

func TestConfirmed(t *testing.T) {
	for v, want := range map[any]bool{
		true: true, "true": true, "1": true, "yes": true, "y": true, " YES ": true, float64(1): true,
		false: false, "false": false, "no": false, "": false, float64(0): false, float64(2): false, nil: false, "2": false,
	} {
		if got := confirmed(v); got != want {
			t.Errorf("confirmed(%#v) = %v, want %v", v, got, want)
		}
	}
}

func TestIsEnvelope(t *testing.T) {
	for body, want := range map[string]bool{
		`{"method":"list_tools"}`:                        true,
		`{"id":"x","method":"call_tool","name":"a"}`:     true,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`: false,
		`[{"jsonrpc":"2.0"}]`:                            false,
		`not json`:                                       false,
	} {
		if got := IsEnvelope([]byte(body)); got != want {
			t.Errorf("IsEnvelope(%s) = %v, want %v", body, got, want)
		}
	}
}
