package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.ConfigurationException;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Options and task specs fail early, naming the bad value; records and ids validate themselves. */
class QueueOptionsTest {
    @Test
    void defaultsAreTheDocumentedOnes() {
        QueueOptions o = QueueOptions.defaults();
        assertEquals(64 * 1024, o.maxTaskBytes());
        assertEquals(3, o.maxRetries());
        assertEquals(Duration.ofSeconds(1), o.backoffBase());
        assertEquals(Duration.ofMinutes(5), o.backoffMax());
        assertEquals(1, o.lanes());
        assertEquals(10_000, o.depthCap());
        assertTrue(o.consumerName().contains("@"), o.consumerName());
        assertEquals(Duration.ofHours(1), o.idempotencyWindow());
        assertEquals(5_000, o.idempotencyKeys());
    }

    @Test
    void eachOptionMaySetOnceAndBadValuesFailNamingThem() {
        ConfigurationException twice = assertThrows(ConfigurationException.class,
                () -> QueueOptions.builder().lanes(2).lanes(3));
        assertTrue(twice.getMessage().contains("lanes"), twice.getMessage());
        assertTrue(assertThrows(ConfigurationException.class, () -> QueueOptions.builder().maxRetries(-1))
                .getMessage().contains("-1"));
        assertTrue(assertThrows(ConfigurationException.class, () -> QueueOptions.builder().depthCap(60_000).build())
                .getMessage().contains("60000"));
        assertThrows(ConfigurationException.class, () -> QueueOptions.builder().lanes(0).build());
        assertThrows(ConfigurationException.class, () -> QueueOptions.builder().maxTaskBytes(2_000_000).build());
        assertThrows(ConfigurationException.class,
                () -> QueueOptions.builder().backoff(Duration.ofSeconds(5), Duration.ofSeconds(1)).build());
        assertThrows(ConfigurationException.class, () -> QueueOptions.builder().backoffJitter(2).build());
        assertTrue(assertThrows(ConfigurationException.class, () -> QueueOptions.builder().idempotencyWindow(Duration.ZERO)
                .build()).getMessage().contains("idempotencyWindow"));
        assertTrue(assertThrows(ConfigurationException.class, () -> QueueOptions.builder().idempotencyKeys(50_001).build())
                .getMessage().contains("50001"));
    }

    @Test
    void claimTimeoutIsOffByDefaultAndBadValuesFailNamingThem() {
        QueueOptions off = QueueOptions.defaults();
        assertEquals(Duration.ZERO, off.claimTimeout());
        assertTrue(!off.claimsTimeOut());
        QueueOptions on = QueueOptions.builder().claimTimeout(Duration.ofSeconds(30)).build();
        assertEquals(QueueOptions.DEFAULT_MAX_PROCESSING, on.maxProcessing());
        assertTrue(assertThrows(ConfigurationException.class, () -> QueueOptions.builder().claimTimeout(Duration.ofMillis(10)))
                .getMessage().contains("PT0.01S"));
        assertTrue(assertThrows(ConfigurationException.class, () -> QueueOptions.builder().claimTimeout(Duration.ofDays(2)))
                .getMessage().contains("PT48H"));
        assertThrows(ConfigurationException.class, () -> QueueOptions.builder().claimTimeout(Duration.ofSeconds(-1)));
        ConfigurationException alone = assertThrows(ConfigurationException.class,
                () -> QueueOptions.builder().maxProcessing(Duration.ofMinutes(1)).build());
        assertTrue(alone.getMessage().contains("claimTimeout"), alone.getMessage());
        assertThrows(ConfigurationException.class,
                () -> QueueOptions.builder().claimTimeout(Duration.ofSeconds(5)).maxProcessing(Duration.ZERO).build());
        QueueOptions derived = on.toBuilder().lanes(2).build();
        assertEquals(Duration.ofSeconds(30), derived.claimTimeout());
        assertEquals(2, QueueOptions.defaults().toBuilder().lanes(2).build().lanes(), "a variant of the defaults builds");
    }

    @Test
    void maxDeliveriesIsTenByDefaultZeroTurnsItOffAndABadValueFailsNamingIt() {
        assertEquals(QueueOptions.DEFAULT_MAX_DELIVERIES, QueueOptions.defaults().maxDeliveries());
        assertEquals(10, QueueOptions.DEFAULT_MAX_DELIVERIES);
        assertEquals(0, QueueOptions.builder().maxDeliveries(0).build().maxDeliveries());
        ConfigurationException bad = assertThrows(ConfigurationException.class, () -> QueueOptions.builder().maxDeliveries(-2));
        assertTrue(bad.getMessage().contains("maxDeliveries") && bad.getMessage().contains("-2"), bad.getMessage());
        assertEquals(3, QueueOptions.builder().maxDeliveries(3).build().toBuilder().lanes(2).build().maxDeliveries(),
                "a variant keeps it");
        assertThrows(ConfigurationException.class, () -> QueueOptions.builder().maxDeliveries(3).maxDeliveries(4));
    }

    @Test
    void claimNodeDataCarriesItsTimeout() {
        assertEquals(1500, ClaimTimeouts.timeoutMillis(ClaimTimeouts.claimInfo("task-0000000001", "w", 1, 1500)));
        assertEquals(0, ClaimTimeouts.timeoutMillis(ClaimTimeouts.claimInfo("task-0000000001", "w", 1, 0)));
        assertEquals(0, ClaimTimeouts.timeoutMillis("not json".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertEquals(0, ClaimTimeouts.timeoutMillis(new byte[0]));
    }

    @Test
    void toBuilderDerivesAVariantThatMayChangeEachSettingOnceMore() {
        QueueOptions base = QueueOptions.builder().lanes(2).maxRetries(5).build();
        QueueOptions derived = base.toBuilder().lanes(4).build();
        assertEquals(4, derived.lanes());
        assertEquals(5, derived.maxRetries());
    }

    @Test
    void badTaskSpecsAreRejectedAsTaskRejected() {
        assertTrue(assertThrows(TaskRejectedException.class, () -> TaskSpec.defaults().maxRetries(-3))
                .getMessage().contains("-3"));
        assertThrows(TaskRejectedException.class, () -> TaskSpec.defaults().lane(-1));
        assertThrows(TaskRejectedException.class, () -> TaskSpec.defaults().idempotencyKey("a/b"));
        assertThrows(TaskRejectedException.class, () -> TaskSpec.defaults().idempotencyKey(""));
        assertThrows(TaskRejectedException.class, () -> TaskSpec.defaults().idempotencyKey("k".repeat(201)));
        TaskSpec ok = TaskSpec.defaults().lane(1).notBefore(Instant.EPOCH).idempotencyKey("order-1").maxRetries(0);
        assertEquals(1, ok.lane());
        assertEquals(0, ok.maxRetries());
        assertNull(TaskSpec.defaults().maxRetries());
    }

    @Test
    void taskIdsAreTaskNodeNames() {
        assertEquals(42, new TaskId("task-0000000042").sequence());
        assertThrows(IllegalArgumentException.class, () -> new TaskId("job-0000000042"));
        assertThrows(IllegalArgumentException.class, () -> new TaskId("task-42"));
        assertThrows(RuntimeException.class, () -> new TaskId("task/0000000042"));
        assertTrue(new TaskId("task-0000000002").compareTo(new TaskId("task-0000000010")) < 0);
    }

    @Test
    void aTaskNamesItsClaimerExactlyWhenProcessing() {
        TaskId id = new TaskId("task-0000000001");
        assertThrows(IllegalArgumentException.class, () -> new Task<>(id, Task.State.PROCESSING, "p", 0, Instant.EPOCH, null,
                0, 1, 3, null, null, null));
        assertThrows(IllegalArgumentException.class, () -> new Task<>(id, Task.State.PENDING, "p", 0, Instant.EPOCH, null,
                0, 1, 3, null, "w1", Instant.EPOCH));
    }

    @Test
    void lastErrorIsCutToItsLimit() {
        String cut = TaskRecord.cut("e".repeat(10_000));
        assertTrue(cut.length() <= TaskRecord.MAX_ERROR_LENGTH, "length " + cut.length());
        assertTrue(cut.endsWith("[10000 chars]"), cut.substring(cut.length() - 30));
        assertEquals("(no reason given)", TaskRecord.cut(null));
    }
}
