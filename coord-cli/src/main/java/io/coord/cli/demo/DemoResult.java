package io.coord.cli.demo;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What one demo run found: the figures of its summary and the verdict on each invariant.
 *
 * @param tasksPlanned      tasks in the job's plan (every wave)
 * @param tasksDone         planned tasks with exactly one accepted ledger write and one done marker
 * @param retries           deliveries of a task after its first (a worker died, or lost its claim)
 * @param fencedRejections  ledger writes the fence refused
 * @param staleAccepted     ledger writes accepted with a token older than one accepted before
 * @param leaders           the coordinators in the order they were elected, with their epochs
 * @param configVersions    the {@code batch.size} versions each worker reported applying
 * @param ledger            the ledger's final balance
 * @param expected          the sum of the planned tasks' amounts
 * @param sessionTimeoutMs  the session timeout the servers granted the workers
 * @param elapsed           the run's wall time
 * @param invariants        each invariant's name and whether it held, in the order checked
 * @param failures          one sentence per failed invariant (or step that did not happen)
 */
record DemoResult(int tasksPlanned, int tasksDone, int retries, int fencedRejections, int staleAccepted,
                  List<Leader> leaders, Map<String, List<Long>> configVersions, long ledger, long expected,
                  long sessionTimeoutMs, Duration elapsed, Map<String, Boolean> invariants, List<String> failures) {
    /** One coordinator and its epoch. */
    record Leader(String worker, long epoch) {
    }

    DemoResult {
        leaders = List.copyOf(leaders);
        configVersions = Map.copyOf(configVersions);
        invariants = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(invariants));
        failures = List.copyOf(failures);
    }

    boolean ok() {
        return failures.isEmpty();
    }

    /** 0 when every invariant held, 1 otherwise. */
    int exitCode() {
        return ok() ? 0 : 1;
    }
}
