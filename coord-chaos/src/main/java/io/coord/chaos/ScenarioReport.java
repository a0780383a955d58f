package io.coord.chaos;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one scenario run of chaos suite B (queue, barrier, config) found: the figures of its
 * {@code CHAOS} line, the problems behind any violation, and measured figures.
 *
 * @param scenario        its name
 * @param ops             operations recorded (acknowledged, failed or indeterminate)
 * @param faults          faults actually applied
 * @param faultsScheduled faults the schedule asked for: must equal {@code faults}
 * @param violations      safety violations (target 0)
 * @param lost            acknowledged effects missing at the end (target 0)
 * @param problems        one sentence per violation or loss, naming what went wrong
 * @param figures         measured figures (times, counts) for the report
 */
public record ScenarioReport(String scenario, long ops, int faults, int faultsScheduled, long violations, long lost,
                             List<String> problems, Map<String, Object> figures) {
    public ScenarioReport {
        problems = List.copyOf(problems);
        figures = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(figures));
    }

    /** {@code CHAOS <scenario> ops=<n> faults=<n> violations=<n> lost=<n>}. */
    public String chaosLine() {
        return "CHAOS " + scenario + " ops=" + ops + " faults=" + faults + " violations=" + violations + " lost=" + lost;
    }

    /** Whether the run passed: no violation, nothing lost, every scheduled fault applied, some progress. */
    public boolean passed() {
        return violations == 0 && lost == 0 && faults == faultsScheduled && ops > 0;
    }

    @Override
    public String toString() {
        return chaosLine() + " (scheduled faults " + faultsScheduled + ") " + figures + (problems.isEmpty() ? "" : "\n  " + String.join("\n  ", problems));
    }
}
