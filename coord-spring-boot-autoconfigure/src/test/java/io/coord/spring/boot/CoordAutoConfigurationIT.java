package io.coord.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.coord.Codec;
import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.SessionState;
import io.coord.test.Awaits;
import io.coord.test.Faults;
import io.coord.test.ZooKeeperExtension;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/** The auto-configured client in a real application context against a real ZooKeeper. */
class CoordAutoConfigurationIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CoordAutoConfiguration.class));

    private ApplicationContextRunner withCoordProperties() {
        return runner.withPropertyValues("coord.connect-string=" + zk.connectString(), "coord.namespace=" + zk.namespace(),
                "coord.session-timeout=4s", "coord.connection-timeout=" + Awaits.scaled(Duration.ofSeconds(10)).toMillis() + "ms");
    }

    @Test
    void theClientBeanIsBuiltFromPropertiesAndConnects() throws Exception {
        withCoordProperties().run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(CoordClient.class);
            CoordClient client = context.getBean(CoordClient.class);
            assertThat(client.session().state()).isEqualTo(SessionState.CONNECTED);
            assertThat(client.settings().namespace()).isEqualTo(zk.namespace());
            assertThat(client.negotiatedSessionTimeout()).isEqualTo(Duration.ofSeconds(4));
            // The namespace is really applied: a plain client on the same namespace reads the node.
            client.curator().create().forPath("/written-by-spring", "x".getBytes(StandardCharsets.UTF_8));
            assertThat(zk.newClient().curator().getData().forPath("/written-by-spring")).isEqualTo("x".getBytes(StandardCharsets.UTF_8));
        });
    }

    @Test
    void anApplicationsOwnClientBeanWins() {
        // No coord.* properties at all: the auto-configured client would fail startup for lack of
        // coord.connect-string, so startup succeeding proves it backed off.
        runner.withUserConfiguration(OwnClient.class).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(CoordClient.class);
            assertThat(context.getBean(CoordClient.class)).isSameAs(context.getBean(OwnClient.class).client);
        });
    }

    @Test
    void theClientClosesAfterTheBeansThatUseIt() {
        WorkerConfiguration.SEEN.clear();
        CoordClient[] client = new CoordClient[1];
        withCoordProperties().withUserConfiguration(WorkerConfiguration.class).run(context -> {
            assertThat(context).hasNotFailed();
            client[0] = context.getBean(CoordClient.class);
        });
        assertThat(WorkerConfiguration.SEEN).containsExactly("worker closed with a working client");
        assertThat(client[0].isClosed()).isTrue();
    }

    @Test
    void coordsMetricsGoIntoTheApplicationsMeterRegistry() {
        withCoordProperties().withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            assertThat(context).hasNotFailed();
            CoordClient client = context.getBean(CoordClient.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            long old = Faults.expireSession(client, zk.ensemble());
            Faults.awaitNewSession(client, old, Duration.ofSeconds(30));
            Awaits.until("coord.session.expired and coord.session.started in the registry", Duration.ofSeconds(10),
                    () -> count(registry, "coord.session.expired") >= 1 && count(registry, "coord.session.started") >= 1);
        });
    }

    @Test
    void jackson3OfTheApplicationAndJackson2OfCoordWorkSideBySide() {
        withCoordProperties().withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class)).run(context -> {
            assertThat(context).hasNotFailed();
            JsonMapper jackson3 = context.getBean(JsonMapper.class);
            CoordClient client = context.getBean(CoordClient.class);
            Codec<Point> jackson2 = Codec.json(Point.class);
            CoordPath path = CoordPath.of("/point");
            Point point = new Point(3, 4);
            client.curator().create().forPath(path.value(), jackson2.encode(path, point));
            byte[] stored = client.curator().getData().forPath(path.value());
            assertThat(jackson2.decode(path, stored)).isEqualTo(point);
            assertThat(jackson3.readValue(stored, Point.class)).isEqualTo(point);
            assertThat(jackson2.decode(path, jackson3.writeValueAsBytes(point))).isEqualTo(point);
        });
    }

    private static double count(MeterRegistry registry, String name) {
        Counter counter = registry.find(name).counter();
        return counter == null ? 0 : counter.count();
    }

    record Point(int x, int y) {
    }

    /** A bean that uses the client while it closes, as one releasing its locks would. */
    static final class Worker implements AutoCloseable {
        private final CoordClient client;
        private final List<String> seen;

        Worker(CoordClient client, List<String> seen) {
            this.client = client;
            this.seen = seen;
        }

        @Override
        public void close() throws Exception {
            boolean works = !client.isClosed() && client.curator().checkExists().forPath("/") != null;
            seen.add(works ? "worker closed with a working client" : "worker closed after the client");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class WorkerConfiguration {
        static final List<String> SEEN = new CopyOnWriteArrayList<>();

        @Bean
        Worker worker(CoordClient client) {
            return new Worker(client, SEEN);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnClient {
        final CoordClient client = zk.newClient();

        @Bean
        CoordClient myClient() {
            return client;
        }
    }
}
