package io.coord.config;

import io.coord.CoordClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;

/** The README section's code, compiled (never run): if the API changes, this stops compiling. */
@SuppressWarnings("unused")
final class Snippets {
    record Limits(int maxConnections, Duration timeout) {
    }

    static final ConfigKey<Limits> LIMITS = ConfigKey.of("orders", "limits", Limits.class)
            .withDefault(new Limits(100, Duration.ofSeconds(2)))
            .withValidator(l -> l.maxConnections() > 0 ? List.of() : List.of("maxConnections must be > 0"));

    interface Pool {
        void resize(int size);
    }

    private Snippets() {
    }

    static void service(CoordClient client, Pool pool, Executor executor, Object request) throws InterruptedException {
        try (LiveConfig<Limits> limits = LiveConfig.watch(client, LIMITS, ConfigOptions.builder()
                .instanceId("orders-7")
                .snapshotDir(Path.of("/var/lib/orders/config"))
                .build())) {
            limits.awaitInitialized(Duration.ofSeconds(10));
            limits.addListener(new ConfigListener<>() {
                @Override
                public void onChange(ConfigChange<Limits> c) {
                    pool.resize(c.newValue().maxConnections());
                }

                @Override
                public void onRejected(ConfigRejection r) {
                    alert(r);
                }
            }, executor);
            handle(request, limits.get().timeout());
        }
    }

    static void admin(CoordClient adminClient) throws InterruptedException {
        ConfigStore store = ConfigStore.open(adminClient, ConfigOptions.defaults());
        Versioned<Limits> now = store.get(LIMITS).orElseThrow();
        long v = store.compareAndSet(LIMITS, now.version(), new Limits(200, now.value().timeout()));
        store.canary(LIMITS, new Limits(400, Duration.ofSeconds(1)), 10);
        store.who(LIMITS);
        store.promote(LIMITS);
        store.rollback(LIMITS, now.version());
    }

    private static void alert(ConfigRejection r) {
    }

    private static void handle(Object request, Duration timeout) {
    }
}
