package io.coord.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.ConflictException;
import io.coord.CoordClient;
import io.coord.test.ZooKeeperExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link ConfigStore#putAsync} and {@link ConfigStore#compareAndSetAsync}: the sync guarantees, the executor rule, cancellation. */
class ConfigStoreAsyncIT {
    record Limits(int max, String mode) {
    }

    private static final AtomicInteger APPS = new AtomicInteger();

    @RegisterExtension
    static final ZooKeeperExtension ZK = ZooKeeperExtension.single();

    private final ConfigTestKit kit = new ConfigTestKit(ZK);
    private final String app = "async" + APPS.incrementAndGet();

    @AfterEach
    void closeReaders() {
        kit.close();
    }

    private ConfigKey<Limits> key(String name) {
        return ConfigKey.of(app, name, Limits.class).withValidator(l -> l.max() > 0 ? List.of() : List.of("max must be > 0, got " + l.max()));
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        try {
            return f.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception ex ? ex : e;
        }
    }

    @Test
    void manyInFlightPublishWithHistoryAndCompareAndSetConflictsNameTheCurrentVersion() throws Exception {
        ConfigStore store = ConfigStore.open(kit.client(), ConfigOptions.builder().historyDepth(5).build());
        List<CompletableFuture<Long>> first = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            first.add(store.putAsync(key("k" + i), new Limits(i + 1, "first")));
        }
        for (int i = 0; i < 32; i++) {
            assertEquals(0L, get(first.get(i)), "k" + i + " published as version 0");
            assertEquals(new Limits(i + 1, "first"), store.get(key("k" + i)).orElseThrow().value());
        }
        ConfigKey<Limits> k = key("k0");
        for (long v = 0; v < 7; v++) {
            assertEquals(v + 1, get(store.compareAndSetAsync(k, v, new Limits(100 + (int) v, "cas"))));
        }
        ConflictException lost = assertThrows(ConflictException.class, () -> get(store.compareAndSetAsync(k, 3, new Limits(1, "lost"))));
        assertTrue(lost.getMessage().contains("expected version 3") && lost.getMessage().contains("current version is 7"), lost.getMessage());
        assertEquals(List.of(7L, 6L, 5L, 4L, 3L), store.history(k).stream().map(Versioned::version).toList(), "history kept, trimmed to 5");
        ConflictException absent = assertThrows(ConflictException.class, () -> get(store.compareAndSetAsync(key("none"), 0, new Limits(1, "x"))));
        assertTrue(absent.getMessage().contains("does not exist"), absent.getMessage());
        // a bad value is refused on the calling thread, before anything is sent
        ConfigValidationException bad = assertThrows(ConfigValidationException.class, () -> store.putAsync(key("bad"), new Limits(0, "x")));
        assertTrue(bad.getMessage().contains("max must be > 0, got 0"), bad.getMessage());
        assertNull(kit.client().curator().checkExists().forPath(key("bad").path().value()));
    }

    @Test
    void completionsRunOnTheCallersExecutorNeverOnAnEventThread() throws Exception {
        ConfigStore store = ConfigStore.open(kit.client(), ConfigOptions.defaults());
        CountDownLatch hold = new CountDownLatch(1);
        ExecutorService caller = Executors.newSingleThreadExecutor(r -> new Thread(r, "caller-executor"));
        try {
            caller.execute(() -> awaitQuietly(hold)); // completions queue behind this until released
            List<CompletableFuture<String>> ran = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                ran.add(store.putAsync(key("e" + i), new Limits(1, "x"), caller).thenApply(v -> Thread.currentThread().getName()));
                ran.add(store.compareAndSetAsync(key("missing" + i), 0, new Limits(1, "x"), caller)
                        .handle((v, e) -> Thread.currentThread().getName()));
            }
            hold.countDown();
            for (CompletableFuture<String> f : ran) {
                assertEquals("caller-executor", get(f), "outcomes (values and failures) on the caller's executor");
            }
        } finally {
            caller.shutdownNow();
            assertTrue(caller.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void aPublishCancelledBeforeItsTransactionWasSentWritesNothingAndLeavesNoNode() throws Exception {
        CoordClient client = kit.client();
        ConfigStore store = ConfigStore.open(client, ConfigOptions.defaults());
        // Hold this client's ZooKeeper event thread in a watcher of the test's own: the answers to
        // the publishes' first reads queue behind it, so their transactions cannot have been sent
        // when they are cancelled.
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        String trigger = "/trigger-" + app;
        client.curator().checkExists().usingWatcher((org.apache.zookeeper.Watcher) event -> {
            entered.countDown();
            awaitQuietly(release);
        }).forPath(trigger);
        CompletableFuture<Long> put;
        CompletableFuture<Long> cas;
        try {
            kit.client().curator().create().forPath(trigger);
            assertTrue(entered.await(20, TimeUnit.SECONDS), "the event thread is held");
            put = store.putAsync(key("cancelled"), new Limits(1, "never"));
            cas = store.compareAndSetAsync(key("cancelled"), 0, new Limits(2, "never"));
            assertTrue(put.cancel(false), () -> "put already ended: " + ended(put));
            assertTrue(cas.cancel(false), () -> "compareAndSet already ended: " + ended(cas));
        } finally {
            release.countDown();
        }
        // a read sent now is answered after the held answers were handled (one session, in order)
        client.curator().sync().forPath("/");
        client.curator().checkExists().forPath("/");
        assertTrue(put.isCancelled() && cas.isCancelled());
        assertNull(client.curator().checkExists().forPath("/config/" + app), "no node left behind, not even a directory");
        assertEquals(0L, get(store.putAsync(key("cancelled"), new Limits(3, "after"))), "the key was never published");
    }

    private static String ended(CompletableFuture<?> f) {
        return f.handle((v, e) -> e == null ? "value " + v : e.toString()).getNow("not done");
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
