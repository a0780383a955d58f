package io.coord.queue;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.test.EmbeddedEnsemble;
import io.coord.test.Faults;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * This module's test companion to coord-test's {@link ZooKeeperExtension} (register that one
 * first, with {@code @Order(1)}): makes clients through it, and closes every queue, worker and
 * child process a test makes here before the extension closes the clients and checks for leaks.
 */
final class QueueServer implements AfterEachCallback {
    private final ZooKeeperExtension zookeeper;
    private final List<AutoCloseable> resources = new ArrayList<>();

    private QueueServer(ZooKeeperExtension zookeeper) {
        this.zookeeper = zookeeper;
    }

    static QueueServer on(ZooKeeperExtension zookeeper) {
        return new QueueServer(zookeeper);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        List<AutoCloseable> toClose;
        synchronized (resources) {
            toClose = new ArrayList<>(resources);
            resources.clear();
        }
        Exception first = null;
        for (int i = toClose.size() - 1; i >= 0; i--) {
            try {
                toClose.get(i).close();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    EmbeddedEnsemble ensemble() {
        return zookeeper.ensemble();
    }

    String namespace() {
        return zookeeper.namespace();
    }

    /** A client on this test's namespace (4 s sessions); closed after the test. */
    CoordClient client() {
        return zookeeper.newClient();
    }

    CoordClient client(UnaryOperator<CoordSettings.Builder> customize) {
        return zookeeper.newClient(customize);
    }

    <T> TaskQueue<T> queue(CoordClient client, String name, Class<T> type, QueueOptions options) {
        return track(TaskQueue.open(client, name, io.coord.Codec.json(type), options));
    }

    <R extends AutoCloseable> R track(R resource) {
        synchronized (resources) {
            resources.add(resource);
        }
        return resource;
    }

    /** Polls {@code condition} until it holds or {@code budget} runs out; fails naming {@code what}. */
    static void await(String what, Duration budget, BooleanSupplier condition) {
        io.coord.test.Awaits.until(what, budget, condition);
    }

    /** F2: ends {@code client}'s session on the server. */
    void expireSession(CoordClient client) {
        Faults.expireSession(client, ensemble());
    }
}
