package io.coord.chaos;

/**
 * The faults a schedule can hold (ids from RELIABILITY.md's fault catalogue). The role-aimed kinds
 * ({@code PAUSE_HOLDER}, {@code PAUSE_LEADER}, {@code KILL_BUSY}, {@code PAUSE_BUSY}) need the
 * scenario, which knows who holds the lock or leads, and are applied through its
 * {@link FaultRunner.Hook}; {@link FaultRunner} applies all the others itself.
 */
public enum FaultKind {
    /** F6: kill -9 of the ensemble's current leader, then restart on the same data. */
    KILL_ZK_LEADER,
    /** kill -9 of a follower of the ensemble, then restart. */
    KILL_ZK_FOLLOWER,
    /** F2: real server-side expiry of a worker's session. */
    EXPIRE,
    /** F1: SIGSTOP of a worker for 2.5x the negotiated session timeout, then SIGCONT. */
    PAUSE,
    /** F4 (hard form): the worker's proxy refuses connections for 1 s, open ones are reset. */
    CUT,
    /** F5: black-hole partition of one worker (its proxy freezes for 2.5x the session timeout); the scenario applies it. */
    FREEZE,
    /** F1 on the worker that holds the lock right now, between grant and its first write. */
    PAUSE_HOLDER,
    /** F1 on the worker that leads right now. */
    PAUSE_LEADER,
    /** F13: kill -9 of a worker in the middle of its work (holding a task, waiting in a barrier); the scenario picks it. */
    KILL_BUSY,
    /** F4 on a worker in the middle of its work (a queue producer mid-enqueue): its proxy refuses for 1 s; the scenario picks it. */
    CUT_BUSY,
    /** F1 on a worker in the middle of its work (holding a task, waiting in a barrier); the scenario picks it. */
    PAUSE_BUSY,
    /**
     * F7: SIGSTOP of the ensemble's current leader for longer than syncLimit x tickTime, until the
     * others elected a new leader, then SIGCONT; its clients move to the others.
     */
    PAUSE_ZK_LEADER,
    /**
     * F8: SIGSTOP of 2 of the 3 members (the leader among them) for 2.5x the negotiated session
     * timeout, then SIGCONT: no session survives (every client goes LOST, the CURATOR-696 case).
     */
    LOSE_QUORUM,
    /**
     * F9: one member (the leader for an even pick, a follower for an odd one) cut off from the other
     * two, both ways, for 2.5x the session timeout: it stops serving, the majority elects and
     * serves, its clients move.
     */
    PARTITION_ZK,
    /**
     * F12: the wall clock of the worker started under libfaketime steps by hours (forward for an
     * even pick, back for an odd one) while it is cut off from the ensemble, past its session, then
     * back to real time: Curator's wall-clock LOST timer is wrong, the recipes' nanoTime leases must
     * not be. Skipped (not scheduled) where libfaketime is missing.
     */
    CLOCK_STEP;

    /** Whether it stops, restarts or cuts off an ensemble member (clients must ride it out). */
    public boolean hitsEnsemble() {
        return this == KILL_ZK_LEADER || this == KILL_ZK_FOLLOWER || this == PAUSE_ZK_LEADER || this == LOSE_QUORUM
                || this == PARTITION_ZK;
    }

    /** Whether the scenario must start one worker on a {@link io.coord.test.SteppedClock} for it. */
    public boolean needsSteppedClock() {
        return this == CLOCK_STEP;
    }
}
