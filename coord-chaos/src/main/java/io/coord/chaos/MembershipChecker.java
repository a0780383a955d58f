package io.coord.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The membership scenario's invariants (RELIABILITY.md matrix, "Cluster membership"), checked from
 * what the controller recorded: the views every observer reported (members and the controller's own
 * {@code Group}), the group as the controller read it directly ({@link Sample}s: the truth), the
 * fault windows of each member and the members' own reports of losing and re-creating their node.
 *
 * <ul>
 *   <li><b>divergent</b>: at a sample where the group had not changed for {@code quiet}, an
 *       observer (alive, not in a fault window for that long) whose latest view differs from the
 *       group in members, incarnations or version; counted once per observer and group version;
 *   <li><b>regression</b>: an observer's view version lower than its previous one;
 *   <li><b>resurrected</b>: an incarnation (member id and node czxid) in a view after it had left
 *       that observer's view, or in a view whose version is at or above that of a sample the
 *       incarnation was already gone from;
 *   <li><b>not rejoined</b>: a member paused or partitioned past its session that did not report
 *       losing its node and then re-creating it within {@code rejoin} after the fault ended.
 * </ul>
 * {@code lost} counts live members missing from the group at the end.
 */
final class MembershipChecker {
    /** One view observer {@code observer} reported at {@code nanos}: version and members (id to czxid). */
    record View(String observer, long nanos, long version, Map<String, Long> members) {
    }

    /** The group as read directly between {@code startNanos} and {@code endNanos}: its pzxid and members. */
    record Sample(long startNanos, long endNanos, long pzxid, Map<String, Long> members) {
    }

    enum SelfType { NODELOST, REJOINED }

    record SelfEvent(String member, SelfType type, long nanos) {
    }

    record Bounds(long quietNanos, long settleNanos, long rejoinNanos) {
    }

    record Result(long quietSamples, long divergent, long regressions, long resurrected, long selfFaults, long rejoined,
                  long notRejoined, long slowestRejoinMs, long lost) {
        long violations() {
            return divergent + regressions + resurrected + notRejoined;
        }

        Map<String, Object> details() {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("quiet-samples", quietSamples);
            d.put("divergent", divergent);
            d.put("regressions", regressions);
            d.put("resurrected", resurrected);
            d.put("self-faults", selfFaults);
            d.put("rejoined", rejoined);
            d.put("not-rejoined", notRejoined);
            d.put("slowest-rejoin-ms", slowestRejoinMs);
            return d;
        }
    }

    private MembershipChecker() {
    }

    static Result check(List<View> views, List<Sample> samples, List<WorkerFault> faults, List<SelfEvent> self,
                        Set<String> liveAtEnd, Bounds b) {
        List<View> byTime = new ArrayList<>(views);
        byTime.sort(Comparator.comparingLong(View::nanos));
        List<Sample> truth = new ArrayList<>(samples);
        truth.sort(Comparator.comparingLong(Sample::startNanos));
        Map<String, List<View>> perObserver = new HashMap<>();
        for (View v : byTime) {
            perObserver.computeIfAbsent(v.observer(), k -> new ArrayList<>()).add(v);
        }

        long regressions = 0;
        long resurrected = 0;
        for (List<View> vs : perObserver.values()) {
            Set<String> left = new HashSet<>();
            View prev = null;
            for (View v : vs) {
                if (prev != null) {
                    if (v.version() < prev.version()) {
                        regressions++;
                    }
                    for (Map.Entry<String, Long> m : prev.members().entrySet()) {
                        if (!m.getValue().equals(v.members().get(m.getKey()))) {
                            left.add(m.getKey() + ":" + m.getValue());
                        }
                    }
                }
                for (Map.Entry<String, Long> m : v.members().entrySet()) {
                    if (left.contains(m.getKey() + ":" + m.getValue())) {
                        resurrected++;
                    }
                }
                prev = v;
            }
        }
        // gone from the truth at pzxid P: no view of version >= P may hold it
        Map<String, Long> goneAt = new HashMap<>();
        Map<String, Long> prevTruth = null;
        for (Sample s : truth) {
            if (prevTruth != null) {
                for (Map.Entry<String, Long> m : prevTruth.entrySet()) {
                    if (!m.getValue().equals(s.members().get(m.getKey()))) {
                        goneAt.putIfAbsent(m.getKey() + ":" + m.getValue(), s.pzxid());
                    }
                }
            }
            prevTruth = s.members();
        }
        for (View v : byTime) {
            for (Map.Entry<String, Long> m : v.members().entrySet()) {
                Long gone = goneAt.get(m.getKey() + ":" + m.getValue());
                if (gone != null && v.version() >= gone) {
                    resurrected++;
                }
            }
        }

        long quietSamples = 0;
        Set<String> divergent = new HashSet<>();
        for (int i = 0; i < truth.size(); i++) {
            Sample s = truth.get(i);
            if (!quiet(truth, i, b.quietNanos())) {
                continue;
            }
            quietSamples++;
            long t = s.startNanos();
            for (Map.Entry<String, List<View>> e : perObserver.entrySet()) {
                String o = e.getKey();
                if (!eligible(o, t, faults, b)) {
                    continue;
                }
                View latest = null;
                for (View v : e.getValue()) {
                    if (v.nanos() > t) {
                        break;
                    }
                    latest = v;
                }
                if (latest == null || e.getValue().get(0).nanos() > t - b.quietNanos()) {
                    continue; // an observer that only just started
                }
                if (latest.version() != s.pzxid() || !latest.members().equals(s.members())) {
                    divergent.add(o + "@" + s.pzxid());
                }
            }
        }

        long selfFaults = 0;
        long rejoined = 0;
        long notRejoined = 0;
        long slowest = 0;
        for (WorkerFault f : faults) {
            if (f.type() != WorkerFault.Type.PAUSE && f.type() != WorkerFault.Type.FREEZE) {
                continue; // only these outlast the session: a kill leaves nobody to rejoin, a cut keeps the session
            }
            long deadline = f.endNanos() + b.rejoinNanos();
            long killed = faults.stream().filter(k -> k.type() == WorkerFault.Type.KILL && k.worker().equals(f.worker())
                    && k.startNanos() >= f.startNanos()).mapToLong(WorkerFault::startNanos).min().orElse(Long.MAX_VALUE);
            long lastTruth = truth.isEmpty() ? Long.MIN_VALUE : truth.get(truth.size() - 1).endNanos();
            if (killed < deadline || lastTruth < deadline) {
                continue; // excused: the member died, or the run ended first
            }
            selfFaults++;
            long lostAt = self.stream().filter(x -> x.member().equals(f.worker()) && x.type() == SelfType.NODELOST
                    && x.nanos() > f.startNanos()).mapToLong(SelfEvent::nanos).min().orElse(Long.MAX_VALUE);
            long back = self.stream().filter(x -> x.member().equals(f.worker()) && x.type() == SelfType.REJOINED
                    && x.nanos() > lostAt).mapToLong(SelfEvent::nanos).min().orElse(Long.MAX_VALUE);
            if (lostAt == Long.MAX_VALUE || back > deadline) {
                notRejoined++;
            } else {
                rejoined++;
                slowest = Math.max(slowest, Math.max(0, (back - f.endNanos()) / 1_000_000));
            }
        }

        long lost = 0;
        if (!truth.isEmpty()) {
            Map<String, Long> last = truth.get(truth.size() - 1).members();
            for (String m : liveAtEnd) {
                if (!last.containsKey(m)) {
                    lost++;
                }
            }
        }
        return new Result(quietSamples, divergent.size(), regressions, resurrected, selfFaults, rejoined, notRejoined, slowest, lost);
    }

    /** Whether the group stood still (same pzxid in every sample) for {@code quiet} up to sample {@code i}. */
    private static boolean quiet(List<Sample> truth, int i, long quiet) {
        Sample s = truth.get(i);
        for (int j = i - 1; j >= 0; j--) {
            Sample p = truth.get(j);
            if (p.pzxid() != s.pzxid() || !p.members().equals(s.members())) {
                return false;
            }
            if (p.endNanos() <= s.startNanos() - quiet) {
                return true;
            }
        }
        return false;
    }

    /** An observer is held to the group unless it is dead, or in (or just out of) a fault window. */
    private static boolean eligible(String observer, long t, List<WorkerFault> faults, Bounds b) {
        for (WorkerFault f : faults) {
            if (!f.worker().equals(observer)) {
                continue;
            }
            if (f.type() == WorkerFault.Type.KILL && f.startNanos() <= t) {
                return false;
            }
            if (f.startNanos() <= t && f.endNanos() + b.settleNanos() + b.quietNanos() >= t) {
                return false;
            }
        }
        return true;
    }
}
