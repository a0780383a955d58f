package io.coord.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coord.chaos.MembershipChecker.Result;
import io.coord.chaos.MembershipChecker.Sample;
import io.coord.chaos.MembershipChecker.SelfEvent;
import io.coord.chaos.MembershipChecker.SelfType;
import io.coord.chaos.MembershipChecker.View;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The membership invariants on hand-made histories (times in ms, the truth sampled every 250 ms). */
class MembershipCheckerTest {
    private static final long MS = 1_000_000;
    /** quiet 2 s, settle 1 s, rejoin within 7 s of the fault's end */
    private static final MembershipChecker.Bounds BOUNDS = new MembershipChecker.Bounds(2000 * MS, 1000 * MS, 7000 * MS);
    private static final Map<String, Long> AB = Map.of("a", 1L, "b", 2L);
    private static final Map<String, Long> B = Map.of("b", 2L);

    private static View view(String observer, long ms, long version, Map<String, Long> members) {
        return new View(observer, ms * MS, version, members);
    }

    /** Samples every 250 ms over [fromMs, toMs), each showing {@code members} at {@code pzxid}. */
    private static List<Sample> truth(long fromMs, long toMs, long pzxid, Map<String, Long> members) {
        List<Sample> s = new ArrayList<>();
        for (long t = fromMs; t < toMs; t += 250) {
            s.add(new Sample(t * MS, (t + 5) * MS, pzxid, members));
        }
        return s;
    }

    private static List<Sample> concat(List<Sample> first, List<Sample> second) {
        List<Sample> all = new ArrayList<>(first);
        all.addAll(second);
        return all;
    }

    private static Result check(List<View> views, List<Sample> truth, List<WorkerFault> faults, List<SelfEvent> self) {
        return MembershipChecker.check(views, truth, faults, self, Set.of("b"), BOUNDS);
    }

    @Test
    void observersThatFollowTheGroupAreNeverDivergentAndVersionsOnlyRise() {
        List<Sample> t = concat(truth(0, 5000, 2, AB), truth(5000, 10000, 3, B));
        List<View> v = List.of(view("a", 100, 2, AB), view("b", 100, 2, AB), view("b", 5300, 3, B), view("c", 100, 2, AB),
                view("c", 5200, 3, B));
        Result r = check(v, t, List.of(new WorkerFault("a", WorkerFault.Type.KILL, 4900 * MS, 5000 * MS)), List.of());
        assertEquals(0, r.violations(), r.toString());
        assertEquals(0, r.lost());
        assertEquals(true, r.quietSamples() > 20, r.toString());
    }

    @Test
    void anObserverStillOnTheOldViewTwoSecondsAfterTheChangeIsDivergentOncePerVersion() {
        List<Sample> t = concat(truth(0, 5000, 2, AB), truth(5000, 10000, 3, B));
        List<View> v = List.of(view("b", 100, 2, AB), view("c", 100, 2, AB), view("c", 5200, 3, B));
        assertEquals(1, check(v, t, List.of(), List.of()).divergent());
        // the same stale observer, paused until 9 s: not held to the group while it cannot act
        List<WorkerFault> paused = List.of(new WorkerFault("b", WorkerFault.Type.PAUSE, 4000 * MS, 9000 * MS));
        assertEquals(0, check(v, t, paused, List.of()).divergent());
    }

    @Test
    void aLowerVersionThanBeforeIsARegression() {
        List<View> v = List.of(view("b", 100, 5, AB), view("b", 200, 4, AB));
        assertEquals(1, check(v, List.of(), List.of(), List.of()).regressions());
    }

    @Test
    void anIncarnationBackInAViewAfterItLeftOrAboveTheVersionItWasGoneAtIsResurrected() {
        List<View> back = List.of(view("b", 100, 2, AB), view("b", 200, 3, B), view("b", 300, 4, AB));
        assertEquals(1, check(back, List.of(), List.of(), List.of()).resurrected());
        // a new incarnation of the same id (new czxid) is a rejoin, not a resurrection
        List<View> rejoin = List.of(view("b", 100, 2, AB), view("b", 200, 3, B), view("b", 300, 4, Map.of("a", 4L, "b", 2L)));
        assertEquals(0, check(rejoin, List.of(), List.of(), List.of()).resurrected());
        // the truth lost a:1 at pzxid 3; an observer's view of version 5 still holding it is a resurrection
        List<Sample> t = concat(truth(0, 1000, 2, AB), truth(1000, 2000, 3, B));
        assertEquals(1, check(List.of(view("c", 100, 5, AB)), t, List.of(), List.of()).resurrected());
    }

    @Test
    void aPausedMemberMustSeeItsNodeLostAndRejoinInTime() {
        List<Sample> t = truth(0, 20000, 2, AB);
        List<WorkerFault> pause = List.of(new WorkerFault("b", WorkerFault.Type.PAUSE, 1000 * MS, 6000 * MS));
        Result ok = check(List.of(), t, pause, List.of(new SelfEvent("b", SelfType.NODELOST, 6100 * MS),
                new SelfEvent("b", SelfType.REJOINED, 6400 * MS)));
        assertEquals(0, ok.violations(), ok.toString());
        assertEquals(1, ok.rejoined());
        assertEquals(400, ok.slowestRejoinMs());
        assertEquals(1, check(List.of(), t, pause, List.of(new SelfEvent("b", SelfType.NODELOST, 6100 * MS))).notRejoined());
        assertEquals(1, check(List.of(), t, pause, List.of(new SelfEvent("b", SelfType.NODELOST, 6100 * MS),
                new SelfEvent("b", SelfType.REJOINED, 14000 * MS))).notRejoined(), "8 s after the pause is too late");
        assertEquals(1, check(List.of(), t, pause, List.of()).notRejoined(), "never saw itself removed");
    }

    @Test
    void aLiveMemberMissingFromTheGroupAtTheEndIsLost() {
        assertEquals(1, check(List.of(), truth(0, 1000, 2, Map.of("a", 1L)), List.of(), List.of()).lost());
    }
}
