package io.coord.chaos;

import java.util.List;

/**
 * The controller side of a scenario. It starts its workers and faults in contexts taken from
 * {@code run} (one per result line; the lock scenario takes two, for itself and its control),
 * drives the workload, checks its invariants and returns one {@link ChaosResult} per context.
 * Contexts are closed by the suite, also on failure.
 */
public interface Scenario {
    /** Must equal its entry's name in {@link Scenarios#ALL}. */
    String name();

    List<ChaosResult> run(ChaosSuite.Run run) throws InterruptedException;
}
