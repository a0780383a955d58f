package io.coord.chaos;

/**
 * The faults a schedule can hold (ids from RELIABILITY.md's fault catalogue). The first five are
 * applied by {@link FaultRunner} itself; the last two need the scenario, which knows who holds the
 * lock or leads, and are applied through its {@link FaultRunner.Hook}.
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
    /** F1 on a worker in the middle of its work (holding a task, waiting in a barrier); the scenario picks it. */
    PAUSE_BUSY;

    /** Whether it stops or restarts an ensemble member (clients of the others must ride it out). */
    public boolean hitsEnsemble() {
        return this == KILL_ZK_LEADER || this == KILL_ZK_FOLLOWER;
    }
}
