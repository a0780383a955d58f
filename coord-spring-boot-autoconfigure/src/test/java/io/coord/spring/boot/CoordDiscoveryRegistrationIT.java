package io.coord.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.coord.naming.Discovery;
import io.coord.naming.Endpoint;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/** {@code coord.discovery.register=true}: a real web application registers its port in Coord discovery and unregisters on shutdown. */
class CoordDiscoveryRegistrationIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class WebApp {
    }

    private static String[] coordArgs(String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("--coord.connect-string=" + zk.connectString(),
                "--coord.namespace=" + zk.namespace(), "--coord.session-timeout=4s",
                "--coord.connection-timeout=" + Awaits.scaled(Duration.ofSeconds(10)).toMillis() + "ms"));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    @Test
    void theApplicationIsRegisteredWithTheWebServersPortAndUnregisteredOnShutdown() throws Exception {
        try (Discovery other = Discovery.open(zk.newClient())) {
            int port;
            try (ConfigurableApplicationContext app = new SpringApplicationBuilder(WebApp.class).run(coordArgs(
                    "--server.port=0", "--server.address=127.0.0.1", "--spring.application.name=orders-api",
                    "--coord.discovery.register=true", "--coord.discovery.address=127.0.0.1"))) {
                port = app.getEnvironment().getProperty("local.server.port", Integer.class);
                assertThat(port).isPositive();
                List<Endpoint> instances = other.instances("orders-api");
                assertThat(instances).hasSize(1);
                assertThat(instances.get(0).port()).isEqualTo(port);
                assertThat(instances.get(0).address()).isEqualTo("127.0.0.1");
                assertThat(instances.get(0).id()).endsWith("-" + port);
                assertThat(other.resolve("orders-api")).map(Endpoint::port).contains(port);
            }
            assertThat(other.instances("orders-api")).as("unregistered when the context closed").isEmpty();
        }
    }

    private static ApplicationContextRunner noWeb() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CoordAutoConfiguration.class, CoordDiscoveryAutoConfiguration.class))
                .withPropertyValues("coord.connect-string=" + zk.connectString(), "coord.namespace=" + zk.namespace(),
                        "coord.session-timeout=4s",
                        "coord.connection-timeout=" + Awaits.scaled(Duration.ofSeconds(10)).toMillis() + "ms",
                        "coord.discovery.register=true");
    }

    @Test
    void withoutAWebServerThePortPropertyIsUsedOrStartupFailsNamingIt() throws Exception {
        noWeb().withPropertyValues("spring.application.name=batch", "coord.discovery.port=7000", "coord.discovery.zone=eu-1",
                "coord.discovery.instance-id=batch-1").run(context -> {
            assertThat(context).hasNotFailed();
            try (Discovery other = Discovery.open(zk.newClient())) {
                assertThat(other.instances("batch")).singleElement().satisfies(e -> {
                    assertThat(e.id()).isEqualTo("batch-1");
                    assertThat(e.port()).isEqualTo(7000);
                    assertThat(e.zone()).isEqualTo("eu-1");
                });
            }
        });
        noWeb().withPropertyValues("spring.application.name=batch").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("coord.discovery.port");
        });
    }

    @Test
    void aNameDiscoveryRefusesFailsStartupNamingTheProperty() {
        noWeb().withPropertyValues("spring.application.name=Orders_API", "coord.discovery.port=7000").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("spring.application.name")
                    .hasStackTraceContaining("Orders_API");
        });
        noWeb().withPropertyValues("coord.discovery.port=7000").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("coord.discovery.service");
        });
    }

    @Test
    void nothingIsRegisteredUnlessAsked() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CoordAutoConfiguration.class, CoordDiscoveryAutoConfiguration.class))
                .withPropertyValues("coord.connect-string=" + zk.connectString(), "coord.namespace=" + zk.namespace(),
                        "coord.session-timeout=4s")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(CoordDiscoveryRegistration.class));
    }
}
