package io.coord.chaos;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The outcome of one scenario run.
 *
 * @param scenario        the name in the CHAOS line ({@code lock}, {@code lock-control}, ...)
 * @param control         an unfenced control run: it passes only if it shows a violation
 * @param ops             acknowledged operations
 * @param faultsScheduled faults in the schedule
 * @param faultsApplied   faults actually applied (must equal the schedule)
 * @param violations      safety violations counted by the scenario's invariant checks
 * @param lost            acknowledged updates missing at the end
 * @param stuck           operations that got no answer within their bound, or workers that died
 *                        unexpectedly (a harness or liveness failure)
 * @param progress        throughput in the warm-up and outside fault windows
 * @param details         scenario-specific figures, printed on the CHAOS-DETAIL line
 * @param volume          what the scenario's volume target counts (cycles, leader changes, tasks,
 *                        IDs, updates), reached in this run
 * @param volumeTarget    the profile's target for it ({@link Profile#volume}); 0 if none. A main
 *                        run that falls short fails; a control has none.
 */
public record ChaosResult(String scenario, boolean control, long ops, int faultsScheduled, int faultsApplied,
                          long violations, long lost, long stuck, Progress progress, Map<String, Object> details,
                          long volume, long volumeTarget) {
    public ChaosResult {
        details = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(details));
    }

    /** A result without a volume target (its volume is its acknowledged operations). */
    public ChaosResult(String scenario, boolean control, long ops, int faultsScheduled, int faultsApplied,
                       long violations, long lost, long stuck, Progress progress, Map<String, Object> details) {
        this(scenario, control, ops, faultsScheduled, faultsApplied, violations, lost, stuck, progress, details, ops, 0);
    }

    /** This result with {@code volume} reached against {@code target}. */
    public ChaosResult withVolume(long volume, long target) {
        return new ChaosResult(scenario, control, ops, faultsScheduled, faultsApplied, violations, lost, stuck, progress, details,
                volume, target);
    }

    /** This result with one more detail ({@code key=value} on the CHAOS-DETAIL line). */
    public ChaosResult withDetail(String key, Object value) {
        Map<String, Object> more = new LinkedHashMap<>(details);
        more.put(key, value);
        return new ChaosResult(scenario, control, ops, faultsScheduled, faultsApplied, violations, lost, stuck, progress, more,
                volume, volumeTarget);
    }

    /** A scenario that could not run to its checks (a worker did not start, a harness error). */
    static ChaosResult error(String scenario, Throwable cause) {
        return new ChaosResult(scenario, false, 0, 0, 0, 0, 0, 1, new Progress(0, 0),
                Map.of("error", String.valueOf(cause).replace('\n', ' ')));
    }

    /** {@code CHAOS <scenario> ops=<n> faults=<n> violations=<n> lost=<n>} */
    public String line() {
        return "CHAOS " + scenario + " ops=" + ops + " faults=" + faultsApplied + " violations=" + violations + " lost=" + lost;
    }

    /** The figures behind the verdict, on a line of its own prefix. */
    public String detailLine() {
        StringBuilder b = new StringBuilder("CHAOS-DETAIL ").append(scenario)
                .append(" scheduled=").append(faultsScheduled)
                .append(" stuck=").append(stuck)
                .append(" volume=").append(volume).append('/').append(volumeTarget)
                .append(String.format(" warmup=%.1f/s outside=%.1f/s (%.0fs) inside=%.1f/s floor=%.1f/s", progress.warmup(),
                        progress.outside(), progress.outsideSeconds(), progress.inside(), progress.floor()));
        details.forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
        b.append(passed() ? " PASS" : " FAIL " + problems());
        return b.toString();
    }

    /** Why this run fails; empty if it passes. */
    public List<String> problems() {
        List<String> p = new ArrayList<>();
        if (faultsApplied != faultsScheduled) {
            p.add("faults applied " + faultsApplied + " != scheduled " + faultsScheduled);
        }
        if (stuck != 0) {
            p.add(stuck + " stuck operation(s) or dead worker(s)");
        }
        if (volume < volumeTarget) {
            p.add("volume " + volume + " < target " + volumeTarget + " (the run ran out of time or stalled)");
        }
        if (control) {
            if (violations < 1) {
                p.add("the unfenced control showed no violation: the schedule proves nothing");
            }
            return p;
        }
        if (violations != 0) {
            p.add(violations + " violation(s)");
        }
        if (lost != 0) {
            p.add(lost + " lost update(s)");
        }
        if (ops == 0) {
            p.add("no progress at all");
        }
        p.addAll(progress.problems());
        return p;
    }

    public boolean passed() {
        return problems().isEmpty();
    }
}
