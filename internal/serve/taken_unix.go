//go:build !windows

package serve

// explainTaken is err as it is: a listen on a taken address already says
// "address already in use" here.
func explainTaken(err error) error { return err }
