package io.coord.naming;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * Plain Curator 5.9 clients for the mixed-fleet tests, each on its own session in the test's
 * namespace (10 s sessions: no test here expires one, so a loaded host cannot end one early).
 * {@link #close()} closes every client still open.
 */
final class CuratorClients implements AutoCloseable {
    private final ZooKeeperExtension zk;
    private final List<CuratorFramework> open = new ArrayList<>();

    CuratorClients(ZooKeeperExtension zk) {
        this.zk = zk;
    }

    /** A started, connected client. */
    CuratorFramework connect() throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.builder().connectString(zk.connectString()).namespace(zk.namespace())
                .sessionTimeoutMs(10_000).connectionTimeoutMs(10_000).retryPolicy(new ExponentialBackoffRetry(100, 5)).build();
        synchronized (open) {
            open.add(c);
        }
        c.start();
        assertTrue(c.blockUntilConnected((int) Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS),
                "Curator connected");
        return c;
    }

    @Override
    public void close() {
        synchronized (open) {
            open.forEach(CuratorFramework::close); // closing a closed client is a no-op
            open.clear();
        }
    }
}
