package vaultgen

// Score tallies how well searches found the notes they were labelled
// with, over N queries: Hit1 and Hit3 count the queries whose note ranked
// first or among the first three, RR sums the reciprocal ranks (for MRR,
// RR/N).
type Score struct {
	N, Hit1, Hit3 int
	RR            float64
}

// Add counts one query: hit is the 1-based rank that hit@k judges, rr the
// one the reciprocal rank is taken from (the same unless a query has
// several right notes, of which hit@k takes the first and the reciprocal
// rank the best placed); 0 is not found.
func (s *Score) Add(hit, rr int) {
	s.N++
	if hit == 1 {
		s.Hit1++
	}
	if hit >= 1 && hit <= 3 {
		s.Hit3++
	}
	if rr > 0 {
		s.RR += 1 / float64(rr)
	}
}
