package io.coord.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.lock.WaitRule.Decision;
import io.coord.lock.WaitRule.Outcome;
import io.coord.lock.WaitRule.Type;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The lock family's decisions, without a server: who holds, whom a waiter watches, in what order. */
class WaitRuleTest {
    private static final String UUID = "3f2a4b1c-0000-4000-8000-00000000abcd";
    private static final Set<Type> RW = EnumSet.of(Type.READ, Type.WRITE);

    private static String protectedName(String prefix, long seq) {
        return "_c_" + UUID + "-" + prefix + String.format("%010d", seq);
    }

    private static String lock(long seq) {
        return protectedName("lock-", seq);
    }

    private static String read(long seq) {
        return protectedName("__READ__", seq);
    }

    private static String write(long seq) {
        return protectedName("__WRIT__", seq);
    }

    /** A read made under write {@code anchor}: non-sequential, named with the write's sequence (as Curator does). */
    private static String anchored(long anchor) {
        return "_c_" + UUID.replace('3', '9') + "-" + WaitRule.anchoredReadName(anchor);
    }

    private static String lease(long seq) {
        return protectedName("lease-", seq);
    }

    private static Decision decide(List<String> children, Set<Type> family, String ours) {
        return WaitRule.decide(WaitRule.queue(children, family), ours, -1);
    }

    private static Decision decideAnchored(List<String> children, String ours, long anchor) {
        return WaitRule.decide(WaitRule.queue(children, RW), ours, anchor);
    }

    @Test
    void parsesProtectedAndPlainNamesWithCuratorsPrefixesAndNothingElse() {
        assertEquals(new WaitRule.Node(lock(7), Type.LOCK, 7), WaitRule.parse(lock(7)).orElseThrow());
        assertEquals(Type.WRITE, WaitRule.parse("__WRIT__0000000003").orElseThrow().type());
        assertEquals(new WaitRule.Node(anchored(5), Type.READ, 5), WaitRule.parse(anchored(5)).orElseThrow());
        assertEquals(Type.READ, WaitRule.parse("_c_" + UUID + "-__READ__0000000001").orElseThrow().type(),
                "Curator's read-write names are ours");
        assertTrue(WaitRule.parse("lock-").isEmpty(), "no sequence");
        assertTrue(WaitRule.parse("locker-0000000001").isEmpty(), "a prefix is matched whole, not as a substring");
        assertTrue(WaitRule.parse(protectedName("read-", 1)).isEmpty(), "Coord's old read-write layout is not understood");
        assertTrue(WaitRule.parse(protectedName("write-", 1)).isEmpty());
        assertTrue(WaitRule.parse(protectedName("read-at-0000000001-", 2)).isEmpty());
        assertTrue(WaitRule.parse("lock--2147483648").isEmpty(), "a wrapped sequence is not a sequence");
    }

    @Test
    void foreignChildrenAreNamedPerFamily() {
        List<String> children = List.of(read(1), write(2), lock(3), "typo", protectedName("write-", 4));
        assertEquals(List.of(lock(3), protectedName("write-", 4), "typo"), WaitRule.foreign(children, RW), "by name");
        assertEquals(List.of(), WaitRule.foreign(List.of(read(1), anchored(1), write(1)), RW));
        assertEquals(List.of(read(1), write(2), protectedName("write-", 4), "typo"), WaitRule.foreign(children, Set.of(Type.LOCK)));
    }

    @Test
    void queueOrderIsCuratorsSequenceOrderWithAnAnchoredReadRightAfterItsWrite() {
        List<String> children = List.of(write(7), anchored(5), read(6), write(5));
        assertEquals(List.of(write(5), anchored(5), read(6), write(7)),
                WaitRule.queue(children, RW).stream().map(WaitRule.Node::name).toList());
    }

    @Test
    void queueOrderIsBySequenceNotByNameOrProtectionId() {
        List<String> children = List.of("_c_ffffffff-0000-4000-8000-000000000000-lock-0000000002",
                "_c_00000000-0000-4000-8000-000000000000-lock-0000000010", lock(1));
        List<Long> order = WaitRule.queue(children, Set.of(Type.LOCK)).stream().map(WaitRule.Node::sequence).toList();
        assertEquals(List.of(1L, 2L, 10L), order);
    }

    @Test
    void mutexGrantsOnlyTheFirstAndEachWaiterWatchesOnlyItsPredecessor() {
        List<String> children = List.of(lock(4), lock(1), lock(2));
        assertEquals(Outcome.GRANTED, decide(children, Set.of(Type.LOCK), lock(1)).outcome());
        Decision second = decide(children, Set.of(Type.LOCK), lock(2));
        assertEquals(Outcome.WAIT, second.outcome());
        assertEquals(List.of(lock(1)), second.watch());
        assertEquals(List.of(lock(2)), decide(children, Set.of(Type.LOCK), lock(4)).watch(),
                "the third watches the second, not the holder: one release wakes one waiter");
    }

    @Test
    void aNodeNotAmongTheChildrenIsMissing() {
        assertEquals(Outcome.MISSING, decide(List.of(lock(1)), Set.of(Type.LOCK), lock(2)).outcome());
        assertEquals(Outcome.MISSING, decide(List.of(), Set.of(Type.LOCK), lock(2)).outcome());
    }

    @Test
    void writersNeedToBeFirstAndWatchTheirPredecessorOfEitherKind() {
        List<String> children = List.of(read(1), read(2), write(3));
        Decision w = decide(children, RW, write(3));
        assertEquals(Outcome.WAIT, w.outcome());
        assertEquals(List.of(read(2)), w.watch());
        assertEquals(Outcome.GRANTED, decide(List.of(write(3)), RW, write(3)).outcome());
    }

    @Test
    void readersShareButQueueBehindAWaitingWriterAndWatchTheNearestWriterAhead() {
        List<String> children = List.of(read(1), write(2), read(3), write(4), read(5));
        assertEquals(Outcome.GRANTED, decide(children, RW, read(1)).outcome());
        Decision r3 = decide(children, RW, read(3));
        assertEquals(List.of(write(2)), r3.watch(), "a reader behind a waiting writer waits: writers do not starve");
        assertEquals(List.of(write(4)), decide(children, RW, read(5)).watch(), "the nearest writer ahead, not the first");
        assertEquals(Outcome.GRANTED, decide(List.of(read(1), read(3), read(5)), RW, read(5)).outcome());
    }

    @Test
    void anAnchoredReadQueuesAtItsWritesPlaceAheadOfWritersThatQueuedBehindIt() {
        // We hold write 5; writer 6 waits; we take a read under our write (downgrade), then close write 5.
        List<String> during = List.of(write(5), write(6), anchored(5));
        assertEquals(Outcome.GRANTED, decideAnchored(during, anchored(5), 5).outcome(), "not blocked by its own write");
        assertEquals(List.of(anchored(5)), decide(during, RW, write(6)).watch(),
                "the waiting writer now sits behind the anchored read, which sorts at place 5");
        List<String> after = List.of(write(6), anchored(5));
        Decision w6 = decide(after, RW, write(6));
        assertEquals(Outcome.WAIT, w6.outcome(), "the writer stays behind the downgraded reader");
        assertEquals(List.of(anchored(5)), w6.watch());
        assertEquals(List.of(write(5)), decide(List.of(write(5), anchored(5), read(8)), RW, read(8)).watch(),
                "another reader still waits for the write itself");
        assertFalse(WaitRule.grantSafeWithoutReread(Type.WRITE), "an anchored read can appear ahead of a writer");
        assertTrue(WaitRule.grantSafeWithoutReread(Type.LOCK));
        assertTrue(WaitRule.grantSafeWithoutReread(Type.READ));
        assertTrue(WaitRule.grantSafeWithoutReread(Type.LEASE));
    }

    @Test
    void anAnchoredReadWhoseWriteIsGoneIsNotGrantedButInspectionStillCountsAFinishedDowngrade() {
        List<String> children = List.of(write(6), anchored(5));
        assertEquals(Outcome.ANCHOR_MISSING, decideAnchored(children, anchored(5), 5).outcome());
        List<WaitRule.Node> queue = WaitRule.queue(children, RW);
        assertTrue(WaitRule.holds(queue, queue.get(0)), "the downgraded read holds");
        assertFalse(WaitRule.holds(queue, queue.get(1)), "the writer behind it does not");
    }

    @Test
    void anAnchoredReadIsStillBlockedByAnotherWriteAhead() {
        List<String> children = List.of(write(2), write(5), anchored(5));
        Decision d = decideAnchored(children, anchored(5), 5);
        assertEquals(List.of(write(2)), d.watch());
    }

    @Test
    void familiesDoNotSeeEachOthersNodes() {
        List<String> children = List.of(lease(1), lock(2));
        assertEquals(Outcome.GRANTED, decide(children, Set.of(Type.LOCK), lock(2)).outcome());
    }

    /** Exhaustive small-queue check: exactly the expected nodes hold, and every waiter watches a node ahead of it. */
    @Test
    void everyWaiterWatchesOnlyNodesAheadOfItAndHoldersFollowTheRules() {
        for (int mask = 0; mask < (1 << 6); mask++) {
            List<String> children = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                children.add(((mask >> i) & 1) == 0 ? read(i) : write(i));
            }
            List<WaitRule.Node> queue = WaitRule.queue(children, RW);
            int holders = 0;
            boolean writeHolds = false;
            for (int i = 0; i < queue.size(); i++) {
                WaitRule.Node n = queue.get(i);
                Decision d = WaitRule.decide(queue, n.name(), -1);
                if (d.outcome() == Outcome.GRANTED) {
                    holders++;
                    writeHolds |= n.type() == Type.WRITE;
                    boolean writeAhead = queue.subList(0, i).stream().anyMatch(a -> a.type() == Type.WRITE);
                    assertFalse(writeAhead, "nothing holds behind a writer: " + children);
                } else {
                    int at = i;
                    for (String w : d.watch()) {
                        int wi = queue.stream().map(WaitRule.Node::name).toList().indexOf(w);
                        assertTrue(wi >= 0 && wi < at, "a waiter watches a node ahead of it: " + children);
                    }
                }
            }
            assertTrue(holders >= 1, "someone always holds a non-empty queue: " + children);
            assertTrue(!writeHolds || holders == 1, "a writer holds alone: " + children);
        }
    }

    @Test
    void decisionsRejectNonsense() {
        assertThrows(IllegalArgumentException.class, () -> new Decision(Outcome.WAIT, List.of()), "a wait with nothing to watch");
        assertThrows(IllegalArgumentException.class, () -> decide(List.of(lease(1)), Set.of(Type.LEASE), lease(1)),
                "a semaphore's leases are counted (SemaphoreLayout), not queued");
    }
}
