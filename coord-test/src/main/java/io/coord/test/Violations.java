package io.coord.test;

/**
 * Safety violations counted by a fault run. A fenced run must end with {@link #total()} 0; the
 * unfenced <em>control</em> run of the same schedule must show at least one, or the fault schedule
 * was too weak to prove anything (RELIABILITY.md, "Lessons for our harness").
 *
 * @param staleWrites      writes accepted from a holder whose lease had already passed to another
 * @param overlaps         times two holders were inside the critical section at once
 * @param lostUpdates      acknowledged updates missing at the end
 * @param tokenRegressions accepted fencing tokens lower than one accepted before
 */
public record Violations(long staleWrites, long overlaps, long lostUpdates, long tokenRegressions) {
    public static final Violations NONE = new Violations(0, 0, 0, 0);

    public Violations {
        if (staleWrites < 0 || overlaps < 0 || lostUpdates < 0 || tokenRegressions < 0) {
            throw new IllegalArgumentException("violation counts must be >= 0, got " + staleWrites + "/" + overlaps + "/"
                    + lostUpdates + "/" + tokenRegressions);
        }
    }

    public long total() {
        return staleWrites + overlaps + lostUpdates + tokenRegressions;
    }

    public Violations plus(Violations other) {
        return new Violations(staleWrites + other.staleWrites, overlaps + other.overlaps, lostUpdates + other.lostUpdates,
                tokenRegressions + other.tokenRegressions);
    }

    /** For the fenced run. */
    public void assertNone() {
        if (total() != 0) {
            throw new AssertionError("safety violated: " + this);
        }
    }

    /** For the control run: the fault schedule must be strong enough to break the unfenced variant. */
    public void assertSomeInControl() {
        if (total() == 0) {
            throw new AssertionError("the unfenced control run showed no violation: the fault schedule proves nothing");
        }
    }
}
