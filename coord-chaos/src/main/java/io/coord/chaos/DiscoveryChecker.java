package io.coord.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The discovery scenario's invariants (RELIABILITY.md matrix, "Service discovery"), checked from
 * what the controller recorded: every register/close it asked for, the instance lists it polled
 * (each poll with the times it started and ended), the faults of each host JVM and the new
 * sessions the hosts reported. Every instance id is registered at most once and closed at most once.
 *
 * <ul>
 *   <li><b>invisible</b>: a registration acknowledged at {@code t} that no poll ending by
 *       {@code t + visible} showed;
 *   <li><b>phantom</b>: a closed instance still listed by a poll that started {@code phantom}
 *       after the close was acknowledged;
 *   <li><b>stale</b>: an instance of a killed (or paused) host still listed by a poll that started
 *       {@code stale} (session timeout + 2 s) after the kill (or pause; until the host resumed);
 *   <li><b>not re-registered</b>: an instance registered when its host was paused past its session
 *       that was not listed again by a poll ending within {@code reRegister} of the host's new
 *       session;
 *   <li><b>lost</b>: an instance registered, never closed, on a host never killed, missing from
 *       the final list.
 * </ul>
 * A fault on the host while a deadline runs pushes the deadline to the fault's end plus
 * {@code settle} plus the bound; a deadline no poll reached (the run ended), or that a close or
 * kill of the same instance overtook, is excused, not counted. A registration not listed by a poll
 * that began by its deadline and closed before the next poll began cannot be judged: it is counted
 * apart ({@code visibility-unjudged}), as a figure of how busy the controller's poller was.
 */
final class DiscoveryChecker {
    enum Kind { UP, DOWN }

    /** One register ({@code UP}) or close ({@code DOWN}) of instance {@code id} on {@code host}; {@code ok} if acknowledged. */
    record Op(String host, String id, Kind kind, long invokeNanos, long ackNanos, boolean ok) {
    }

    /** One listing of the instances: the read happened between {@code startNanos} and {@code endNanos}. */
    record Poll(long startNanos, long endNanos, Set<String> ids) {
    }

    record Bounds(long visibleNanos, long phantomNanos, long staleNanos, long reRegisterNanos, long settleNanos) {
    }

    record Result(long registrations, long invisible, long phantoms, long stale, long maxStaleMs, long pauseVictims,
                  long reRegistered, long notReRegistered, long slowestReRegisterMs, long notExpired, long excused, long lost,
                  long unjudged, List<String> examples) {
        long violations() {
            return invisible + phantoms + stale + notReRegistered;
        }

        Map<String, Object> details() {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("registrations", registrations);
            d.put("invisible", invisible);
            d.put("phantoms", phantoms);
            d.put("stale", stale);
            d.put("max-stale-ms", maxStaleMs);
            d.put("pause-victims", pauseVictims);
            d.put("re-registered", reRegistered);
            d.put("not-re-registered", notReRegistered);
            d.put("slowest-re-register-ms", slowestReRegisterMs);
            d.put("not-expired", notExpired);
            d.put("excused", excused);
            d.put("visibility-unjudged", unjudged);
            return d;
        }
    }

    private final Map<String, Op> ups = new HashMap<>();
    private final Map<String, Op> downs = new HashMap<>();
    private final List<Poll> polls;
    private final List<WorkerFault> faults;
    private final Map<String, List<Long>> newSessions;
    private final Bounds b;
    private long excused;
    private long unjudged;
    private final List<String> examples = new ArrayList<>();

    private DiscoveryChecker(List<Op> ops, List<Poll> polls, List<WorkerFault> faults, Map<String, List<Long>> newSessions, Bounds b) {
        for (Op o : ops) {
            Map<String, Op> m = o.kind() == Kind.UP ? ups : downs;
            if (m.put(o.id(), o) != null) {
                throw new IllegalArgumentException("instance " + o.id() + " has two " + o.kind() + " operations");
            }
        }
        this.polls = new ArrayList<>(polls);
        this.polls.sort(Comparator.comparingLong(Poll::startNanos));
        this.faults = List.copyOf(faults);
        this.newSessions = newSessions;
        this.b = b;
    }

    static Result check(List<Op> ops, List<Poll> polls, List<WorkerFault> faults, Map<String, List<Long>> newSessions,
                        Set<String> finalIds, Bounds bounds) {
        return new DiscoveryChecker(ops, polls, faults, newSessions, bounds).run(finalIds);
    }

    private Result run(Set<String> finalIds) {
        long registrations = 0;
        long invisible = 0;
        long phantoms = 0;
        long lost = 0;
        for (Op up : ups.values()) {
            if (!up.ok()) {
                continue;
            }
            registrations++;
            if (!visibleInTime(up)) {
                invisible++;
            }
            Op down = downs.get(up.id());
            if (down == null && !killed(up.host()) && !finalIds.contains(up.id())) {
                lost++;
                note("lost " + up.id() + " of " + up.host() + ": registered, never closed, its host never killed, not in the final list");
            }
        }
        for (Op down : downs.values()) {
            if (down.ok() && phantom(down)) {
                phantoms++;
                note("phantom " + down.id() + ": still listed more than " + b.phantomNanos() / 1_000_000 + " ms after its close");
            }
        }
        long stale = 0;
        long maxStale = 0;
        long victims = 0;
        long reRegistered = 0;
        long notReRegistered = 0;
        long slowest = 0;
        long notExpired = 0;
        for (WorkerFault f : faults) {
            if (f.type() == WorkerFault.Type.CUT) {
                continue;
            }
            for (Op up : ups.values()) {
                if (!up.host().equals(f.worker()) || up.invokeNanos() >= f.startNanos() || closedBefore(up.id(), f.startNanos())) {
                    continue;
                }
                long limit = f.type() == WorkerFault.Type.KILL ? Long.MAX_VALUE : f.endNanos();
                long lastSeen = -1;
                boolean late = false;
                for (Poll p : polls) {
                    if (p.startNanos() < f.startNanos() || p.startNanos() > limit || !p.ids().contains(up.id())) {
                        continue;
                    }
                    lastSeen = p.endNanos();
                    late |= p.startNanos() >= f.startNanos() + b.staleNanos();
                }
                if (late) {
                    stale++;
                    note("stale " + up.id() + ": listed " + (lastSeen - f.startNanos()) / 1_000_000 + " ms after its host's " + f.type());
                }
                if (lastSeen >= 0) {
                    maxStale = Math.max(maxStale, (lastSeen - f.startNanos()) / 1_000_000);
                }
            }
            if (f.type() == WorkerFault.Type.PAUSE) {
                for (Op up : ups.values()) {
                    if (!up.ok() || !up.host().equals(f.worker()) || up.ackNanos() >= f.startNanos() || closedInvokedBefore(up.id(), f.startNanos())) {
                        continue;
                    }
                    victims++;
                    long reRegisterMs = reRegistration(up, f);
                    if (reRegisterMs == EXCUSED) {
                        victims--;
                        excused++;
                    } else if (reRegisterMs == NEVER) {
                        notReRegistered++;
                        note("not re-registered " + up.id() + " after the pause of " + f.worker());
                    } else {
                        reRegistered++;
                        slowest = Math.max(slowest, reRegisterMs);
                        if (reRegisterMs == STILL_THERE) {
                            notExpired++;
                        }
                    }
                }
            }
        }
        return new Result(registrations, invisible, phantoms, stale, maxStale, victims, reRegistered, notReRegistered,
                Math.max(0, slowest), notExpired, excused, lost, unjudged, List.copyOf(examples));
    }

    private static final long EXCUSED = Long.MIN_VALUE;
    private static final long NEVER = Long.MIN_VALUE + 1;
    private static final long STILL_THERE = -1;

    /**
     * How long after the host's new session the paused instance {@code up} was listed again (ms),
     * {@link #STILL_THERE} if no poll ever missed it, {@link #NEVER}, or {@link #EXCUSED}.
     */
    private long reRegistration(Op up, WorkerFault pause) {
        long session = newSessions.getOrDefault(up.host(), List.of()).stream().filter(t -> t > pause.startNanos())
                .min(Long::compare).orElse(-1L);
        Op down = downs.get(up.id());
        long killedAt = firstFault(up.host(), WorkerFault.Type.KILL, pause.startNanos());
        if (session < 0) {
            // no new session reported: a violation unless the run ended or the host died first
            if (killedAt < Long.MAX_VALUE || lastPollEnd() < pause.endNanos() + b.staleNanos() + b.reRegisterNanos()) {
                return EXCUSED;
            }
            return NEVER;
        }
        long deadline = session + b.reRegisterNanos();
        if ((down != null && down.invokeNanos() < deadline) || killedAt < deadline || lastPollEnd() < deadline) {
            return EXCUSED;
        }
        boolean gone = false;
        for (Poll p : polls) {
            if (p.startNanos() < pause.startNanos()) {
                continue;
            }
            if (p.endNanos() > deadline) {
                break;
            }
            boolean listed = p.ids().contains(up.id());
            if (!listed) {
                gone = true;
            } else if (gone) {
                return Math.max(0, (p.endNanos() - session) / 1_000_000);
            }
        }
        if (!gone) {
            return STILL_THERE;
        }
        return NEVER;
    }

    /**
     * Listed by a poll that began by the deadline, or else by the first poll that began after it.
     * (A listing is a read the server answered after the poll began; a controller too busy to poll
     * only moves that read later, it never makes an instance look missing.)
     */
    private boolean visibleInTime(Op up) {
        long deadline = extend(up.host(), up.invokeNanos(), up.ackNanos() + b.visibleNanos(), b.visibleNanos());
        Op down = downs.get(up.id());
        for (Poll p : polls) {
            if (p.startNanos() < deadline) {
                if (p.startNanos() >= up.invokeNanos() && p.ids().contains(up.id())) {
                    return true;
                }
                continue;
            }
            if (p.ids().contains(up.id())) {
                return true;
            }
            if ((down != null && down.invokeNanos() < p.startNanos()) || firstFault(up.host(), WorkerFault.Type.KILL, up.invokeNanos()) < p.startNanos()) {
                unjudged++; // closed (or killed) before any read after its deadline: cannot tell
                return true;
            }
            note("invisible " + up.id() + ": acknowledged, not listed " + (p.startNanos() - up.ackNanos()) / 1_000_000
                    + " ms later (first listed " + firstListed(up) + ")");
            return false;
        }
        excused++; // the run ended first
        return true;
    }

    private String firstListed(Op up) {
        for (Poll p : polls) {
            if (p.startNanos() >= up.invokeNanos() && p.ids().contains(up.id())) {
                return (p.startNanos() - up.ackNanos()) / 1_000_000 + " ms after the acknowledgement";
            }
        }
        return "never";
    }

    private void note(String s) {
        if (examples.size() < 10) {
            examples.add(s);
        }
    }

    private boolean phantom(Op down) {
        long deadline = extend(down.host(), down.invokeNanos(), down.ackNanos() + b.phantomNanos(), b.phantomNanos());
        for (Poll p : polls) {
            if (p.startNanos() >= deadline && p.ids().contains(down.id())) {
                return true;
            }
        }
        return false;
    }

    /** {@code deadline}, pushed past every fault of {@code host} that overlaps {@code [from, deadline]}. */
    private long extend(String host, long from, long deadline, long bound) {
        boolean moved = true;
        while (moved) {
            moved = false;
            for (WorkerFault f : faults) {
                if (f.worker().equals(host) && f.startNanos() <= deadline && f.endNanos() >= from) {
                    long pushed = f.endNanos() + b.settleNanos() + bound;
                    if (pushed > deadline) {
                        deadline = pushed;
                        moved = true;
                    }
                }
            }
        }
        return deadline;
    }

    private boolean closedBefore(String id, long t) {
        Op down = downs.get(id);
        return down != null && down.ok() && down.ackNanos() < t;
    }

    private boolean closedInvokedBefore(String id, long t) {
        Op down = downs.get(id);
        return down != null && down.invokeNanos() < t;
    }

    private boolean killed(String host) {
        return firstFault(host, WorkerFault.Type.KILL, Long.MIN_VALUE) < Long.MAX_VALUE;
    }

    /** Start of the first fault of {@code type} on {@code host} at or after {@code from}; MAX_VALUE if none. */
    private long firstFault(String host, WorkerFault.Type type, long from) {
        long first = Long.MAX_VALUE;
        for (WorkerFault f : faults) {
            if (f.type() == type && f.worker().equals(host) && f.startNanos() >= from) {
                first = Math.min(first, f.startNanos());
            }
        }
        return first;
    }

    private long lastPollEnd() {
        return polls.stream().mapToLong(Poll::endNanos).max().orElse(Long.MIN_VALUE);
    }
}
