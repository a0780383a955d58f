package io.coord.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The config scenario's invariants, checked on what each reader reported it applied. Pure: no
 * ZooKeeper, so every rule has a unit test.
 *
 * <ul>
 *   <li><b>0 invalid applied</b>: every applied value has a sequence number the writer published
 *       through the store (acknowledged or indeterminate), a positive one (the validator), and
 *       padding within the size limit. Bad JSON can never decode; the values written around the
 *       store with a negative or an unpublished sequence number must never appear.
 *   <li><b>0 regressions</b>: per reader, applied revisions (mzxid) never go down.
 *   <li><b>Convergence</b>: every reader's last applied value is the final good write, applied
 *       within the bound after that write was acknowledged. A reader that never got there lost
 *       it; one that got there late is a violation.
 * </ul>
 */
final class ConfigChecker {
    private ConfigChecker() {
    }

    /** One APPLIED report, stamped with the controller's arrival time. */
    record Applied(long version, long revision, long seq, int padLength, long nanos) {
    }

    record Verdict(long applied, long invalid, long regressions, long late, long notConverged, long slowestNanos, List<String> problems) {
        Verdict {
            problems = List.copyOf(problems);
        }

        long violations() {
            return invalid + regressions + late;
        }
    }

    /**
     * @param reports    per reader, its APPLIED reports in the order received
     * @param published  sequence numbers written through the store (acknowledged or indeterminate)
     * @param finalSeq   the last good write's sequence number (acknowledged, after every fault healed)
     * @param finalNanos when that write was acknowledged
     * @param bound      how soon after it every reader must have applied it
     * @param maxPad     the largest padding a value within the size limit can have
     */
    static Verdict check(Map<String, List<Applied>> reports, Set<Long> published, long finalSeq, long finalNanos, long bound, int maxPad) {
        Objects.requireNonNull(reports, "reports");
        List<String> p = new ArrayList<>();
        long applied = 0;
        long invalid = 0;
        long regressions = 0;
        long late = 0;
        long notConverged = 0;
        long slowest = 0;
        for (Map.Entry<String, List<Applied>> r : reports.entrySet()) {
            String reader = r.getKey();
            long lastRevision = Long.MIN_VALUE;
            for (Applied a : r.getValue()) {
                applied++;
                if (a.seq() <= 0 || a.padLength() > maxPad || !published.contains(a.seq())) {
                    invalid++;
                    p.add(reader + " applied an invalid value: v" + a.version() + " seq " + a.seq() + " pad " + a.padLength()
                            + (published.contains(a.seq()) ? "" : " (never published through the store)"));
                }
                if (a.revision() < lastRevision) {
                    regressions++;
                    p.add(reader + " went back: revision 0x" + Long.toHexString(a.revision()) + " (v" + a.version() + ") after 0x"
                            + Long.toHexString(lastRevision));
                }
                lastRevision = Math.max(lastRevision, a.revision());
            }
            List<Applied> list = r.getValue();
            Applied last = list.isEmpty() ? null : list.get(list.size() - 1);
            if (last == null || last.seq() != finalSeq) {
                notConverged++;
                p.add(reader + " did not converge to the final write seq " + finalSeq + ": its last applied is "
                        + (last == null ? "nothing" : "seq " + last.seq() + " v" + last.version()));
                continue;
            }
            Applied first = list.stream().filter(a -> a.seq() == finalSeq).findFirst().orElseThrow();
            long took = Math.max(0, first.nanos() - finalNanos);
            slowest = Math.max(slowest, took);
            if (took > bound) {
                late++;
                p.add(reader + " applied the final write " + took / 1_000_000 + " ms after it, over the bound of " + bound / 1_000_000 + " ms");
            }
        }
        return new Verdict(applied, invalid, regressions, late, notConverged, slowest, p);
    }
}
