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

    /**
     * The names of the control results ({@code <name>-control}) {@link #run} must return besides
     * its own; the suite reports a missing one as a failed result, since a scenario whose control
     * did not run proves nothing. None by default.
     */
    default List<String> controls() {
        return List.of();
    }
}
