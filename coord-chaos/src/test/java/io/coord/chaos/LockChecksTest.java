package io.coord.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.test.History;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The lock scenario's FIFO and lost-holder checks must report what they look for, and excuse only what they should. */
class LockChecksTest {
    private static LockChecks.Grant grant(String worker, long token, long asked, long granted) {
        return new LockChecks.Grant(worker, token, asked, granted);
    }

    @Test
    void aWaiterThatQueuedLaterButWasGrantedFirstIsAnOvertake() {
        List<LockChecks.Grant> grants = List.of(grant("w-1", 10, 0, 5), grant("w-3", 30, 2, 8), grant("w-2", 20, 1, 12));
        LockChecks.Fifo f = LockChecks.fifo(grants, List.of());
        assertEquals(3, f.checked());
        assertEquals(1, f.overtakes().size(), f.overtakes().toString());
        assertTrue(f.overtakes().get(0).startsWith("w-2"), f.overtakes().toString());
    }

    @Test
    void aWaiterHitByAFaultWhileWaitingIsExcused() {
        List<LockChecks.Grant> grants = List.of(grant("w-3", 30, 2, 8), grant("w-2", 20, 1, 12));
        LockChecks.Fifo f = LockChecks.fifo(grants, List.of(new History.Window("pause w-2", 3, 9)));
        assertEquals(1, f.checked());
        assertEquals(List.of(), f.overtakes());
        // a fault on someone else does not excuse it, nor does one on a worker whose name merely starts the same
        LockChecks.Fifo g = LockChecks.fifo(grants, List.of(new History.Window("cut w-22", 3, 9)));
        assertEquals(1, g.overtakes().size());
    }

    @Test
    void aHolderThatStopsLaterThanTheBoundAfterLosingItsSessionIsLate() {
        List<LockChecks.Grant> grants = List.of(grant("w-1", 10, 0, 100), grant("w-2", 20, 0, 200));
        List<History.Window> expiries = List.of(new History.Window("expire w-1", 150, 160), new History.Window("expire w-2", 250, 260));
        long bound = 3_000;
        // w-1 says LOST 1 000 after its expiry (in time); w-2 releases 5 000 after (late)
        LockChecks.Stops s = LockChecks.stops(expiries, grants, Map.of(20L, 5_260L), Map.of(10L, 1_160L), new ArrayList<>(), bound);
        assertEquals(2, s.timed());
        assertEquals(1, s.late().size(), s.late().toString());
        assertTrue(s.late().get(0).contains("token 20"), s.late().toString());
        assertEquals(5_000, s.slowestNanos());
    }

    @Test
    void aResumedHolderMustSayLostWithinTheBoundAndAnExpiredWaiterIsNotTimed() {
        List<LockChecks.Grant> grants = List.of(grant("w-1", 10, 0, 100));
        // w-1 had released before its expiry: nothing to time for it
        LockChecks.Stops none = LockChecks.stops(List.of(new History.Window("expire w-1", 150, 160)), grants, Map.of(10L, 120L),
                Map.of(), List.of(), 3_000);
        assertEquals(0, none.timed());
        LockChecks.Stops never = LockChecks.stops(List.of(), grants, Map.of(), Map.of(), List.<long[]>of(new long[] {10, 500}), 3_000);
        assertEquals(1, never.late().size(), "a resumed holder that never stopped is late");
    }
}
