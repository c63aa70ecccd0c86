package authserver

// Sign-ins waiting for the owner's consent are bounded, so that whoever
// reaches /authorize can neither fill the memory nor keep the owner's
// own sign-in out (1,100 pending sign-ins of one registered client once
// made the owner's fail with "too many sign-ins are waiting"). A new
// request always gets a place: past a bound, the oldest waiting request
// of the same client, or from the same address, or, when all are full,
// of the client with the most, makes room. One the owner has approved
// (waiting for its code's exchange) is never the one to go.
const (
	maxPending          = 1000
	maxPendingPerClient = 16
	maxPendingPerAddr   = 32
)

// addrKey carries the address a request came from to the storage.
type addrKey struct{}

// makeRoom forgets the waiting requests that a's place needs (s.mu held).
func (s *storage) makeRoom(a *authRequest) {
	s.evictOver(func(b *authRequest) bool { return b.req.ClientID == a.req.ClientID }, maxPendingPerClient-1)
	if a.addr != "" {
		s.evictOver(func(b *authRequest) bool { return b.addr == a.addr }, maxPendingPerAddr-1)
	}
	for len(s.requests) >= maxPending {
		busiest, most := "", 0
		counts := map[string]int{}
		for _, b := range s.requests {
			if !b.done {
				counts[b.req.ClientID]++
				if counts[b.req.ClientID] > most {
					busiest, most = b.req.ClientID, counts[b.req.ClientID]
				}
			}
		}
		if most == 0 || !s.evictOldest(func(b *authRequest) bool { return b.req.ClientID == busiest }) {
			return
		}
	}
}

// evictOver forgets the oldest waiting requests that match until at most
// keep of them are left.
func (s *storage) evictOver(match func(*authRequest) bool, keep int) {
	for {
		n := 0
		for _, b := range s.requests {
			if !b.done && match(b) {
				n++
			}
		}
		if n <= keep || !s.evictOldest(match) {
			return
		}
	}
}

// evictOldest forgets the oldest waiting request that matches; false when
// none does.
func (s *storage) evictOldest(match func(*authRequest) bool) bool {
	var oldest *authRequest
	for _, b := range s.requests {
		if !b.done && match(b) && (oldest == nil || b.created.Before(oldest.created) || b.created.Equal(oldest.created) && b.id < oldest.id) {
			oldest = b
		}
	}
	if oldest == nil {
		return false
	}
	delete(s.requests, oldest.id)
	return true
}

// pendingCount is how many sign-ins wait for consent (for tests and the
// log).
func (s *storage) pendingCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, b := range s.requests {
		if !b.done {
			n++
		}
	}
	return n
}
