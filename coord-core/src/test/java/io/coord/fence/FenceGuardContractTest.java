package io.coord.fence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordPath;
import io.coord.FencingToken;
import io.coord.StaleTokenException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What every FenceGuard must keep, written once; each implementation supplies a fresh guard. */
abstract class FenceGuardContractTest {
    abstract FenceGuard newGuard() throws Exception;

    static FencingToken token(long czxid) {
        return new FencingToken(czxid, CoordPath.of("/locks/r/lock-" + czxid));
    }

    @Test
    void aLowerTokenIsRejectedAfterAHigherOneWasAccepted() throws Exception {
        FenceGuard guard = newGuard();
        assertTrue(guard.admit("account-1", token(100)));
        assertTrue(guard.admit("account-1", token(200)));
        assertFalse(guard.admit("account-1", token(150)), "stale token must be rejected");
        assertEquals(200, guard.highest("account-1"));
        assertEquals(1, guard.rejections(), "a rejection is counted");
    }

    @Test
    void theSameTokenMayWriteManyTimes() throws Exception {
        FenceGuard guard = newGuard();
        assertTrue(guard.admit("r", token(7)));
        assertTrue(guard.admit("r", token(7)));
        assertEquals(0, guard.rejections());
    }

    @Test
    void resourcesAreFencedIndependently() throws Exception {
        FenceGuard guard = newGuard();
        assertTrue(guard.admit("a", token(500)));
        assertTrue(guard.admit("b", token(5)));
        assertEquals(0, guard.highest("c"));
    }

    @Test
    void enforceThrowsNamingBothTokens() throws Exception {
        FenceGuard guard = newGuard();
        guard.enforce("r", token(0x20));
        StaleTokenException e = assertThrows(StaleTokenException.class, () -> guard.enforce("r", token(0x10)));
        assertTrue(e.getMessage().contains("0x10") && e.getMessage().contains("32"), e.getMessage());
    }

    @Test
    void concurrentWritersNeverLetTheHighestGoBack() throws Exception {
        FenceGuard guard = newGuard();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int offset = t;
                results.add(pool.submit((Callable<Integer>) () -> {
                    int rejected = 0;
                    for (int i = 1; i <= 200; i++) {
                        if (!guard.admit("shared", token(i * 4L + offset))) {
                            rejected++;
                        }
                    }
                    return rejected;
                }));
            }
            int rejected = 0;
            for (Future<Integer> f : results) {
                rejected += f.get(60, TimeUnit.SECONDS);
            }
            assertEquals(200 * 4 + 3, guard.highest("shared"), "the highest token wins whatever the interleaving");
            assertEquals(rejected, guard.rejections());
        } finally {
            pool.shutdownNow();
        }
    }
}
