package io.coord.naming;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DownInstancesTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    @Test
    void anInstanceIsSkippedAfterTheThresholdAndBackAfterTheTimeout() {
        DownInstances down = new DownInstances(2, Duration.ofSeconds(30), now::get);
        assertTrue(down.none());
        down.noteError("a");
        assertFalse(down.isDown("a"), "one report is below the threshold of 2");
        down.noteError("a");
        assertTrue(down.isDown("a"));
        assertFalse(down.isDown("b"));
        now.addAndGet(Duration.ofSeconds(29).toNanos());
        assertTrue(down.isDown("a"));
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        assertFalse(down.isDown("a"), "back on its own after the timeout since the first report");
        assertTrue(down.none(), "and forgotten");
    }

    @Test
    void theTimeoutRunsFromTheFirstReport() {
        DownInstances down = new DownInstances(1, Duration.ofSeconds(10), now::get);
        down.noteError("a");
        now.addAndGet(Duration.ofSeconds(9).toNanos());
        down.noteError("a");
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        assertFalse(down.isDown("a"));
    }
}
