package io.coord.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coord.chaos.DiscoveryChecker.Kind;
import io.coord.chaos.DiscoveryChecker.Op;
import io.coord.chaos.DiscoveryChecker.Poll;
import io.coord.chaos.DiscoveryChecker.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The discovery invariants on hand-made histories (times in ms, polls every 100 ms). */
class DiscoveryCheckerTest {
    private static final long MS = 1_000_000;
    /** visible 2 s, phantom 1 s, stale 4 s (session 2 s + 2 s), re-register 2 s, settle 1 s */
    private static final DiscoveryChecker.Bounds BOUNDS = new DiscoveryChecker.Bounds(2000 * MS, 1000 * MS, 4000 * MS, 2000 * MS, 1000 * MS);

    private static Op up(String host, String id, long invokeMs, long ackMs) {
        return new Op(host, id, Kind.UP, invokeMs * MS, ackMs * MS, true);
    }

    private static Op down(String host, String id, long invokeMs, long ackMs) {
        return new Op(host, id, Kind.DOWN, invokeMs * MS, ackMs * MS, true);
    }

    /** Polls every 100 ms over [fromMs, toMs), each listing {@code ids}. */
    private static List<Poll> polls(long fromMs, long toMs, Set<String> ids) {
        List<Poll> p = new ArrayList<>();
        for (long t = fromMs; t < toMs; t += 100) {
            p.add(new Poll(t * MS, (t + 10) * MS, ids));
        }
        return p;
    }

    private static List<Poll> concat(List<List<Poll>> parts) {
        List<Poll> all = new ArrayList<>();
        parts.forEach(all::addAll);
        return all;
    }

    private static Result check(List<Op> ops, List<Poll> polls, List<WorkerFault> faults, Map<String, List<Long>> sessions, Set<String> last) {
        return DiscoveryChecker.check(ops, polls, faults, sessions, last, BOUNDS);
    }

    @Test
    void anInstanceListedRightAfterItsRegistrationAndGoneRightAfterItsCloseIsClean() {
        List<Op> ops = List.of(up("h1", "a", 0, 10), down("h1", "a", 3000, 3010), up("h1", "b", 0, 10));
        List<Poll> p = concat(List.of(polls(0, 3100, Set.of("a", "b")), polls(3100, 8000, Set.of("b"))));
        Result r = check(ops, p, List.of(), Map.of(), Set.of("b"));
        assertEquals(0, r.violations(), r.toString());
        assertEquals(2, r.registrations());
        assertEquals(0, r.lost());
    }

    @Test
    void aRegistrationTheFirstPollAfter2sDoesNotListIsInvisibleAndAMissingOneAtTheEndIsLost() {
        List<Op> ops = List.of(up("h1", "a", 0, 10));
        List<Poll> p = concat(List.of(polls(0, 2500, Set.of()), polls(2500, 5000, Set.of("a"))));
        Result r = check(ops, p, List.of(), Map.of(), Set.of());
        assertEquals(1, r.invisible());
        assertEquals(1, r.lost());
        assertEquals(true, r.examples().get(0).startsWith("invisible a: acknowledged, not listed 2090 ms later"), r.examples().toString());
    }

    @Test
    void aControllerTooBusyToPollMakesNoInstanceInvisible() {
        List<Op> ops = List.of(up("h1", "a", 0, 10));
        // no poll from 0.3 s to 4 s (the controller stalled); the first one after the deadline lists it
        List<Poll> p = concat(List.of(polls(0, 300, Set.of()), polls(4000, 6000, Set.of("a"))));
        Result r = check(ops, p, List.of(), Map.of(), Set.of("a"));
        assertEquals(0, r.violations(), r.toString());
    }

    @Test
    void aClosedInstanceStillListedASecondAfterTheCloseIsAPhantomUnlessAFaultOnItsHostExplainsIt() {
        List<Op> ops = List.of(up("h1", "a", 0, 10), down("h1", "a", 1000, 1010));
        List<Poll> p = concat(List.of(polls(0, 2500, Set.of("a")), polls(2500, 6000, Set.of())));
        assertEquals(1, check(ops, p, List.of(), Map.of(), Set.of()).phantoms());
        // the host was cut off from 900 to 1900 ms: the delete may wait for the reconnect (+1 s settle +1 s)
        List<WorkerFault> cut = List.of(new WorkerFault("h1", WorkerFault.Type.CUT, 900 * MS, 1900 * MS));
        assertEquals(0, check(ops, p, cut, Map.of(), Set.of()).phantoms());
    }

    @Test
    void anInstanceOfAKilledHostListedLaterThanSessionPlus2sIsStale() {
        List<Op> ops = List.of(up("h1", "a", 0, 10));
        List<WorkerFault> kill = List.of(new WorkerFault("h1", WorkerFault.Type.KILL, 1000 * MS, 1500 * MS));
        List<Poll> inTime = concat(List.of(polls(0, 3500, Set.of("a")), polls(3500, 8000, Set.of())));
        Result ok = check(ops, inTime, kill, Map.of(), Set.of());
        assertEquals(0, ok.stale(), ok.toString());
        assertEquals(2410, ok.maxStaleMs(), "last listed by the poll of 3.4 s");
        assertEquals(0, ok.lost(), "an instance of a killed host is not lost");
        List<Poll> late = concat(List.of(polls(0, 5500, Set.of("a")), polls(5500, 8000, Set.of())));
        Result bad = check(ops, late, kill, Map.of(), Set.of());
        assertEquals(1, bad.stale());
        assertEquals(4410, bad.maxStaleMs());
    }

    @Test
    void aPausedInstanceMustGoAndComeBackWithin2sOfItsHostsNewSession() {
        List<Op> ops = List.of(up("h1", "a", 0, 10));
        List<WorkerFault> pause = List.of(new WorkerFault("h1", WorkerFault.Type.PAUSE, 1000 * MS, 6000 * MS));
        Map<String, List<Long>> sessions = Map.of("h1", List.of(6500 * MS));
        // gone at 3.5 s (expiry), back at 7 s: 0.5 s after the new session
        List<Poll> back = concat(List.of(polls(0, 3500, Set.of("a")), polls(3500, 7000, Set.of()), polls(7000, 12000, Set.of("a"))));
        Result r = check(ops, back, pause, sessions, Set.of("a"));
        assertEquals(0, r.violations(), r.toString());
        assertEquals(1, r.pauseVictims());
        assertEquals(1, r.reRegistered());
        assertEquals(510, r.slowestReRegisterMs());
        // never back (the control's plain registration): a violation, and lost at the end
        List<Poll> never = concat(List.of(polls(0, 3500, Set.of("a")), polls(3500, 12000, Set.of())));
        Result c = check(ops, never, pause, sessions, Set.of());
        assertEquals(1, c.notReRegistered());
        assertEquals(1, c.violations());
        assertEquals(1, c.lost());
        // back, but 3 s after the new session: too late
        List<Poll> late = concat(List.of(polls(0, 3500, Set.of("a")), polls(3500, 9500, Set.of()), polls(9500, 12000, Set.of("a"))));
        assertEquals(1, check(ops, late, pause, sessions, Set.of("a")).notReRegistered());
        // still listed 4 s into the pause: stale
        List<Poll> stale = concat(List.of(polls(0, 5500, Set.of("a")), polls(5500, 7000, Set.of()), polls(7000, 12000, Set.of("a"))));
        assertEquals(1, check(ops, stale, pause, sessions, Set.of("a")).stale());
    }

    @Test
    void aPausedInstanceClosedBeforeItsDeadlineOrOnAHostKilledMeanwhileIsExcusedNotCounted() {
        List<WorkerFault> pause = List.of(new WorkerFault("h1", WorkerFault.Type.PAUSE, 1000 * MS, 6000 * MS));
        Map<String, List<Long>> sessions = Map.of("h1", List.of(6500 * MS));
        List<Poll> never = concat(List.of(polls(0, 3500, Set.of("a")), polls(3500, 12000, Set.of())));
        Result closed = check(List.of(up("h1", "a", 0, 10), down("h1", "a", 6200, 6600)), never, pause, sessions, Set.of());
        assertEquals(0, closed.violations(), closed.toString());
        assertEquals(0, closed.pauseVictims());
        List<WorkerFault> pauseThenKill = List.of(pause.get(0), new WorkerFault("h1", WorkerFault.Type.KILL, 7000 * MS, 7100 * MS));
        Result killed = check(List.of(up("h1", "a", 0, 10)), never, pauseThenKill, sessions, Set.of());
        assertEquals(0, killed.violations(), killed.toString());
    }
}
