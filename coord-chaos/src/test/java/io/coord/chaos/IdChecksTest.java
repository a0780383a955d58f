package io.coord.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coord.test.History;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The naming scenario's checkers must catch what they look for: a test of a checker that never
 * reports anything would let every run pass.
 */
class IdChecksTest {
    /** Lets nanoTime move on, so the next history event is strictly later than the last. */
    private static void tick() {
        long t = System.nanoTime();
        while (System.nanoTime() == t) {
            Thread.onSpinWait();
        }
    }

    private static History.Handle invoke(History h, String process) {
        tick();
        return h.invoke(process, "seq", null);
    }

    private static void ok(History.Handle handle, long id) {
        tick();
        handle.ok(id);
    }

    private static List<History.Op> oks(History h) {
        return h.ops().stream().filter(o -> o.outcome() == History.Outcome.OK).toList();
    }

    @Test
    void anIdAcknowledgedBeforeAnotherWasInvokedMustBeSmaller() {
        History h = new History();
        History.Handle a = invoke(h, "a");
        ok(a, 5);
        History.Handle b = invoke(h, "b");
        ok(b, 3); // b began after a ended, yet got a smaller ID
        assertEquals(1, NamingScenario.realTimeViolations(oks(h), "seq"));
    }

    @Test
    void concurrentCallsMayReturnInEitherOrder() {
        History h = new History();
        History.Handle a = invoke(h, "a");
        History.Handle b = invoke(h, "b");
        ok(a, 5);
        ok(b, 3);
        History.Handle c = invoke(h, "c");
        ok(c, 6);
        assertEquals(0, NamingScenario.realTimeViolations(oks(h), "seq"));
    }

    @Test
    void duplicatesAndPerClientRegressionsAreCounted() {
        History h = new History();
        ok(invoke(h, "a"), 10);
        ok(invoke(h, "b"), 10); // duplicate across clients
        ok(invoke(h, "a"), 9); // a goes back
        ok(invoke(h, "a"), 11);
        assertEquals(1, NamingScenario.duplicates(oks(h), "seq"));
        assertEquals(1, NamingScenario.perClientRegressions(oks(h), "seq"));
    }
}
